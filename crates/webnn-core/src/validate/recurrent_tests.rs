//! Table tests of gru, gruCell, lstm and lstmCell.
//!
//! A row names the op and its sizes; every operand gets the shape the spec requires unless the
//! row overrides it (`shape`) or gives it the other float type (`other`). Option operands are
//! present when the row lists them (`with`, `shape`, `other`).

use super::OpCall;
use super::{activations, check_hidden_size};
use crate::graph::{Attrs, Graph};
use crate::limits::member_limits;
use crate::testing::*;
use crate::types::{
    GruWeightLayout, LstmWeightLayout, RecurrentNetworkActivation as Act, RecurrentNetworkDirection as Dir,
};
use crate::{DataType::*, ErrorKind};
use std::collections::HashMap;

#[derive(Clone)]
struct Rnn {
    op: OpKind,
    steps: u32,
    batch: u32,
    input_size: u32,
    hidden: u32,
    direction: Dir,
    return_sequence: bool,
    activations: Option<Vec<Act>>,
    with: Vec<&'static str>,
    shapes: Vec<(&'static str, Vec<u32>)>,
    other_type: Vec<&'static str>,
    expect: std::result::Result<(), &'static str>,
}

fn rnn(op: OpKind, steps: u32, batch: u32, input_size: u32, hidden: u32) -> Rnn {
    Rnn {
        op,
        steps,
        batch,
        input_size,
        hidden,
        direction: Dir::Forward,
        return_sequence: false,
        activations: None,
        with: vec![],
        shapes: vec![],
        other_type: vec![],
        expect: Ok(()),
    }
}
fn gru(steps: u32, batch: u32, input_size: u32, hidden: u32) -> Rnn {
    rnn(OpKind::Gru, steps, batch, input_size, hidden)
}
fn lstm(steps: u32, batch: u32, input_size: u32, hidden: u32) -> Rnn {
    rnn(OpKind::Lstm, steps, batch, input_size, hidden)
}
fn gru_cell(batch: u32, input_size: u32, hidden: u32) -> Rnn {
    rnn(OpKind::GruCell, 1, batch, input_size, hidden)
}
fn lstm_cell(batch: u32, input_size: u32, hidden: u32) -> Rnn {
    rnn(OpKind::LstmCell, 1, batch, input_size, hidden)
}

impl Rnn {
    fn dir(mut self, d: Dir) -> Self {
        self.direction = d;
        self
    }
    fn seq(mut self) -> Self {
        self.return_sequence = true;
        self
    }
    fn act(mut self, a: &[Act]) -> Self {
        self.activations = Some(a.to_vec());
        self
    }
    fn with(mut self, slots: &[&'static str]) -> Self {
        self.with.extend_from_slice(slots);
        self
    }
    fn with_all(mut self) -> Self {
        let positional = self.positional();
        self.with.extend(self.op.limits_kind().inputs().iter().filter(|s| !positional.contains(s)));
        self
    }
    fn shape(mut self, slot: &'static str, shape: &[u32]) -> Self {
        self.shapes.push((slot, shape.to_vec()));
        self
    }
    fn other(mut self, slot: &'static str) -> Self {
        self.other_type.push(slot);
        self
    }
    fn err(mut self, needle: &'static str) -> Self {
        self.expect = Err(needle);
        self
    }
    fn gates(&self) -> u32 {
        match self.op {
            OpKind::Gru | OpKind::GruCell => 3,
            _ => 4,
        }
    }
    fn is_cell(&self) -> bool {
        matches!(self.op, OpKind::GruCell | OpKind::LstmCell)
    }
    fn nd(&self) -> u32 {
        if self.direction == Dir::Both {
            2
        } else {
            1
        }
    }
    fn positional(&self) -> &'static [&'static str] {
        match self.op {
            OpKind::Gru | OpKind::Lstm => &["input", "weight", "recurrentWeight"],
            OpKind::GruCell => &["input", "weight", "recurrentWeight", "hiddenState"],
            _ => &["input", "weight", "recurrentWeight", "hiddenState", "cellState"],
        }
    }
    /// The shape the spec requires for `slot`.
    fn default_shape(&self, slot: &str) -> Vec<u32> {
        let (s, b, i, h, g, nd) = (self.steps, self.batch, self.input_size, self.hidden, self.gates(), self.nd());
        if self.is_cell() {
            match slot {
                "input" => vec![b, i],
                "weight" => vec![g * h, i],
                "recurrentWeight" => vec![g * h, h],
                "hiddenState" | "cellState" => vec![b, h],
                "bias" | "recurrentBias" => vec![g * h],
                "peepholeWeight" => vec![3 * h],
                _ => unreachable!("{slot}"),
            }
        } else {
            match slot {
                "input" => vec![s, b, i],
                "weight" => vec![nd, g * h, i],
                "recurrentWeight" => vec![nd, g * h, h],
                "bias" | "recurrentBias" => vec![nd, g * h],
                "peepholeWeight" => vec![nd, 3 * h],
                "initialHiddenState" | "initialCellState" => vec![nd, b, h],
                _ => unreachable!("{slot}"),
            }
        }
    }
    /// The output shapes the spec gives for a valid call.
    fn expected_outputs(&self) -> Vec<Vec<u32>> {
        let (s, b, h, nd) = (self.steps, self.batch, self.hidden, self.nd());
        let mut outs = match self.op {
            OpKind::Gru => vec![vec![nd, b, h]],
            OpKind::Lstm => vec![vec![nd, b, h], vec![nd, b, h]],
            OpKind::GruCell => vec![vec![b, h]],
            _ => vec![vec![b, h], vec![b, h]],
        };
        if self.return_sequence && !self.is_cell() {
            outs.push(vec![s, nd, b, h]);
        }
        outs
    }
}

fn other_float(t: DataType) -> DataType {
    if t == Float32 {
        Float16
    } else {
        Float32
    }
}

/// Creates the row's operands in `b` and calls the op.
fn run(b: &mut GraphBuilder, row: &Rnn, t: DataType, label: &str) -> Result<Vec<Operand>> {
    let mut ops: HashMap<&str, Operand> = HashMap::new();
    for &slot in row.op.limits_kind().inputs() {
        let overridden = row.shapes.iter().rev().find(|(s, _)| *s == slot).map(|(_, v)| v.clone());
        let present = row.positional().contains(&slot)
            || row.with.contains(&slot)
            || overridden.is_some()
            || row.other_type.contains(&slot);
        if present {
            let shape = overridden.unwrap_or_else(|| row.default_shape(slot));
            let ty = if row.other_type.contains(&slot) { other_float(t) } else { t };
            ops.insert(slot, b.input(slot, &desc(ty, &shape)).unwrap());
        }
    }
    let get = |s: &str| ops.get(s).cloned();
    let label = label.to_string();
    match row.op {
        OpKind::Gru => {
            let options = GruOptions {
                label,
                bias: get("bias"),
                recurrent_bias: get("recurrentBias"),
                initial_hidden_state: get("initialHiddenState"),
                return_sequence: row.return_sequence,
                direction: row.direction,
                activations: row.activations.clone(),
                ..Default::default()
            };
            b.gru(&ops["input"], &ops["weight"], &ops["recurrentWeight"], row.steps, row.hidden, &options)
        }
        OpKind::GruCell => {
            let options = GruCellOptions {
                label,
                bias: get("bias"),
                recurrent_bias: get("recurrentBias"),
                activations: row.activations.clone(),
                ..Default::default()
            };
            let (i, w, r, h) = (&ops["input"], &ops["weight"], &ops["recurrentWeight"], &ops["hiddenState"]);
            b.gru_cell(i, w, r, h, row.hidden, &options).map(|o| vec![o])
        }
        OpKind::Lstm => {
            let options = LstmOptions {
                label,
                bias: get("bias"),
                recurrent_bias: get("recurrentBias"),
                peephole_weight: get("peepholeWeight"),
                initial_hidden_state: get("initialHiddenState"),
                initial_cell_state: get("initialCellState"),
                return_sequence: row.return_sequence,
                direction: row.direction,
                activations: row.activations.clone(),
                ..Default::default()
            };
            b.lstm(&ops["input"], &ops["weight"], &ops["recurrentWeight"], row.steps, row.hidden, &options)
        }
        _ => {
            let options = LstmCellOptions {
                label,
                bias: get("bias"),
                recurrent_bias: get("recurrentBias"),
                peephole_weight: get("peepholeWeight"),
                activations: row.activations.clone(),
                ..Default::default()
            };
            let (i, w, r) = (&ops["input"], &ops["weight"], &ops["recurrentWeight"]);
            b.lstm_cell(i, w, r, &ops["hiddenState"], &ops["cellState"], row.hidden, &options)
        }
    }
}

fn run_table(rows: &[Rnn], min_rows: usize) {
    assert!(rows.len() >= min_rows, "{} rows", rows.len());
    for (i, row) in rows.iter().enumerate() {
        for t in [Float32, Float16] {
            let mut b = builder();
            let r = run(&mut b, row, t, "");
            let ctx = format!("{} row {i} {t}", row.op);
            match row.expect {
                Ok(()) => {
                    let outs = r.expect(&ctx);
                    let got: Vec<_> = outs.iter().map(|o| o.descriptor().clone()).collect();
                    let want: Vec<_> = row.expected_outputs().iter().map(|s| desc(t, s)).collect();
                    assert_eq!(got, want, "{ctx}");
                    assert_eq!(b.operation_count(), 1, "{ctx}");
                }
                Err(needle) => {
                    let e = r.expect_err(&ctx);
                    assert_eq!(e.kind, ErrorKind::Type, "{ctx}: {e}");
                    assert!(e.message.contains(needle), "{ctx}: {:?} should contain {needle:?}", e.message);
                    assert!(e.message.starts_with(&format!("{}: ", row.op)), "{ctx}: {:?}", e.message);
                    assert_eq!(b.operation_count(), 0, "{ctx}: a throwing call adds nothing");
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// gru
// ---------------------------------------------------------------------------------------------

#[test]
fn gru_table() {
    use Act::*;
    let rows = vec![
        gru(2, 3, 4, 5),
        gru(2, 3, 4, 5).seq(),
        gru(2, 3, 4, 5).dir(Dir::Both),
        gru(2, 3, 4, 5).dir(Dir::Both).seq(),
        gru(2, 3, 4, 5).dir(Dir::Backward),
        gru(2, 3, 4, 5).dir(Dir::Backward).seq(),
        gru(2, 3, 4, 5).with_all(),
        gru(2, 3, 4, 5).with_all().dir(Dir::Both).seq(),
        gru(2, 3, 4, 5).with(&["bias"]),
        gru(2, 3, 4, 5).with(&["recurrentBias"]),
        gru(2, 3, 4, 5).with(&["initialHiddenState"]).dir(Dir::Both),
        gru(2, 3, 4, 5).act(&[Relu, Relu]),
        gru(2, 3, 4, 5).act(&[Tanh, Sigmoid]),
        gru(1, 1, 1, 1),
        gru(1, 1, 1, 1).seq().dir(Dir::Both).with_all(),
        gru(16, 8, 32, 64).with_all().seq(),
        gru(5, 2, 7, 3).dir(Dir::Backward).with(&["bias", "initialHiddenState"]),
        // ---- steps ----
        gru(0, 3, 4, 5).shape("input", &[1, 3, 4]).err("steps must be greater than 0"),
        gru(2, 3, 4, 5).shape("input", &[3, 3, 4]).err("input.shape[0] (3) must equal steps (2)"),
        gru(4, 3, 4, 5).shape("input", &[1, 3, 4]).err("input.shape[0] (1) must equal steps (4)"),
        // ---- weights ----
        gru(2, 3, 4, 5).shape("weight", &[1, 14, 4]).err("weight shape [1, 14, 4] must be [1, 15, 4]"),
        gru(2, 3, 4, 5).shape("weight", &[1, 15, 5]).err("weight shape [1, 15, 5] must be [1, 15, 4]"),
        gru(2, 3, 4, 5).dir(Dir::Both).shape("weight", &[1, 15, 4]).err("weight shape [1, 15, 4] must be [2, 15, 4]"),
        gru(2, 3, 4, 5).shape("weight", &[2, 15, 4]).err("weight shape [2, 15, 4] must be [1, 15, 4]"),
        gru(2, 3, 4, 5)
            .shape("recurrentWeight", &[1, 15, 4])
            .err("recurrentWeight shape [1, 15, 4] must be [1, 15, 5]"),
        gru(2, 3, 4, 5)
            .shape("recurrentWeight", &[2, 15, 5])
            .err("recurrentWeight shape [2, 15, 5] must be [1, 15, 5]"),
        gru(2, 3, 4, 5).shape("recurrentWeight", &[1, 20, 5]).err("recurrentWeight shape [1, 20, 5]"),
        gru(2, 3, 4, 0)
            .shape("weight", &[1, 1, 4])
            .shape("recurrentWeight", &[1, 1, 1])
            .err("weight shape [1, 1, 4] must be [1, 0, 4]"),
        // ---- option operands ----
        gru(2, 3, 4, 5).shape("bias", &[1, 14]).err("bias shape [1, 14] must be [1, 15]"),
        gru(2, 3, 4, 5).dir(Dir::Both).shape("bias", &[1, 15]).err("bias shape [1, 15] must be [2, 15]"),
        gru(2, 3, 4, 5).shape("recurrentBias", &[1, 16]).err("recurrentBias shape [1, 16] must be [1, 15]"),
        gru(2, 3, 4, 5)
            .dir(Dir::Both)
            .shape("recurrentBias", &[1, 15])
            .err("recurrentBias shape [1, 15] must be [2, 15]"),
        gru(2, 3, 4, 5)
            .shape("initialHiddenState", &[1, 2, 5])
            .err("initialHiddenState shape [1, 2, 5] must be [1, 3, 5]"),
        gru(2, 3, 4, 5)
            .shape("initialHiddenState", &[1, 3, 4])
            .err("initialHiddenState shape [1, 3, 4] must be [1, 3, 5]"),
        gru(2, 3, 4, 5).dir(Dir::Both).shape("initialHiddenState", &[1, 3, 5]).err("must be [2, 3, 5]"),
        // ---- activations ----
        gru(2, 3, 4, 5).act(&[Sigmoid]).err("activations must have 2 items, got 1"),
        gru(2, 3, 4, 5).act(&[Sigmoid, Tanh, Tanh]).err("activations must have 2 items, got 3"),
        gru(2, 3, 4, 5).act(&[]).err("activations must have 2 items, got 0"),
        // ---- limits (ranks) ----
        gru(2, 3, 4, 5).shape("input", &[2, 3]).err("input rank 2"),
        gru(2, 3, 4, 5).shape("weight", &[15, 4]).err("weight rank 2"),
        gru(2, 3, 4, 5).shape("recurrentWeight", &[1, 1, 15, 5]).err("recurrentWeight rank 4"),
        gru(2, 3, 4, 5).shape("bias", &[15]).err("bias rank 1"),
        gru(2, 3, 4, 5).shape("recurrentBias", &[1, 1, 15]).err("recurrentBias rank 3"),
        gru(2, 3, 4, 5).shape("initialHiddenState", &[3, 5]).err("initialHiddenState rank 2"),
        // ---- types ----
        gru(2, 3, 4, 5).other("weight").err("weight data type"),
        gru(2, 3, 4, 5).other("recurrentWeight").err("recurrentWeight data type"),
        gru(2, 3, 4, 5).other("bias").err("bias data type"),
        gru(2, 3, 4, 5).other("recurrentBias").err("recurrentBias data type"),
        gru(2, 3, 4, 5).other("initialHiddenState").err("initialHiddenState data type"),
        // ---- step order ----
        gru(0, 3, 4, 5).shape("input", &[1, 3, 4]).shape("weight", &[1, 1, 1]).err("steps"),
        gru(2, 3, 4, 5).shape("input", &[3, 3, 4]).shape("weight", &[1, 1, 1]).err("input.shape[0]"),
        gru(2, 3, 4, 5).shape("weight", &[1, 1, 1]).shape("recurrentWeight", &[1, 1, 1]).err("weight shape [1, 1, 1]"),
        gru(2, 3, 4, 5).shape("recurrentWeight", &[1, 1, 1]).shape("bias", &[1, 1]).err("recurrentWeight shape"),
        gru(2, 3, 4, 5).shape("bias", &[1, 1]).shape("recurrentBias", &[1, 1]).err("bias shape [1, 1]"),
        gru(2, 3, 4, 5)
            .shape("recurrentBias", &[1, 1])
            .shape("initialHiddenState", &[1, 1, 1])
            .err("recurrentBias shape"),
        gru(2, 3, 4, 5).shape("initialHiddenState", &[1, 1, 1]).act(&[]).err("initialHiddenState shape"),
        gru(2, 3, 4, 5).other("weight").shape("input", &[9, 3, 4]).err("weight data type"),
    ];
    run_table(&rows, 55);
}

#[test]
fn gru_cell_table() {
    use Act::*;
    let rows = vec![
        gru_cell(3, 4, 5),
        gru_cell(3, 4, 5).with(&["bias"]),
        gru_cell(3, 4, 5).with(&["recurrentBias"]),
        gru_cell(3, 4, 5).with_all(),
        gru_cell(3, 4, 5).act(&[Relu, Tanh]),
        gru_cell(3, 4, 5).with_all().act(&[Sigmoid, Sigmoid]),
        gru_cell(1, 1, 1),
        gru_cell(8, 16, 32).with_all(),
        gru_cell(2, 9, 4).with(&["bias"]),
        // ---- shapes ----
        gru_cell(3, 4, 5).shape("weight", &[14, 4]).err("weight shape [14, 4] must be [15, 4]"),
        gru_cell(3, 4, 5).shape("weight", &[15, 3]).err("weight shape [15, 3] must be [15, 4]"),
        gru_cell(3, 4, 5).shape("recurrentWeight", &[15, 4]).err("recurrentWeight shape [15, 4] must be [15, 5]"),
        gru_cell(3, 4, 5).shape("recurrentWeight", &[14, 5]).err("recurrentWeight shape [14, 5] must be [15, 5]"),
        gru_cell(3, 4, 5).shape("hiddenState", &[2, 5]).err("hiddenState shape [2, 5] must be [3, 5]"),
        gru_cell(3, 4, 5).shape("hiddenState", &[3, 4]).err("hiddenState shape [3, 4] must be [3, 5]"),
        gru_cell(3, 4, 5).shape("bias", &[14]).err("bias shape [14] must be [15]"),
        gru_cell(3, 4, 5).shape("recurrentBias", &[16]).err("recurrentBias shape [16] must be [15]"),
        gru_cell(3, 4, 0)
            .shape("weight", &[1, 4])
            .shape("recurrentWeight", &[1, 1])
            .shape("hiddenState", &[3, 1])
            .err("weight shape [1, 4] must be [0, 4]"),
        // ---- activations ----
        gru_cell(3, 4, 5).act(&[Relu]).err("activations must have 2 items, got 1"),
        gru_cell(3, 4, 5).act(&[Relu, Relu, Relu]).err("activations must have 2 items, got 3"),
        gru_cell(3, 4, 5).act(&[]).err("activations must have 2 items, got 0"),
        // ---- limits ----
        gru_cell(3, 4, 5).shape("input", &[1, 3, 4]).err("input rank 3"),
        gru_cell(3, 4, 5).shape("weight", &[1, 15, 4]).err("weight rank 3"),
        gru_cell(3, 4, 5).shape("recurrentWeight", &[15]).err("recurrentWeight rank 1"),
        gru_cell(3, 4, 5).shape("hiddenState", &[1, 3, 5]).err("hiddenState rank 3"),
        gru_cell(3, 4, 5).shape("bias", &[1, 15]).err("bias rank 2"),
        gru_cell(3, 4, 5).shape("recurrentBias", &[]).err("recurrentBias rank 0"),
        // ---- types ----
        gru_cell(3, 4, 5).other("weight").err("weight data type"),
        gru_cell(3, 4, 5).other("recurrentWeight").err("recurrentWeight data type"),
        gru_cell(3, 4, 5).other("hiddenState").err("hiddenState data type"),
        gru_cell(3, 4, 5).other("bias").err("bias data type"),
        gru_cell(3, 4, 5).other("recurrentBias").err("recurrentBias data type"),
        // ---- step order ----
        gru_cell(3, 4, 5).shape("weight", &[1, 1]).shape("recurrentWeight", &[1, 1]).err("weight shape [1, 1]"),
        gru_cell(3, 4, 5).shape("recurrentWeight", &[1, 1]).shape("hiddenState", &[1, 1]).err("recurrentWeight shape"),
        gru_cell(3, 4, 5).shape("hiddenState", &[1, 1]).shape("bias", &[1]).err("hiddenState shape"),
        gru_cell(3, 4, 5).shape("bias", &[1]).shape("recurrentBias", &[1]).err("bias shape [1]"),
        gru_cell(3, 4, 5).shape("recurrentBias", &[1]).act(&[]).err("recurrentBias shape"),
    ];
    run_table(&rows, 35);
}

// ---------------------------------------------------------------------------------------------
// lstm
// ---------------------------------------------------------------------------------------------

#[test]
fn lstm_table() {
    use Act::*;
    let rows = vec![
        lstm(2, 3, 4, 5),
        lstm(2, 3, 4, 5).seq(),
        lstm(2, 3, 4, 5).dir(Dir::Both),
        lstm(2, 3, 4, 5).dir(Dir::Both).seq(),
        lstm(2, 3, 4, 5).dir(Dir::Backward).seq(),
        lstm(2, 3, 4, 5).with_all(),
        lstm(2, 3, 4, 5).with_all().dir(Dir::Both).seq(),
        lstm(2, 3, 4, 5).with(&["peepholeWeight"]),
        lstm(2, 3, 4, 5).with(&["initialCellState"]).dir(Dir::Both),
        lstm(2, 3, 4, 5).with(&["bias", "recurrentBias"]),
        lstm(2, 3, 4, 5).act(&[Relu, Relu, Relu]),
        lstm(2, 3, 4, 5).act(&[Sigmoid, Sigmoid, Tanh]),
        lstm(1, 1, 1, 1),
        lstm(1, 1, 1, 1).with_all().seq().dir(Dir::Both),
        lstm(10, 4, 32, 16).with_all().seq(),
        // ---- steps ----
        lstm(0, 3, 4, 5).shape("input", &[1, 3, 4]).err("steps must be greater than 0"),
        lstm(2, 3, 4, 5).shape("input", &[1, 3, 4]).err("input.shape[0] (1) must equal steps (2)"),
        // ---- weights ----
        lstm(2, 3, 4, 5).shape("weight", &[1, 15, 4]).err("weight shape [1, 15, 4] must be [1, 20, 4]"),
        lstm(2, 3, 4, 5).shape("weight", &[1, 20, 3]).err("weight shape [1, 20, 3] must be [1, 20, 4]"),
        lstm(2, 3, 4, 5).dir(Dir::Both).shape("weight", &[1, 20, 4]).err("weight shape [1, 20, 4] must be [2, 20, 4]"),
        lstm(2, 3, 4, 5)
            .shape("recurrentWeight", &[1, 20, 4])
            .err("recurrentWeight shape [1, 20, 4] must be [1, 20, 5]"),
        lstm(2, 3, 4, 5).dir(Dir::Backward).shape("recurrentWeight", &[2, 20, 5]).err("must be [1, 20, 5]"),
        lstm(2, 3, 4, 0).shape("weight", &[1, 1, 4]).shape("recurrentWeight", &[1, 1, 1]).err("must be [1, 0, 4]"),
        // ---- option operands ----
        lstm(2, 3, 4, 5).shape("bias", &[1, 15]).err("bias shape [1, 15] must be [1, 20]"),
        lstm(2, 3, 4, 5).dir(Dir::Both).shape("bias", &[1, 20]).err("bias shape [1, 20] must be [2, 20]"),
        lstm(2, 3, 4, 5).shape("recurrentBias", &[1, 21]).err("recurrentBias shape [1, 21] must be [1, 20]"),
        lstm(2, 3, 4, 5).shape("peepholeWeight", &[1, 20]).err("peepholeWeight shape [1, 20] must be [1, 15]"),
        lstm(2, 3, 4, 5)
            .dir(Dir::Both)
            .shape("peepholeWeight", &[1, 15])
            .err("peepholeWeight shape [1, 15] must be [2, 15]"),
        lstm(2, 3, 4, 5)
            .shape("initialHiddenState", &[1, 3, 4])
            .err("initialHiddenState shape [1, 3, 4] must be [1, 3, 5]"),
        lstm(2, 3, 4, 5).shape("initialHiddenState", &[1, 1, 5]).err("initialHiddenState shape [1, 1, 5]"),
        lstm(2, 3, 4, 5)
            .shape("initialCellState", &[1, 3, 4])
            .err("initialCellState shape [1, 3, 4] must be [1, 3, 5]"),
        lstm(2, 3, 4, 5)
            .dir(Dir::Both)
            .shape("initialCellState", &[1, 3, 5])
            .err("initialCellState shape [1, 3, 5] must be [2, 3, 5]"),
        // ---- activations ----
        lstm(2, 3, 4, 5).act(&[Sigmoid, Tanh]).err("activations must have 3 items, got 2"),
        lstm(2, 3, 4, 5).act(&[Sigmoid, Tanh, Tanh, Tanh]).err("activations must have 3 items, got 4"),
        lstm(2, 3, 4, 5).act(&[]).err("activations must have 3 items, got 0"),
        // ---- limits ----
        lstm(2, 3, 4, 5).shape("input", &[2, 3, 4, 1]).err("input rank 4"),
        lstm(2, 3, 4, 5).shape("weight", &[20, 4]).err("weight rank 2"),
        lstm(2, 3, 4, 5).shape("recurrentWeight", &[20]).err("recurrentWeight rank 1"),
        lstm(2, 3, 4, 5).shape("bias", &[20]).err("bias rank 1"),
        lstm(2, 3, 4, 5).shape("recurrentBias", &[1, 1, 20]).err("recurrentBias rank 3"),
        lstm(2, 3, 4, 5).shape("peepholeWeight", &[15]).err("peepholeWeight rank 1"),
        lstm(2, 3, 4, 5).shape("initialHiddenState", &[3, 5]).err("initialHiddenState rank 2"),
        lstm(2, 3, 4, 5).shape("initialCellState", &[1, 1, 3, 5]).err("initialCellState rank 4"),
        // ---- types ----
        lstm(2, 3, 4, 5).other("weight").err("weight data type"),
        lstm(2, 3, 4, 5).other("recurrentWeight").err("recurrentWeight data type"),
        lstm(2, 3, 4, 5).other("bias").err("bias data type"),
        lstm(2, 3, 4, 5).other("recurrentBias").err("recurrentBias data type"),
        lstm(2, 3, 4, 5).other("peepholeWeight").err("peepholeWeight data type"),
        lstm(2, 3, 4, 5).other("initialHiddenState").err("initialHiddenState data type"),
        lstm(2, 3, 4, 5).other("initialCellState").err("initialCellState data type"),
        // ---- step order ----
        lstm(0, 3, 4, 5).shape("input", &[2, 3, 4]).err("steps must be greater than 0"),
        lstm(2, 3, 4, 5).shape("input", &[1, 3, 4]).shape("weight", &[1, 1, 1]).err("input.shape[0]"),
        lstm(2, 3, 4, 5).shape("weight", &[1, 1, 1]).shape("recurrentWeight", &[1, 1, 1]).err("weight shape [1, 1, 1]"),
        lstm(2, 3, 4, 5).shape("recurrentWeight", &[1, 1, 1]).shape("bias", &[1, 1]).err("recurrentWeight shape"),
        lstm(2, 3, 4, 5).shape("bias", &[1, 1]).shape("recurrentBias", &[1, 1]).err("bias shape [1, 1]"),
        lstm(2, 3, 4, 5).shape("recurrentBias", &[1, 1]).shape("peepholeWeight", &[1, 1]).err("recurrentBias shape"),
        lstm(2, 3, 4, 5)
            .shape("peepholeWeight", &[1, 1])
            .shape("initialHiddenState", &[1, 1, 1])
            .err("peepholeWeight shape"),
        lstm(2, 3, 4, 5)
            .shape("initialHiddenState", &[1, 1, 1])
            .shape("initialCellState", &[1, 1, 1])
            .err("initialHiddenState shape"),
        lstm(2, 3, 4, 5).shape("initialCellState", &[1, 1, 1]).act(&[]).err("initialCellState shape"),
    ];
    run_table(&rows, 55);
}

#[test]
fn lstm_cell_table() {
    use Act::*;
    let rows = vec![
        lstm_cell(3, 4, 5),
        lstm_cell(3, 4, 5).with(&["bias"]),
        lstm_cell(3, 4, 5).with(&["recurrentBias"]),
        lstm_cell(3, 4, 5).with(&["peepholeWeight"]),
        lstm_cell(3, 4, 5).with_all(),
        lstm_cell(3, 4, 5).act(&[Relu, Tanh, Sigmoid]),
        lstm_cell(1, 1, 1).with_all(),
        lstm_cell(8, 16, 32).with_all(),
        // ---- shapes ----
        lstm_cell(3, 4, 5).shape("weight", &[15, 4]).err("weight shape [15, 4] must be [20, 4]"),
        lstm_cell(3, 4, 5).shape("weight", &[20, 5]).err("weight shape [20, 5] must be [20, 4]"),
        lstm_cell(3, 4, 5).shape("recurrentWeight", &[20, 4]).err("recurrentWeight shape [20, 4] must be [20, 5]"),
        lstm_cell(3, 4, 5).shape("hiddenState", &[2, 5]).err("hiddenState shape [2, 5] must be [3, 5]"),
        lstm_cell(3, 4, 5).shape("hiddenState", &[3, 6]).err("hiddenState shape [3, 6] must be [3, 5]"),
        lstm_cell(3, 4, 5).shape("cellState", &[2, 5]).err("cellState shape [2, 5] must be [3, 5]"),
        lstm_cell(3, 4, 5).shape("cellState", &[3, 4]).err("cellState shape [3, 4] must be [3, 5]"),
        lstm_cell(3, 4, 5).shape("bias", &[15]).err("bias shape [15] must be [20]"),
        lstm_cell(3, 4, 5).shape("recurrentBias", &[5]).err("recurrentBias shape [5] must be [20]"),
        lstm_cell(3, 4, 5).shape("peepholeWeight", &[20]).err("peepholeWeight shape [20] must be [15]"),
        lstm_cell(3, 4, 0)
            .shape("weight", &[1, 4])
            .shape("recurrentWeight", &[1, 1])
            .shape("hiddenState", &[3, 1])
            .shape("cellState", &[3, 1])
            .err("weight shape [1, 4] must be [0, 4]"),
        // ---- activations ----
        lstm_cell(3, 4, 5).act(&[Relu, Relu]).err("activations must have 3 items, got 2"),
        lstm_cell(3, 4, 5).act(&[Relu]).err("activations must have 3 items, got 1"),
        lstm_cell(3, 4, 5).act(&[Relu, Relu, Relu, Relu]).err("activations must have 3 items, got 4"),
        // ---- limits ----
        lstm_cell(3, 4, 5).shape("input", &[12]).err("input rank 1"),
        lstm_cell(3, 4, 5).shape("weight", &[1, 20, 4]).err("weight rank 3"),
        lstm_cell(3, 4, 5).shape("recurrentWeight", &[1, 20, 5]).err("recurrentWeight rank 3"),
        lstm_cell(3, 4, 5).shape("hiddenState", &[15]).err("hiddenState rank 1"),
        lstm_cell(3, 4, 5).shape("cellState", &[1, 3, 5]).err("cellState rank 3"),
        lstm_cell(3, 4, 5).shape("bias", &[1, 20]).err("bias rank 2"),
        lstm_cell(3, 4, 5).shape("recurrentBias", &[]).err("recurrentBias rank 0"),
        lstm_cell(3, 4, 5).shape("peepholeWeight", &[1, 15]).err("peepholeWeight rank 2"),
        // ---- types ----
        lstm_cell(3, 4, 5).other("weight").err("weight data type"),
        lstm_cell(3, 4, 5).other("recurrentWeight").err("recurrentWeight data type"),
        lstm_cell(3, 4, 5).other("hiddenState").err("hiddenState data type"),
        lstm_cell(3, 4, 5).other("cellState").err("cellState data type"),
        lstm_cell(3, 4, 5).other("bias").err("bias data type"),
        lstm_cell(3, 4, 5).other("recurrentBias").err("recurrentBias data type"),
        lstm_cell(3, 4, 5).other("peepholeWeight").err("peepholeWeight data type"),
        // ---- step order ----
        lstm_cell(3, 4, 5).shape("weight", &[1, 1]).shape("recurrentWeight", &[1, 1]).err("weight shape [1, 1]"),
        lstm_cell(3, 4, 5).shape("recurrentWeight", &[1, 1]).shape("hiddenState", &[1, 1]).err("recurrentWeight shape"),
        lstm_cell(3, 4, 5).shape("hiddenState", &[1, 1]).shape("cellState", &[1, 1]).err("hiddenState shape"),
        lstm_cell(3, 4, 5).shape("cellState", &[1, 1]).shape("bias", &[1]).err("cellState shape"),
        lstm_cell(3, 4, 5).shape("bias", &[1]).shape("recurrentBias", &[1]).err("bias shape [1]"),
        lstm_cell(3, 4, 5).shape("recurrentBias", &[1]).shape("peepholeWeight", &[1]).err("recurrentBias shape"),
        lstm_cell(3, 4, 5).shape("peepholeWeight", &[1]).act(&[]).err("peepholeWeight shape"),
        lstm_cell(3, 4, 5).other("cellState").shape("hiddenState", &[1, 1]).err("cellState data type"),
    ];
    run_table(&rows, 40);
}

// ---------------------------------------------------------------------------------------------
// Common checks: data types, builders, labels, can-build, attributes, output slots
// ---------------------------------------------------------------------------------------------

const ALL_OPS: [OpKind; 4] = [OpKind::Gru, OpKind::GruCell, OpKind::Lstm, OpKind::LstmCell];

fn base_row(op: OpKind) -> Rnn {
    match op {
        OpKind::Gru => gru(2, 3, 4, 5),
        OpKind::GruCell => gru_cell(3, 4, 5),
        OpKind::Lstm => lstm(2, 3, 4, 5),
        _ => lstm_cell(3, 4, 5),
    }
}

#[test]
fn recurrent_data_types() {
    for op in ALL_OPS {
        let allowed = member_limits(op, "input").unwrap().data_types;
        for t in DataType::ALL {
            let mut b = builder();
            let row = base_row(op).with_all().seq();
            let r = run(&mut b, &row, t, "");
            if allowed.contains(&t) {
                let got: Vec<_> = r.unwrap().iter().map(|o| o.descriptor().clone()).collect();
                let want: Vec<_> = row.expected_outputs().iter().map(|s| desc(t, s)).collect();
                assert_eq!(got, want, "{op} {t}");
            } else {
                assert_type_error(r, &format!("{op}: input data type {t} is not supported"));
            }
        }
    }
}

#[test]
fn recurrent_option_operands_from_another_builder() {
    for op in ALL_OPS {
        for &slot in op.limits_kind().inputs() {
            let mut b = builder();
            let mut other = builder();
            let row = base_row(op).with_all();
            // Build the operands in `b`, then swap the one in `slot` for a twin from `other`.
            let shape = row.default_shape(slot);
            let foreign = other.input(slot, &desc(Float32, &shape)).unwrap();
            let mut ops: HashMap<&str, Operand> = HashMap::new();
            for &s in op.limits_kind().inputs() {
                let o = if s == slot {
                    foreign.clone()
                } else {
                    b.input(s, &desc(Float32, &row.default_shape(s))).unwrap()
                };
                ops.insert(s, o);
            }
            let get = |s: &str| Some(ops[s].clone());
            let r = match op {
                OpKind::Gru => b.gru(
                    &ops["input"],
                    &ops["weight"],
                    &ops["recurrentWeight"],
                    2,
                    5,
                    &GruOptions {
                        bias: get("bias"),
                        recurrent_bias: get("recurrentBias"),
                        initial_hidden_state: get("initialHiddenState"),
                        ..Default::default()
                    },
                ),
                OpKind::GruCell => b
                    .gru_cell(
                        &ops["input"],
                        &ops["weight"],
                        &ops["recurrentWeight"],
                        &ops["hiddenState"],
                        5,
                        &GruCellOptions {
                            bias: get("bias"),
                            recurrent_bias: get("recurrentBias"),
                            ..Default::default()
                        },
                    )
                    .map(|o| vec![o]),
                OpKind::Lstm => b.lstm(
                    &ops["input"],
                    &ops["weight"],
                    &ops["recurrentWeight"],
                    2,
                    5,
                    &LstmOptions {
                        bias: get("bias"),
                        recurrent_bias: get("recurrentBias"),
                        peephole_weight: get("peepholeWeight"),
                        initial_hidden_state: get("initialHiddenState"),
                        initial_cell_state: get("initialCellState"),
                        ..Default::default()
                    },
                ),
                _ => b.lstm_cell(
                    &ops["input"],
                    &ops["weight"],
                    &ops["recurrentWeight"],
                    &ops["hiddenState"],
                    &ops["cellState"],
                    5,
                    &LstmCellOptions {
                        bias: get("bias"),
                        recurrent_bias: get("recurrentBias"),
                        peephole_weight: get("peepholeWeight"),
                        ..Default::default()
                    },
                ),
            };
            assert_type_error(r, &format!("{op}: {slot} was created by another MLGraphBuilder"));
            assert_eq!(b.operation_count(), 0);
        }
    }
}

#[test]
fn recurrent_label_and_can_build() {
    for op in ALL_OPS {
        let mut b = builder();
        let row = base_row(op).act(&[]);
        assert_type_error(run(&mut b, &row, Float32, "rnn1"), &format!("[rnn1] {op}: activations must have"));
        assert_eq!(b.operation_count(), 0);
        let mut b = builder();
        let row = base_row(op).shape("weight", &[1]);
        assert_type_error(run(&mut b, &row, Float16, "rnn2"), &format!("[rnn2] {op}: weight rank"));
        assert_eq!(b.operation_count(), 0);

        let mut b = builder();
        let x = b.input("x", &desc(Float32, &[1])).unwrap();
        let y = b.identity(&x, &OperatorOptions::default()).unwrap();
        b.build(&[("y", &y)]).unwrap();
        let o = y.clone();
        let r = match op {
            OpKind::Gru => b.gru(&o, &o, &o, 0, 0, &GruOptions::default()),
            OpKind::GruCell => b.gru_cell(&o, &o, &o, &o, 0, &GruCellOptions::default()).map(|o| vec![o]),
            OpKind::Lstm => b.lstm(&o, &o, &o, 0, 0, &LstmOptions::default()),
            _ => b.lstm_cell(&o, &o, &o, &o, &o, 0, &LstmCellOptions::default()),
        };
        assert_kind(r, ErrorKind::InvalidState);
    }
}

fn graph_of(b: &mut GraphBuilder, outs: &[Operand]) -> Graph {
    let names: Vec<String> = (0..outs.len()).map(|i| format!("out{i}")).collect();
    let named: Vec<(&str, &Operand)> = names.iter().map(|n| n.as_str()).zip(outs.iter()).collect();
    b.build(&named).unwrap()
}

#[test]
fn recurrent_attributes_and_slots() {
    use Act::*;
    // gru: defaults.
    let mut b = builder();
    let row = gru(2, 3, 4, 5);
    let outs = run(&mut b, &row, Float32, "g").unwrap();
    let g = graph_of(&mut b, &outs);
    let op = &g.operations[0];
    assert_eq!(op.kind, OpKind::Gru);
    assert_eq!(op.label, "g");
    assert_eq!(op.inputs.len(), 6);
    assert!(op.inputs[..3].iter().all(|i| i.is_some()) && op.inputs[3..].iter().all(|i| i.is_none()));
    assert_eq!(op.outputs.len(), 1);
    assert_eq!(
        op.attrs,
        Attrs::Gru {
            steps: 2,
            hidden_size: 5,
            reset_after: true,
            return_sequence: false,
            direction: Dir::Forward,
            layout: GruWeightLayout::Zrn,
            activations: [Sigmoid, Tanh],
        }
    );
    // gru: everything given.
    let mut b = builder();
    let w = |b: &mut GraphBuilder, n: &str, s: &[u32]| b.input(n, &desc(Float16, s)).unwrap();
    let (x, wt, r) = (w(&mut b, "x", &[2, 3, 4]), w(&mut b, "w", &[2, 15, 4]), w(&mut b, "r", &[2, 15, 5]));
    let h0 = w(&mut b, "h0", &[2, 3, 5]);
    let options = GruOptions {
        initial_hidden_state: Some(h0),
        reset_after: false,
        return_sequence: true,
        direction: Dir::Both,
        layout: GruWeightLayout::Rzn,
        activations: Some(vec![Relu, Sigmoid]),
        ..Default::default()
    };
    let outs = b.gru(&x, &wt, &r, 2, 5, &options).unwrap();
    assert_eq!(outs[0].descriptor(), &desc(Float16, &[2, 3, 5]));
    assert_eq!(outs[1].descriptor(), &desc(Float16, &[2, 2, 3, 5]));
    let g = graph_of(&mut b, &outs);
    let op = &g.operations[0];
    assert_eq!(op.outputs.len(), 2);
    assert!(op.inputs[3].is_none() && op.inputs[4].is_none() && op.inputs[5].is_some());
    assert_eq!(
        op.attrs,
        Attrs::Gru {
            steps: 2,
            hidden_size: 5,
            reset_after: false,
            return_sequence: true,
            direction: Dir::Both,
            layout: GruWeightLayout::Rzn,
            activations: [Relu, Sigmoid],
        }
    );
    // gruCell: one forward step.
    let mut b = builder();
    let outs = run(&mut b, &gru_cell(3, 4, 5).with(&["recurrentBias"]).act(&[Tanh, Relu]), Float32, "").unwrap();
    let g = graph_of(&mut b, &outs);
    let op = &g.operations[0];
    assert_eq!(op.inputs.len(), 6);
    assert!(op.inputs[4].is_none() && op.inputs[5].is_some());
    assert_eq!(
        op.attrs,
        Attrs::Gru {
            steps: 1,
            hidden_size: 5,
            reset_after: true,
            return_sequence: false,
            direction: Dir::Forward,
            layout: GruWeightLayout::Zrn,
            activations: [Tanh, Relu],
        }
    );
    // lstm: defaults, then with a sequence.
    let mut b = builder();
    let outs = run(&mut b, &lstm(2, 3, 4, 5).dir(Dir::Backward).seq().with(&["peepholeWeight"]), Float32, "").unwrap();
    assert_eq!(outs.len(), 3);
    let g = graph_of(&mut b, &outs);
    let op = &g.operations[0];
    assert_eq!(op.inputs.len(), 8);
    assert!(op.inputs[5].is_some() && op.inputs[3].is_none() && op.inputs[7].is_none());
    assert_eq!(
        op.attrs,
        Attrs::Lstm {
            steps: 2,
            hidden_size: 5,
            return_sequence: true,
            direction: Dir::Backward,
            layout: LstmWeightLayout::Iofg,
            activations: [Sigmoid, Tanh, Tanh],
        }
    );
    let mut b = builder();
    let outs = run(&mut b, &lstm(2, 3, 4, 5), Float32, "").unwrap();
    assert_eq!(outs.len(), 2);
    // lstmCell: one forward step, two outputs.
    let mut b = builder();
    let w = |b: &mut GraphBuilder, n: &str, s: &[u32]| b.input(n, &desc(Float32, s)).unwrap();
    let (x, wt, r) = (w(&mut b, "x", &[3, 4]), w(&mut b, "w", &[20, 4]), w(&mut b, "r", &[20, 5]));
    let (h, c) = (w(&mut b, "h", &[3, 5]), w(&mut b, "c", &[3, 5]));
    let options = LstmCellOptions {
        layout: LstmWeightLayout::Ifgo,
        activations: Some(vec![Relu, Relu, Sigmoid]),
        ..Default::default()
    };
    let outs = b.lstm_cell(&x, &wt, &r, &h, &c, 5, &options).unwrap();
    assert_eq!(outs.len(), 2);
    assert_ne!(outs[0].id(), outs[1].id());
    let g = graph_of(&mut b, &outs);
    let op = &g.operations[0];
    assert_eq!(op.inputs.len(), 8);
    assert!(op.inputs[..5].iter().all(|i| i.is_some()) && op.inputs[5..].iter().all(|i| i.is_none()));
    assert_eq!(
        op.attrs,
        Attrs::Lstm {
            steps: 1,
            hidden_size: 5,
            return_sequence: false,
            direction: Dir::Forward,
            layout: LstmWeightLayout::Ifgo,
            activations: [Relu, Relu, Sigmoid],
        }
    );
}

/// `hiddenSize * 6` / `* 8` must be a valid dimension. With valid operands this step cannot
/// fail (recurrentWeight alone holds `3·h²` elements), so the helper is tested directly.
#[test]
fn hidden_size_products() {
    let call = OpCall { op: OpKind::Gru, label: "" };
    for (h, factor, ok) in [
        (1, 6, true),
        (357913941, 6, true),
        (357913942, 6, false),
        (268435455, 8, true),
        (268435456, 8, false),
        (0, 6, false),
        (u32::MAX, 8, false),
    ] {
        let r = check_hidden_size(&call, h, factor);
        assert_eq!(r.is_ok(), ok, "{h} * {factor}");
        if !ok {
            assert_type_error(r, "is not a valid dimension");
        }
    }
    let call = OpCall { op: OpKind::LstmCell, label: "x" };
    assert_type_error(check_hidden_size(&call, 268435456, 8), "[x] lstmCell: hiddenSize (268435456) * 8 = 2147483648");
    assert_eq!(activations(&call, None, [Act::Sigmoid, Act::Tanh]).unwrap(), [Act::Sigmoid, Act::Tanh]);
    assert_type_error(activations(&call, Some(&[Act::Relu]), [Act::Sigmoid, Act::Tanh]), "got 1 ([\"relu\"])");
}

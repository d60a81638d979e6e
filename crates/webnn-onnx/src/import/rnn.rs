//! LSTM and GRU.
//!
//! ONNX stacks LSTM gates as i, o, f, c — exactly WebNN's `"iofg"` layout — and GRU gates as
//! z, r, h — WebNN's `"zrn"` layout — so the weights pass through unchanged. ONNX's `B`
//! ([dirs, 8H] or [dirs, 6H]) is split into WebNN's `bias` and `recurrentBias`;
//! `linear_before_reset` is WebNN's `resetAfter`; `layout=1` (batch-major) is transposed.

use super::shape_ops::SliceParam;
use super::support::OnnxOp;
use super::{bld, invalid, unsupported, Const, Ctx, Importer, NResult, Value};
use crate::tensor::push_f64;
use webnn_core::{
    GruOptions, GruWeightLayout, LstmOptions, LstmWeightLayout, OpKind, Operand, RecurrentNetworkActivation,
    RecurrentNetworkDirection,
};

/// Most time steps of an RNN, which is unrolled into a few WebNN ops per step.
const MAX_UNROLLED_STEPS: usize = 1 << 14;

/// The attributes of the simple RNN.
const RECURRENT_ATTRIBUTES: &[&str] =
    &["activation_alpha", "activation_beta", "activations", "clip", "direction", "hidden_size", "layout"];
/// The attributes of LSTM and GRU.
const GATED_ATTRIBUTES: &[&str] = &[
    "activation_alpha",
    "activation_beta",
    "activations",
    "clip",
    "direction",
    "hidden_size",
    "layout",
    "input_forget",
    "linear_before_reset",
];

/// LSTM, GRU and the simple RNN.
pub(crate) const OPS: &[OnnxOp] = &[
    OnnxOp::new(&["LSTM"], import).attributes(GATED_ATTRIBUTES).inputs(3, 8),
    OnnxOp::new(&["GRU"], import).attributes(GATED_ATTRIBUTES).inputs(3, 6),
    OnnxOp::new(&["RNN"], simple_rnn).attributes(RECURRENT_ATTRIBUTES).inputs(3, 6),
];

/// Imports LSTM or GRU.
pub(crate) fn import(imp: &mut Importer, c: &Ctx) -> NResult<Vec<Value>> {
    let lstm = c.op == "LSTM";
    let gates = if lstm { 4 } else { 3 };
    let x = c.req(0)?;
    let ty = x.ty();
    let label = c.label.clone();
    if c.attrs.has("clip") {
        return Err(unsupported(format!("{} with 'clip'", c.op)));
    }
    if c.attrs.int("input_forget", 0)? != 0 {
        return Err(unsupported("LSTM with input_forget=1"));
    }
    let batch_major = c.attrs.int("layout", 0)? != 0;
    let direction = match c.attrs.string("direction", "forward")?.as_str() {
        "forward" => RecurrentNetworkDirection::Forward,
        "reverse" => RecurrentNetworkDirection::Backward,
        "bidirectional" => RecurrentNetworkDirection::Both,
        d => return Err(invalid(format!("direction '{d}'"))),
    };
    let dirs = if direction == RecurrentNetworkDirection::Both { 2 } else { 1 };
    let r_shape = c.req(2)?.shape();
    if r_shape.len() != 3 {
        return Err(invalid("R must be 3-D"));
    }
    let hidden = match c.attrs.opt_int("hidden_size")? {
        Some(h) if h > 0 && h <= i32::MAX as i64 / 8 => h as usize,
        Some(h) => return Err(invalid(format!("hidden_size {h}"))),
        None => r_shape[2],
    };
    let activations = activations(c, if lstm { 3 } else { 2 }, dirs)?;

    let mut input = imp.operand(x)?;
    if batch_major {
        input = imp.transpose_op(&input, &[1, 0, 2], &label)?;
    }
    let steps = input.shape().first().copied().unwrap_or(0);
    if let Some(lens) = imp.const_input(c, 4)? {
        if lens.i64s()?.iter().any(|&l| l != steps as i64) {
            return Err(unsupported("sequence_lens shorter than the sequence"));
        }
    }
    let weight = imp.operand(c.req(1)?)?;
    let recurrent = imp.operand(c.req(2)?)?;
    let (bias, recurrent_bias) = match c.input(3) {
        Some(b) => {
            let b = imp.operand(b)?;
            let half = gates * hidden;
            let part = |start: usize| {
                vec![
                    SliceParam { start: 0, count: dirs, step: 1 },
                    SliceParam { start: start as i64, count: half, step: 1 },
                ]
            };
            (Some(imp.slice_op(&b, &part(0), &label)?), Some(imp.slice_op(&b, &part(half), &label)?))
        }
        None => (None, None),
    };
    let state = |imp: &mut Importer, i: usize| -> NResult<Option<Operand>> {
        match c.input(i) {
            None => Ok(None),
            Some(v) => {
                let op = imp.operand(v)?;
                Ok(Some(if batch_major { imp.transpose_op(&op, &[1, 0, 2], &label)? } else { op }))
            }
        }
    };
    let initial_h = state(imp, 5)?;
    let return_sequence = c.wants(0);
    let (sequence, hidden_out, cell_out) = if lstm {
        let initial_c = state(imp, 6)?;
        // WebNN's lstm applies the output gate's peephole to the previous cell state, ONNX to
        // the updated one: only all-zero peepholes map.
        let peephole = match c.input(7) {
            Some(Value::Const(p)) if p.f64s()?.iter().all(|&v| v == 0.0) => None,
            Some(_) => {
                return Err(unsupported(
                    "LSTM peepholes (WebNN applies the output-gate peephole to the previous cell state, \
                     ONNX to the updated one)",
                ))
            }
            None => None,
        };
        let options = LstmOptions {
            label: label.clone(),
            bias,
            recurrent_bias,
            peephole_weight: peephole,
            initial_hidden_state: initial_h,
            initial_cell_state: initial_c,
            return_sequence,
            direction,
            layout: LstmWeightLayout::Iofg,
            activations: Some(activations),
        };
        let outs = bld(imp.b.lstm(&input, &weight, &recurrent, steps, hidden as u32, &options))?;
        (outs.get(2).cloned(), outs[0].clone(), outs.get(1).cloned())
    } else {
        let options = GruOptions {
            label: label.clone(),
            bias,
            recurrent_bias,
            initial_hidden_state: initial_h,
            reset_after: c.attrs.int("linear_before_reset", 0)? != 0,
            return_sequence,
            direction,
            layout: GruWeightLayout::Zrn,
            activations: Some(activations),
        };
        let outs = bld(imp.b.gru(&input, &weight, &recurrent, steps, hidden as u32, &options))?;
        (outs.get(1).cloned(), outs[0].clone(), None)
    };
    let mut result = Vec::new();
    let seq = match sequence {
        Some(s) if batch_major => Some(imp.transpose_op(&s, &[2, 0, 1, 3], &label)?),
        s => s,
    };
    // Unused outputs get a placeholder that nothing reads.
    result.push(Value::dynamic(seq.unwrap_or_else(|| hidden_out.clone()), ty));
    let state_out = |imp: &mut Importer, op: Operand| -> NResult<Value> {
        let op = if batch_major { imp.transpose_op(&op, &[1, 0, 2], &label)? } else { op };
        Ok(Value::dynamic(op, ty))
    };
    result.push(state_out(imp, hidden_out)?);
    if let Some(cell) = cell_out {
        result.push(state_out(imp, cell)?);
    }
    Ok(result)
}

/// The `activations` attribute as WebNN activations (one list for both directions).
fn activations(c: &Ctx, per_dir: usize, dirs: usize) -> NResult<Vec<RecurrentNetworkActivation>> {
    if c.attrs.has("activation_alpha") || c.attrs.has("activation_beta") {
        return Err(unsupported(format!("{} activation_alpha/activation_beta", c.op)));
    }
    let names = match c.attrs.strings("activations")? {
        None => {
            return Ok(if per_dir == 3 {
                vec![
                    RecurrentNetworkActivation::Sigmoid,
                    RecurrentNetworkActivation::Tanh,
                    RecurrentNetworkActivation::Tanh,
                ]
            } else {
                vec![RecurrentNetworkActivation::Sigmoid, RecurrentNetworkActivation::Tanh]
            })
        }
        Some(n) => n,
    };
    if names.len() != per_dir * dirs {
        return Err(invalid(format!("{} activations {names:?} should have {} entries", c.op, per_dir * dirs)));
    }
    if dirs == 2 && names[..per_dir] != names[per_dir..] {
        return Err(unsupported("different activations per direction"));
    }
    names[..per_dir]
        .iter()
        .map(|n| match n.to_ascii_lowercase().as_str() {
            "sigmoid" => Ok(RecurrentNetworkActivation::Sigmoid),
            "tanh" => Ok(RecurrentNetworkActivation::Tanh),
            "relu" => Ok(RecurrentNetworkActivation::Relu),
            other => Err(unsupported(format!("recurrent activation '{other}'"))),
        })
        .collect()
}

/// The simple RNN, unrolled over its (static) steps: `H_t = f(X_t W^T + H_{t-1} R^T + Wb + Rb)`.
/// WebNN has no plain RNN op; each step is a matmul, an add and the activation.
pub(crate) fn simple_rnn(imp: &mut Importer, c: &Ctx) -> NResult<Vec<Value>> {
    let x = c.req(0)?;
    let ty = x.ty();
    let label = c.label.clone();
    let o = c.opts();
    if c.attrs.has("clip") || c.attrs.has("activation_alpha") || c.attrs.has("activation_beta") {
        return Err(unsupported("RNN with clip or activation_alpha/beta"));
    }
    let batch_major = c.attrs.int("layout", 0)? != 0;
    let dirs = match c.attrs.string("direction", "forward")?.as_str() {
        "forward" => vec![false],
        "reverse" => vec![true],
        "bidirectional" => vec![false, true],
        d => return Err(invalid(format!("direction '{d}'"))),
    };
    let names = c.attrs.strings("activations")?.unwrap_or_else(|| vec!["Tanh".into(); dirs.len()]);
    if names.len() != dirs.len() {
        return Err(invalid("RNN needs one activation per direction"));
    }
    let kinds = names
        .iter()
        .map(|n| match n.to_ascii_lowercase().as_str() {
            "tanh" => Ok(OpKind::Tanh),
            "relu" => Ok(OpKind::Relu),
            "sigmoid" => Ok(OpKind::Sigmoid),
            other => Err(unsupported(format!("RNN activation '{other}'"))),
        })
        .collect::<NResult<Vec<_>>>()?;
    let mut input = imp.operand(x)?;
    if batch_major {
        input = imp.transpose_op(&input, &[1, 0, 2], &label)?;
    }
    let xs: Vec<usize> = input.shape().iter().map(|&d| d as usize).collect();
    let [steps, batch, in_size] = xs[..] else {
        return Err(invalid(format!("RNN X must be 3-D, not {xs:?}")));
    };
    if steps > MAX_UNROLLED_STEPS {
        return Err(unsupported(format!(
            "RNN is unrolled, one step at a time: {steps} steps is more than {MAX_UNROLLED_STEPS}"
        )));
    }
    if let Some(lens) = imp.const_input(c, 4)? {
        if lens.i64s()?.iter().any(|&l| l != steps as i64) {
            return Err(unsupported("sequence_lens shorter than the sequence"));
        }
    }
    let w_shape = c.req(1)?.shape();
    if w_shape.len() != 3 || w_shape[0] != dirs.len() || w_shape[2] != in_size {
        return Err(invalid(format!("RNN W shape {w_shape:?}")));
    }
    let hidden = w_shape[1];
    let w = imp.operand(c.req(1)?)?;
    let r = imp.operand(c.req(2)?)?;
    let b = c.input(3).map(|v| imp.operand(v)).transpose()?;
    let h0 = match c.input(5) {
        Some(v) => {
            let op = imp.operand(v)?;
            Some(if batch_major { imp.transpose_op(&op, &[1, 0, 2], &label)? } else { op })
        }
        None => None,
    };
    let full = |d: usize| SliceParam { start: 0, count: d, step: 1 };
    let one = |i: usize| SliceParam { start: i as i64, count: 1, step: 1 };
    let flat_x = imp.reshape_op(&input, &[steps * batch, in_size], &label)?;
    let mut ys = Vec::new();
    let mut finals = Vec::new();
    for (d, &reverse) in dirs.iter().enumerate() {
        let wd = imp.slice_op(&w, &[one(d), full(hidden), full(in_size)], &label)?;
        let wd = imp.reshape_op(&wd, &[hidden, in_size], &label)?;
        let wd = imp.transpose_op(&wd, &[1, 0], &label)?;
        let rd = imp.slice_op(&r, &[one(d), full(hidden), full(hidden)], &label)?;
        let rd = imp.reshape_op(&rd, &[hidden, hidden], &label)?;
        let rd = imp.transpose_op(&rd, &[1, 0], &label)?;
        let mut xw = bld(imp.b.matmul(&flat_x, &wd, &o))?;
        if let Some(b) = &b {
            let wb = imp.slice_op(b, &[one(d), full(hidden)], &label)?;
            let rb = imp.slice_op(b, &[one(d), SliceParam { start: hidden as i64, count: hidden, step: 1 }], &label)?;
            let bias = bld(imp.b.add(&wb, &rb, &o))?;
            xw = bld(imp.b.add(&xw, &bias, &o))?;
        }
        let xw = imp.reshape_op(&xw, &[steps, batch, hidden], &label)?;
        let mut h = match &h0 {
            Some(h0) => {
                let hd = imp.slice_op(h0, &[one(d), full(batch), full(hidden)], &label)?;
                imp.reshape_op(&hd, &[batch, hidden], &label)?
            }
            None => {
                let mut zero = Vec::new();
                push_f64(ty, 0.0, &mut zero);
                imp.operand(&Value::constant(Const::splat(ty, vec![batch, hidden], zero)))?
            }
        };
        let mut per_step: Vec<Option<Operand>> = vec![None; steps];
        for k in 0..steps {
            let t = if reverse { steps - 1 - k } else { k };
            let xt = imp.slice_op(&xw, &[one(t), full(batch), full(hidden)], &label)?;
            let xt = imp.reshape_op(&xt, &[batch, hidden], &label)?;
            let hr = bld(imp.b.matmul(&h, &rd, &o))?;
            let pre = bld(imp.b.add(&xt, &hr, &o))?;
            h = bld(imp.b.activation(kinds[d], &pre, &o))?;
            per_step[t] = Some(imp.reshape_op(&h, &[1, 1, batch, hidden], &label)?);
        }
        let seq: Vec<Operand> = per_step.into_iter().flatten().collect();
        let refs: Vec<&Operand> = seq.iter().collect();
        ys.push(if refs.len() == 1 { seq[0].clone() } else { bld(imp.b.concat(&refs, 0, &o))? });
        finals.push(imp.reshape_op(&h, &[1, batch, hidden], &label)?);
    }
    let cat = |imp: &mut Importer, v: Vec<Operand>, axis: u32| -> NResult<Operand> {
        if let [single] = v.as_slice() {
            return Ok(single.clone());
        }
        let refs: Vec<&Operand> = v.iter().collect();
        bld(imp.b.concat(&refs, axis, &o))
    };
    let mut y = cat(imp, ys, 1)?;
    let mut yh = cat(imp, finals, 0)?;
    if batch_major {
        y = imp.transpose_op(&y, &[2, 0, 1, 3], &label)?;
        yh = imp.transpose_op(&yh, &[1, 0, 2], &label)?;
    }
    Ok(vec![Value::dynamic(y, ty), Value::dynamic(yh, ty)])
}

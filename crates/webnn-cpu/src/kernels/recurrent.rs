//! Recurrent networks: gru ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-gru)), gruCell
//! ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-grucell)), lstm
//! ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-lstm)), lstmCell
//! ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-lstmcell)).
//!
//! The cells are the networks with one step, one (forward) direction and no leading
//! `numDirections`/`steps` dimensions, so all four ops share one kernel.
//!
//! Per direction, the kernel
//! 1. packs the weights once (in `lower` when they are constants): gate blocks reordered to an
//!    internal order (gru `z, r, n`; lstm `i, o, f, g`, which is also the peephole order), f32,
//!    with `bias + recurrentBias` pre-added where the math allows it;
//! 2. computes the input projection of every step with one product
//!    (`xw[t][b] = x[t][b] · Wᵀ + bias`);
//! 3. runs the steps in order (reverse order for the backward direction), each step doing one
//!    product of the hidden state with the recurrent weights followed by the gate math.
//!
//! Everything is computed in f32 and the outputs are rounded once (float16). Missing
//! bias/recurrentBias/peephole weights and initial states are zeros. As in the spec
//! emulation, the lstm output-gate peephole uses the previous cell state, and the sequence
//! output is indexed by input time step for both directions (the backward sequence is
//! prepended in the 2026 emulation).

pub mod linalg;
#[cfg(test)]
mod tests;

use super::float_elem::FloatElem;
use super::{In, Kernel, Out};
use half::f16;
use linalg::{gate_products, project, PAR_THRESHOLD};
use std::sync::Mutex;
use webnn_core::graph::{OperandSource, Operation};
use webnn_core::{
    Attrs, DataType, Error, Graph, OpKind, OperandId, RecurrentNetworkActivation, RecurrentNetworkDirection, Result,
};

/// `MLRecurrentNetworkActivation` as applied by the kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Act {
    /// max(x, 0) (NaN stays NaN).
    Relu,
    /// 1 / (1 + e^-x)
    Sigmoid,
    /// tanh(x)
    Tanh,
}

impl Act {
    fn from(a: RecurrentNetworkActivation) -> Act {
        match a {
            RecurrentNetworkActivation::Relu => Act::Relu,
            RecurrentNetworkActivation::Sigmoid => Act::Sigmoid,
            RecurrentNetworkActivation::Tanh => Act::Tanh,
        }
    }

    /// Applies the activation.
    #[inline(always)]
    pub fn apply(self, x: f32) -> f32 {
        match self {
            Act::Relu => {
                if x < 0.0 {
                    0.0
                } else {
                    x
                }
            }
            Act::Sigmoid => 1.0 / (1.0 + (-x).exp()),
            Act::Tanh => x.tanh(),
        }
    }
}

/// Which recurrent cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CellKind {
    Gru { reset_after: bool },
    Lstm,
}

/// Input slot indices (by the op's limits-kind slot order).
#[derive(Debug, Clone, Copy, Default)]
struct Slots {
    input: usize,
    weight: usize,
    recurrent_weight: usize,
    bias: usize,
    recurrent_bias: usize,
    peephole: Option<usize>,
    hidden: usize,
    cell: Option<usize>,
}

/// Offsets (in f32 elements) of one direction's packed weights; directions follow each other.
#[derive(Debug, Clone, Copy, Default)]
struct PackLayout {
    /// `[G*h, inputSize]`
    w: usize,
    /// `[G*h, h]`
    r: usize,
    /// `[G*h]`: added to the input projection.
    xbias: usize,
    /// `[h]`: gru with resetAfter: recurrentBias of the new gate (added inside `r ⊙ (…)`).
    rbias_n: usize,
    /// `[3h]`: lstm peephole (i, o, f).
    peep: usize,
    /// Elements per direction.
    stride: usize,
}

/// Offsets (in f32 elements) of one direction's scratch; directions follow each other.
#[derive(Debug, Clone, Copy, Default)]
struct ScratchLayout {
    /// `[steps, batch, G*h]` input projections.
    xw: usize,
    /// `[G*h, batch]` recurrent products of the current step.
    gates: usize,
    /// `[batch, h]` hidden state.
    h: usize,
    /// `[batch, h]` cell state (lstm) or `r ⊙ h` (gru without resetAfter).
    aux: usize,
    /// `[steps, batch, h]` hidden states by input time (returnSequence).
    seq: usize,
    /// Elements per direction.
    stride: usize,
}

/// The prepared recurrent kernel (all four ops).
struct RecurrentKernel {
    cell: CellKind,
    data_type: DataType,
    steps: usize,
    batch: usize,
    input_size: usize,
    hidden: usize,
    dirs: usize,
    /// Direction "backward": the only direction runs in reverse time order.
    backward_only: bool,
    return_sequence: bool,
    acts: [Act; 3],
    /// Source gate block of each internal gate block.
    gate_src: [usize; 4],
    gates: usize,
    /// An lstm peephole weight is present.
    has_peephole: bool,
    slots: Slots,
    /// Output indices: hidden, cell (lstm), sequence (returnSequence).
    out_cell: Option<usize>,
    out_seq: Option<usize>,
    pack: PackLayout,
    /// The packed weights of all directions, when every weight operand is a constant.
    packed: Option<Vec<f32>>,
    scr: ScratchLayout,
    /// Scratch: [packed weights if not constant][input as f32 if float16][per direction].
    scratch: Mutex<Vec<f32>>,
    pack_area: usize,
    x_area: usize,
}

fn elems(dims: &[usize]) -> Result<usize> {
    dims.iter()
        .try_fold(1usize, |a, &d| a.checked_mul(d))
        .ok_or_else(|| Error::not_supported("recurrent network too large for this machine"))
}

/// Lowers gru, gruCell, lstm and lstmCell.
pub fn lower(op: &Operation, graph: &Graph) -> Result<Box<dyn Kernel>> {
    let is_cell = matches!(op.kind, OpKind::GruCell | OpKind::LstmCell);
    let (cell, steps_attr, hidden, return_sequence, direction, gate_src, acts) = match (&op.attrs, op.kind) {
        (
            Attrs::Gru { steps, hidden_size, reset_after, return_sequence, direction, layout, activations },
            OpKind::Gru | OpKind::GruCell,
        ) => {
            let [z, r, n] = layout.gate_blocks();
            let src = [z, r, n, 0];
            let acts = [Act::from(activations[0]), Act::from(activations[1]), Act::Tanh];
            (CellKind::Gru { reset_after: *reset_after }, *steps, *hidden_size, *return_sequence, *direction, src, acts)
        }
        (
            Attrs::Lstm { steps, hidden_size, return_sequence, direction, layout, activations },
            OpKind::Lstm | OpKind::LstmCell,
        ) => {
            let src = layout.gate_blocks();
            let acts = activations.map(Act::from);
            (CellKind::Lstm, *steps, *hidden_size, *return_sequence, *direction, src, acts)
        }
        _ => return Err(Error::not_supported(format!("{}: unexpected attributes", op.kind))),
    };
    let slots = match op.kind {
        OpKind::Gru => Slots {
            input: 0,
            weight: 1,
            recurrent_weight: 2,
            bias: 3,
            recurrent_bias: 4,
            peephole: None,
            hidden: 5,
            cell: None,
        },
        OpKind::GruCell => Slots {
            input: 0,
            weight: 1,
            recurrent_weight: 2,
            hidden: 3,
            bias: 4,
            recurrent_bias: 5,
            peephole: None,
            cell: None,
        },
        OpKind::Lstm => Slots {
            input: 0,
            weight: 1,
            recurrent_weight: 2,
            bias: 3,
            recurrent_bias: 4,
            peephole: Some(5),
            hidden: 6,
            cell: Some(7),
        },
        _ => Slots {
            input: 0,
            weight: 1,
            recurrent_weight: 2,
            hidden: 3,
            cell: Some(4),
            bias: 5,
            recurrent_bias: 6,
            peephole: Some(7),
        },
    };
    let gates = if matches!(cell, CellKind::Gru { .. }) { 3 } else { 4 };
    let x_id = op.input(slots.input).ok_or_else(|| Error::not_supported("recurrent network without input"))?;
    let x = graph.descriptor(x_id);
    let data_type = x.data_type;
    if !matches!(data_type, DataType::Float32 | DataType::Float16) {
        return Err(Error::not_supported(format!("{} on {}", op.kind, data_type)));
    }
    let (steps, batch, input_size) = match (is_cell, x.shape.as_slice()) {
        (true, &[b, i]) => (1usize, b as usize, i as usize),
        (false, &[s, b, i]) if s == steps_attr => (s as usize, b as usize, i as usize),
        _ => return Err(Error::not_supported(format!("{}: unexpected input shape {:?}", op.kind, x.shape))),
    };
    let hidden = hidden as usize;
    let (dirs, backward_only) = match (is_cell, direction) {
        (true, _) | (false, RecurrentNetworkDirection::Forward) => (1, false),
        (false, RecurrentNetworkDirection::Backward) => (1, true),
        (false, RecurrentNetworkDirection::Both) => (2, false),
    };
    let gh = elems(&[gates, hidden])?;

    // Check every present operand's element count, so `run` can slice without surprises.
    let expect = |slot: Option<usize>, dims: &[usize]| -> Result<Option<OperandId>> {
        let Some(id) = slot.and_then(|s| op.input(s)) else { return Ok(None) };
        let d = graph.descriptor(id);
        if d.data_type != data_type || d.len() != elems(dims)? {
            return Err(Error::not_supported(format!("{}: operand shape {:?} does not match", op.kind, d.shape)));
        }
        Ok(Some(id))
    };
    let weight_ids = [
        expect(Some(slots.weight), &[dirs, gh, input_size])?,
        expect(Some(slots.recurrent_weight), &[dirs, gh, hidden])?,
        expect(Some(slots.bias), &[dirs, gh])?,
        expect(Some(slots.recurrent_bias), &[dirs, gh])?,
        expect(slots.peephole, &[dirs, 3, hidden])?,
    ];
    if weight_ids[0].is_none() || weight_ids[1].is_none() {
        return Err(Error::not_supported(format!("{}: missing weights", op.kind)));
    }
    expect(Some(slots.hidden), &[dirs, batch, hidden])?;
    expect(slots.cell, &[dirs, batch, hidden])?;
    let out_count = op.outputs.len();
    let (out_cell, out_seq) = match cell {
        CellKind::Gru { .. } => (None, (return_sequence && !is_cell && out_count > 1).then_some(1)),
        CellKind::Lstm => (Some(1), (return_sequence && !is_cell && out_count > 2).then_some(2)),
    };
    let state_len = elems(&[dirs, batch, hidden])?;
    for (i, &id) in op.outputs.iter().enumerate() {
        let d = graph.descriptor(id);
        let want = if Some(i) == out_seq { elems(&[steps, state_len])? } else { state_len };
        if d.data_type != data_type || d.len() != want || (i > 0 && out_cell != Some(i) && out_seq != Some(i)) {
            return Err(Error::not_supported(format!("{}: output {i} shape {:?} does not match", op.kind, d.shape)));
        }
    }
    if out_cell.is_some_and(|c| c >= out_count) || out_count == 0 {
        return Err(Error::not_supported(format!("{}: missing outputs", op.kind)));
    }

    // Packed weight layout, per direction.
    let mut pack = PackLayout::default();
    let mut area = Areas::default();
    pack.w = area.take(elems(&[gh, input_size])?)?;
    pack.r = area.take(elems(&[gh, hidden])?)?;
    pack.xbias = area.take(gh)?;
    pack.rbias_n = area.take(if matches!(cell, CellKind::Gru { reset_after: true }) { hidden } else { 0 })?;
    pack.peep = area.take(if weight_ids[4].is_some() { 3 * hidden } else { 0 })?;
    pack.stride = area.end;

    let mut kernel = RecurrentKernel {
        cell,
        data_type,
        steps,
        batch,
        input_size,
        hidden,
        dirs,
        backward_only,
        return_sequence: out_seq.is_some(),
        acts,
        gate_src,
        gates,
        has_peephole: weight_ids[4].is_some() && cell == CellKind::Lstm,
        slots,
        out_cell,
        out_seq,
        pack,
        packed: None,
        scr: ScratchLayout::default(),
        scratch: Mutex::new(Vec::new()),
        pack_area: 0,
        x_area: 0,
    };

    // Constant weights: pack now.
    let constant = |id: OperandId| match graph.operands[id.index()].source {
        OperandSource::Constant(k) => {
            graph.constants.get(k).and_then(|c| super::float_elem::bytes_to_f32(data_type, &c.bytes))
        }
        _ => None,
    };
    let mut values: [Option<Vec<f32>>; 5] = Default::default();
    let mut all_constant = true;
    for (v, id) in values.iter_mut().zip(weight_ids) {
        if let Some(id) = id {
            *v = constant(id);
            all_constant &= v.is_some();
        }
    }
    let total_pack = elems(&[pack.stride, dirs])?;
    if all_constant {
        let mut packed = super::scratch::try_zeroed::<f32>(total_pack).ok_or_else(|| {
            Error::operation(format!(
                "{}: cannot allocate {} bytes for the packed weights",
                op.kind,
                total_pack.saturating_mul(4)
            ))
        })?;
        let [w, r, b, rb, p] = &values;
        kernel.pack_weights::<f32>(
            w.as_deref().unwrap_or(&[]),
            r.as_deref().unwrap_or(&[]),
            b.as_deref(),
            rb.as_deref(),
            p.as_deref(),
            &mut packed,
        );
        kernel.packed = Some(packed);
        kernel.pack_area = 0;
    } else {
        kernel.pack_area = total_pack;
    }
    kernel.x_area = if data_type == DataType::Float16 { elems(&[steps, batch, input_size])? } else { 0 };

    // Scratch per direction.
    let mut scr = ScratchLayout::default();
    let mut area = Areas::default();
    let bh = elems(&[batch, hidden])?;
    scr.xw = area.take(elems(&[steps, batch, gh])?)?;
    scr.gates = area.take(elems(&[gh, batch])?)?;
    scr.h = area.take(bh)?;
    scr.aux = area.take(bh)?;
    scr.seq = area.take(if kernel.return_sequence { elems(&[steps, bh])? } else { 0 })?;
    scr.stride = area.end;
    kernel.scr = scr;
    let total = elems(&[scr.stride, dirs])?
        .checked_add(kernel.pack_area)
        .and_then(|v| v.checked_add(kernel.x_area))
        .ok_or_else(|| Error::not_supported("recurrent network too large"))?;
    let scratch = super::scratch::try_zeroed::<f32>(total).ok_or_else(|| {
        Error::operation(format!("{}: cannot allocate {} bytes of scratch", op.kind, total.saturating_mul(4)))
    })?;
    kernel.scratch = Mutex::new(scratch);
    Ok(Box::new(kernel))
}

/// Consecutive areas of a buffer, laid out one after the other.
#[derive(Default)]
struct Areas {
    /// The end of the last area.
    end: usize,
}

impl Areas {
    /// The offset of the next `n` elements.
    fn take(&mut self, n: usize) -> Result<usize> {
        let at = self.end;
        self.end = self.end.checked_add(n).ok_or_else(|| Error::not_supported("recurrent network too large"))?;
        Ok(at)
    }
}

/// Little-endian bytes of a float32/float16 constant as f32 values.
impl RecurrentKernel {
    /// Packs the weights of every direction into `out` (see [`PackLayout`]).
    fn pack_weights<T: FloatElem>(
        &self,
        w: &[T],
        r: &[T],
        b: Option<&[T]>,
        rb: Option<&[T]>,
        p: Option<&[T]>,
        out: &mut [f32],
    ) {
        let (h, inp, g) = (self.hidden, self.input_size, self.gates);
        let gh = g * h;
        let pk = self.pack;
        let get = |s: Option<&[T]>, i: usize| s.map_or(0.0, |s| s[i].to_f32());
        for d in 0..self.dirs {
            let o = &mut out[d * pk.stride..(d + 1) * pk.stride];
            for gi in 0..g {
                let src = self.gate_src[gi];
                for j in 0..h {
                    let (dst_row, src_row) = (gi * h + j, d * gh + src * h + j);
                    for k in 0..inp {
                        o[pk.w + dst_row * inp + k] = w[src_row * inp + k].to_f32();
                    }
                    for k in 0..h {
                        o[pk.r + dst_row * h + k] = r[src_row * h + k].to_f32();
                    }
                    let (bv, rbv) = (get(b, d * gh + src * h + j), get(rb, d * gh + src * h + j));
                    o[pk.xbias + dst_row] = match self.cell {
                        // resetAfter: the new gate's recurrentBias goes inside r ⊙ (…).
                        CellKind::Gru { reset_after: true } if gi == 2 => {
                            o[pk.rbias_n + j] = rbv;
                            bv
                        }
                        _ => bv + rbv,
                    };
                }
            }
            if let (Some(p), CellKind::Lstm) = (p, self.cell) {
                for i in 0..3 * h {
                    o[pk.peep + i] = p[d * 3 * h + i].to_f32();
                }
            }
        }
    }

    fn run_typed<T: FloatElem>(&self, inputs: &[Option<In<'_>>], outputs: &mut [Out<'_>]) {
        let slot = |s: usize| inputs.get(s).copied().flatten().map(|i| i.slice::<T>());
        let (Some(x), Some(w), Some(r)) =
            (slot(self.slots.input), slot(self.slots.weight), slot(self.slots.recurrent_weight))
        else {
            return;
        };
        let mut guard = self.scratch.lock().unwrap_or_else(|e| e.into_inner());
        let (pack_area, rest) = guard.split_at_mut(self.pack_area);
        let (x_area, dir_area) = rest.split_at_mut(self.x_area);
        let packed: &[f32] = match &self.packed {
            Some(p) => p,
            None => {
                let peep = self.slots.peephole.and_then(slot);
                self.pack_weights::<T>(w, r, slot(self.slots.bias), slot(self.slots.recurrent_bias), peep, pack_area);
                pack_area
            }
        };
        let x: &[f32] = match T::as_f32(x) {
            Some(x) => x,
            None => {
                for (d, s) in x_area.iter_mut().zip(x) {
                    *d = s.to_f32();
                }
                x_area
            }
        };
        let h0 = slot(self.slots.hidden);
        let c0 = self.slots.cell.and_then(slot);
        let pk = self.pack.stride;
        let st = self.scr.stride;
        if self.dirs == 2 {
            let (a0, a1) = dir_area.split_at_mut(st);
            let work = self.steps * self.batch * self.gates * self.hidden * (self.hidden + self.input_size);
            let (p0, p1) = (&packed[..pk], &packed[pk..2 * pk]);
            let a1 = &mut a1[..st];
            if work >= PAR_THRESHOLD {
                crate::par::join(
                    || self.run_direction(0, x, p0, h0, c0, a0),
                    || self.run_direction(1, x, p1, h0, c0, a1),
                );
            } else {
                self.run_direction(0, x, p0, h0, c0, a0);
                self.run_direction(1, x, p1, h0, c0, a1);
            }
        } else {
            self.run_direction(0, x, &packed[..pk], h0, c0, &mut dir_area[..st]);
        }

        // Outputs, rounded once.
        let bh = self.batch * self.hidden;
        for d in 0..self.dirs {
            let area = &dir_area[d * st..(d + 1) * st];
            write(&mut outputs[0], d * bh, &area[self.scr.h..self.scr.h + bh]);
            if let Some(c) = self.out_cell {
                write(&mut outputs[c], d * bh, &area[self.scr.aux..self.scr.aux + bh]);
            }
            if let Some(s) = self.out_seq {
                for t in 0..self.steps {
                    let src = &area[self.scr.seq + t * bh..self.scr.seq + (t + 1) * bh];
                    write(&mut outputs[s], (t * self.dirs + d) * bh, src);
                }
            }
        }
    }

    /// Runs every step of direction `dir`; leaves the final hidden (and cell) state and the
    /// sequence in `area`.
    fn run_direction<T: FloatElem>(
        &self,
        dir: usize,
        x: &[f32],
        pk: &[f32],
        h0: Option<&[T]>,
        c0: Option<&[T]>,
        area: &mut [f32],
    ) {
        let (steps, batch, h, inp, g) = (self.steps, self.batch, self.hidden, self.input_size, self.gates);
        let (gh, bh) = (g * h, batch * h);
        let l = self.pack;
        let s = self.scr;
        let (xw, rest) = area.split_at_mut(s.gates);
        let (gt, rest) = rest.split_at_mut(s.h - s.gates);
        let (hs, rest) = rest.split_at_mut(bh);
        let (aux, rest) = rest.split_at_mut(bh);
        let seq = rest; // [steps, batch, h] when returnSequence, else empty
        let init = |dst: &mut [f32], src: Option<&[T]>| match src {
            Some(v) => {
                for (d, v) in dst.iter_mut().zip(&v[dir * bh..(dir + 1) * bh]) {
                    *d = v.to_f32();
                }
            }
            None => dst.fill(0.0),
        };
        init(hs, h0);
        init(aux, if self.cell == CellKind::Lstm { c0 } else { None });

        let w = &pk[l.w..l.w + gh * inp];
        let r = &pk[l.r..l.r + gh * h];
        project(x, steps * batch, inp, w, gh, &pk[l.xbias..l.xbias + gh], &mut xw[..steps * batch * gh]);

        let backward = dir == 1 || self.backward_only;
        let [a0, a1, a2] = self.acts;
        for step in 0..steps {
            let t = if backward { steps - 1 - step } else { step };
            let xwt = &xw[t * batch * gh..(t + 1) * batch * gh];
            match self.cell {
                CellKind::Gru { reset_after: true } => {
                    gate_products(r, gh, h, hs, batch, gt);
                    let rbn = &pk[l.rbias_n..l.rbias_n + h];
                    for b in 0..batch {
                        for j in 0..h {
                            let xr = &xwt[b * gh..];
                            let z = a0.apply(xr[j] + gt[j * batch + b]);
                            let rr = a0.apply(xr[h + j] + gt[(h + j) * batch + b]);
                            let n = a1.apply(xr[2 * h + j] + rr * (gt[(2 * h + j) * batch + b] + rbn[j]));
                            let hp = hs[b * h + j];
                            hs[b * h + j] = z * hp + n * (1.0 - z);
                        }
                    }
                }
                CellKind::Gru { reset_after: false } => {
                    // z and r first; the new gate needs (r ⊙ h) · R_nᵀ.
                    gate_products(&r[..2 * h * h], 2 * h, h, hs, batch, &mut gt[..2 * h * batch]);
                    for b in 0..batch {
                        for j in 0..h {
                            let xr = &xwt[b * gh..];
                            let z = a0.apply(xr[j] + gt[j * batch + b]);
                            let rr = a0.apply(xr[h + j] + gt[(h + j) * batch + b]);
                            gt[j * batch + b] = z;
                            aux[b * h + j] = rr * hs[b * h + j];
                        }
                    }
                    gate_products(&r[2 * h * h..3 * h * h], h, h, aux, batch, &mut gt[2 * h * batch..3 * h * batch]);
                    for b in 0..batch {
                        for j in 0..h {
                            let z = gt[j * batch + b];
                            let n = a1.apply(xwt[b * gh + 2 * h + j] + gt[(2 * h + j) * batch + b]);
                            let hp = hs[b * h + j];
                            hs[b * h + j] = z * hp + n * (1.0 - z);
                        }
                    }
                }
                CellKind::Lstm => {
                    gate_products(r, gh, h, hs, batch, gt);
                    let peep = self.has_peephole.then(|| &pk[l.peep..l.peep + 3 * h]);
                    for b in 0..batch {
                        let xr = &xwt[b * gh..];
                        for j in 0..h {
                            let c = aux[b * h + j];
                            let pre = |gi: usize| xr[gi * h + j] + gt[(gi * h + j) * batch + b];
                            let (mut pi, mut po, mut pf) = (pre(0), pre(1), pre(2));
                            if let Some(p) = peep {
                                pi += c * p[j];
                                po += c * p[h + j];
                                pf += c * p[2 * h + j];
                            }
                            let i = a0.apply(pi);
                            let o = a0.apply(po);
                            let f = a0.apply(pf);
                            let gg = a1.apply(pre(3));
                            let cn = f * c + i * gg;
                            aux[b * h + j] = cn;
                            hs[b * h + j] = o * a2.apply(cn);
                        }
                    }
                }
            }
            if self.return_sequence {
                seq[t * bh..(t + 1) * bh].copy_from_slice(hs);
            }
        }
    }
}

/// Writes f32 values into an output at element offset `at`, rounding once.
fn write(out: &mut Out<'_>, at: usize, src: &[f32]) {
    match out.desc.data_type {
        DataType::Float16 => {
            let dst = &mut out.slice_mut::<f16>()[at..at + src.len()];
            for (d, &v) in dst.iter_mut().zip(src) {
                *d = f16::from_f32(v);
            }
        }
        _ => out.slice_mut::<f32>()[at..at + src.len()].copy_from_slice(src),
    }
}

impl Kernel for RecurrentKernel {
    fn run(&self, inputs: &[Option<In<'_>>], outputs: &mut [Out<'_>]) -> webnn_core::Result<()> {
        match self.data_type {
            DataType::Float16 => self.run_typed::<f16>(inputs, outputs),
            _ => self.run_typed::<f32>(inputs, outputs),
        }
        Ok(())
    }
}

//! gather ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-gather)), gatherElements
//! ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-gatherelements)), gatherND
//! ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-gathernd)), scatterElements
//! ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-scatterelements)) and scatterND
//! ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-scatternd)), for every data type the GPU
//! stores, with int32 or uint32 indices (int64 is not stored on the GPU).
//!
//! Index semantics are the CPU engine's (webnn-cpu kernels/gather.rs, decisions.md D10):
//! indices in [−N, −1] wrap by +N, anything still outside [0, N) is clamped to [0, N−1], so no
//! index value reads or writes out of bounds.
//!
//! Design:
//! - gathers: one invocation per output element, reading its index then its input element.
//! - scatters (three dispatches, deterministic, O(output + updates)): (1) clear a scratch
//!   "winner" word per target (per output element for scatterElements, per slice for
//!   scatterND); (2) one invocation per update (per index tuple for scatterND) does
//!   `atomicMax(winner[target], order + 1)`, where `order` is the update's rank in row-major
//!   order among those that can hit the same target; (3) one invocation per output element
//!   writes the winning update, or the input where no update hit. So when several updates hit
//!   one element the last in row-major order wins, as on the CPU (decisions.md D19).

use super::{Lowering, Slot, Task, Work};
use crate::wgsl::{self, Binding};
use std::fmt::Write;
use webnn_core::graph::{Attrs, Operation};
use webnn_core::{DataType, Error, OpKind, OperandId, Result};

/// Whether this family executes `member` of `op` with `dt` (a type the GPU stores).
pub(super) fn executes(op: OpKind, member: &str, dt: DataType) -> bool {
    match op {
        OpKind::Gather | OpKind::GatherElements | OpKind::GatherNd | OpKind::ScatterElements | OpKind::ScatterNd => {
            member != "indices" || matches!(dt, DataType::Int32 | DataType::Uint32)
        }
        _ => false,
    }
}

/// `fn resolve_(v, n: u32) -> u32`: an index of `dt` resolved into [0, n) (n ≥ 1), exact for
/// every n (no i32 overflow).
fn resolve_helper(dt: DataType) -> &'static str {
    match dt {
        DataType::Int32 => {
            "fn resolve_(v: i32, n: u32) -> u32 {
    if (v < 0) {
        let a = u32(-(v + 1)) + 1u;
        return select(0u, n - a, a <= n);
    }
    return min(u32(v), n - 1u);
}
"
        }
        _ => {
            "fn resolve_(v: u32, n: u32) -> u32 {
    return min(v, n - 1u);
}
"
        }
    }
}

fn mismatch(op: &Operation) -> Error {
    Error::unknown(format!("{}: attributes do not match the operand shapes", op.kind))
}

fn product(s: &[u32]) -> u64 {
    s.iter().map(|&d| d as u64).product()
}

/// Checks the index type (int32 or uint32).
fn index_type(op: &Operation, dt: DataType) -> Result<DataType> {
    match dt {
        DataType::Int32 | DataType::Uint32 => Ok(dt),
        _ => Err(Error::not_supported(format!("{}: {dt:?} indices are not executed on the GPU", op.kind))),
    }
}

/// Lowers an op of this family, or None if `op` is not one.
pub(super) fn lower(op: &Operation, l: &Lowering) -> Result<Option<Work>> {
    match op.kind {
        OpKind::Gather | OpKind::GatherElements | OpKind::GatherNd => gather(op, l).map(Some),
        OpKind::ScatterElements | OpKind::ScatterNd => scatter(op, l).map(Some),
        _ => Ok(None),
    }
}

/// What gather and scatter read alike: the data `x` and indices `ix` (their element types and
/// shapes) and the output `y`.
struct Indexed {
    x: OperandId,
    ix: OperandId,
    y: OperandId,
    dt: DataType,
    it: DataType,
    in_shape: Vec<u32>,
    idx_shape: Vec<u32>,
    rank: usize,
    out_n: u64,
    idx_n: u64,
}

impl Indexed {
    fn new(op: &Operation, l: &Lowering) -> Result<Indexed> {
        let (x, ix, y) = (l.input(op, 0)?, l.input(op, 1)?, op.outputs[0]);
        let it = index_type(op, l.data_type(ix))?;
        let (in_shape, idx_shape) = (l.shape(x).to_vec(), l.shape(ix).to_vec());
        let (rank, out_n, idx_n) = (in_shape.len(), l.elements(y), product(&idx_shape));
        Ok(Indexed { x, ix, y, dt: l.data_type(x), it, in_shape, idx_shape, rank, out_n, idx_n })
    }

    /// Whether the indices have the data's shape but along `axis`.
    fn same_but_axis(&self, axis: usize) -> bool {
        self.idx_shape.len() == self.rank && (0..self.rank).all(|d| d == axis || self.idx_shape[d] == self.in_shape[d])
    }
}

fn gather(op: &Operation, l: &Lowering) -> Result<Work> {
    let operands = Indexed::new(op, l)?;
    let Indexed { x, ix, y, dt, it, ref in_shape, ref idx_shape, rank, out_n, idx_n } = operands;
    let load_idx = |at: &str| wgsl::load(it, "ix_", at);
    let body = match (op.kind, &op.attrs) {
        (OpKind::Gather, Attrs::Axis { axis }) if (*axis as usize) < rank => {
            let axis = *axis as usize;
            let n = in_shape[axis];
            let inner = product(&in_shape[axis + 1..]);
            if product(&in_shape[..axis]) * idx_n * inner != out_n {
                return Err(mismatch(op));
            }
            // out[o, j, k] = in[o, resolve(idx[j]), k]
            format!(
                "let k = i % {inner}u;\nlet oj = i / {inner}u;\nlet j = oj % {idx_n}u;\nlet o = oj / {idx_n}u;\n\
                 let r = resolve_({}, {n}u);\nreturn {};",
                load_idx("j"),
                wgsl::load(dt, "x_", &format!("(o * {n}u + r) * {inner}u + k"))
            )
        }
        (OpKind::GatherElements, Attrs::Axis { axis }) if (*axis as usize) < rank => {
            let axis = *axis as usize;
            let n = in_shape[axis];
            let ni = *idx_shape.get(axis).ok_or_else(|| mismatch(op))?;
            let inner = product(&in_shape[axis + 1..]);
            let same_but_axis = operands.same_but_axis(axis);
            if !same_but_axis || idx_n != out_n {
                return Err(mismatch(op));
            }
            // out[o, j, k] = in[o, resolve(idx[o, j, k]), k]
            format!(
                "let k = i % {inner}u;\nlet o = i / {};\nlet r = resolve_({}, {n}u);\nreturn {};",
                format_args!("{}u", ni as u64 * inner),
                load_idx("i"),
                wgsl::load(dt, "x_", &format!("(o * {n}u + r) * {inner}u + k"))
            )
        }
        (OpKind::GatherNd, _) => {
            let c = *idx_shape.last().ok_or_else(|| mismatch(op))? as usize;
            if c == 0 || c > rank {
                return Err(mismatch(op));
            }
            let inner = product(&in_shape[c..]);
            if idx_n / c as u64 * inner != out_n {
                return Err(mismatch(op));
            }
            let st = wgsl::strides(in_shape);
            let mut body = format!("let k = i % {inner}u;\nlet t = i / {inner}u;\nvar at: u32 = k;\n");
            for q in 0..c {
                let _ = writeln!(
                    body,
                    "at = at + resolve_({}, {}u) * {}u;",
                    load_idx(&format!("t * {c}u + {q}u")),
                    in_shape[q],
                    st[q]
                );
            }
            let _ = write!(body, "return {};", wgsl::load(dt, "x_", "at"));
            body
        }
        _ => return Err(mismatch(op)),
    };
    let bindings = [Binding::read("x_", dt), Binding::read("ix_", it), Binding::write("y", dt)];
    let slots = vec![Slot::Operand(x), Slot::Operand(ix), Slot::Operand(y)];
    let k = l.per_element(op.kind.idl_name(), &bindings, slots, resolve_helper(it), &body, out_n);
    Ok(Work { scratch: vec![], tasks: vec![Task::Kernel(k)] })
}

fn scatter(op: &Operation, l: &Lowering) -> Result<Work> {
    let operands = Indexed::new(op, l)?;
    let u = l.input(op, 2)?;
    let Indexed { x, ix, y, dt, it, ref in_shape, ref idx_shape, rank, out_n, idx_n } = operands;
    if l.shape(y) != in_shape.as_slice() {
        return Err(mismatch(op));
    }
    let label = op.kind.idl_name();
    // (targets, invocations of the marking pass, its body computing `dst` and `order` from
    // `t`, the final pass's body choosing from `w` = winner + 1 or 0).
    let (targets, marks, mark_body, pick) = match (op.kind, &op.attrs) {
        (OpKind::ScatterElements, Attrs::Axis { axis }) if (*axis as usize) < rank => {
            let axis = *axis as usize;
            let same_but_axis = operands.same_but_axis(axis);
            if !same_but_axis || l.shape(u) != idx_shape.as_slice() {
                return Err(mismatch(op));
            }
            let n = in_shape[axis];
            let ni = idx_shape[axis] as u64;
            let inner = product(&in_shape[axis + 1..]);
            // Update t = (o, j, k) of [outer, ni, inner] targets (o, resolve(idx[t]), k).
            let mark = format!(
                "let k = t % {inner}u;\nlet oj = t / {inner}u;\nlet order = oj % {ni}u;\nlet o = oj / {ni}u;\n\
                 let dst = (o * {n}u + resolve_({}, {n}u)) * {inner}u + k;",
                wgsl::load(it, "ix_", "t")
            );
            let pick = format!(
                "let k = i % {inner}u;\nlet o = i / {};\nreturn {};",
                format_args!("{}u", n as u64 * inner),
                wgsl::load(dt, "u_", &format!("(o * {ni}u + w - 1u) * {inner}u + k"))
            );
            (out_n, idx_n, mark, pick)
        }
        (OpKind::ScatterNd, _) => {
            let c = *idx_shape.last().ok_or_else(|| mismatch(op))? as usize;
            if c == 0 || c > rank {
                return Err(mismatch(op));
            }
            let inner = product(&in_shape[c..]);
            let tuples = idx_n / c as u64;
            if tuples * inner != l.elements(u) {
                return Err(mismatch(op));
            }
            // Slice strides over the first c dimensions.
            let st = wgsl::strides(&in_shape[..c]);
            let mut mark = "let order = t;\nvar dst: u32 = 0u;\n".to_string();
            for q in 0..c {
                let _ = writeln!(
                    mark,
                    "dst = dst + resolve_({}, {}u) * {}u;",
                    wgsl::load(it, "ix_", &format!("t * {c}u + {q}u")),
                    in_shape[q],
                    st[q]
                );
            }
            let pick = format!("return {};", wgsl::load(dt, "u_", &format!("(w - 1u) * {inner}u + i % {inner}u")));
            (product(&in_shape[..c]), tuples, mark, pick)
        }
        _ => return Err(mismatch(op)),
    };
    let winners = Slot::Scratch(0);
    let mut tasks = Vec::with_capacity(3);
    // 1. Clear the winners.
    let clear = [Binding::write("w_", DataType::Uint32)];
    tasks.push(Task::Kernel(l.per_element(label, &clear, vec![winners], "", "return 0u;", targets)));
    // 2. Mark: the last update (in row-major order) hitting each target.
    let (workgroups, row) = wgsl::grid(marks, l.max_workgroups);
    let mark_wgsl = format!(
        "{}@group(0) @binding(1) var<storage, read_write> w_: array<atomic<u32>>;\n{}\n\
         {}{mark_body}\n\
         atomicMax(&w_[dst], order + 1u);\n}}\n",
        wgsl::declarations(&[Binding::read("ix_", it)]),
        resolve_helper(it),
        wgsl::indexed_main("t", row, marks),
    );
    tasks.push(Task::Kernel(l.custom(label, mark_wgsl, vec![Slot::Operand(ix), winners], workgroups)));
    // 3. Write: the winning update or the input.
    let target_of_i = match op.kind {
        OpKind::ScatterNd => {
            let inner = out_n / targets.max(1);
            format!("i / {inner}u")
        }
        _ => "i".to_string(),
    };
    let body = format!("let w = w_[{target_of_i}];\nif (w == 0u) {{ return {}; }}\n{pick}", wgsl::load(dt, "x_", "i"));
    let bindings = [
        Binding::read("x_", dt),
        Binding::read("u_", dt),
        Binding::read("w_", DataType::Uint32),
        Binding::write("y", dt),
    ];
    let slots = vec![Slot::Operand(x), Slot::Operand(u), winners, Slot::Operand(y)];
    tasks.push(Task::Kernel(l.per_element(label, &bindings, slots, "", &body, out_n)));
    Ok(Work { scratch: vec![targets * 4], tasks })
}

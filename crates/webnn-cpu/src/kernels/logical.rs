//! Element-wise logical ops ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-logical)):
//! equal, notEqual, greater, greaterOrEqual, lesser, lesserOrEqual (any input type, numpy
//! broadcasting, uint8 0/1 output), logicalNot/And/Or/Xor (uint8, any non-zero value is true),
//! isNaN, isInfinite; and `where` ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-where)),
//! which selects (it never multiplies, so NaN/Infinity in the unselected branch do not leak).
//!
//! The binary comparisons and logical ops walk their operands with binary's row plan
//! ([`RowPlan`]); `where` and prelu with the odometer walk [`Broadcast`] here.
//!
//! Comparisons with NaN are false (so notEqual(NaN, x) is 1); +0 equals −0. float16 compares
//! its exact values.

use super::binary::{binary_rows, RowPlan};
use super::unary::{map, CHEAP_CHUNK};
use super::util::broadcast_strides;
use super::{In, Kernel, Out};
use half::f16;
use smallvec::SmallVec;
use webnn_core::graph::Operation;
use webnn_core::{DataType, Error, Graph, OpKind, Result};

/// Output shape and per-operand broadcast strides of an element-wise op with `K` inputs.
#[derive(Debug, Clone)]
pub struct Broadcast<const K: usize> {
    /// The output shape.
    pub out_shape: Vec<u32>,
    /// Broadcast strides of every input (0 along broadcast dimensions).
    pub strides: [Vec<usize>; K],
    /// True if every input has the output's shape (plain zip, no index math).
    pub same_shape: bool,
}

impl<const K: usize> Broadcast<K> {
    /// Geometry of inputs of shapes `inputs` broadcast to `out_shape`.
    pub fn new(inputs: [&[u32]; K], out_shape: &[u32]) -> Self {
        Broadcast {
            out_shape: out_shape.to_vec(),
            strides: std::array::from_fn(|k| broadcast_strides(inputs[k], out_shape)),
            same_shape: inputs.iter().all(|s| *s == out_shape),
        }
    }

    /// Geometry of the inputs of `op` (the first `K` slots) broadcast to its first output.
    pub fn of(op: &Operation, graph: &Graph) -> Result<Self> {
        let mut shapes: [&[u32]; K] = [&[]; K];
        for (k, s) in shapes.iter_mut().enumerate() {
            let id = op.input(k).ok_or_else(|| Error::operation(format!("{}: missing operand {k}", op.kind)))?;
            *s = &graph.descriptor(id).shape;
        }
        let out = &graph.descriptor(op.outputs[0]).shape;
        let fits = |s: &[u32]| {
            s.len() <= out.len() && s.iter().zip(&out[out.len() - s.len()..]).all(|(&a, &o)| a == o || a == 1)
        };
        if !shapes.iter().all(|s| fits(s)) {
            return Err(Error::operation(format!("{}: an operand does not broadcast to the output", op.kind)));
        }
        Ok(Self::new(shapes, out))
    }

    /// `out[i] = f(offsets of element i in every input)` over the whole output, in parallel
    /// chunks when large.
    pub fn map<U: Send, F>(&self, out: &mut [U], f: F)
    where
        F: Fn([usize; K]) -> U + Sync + Send,
    {
        if self.same_shape {
            let chunk = CHEAP_CHUNK;
            if out.len() > chunk {
                crate::par::chunks(out, chunk, |c, o| {
                    let base = c * chunk;
                    for (j, o) in o.iter_mut().enumerate() {
                        *o = f([base + j; K]);
                    }
                });
            } else {
                for (j, o) in out.iter_mut().enumerate() {
                    *o = f([j; K]);
                }
            }
            return;
        }
        let chunk = CHEAP_CHUNK;
        if out.len() > chunk {
            crate::par::chunks(out, chunk, |c, o| self.walk(o, c * chunk, &f));
        } else {
            self.walk(out, 0, &f);
        }
    }

    /// Fills `out` (the output elements from flat index `start` on) walking the broadcast
    /// offsets with an odometer.
    #[allow(clippy::needless_range_loop)]
    fn walk<U, F: Fn([usize; K]) -> U>(&self, out: &mut [U], start: usize, f: &F) {
        let shape = &self.out_shape;
        let rank = shape.len();
        if rank == 0 {
            if let Some(o) = out.first_mut() {
                *o = f([0; K]);
            }
            return;
        }
        let mut idx: SmallVec<[usize; 8]> = SmallVec::from_elem(0, rank);
        let mut offs = [0usize; K];
        let mut rem = start;
        for d in (0..rank).rev() {
            let n = shape[d] as usize;
            idx[d] = rem % n;
            rem /= n;
            for k in 0..K {
                offs[k] += idx[d] * self.strides[k][d];
            }
        }
        let last = rank - 1;
        let inner = shape[last] as usize;
        let inner_strides: [usize; K] = std::array::from_fn(|k| self.strides[k][last]);
        let mut i = 0;
        while i < out.len() {
            let run = (inner - idx[last]).min(out.len() - i);
            let mut o = offs;
            for slot in &mut out[i..i + run] {
                *slot = f(o);
                for k in 0..K {
                    o[k] += inner_strides[k];
                }
            }
            i += run;
            // Back to the start of the row, then carry into the outer dimensions.
            for k in 0..K {
                offs[k] -= idx[last] * inner_strides[k];
            }
            idx[last] = 0;
            for d in (0..last).rev() {
                idx[d] += 1;
                for k in 0..K {
                    offs[k] += self.strides[k][d];
                }
                if idx[d] < shape[d] as usize {
                    break;
                }
                for k in 0..K {
                    offs[k] -= self.strides[k][d] * idx[d];
                }
                idx[d] = 0;
            }
        }
    }
}

/// The comparison or logical binary operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogicalOp {
    /// a == b
    Equal,
    /// a != b
    NotEqual,
    /// a > b
    Greater,
    /// a >= b
    GreaterOrEqual,
    /// a < b
    Lesser,
    /// a <= b
    LesserOrEqual,
    /// a && b
    And,
    /// a || b
    Or,
    /// a ^ b
    Xor,
}

struct CompareKernel {
    op: LogicalOp,
    data_type: DataType,
    rows: RowPlan,
}

/// Element-wise comparison into a 0/1 uint8 output, broadcasting row by row as `plan` says
/// (binary's row walker: each row a tight loop over contiguous or repeated operands).
pub fn compare<T: PartialOrd + Copy + Send + Sync>(op: LogicalOp, a: &[T], b: &[T], out: &mut [u8], plan: &RowPlan) {
    match op {
        LogicalOp::Equal => binary_rows(a, b, out, plan, |x, y| (x == y) as u8),
        LogicalOp::NotEqual => binary_rows(a, b, out, plan, |x, y| (x != y) as u8),
        LogicalOp::Greater => binary_rows(a, b, out, plan, |x, y| (x > y) as u8),
        LogicalOp::GreaterOrEqual => binary_rows(a, b, out, plan, |x, y| (x >= y) as u8),
        LogicalOp::Lesser => binary_rows(a, b, out, plan, |x, y| (x < y) as u8),
        LogicalOp::LesserOrEqual => binary_rows(a, b, out, plan, |x, y| (x <= y) as u8),
        _ => {}
    }
}

/// Element-wise logicalAnd/Or/Xor of uint8 operands (non-zero = true).
pub fn logical(op: LogicalOp, a: &[u8], b: &[u8], out: &mut [u8], plan: &RowPlan) {
    match op {
        LogicalOp::And => binary_rows(a, b, out, plan, |x, y| (x != 0 && y != 0) as u8),
        LogicalOp::Or => binary_rows(a, b, out, plan, |x, y| (x != 0 || y != 0) as u8),
        LogicalOp::Xor => binary_rows(a, b, out, plan, |x, y| ((x != 0) != (y != 0)) as u8),
        _ => {}
    }
}

impl Kernel for CompareKernel {
    fn run(&self, inputs: &[Option<In<'_>>], outputs: &mut [Out<'_>]) -> webnn_core::Result<()> {
        let (Some(a), Some(b)) = (inputs[0], inputs[1]) else { return Ok(()) };
        let out: &mut [u8] = outputs[0].slice_mut();
        match self.op {
            LogicalOp::And | LogicalOp::Or | LogicalOp::Xor => logical(self.op, a.slice(), b.slice(), out, &self.rows),
            _ => crate::with_type!(self.data_type, T => compare::<T>(self.op, a.slice(), b.slice(), out, &self.rows)),
        }
        Ok(())
    }
}

/// The unary logical operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum UnaryLogical {
    Not,
    IsNaN,
    IsInfinite,
}

struct UnaryLogicalKernel {
    op: UnaryLogical,
    data_type: DataType,
}

impl Kernel for UnaryLogicalKernel {
    fn run(&self, inputs: &[Option<In<'_>>], outputs: &mut [Out<'_>]) -> webnn_core::Result<()> {
        let Some(a) = inputs[0] else { return Ok(()) };
        let out: &mut [u8] = outputs[0].slice_mut();
        let c = CHEAP_CHUNK;
        match (self.op, self.data_type) {
            (UnaryLogical::Not, _) => map::<u8, u8, _>(a.slice(), out, c, |x| (x == 0) as u8),
            (UnaryLogical::IsNaN, DataType::Float32) => map::<f32, u8, _>(a.slice(), out, c, |x| x.is_nan() as u8),
            (UnaryLogical::IsNaN, DataType::Float16) => map::<f16, u8, _>(a.slice(), out, c, |x| x.is_nan() as u8),
            (UnaryLogical::IsInfinite, DataType::Float32) => {
                map::<f32, u8, _>(a.slice(), out, c, |x| x.is_infinite() as u8)
            }
            (UnaryLogical::IsInfinite, DataType::Float16) => {
                map::<f16, u8, _>(a.slice(), out, c, |x| x.is_infinite() as u8)
            }
            // Integers are never NaN or infinite (the validators only let floats through).
            _ => out.fill(0),
        }
        Ok(())
    }
}

/// Lowers the comparison and logical ops.
pub fn lower(op: &Operation, graph: &Graph) -> Result<Box<dyn Kernel>> {
    use OpKind as K;
    let in0 = op.input(0).ok_or_else(|| Error::operation(format!("{}: missing operand a", op.kind)))?;
    let data_type = graph.descriptor(in0).data_type;
    let unary = match op.kind {
        K::LogicalNot => Some(UnaryLogical::Not),
        K::IsNaN => Some(UnaryLogical::IsNaN),
        K::IsInfinite => Some(UnaryLogical::IsInfinite),
        _ => None,
    };
    if let Some(u) = unary {
        return Ok(Box::new(UnaryLogicalKernel { op: u, data_type }));
    }
    let lop = match op.kind {
        K::Equal => LogicalOp::Equal,
        K::NotEqual => LogicalOp::NotEqual,
        K::Greater => LogicalOp::Greater,
        K::GreaterOrEqual => LogicalOp::GreaterOrEqual,
        K::Lesser => LogicalOp::Lesser,
        K::LesserOrEqual => LogicalOp::LesserOrEqual,
        K::LogicalAnd => LogicalOp::And,
        K::LogicalOr => LogicalOp::Or,
        K::LogicalXor => LogicalOp::Xor,
        other => return Err(Error::not_supported(format!("{other} is not a logical op"))),
    };
    if matches!(lop, LogicalOp::And | LogicalOp::Or | LogicalOp::Xor) && data_type != DataType::Uint8 {
        return Err(Error::not_supported(format!("{} on {}", op.kind, data_type.as_str())));
    }
    let geom = Broadcast::<2>::of(op, graph)?;
    let rows = RowPlan::new(&geom.out_shape, [&geom.strides[0], &geom.strides[1]]);
    Ok(Box::new(CompareKernel { op: lop, data_type, rows }))
}

struct WhereKernel {
    elem_size: usize,
    geom: Broadcast<3>,
}

/// `out[i] = condition[i] != 0 ? t[i] : f[i]` with three-way broadcasting.
pub fn select<T: Copy + Send + Sync>(cond: &[u8], t: &[T], f: &[T], out: &mut [T], geom: &Broadcast<3>) {
    geom.map(out, |[c, i, j]| if cond[c] != 0 { t[i] } else { f[j] });
}

impl Kernel for WhereKernel {
    fn run(&self, inputs: &[Option<In<'_>>], outputs: &mut [Out<'_>]) -> webnn_core::Result<()> {
        let (Some(c), Some(t), Some(f)) = (inputs[0], inputs[1], inputs[2]) else { return Ok(()) };
        let out = &mut outputs[0];
        let cond: &[u8] = c.slice();
        // Selection only moves bits: dispatch on the element size.
        match self.elem_size {
            1 => select::<u8>(cond, t.slice(), f.slice(), out.slice_mut(), &self.geom),
            2 => select::<u16>(cond, t.slice(), f.slice(), out.slice_mut(), &self.geom),
            4 => select::<u32>(cond, t.slice(), f.slice(), out.slice_mut(), &self.geom),
            _ => select::<u64>(cond, t.slice(), f.slice(), out.slice_mut(), &self.geom),
        }
        Ok(())
    }
}

/// Lowers `where`.
pub fn lower_where(op: &Operation, graph: &Graph) -> Result<Box<dyn Kernel>> {
    let out = graph.descriptor(op.outputs[0]);
    Ok(Box::new(WhereKernel { elem_size: out.data_type.byte_size(), geom: Broadcast::of(op, graph)? }))
}

#[cfg(test)]
#[path = "logical_tests.rs"]
mod tests;

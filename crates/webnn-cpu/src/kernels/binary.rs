//! Element-wise binary arithmetic ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-binary)):
//! add, sub, mul, div, max, min, pow, with numpy broadcasting. Integer div truncates toward zero
//! and gives 0 on division by zero; integer overflow wraps; integer pow with a negative exponent
//! gives 0 except for bases ±1 (decisions.md D5). float16 is computed in f32 and rounded once.

use super::simd::simd;
use super::util::broadcast_strides;
use super::{In, Kernel, Out};
use half::f16;
use webnn_core::graph::Operation;
use webnn_core::{DataType, Graph, OpKind, Result};

/// The binary operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinaryOp {
    /// a + b
    Add,
    /// a − b
    Sub,
    /// a × b
    Mul,
    /// a ÷ b
    Div,
    /// max(a, b)
    Max,
    /// min(a, b)
    Min,
    /// a ^ b
    Pow,
}

/// Element arithmetic of one data type.
pub trait Arith: Copy + Send + Sync + bytemuck::Pod {
    /// Applies `op`.
    fn apply(op: BinaryOp, a: Self, b: Self) -> Self;
}

impl Arith for f32 {
    #[inline(always)]
    fn apply(op: BinaryOp, a: f32, b: f32) -> f32 {
        match op {
            BinaryOp::Add => a + b,
            BinaryOp::Sub => a - b,
            BinaryOp::Mul => a * b,
            BinaryOp::Div => a / b,
            // NaN propagates, as in IEEE maximum/minimum.
            BinaryOp::Max => {
                if a.is_nan() || b.is_nan() {
                    f32::NAN
                } else {
                    a.max(b)
                }
            }
            BinaryOp::Min => {
                if a.is_nan() || b.is_nan() {
                    f32::NAN
                } else {
                    a.min(b)
                }
            }
            BinaryOp::Pow => a.powf(b),
        }
    }
}

impl Arith for f16 {
    #[inline(always)]
    fn apply(op: BinaryOp, a: f16, b: f16) -> f16 {
        f16::from_f32(f32::apply(op, a.to_f32(), b.to_f32()))
    }
}

macro_rules! int_arith {
    ($($t:ty, $signed:expr);+) => {$(
        impl Arith for $t {
            #[inline(always)]
            #[allow(unused_comparisons)]
            fn apply(op: BinaryOp, a: $t, b: $t) -> $t {
                match op {
                    BinaryOp::Add => a.wrapping_add(b),
                    BinaryOp::Sub => a.wrapping_sub(b),
                    BinaryOp::Mul => a.wrapping_mul(b),
                    BinaryOp::Div => if b == 0 { 0 } else { a.wrapping_div(b) },
                    BinaryOp::Max => a.max(b),
                    BinaryOp::Min => a.min(b),
                    BinaryOp::Pow => {
                        if b < 0 {
                            // Only ±1 have integer reciprocals (decisions.md D5).
                            if a == 1 { 1 } else if $signed && a == (0 as $t).wrapping_sub(1) {
                                if (b as i128) % 2 == 0 { 1 } else { a }
                            } else { 0 }
                        } else {
                            let mut result: $t = 1;
                            let mut base = a;
                            let mut e = b as u128;
                            while e > 0 {
                                if e & 1 == 1 { result = result.wrapping_mul(base); }
                                base = base.wrapping_mul(base);
                                e >>= 1;
                            }
                            result
                        }
                    }
                }
            }
        }
    )+};
}
int_arith!(i32, true; u32, false; i64, true; u64, false; i8, true; u8, false);

/// How an operand is read along one row of the output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowRead {
    /// Element by element (the operand is contiguous along the row).
    Contiguous,
    /// One value for the whole row (the operand is broadcast along it).
    Repeated,
}

/// The output split into rows of `len` elements along which each operand is either contiguous
/// or repeated, so that every row is a tight, vectorizable loop; the rows are walked with the
/// operands' strides over the outer dimensions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowPlan {
    /// Elements per row.
    pub len: usize,
    /// Number of rows.
    pub rows: usize,
    /// The outer dimensions (their product is `rows`).
    pub outer_shape: Vec<usize>,
    /// Strides of `a` and `b` over the outer dimensions (0 where broadcast).
    pub outer_strides: [Vec<usize>; 2],
    /// How `a` and `b` are read along a row.
    pub reads: [RowRead; 2],
}

impl RowPlan {
    /// The plan for operands with broadcast `strides` (see `broadcast_strides`) into `out_shape`.
    pub fn new(out_shape: &[u32], strides: [&[usize]; 2]) -> RowPlan {
        let rank = out_shape.len();
        let mut reads = [RowRead::Contiguous; 2];
        let mut len = 1usize;
        let mut split = rank;
        // Take inner dimensions while every operand keeps the read mode of the innermost one.
        let mut decided = false;
        while split > 0 {
            let d = split - 1;
            let size = out_shape[d] as usize;
            if size != 1 {
                if !decided {
                    for k in 0..2 {
                        reads[k] = if strides[k][d] == 0 { RowRead::Repeated } else { RowRead::Contiguous };
                    }
                    decided = true;
                }
                let fits = (0..2).all(|k| match reads[k] {
                    RowRead::Repeated => strides[k][d] == 0,
                    RowRead::Contiguous => strides[k][d] == len,
                });
                if !fits {
                    break;
                }
            }
            len *= size;
            split -= 1;
        }
        let outer_shape: Vec<usize> = out_shape[..split].iter().map(|&d| d as usize).collect();
        RowPlan {
            len,
            rows: outer_shape.iter().product(),
            outer_strides: [strides[0][..split].to_vec(), strides[1][..split].to_vec()],
            outer_shape,
            reads,
        }
    }

    /// Offsets of `a` and `b` at the start of row `row`.
    fn offsets(&self, row: usize) -> [usize; 2] {
        let mut rest = row;
        let mut offs = [0usize; 2];
        for d in (0..self.outer_shape.len()).rev() {
            let i = rest % self.outer_shape[d];
            rest /= self.outer_shape[d];
            for (off, strides) in offs.iter_mut().zip(&self.outer_strides) {
                *off += i * strides[d];
            }
        }
        offs
    }
}

struct BinaryKernel {
    op: BinaryOp,
    data_type: DataType,
    rows: RowPlan,
}

/// Lowers add/sub/mul/div/max/min/pow.
pub fn lower(op: &Operation, graph: &Graph) -> Result<Box<dyn Kernel>> {
    let bop = match op.kind {
        OpKind::Add => BinaryOp::Add,
        OpKind::Sub => BinaryOp::Sub,
        OpKind::Mul => BinaryOp::Mul,
        OpKind::Div => BinaryOp::Div,
        OpKind::Max => BinaryOp::Max,
        OpKind::Min => BinaryOp::Min,
        _ => BinaryOp::Pow,
    };
    let a = graph.descriptor(op.inputs[0].expect("validated: a"));
    let b = graph.descriptor(op.inputs[1].expect("validated: b"));
    let out = graph.descriptor(op.outputs[0]);
    let strides = [broadcast_strides(&a.shape, &out.shape), broadcast_strides(&b.shape, &out.shape)];
    Ok(Box::new(BinaryKernel {
        op: bop,
        data_type: out.data_type,
        rows: RowPlan::new(&out.shape, [&strides[0], &strides[1]]),
    }))
}

/// Elements per parallel task.
const TASK: usize = 1 << 14;

/// One row: `o[i] = f(a[..], b[..])` with each operand read as `reads` says from its offset.
#[inline(always)]
fn row<T: Copy, U: Copy>(o: &mut [U], a: &[T], b: &[T], offs: [usize; 2], reads: [RowRead; 2], f: &impl Fn(T, T) -> U) {
    let n = o.len();
    match reads {
        [RowRead::Contiguous, RowRead::Contiguous] => {
            for ((o, &x), &y) in o.iter_mut().zip(&a[offs[0]..offs[0] + n]).zip(&b[offs[1]..offs[1] + n]) {
                *o = f(x, y);
            }
        }
        [RowRead::Contiguous, RowRead::Repeated] => {
            let y = b[offs[1]];
            for (o, &x) in o.iter_mut().zip(&a[offs[0]..offs[0] + n]) {
                *o = f(x, y);
            }
        }
        [RowRead::Repeated, RowRead::Contiguous] => {
            let x = a[offs[0]];
            for (o, &y) in o.iter_mut().zip(&b[offs[1]..offs[1] + n]) {
                *o = f(x, y);
            }
        }
        [RowRead::Repeated, RowRead::Repeated] => o.fill(f(a[offs[0]], b[offs[1]])),
    }
}

/// Computes `out = f(a, b)` row by row, in parallel tasks of about [`TASK`] elements (also
/// the comparisons of `logical.rs`, whose output is uint8).
pub(super) fn binary_rows<T: Copy + Send + Sync, U: Copy + Send + Sync>(
    a: &[T],
    b: &[T],
    out: &mut [U],
    plan: &RowPlan,
    f: impl Fn(T, T) -> U + Sync + Send,
) {
    let len = plan.len;
    if plan.rows == 1 {
        // One long row: split it into pieces.
        let reads = plan.reads;
        let piece = |start: usize, o: &mut [U]| {
            let offs = reads.map(|r| if r == RowRead::Contiguous { start } else { 0 });
            simd(
                #[inline(always)]
                || row(o, a, b, offs, reads, &f),
            )
        };
        if out.len() <= TASK {
            piece(0, out);
        } else {
            crate::par::chunks(out, TASK, |i, o| piece(i * TASK, o));
        }
        return;
    }
    let rows_per_task = (TASK / len).max(1);
    let task = |t: usize, o: &mut [U]| {
        simd(
            #[inline(always)]
            || {
                for (r, orow) in o.chunks_mut(len).enumerate() {
                    row(orow, a, b, plan.offsets(t * rows_per_task + r), plan.reads, &f);
                }
            },
        )
    };
    if plan.rows <= rows_per_task {
        task(0, out);
    } else {
        crate::par::chunks(out, rows_per_task * len, task);
    }
}

/// Computes `out = op(a, b)`, broadcasting row by row as `plan` says.
pub fn binary<T: Arith>(op: BinaryOp, a: &[T], b: &[T], out: &mut [T], plan: &RowPlan) {
    // The op is fixed per call so that each row loop is specialised (and vectorized) for it.
    match op {
        BinaryOp::Add => binary_rows(a, b, out, plan, |x, y| T::apply(BinaryOp::Add, x, y)),
        BinaryOp::Sub => binary_rows(a, b, out, plan, |x, y| T::apply(BinaryOp::Sub, x, y)),
        BinaryOp::Mul => binary_rows(a, b, out, plan, |x, y| T::apply(BinaryOp::Mul, x, y)),
        BinaryOp::Div => binary_rows(a, b, out, plan, |x, y| T::apply(BinaryOp::Div, x, y)),
        BinaryOp::Max => binary_rows(a, b, out, plan, |x, y| T::apply(BinaryOp::Max, x, y)),
        BinaryOp::Min => binary_rows(a, b, out, plan, |x, y| T::apply(BinaryOp::Min, x, y)),
        BinaryOp::Pow => binary_rows(a, b, out, plan, |x, y| T::apply(BinaryOp::Pow, x, y)),
    }
}

impl Kernel for BinaryKernel {
    fn run(&self, inputs: &[Option<In<'_>>], outputs: &mut [Out<'_>]) -> webnn_core::Result<()> {
        let (Some(a), Some(b)) = (inputs[0], inputs[1]) else { return Ok(()) };
        let out = &mut outputs[0];
        crate::with_type!(self.data_type, T => binary::<T>(self.op, a.slice(), b.slice(), out.slice_mut(), &self.rows));
        Ok(())
    }
}

#[cfg(test)]
#[path = "binary_tests.rs"]
mod tests;

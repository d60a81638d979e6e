//! Element-wise binary arithmetic (§8.9.13): add, sub, mul, div, max, min, pow, with numpy
//! broadcasting. Integer div truncates toward zero and gives 0 on division by zero; integer
//! overflow wraps; integer pow with a negative exponent gives 0 except for bases ±1
//! (decisions.md D5). float16 is computed in f32 and rounded once.

use super::gemm_backend::simd;
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
            BinaryOp::Max => if a.is_nan() || b.is_nan() { f32::NAN } else { a.max(b) },
            BinaryOp::Min => if a.is_nan() || b.is_nan() { f32::NAN } else { a.min(b) },
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
    Ok(Box::new(BinaryKernel { op: bop, data_type: out.data_type, rows: RowPlan::new(&out.shape, [&strides[0], &strides[1]]) }))
}

/// Elements per parallel task.
const TASK: usize = 1 << 14;

/// One row: `o[i] = f(a[..], b[..])` with each operand read as `reads` says from its offset.
#[inline(always)]
fn row<T: Copy>(o: &mut [T], a: &[T], b: &[T], offs: [usize; 2], reads: [RowRead; 2], f: &impl Fn(T, T) -> T) {
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

/// Computes `out = f(a, b)` row by row, in parallel tasks of about [`TASK`] elements.
fn binary_rows<T: Copy + Send + Sync>(a: &[T], b: &[T], out: &mut [T], plan: &RowPlan, f: impl Fn(T, T) -> T + Sync + Send) {
    let len = plan.len;
    if plan.rows == 1 {
        // One long row: split it into pieces.
        let reads = plan.reads;
        let piece = |start: usize, o: &mut [T]| {
            let offs = reads.map(|r| if r == RowRead::Contiguous { start } else { 0 });
            simd(#[inline(always)] || row(o, a, b, offs, reads, &f))
        };
        if out.len() <= TASK {
            piece(0, out);
        } else {
            crate::par::chunks(out, TASK, |i, o| piece(i * TASK, o));
        }
        return;
    }
    let rows_per_task = (TASK / len).max(1);
    let task = |t: usize, o: &mut [T]| {
        simd(#[inline(always)] || {
            for (r, orow) in o.chunks_mut(len).enumerate() {
                row(orow, a, b, plan.offsets(t * rows_per_task + r), plan.reads, &f);
            }
        })
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
mod tests {
    use super::*;

    #[test]
    fn integer_semantics_of_decision_d5() {
        assert_eq!(i32::apply(BinaryOp::Div, -7, 2), -3);
        assert_eq!(i32::apply(BinaryOp::Div, 7, 0), 0);
        assert_eq!(i32::apply(BinaryOp::Div, i32::MIN, -1), i32::MIN);
        assert_eq!(i8::apply(BinaryOp::Add, 127, 1), -128);
        assert_eq!(i32::apply(BinaryOp::Pow, 2, -1), 0);
        assert_eq!(i32::apply(BinaryOp::Pow, -1, -3), -1);
        assert_eq!(i32::apply(BinaryOp::Pow, -1, -2), 1);
        assert_eq!(u8::apply(BinaryOp::Pow, 3, 5), 243);
        assert_eq!(u8::apply(BinaryOp::Pow, 2, 9), 0);
        assert_eq!(u64::apply(BinaryOp::Sub, 0, 1), u64::MAX);
    }

    /// Element of a row-major tensor of `shape` at the output multi-index `idx` (numpy broadcast).
    fn naive_index(shape: &[u32], idx: &[usize]) -> usize {
        let pad = idx.len() - shape.len();
        shape.iter().enumerate().fold(0, |acc, (d, &n)| acc * n as usize + if n == 1 { 0 } else { idx[pad + d] })
    }

    #[test]
    fn row_plans_match_a_naive_broadcast() {
        let cases: &[(&[u32], &[u32])] = &[
            (&[2, 3, 4], &[4]),
            (&[2, 3, 4], &[3, 1]),
            (&[1, 12, 128, 128], &[1, 1, 1, 128]),
            (&[1, 12, 128, 128], &[1, 12, 128, 1]),
            (&[5, 1, 7], &[1, 6, 1]),
            (&[3, 1, 1, 4], &[1, 2, 5, 1]),
            (&[], &[2, 3]),
            (&[2, 3], &[]),
            (&[1], &[1]),
            (&[40000], &[1]),
            (&[1], &[40000]),
            (&[40000], &[40000]),
            (&[300, 200], &[300, 1]),
            (&[1, 200], &[300, 1]),
            (&[2, 1, 3, 1, 5], &[1, 4, 1, 6, 1]),
            (&[64, 1, 1], &[64, 1, 600]),
        ];
        for &(sa, sb) in cases {
            let out_shape = webnn_core::validate::broadcast_bidirectional(sa, sb).unwrap();
            let count = |s: &[u32]| s.iter().map(|&d| d as usize).product::<usize>();
            let a: Vec<f32> = (0..count(sa)).map(|i| (i % 251) as f32 * 0.5).collect();
            let b: Vec<f32> = (0..count(sb)).map(|i| (i % 127) as f32 * 3.0 + 1.0).collect();
            let n = count(&out_shape);
            let mut out = vec![0f32; n];
            let plan = RowPlan::new(&out_shape, [&broadcast_strides(sa, &out_shape), &broadcast_strides(sb, &out_shape)]);
            binary(BinaryOp::Sub, &a, &b, &mut out, &plan);
            let mut idx = vec![0usize; out_shape.len()];
            for (i, &got) in out.iter().enumerate() {
                let mut rest = i;
                for d in (0..out_shape.len()).rev() {
                    idx[d] = rest % out_shape[d] as usize;
                    rest /= out_shape[d] as usize;
                }
                let want = a[naive_index(sa, &idx)] - b[naive_index(sb, &idx)];
                assert_eq!(got, want, "{sa:?} - {sb:?} at {idx:?} ({plan:?})");
            }
        }
    }

    #[test]
    fn broadcast_matches_naive() {
        let a: Vec<f32> = (0..6).map(|x| x as f32).collect(); // [2,3]
        let b = [10.0f32, 20.0]; // [2,1]
        let out_shape = [2u32, 3];
        let mut out = [0.0f32; 6];
        let plan = RowPlan::new(&out_shape, [&broadcast_strides(&[2, 3], &out_shape), &broadcast_strides(&[2, 1], &out_shape)]);
        binary(BinaryOp::Add, &a, &b, &mut out, &plan);
        assert_eq!(out, [10.0, 11.0, 12.0, 23.0, 24.0, 25.0]);
    }
}

#[cfg(test)]
mod plan_tests {
    use crate::testing::*;
    use webnn_core::graph::Attrs;
    use webnn_core::{DataType, OpKind, OperandDescriptor};

    #[test]
    fn add_through_a_plan() {
        let a = OperandDescriptor::new(DataType::Int64, vec![2, 2]);
        let b = OperandDescriptor::new(DataType::Int64, vec![2]);
        let out = run_op(
            OpKind::Add,
            &[Some((a.clone(), bytes_of(&[1i64, 2, 3, 4]))), Some((b, bytes_of(&[10i64, 20])))],
            Attrs::None,
            &[a],
        );
        assert_eq!(from_bytes::<i64>(&out[0]), vec![11, 22, 13, 24]);
    }

    /// Integer pow reference: the exact power in i128, wrapped to the type by `as` (two's
    /// complement), with decisions.md D5 for negative exponents.
    fn int_pow_reference(base: i128, exponent: i128) -> i128 {
        if exponent < 0 {
            return match base {
                1 => 1,
                -1 => if exponent % 2 == 0 { 1 } else { -1 },
                _ => 0,
            };
        }
        (0..exponent).fold(1i128, |acc, _| acc * base)
    }

    macro_rules! pow_case {
        ($t:ty, $dt:expr, $bases:expr, $exps:expr) => {{
            let bases: Vec<$t> = $bases;
            let exps: Vec<$t> = $exps;
            // a: [bases, 1] against b: [exps] broadcasts to [bases, exps].
            let a = OperandDescriptor::new($dt, vec![bases.len() as u32, 1]);
            let b = OperandDescriptor::new($dt, vec![exps.len() as u32]);
            let out_desc = OperandDescriptor::new($dt, vec![bases.len() as u32, exps.len() as u32]);
            let out = run_op(OpKind::Pow, &[Some((a, bytes_of(&bases))), Some((b, bytes_of(&exps)))], Attrs::None, &[out_desc]);
            let got = from_bytes::<$t>(&out[0]);
            for (i, &x) in bases.iter().enumerate() {
                for (j, &e) in exps.iter().enumerate() {
                    let want = int_pow_reference(x as i128, e as i128) as $t;
                    assert_eq!(got[i * exps.len() + j], want, "pow({x}, {e}) in {}", stringify!($t));
                }
            }
        }};
    }

    #[test]
    fn pow_in_every_integer_data_type_through_a_plan() {
        use DataType::*;
        pow_case!(i8, Int8, vec![-3, -1, 0, 1, 2, 5], vec![-2, -1, 0, 1, 3, 4]);
        pow_case!(u8, Uint8, vec![0, 1, 2, 3, 7], vec![0, 1, 2, 5, 9]);
        pow_case!(i32, Int32, vec![-7, -1, 0, 1, 3, 10], vec![-3, -1, 0, 2, 9, 31]);
        pow_case!(u32, Uint32, vec![0, 1, 3, 10, 65535], vec![0, 1, 2, 7, 21]);
        pow_case!(i64, Int64, vec![-12, -1, 0, 1, 2, 9], vec![-4, -1, 0, 3, 17, 63]);
        pow_case!(u64, Uint64, vec![0, 1, 3, 12, 1 << 20], vec![0, 1, 5, 17, 40]);
    }

    #[test]
    fn pow_in_float16_through_a_plan() {
        use half::f16;
        let bases = [0.5f32, 1.5, 2.0, 3.0, 4.0, -2.0];
        let exps = [-1.0f32, 0.0, 0.5, 2.0, 3.0];
        let h = |v: &[f32]| v.iter().map(|&x| f16::from_f32(x)).collect::<Vec<_>>();
        let a = OperandDescriptor::new(DataType::Float16, vec![6, 1]);
        let b = OperandDescriptor::new(DataType::Float16, vec![5]);
        let out_desc = OperandDescriptor::new(DataType::Float16, vec![6, 5]);
        let out = run_op(OpKind::Pow, &[Some((a, bytes_of(&h(&bases)))), Some((b, bytes_of(&h(&exps))))], Attrs::None, &[out_desc]);
        let got = from_bytes::<f16>(&out[0]);
        for (i, &x) in bases.iter().enumerate() {
            for (j, &e) in exps.iter().enumerate() {
                // Reference in f64, rounded once to f16; every finite result here is exact in f16.
                let want = f16::from_f64((x as f64).powf(e as f64));
                let g = got[i * exps.len() + j];
                assert!(g == want || (g.is_nan() && want.is_nan()), "pow({x}, {e}): got {g}, want {want}");
            }
        }
    }
}

//! Element-wise binary arithmetic (§8.9.13): add, sub, mul, div, max, min, pow, with numpy
//! broadcasting. Integer div truncates toward zero and gives 0 on division by zero; integer
//! overflow wraps; integer pow with a negative exponent gives 0 except for bases ±1
//! (decisions.md D5). float16 is computed in f32 and rounded once.

use super::util::{broadcast_strides, for_each_strided};
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

struct BinaryKernel {
    op: BinaryOp,
    data_type: DataType,
    out_shape: Vec<u32>,
    a_strides: Vec<usize>,
    b_strides: Vec<usize>,
    same_shape: bool,
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
    Ok(Box::new(BinaryKernel {
        op: bop,
        data_type: out.data_type,
        out_shape: out.shape.clone(),
        a_strides: broadcast_strides(&a.shape, &out.shape),
        b_strides: broadcast_strides(&b.shape, &out.shape),
        same_shape: a.shape == out.shape && b.shape == out.shape,
    }))
}

/// Computes `out = op(a, b)` with broadcasting given by strides.
pub fn binary<T: Arith>(
    op: BinaryOp,
    a: &[T],
    b: &[T],
    out: &mut [T],
    out_shape: &[u32],
    a_strides: &[usize],
    b_strides: &[usize],
    same_shape: bool,
) {
    if same_shape {
        for ((o, &x), &y) in out.iter_mut().zip(a).zip(b) {
            *o = T::apply(op, x, y);
        }
        return;
    }
    for_each_strided(out_shape, [a_strides, b_strides], |i, [ia, ib]| out[i] = T::apply(op, a[ia], b[ib]));
}

impl Kernel for BinaryKernel {
    fn run(&self, inputs: &[Option<In<'_>>], outputs: &mut [Out<'_>]) {
        let (Some(a), Some(b)) = (inputs[0], inputs[1]) else { return };
        let out = &mut outputs[0];
        crate::with_type!(self.data_type, T => binary::<T>(
            self.op, a.slice(), b.slice(), out.slice_mut(), &self.out_shape, &self.a_strides, &self.b_strides, self.same_shape,
        ))
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

    #[test]
    fn broadcast_matches_naive() {
        let a: Vec<f32> = (0..6).map(|x| x as f32).collect(); // [2,3]
        let b = [10.0f32, 20.0]; // [2,1]
        let out_shape = [2u32, 3];
        let mut out = [0.0f32; 6];
        binary(BinaryOp::Add, &a, &b, &mut out, &out_shape, &broadcast_strides(&[2, 3], &out_shape), &broadcast_strides(&[2, 1], &out_shape), false);
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
}

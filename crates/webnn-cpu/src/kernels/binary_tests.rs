//! Tests of the binary kernels: integer semantics (decision D5), broadcast row plans against
//! a naive broadcast, and whole plans (`run_op`) per data type.

use super::*;
use crate::testing::*;
use webnn_core::graph::Attrs;
use webnn_core::{DataType, OpKind, OperandDescriptor};

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
    let plan =
        RowPlan::new(&out_shape, [&broadcast_strides(&[2, 3], &out_shape), &broadcast_strides(&[2, 1], &out_shape)]);
    binary(BinaryOp::Add, &a, &b, &mut out, &plan);
    assert_eq!(out, [10.0, 11.0, 12.0, 23.0, 24.0, 25.0]);
}

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
            -1 => {
                if exponent % 2 == 0 {
                    1
                } else {
                    -1
                }
            }
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
        let out =
            run_op(OpKind::Pow, &[Some((a, bytes_of(&bases))), Some((b, bytes_of(&exps)))], Attrs::None, &[out_desc]);
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
    let out = run_op(
        OpKind::Pow,
        &[Some((a, bytes_of(&h(&bases)))), Some((b, bytes_of(&h(&exps))))],
        Attrs::None,
        &[out_desc],
    );
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

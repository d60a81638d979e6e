//! Tests of the activation kernels against f64 references written from the spec formulas.

use super::*;
use crate::testing::{assert_close, decode, encode, round_to, run_unary};
use crate::testing::{bytes_of, from_bytes, run_op};
use webnn_core::testing::Rng;
use webnn_core::types::MLNumber;
use webnn_core::OperandDescriptor;

const FLOATS: [DataType; 2] = [DataType::Float32, DataType::Float16];
/// Every data type.
const ALL: [DataType; 8] = DataType::ALL;

/// (op, attrs, reference, ULP tolerance for float32)
#[allow(clippy::type_complexity)]
fn cases(dt: DataType) -> Vec<(OpKind, Attrs, Box<dyn Fn(f64) -> f64>, u64)> {
    let cast = |v: f64| MLNumber::Double(v).cast(dt).to_f64();
    let ab = |a: f64, b: f64| Attrs::AlphaBeta { alpha: cast(a), beta: cast(b) };
    let (a_elu, a_leaky, a_hs, b_hs, a_lin, b_lin) =
        (cast(0.7), cast(0.03), cast(0.25), cast(0.4), cast(-1.3), cast(0.6));
    vec![
        (OpKind::Elu, ab(0.7, 0.0), Box::new(move |x: f64| x.max(0.0) + a_elu * (x.min(0.0).exp() - 1.0)), 3),
        (OpKind::Gelu, Attrs::None, Box::new(|x: f64| 0.5 * x * libm::erfc(-x / 2f64.sqrt())), 6),
        (OpKind::HardSigmoid, ab(0.25, 0.4), Box::new(move |x: f64| (a_hs * x + b_hs).clamp(0.0, 1.0)), 1),
        (OpKind::HardSwish, Attrs::None, Box::new(|x: f64| x * (x + 3.0).clamp(0.0, 6.0) / 6.0), 1),
        (OpKind::LeakyRelu, ab(0.03, 0.0), Box::new(move |x: f64| x.max(0.0) + a_leaky * x.min(0.0)), 1),
        (OpKind::Linear, ab(-1.3, 0.6), Box::new(move |x: f64| a_lin * x + b_lin), 1),
        (OpKind::Relu, Attrs::None, Box::new(|x: f64| x.max(0.0)), 0),
        (OpKind::Sigmoid, Attrs::None, Box::new(|x: f64| 1.0 / ((-x).exp() + 1.0)), 3),
        (OpKind::Softplus, Attrs::None, Box::new(|x: f64| x.exp().ln_1p()), 3),
        (OpKind::Softsign, Attrs::None, Box::new(|x: f64| x / (1.0 + x.abs())), 2),
        (OpKind::Tanh, Attrs::None, Box::new(|x: f64| x.tanh()), 3),
    ]
}

#[test]
fn float_activations_match_the_spec_formulas() {
    let mut rng = Rng::new(5);
    for dt in FLOATS {
        let mut x = rng.vec(200, -12.0, 12.0);
        x.extend_from_slice(&[0.0, -0.0, 1e-4, -1e-4, 3.0, -3.0, 6.0, -6.0, 2.0, -2.0, 30.0, -30.0, 80.0, -80.0]);
        let x: Vec<f64> = x.iter().map(|&v| round_to(dt, v)).collect();
        for (kind, attrs, f, tol) in cases(dt) {
            for shape in [vec![x.len() as u32], vec![2, x.len() as u32 / 2]] {
                let got = run_unary(kind, dt, dt, &shape, &x, attrs.clone());
                let want: Vec<f64> = x.iter().map(|&v| f(v)).collect();
                assert_close(dt, &got, &want, tol + (dt == DataType::Float16) as u64, &format!("{kind} {dt:?}"));
            }
        }
    }
}

#[test]
fn float_activations_propagate_nan_and_handle_infinities() {
    for dt in FLOATS {
        for (kind, attrs, _, _) in cases(dt) {
            let got = run_unary(kind, dt, dt, &[1], &[f64::NAN], attrs.clone());
            assert!(got[0].is_nan(), "{kind} {dt:?}: NaN in, {} out", got[0]);
        }
        let inf = [f64::INFINITY, f64::NEG_INFINITY];
        let r = |k, a: Attrs| run_unary(k, dt, dt, &[2], &inf, a);
        assert_eq!(r(OpKind::Sigmoid, Attrs::None), [1.0, 0.0]);
        assert_eq!(r(OpKind::Tanh, Attrs::None), [1.0, -1.0]);
        assert_eq!(r(OpKind::Softsign, Attrs::None)[1], -1.0);
        assert_eq!(r(OpKind::Softplus, Attrs::None), [f64::INFINITY, 0.0]);
        assert_eq!(r(OpKind::Relu, Attrs::None), [f64::INFINITY, 0.0]);
        assert_eq!(r(OpKind::Elu, Attrs::AlphaBeta { alpha: 1.0, beta: 0.0 }), [f64::INFINITY, -1.0]);
        assert_eq!(r(OpKind::Gelu, Attrs::None), [f64::INFINITY, -0.0]);
        assert_eq!(r(OpKind::HardSwish, Attrs::None)[1], 0.0);
        // Large inputs: no overflow in softplus, sigmoid saturates.
        let big = run_unary(OpKind::Softplus, dt, dt, &[2], &[60000.0, -60000.0], Attrs::None);
        assert_eq!(big, [round_to(dt, 60000.0), 0.0]);
    }
}

#[test]
fn gelu_is_accurate_in_the_far_negative_tail() {
    // 1 + erf(x/√2) cancels catastrophically here; erfc does not.
    let x: Vec<f64> = (0..40).map(|i| -3.0 - i as f64 * 0.2).collect();
    let x: Vec<f64> = x.iter().map(|&v| round_to(DataType::Float32, v)).collect();
    let got = run_unary(OpKind::Gelu, DataType::Float32, DataType::Float32, &[40], &x, Attrs::None);
    let want: Vec<f64> = x.iter().map(|&v| 0.5 * v * libm::erfc(-v / 2f64.sqrt())).collect();
    assert_close(DataType::Float32, &got, &want, 2, "gelu tail");
}

#[test]
fn relu_on_signed_integers() {
    for dt in [DataType::Int8, DataType::Int32, DataType::Int64] {
        let x = [-128.0, -1.0, 0.0, 1.0, 127.0];
        assert_eq!(run_unary(OpKind::Relu, dt, dt, &[5], &x, Attrs::None), [0.0, 0.0, 0.0, 1.0, 127.0], "{dt:?}");
    }
}

#[test]
fn clamp_every_type_with_cast_bounds() {
    for dt in ALL {
        let x: Vec<f64> = if dt.is_signed_int() || dt.is_float() {
            vec![-100.0, -3.0, -1.0, 0.0, 2.0, 5.0, 100.0]
        } else {
            vec![0.0, 1.0, 2.0, 3.0, 5.0, 6.0, 100.0]
        };
        for (lo, hi) in [
            (-2.0, 5.0),
            (2.0, 2.0),
            (f64::NEG_INFINITY, 3.0),
            (1.0, f64::INFINITY),
            (f64::NEG_INFINITY, f64::INFINITY),
        ] {
            let attrs = Attrs::Clamp { min: MLNumber::Double(lo).cast(dt), max: MLNumber::Double(hi).cast(dt) };
            let got = run_unary(OpKind::Clamp, dt, dt, &[7], &x, attrs);
            let (l, h) = (MLNumber::Double(lo).cast(dt).to_f64(), MLNumber::Double(hi).cast(dt).to_f64());
            let want: Vec<f64> = x.iter().map(|&v| v.max(l).min(h)).collect();
            assert_eq!(got, want, "{dt:?} [{lo}, {hi}]");
        }
    }
    // 64-bit bounds beyond f64 precision, exactly.
    let d = OperandDescriptor::new(DataType::Uint64, vec![3]);
    let out = run_op(
        OpKind::Clamp,
        &[Some((d.clone(), bytes_of(&[u64::MAX, 5, u64::MAX - 3])))],
        Attrs::Clamp {
            min: MLNumber::BigInt(6).cast(DataType::Uint64),
            max: MLNumber::BigInt(u64::MAX as i128 - 2).cast(DataType::Uint64),
        },
        &[d],
    );
    assert_eq!(from_bytes::<u64>(&out[0]), [u64::MAX - 2, 6, u64::MAX - 3]);
    // NaN passes through; −0 stays.
    for dt in FLOATS {
        let attrs = Attrs::Clamp { min: MLNumber::Double(-1.0).cast(dt), max: MLNumber::Double(1.0).cast(dt) };
        let got = run_unary(OpKind::Clamp, dt, dt, &[3], &[f64::NAN, -0.0, f64::INFINITY], attrs);
        assert!(got[0].is_nan());
        assert!(got[1] == 0.0 && got[1].is_sign_negative());
        assert_eq!(got[2], 1.0);
    }
}

fn count(shape: &[u32]) -> usize {
    shape.iter().map(|&d| d as usize).product()
}

/// Flat index in `shape` of the output multi-index `idx` (right-aligned broadcast).
fn source_index(shape: &[u32], out_shape: &[u32], mut i: usize) -> usize {
    let mut idx = vec![0; out_shape.len()];
    for d in (0..out_shape.len()).rev() {
        idx[d] = i % out_shape[d] as usize;
        i /= out_shape[d] as usize;
    }
    let pad = out_shape.len() - shape.len();
    shape.iter().enumerate().fold(0, |f, (d, &n)| f * n as usize + if n == 1 { 0 } else { idx[pad + d] })
}

#[test]
fn prelu_broadcasts_both_ways_for_every_allowed_type() {
    let shapes: &[(&[u32], &[u32], &[u32])] = &[
        (&[6], &[6], &[6]),
        (&[2, 3], &[3], &[2, 3]),
        (&[2, 3], &[], &[2, 3]),
        (&[3], &[2, 1], &[2, 3]),
        (&[1, 4, 1], &[3, 1, 5], &[3, 4, 5]),
        (&[], &[], &[]),
    ];
    let mut rng = Rng::new(9);
    for dt in [DataType::Float32, DataType::Float16, DataType::Int64, DataType::Int32, DataType::Int8] {
        for &(sx, ss, so) in shapes {
            let x: Vec<f64> = (0..count(sx)).map(|_| rng.uniform(-9.0, 9.0).round()).collect();
            let s: Vec<f64> = (0..count(ss))
                .map(|_| rng.uniform(-4.0, 4.0).round() * if dt.is_float() { 0.37 } else { 1.0 })
                .collect();
            let s: Vec<f64> = s.iter().map(|&v| round_to(dt, v)).collect();
            let out = run_op(
                OpKind::Prelu,
                &[
                    Some((OperandDescriptor::new(dt, sx.to_vec()), encode(dt, &x))),
                    Some((OperandDescriptor::new(dt, ss.to_vec()), encode(dt, &s))),
                ],
                Attrs::None,
                &[OperandDescriptor::new(dt, so.to_vec())],
            );
            let want: Vec<f64> = (0..count(so))
                .map(|i| {
                    let (xv, sv) = (x[source_index(sx, so, i)], s[source_index(ss, so, i)]);
                    xv.max(0.0) + sv * xv.min(0.0)
                })
                .collect();
            assert_close(dt, &decode(dt, &out[0]), &want, 0, &format!("prelu {dt:?} {sx:?} {ss:?}"));
        }
    }
    // int8 products wrap.
    let d = OperandDescriptor::new(DataType::Int8, vec![2]);
    let out = run_op(
        OpKind::Prelu,
        &[Some((d.clone(), bytes_of(&[-100i8, -2]))), Some((d.clone(), bytes_of(&[3i8, 100])))],
        Attrs::None,
        &[d],
    );
    assert_eq!(from_bytes::<i8>(&out[0]), [(-300i32) as i8, (-200i32) as i8]);
}

/// Naive softmax along `axis` in f64 (max-subtracted).
fn softmax_ref(x: &[f64], shape: &[u32], axis: usize) -> Vec<f64> {
    let outer: usize = shape[..axis].iter().map(|&d| d as usize).product();
    let n = shape[axis] as usize;
    let inner: usize = shape[axis + 1..].iter().map(|&d| d as usize).product();
    let mut y = vec![0.0; x.len()];
    for o in 0..outer {
        for c in 0..inner {
            let at = |r: usize| o * n * inner + r * inner + c;
            let m = (0..n).map(|r| x[at(r)]).fold(f64::NEG_INFINITY, f64::max);
            let s: f64 = (0..n).map(|r| (x[at(r)] - m).exp()).sum();
            for r in 0..n {
                y[at(r)] = (x[at(r)] - m).exp() / s;
            }
        }
    }
    y
}

#[test]
fn softmax_every_axis_and_layout() {
    let mut rng = Rng::new(21);
    let shapes: &[&[u32]] =
        &[&[5], &[1], &[3, 4], &[2, 1, 7], &[2, 3, 70], &[3, 100, 2], &[1, 130, 3, 1], &[4, 2, 3, 5]];
    for dt in FLOATS {
        for &shape in shapes {
            for axis in 0..shape.len() {
                let x: Vec<f64> = rng.vec(count(shape), -30.0, 30.0).iter().map(|&v| round_to(dt, v)).collect();
                let got = run_unary(OpKind::Softmax, dt, dt, shape, &x, Attrs::Axis { axis: axis as u32 });
                let want = softmax_ref(&x, shape, axis);
                let n = shape[axis] as u64;
                let tol = if dt == DataType::Float16 { 2 } else { 3 + n / 8 };
                assert_close(dt, &got, &want, tol, &format!("softmax {dt:?} {shape:?} axis {axis}"));
            }
        }
    }
}

#[test]
fn softmax_is_stable_for_large_values_and_propagates_nan() {
    let x = [1000.0, 1001.0, 999.0, -1000.0];
    let got = run_unary(OpKind::Softmax, DataType::Float32, DataType::Float32, &[4], &x, Attrs::Axis { axis: 0 });
    assert_close(DataType::Float32, &got, &softmax_ref(&x, &[4], 0), 2, "large");
    let got = run_unary(
        OpKind::Softmax,
        DataType::Float32,
        DataType::Float32,
        &[2, 2],
        &[1.0, f64::NAN, 1.0, 2.0],
        Attrs::Axis { axis: 1 },
    );
    assert!(got[0].is_nan() && got[1].is_nan());
    assert_close(DataType::Float32, &got[2..], &softmax_ref(&[1.0, 2.0], &[2], 0), 1, "row 2");
    // Rows of 20: a NaN inside the 8-wide chunks, and masked (-inf) logits.
    let mut x: Vec<f64> = (0..40).map(|i| (i % 7) as f64 - 3.0).collect();
    x[10] = f64::NAN;
    for i in [21, 22, 30, 39] {
        x[i] = f64::NEG_INFINITY;
    }
    let got = run_unary(OpKind::Softmax, DataType::Float32, DataType::Float32, &[2, 20], &x, Attrs::Axis { axis: 1 });
    assert!(got[..20].iter().all(|v| v.is_nan()), "{got:?}");
    assert_close(DataType::Float32, &got[20..], &softmax_ref(&x[20..], &[20], 0), 2, "masked row");
    assert_eq!(got[21], 0.0);
}

#[test]
fn large_softmax_and_activation_use_the_parallel_path() {
    let shape = [600u32, 130];
    let mut rng = Rng::new(2);
    let x: Vec<f64> = rng.vec(count(&shape), -5.0, 5.0).iter().map(|&v| round_to(DataType::Float32, v)).collect();
    for axis in 0..2 {
        let got = run_unary(OpKind::Softmax, DataType::Float32, DataType::Float32, &shape, &x, Attrs::Axis { axis });
        assert_close(DataType::Float32, &got, &softmax_ref(&x, &shape, axis as usize), 20, "big softmax");
    }
    let got = run_unary(OpKind::Sigmoid, DataType::Float32, DataType::Float32, &shape, &x, Attrs::None);
    let want: Vec<f64> = x.iter().map(|&v| 1.0 / (1.0 + (-v).exp())).collect();
    assert_close(DataType::Float32, &got, &want, 3, "big sigmoid");
}

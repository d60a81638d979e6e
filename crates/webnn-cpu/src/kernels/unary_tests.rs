//! Tests of the unary kernels against straightforward f64 / i128 references, through whole
//! plans (`run_op`) for every allowed data type.

use super::*;
use crate::testing::{assert_close, bytes_of, from_bytes, round_to, run_op, run_unary};
use webnn_core::graph::Attrs;
use webnn_core::testing::Rng;
use webnn_core::OperandDescriptor;

const FLOATS: [DataType; 2] = [DataType::Float32, DataType::Float16];
const SIGNED: [DataType; 5] = [DataType::Float32, DataType::Float16, DataType::Int64, DataType::Int32, DataType::Int8];

/// Reference functions (f64) and the ULP tolerance of each float op.
fn reference(op: UnaryOp) -> (fn(f64) -> f64, u64) {
    match op {
        UnaryOp::Abs => (f64::abs, 0),
        UnaryOp::Ceil => (f64::ceil, 0),
        UnaryOp::Cos => (f64::cos, 2),
        UnaryOp::Erf => (libm::erf, 3),
        UnaryOp::Exp => (f64::exp, 2),
        UnaryOp::Floor => (f64::floor, 0),
        UnaryOp::Identity => (|x| x, 0),
        UnaryOp::Log => (f64::ln, 2),
        UnaryOp::Neg => (|x| -x, 0),
        UnaryOp::Reciprocal => (|x| 1.0 / x, 1),
        UnaryOp::RoundEven => (f64::round_ties_even, 0),
        UnaryOp::Sin => (f64::sin, 2),
        // signum, but 0 for ±0 (and NaN).
        UnaryOp::Sign => (|x| if x == 0.0 || x.is_nan() { 0.0 } else { x.signum() }, 0),
        UnaryOp::Sqrt => (f64::sqrt, 1),
        UnaryOp::Tan => (f64::tan, 3),
    }
}

/// The 15 element-wise unary ops (the spec's `unary` section).
fn all_ops() -> impl Iterator<Item = OpKind> {
    OpKind::in_spec_section("unary")
}

#[test]
fn float_ops_match_f64_reference_for_both_float_types() {
    let mut rng = Rng::new(1);
    assert_eq!(all_ops().count(), 15);
    for kind in all_ops() {
        let op = UnaryOp::of(kind).unwrap();
        let (f, tol) = reference(op);
        for dt in FLOATS {
            // Domain: positive for log/sqrt (plus a few out-of-domain values), moderate for exp.
            let (lo, hi) = match op {
                UnaryOp::Log | UnaryOp::Sqrt => (0.001, 100.0),
                UnaryOp::Exp => (-10.0, 10.0),
                UnaryOp::Tan => (-1.4, 1.4),
                _ => (-20.0, 20.0),
            };
            let mut x = rng.vec(97, lo, hi);
            x.extend_from_slice(&[
                0.0,
                -0.0,
                1.0,
                -1.0,
                0.5,
                -0.5,
                1.5,
                2.5,
                -2.5,
                f64::INFINITY,
                f64::NEG_INFINITY,
                f64::NAN,
            ]);
            // Inputs are what the operand holds: round them first.
            let x: Vec<f64> = x.iter().map(|&v| round_to(dt, v)).collect();
            for shape in [vec![x.len() as u32], vec![1, x.len() as u32, 1]] {
                let got = run_unary(kind, dt, dt, &shape, &x, Attrs::None);
                // float16 is computed in f32 and rounded once: allow one extra ULP there.
                let want: Vec<f64> = x.iter().map(|&v| f(v)).collect();
                assert_close(dt, &got, &want, tol + (dt == DataType::Float16) as u64, &format!("{kind} {dt:?}"));
            }
        }
    }
}

#[test]
fn special_values() {
    for dt in FLOATS {
        let r = |k, v: &[f64]| run_unary(k, dt, dt, &[v.len() as u32], v, Attrs::None);
        // roundEven: ties to even, both signs.
        assert_eq!(
            r(OpKind::RoundEven, &[0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 3.25]),
            [0.0, 2.0, 2.0, -0.0, -2.0, -2.0, 3.0]
        );
        // sign: NaN → 0, ±0 → 0, ±∞ → ±1.
        assert_eq!(
            r(OpKind::Sign, &[f64::NAN, 0.0, -0.0, f64::INFINITY, f64::NEG_INFINITY]),
            [0.0, 0.0, 0.0, 1.0, -1.0]
        );
        // reciprocal of ±0 is ±∞; log(0) = −∞; log(−1) and sqrt(−1) are NaN.
        assert_eq!(r(OpKind::Reciprocal, &[0.0, -0.0]), [f64::INFINITY, f64::NEG_INFINITY]);
        assert_eq!(r(OpKind::Log, &[0.0])[0], f64::NEG_INFINITY);
        assert!(r(OpKind::Log, &[-1.0])[0].is_nan());
        assert!(r(OpKind::Sqrt, &[-1.0])[0].is_nan());
        // neg keeps the sign of zero; abs clears it.
        assert!(r(OpKind::Neg, &[0.0])[0].is_sign_negative());
        assert!(r(OpKind::Abs, &[-0.0])[0].is_sign_positive());
        assert_eq!(r(OpKind::Exp, &[f64::NEG_INFINITY, 0.0]), [0.0, 1.0]);
    }
}

#[test]
fn integer_abs_neg_sign_wrap() {
    for dt in [DataType::Int8, DataType::Int32, DataType::Int64] {
        let (min, max) = match dt {
            DataType::Int8 => (i8::MIN as f64, i8::MAX as f64),
            DataType::Int32 => (i32::MIN as f64, i32::MAX as f64),
            _ => (-9.0e18, 9.0e18),
        };
        let x = [min, -5.0, -1.0, 0.0, 1.0, 7.0, max];
        let got = |k| run_unary(k, dt, dt, &[7], &x, Attrs::None);
        // abs(MIN) wraps to MIN (only for the true minimum, int64 uses a non-minimal value).
        let abs_min = if dt == DataType::Int64 { -min } else { min };
        assert_eq!(got(OpKind::Abs), [abs_min, 5.0, 1.0, 0.0, 1.0, 7.0, max], "{dt:?}");
        let neg_min = if dt == DataType::Int64 { -min } else { min };
        assert_eq!(got(OpKind::Neg), [neg_min, 5.0, 1.0, 0.0, -1.0, -7.0, -max], "{dt:?}");
        assert_eq!(got(OpKind::Sign), [-1.0, -1.0, -1.0, 0.0, 1.0, 1.0, 1.0], "{dt:?}");
    }
    // int64 extremes exactly.
    let x = [i64::MIN, i64::MAX, -3];
    let d = OperandDescriptor::new(DataType::Int64, vec![3]);
    let run =
        |k| from_bytes::<i64>(&run_op(k, &[Some((d.clone(), bytes_of(&x)))], Attrs::None, std::slice::from_ref(&d))[0]);
    assert_eq!(run(OpKind::Abs), [i64::MIN, i64::MAX, 3]);
    assert_eq!(run(OpKind::Neg), [i64::MIN, -i64::MAX, 3]);
    assert_eq!(run(OpKind::Sign), [-1, 1, -1]);
}

#[test]
fn signed_ops_accept_every_allowed_type() {
    for dt in SIGNED {
        for kind in [OpKind::Abs, OpKind::Neg, OpKind::Sign] {
            let x = [-3.0, 0.0, 2.0, -1.0, 5.0];
            let got = run_unary(kind, dt, dt, &[5, 1], &x, Attrs::None);
            let want: Vec<f64> = match kind {
                OpKind::Abs => vec![3.0, 0.0, 2.0, 1.0, 5.0],
                OpKind::Neg => vec![3.0, 0.0, -2.0, 1.0, -5.0],
                _ => vec![-1.0, 0.0, 1.0, -1.0, 1.0],
            };
            assert_eq!(got, want, "{kind} {dt:?}");
        }
    }
}

#[test]
fn identity_copies_every_type_bit_exactly() {
    use DataType::*;
    for dt in [Float32, Float16, Int32, Uint32, Int64, Uint64, Int8, Uint8] {
        let n = 13 * dt.byte_size();
        let bytes: Vec<u8> = (0..n as u32).map(|i| (i * 37 + 11) as u8).collect();
        let d = OperandDescriptor::new(dt, vec![13]);
        let out = run_op(OpKind::Identity, &[Some((d.clone(), bytes.clone()))], Attrs::None, &[d]);
        assert_eq!(out[0], bytes, "{dt:?}");
    }
    // Scalars (rank 0).
    let d = OperandDescriptor::new(Float32, vec![]);
    let out = run_op(OpKind::Identity, &[Some((d.clone(), bytes_of(&[f32::NAN])))], Attrs::None, &[d]);
    assert!(from_bytes::<f32>(&out[0])[0].is_nan());
}

#[test]
fn large_inputs_use_the_parallel_path() {
    let n = 3 * CHEAP_CHUNK + 17;
    let x: Vec<f64> = (0..n).map(|i| (i as f64 * 0.37).sin() * 10.0).collect();
    for (kind, f) in [(OpKind::Exp, f64::exp as fn(f64) -> f64), (OpKind::Abs, f64::abs), (OpKind::Floor, f64::floor)] {
        let x32: Vec<f64> = x.iter().map(|&v| round_to(DataType::Float32, v)).collect();
        let got = run_unary(kind, DataType::Float32, DataType::Float32, &[n as u32], &x32, Attrs::None);
        let want: Vec<f64> = x32.iter().map(|&v| f(v)).collect();
        assert_close(DataType::Float32, &got, &want, 2, &format!("{kind}"));
    }
    let xi: Vec<f64> = (0..n).map(|i| (i as f64) - (n / 2) as f64).collect();
    let got = run_unary(OpKind::Neg, DataType::Int32, DataType::Int32, &[n as u32], &xi, Attrs::None);
    assert!(got.iter().zip(&xi).all(|(g, x)| *g == -x));
}

#[test]
fn lowering_rejects_integer_transcendentals() {
    let inp = OperandDescriptor::new(DataType::Int32, vec![2]);
    let mut graph = webnn_core::Graph::default();
    graph.operands.push(webnn_core::graph::OperandNode {
        descriptor: inp.clone(),
        source: webnn_core::graph::OperandSource::Input("x".into()),
    });
    graph.operands.push(webnn_core::graph::OperandNode {
        descriptor: inp,
        source: webnn_core::graph::OperandSource::Operation { op: 0, output: 0 },
    });
    let op = Operation {
        kind: OpKind::Exp,
        inputs: vec![Some(webnn_core::OperandId(0))],
        outputs: vec![webnn_core::OperandId(1)],
        attrs: Attrs::None,
        label: String::new(),
    };
    assert!(lower(&op, &graph).is_err());
    let op = Operation { kind: OpKind::Abs, ..op };
    assert!(lower(&op, &graph).is_ok());
}

#[cfg(target_arch = "x86_64")]
#[test]
fn simd_loops_match_the_portable_ones_bit_for_bit() {
    use crate::kernels::fast_math::*;
    if !has_avx2() {
        return;
    }
    let avx512 = has_avx512();
    // A sweep over many f32 bit patterns (both signs, all exponents) plus odd lengths for tails.
    let x: Vec<f32> = (0..200_003u32).map(|i| f32::from_bits(i.wrapping_mul(21_473))).collect();
    // The function is wrapped in an #[inline(always)] closure, as the kernels do, so that each
    // loop inlines (and vectorizes) it.
    fn check<F: Fn(f32) -> f32>(name: &str, x: &[f32], avx512: bool, f: F) {
        for len in [x.len(), 1, 7, 8, 9, 15, 16, 17, 33] {
            let mut a = vec![0f32; len];
            let mut b = vec![0f32; len];
            let mut c = vec![0f32; len];
            map_portable(&x[..len], &mut a, &f);
            // SAFETY: the caller checked has_avx2().
            unsafe { map_avx2(&x[..len], &mut b, &f) };
            if avx512 {
                // SAFETY: has_avx512() returned true.
                unsafe { map_avx512(&x[..len], &mut c, &f) };
            } else {
                c.copy_from_slice(&a);
            }
            // NaN payloads may differ (a signaling NaN may be quieted or not).
            let same = |p: f32, q: f32| p.to_bits() == q.to_bits() || (p.is_nan() && q.is_nan());
            for i in 0..len {
                assert!(same(a[i], b[i]), "avx2 {name}({:e}): {:e} vs {:e}", x[i], a[i], b[i]);
                assert!(same(a[i], c[i]), "avx512 {name}({:e}): {:e} vs {:e}", x[i], a[i], c[i]);
            }
        }
    }
    macro_rules! same {
        ($f:expr) => {
            check(
                stringify!($f),
                &x,
                avx512,
                #[inline(always)]
                |v: f32| ($f)(v),
            )
        };
    }
    same!(exp_f32);
    same!(expm1_f32);
    same!(tanh_f32);
    same!(sigmoid_f32);
    same!(erf_f32);
    same!(gelu_f32);
    same!(sign_f32);
    same!(f32::round_ties_even);
    same!(|v: f32| crate::kernels::activation::elu(v, 0.5));
    same!(crate::kernels::activation::softplus);
    let xi: Vec<i32> = (0..1001).map(|i| i * 7919 - 4_000_000).collect();
    let (mut a, mut b) = (vec![0i32; 1001], vec![0i32; 1001]);
    map_portable(&xi, &mut a, &|v: i32| v.wrapping_abs());
    // SAFETY: has_avx2() returned true above.
    unsafe { map_avx2(&xi, &mut b, &|v: i32| v.wrapping_abs()) };
    assert_eq!(a, b);
    if avx512 {
        // SAFETY: has_avx512() returned true.
        unsafe { map_avx512(&xi, &mut b, &|v: i32| v.wrapping_abs()) };
        assert_eq!(a, b);
    }
}

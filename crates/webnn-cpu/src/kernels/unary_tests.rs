//! Tests of the unary kernels against straightforward f64 / i128 references, through whole
//! plans (`run_op`) for every allowed data type. Also the small helpers shared by the other
//! kernel test files of this family.

use super::*;
use crate::testing::{bytes_of, from_bytes, run_op};
use webnn_core::graph::Attrs;
use webnn_core::OperandDescriptor;

/// Deterministic pseudo-random numbers for tests (xorshift64*).
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// Uniform in [lo, hi).
    pub(crate) fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * ((self.next_u64() >> 11) as f64 / (1u64 << 53) as f64)
    }
    /// `n` values in [lo, hi).
    pub(crate) fn vec(&mut self, n: usize, lo: f64, hi: f64) -> Vec<f64> {
        (0..n).map(|_| self.uniform(lo, hi)).collect()
    }
}

/// Encodes f64 values as the little-endian bytes of `dt` (floats rounded to nearest, integers
/// converted with `as` from their i128 value).
pub(crate) fn encode(dt: DataType, v: &[f64]) -> Vec<u8> {
    let mut out = Vec::new();
    for &x in v {
        match dt {
            DataType::Float32 => out.extend_from_slice(&(x as f32).to_le_bytes()),
            DataType::Float16 => out.extend_from_slice(&f16::from_f64(x).to_bits().to_le_bytes()),
            DataType::Int32 => out.extend_from_slice(&(x as i128 as i32).to_le_bytes()),
            DataType::Uint32 => out.extend_from_slice(&(x as i128 as u32).to_le_bytes()),
            DataType::Int64 => out.extend_from_slice(&(x as i128 as i64).to_le_bytes()),
            DataType::Uint64 => out.extend_from_slice(&(x as i128 as u64).to_le_bytes()),
            DataType::Int8 => out.extend_from_slice(&(x as i128 as i8).to_le_bytes()),
            DataType::Uint8 => out.extend_from_slice(&(x as i128 as u8).to_le_bytes()),
        }
    }
    out
}

/// Decodes bytes of `dt` to f64 values.
pub(crate) fn decode(dt: DataType, b: &[u8]) -> Vec<f64> {
    match dt {
        DataType::Float32 => from_bytes::<f32>(b).into_iter().map(|x| x as f64).collect(),
        DataType::Float16 => from_bytes::<u16>(b).into_iter().map(|x| f16::from_bits(x).to_f64()).collect(),
        DataType::Int32 => from_bytes::<i32>(b).into_iter().map(|x| x as f64).collect(),
        DataType::Uint32 => from_bytes::<u32>(b).into_iter().map(|x| x as f64).collect(),
        DataType::Int64 => from_bytes::<i64>(b).into_iter().map(|x| x as f64).collect(),
        DataType::Uint64 => from_bytes::<u64>(b).into_iter().map(|x| x as f64).collect(),
        DataType::Int8 => from_bytes::<i8>(b).into_iter().map(|x| x as f64).collect(),
        DataType::Uint8 => b.iter().map(|&x| x as f64).collect(),
    }
}

/// Rounds an f64 to the values representable in `dt` (floats) — what a reference result
/// should be compared as.
pub(crate) fn round_to(dt: DataType, x: f64) -> f64 {
    match dt {
        DataType::Float32 => x as f32 as f64,
        DataType::Float16 => f16::from_f64(x).to_f64(),
        _ => x,
    }
}

/// ULP distance between two values of float type `dt` (sign-magnitude, through zero); NaN vs
/// NaN is 0, NaN vs a number is infinite.
pub(crate) fn ulps(dt: DataType, a: f64, b: f64) -> u64 {
    if a.is_nan() && b.is_nan() {
        return 0;
    }
    if a.is_nan() || b.is_nan() {
        return u64::MAX;
    }
    if a == b {
        return 0;
    }
    let key = |x: f64| -> i64 {
        let bits = match dt {
            DataType::Float16 => f16::from_f64(x.abs()).to_bits() as i64,
            _ => (x.abs() as f32).to_bits() as i64,
        };
        if x < 0.0 {
            -bits
        } else {
            bits
        }
    };
    (key(a) - key(b)).unsigned_abs()
}

/// Asserts that `got` matches `want` (reference values, rounded to `dt` here) within `tol`
/// ULP for floats, exactly for integers.
#[track_caller]
pub(crate) fn assert_close(dt: DataType, got: &[f64], want: &[f64], tol: u64, what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        if dt.is_float() {
            let w = round_to(dt, w);
            let d = ulps(dt, g, w);
            assert!(d <= tol, "{what}: [{i}] got {g:e}, want {w:e} ({d} ULP > {tol})");
        } else {
            assert_eq!(g, w, "{what}: [{i}]");
        }
    }
}

/// Runs a one-input op through a plan on f64 `values` encoded as `dt`; returns the decoded
/// output (output type `out_dt`, same shape).
pub(crate) fn run_unary(kind: OpKind, dt: DataType, out_dt: DataType, shape: &[u32], values: &[f64], attrs: Attrs) -> Vec<f64> {
    let inp = OperandDescriptor::new(dt, shape.to_vec());
    let out = OperandDescriptor::new(out_dt, shape.to_vec());
    let r = run_op(kind, &[Some((inp, encode(dt, values)))], attrs, &[out]);
    decode(out_dt, &r[0])
}

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
        UnaryOp::Sign => (|x| if x > 0.0 { 1.0 } else if x < 0.0 { -1.0 } else { 0.0 }, 0),
        UnaryOp::Sqrt => (f64::sqrt, 1),
        UnaryOp::Tan => (f64::tan, 3),
    }
}

const ALL_OPS: [OpKind; 15] = [
    OpKind::Abs,
    OpKind::Ceil,
    OpKind::Cos,
    OpKind::Erf,
    OpKind::Exp,
    OpKind::Floor,
    OpKind::Identity,
    OpKind::Log,
    OpKind::Neg,
    OpKind::Reciprocal,
    OpKind::RoundEven,
    OpKind::Sin,
    OpKind::Sign,
    OpKind::Sqrt,
    OpKind::Tan,
];

#[test]
fn float_ops_match_f64_reference_for_both_float_types() {
    let mut rng = Rng::new(1);
    for kind in ALL_OPS {
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
            x.extend_from_slice(&[0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, 2.5, -2.5, f64::INFINITY, f64::NEG_INFINITY, f64::NAN]);
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
        assert_eq!(r(OpKind::RoundEven, &[0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 3.25]), [0.0, 2.0, 2.0, -0.0, -2.0, -2.0, 3.0]);
        // sign: NaN → 0, ±0 → 0, ±∞ → ±1.
        assert_eq!(r(OpKind::Sign, &[f64::NAN, 0.0, -0.0, f64::INFINITY, f64::NEG_INFINITY]), [0.0, 0.0, 0.0, 1.0, -1.0]);
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
    let run = |k| from_bytes::<i64>(&run_op(k, &[Some((d.clone(), bytes_of(&x)))], Attrs::None, std::slice::from_ref(&d))[0]);
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
    graph.operands.push(webnn_core::graph::OperandNode { descriptor: inp.clone(), source: webnn_core::graph::OperandSource::Input("x".into()) });
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
            check(stringify!($f), &x, avx512, #[inline(always)] |v: f32| ($f)(v))
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

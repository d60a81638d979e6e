//! The AVX-512F forms of the vector activations and the softmax row (the method and the
//! measured errors are in the parent module's doc).

use super::super::fast_math::{LN2_HI, LN2_LO, MAGIC, UNDERFLOW};
use super::{Bias, VectorActivation, EXP_C, LOG2E};
use std::arch::x86_64::*;

/// eᵗ for t ≤ 0 (−∞ gives +0; NaN propagates).
///
/// t is clamped at −104 (e⁻¹⁰⁴ rounds to +0: every clamped lane gives +0 without scaling
/// further down through the subnormals, a microcode assist per element on Intel CPUs; see
/// `UNDERFLOW`), so k stays within [−150, 0]. eʳ is the degree-6 polynomial of the module
/// doc (relative error 0.05·2⁻²⁴ on |r| ≤ ln2/2).
#[inline]
#[target_feature(enable = "avx512f")]
fn exp_nonpositive(t: __m512) -> __m512 {
    let c = |v: f32| _mm512_set1_ps(v);
    // vmaxps returns its second operand where either is NaN: a NaN t stays NaN.
    let t = _mm512_max_ps(c(UNDERFLOW), t);
    let kf = _mm512_sub_ps(_mm512_fmadd_ps(t, c(LOG2E), c(MAGIC)), c(MAGIC));
    // r = t − k·ln2 (k·LN2_HI exact).
    let r = _mm512_fnmadd_ps(kf, c(LN2_HI), t);
    let r = _mm512_fnmadd_ps(kf, c(LN2_LO), r);
    // eʳ ≈ 1 + r + r²·(C2 + C3·r + … + C6·r⁴) (Horner).
    let p = _mm512_fmadd_ps(c(EXP_C[4]), r, c(EXP_C[3]));
    let p = _mm512_fmadd_ps(p, r, c(EXP_C[2]));
    let p = _mm512_fmadd_ps(p, r, c(EXP_C[1]));
    let p = _mm512_fmadd_ps(p, r, c(EXP_C[0]));
    let p = _mm512_fmadd_ps(p, r, c(1.0));
    let p = _mm512_fmadd_ps(p, r, c(1.0));
    // p·2ᵏ, rounded once (subnormal results included).
    _mm512_scalef_ps(p, kf)
}

/// e⁻ᵃ for a ≥ 0 (+∞ gives +0; NaN propagates).
#[inline]
#[target_feature(enable = "avx512f")]
fn exp_neg(a: __m512) -> __m512 {
    exp_nonpositive(_mm512_sub_ps(_mm512_setzero_ps(), a))
}

/// sigmoid of 16 lanes; NaN propagates through every step (the sign test is false).
#[inline]
#[target_feature(enable = "avx512f")]
fn sigmoid(x: __m512) -> __m512 {
    // e = e^−|x|: −|x| as min(−x, x), which is x itself when x is a NaN (`vminps` gives its
    // second operand then), so sigmoid(NaN) is that NaN, quieted, and x·sigmoid(x) has the
    // same bits in either operand order. Setting the sign bit instead flipped a NaN's sign:
    // the product then took the sign of whichever operand the compiler put first (the
    // swish-equals-two-steps test failed on one build, passed on the next).
    let neg = _mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(x), _mm512_set1_epi32(i32::MIN)));
    let neg_abs = _mm512_min_ps(neg, x);
    let e = exp_nonpositive(neg_abs);
    let d = _mm512_add_ps(_mm512_set1_ps(1.0), e);
    // 1/d: 14-bit estimate, one Newton step y·(2 − d·y).
    let y = _mm512_rcp14_ps(d);
    let y = _mm512_mul_ps(y, _mm512_fnmadd_ps(d, y, _mm512_set1_ps(2.0)));
    let negative = _mm512_cmp_ps_mask::<_CMP_LT_OQ>(x, _mm512_setzero_ps());
    _mm512_mask_mul_ps(y, negative, e, y)
}

/// tanh of 16 lanes (the method in the module doc).
#[inline]
#[target_feature(enable = "avx512f")]
fn tanh(x: __m512) -> __m512 {
    let c = |v: f32| _mm512_set1_ps(v);
    let a = _mm512_min_ps(_mm512_abs_ps(x), c(9.5));
    let two_a = _mm512_add_ps(a, a);
    let kf = _mm512_roundscale_ps::<{ _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC }>(_mm512_mul_ps(two_a, c(LOG2E)));
    // r = 2a − k·ln2 (k·LN2_HI exact), |r| ≤ ln2/2.
    let r = _mm512_fnmadd_ps(kf, c(LN2_HI), two_a);
    let r = _mm512_fnmadd_ps(kf, c(LN2_LO), r);
    // q = eʳ − 1 = r + r²·p (Horner).
    let p = _mm512_fmadd_ps(c(1.0 / 40320.0), r, c(1.0 / 5040.0));
    let p = _mm512_fmadd_ps(p, r, c(1.0 / 720.0));
    let p = _mm512_fmadd_ps(p, r, c(1.0 / 120.0));
    let p = _mm512_fmadd_ps(p, r, c(1.0 / 24.0));
    let p = _mm512_fmadd_ps(p, r, c(1.0 / 6.0));
    let p = _mm512_fmadd_ps(p, r, c(0.5));
    let q = _mm512_fmadd_ps(_mm512_mul_ps(r, r), p, r);
    // m = 2ᵏ·(q + 1 − 2⁻ᵏ); 1 − 2⁻ᵏ is exact for k ≤ 24 and rounds to 1 beyond.
    let one_minus = _mm512_sub_ps(c(1.0), _mm512_scalef_ps(c(1.0), _mm512_sub_ps(_mm512_setzero_ps(), kf)));
    let m = _mm512_scalef_ps(_mm512_add_ps(q, one_minus), kf);
    // m / (m + 2): 14-bit reciprocal estimate, one Newton step.
    let d = _mm512_add_ps(m, c(2.0));
    let y = _mm512_rcp14_ps(d);
    let y = _mm512_mul_ps(y, _mm512_fnmadd_ps(d, y, c(2.0)));
    let t = _mm512_mul_ps(m, y);
    // The sign of x (t ≥ 0), then NaN in, NaN out.
    let sign = _mm512_and_si512(_mm512_castps_si512(x), _mm512_set1_epi32(i32::MIN));
    let t = _mm512_castsi512_ps(_mm512_or_si512(_mm512_castps_si512(t), sign));
    let nan = _mm512_cmp_ps_mask::<_CMP_UNORD_Q>(x, x);
    _mm512_mask_mov_ps(t, nan, x)
}

/// x·sigmoid(x) of 16 lanes (SiLU: the unfused graph's two steps).
#[inline]
#[target_feature(enable = "avx512f")]
pub(crate) fn swish(x: __m512) -> __m512 {
    _mm512_mul_ps(x, sigmoid(x))
}

/// [`swish`] of one value (lane 0 of a broadcast: the same bits as in a vector).
#[inline]
#[target_feature(enable = "avx512f")]
pub(super) fn swish_one(x: f32) -> f32 {
    _mm512_cvtss_f32(swish(_mm512_set1_ps(x)))
}

#[inline]
#[target_feature(enable = "avx512f")]
fn apply(act: VectorActivation, x: __m512) -> __m512 {
    match act {
        VectorActivation::Sigmoid => sigmoid(x),
        VectorActivation::Swish => swish(x),
        VectorActivation::Tanh => tanh(x),
    }
}

/// `v = act(v + bias)` over `values`, 16 lanes at a time, the tail masked.
///
/// # Safety
/// The CPU must support AVX-512F/VL, AVX2 and FMA; a `Cols` bias is as long as `values`.
#[target_feature(enable = "avx512f,avx512vl,avx2,fma")]
pub(super) unsafe fn map_in_place(act: VectorActivation, values: &mut [f32], bias: Bias<'_>) {
    let n = values.len();
    let p = values.as_mut_ptr();
    let mut i = 0;
    // One loop per (activation, bias) pair, so that the match is outside the loop.
    macro_rules! run {
        ($f:expr) => {{
            while i + 16 <= n {
                // SAFETY: i + 16 ≤ n elements of `values` (and of a Cols bias).
                let x = unsafe { _mm512_loadu_ps(p.add(i)) };
                let x = unsafe { add_bias(x, bias, i, 0xffff) };
                unsafe { _mm512_storeu_ps(p.add(i), $f(x)) };
                i += 16;
            }
            if i < n {
                let m: __mmask16 = (1u32 << (n - i)) as u16 - 1;
                // SAFETY: the mask covers the n − i < 16 remaining elements only.
                let x = unsafe { _mm512_maskz_loadu_ps(m, p.add(i)) };
                let x = unsafe { add_bias(x, bias, i, m) };
                unsafe { _mm512_mask_storeu_ps(p.add(i), m, $f(x)) };
            }
        }};
    }
    match act {
        VectorActivation::Sigmoid => run!(sigmoid),
        VectorActivation::Swish => run!(swish),
        VectorActivation::Tanh => run!(tanh),
    }
}

/// x + bias for the lanes `i..i + 16` under mask `m`.
#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn add_bias(x: __m512, bias: Bias<'_>, i: usize, m: __mmask16) -> __m512 {
    match bias {
        Bias::None => x,
        Bias::Scalar(b) => _mm512_add_ps(x, _mm512_set1_ps(b)),
        // SAFETY (caller): the bias is as long as the values; `m` covers lanes in range.
        Bias::Cols(b) => _mm512_add_ps(x, unsafe { _mm512_maskz_loadu_ps(m, b.as_ptr().add(i)) }),
    }
}

/// softmax of one row into `out` (see [`super::softmax_row_f32`]).
///
/// # Safety
/// The CPU must support AVX-512F/VL, AVX2 and FMA; `out.len() == x.len()`.
#[target_feature(enable = "avx512f,avx512vl,avx2,fma")]
pub(super) unsafe fn softmax_row(x: &[f32], out: &mut [f32]) {
    let n = x.len();
    let (s, d) = (x.as_ptr(), out.as_mut_ptr());
    let full = n - n % 16;
    let tail: __mmask16 = ((1u32 << (n % 16)) - 1) as u16;
    // The maximum; vmaxps drops NaN, so NaN is tracked on its own.
    let mut max = _mm512_set1_ps(f32::NEG_INFINITY);
    let mut nan: __mmask16 = 0;
    let mut i = 0;
    while i < full {
        // SAFETY: i + 16 ≤ n.
        let v = unsafe { _mm512_loadu_ps(s.add(i)) };
        max = _mm512_max_ps(max, v);
        nan |= _mm512_cmp_ps_mask::<_CMP_UNORD_Q>(v, v);
        i += 16;
    }
    if tail != 0 {
        // SAFETY: the mask covers the n − full < 16 remaining values only.
        let v = unsafe { _mm512_mask_loadu_ps(_mm512_set1_ps(f32::NEG_INFINITY), tail, s.add(i)) };
        max = _mm512_max_ps(max, v);
        nan |= _mm512_cmp_ps_mask::<_CMP_UNORD_Q>(v, v);
    }
    let m = if nan != 0 { f32::NAN } else { _mm512_reduce_max_ps(max) };
    let m = _mm512_set1_ps(m);
    // eˣ⁻ᵐ of 16 lanes: d = fl(m − x) ≥ 0 and err = (m − x) − d exactly (TwoSum), then
    // e⁻ᵈ⁻ᵉʳʳ ≈ e⁻ᵈ·(1 − err). err is NaN only where d is ∞ (x = −∞: e⁻ᵈ = +0) or NaN.
    let exp_diff = |v: __m512| {
        let dv = _mm512_sub_ps(m, v);
        let bb = _mm512_sub_ps(dv, m);
        let err = _mm512_sub_ps(_mm512_sub_ps(m, _mm512_sub_ps(dv, bb)), _mm512_add_ps(v, bb));
        let err = _mm512_maskz_mov_ps(_mm512_cmp_ps_mask::<_CMP_ORD_Q>(err, err), err);
        let e = exp_neg(dv);
        _mm512_fnmadd_ps(e, err, e)
    };
    let widen_hi =
        |e: __m512| _mm512_cvtps_pd(_mm256_castsi256_ps(_mm512_extracti64x4_epi64::<1>(_mm512_castps_si512(e))));
    let (mut sum_lo, mut sum_hi) = (_mm512_setzero_pd(), _mm512_setzero_pd());
    i = 0;
    while i < full {
        // SAFETY: i + 16 ≤ n in both rows.
        let e = exp_diff(unsafe { _mm512_loadu_ps(s.add(i)) });
        unsafe { _mm512_storeu_ps(d.add(i), e) };
        sum_lo = _mm512_add_pd(sum_lo, _mm512_cvtps_pd(_mm512_castps512_ps256(e)));
        sum_hi = _mm512_add_pd(sum_hi, widen_hi(e));
        i += 16;
    }
    if tail != 0 {
        // SAFETY: the mask covers the remaining values only; lanes beyond it are zeroed.
        let e = _mm512_maskz_mov_ps(tail, exp_diff(unsafe { _mm512_maskz_loadu_ps(tail, s.add(i)) }));
        unsafe { _mm512_mask_storeu_ps(d.add(i), tail, e) };
        sum_lo = _mm512_add_pd(sum_lo, _mm512_cvtps_pd(_mm512_castps512_ps256(e)));
        sum_hi = _mm512_add_pd(sum_hi, widen_hi(e));
    }
    let sum = _mm512_reduce_add_pd(_mm512_add_pd(sum_lo, sum_hi));
    let inv = _mm512_set1_ps((1.0 / sum) as f32);
    i = 0;
    while i < full {
        // SAFETY: i + 16 ≤ n.
        unsafe { _mm512_storeu_ps(d.add(i), _mm512_mul_ps(_mm512_loadu_ps(d.add(i)), inv)) };
        i += 16;
    }
    if tail != 0 {
        // SAFETY: the mask covers the remaining values only.
        unsafe { _mm512_mask_storeu_ps(d.add(i), tail, _mm512_mul_ps(_mm512_maskz_loadu_ps(tail, d.add(i)), inv)) };
    }
}

/// `out[i] = act(inp[i])`.
///
/// # Safety
/// The CPU must support AVX-512F/VL, AVX2 and FMA; `out.len() == inp.len()`.
#[target_feature(enable = "avx512f,avx512vl,avx2,fma")]
pub(super) unsafe fn map(act: VectorActivation, inp: &[f32], out: &mut [f32]) {
    let n = out.len();
    let (s, d) = (inp.as_ptr(), out.as_mut_ptr());
    let mut i = 0;
    while i + 16 <= n {
        // SAFETY: i + 16 ≤ n elements of both slices.
        unsafe { _mm512_storeu_ps(d.add(i), apply(act, _mm512_loadu_ps(s.add(i)))) };
        i += 16;
    }
    if i < n {
        let m: __mmask16 = (1u32 << (n - i)) as u16 - 1;
        // SAFETY: the mask covers the n − i < 16 remaining elements only.
        unsafe { _mm512_mask_storeu_ps(d.add(i), m, apply(act, _mm512_maskz_loadu_ps(m, s.add(i)))) };
    }
}

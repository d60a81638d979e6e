//! The AVX2 + FMA forms of the vector activations and the softmax row, for CPUs without
//! AVX-512 (the method and the measured errors are in the parent module's doc).
//!
//! The same polynomial and reductions as the AVX-512 forms, 8 lanes at a time. Two
//! instructions have no AVX2 twin:
//! - `vscalefps` (p·2ᵏ rounded once): k ∈ [−150, 0] is split into k₁ = ⌊k/2⌋ and k₂ = k − k₁,
//!   both ≥ −75, so 2^k₁ and 2^k₂ are normal numbers built from their exponent bits; p·2^k₁ is
//!   exact (a normal result) and the product with 2^k₂ rounds once, subnormal results
//!   included: the same value as `vscalefps`.
//! - `vrcp14ps` (2⁻¹⁴) and its Newton step: `vdivps` instead (a correctly rounded quotient).
//!   `vrcpps` (1.5·2⁻¹²) needs two Newton steps, whose four dependent FMAs made the chain of
//!   a SiLU longer than the out-of-order window hides: SiLU over 1×96×112² took 0.86 →
//!   0.65–0.81 ns per element on Zen 3, and fused after a depthwise 3×3 on 32×112² 0.55 →
//!   0.45 ms (kernel bench, alternating runs; an Estrin polynomial and two vectors per
//!   iteration measured no faster).
//! - (and −|x| is taken as min(−x, x), so that a NaN keeps its sign; see `sigmoid`.)

use super::super::fast_math::{LN2_HI, LN2_LO, MAGIC, UNDERFLOW};
use super::{Bias, VectorActivation, EXP_C, LOG2E};
use std::arch::x86_64::*;

/// 2ᵏ for integer lanes k ∈ [−126, 127] (a normal number: the exponent bits alone).
#[inline]
#[target_feature(enable = "avx2")]
fn pow2(k: __m256i) -> __m256 {
    _mm256_castsi256_ps(_mm256_slli_epi32::<23>(_mm256_add_epi32(k, _mm256_set1_epi32(127))))
}

/// p·2ᵏ for integral lanes `kf` ∈ [−150, 0], rounded once (see the module doc); NaN in p
/// propagates.
#[inline]
#[target_feature(enable = "avx2")]
fn scale(p: __m256, kf: __m256) -> __m256 {
    let k = _mm256_cvtps_epi32(kf);
    let k1 = _mm256_srai_epi32::<1>(k);
    let k2 = _mm256_sub_epi32(k, k1);
    _mm256_mul_ps(_mm256_mul_ps(p, pow2(k1)), pow2(k2))
}

/// eᵗ for t ≤ 0 (−∞ gives +0; NaN propagates), as the AVX-512 form.
#[inline]
#[target_feature(enable = "avx2,fma")]
fn exp_nonpositive(t: __m256) -> __m256 {
    let c = |v: f32| _mm256_set1_ps(v);
    // vmaxps returns its second operand where either is NaN: a NaN t stays NaN.
    let t = _mm256_max_ps(c(UNDERFLOW), t);
    let kf = _mm256_sub_ps(_mm256_fmadd_ps(t, c(LOG2E), c(MAGIC)), c(MAGIC));
    // r = t − k·ln2 (k·LN2_HI exact).
    let r = _mm256_fnmadd_ps(kf, c(LN2_HI), t);
    let r = _mm256_fnmadd_ps(kf, c(LN2_LO), r);
    // eʳ ≈ 1 + r + r²·(C2 + C3·r + … + C6·r⁴) (Horner).
    let p = _mm256_fmadd_ps(c(EXP_C[4]), r, c(EXP_C[3]));
    let p = _mm256_fmadd_ps(p, r, c(EXP_C[2]));
    let p = _mm256_fmadd_ps(p, r, c(EXP_C[1]));
    let p = _mm256_fmadd_ps(p, r, c(EXP_C[0]));
    let p = _mm256_fmadd_ps(p, r, c(1.0));
    let p = _mm256_fmadd_ps(p, r, c(1.0));
    scale(p, kf)
}

/// e⁻ᵃ for a ≥ 0 (+∞ gives +0; NaN propagates).
#[inline]
#[target_feature(enable = "avx2,fma")]
fn exp_neg(a: __m256) -> __m256 {
    exp_nonpositive(_mm256_sub_ps(_mm256_setzero_ps(), a))
}

/// sigmoid of 8 lanes; NaN propagates through every step (the sign test is false).
#[inline]
#[target_feature(enable = "avx2,fma")]
fn sigmoid(x: __m256) -> __m256 {
    // e = e^−|x|, with −|x| = min(−x, x): a NaN x (the second operand) passes unchanged,
    // so sigmoid(NaN) is that NaN and x·sigmoid(x) the same bits in either operand order.
    let e = exp_nonpositive(_mm256_min_ps(_mm256_xor_ps(x, _mm256_set1_ps(-0.0)), x));
    // 1/(1 + e) for x ≥ 0, e/(1 + e) below, each one correctly rounded quotient.
    let one = _mm256_set1_ps(1.0);
    let negative = _mm256_cmp_ps::<_CMP_LT_OQ>(x, _mm256_setzero_ps());
    _mm256_div_ps(_mm256_blendv_ps(one, e, negative), _mm256_add_ps(one, e))
}

/// tanh of 8 lanes (the method in the parent module's doc).
#[inline]
#[target_feature(enable = "avx2,fma")]
fn tanh(x: __m256) -> __m256 {
    let c = |v: f32| _mm256_set1_ps(v);
    let sign_bit = c(-0.0);
    // (A NaN becomes 9.5 here and is restored at the end.)
    let a = _mm256_min_ps(_mm256_andnot_ps(sign_bit, x), c(9.5));
    let two_a = _mm256_add_ps(a, a);
    let kf = _mm256_round_ps::<{ _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC }>(_mm256_mul_ps(two_a, c(LOG2E)));
    // r = 2a − k·ln2 (k·LN2_HI exact), |r| ≤ ln2/2.
    let r = _mm256_fnmadd_ps(kf, c(LN2_HI), two_a);
    let r = _mm256_fnmadd_ps(kf, c(LN2_LO), r);
    // q = eʳ − 1 = r + r²·p (Horner).
    let p = _mm256_fmadd_ps(c(1.0 / 40320.0), r, c(1.0 / 5040.0));
    let p = _mm256_fmadd_ps(p, r, c(1.0 / 720.0));
    let p = _mm256_fmadd_ps(p, r, c(1.0 / 120.0));
    let p = _mm256_fmadd_ps(p, r, c(1.0 / 24.0));
    let p = _mm256_fmadd_ps(p, r, c(1.0 / 6.0));
    let p = _mm256_fmadd_ps(p, r, c(0.5));
    let q = _mm256_fmadd_ps(_mm256_mul_ps(r, r), p, r);
    // m = 2ᵏ·(q + 1 − 2⁻ᵏ), k ∈ [0, 28]; 1 − 2⁻ᵏ is exact for k ≤ 24 and rounds to 1 beyond.
    let k = _mm256_cvtps_epi32(kf);
    let one_minus = _mm256_sub_ps(c(1.0), pow2(_mm256_sub_epi32(_mm256_setzero_si256(), k)));
    let m = _mm256_mul_ps(_mm256_add_ps(q, one_minus), pow2(k));
    // m / (m + 2).
    let t = _mm256_div_ps(m, _mm256_add_ps(m, c(2.0)));
    // The sign of x (t ≥ 0), then NaN in, NaN out.
    let t = _mm256_or_ps(t, _mm256_and_ps(x, sign_bit));
    _mm256_blendv_ps(t, x, _mm256_cmp_ps::<_CMP_UNORD_Q>(x, x))
}

/// x·sigmoid(x) of 8 lanes (SiLU: the unfused graph's two steps).
#[inline]
#[target_feature(enable = "avx2,fma")]
pub(crate) fn swish(x: __m256) -> __m256 {
    _mm256_mul_ps(x, sigmoid(x))
}

/// [`swish`] of one value (lane 0 of a broadcast: the same bits as in a vector).
#[inline]
#[target_feature(enable = "avx2,fma")]
pub(super) fn swish_one(x: f32) -> f32 {
    _mm256_cvtss_f32(swish(_mm256_set1_ps(x)))
}

#[inline]
#[target_feature(enable = "avx2,fma")]
fn apply(act: VectorActivation, x: __m256) -> __m256 {
    match act {
        VectorActivation::Sigmoid => sigmoid(x),
        VectorActivation::Swish => swish(x),
        VectorActivation::Tanh => tanh(x),
    }
}

/// The lanes below `n` (of 8) as a `vmaskmovps` mask.
#[inline]
#[target_feature(enable = "avx2")]
fn lanes_below(n: usize) -> __m256i {
    _mm256_cmpgt_epi32(_mm256_set1_epi32(n as i32), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7))
}

/// `v = act(v + bias)` over `values`, 8 lanes at a time, the tail masked.
///
/// # Safety
/// The CPU must support AVX2 and FMA; a `Cols` bias is as long as `values`.
#[target_feature(enable = "avx2,fma")]
pub(super) unsafe fn map_in_place(act: VectorActivation, values: &mut [f32], bias: Bias<'_>) {
    let n = values.len();
    let p = values.as_mut_ptr();
    let mut i = 0;
    // One loop per activation, so that the match is outside the loop.
    macro_rules! run {
        ($f:expr) => {{
            while i + 8 <= n {
                // SAFETY: i + 8 ≤ n elements of `values` (and of a Cols bias).
                let x = unsafe { _mm256_loadu_ps(p.add(i)) };
                let x = unsafe { add_bias(x, bias, i, None) };
                unsafe { _mm256_storeu_ps(p.add(i), $f(x)) };
                i += 8;
            }
            if i < n {
                let m = lanes_below(n - i);
                // SAFETY: the mask covers the n − i < 8 remaining elements only.
                let x = unsafe { _mm256_maskload_ps(p.add(i), m) };
                let x = unsafe { add_bias(x, bias, i, Some(m)) };
                unsafe { _mm256_maskstore_ps(p.add(i), m, $f(x)) };
            }
        }};
    }
    match act {
        VectorActivation::Sigmoid => run!(sigmoid),
        VectorActivation::Swish => run!(swish),
        VectorActivation::Tanh => run!(tanh),
    }
}

/// x + bias for the lanes `i..i + 8` (under mask `m`, if any).
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn add_bias(x: __m256, bias: Bias<'_>, i: usize, m: Option<__m256i>) -> __m256 {
    match bias {
        Bias::None => x,
        Bias::Scalar(b) => _mm256_add_ps(x, _mm256_set1_ps(b)),
        // SAFETY (caller): the bias is as long as the values; `m` covers the lanes in range.
        Bias::Cols(b) => _mm256_add_ps(x, unsafe {
            match m {
                Some(m) => _mm256_maskload_ps(b.as_ptr().add(i), m),
                None => _mm256_loadu_ps(b.as_ptr().add(i)),
            }
        }),
    }
}

/// The largest of 8 lanes (no NaN among them).
#[inline]
#[target_feature(enable = "avx2")]
fn reduce_max(v: __m256) -> f32 {
    let m = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps::<1>(v));
    let m = _mm_max_ps(m, _mm_movehl_ps(m, m));
    _mm_cvtss_f32(_mm_max_ss(m, _mm_shuffle_ps::<1>(m, m)))
}

/// The sum of 4 f64 lanes.
#[inline]
#[target_feature(enable = "avx2")]
fn reduce_add(v: __m256d) -> f64 {
    let s = _mm_add_pd(_mm256_castpd256_pd128(v), _mm256_extractf128_pd::<1>(v));
    _mm_cvtsd_f64(_mm_add_sd(s, _mm_unpackhi_pd(s, s)))
}

/// softmax of one row into `out`, as the AVX-512 form (see [`super::softmax_row_f32`]).
///
/// # Safety
/// The CPU must support AVX2 and FMA; `out.len() == x.len()`.
#[target_feature(enable = "avx2,fma")]
pub(super) unsafe fn softmax_row(x: &[f32], out: &mut [f32]) {
    let n = x.len();
    let (s, d) = (x.as_ptr(), out.as_mut_ptr());
    let full = n - n % 8;
    let tail = lanes_below(n % 8);
    let neg_inf = _mm256_set1_ps(f32::NEG_INFINITY);
    // The maximum; vmaxps drops NaN, so NaN is tracked on its own.
    let mut max = neg_inf;
    let mut nan = _mm256_setzero_ps();
    let mut i = 0;
    while i < full {
        // SAFETY: i + 8 ≤ n.
        let v = unsafe { _mm256_loadu_ps(s.add(i)) };
        max = _mm256_max_ps(max, v);
        nan = _mm256_or_ps(nan, _mm256_cmp_ps::<_CMP_UNORD_Q>(v, v));
        i += 8;
    }
    if i < n {
        // SAFETY: the mask covers the n − full < 8 remaining values only; −∞ elsewhere.
        let v = _mm256_blendv_ps(neg_inf, unsafe { _mm256_maskload_ps(s.add(i), tail) }, _mm256_castsi256_ps(tail));
        max = _mm256_max_ps(max, v);
        nan = _mm256_or_ps(nan, _mm256_cmp_ps::<_CMP_UNORD_Q>(v, v));
    }
    let m = if _mm256_movemask_ps(nan) != 0 { f32::NAN } else { reduce_max(max) };
    let m = _mm256_set1_ps(m);
    // eˣ⁻ᵐ of 8 lanes: d = fl(m − x) ≥ 0 and err = (m − x) − d exactly (TwoSum), then
    // e⁻ᵈ⁻ᵉʳʳ ≈ e⁻ᵈ·(1 − err). err is NaN only where d is ∞ (x = −∞: e⁻ᵈ = +0) or NaN.
    let exp_diff = |v: __m256| {
        let dv = _mm256_sub_ps(m, v);
        let bb = _mm256_sub_ps(dv, m);
        let err = _mm256_sub_ps(_mm256_sub_ps(m, _mm256_sub_ps(dv, bb)), _mm256_add_ps(v, bb));
        let err = _mm256_and_ps(err, _mm256_cmp_ps::<_CMP_ORD_Q>(err, err));
        let e = exp_neg(dv);
        _mm256_fnmadd_ps(e, err, e)
    };
    let widen =
        |e: __m256| (_mm256_cvtps_pd(_mm256_castps256_ps128(e)), _mm256_cvtps_pd(_mm256_extractf128_ps::<1>(e)));
    let (mut sum_lo, mut sum_hi) = (_mm256_setzero_pd(), _mm256_setzero_pd());
    i = 0;
    while i < full {
        // SAFETY: i + 8 ≤ n in both rows.
        let e = exp_diff(unsafe { _mm256_loadu_ps(s.add(i)) });
        unsafe { _mm256_storeu_ps(d.add(i), e) };
        let (lo, hi) = widen(e);
        sum_lo = _mm256_add_pd(sum_lo, lo);
        sum_hi = _mm256_add_pd(sum_hi, hi);
        i += 8;
    }
    if i < n {
        // SAFETY: the mask covers the remaining values only; lanes beyond it are zeroed.
        let e = _mm256_and_ps(exp_diff(unsafe { _mm256_maskload_ps(s.add(i), tail) }), _mm256_castsi256_ps(tail));
        unsafe { _mm256_maskstore_ps(d.add(i), tail, e) };
        let (lo, hi) = widen(e);
        sum_lo = _mm256_add_pd(sum_lo, lo);
        sum_hi = _mm256_add_pd(sum_hi, hi);
    }
    let sum = reduce_add(_mm256_add_pd(sum_lo, sum_hi));
    let inv = _mm256_set1_ps((1.0 / sum) as f32);
    i = 0;
    while i < full {
        // SAFETY: i + 8 ≤ n.
        unsafe { _mm256_storeu_ps(d.add(i), _mm256_mul_ps(_mm256_loadu_ps(d.add(i)), inv)) };
        i += 8;
    }
    if i < n {
        // SAFETY: the mask covers the remaining values only.
        unsafe { _mm256_maskstore_ps(d.add(i), tail, _mm256_mul_ps(_mm256_maskload_ps(d.add(i), tail), inv)) };
    }
}

/// `out[i] = act(inp[i])`.
///
/// # Safety
/// The CPU must support AVX2 and FMA; `out.len() == inp.len()`.
#[target_feature(enable = "avx2,fma")]
pub(super) unsafe fn map(act: VectorActivation, inp: &[f32], out: &mut [f32]) {
    let n = out.len();
    let (s, d) = (inp.as_ptr(), out.as_mut_ptr());
    let mut i = 0;
    while i + 8 <= n {
        // SAFETY: i + 8 ≤ n elements of both slices.
        unsafe { _mm256_storeu_ps(d.add(i), apply(act, _mm256_loadu_ps(s.add(i)))) };
        i += 8;
    }
    if i < n {
        let m = lanes_below(n - i);
        // SAFETY: the mask covers the n − i < 8 remaining elements only.
        unsafe { _mm256_maskstore_ps(d.add(i), m, apply(act, _mm256_maskload_ps(s.add(i), m))) };
    }
}

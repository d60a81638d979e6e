//! Explicit AVX-512 forms of the costly float32 activations (sigmoid, SiLU/swish, tanh), used by
//! the activation kernels and the fused GEMM/conv epilogues whenever the CPU has AVX-512F.
//! Without it, callers fall back to the auto-vectorised loops over [`super::fast_math`].
//!
//! The compiler's vectorisation of `fast_math::sigmoid_f32` (two power-of-two factors, a
//! division, clamps with NaN semantics) ran at 0.34 ns per element; written with
//! `vscalefps` (2ᵏ with one rounding, subnormals included), `vrcp14ps` plus one Newton step
//! instead of the division, and a degree-6 polynomial it runs several times faster.
//!
//! Method, for sigmoid(x) with a = |x|: e = e⁻ᵃ = 2ᵏ·eʳ with k = round(−a·log₂e) (rounded
//! by adding and subtracting 1.5·2²³) and r = −a − k·ln2 (two-part Cody–Waite reduction,
//! |r| ≤ ln2/2), eʳ by a degree-6 minimax polynomial (relative error 0.05·2⁻²⁴); d = 1 + e;
//! y ≈ 1/d from `vrcp14ps` (2⁻¹⁴) refined by one Newton step; sigmoid = y for x ≥ 0 and e·y
//! for x < 0 (no overflow, subnormal results kept). swish(x) = x·sigmoid(x), the same two
//! steps as the unfused graph. NaN needs no test of its own: it propagates through every step.
//! SiLU in 21 vector instructions per 16 values (was 26 with Taylor's degree 7, a rounding
//! instruction, a mask for the underflow and a NaN select): kernel bench silu 1×96×112×112,
//! 1 thread, Ice Lake, 3 alternating runs: 0.37 → 0.29–0.33 ns per value (sigmoid 0.35 → 0.27).
//!
//! Measured error (the `sweep` tests below, every 97th f32 bit pattern against f64):
//! sigmoid ≤ 3 ULP; swish ≤ 4 ULP where sigmoid is a normal number, and bit for bit x times
//! this sigmoid (the unfused graph's two steps) (WPT tolerance for sigmoid: 34 ULP in float32).
//! NaN propagates; sigmoid(±∞) = 1 / 0.
//!
//! tanh, with a = min(|x|, 9.5) (tanh is ±1 in f32 beyond 9.01): m = e²ᵃ − 1 as
//! 2ᵏ·(q + 1 − 2⁻ᵏ) with q = eʳ − 1 = r + r²·(1/2 + r/6 + … + r⁶/40320) (so m keeps its
//! relative accuracy near 0, where 1 − e⁻²ᵃ would cancel), then tanh a = m / (m + 2) with
//! the reciprocal as for sigmoid, and the sign of x. The scalar `fast_math::tanh_f32` is the
//! same formula with a division; this form replaced its auto-vectorised loop (magika's two
//! tanh steps, Zen 4, 1 thread: 245 → 156 µs together; ONNX Runtime 110). Measured
//! (`tanh_is_within_4_ulp` below, the same sweep): 3 ULP at worst (at x ≈ 9.4e-4), relative,
//! over the whole range (WPT tolerance for tanh: an absolute 1/1024).

use super::activation::Activation;
use super::epilogue::TileBias;
use super::packed_gemm::TileOut;

/// An activation that has an explicit AVX-512 form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum VectorActivation {
    /// 1 / (1 + e⁻ˣ)
    Sigmoid,
    /// x · sigmoid(x)
    Swish,
    /// tanh x
    Tanh,
}

impl VectorActivation {
    /// The explicit form of `act`, when it has one and this CPU runs it.
    #[inline]
    pub(crate) fn of(act: Activation) -> Option<Self> {
        #[cfg(target_arch = "x86_64")]
        if super::unary::has_avx512() {
            return match act {
                Activation::Sigmoid => Some(Self::Sigmoid),
                Activation::Swish => Some(Self::Swish),
                Activation::Tanh => Some(Self::Tanh),
                _ => None,
            };
        }
        let _ = act;
        None
    }

    /// `values[i] = act(values[i])`.
    pub(crate) fn apply_in_place(self, values: &mut [f32]) {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: a `VectorActivation` exists only when `of` found AVX-512F/VL (with AVX2, FMA).
        unsafe {
            avx512::map_in_place(self, values, Bias::None)
        }
        #[cfg(not(target_arch = "x86_64"))]
        unreachable!("VectorActivation::of returns None off x86_64: {self:?} {}", values.len())
    }

    /// `out[i] = act(inp[i])` (`out.len() == inp.len()`).
    pub(crate) fn map(self, inp: &[f32], out: &mut [f32]) {
        assert_eq!(inp.len(), out.len(), "vector activation: input and output lengths differ");
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as in `apply_in_place`; the lengths were just checked.
        unsafe {
            avx512::map(self, inp, out)
        }
        #[cfg(not(target_arch = "x86_64"))]
        unreachable!("VectorActivation::of returns None off x86_64: {self:?}")
    }

    /// `v = act(v + bias)` over a GEMM tile (the fused conv epilogue's common case).
    pub(crate) fn bias_tile(self, tile: &mut TileOut<'_>, bias: TileBias<'_>) {
        for r in 0..tile.rows() {
            let row = tile.row(r);
            let bias = match bias {
                TileBias::None => Bias::None,
                TileBias::Rows(b) => Bias::Scalar(b[r]),
                TileBias::Cols(b) => Bias::Cols(&b[..row.len()]),
            };
            #[cfg(target_arch = "x86_64")]
            // SAFETY: as in `apply_in_place`; a `Cols` bias is as long as the row.
            unsafe {
                avx512::map_in_place(self, row, bias)
            }
            #[cfg(not(target_arch = "x86_64"))]
            unreachable!("VectorActivation::of returns None off x86_64: {bias:?}")
        }
    }
}

/// A softmax of one row: `(x, out)`.
pub(crate) type SoftmaxRow<T> = fn(&[T], &mut [T]);

/// softmax of one contiguous float32 row (the axis innermost) with the explicit AVX-512
/// exponential, when this CPU has AVX-512F/VL (`None` otherwise: the caller keeps its
/// auto-vectorised loop). [spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-softmax-method)
///
/// Three passes over the row while it is in L1: the maximum m (a NaN anywhere makes the row
/// NaN); eˣ⁻ᵐ written to `out`, with d = m − x split exactly into its rounded value and the
/// rounding error (TwoSum) and eˣ⁻ᵐ = e⁻ᵈ·(1 − err), so a large spread costs no accuracy
/// (without the correction the rounding of d alone costs up to 64 ULP where 64 ≤ d < 104;
/// 63 measured), summed in f64; then the products with 1/Σ. Measured
/// (`softmax_row_is_within_4_ulp` below, rows of 1 to 300 values spread over up to 120):
/// 2 ULP at worst against an f64 reference (WPT tolerance: 3·n + 3 ULP for a row of n).
/// Kernel bench, rows of 128, Ice Lake, 1 thread: 0.75–0.87 ns per value against the
/// generic loop's 2.4–3.2.
pub(crate) fn softmax_row_f32() -> Option<SoftmaxRow<f32>> {
    #[cfg(target_arch = "x86_64")]
    if super::unary::has_avx512() {
        return Some(|x, out| {
            assert_eq!(x.len(), out.len(), "softmax row: input and output lengths differ");
            // SAFETY: AVX-512F/VL, AVX2 and FMA were detected above; the lengths were just checked.
            unsafe { avx512::softmax_row(x, out) }
        });
    }
    None
}

/// What is added to each value before the activation.
#[derive(Clone, Copy, Debug)]
enum Bias<'a> {
    None,
    Scalar(f32),
    /// One per value (as long as the values).
    Cols(&'a [f32]),
}

/// The AVX-512 SiLU ([`VectorActivation::Swish`]'s vector and one-value forms), for kernels
/// that apply it in registers (the GEMM's store).
#[cfg(target_arch = "x86_64")]
pub(crate) use avx512::{swish as swish_avx512, swish_one as swish_one_avx512};

#[cfg(target_arch = "x86_64")]
mod avx512 {
    use super::super::fast_math::{LN2_HI, LN2_LO, MAGIC, UNDERFLOW};
    use super::{Bias, VectorActivation};
    use std::arch::x86_64::*;

    const LOG2E: f32 = std::f32::consts::LOG2_E;
    /// C2..C6 of eʳ ≈ 1 + r + C2·r² + … + C6·r⁶ on |r| ≤ ln2/2: a minimax fit of the
    /// relative error (0.05·2⁻²⁴ at worst in exact arithmetic; Taylor's degree 6 leaves 2⁻²³).
    const EXP_C: [f32; 5] = [0.499_999_94, 0.166_665_21, 0.041_668_39, 0.008_368_71, 0.001_381_461_3];

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
        // e = e^−|x|: −|x| by setting the sign bit.
        let neg_abs = _mm512_castsi512_ps(_mm512_or_si512(_mm512_castps_si512(x), _mm512_set1_epi32(i32::MIN)));
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
        let kf =
            _mm512_roundscale_ps::<{ _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC }>(_mm512_mul_ps(two_a, c(LOG2E)));
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
    pub(crate) fn swish_one(x: f32) -> f32 {
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use webnn_core::testing::ulp_f32;

    fn sigmoid64(x: f64) -> f64 {
        1.0 / (1.0 + (-x).exp())
    }

    /// The worst ULP error of `act` over every `step`th f32 bit pattern (both signs, the
    /// specials included), evaluated through `map` in batches, odd-length tails included.
    fn sweep(act: VectorActivation, exact: impl Fn(f64) -> f64, step: u64) -> (u64, f32) {
        let mut worst = (0u64, 0.0f32);
        let mut batch = Vec::with_capacity(4099);
        let mut out = vec![0.0f32; 4099];
        let mut b: u64 = 0;
        let mut flush = |batch: &mut Vec<f32>, worst: &mut (u64, f32)| {
            let out = &mut out[..batch.len()];
            act.map(batch, out);
            for (&x, &y) in batch.iter().zip(out.iter()) {
                let want = exact(x as f64);
                if want.is_nan() && !x.is_nan() {
                    continue; // outside the checked range
                }
                let d = ulp_f32(y, want);
                if d > worst.0 {
                    *worst = (d, x);
                }
            }
            batch.clear();
        };
        while b <= u32::MAX as u64 {
            batch.push(f32::from_bits(b as u32));
            if batch.len() == 4099 {
                flush(&mut batch, &mut worst);
            }
            b += step;
        }
        flush(&mut batch, &mut worst);
        worst
    }

    fn step() -> u64 {
        if cfg!(debug_assertions) {
            4099
        } else {
            97
        }
    }

    #[test]
    fn sigmoid_is_within_3_ulp() {
        let Some(act) = VectorActivation::of(Activation::Sigmoid) else { return };
        let (d, x) = sweep(act, sigmoid64, step());
        assert!(d <= 3, "sigmoid: {d} ULP at {x:e}");
    }

    #[test]
    fn tanh_is_within_4_ulp() {
        let Some(act) = VectorActivation::of(Activation::Tanh) else { return };
        let (d, x) = sweep(act, f64::tanh, step());
        assert!(d <= 4, "tanh: {d} ULP at {x:e}");
        let x = [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 0.0, -0.0, 9.0, -9.5, 20.0, 1e-30, -1e-40];
        let mut y = [7.0f32; 10];
        act.map(&x, &mut y);
        assert!(y[0].is_nan());
        assert_eq!(&y[1..3], &[1.0, -1.0]);
        assert_eq!((y[3].to_bits(), y[4].to_bits()), (0.0f32.to_bits(), (-0.0f32).to_bits()));
        assert_eq!(&y[6..8], &[-1.0, 1.0]);
        assert!(ulp_f32(y[5], 9f64.tanh()) <= 1);
        assert_eq!((y[8], y[9]), (1e-30, -1e-40), "tanh x = x for tiny x, subnormals included");
    }

    #[test]
    fn swish_is_the_two_steps_and_within_4_ulp() {
        let (Some(swish), Some(sigmoid)) =
            (VectorActivation::of(Activation::Swish), VectorActivation::of(Activation::Sigmoid))
        else {
            return;
        };
        // Bit for bit the unfused graph's steps: this sigmoid, then the product.
        let x: Vec<f32> = (0..1u32 << 20).map(|i| f32::from_bits(i.wrapping_mul(4099))).collect();
        let (mut y, mut s) = (vec![0.0f32; x.len()], vec![0.0f32; x.len()]);
        swish.map(&x, &mut y);
        sigmoid.map(&x, &mut s);
        for ((&x, &y), &s) in x.iter().zip(&y).zip(&s) {
            assert_eq!(y.to_bits(), (x * s).to_bits(), "swish({x:e})");
        }
        // Against the exact function where sigmoid is a normal number (below x ≈ −87.3 it is
        // subnormal, a few bits wide, and its error of ≤ 3 of those ULP is scaled by |x| in
        // the product, as in the unfused graph).
        let (d, x) =
            sweep(swish, |x| if sigmoid64(x) < f32::MIN_POSITIVE as f64 { f64::NAN } else { x * sigmoid64(x) }, step());
        assert!(d <= 4, "swish: {d} ULP at {x:e}");
    }

    /// softmax of `x` in f64 (max-subtracted).
    fn softmax64(x: &[f32]) -> Vec<f64> {
        let m = x.iter().fold(f64::NEG_INFINITY, |m, &v| m.max(v as f64));
        let e: Vec<f64> = x.iter().map(|&v| (v as f64 - m).exp()).collect();
        let s: f64 = e.iter().sum();
        e.iter().map(|v| v / s).collect()
    }

    #[test]
    fn softmax_row_is_within_4_ulp() {
        let Some(row) = softmax_row_f32() else { return };
        let mut rng = webnn_core::testing::Rng::new(37);
        let mut worst = (0u64, 0usize, 0.0f32);
        for n in (1..=40).chain([127, 128, 197, 300]) {
            for spread in [1.0, 10.0, 60.0, 120.0] {
                let x: Vec<f32> = (0..n).map(|_| rng.uniform(3.0 - spread / 2.0, 3.0 + spread / 2.0) as f32).collect();
                let mut y = vec![f32::NAN; n];
                row(&x, &mut y);
                for (i, (&y, want)) in y.iter().zip(softmax64(&x)).enumerate() {
                    let d = ulp_f32(y, want);
                    if d > worst.0 {
                        worst = (d, n, x[i]);
                    }
                }
            }
        }
        assert!(worst.0 <= 4, "softmax row: {} ULP (row of {}, at x = {:e})", worst.0, worst.1, worst.2);
        // Two values far apart: the rounding of x − m alone would cost ~40 ULP here.
        let mut y = [0.0f32; 2];
        row(&[0.0, -80.3], &mut y);
        assert!(ulp_f32(y[1], softmax64(&[0.0, -80.3])[1]) <= 2, "{:e}", y[1]);
        // A NaN anywhere makes the row NaN; −∞ logits give +0; a row of −∞ is NaN (0/0).
        let mut x: Vec<f32> = (0..37).map(|i| (i % 5) as f32).collect();
        x[33] = f32::NAN;
        let mut y = vec![0.0f32; 37];
        row(&x, &mut y);
        assert!(y.iter().all(|v| v.is_nan()));
        x[33] = f32::NEG_INFINITY;
        x[3] = f32::NEG_INFINITY;
        row(&x, &mut y);
        assert_eq!((y[3], y[33]), (0.0, 0.0));
        let want = softmax64(&x);
        assert!(y.iter().zip(&want).all(|(&y, &w)| ulp_f32(y, w) <= 2));
        row(&[f32::NEG_INFINITY; 3], &mut y[..3]);
        assert!(y[..3].iter().all(|v| v.is_nan()));
        row(&[f32::INFINITY, 1.0], &mut y[..2]);
        assert!(y[..2].iter().all(|v| v.is_nan()));
        row(&[7.5], &mut y[..1]);
        assert_eq!(y[0], 1.0);
    }

    #[test]
    fn specials_and_every_tail_length() {
        let Some(act) = VectorActivation::of(Activation::Sigmoid) else {
            return;
        };
        let x = [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 0.0, -0.0, 88.0, -88.0, -103.0, -120.0];
        let mut y = [1.0f32; 9];
        act.map(&x, &mut y);
        assert!(y[0].is_nan());
        assert_eq!(&y[1..5], &[1.0, 0.0, 0.5, 0.5]);
        assert_eq!(y[5], 1.0);
        assert!(ulp_f32(y[6], sigmoid64(-88.0)) <= 2 && y[6] > 0.0, "subnormal result kept: {:e}", y[6]);
        assert_eq!(y[8], 0.0);
        let swish = VectorActivation::of(Activation::Swish).unwrap();
        for n in 0..40 {
            let x: Vec<f32> = (0..n).map(|i| i as f32 * 0.37 - 5.0).collect();
            let bias: Vec<f32> = (0..n).map(|i| i as f32 * 0.01).collect();
            let mut y = x.clone();
            swish.apply_in_place(&mut y);
            let mut z = x.clone();
            let mut tile = TileOut::new(&mut z, n.max(1), 1, n).unwrap();
            swish.bias_tile(&mut tile, TileBias::Cols(&bias));
            for i in 0..n {
                let want = x[i] as f64 * sigmoid64(x[i] as f64) as f32 as f64;
                assert!(ulp_f32(y[i], want) <= 3, "n {n} i {i}: {} vs {want}", y[i]);
                let xb = x[i] + bias[i];
                assert!(ulp_f32(z[i], xb as f64 * sigmoid64(xb as f64) as f32 as f64) <= 3, "bias n {n} i {i}");
            }
        }
    }
}

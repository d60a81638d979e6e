//! [`simd`]: runs a closure compiled for the best vector instruction set this CPU has
//! (AVX-512, else AVX2+FMA, detected at run time), so that plain Rust loops auto-vectorize.

/// Runs `f` compiled for AVX2+FMA when the CPU has them (detected at run time; the
/// baseline otherwise): `f` is inlined into a `#[target_feature]` function, so its loops
/// auto-vectorize with 256-bit vectors. Pass a closure marked `#[inline(always)]` whose body
/// calls `#[inline(always)]` functions, and call `simd` inside each parallel task (rayon
/// closures are separate functions that do not inherit the features).
#[inline(always)]
pub fn simd<R>(f: impl FnOnce() -> R) -> R {
    #[cfg(target_arch = "x86_64")]
    {
        if super::unary::has_avx512() {
            #[target_feature(enable = "avx512f,avx512vl,avx2,fma")]
            #[inline]
            unsafe fn avx512<R>(f: impl FnOnce() -> R) -> R {
                f()
            }
            // SAFETY: `avx512` only requires AVX-512F/VL, AVX2 and FMA, which the CPU was just
            // detected to support; the code is the same safe Rust as the fallback.
            return unsafe { avx512(f) };
        }
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma") {
            #[target_feature(enable = "avx2,fma")]
            #[inline]
            unsafe fn avx2<R>(f: impl FnOnce() -> R) -> R {
                f()
            }
            // SAFETY: `avx2` only requires the AVX2 and FMA target features, which the CPU
            // was just detected to support. The code run is the same safe Rust as the
            // fallback below (tests run it on both paths via `simd_paths_agree`).
            return unsafe { avx2(f) };
        }
    }
    f()
}

/// `dst.copy_from_slice(src)` for runs of a few floats (im2col and padded-plane rows of small
/// images): with
/// AVX-512, masked vector moves instead of a call to `memcpy`, which costs more than copying
/// a short run itself. Panics if the lengths differ (as `copy_from_slice` does).
#[inline(always)]
pub fn copy_short(dst: &mut [f32], src: &[f32]) {
    assert_eq!(dst.len(), src.len(), "copy_short: lengths differ");
    #[cfg(target_arch = "x86_64")]
    if dst.len() <= 64 && super::unary::has_avx512() {
        // SAFETY: AVX-512F was just detected; both slices hold `dst.len()` floats.
        unsafe { copy_masked(dst, src) };
        return;
    }
    dst.copy_from_slice(src);
}

/// [`copy_short`] with AVX-512: 16 floats at a time, the last run masked (also the row copy
/// of `depthwise_avx512::copy_rows`).
///
/// # Safety
/// The CPU must support AVX-512F; `src.len() == dst.len()`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
#[inline]
pub(super) unsafe fn copy_masked(dst: &mut [f32], src: &[f32]) {
    use std::arch::x86_64::*;
    let n = dst.len();
    let (s, d) = (src.as_ptr(), dst.as_mut_ptr());
    let mut i = 0;
    while i < n {
        let mask = ((1u32 << (n - i).min(16)) - 1) as u16;
        // SAFETY (caller): lanes i.. under the mask lie inside both slices.
        unsafe { _mm512_mask_storeu_ps(d.add(i), mask, _mm512_maskz_loadu_ps(mask, s.add(i))) };
        i += 16;
    }
}

/// `y` clamped to `[lo, hi]` in AVX-512, as `activation::clamp_value` does it: `vmaxps` and
/// `vminps` return their second operand when one is NaN, so with y second a NaN passes
/// through, and so does −0 against a bound of 0.
///
/// # Safety
/// The CPU has AVX-512F.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
#[inline]
pub(crate) unsafe fn clamp_avx512(
    y: std::arch::x86_64::__m512,
    lo: std::arch::x86_64::__m512,
    hi: std::arch::x86_64::__m512,
) -> std::arch::x86_64::__m512 {
    use std::arch::x86_64::{_mm512_max_ps, _mm512_min_ps};
    _mm512_min_ps(hi, _mm512_max_ps(lo, y))
}

/// The 8 × 8 transpose of 32-bit lanes in AVX2: `out[c]` lane r = `rows[r]` lane c (the
/// int8 GEMM's transposed C, `conv_direct`'s pixel-major sums into nchw planes).
#[cfg(target_arch = "x86_64")]
#[inline]
#[target_feature(enable = "avx2")]
pub(crate) fn transpose8_avx2(r: [std::arch::x86_64::__m256; 8]) -> [std::arch::x86_64::__m256; 8] {
    use std::arch::x86_64::*;
    let pd = _mm256_castps_pd;
    let u: [__m256; 8] = [
        _mm256_unpacklo_ps(r[0], r[1]),
        _mm256_unpackhi_ps(r[0], r[1]),
        _mm256_unpacklo_ps(r[2], r[3]),
        _mm256_unpackhi_ps(r[2], r[3]),
        _mm256_unpacklo_ps(r[4], r[5]),
        _mm256_unpackhi_ps(r[4], r[5]),
        _mm256_unpacklo_ps(r[6], r[7]),
        _mm256_unpackhi_ps(r[6], r[7]),
    ];
    // Per 128-bit half: columns 0..4 of rows 0..4 (q0..q3) and of rows 4..8 (q4..q7).
    let q = |x: __m256, y: __m256, hi: bool| {
        let (x, y) = (pd(x), pd(y));
        _mm256_castpd_ps(if hi { _mm256_unpackhi_pd(x, y) } else { _mm256_unpacklo_pd(x, y) })
    };
    let (q0, q1, q2, q3) = (q(u[0], u[2], false), q(u[0], u[2], true), q(u[1], u[3], false), q(u[1], u[3], true));
    let (q4, q5, q6, q7) = (q(u[4], u[6], false), q(u[4], u[6], true), q(u[5], u[7], false), q(u[5], u[7], true));
    [
        _mm256_permute2f128_ps::<0x20>(q0, q4),
        _mm256_permute2f128_ps::<0x20>(q1, q5),
        _mm256_permute2f128_ps::<0x20>(q2, q6),
        _mm256_permute2f128_ps::<0x20>(q3, q7),
        _mm256_permute2f128_ps::<0x31>(q0, q4),
        _mm256_permute2f128_ps::<0x31>(q1, q5),
        _mm256_permute2f128_ps::<0x31>(q2, q6),
        _mm256_permute2f128_ps::<0x31>(q3, q7),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn simd_paths_agree() {
        let x = webnn_core::testing::Rng::new(4).vec_f32(1003, -1.0, 1.0);
        let body = |v: &[f32]| -> Vec<f32> { v.iter().map(|a| a * 1.5 + 0.25).collect() };
        let dispatched = simd(
            #[inline(always)]
            || body(&x),
        );
        assert_eq!(dispatched, body(&x));
    }

    #[test]
    fn short_copies_copy_exactly_their_run() {
        let x = webnn_core::testing::Rng::new(5).vec_f32(100, -1.0, 1.0);
        for len in 0..=80 {
            for offset in [0, 1, 7] {
                // Sentinels around the destination run must stay.
                let mut dst = vec![f32::NAN; len + 20];
                copy_short(&mut dst[offset..offset + len], &x[3..3 + len]);
                assert!(dst[..offset].iter().all(|v| v.is_nan()), "len {len} offset {offset}: before");
                assert_eq!(&dst[offset..offset + len], &x[3..3 + len], "len {len} offset {offset}");
                assert!(dst[offset + len..].iter().all(|v| v.is_nan()), "len {len} offset {offset}: after");
            }
        }
    }
}

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
}

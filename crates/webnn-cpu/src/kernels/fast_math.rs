//! Branch-free single-precision exp, expm1, tanh and sigmoid that the compiler can vectorize
//! inside element-wise loops (the libm versions are opaque scalar calls).
//!
//! Method: x = k·ln2 + r with k = round(x/ln2) (found with the 1.5·2²³ rounding trick, no
//! float→int conversion), |r| ≤ ln2/2 after a two-part (Cody–Waite) reduction; eʳ − 1 from its
//! Taylor series up to r⁸ (truncation < 2⁻²⁸ relative); then scaled by 2ᵏ built from exponent
//! bits, in two factors so that subnormal and overflowing results round once. Accuracy over
//! the whole f32 range, checked in the tests against f64: exp ≤ 1 ULP, expm1 ≤ 2 ULP,
//! tanh ≤ 3 ULP, sigmoid ≤ 3 ULP. NaN propagates.

const MAGIC: f32 = 12_582_912.0; // 1.5 · 2²³: adding it rounds to an integer.
const LOG2E: f32 = std::f32::consts::LOG2_E;
const LN2_HI: f32 = 0.693_359_4; // 355/512: k·LN2_HI is exact for |k| < 2¹⁵.
const LN2_LO: f32 = -2.121_944_4e-4; // ln2 − LN2_HI

/// (k as f32, k as i32, r) with x = k·ln2 + r, |r| ≤ ~ln2/2. `x` must be finite and within
/// ±2²².
#[inline(always)]
fn reduce(x: f32) -> (f32, i32, f32) {
    let t = x * LOG2E + MAGIC;
    let k = (t.to_bits() as i32).wrapping_sub(MAGIC.to_bits() as i32);
    let kf = t - MAGIC;
    let r = (x - kf * LN2_HI) - kf * LN2_LO;
    (kf, k, r)
}

/// eʳ − 1 for |r| ≤ ~0.35: r + r²·(1/2 + r/6 + … + r⁶/40320).
#[inline(always)]
fn expm1_poly(r: f32) -> f32 {
    let p = 1.0 / 40320.0;
    let p = p * r + 1.0 / 5040.0;
    let p = p * r + 1.0 / 720.0;
    let p = p * r + 1.0 / 120.0;
    let p = p * r + 1.0 / 24.0;
    let p = p * r + 1.0 / 6.0;
    let p = p * r + 0.5;
    r + r * r * p
}

/// 2ᵏ for k in [−126, 127], from exponent bits.
#[inline(always)]
fn pow2(k: i32) -> f32 {
    f32::from_bits(((k + 127) as u32) << 23)
}

/// eˣ.
#[inline(always)]
pub fn exp_f32(x: f32) -> f32 {
    // Beyond these bounds the result is +∞ or +0 anyway; clamping keeps k in [−150, 128].
    let xc = x.clamp(-104.0, 89.0);
    let (_, k, r) = reduce(xc);
    let p = 1.0 + expm1_poly(r);
    let k1 = k >> 1;
    let y = p * pow2(k1) * pow2(k - k1);
    if x.is_nan() {
        x
    } else {
        y
    }
}

/// eˣ − 1, accurate near 0.
#[inline(always)]
pub fn expm1_f32(x: f32) -> f32 {
    // Below −30 the result is −1 in f32; above 89 it is +∞.
    let xc = x.clamp(-30.0, 89.0);
    let (_, k, r) = reduce(xc);
    let q = expm1_poly(r);
    // eˣ − 1 = 2ᵏ·(q + 1 − 2⁻ᵏ): 1 − 2⁻ᵏ is exact for k ≤ 24 and is 1 beyond.
    let c = 1.0 - pow2(-(k.min(25)));
    let k1 = k >> 1;
    let y = (q + c) * pow2(k1) * pow2(k - k1);
    if x.is_nan() {
        x
    } else {
        y
    }
}

/// tanh x = expm1(2|x|) / (expm1(2|x|) + 2), with the sign of x.
#[inline(always)]
pub fn tanh_f32(x: f32) -> f32 {
    // tanh is ±1 in f32 beyond |x| = 9.01.
    let a = x.abs().min(9.5);
    let e = expm1_f32(2.0 * a);
    let t = e / (e + 2.0);
    let y = t.copysign(x);
    if x.is_nan() {
        x
    } else {
        y
    }
}

/// 1 / (1 + e⁻ˣ), evaluated as eˣ / (1 + eˣ) for negative x (no overflow of e⁻ˣ, so
/// subnormal results survive).
#[inline(always)]
pub fn sigmoid_f32(x: f32) -> f32 {
    let e = exp_f32(-x.abs());
    let s = 1.0 / (1.0 + e);
    if x < 0.0 {
        e * s
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sign-magnitude ULP distance between an f32 result and the f64 truth rounded to f32.
    fn ulp(got: f32, want: f64) -> u64 {
        let w = want as f32;
        if got.is_nan() && w.is_nan() || got == w {
            return 0;
        }
        let key = |v: f32| if v < 0.0 { -(v.abs().to_bits() as i64) } else { v.to_bits() as i64 };
        (key(got) - key(w)).unsigned_abs()
    }

    /// Every 97th f32 bit pattern (~44 million values over the whole range, both signs) in
    /// release builds, every 4099th in debug builds.
    fn sweep(mut f: impl FnMut(f32)) {
        let step = if cfg!(debug_assertions) { 4099 } else { 97 };
        let mut b: u64 = 0;
        while b <= u32::MAX as u64 {
            f(f32::from_bits(b as u32));
            b += step;
        }
    }

    fn check(name: &str, fast: fn(f32) -> f32, exact: fn(f64) -> f64, tol: u64) {
        let mut worst = (0u64, 0.0f32);
        sweep(|x| {
            let d = ulp(fast(x), exact(x as f64));
            if d > worst.0 {
                worst = (d, x);
            }
        });
        assert!(worst.0 <= tol, "{name}: {} ULP at {:e} (got {:e}, want {:e})", worst.0, worst.1, fast(worst.1), exact(worst.1 as f64));
    }

    #[test]
    fn exp_is_within_1_ulp() {
        check("exp", exp_f32, f64::exp, 1);
    }

    #[test]
    fn expm1_is_within_2_ulp() {
        check("expm1", expm1_f32, f64::exp_m1, 2);
    }

    #[test]
    fn tanh_is_within_3_ulp() {
        check("tanh", tanh_f32, f64::tanh, 3);
    }

    #[test]
    fn sigmoid_is_within_3_ulp() {
        check("sigmoid", sigmoid_f32, |x| 1.0 / (1.0 + (-x).exp()), 3);
    }

    #[test]
    fn special_values() {
        assert_eq!(exp_f32(f32::INFINITY), f32::INFINITY);
        assert_eq!(exp_f32(f32::NEG_INFINITY), 0.0);
        assert_eq!(exp_f32(0.0), 1.0);
        assert_eq!(exp_f32(88.8), f32::INFINITY);
        assert!(ulp(exp_f32(88.72), (88.72f32 as f64).exp()) <= 1);
        assert!(exp_f32(f32::NAN).is_nan());
        assert_eq!(expm1_f32(f32::NEG_INFINITY), -1.0);
        assert_eq!(expm1_f32(f32::INFINITY), f32::INFINITY);
        assert_eq!(expm1_f32(-0.0), 0.0);
        assert!(expm1_f32(f32::NAN).is_nan());
        assert_eq!(tanh_f32(f32::INFINITY), 1.0);
        assert_eq!(tanh_f32(f32::NEG_INFINITY), -1.0);
        assert_eq!(tanh_f32(-0.0).to_bits(), (-0.0f32).to_bits());
        assert!(tanh_f32(f32::NAN).is_nan());
        assert_eq!(sigmoid_f32(f32::NEG_INFINITY), 0.0);
        assert_eq!(sigmoid_f32(f32::INFINITY), 1.0);
        assert!(sigmoid_f32(f32::NAN).is_nan());
    }
}

#[cfg(test)]
mod bench {
    use super::*;

    /// Single-thread comparison with libm (run with `cargo test --release -p webnn-cpu
    /// fast_math_bench -- --ignored --nocapture`).
    #[test]
    #[ignore]
    fn fast_math_bench() {
        let x: Vec<f32> = (0..1 << 20).map(|i| ((i % 2000) as f32 - 1000.0) / 100.0).collect();
        let mut y = vec![0.0f32; x.len()];
        let mut time = |name: &str, f: &dyn Fn(&[f32], &mut [f32])| {
            f(&x, &mut y);
            let t = std::time::Instant::now();
            for _ in 0..20 {
                f(&x, &mut y);
            }
            println!("{name}: {:.3} ns/elem", t.elapsed().as_nanos() as f64 / 20.0 / x.len() as f64);
        };
        for _ in 0..2 {
            time("libm exp", &|x, y| y.iter_mut().zip(x).for_each(|(o, &v)| *o = v.exp()));
            time("exp_f32", &|x, y| y.iter_mut().zip(x).for_each(|(o, &v)| *o = exp_f32(v)));
            time("libm tanh", &|x, y| y.iter_mut().zip(x).for_each(|(o, &v)| *o = v.tanh()));
            time("tanh_f32", &|x, y| y.iter_mut().zip(x).for_each(|(o, &v)| *o = tanh_f32(v)));
            time("libm expm1", &|x, y| y.iter_mut().zip(x).for_each(|(o, &v)| *o = v.exp_m1()));
            time("expm1_f32", &|x, y| y.iter_mut().zip(x).for_each(|(o, &v)| *o = expm1_f32(v)));
            time("sigmoid_f32", &|x, y| y.iter_mut().zip(x).for_each(|(o, &v)| *o = sigmoid_f32(v)));
            time("copy", &|x, y| y.copy_from_slice(x));
        }
    }
}

//! Branch-free single-precision exp, expm1, tanh, sigmoid, erf and gelu that the compiler can vectorize
//! inside element-wise loops (the libm versions are opaque scalar calls).
//!
//! Method: x = k·ln2 + r with k = round(x/ln2) (found with the 1.5·2²³ rounding trick, no
//! float→int conversion), |r| ≤ ln2/2 after a two-part (Cody–Waite) reduction; eʳ − 1 from its
//! Taylor series up to r⁸ (truncation < 2⁻²⁸ relative); then scaled by 2ᵏ built from exponent
//! bits, in two factors so that subnormal and overflowing results round once. Accuracy over
//! the whole f32 range, checked in the tests against f64: exp ≤ 1 ULP, expm1 ≤ 2 ULP,
//! tanh ≤ 3 ULP, sigmoid ≤ 3 ULP, erf ≤ 3 ULP, gelu ≤ 6 ULP. NaN propagates. erf and gelu use
//! polynomial fits made for this file (least squares at Chebyshev nodes in 50-digit arithmetic).

/// 1.5·2²³: adding it to |t| < 2²² rounds t to an integer (to nearest, ties to even) in the
/// low bits; subtracting it again gives that integer as a float.
pub(crate) const MAGIC: f32 = 12_582_912.0;
const LOG2E: f32 = std::f32::consts::LOG2_E;
/// ln2 in two parts for Cody–Waite reduction: 355/512 (k·LN2_HI is exact for |k| < 2¹⁵) …
pub(crate) const LN2_HI: f32 = 0.693_359_4;
/// … and ln2 − LN2_HI.
pub(crate) const LN2_LO: f32 = -2.121_944_4e-4;

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
    // Above 89 the result is +∞ anyway; clamping keeps k ≤ 128. Below −104 it is +0: see
    // `UNDERFLOW`.
    let zero = x < UNDERFLOW;
    let xc = if zero { 0.0 } else { x.min(89.0) };
    let (_, k, r) = reduce(xc);
    let p = 1.0 + expm1_poly(r);
    let k1 = k >> 1;
    let y = p * pow2(k1) * pow2(k - k1);
    let y = if zero { 0.0 } else { y };
    if x.is_nan() {
        x
    } else {
        y
    }
}

/// Below this exponent e^x rounds to +0. Lanes beyond it compute from 0 instead and take +0
/// at the end: scaling down to +0 goes through a subnormal product, and Intel CPUs take a
/// microcode assist (~150 cycles) for each such result, where AMD's cost is small. A padded
/// attention mask (−10000 added to the logits of padding) made BERT-base's softmax steps 4×
/// slower that way (0.55 → 2.3 ms each, 1 thread, Xeon model 207).
pub(crate) const UNDERFLOW: f32 = -104.0;

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

/// m · e^(hi + lo), where lo is a small correction term of hi (carried through the reduction
/// instead of being rounded into hi) and m is applied before the final power-of-two scaling
/// (so that a subnormal result is rounded once, not twice).
#[inline(always)]
fn exp_hl_scaled(hi: f32, lo: f32, m: f32) -> f32 {
    // Below −104 the result is ±0 (the sign of m; NaN if m is): computed from 0 and
    // replaced, as in `exp_f32` (no subnormal products on the way to 0).
    let zero = hi + lo < UNDERFLOW;
    let (hi, lo) = if zero { (0.0, 0.0) } else { (hi, lo) };
    let x = (hi + lo).min(89.0);
    let t = x * LOG2E + MAGIC;
    let k = (t.to_bits() as i32).wrapping_sub(MAGIC.to_bits() as i32);
    let kf = t - MAGIC;
    let r = ((hi - kf * LN2_HI) + lo) - kf * LN2_LO;
    let p = 1.0 + expm1_poly(r);
    let k1 = k >> 1;
    let y = (p * m) * pow2(k1) * pow2(k - k1);
    if zero {
        m * 0.0
    } else {
        y
    }
}

/// Below this |x|, erf x = x·E(x²); above, erf x = 1 − erfc x.
const ERF_SPLIT: f32 = 0.875;

/// erf(x)/x as a polynomial in s = x² on [0, 0.875²] (least-squares fit, relative error
/// < 1e-8).
#[inline(always)]
#[allow(clippy::excessive_precision)]
fn erf_over_x(s: f32) -> f32 {
    let p = -6.199_344_7e-4;
    let p = p * s + 5.031_424_4e-3;
    let p = p * s - 2.679_094_9e-2;
    let p = p * s + 0.112_824_41;
    let p = p * s - 0.376_125_5;
    p * s + std::f32::consts::FRAC_2_SQRT_PI
}

/// m · erfc a for a ≥ 0.875, as m·e^(−a²)·t·G(t), t = 1/(1 + a/2), G a degree-9 least-squares
/// fit (relative error < 3e-9). `hi + lo` must be −a² computed without rounding error (see
/// `neg_square`), since e^(−a²) amplifies an error in a² by a².
#[inline(always)]
#[allow(clippy::excessive_precision)]
fn erfc_large(a: f32, hi: f32, lo: f32, m: f32) -> f32 {
    let t = 1.0 / (1.0 + 0.5 * a);
    let g = -7.806_534_5e-2;
    let g = g * t + 0.252_348_44;
    let g = g * t - 0.249_432_02;
    let g = g * t + 2.665_413_8e-2;
    let g = g * t - 2.580_725_7e-2;
    let g = g * t + 8.705_913_7e-2;
    let g = g * t + 0.176_015_88;
    let g = g * t + 0.246_846_1;
    let g = g * t + 0.282_094_56;
    let g = g * t + 0.282_094_8;
    exp_hl_scaled(hi, lo, m * (t * g))
}

/// (hi, lo) with hi + lo = −a² (hi exact: the square of a truncated to 12 significant bits).
#[inline(always)]
fn neg_square(a: f32) -> (f32, f32) {
    let a_hi = f32::from_bits(a.to_bits() & 0xFFFF_F000);
    (-(a_hi * a_hi), -((a - a_hi) * (a + a_hi)))
}

/// erf x (≤ 3 ULP).
#[inline(always)]
pub fn erf_f32(x: f32) -> f32 {
    let a = x.abs();
    let small = a * erf_over_x(a * a);
    // erfc underflows to 0 beyond 10.06; clamping keeps the computation finite.
    let al = a.clamp(ERF_SPLIT, 10.5);
    let (hi, lo) = neg_square(al);
    let large = 1.0 - erfc_large(al, hi, lo, 1.0);
    let y = if a < ERF_SPLIT { small } else { large };
    if x.is_nan() {
        x
    } else {
        y.copysign(x)
    }
}

/// gelu x = x/2 · (1 + erf(x/√2)) (≤ 6 ULP), using erfc(|x|/√2) away from 0 (no cancellation for
/// x ≪ 0), with (x/√2)² = x²/2 formed exactly for the e^(−z²) factor.
#[inline(always)]
pub fn gelu_f32(x: f32) -> f32 {
    let z = x * std::f32::consts::FRAC_1_SQRT_2;
    let az = z.abs();
    let small = 0.5 * x * (1.0 + z * erf_over_x(z * z));
    let a = x.abs().min(15.0);
    let (hi, lo) = neg_square(a);
    let al = az.clamp(ERF_SPLIT, 10.5);
    // x/2 · erfc(|z|)
    let e = erfc_large(al, 0.5 * hi, 0.5 * lo, 0.5 * x);
    // x ≥ 0: x/2 · (2 − erfc z) = x − x/2·erfc z; x < 0: x/2 · erfc |z|.
    let large = if x >= 0.0 { x - e } else { e };
    let y = if az < ERF_SPLIT { small } else { large };
    // Beyond ±15 the result is x, or rounds to −0 (and ∞ − ∞, −∞ · 0 would be NaN).
    if x > 15.0 {
        x
    } else if x < -14.4 {
        -0.0
    } else {
        y
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use webnn_core::testing::ulp_f32;

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
            let d = ulp_f32(fast(x), exact(x as f64));
            if d > worst.0 {
                worst = (d, x);
            }
        });
        assert!(
            worst.0 <= tol,
            "{name}: {} ULP at {:e} (got {:e}, want {:e})",
            worst.0,
            worst.1,
            fast(worst.1),
            exact(worst.1 as f64)
        );
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
    fn erf_is_within_3_ulp() {
        check("erf", erf_f32, libm::erf, 3);
    }

    #[test]
    fn gelu_is_within_6_ulp() {
        check("gelu", gelu_f32, |x| 0.5 * x * libm::erfc(-x * std::f64::consts::FRAC_1_SQRT_2), 6);
    }

    #[test]
    fn special_values() {
        assert_eq!(erf_f32(f32::INFINITY), 1.0);
        assert_eq!(erf_f32(f32::NEG_INFINITY), -1.0);
        assert!(erf_f32(f32::NAN).is_nan());
        assert_eq!(gelu_f32(f32::INFINITY), f32::INFINITY);
        assert_eq!(gelu_f32(f32::NEG_INFINITY), 0.0);
        assert!(gelu_f32(f32::NAN).is_nan());
        assert_eq!(exp_f32(f32::INFINITY), f32::INFINITY);
        assert_eq!(exp_f32(f32::NEG_INFINITY), 0.0);
        assert_eq!(exp_f32(0.0), 1.0);
        assert_eq!(exp_f32(88.8), f32::INFINITY);
        assert!(ulp_f32(exp_f32(88.72), (88.72f32 as f64).exp()) <= 1);
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

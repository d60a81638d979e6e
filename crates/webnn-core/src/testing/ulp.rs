//! ULP distances, counted the way the WPT harness counts float32 (`wpt/README.md` §5): the
//! expected value is rounded to the result's type (round to nearest even), each value is
//! mapped to `sign × bits(|x|)` and the distance is the difference, so it counts through zero
//! (`+tiny` and `−tiny` are the sum of their magnitudes apart) and `+0` equals `−0`.
//!
//! float16 is counted the same way. (The WPT snapshot subtracts raw float16 bit patterns,
//! which differs only for values of opposite signs: there it puts `+Inf` within 1024 of `−0`.
//! The conformance harness reproduces that; tests here count through zero.)
//!
//! NaN against NaN is 0 (payloads and signs are not compared); NaN against a number is
//! `u64::MAX`.

use crate::types::DataType;
use half::f16;

/// `sign × magnitude bits` of a float whose magnitude bits are `bits` and sign `negative`.
fn ordinal(bits: u64, negative: bool) -> i64 {
    if negative {
        -(bits as i64)
    } else {
        bits as i64
    }
}

/// ULP distance between a float32 result and `want` rounded to float32 (`want` may be an
/// f64 reference or a float32 value).
pub fn ulp_f32(got: f32, want: impl Into<f64>) -> u64 {
    let want = want.into() as f32;
    if got.is_nan() || want.is_nan() {
        return if got.is_nan() && want.is_nan() { 0 } else { u64::MAX };
    }
    let key = |v: f32| ordinal(v.abs().to_bits() as u64, v < 0.0);
    (key(got) - key(want)).unsigned_abs()
}

/// ULP distance between a float16 result and `want` rounded to float16 (`want` may be an
/// f64 reference or a float16 value).
pub fn ulp_f16(got: f16, want: impl Into<f64>) -> u64 {
    let want = f16::from_f64(want.into());
    if got.is_nan() || want.is_nan() {
        return if got.is_nan() && want.is_nan() { 0 } else { u64::MAX };
    }
    let key = |v: f16| ordinal((v.to_bits() & 0x7FFF) as u64, v.is_sign_negative());
    (key(got) - key(want)).unsigned_abs()
}

/// ULP distance in float type `dt` between `got` (a value of `dt`, widened to f64) and `want`
/// rounded to `dt`: [`ulp_f16`] for float16, [`ulp_f32`] for every other type.
pub fn ulp(dt: DataType, got: f64, want: f64) -> u64 {
    match dt {
        DataType::Float16 => ulp_f16(f16::from_f64(got), want),
        _ => ulp_f32(got as f32, want),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_through_zero_and_equal_zeros_pass() {
        let tiny = f32::from_bits(1);
        assert_eq!(ulp_f32(tiny, -(tiny as f64)), 2);
        assert_eq!(ulp_f32(0.0, -0.0f64), 0);
        assert_eq!(ulp_f32(1.0, 1.0f32), 0);
        assert_eq!(ulp_f32(f32::from_bits(0x3F80_0001), 1.0f64), 1);
        assert_eq!(ulp_f32(-1.0, -1.0 - f32::EPSILON as f64), 1);
        // The f64 reference is rounded to f32 first.
        assert_eq!(ulp_f32(1.0, 1.0 + 1e-12), 0);
        assert_eq!(ulp_f32(f32::INFINITY, f64::INFINITY), 0);
        assert_eq!(ulp_f32(f32::MAX, f64::INFINITY), 1);
        assert_eq!(ulp_f32(f32::NAN, f64::NAN), 0);
        assert_eq!(ulp_f32(f32::NAN, 1.0f64), u64::MAX);
        assert_eq!(ulp_f32(1.0, f64::NAN), u64::MAX);
    }

    #[test]
    fn float16_counts_the_same_way() {
        let tiny = f16::from_bits(1);
        assert_eq!(ulp_f16(tiny, -tiny.to_f64()), 2);
        assert_eq!(ulp_f16(f16::ZERO, f16::NEG_ZERO), 0);
        assert_eq!(ulp_f16(f16::from_bits(0x3C01), 1.0), 1);
        assert_eq!(ulp_f16(f16::from_bits(0xBC01), -1.0), 1);
        assert_eq!(ulp_f16(f16::INFINITY, 1e9), 0);
        assert_eq!(ulp_f16(f16::NAN, f64::NAN), 0);
        assert_eq!(ulp_f16(f16::NAN, 0.5), u64::MAX);
        assert_eq!(ulp(DataType::Float16, 1.0, 1.0 + 2f64.powi(-10)), 1);
        assert_eq!(ulp(DataType::Float32, 1.0, 1.0 + 2f64.powi(-23)), 1);
    }
}

//! The exact comparison rules of the vectors (wpt/README.md §5, from wpt's 2025-03 utils.js).

use crate::values::{integer, number};
use half::f16;
use serde_json::Value;
use webnn::DataType;

/// A case's tolerance: `ULP` (an integer distance) or `ATOL` (an absolute error).
#[derive(Debug, Clone, Copy)]
pub enum Tolerance {
    /// Units in the last place, on the data type's bit patterns.
    Ulp(f64),
    /// Absolute tolerance.
    Atol(f64),
}

/// The worst element of one output.
#[derive(Debug, Clone, Default)]
pub struct Mismatch {
    /// Index of the worst element.
    pub index: usize,
    /// Its error (ULP distance or absolute error; infinite for NaN mismatches).
    pub error: f64,
    /// Actual value, printed.
    pub actual: String,
    /// Expected value, printed.
    pub expected: String,
}

/// float32 sign-magnitude mapping of the harness: `(x < 0 ? -1 : 1) * bits32(f32(|x|))`.
fn f32_ordinal(x: f64) -> i64 {
    let bits = (x.abs() as f32).to_bits() as i64;
    if x < 0.0 {
        -bits
    } else {
        bits
    }
}

/// Compares `actual` (the output bytes) with `expected` (`data`, and `dataF16Bits` for float16)
/// under `tolerance`. Returns the worst element if any element fails.
pub fn compare(
    actual: &[u8],
    data_type: DataType,
    expected: &Value,
    expected_f16_bits: Option<&Value>,
    tolerance: Tolerance,
) -> Result<Option<Mismatch>, String> {
    let size = actual.len() / data_type.byte_size();
    // Rule 1: a single expected value is a fill, checked on at most 1000 elements.
    let count = match expected {
        Value::Array(items) => {
            if items.len() != size {
                return Err(format!("expected {} values, the output has {size}", items.len()));
            }
            items.len()
        }
        _ if size > 1 => size.min(1000),
        _ => 1,
    };
    let expected_at = |i: usize| -> &Value {
        match expected {
            Value::Array(items) => &items[i],
            single => single,
        }
    };
    let f16_bits_at = |i: usize| -> Option<&Value> {
        match expected_f16_bits? {
            Value::Array(items) => items.get(i),
            single => Some(single),
        }
    };
    let mut worst: Option<Mismatch> = None;
    for i in 0..count {
        let exp = expected_at(i);
        let (error, act_str, exp_str) = match data_type {
            DataType::Float32 => {
                let a = f32::from_le_bytes(actual[i * 4..i * 4 + 4].try_into().unwrap()) as f64;
                let e = number(exp)?;
                let err = match tolerance {
                    Tolerance::Atol(_) => atol_error(a, e),
                    Tolerance::Ulp(_) => {
                        if a == e || (a.is_nan() && e.is_nan()) {
                            0.0
                        } else if a.is_nan() || e.is_nan() {
                            f64::INFINITY
                        } else {
                            (f32_ordinal(a) - f32_ordinal(e)).unsigned_abs() as f64
                        }
                    }
                };
                (err, format!("{a}"), format!("{e}"))
            }
            DataType::Float16 => {
                let a_bits = u16::from_le_bytes([actual[i * 2], actual[i * 2 + 1]]);
                let a = f16::from_bits(a_bits).to_f64();
                let e = number(exp)?;
                let err = match tolerance {
                    Tolerance::Atol(_) => atol_error(a, e),
                    Tolerance::Ulp(_) => {
                        let b_bits = match f16_bits_at(i) {
                            Some(bits) => integer(bits)? as u16,
                            None => f16::from_f64(e).to_bits(),
                        };
                        if (a_bits & 0x7FFF) == 0 && (b_bits & 0x7FFF) == 0 {
                            0.0
                        } else {
                            (a_bits as i64 - b_bits as i64).unsigned_abs() as f64
                        }
                    }
                };
                (err, format!("{a} ({a_bits:#06x})"), format!("{e}"))
            }
            t => {
                let w = t.byte_size();
                let b = &actual[i * w..i * w + w];
                let a: i128 = match t {
                    DataType::Int32 => i32::from_le_bytes(b.try_into().unwrap()) as i128,
                    DataType::Uint32 => u32::from_le_bytes(b.try_into().unwrap()) as i128,
                    DataType::Int64 => i64::from_le_bytes(b.try_into().unwrap()) as i128,
                    DataType::Uint64 => u64::from_le_bytes(b.try_into().unwrap()) as i128,
                    DataType::Int8 => b[0] as i8 as i128,
                    _ => b[0] as i128,
                };
                let e = integer(exp)?;
                let err = match tolerance {
                    Tolerance::Atol(_) => atol_error(a as f64, e as f64),
                    Tolerance::Ulp(_) => (a - e).unsigned_abs() as f64,
                };
                (err, a.to_string(), e.to_string())
            }
        };
        let limit = match tolerance {
            Tolerance::Ulp(v) | Tolerance::Atol(v) => v,
        };
        if error > limit && worst.as_ref().is_none_or(|w| error > w.error) {
            worst = Some(Mismatch { index: i, error, actual: act_str, expected: exp_str });
        }
    }
    Ok(worst)
}

/// `|a − e|`; NaN or infinity on either side always fails (testharness approx_equals).
fn atol_error(a: f64, e: f64) -> f64 {
    if !a.is_finite() || !e.is_finite() {
        f64::INFINITY
    } else {
        (a - e).abs()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn ulp_counts_through_zero_and_equal_zeros_pass() {
        let a = (-0.0f32).to_le_bytes();
        assert!(compare(&a, DataType::Float32, &json!([0.0]), None, Tolerance::Ulp(0.0)).unwrap().is_none());
        let tiny = f32::from_bits(1).to_le_bytes();
        let m = compare(&tiny, DataType::Float32, &json!([-(f32::from_bits(1) as f64)]), None, Tolerance::Ulp(1.0))
            .unwrap()
            .unwrap();
        assert_eq!(m.error, 2.0);
        let nan = f32::NAN.to_le_bytes();
        assert!(compare(&nan, DataType::Float32, &json!(["NaN"]), None, Tolerance::Ulp(0.0)).unwrap().is_none());
        assert!(compare(&nan, DataType::Float32, &json!([1.0]), None, Tolerance::Ulp(100.0)).unwrap().is_some());
        let one = 1.0f32.to_le_bytes();
        assert!(compare(&one, DataType::Float32, &json!([1.0009765625]), None, Tolerance::Atol(0.0009765625))
            .unwrap()
            .is_none());
        assert!(compare(&one, DataType::Float32, &json!([1.002]), None, Tolerance::Atol(0.0009765625))
            .unwrap()
            .is_some());
    }

    #[test]
    fn float16_uses_raw_bit_distance() {
        let a = 0x3C01u16.to_le_bytes();
        let m = compare(&a, DataType::Float16, &json!([1.0]), Some(&json!([0x3C00])), Tolerance::Ulp(0.0)).unwrap();
        assert_eq!(m.unwrap().error, 1.0);
        let z = 0x8000u16.to_le_bytes();
        assert!(compare(&z, DataType::Float16, &json!([0.0]), Some(&json!([0])), Tolerance::Ulp(0.0))
            .unwrap()
            .is_none());
    }

    #[test]
    fn fill_checks_at_most_1000_elements() {
        let bytes: Vec<u8> = (0..2000).flat_map(|i| if i < 1000 { 5i32 } else { 6 }.to_le_bytes()).collect();
        assert!(compare(&bytes, DataType::Int32, &json!(5), None, Tolerance::Ulp(0.0)).unwrap().is_none());
        assert!(compare(&bytes, DataType::Int32, &json!(6), None, Tolerance::Ulp(0.0)).unwrap().is_some());
    }
}
#[cfg(test)]
mod scalar_fill {
    use super::*;
    #[test]
    fn scalar_expected_value_for_a_scalar_output() {
        let a = 1.5f32.to_le_bytes();
        let r = compare(&a, DataType::Float32, &serde_json::json!(1.5), None, Tolerance::Ulp(0.0));
        assert!(r.unwrap().is_none());
    }
}

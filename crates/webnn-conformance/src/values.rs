//! Decoding the vectors' JSON values (README §4: "NaN", "Infinity", "-0" and 64-bit integers as
//! strings; float16 as `dataF16Bits`) into tensor bytes, and back into comparable numbers.

use half::f16;
use serde_json::Value;
use webnn::DataType;

/// A JSON number or one of the special strings, as f64.
pub fn number(v: &Value) -> Result<f64, String> {
    match v {
        Value::Number(n) => n.as_f64().ok_or_else(|| format!("bad number {n}")),
        Value::String(s) => match s.as_str() {
            "NaN" => Ok(f64::NAN),
            "Infinity" => Ok(f64::INFINITY),
            "-Infinity" => Ok(f64::NEG_INFINITY),
            "-0" => Ok(-0.0),
            other => other.parse::<f64>().map_err(|e| format!("bad number {other:?}: {e}")),
        },
        Value::Bool(b) => Ok(*b as u8 as f64),
        other => Err(format!("expected a number, got {other}")),
    }
}

/// A JSON integer (number or decimal string) with full 64-bit precision.
pub fn integer(v: &Value) -> Result<i128, String> {
    match v {
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                Ok(i as i128)
            } else if let Some(u) = n.as_u64() {
                Ok(u as i128)
            } else {
                let f = n.as_f64().ok_or("bad number")?;
                Ok(f as i128)
            }
        }
        Value::String(s) => {
            s.parse::<i128>().or_else(|_| number(v).map(|f| f as i128)).map_err(|e| format!("{s}: {e}"))
        }
        other => Err(format!("expected an integer, got {other}")),
    }
}

/// The element values of `data` (an array, or one value meaning "fill") for `count` elements.
pub fn elements(data: &Value, count: usize) -> Vec<&Value> {
    match data {
        Value::Array(items) => items.iter().collect(),
        single => vec![single; count],
    }
}

/// Encodes `data` (and `f16_bits` for float16) as little-endian bytes of `count` elements.
pub fn encode(data: &Value, f16_bits: Option<&Value>, data_type: DataType, count: usize) -> Result<Vec<u8>, String> {
    let values = elements(data, count);
    if values.len() != count {
        return Err(format!("{} values for {count} elements", values.len()));
    }
    let mut out = Vec::with_capacity(count * data_type.byte_size());
    if data_type == DataType::Float16 {
        if let Some(bits) = f16_bits {
            let bits = elements(bits, count);
            for b in bits {
                let b = integer(b)? as u16;
                out.extend_from_slice(&b.to_le_bytes());
            }
            return Ok(out);
        }
    }
    for v in values {
        match data_type {
            DataType::Float32 => out.extend_from_slice(&(number(v)? as f32).to_le_bytes()),
            DataType::Float16 => out.extend_from_slice(&f16::from_f64(number(v)?).to_bits().to_le_bytes()),
            DataType::Int32 => out.extend_from_slice(&(integer(v)? as i32).to_le_bytes()),
            DataType::Uint32 => out.extend_from_slice(&(integer(v)? as u32).to_le_bytes()),
            DataType::Int64 => out.extend_from_slice(&(integer(v)? as i64).to_le_bytes()),
            DataType::Uint64 => out.extend_from_slice(&(integer(v)? as u64).to_le_bytes()),
            DataType::Int8 => out.extend_from_slice(&(integer(v)? as i8).to_le_bytes()),
            DataType::Uint8 => out.extend_from_slice(&(integer(v)? as u8).to_le_bytes()),
        }
    }
    Ok(out)
}

//! `MLNumber` ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder) typedef `(bigint or
//! unrestricted double)`) and the spec's *cast* of a number to an operand data type
//! ([spec](https://www.w3.org/TR/webnn/#algorithms-casting)), producing a typed [`Scalar`].

use super::DataType;
use half::f16;

/// `MLNumber`: a JS number or a bigint. Bigints keep full 64-bit precision (held as i128 so that
/// both int64 and uint64 ranges fit; larger bigints are clamped by the bindings).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum MLNumber {
    /// An `unrestricted double`.
    Double(f64),
    /// A `bigint`.
    BigInt(i128),
}

macro_rules! ml_number_from {
    ($($ty:ty => $variant:ident as $as:ty),+) => {$(
        impl From<$ty> for MLNumber {
            fn from(v: $ty) -> Self {
                MLNumber::$variant(v as $as)
            }
        }
    )+};
}

// JS numbers are doubles; 64-bit integers are bigints.
ml_number_from!(f64 => Double as f64, f32 => Double as f64, i32 => Double as f64, i64 => BigInt as i128, u64 => BigInt as i128);

/// `scalar` converted with `as` to `$t`; a float16 with `$half`.
macro_rules! scalar_as {
    ($scalar:expr, $t:ty, |$h:ident| $half:expr) => {
        match $scalar {
            Scalar::F16($h) => $half,
            Scalar::F32(v) => v as $t,
            Scalar::I32(v) => v as $t,
            Scalar::U32(v) => v as $t,
            Scalar::I64(v) => v as $t,
            Scalar::U64(v) => v as $t,
            Scalar::I8(v) => v as $t,
            Scalar::U8(v) => v as $t,
        }
    };
}

/// A value of one operand data type: the result of the
/// [spec](https://www.w3.org/TR/webnn/#algorithms-casting) cast.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Scalar {
    /// float32 value
    F32(f32),
    /// float16 value
    F16(f16),
    /// int32 value
    I32(i32),
    /// uint32 value
    U32(u32),
    /// int64 value
    I64(i64),
    /// uint64 value
    U64(u64),
    /// int8 value
    I8(i8),
    /// uint8 value
    U8(u8),
}

impl Scalar {
    /// The data type of the value.
    pub fn data_type(self) -> DataType {
        match self {
            Scalar::F32(_) => DataType::Float32,
            Scalar::F16(_) => DataType::Float16,
            Scalar::I32(_) => DataType::Int32,
            Scalar::U32(_) => DataType::Uint32,
            Scalar::I64(_) => DataType::Int64,
            Scalar::U64(_) => DataType::Uint64,
            Scalar::I8(_) => DataType::Int8,
            Scalar::U8(_) => DataType::Uint8,
        }
    }

    /// The value as f64 (exact for every type but 64-bit integers beyond 2^53).
    pub fn to_f64(self) -> f64 {
        scalar_as!(self, f64, |h| h.to_f64())
    }

    /// The value as i128 for integer types (exact); floats are truncated toward zero
    /// (saturating, NaN → 0).
    pub fn to_i128(self) -> i128 {
        scalar_as!(self, i128, |h| h.to_f32() as i128)
    }

    /// Little-endian bytes of the value (as stored in a tensor).
    pub fn to_le_bytes(self) -> Vec<u8> {
        match self {
            Scalar::F32(v) => v.to_le_bytes().to_vec(),
            Scalar::F16(v) => v.to_bits().to_le_bytes().to_vec(),
            Scalar::I32(v) => v.to_le_bytes().to_vec(),
            Scalar::U32(v) => v.to_le_bytes().to_vec(),
            Scalar::I64(v) => v.to_le_bytes().to_vec(),
            Scalar::U64(v) => v.to_le_bytes().to_vec(),
            Scalar::I8(v) => v.to_le_bytes().to_vec(),
            Scalar::U8(v) => v.to_le_bytes().to_vec(),
        }
    }

    /// Compares two scalars of the same type numerically (`None` if either is NaN).
    pub fn partial_cmp_value(self, other: Scalar) -> Option<std::cmp::Ordering> {
        if self.data_type().is_float() {
            self.to_f64().partial_cmp(&other.to_f64())
        } else {
            Some(self.to_i128().cmp(&other.to_i128()))
        }
    }
}

impl std::fmt::Display for Scalar {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.data_type().is_float() {
            write!(f, "{}", self.to_f64())
        } else {
            write!(f, "{}", self.to_i128())
        }
    }
}

/// [spec](https://www.w3.org/TR/webnn/#algorithms-casting) ConvertToInt(x, bits, signedness) for a
/// double: NaN → 0, round half to even, clamp.
fn convert_double_to_int(x: f64, min: i128, max: i128) -> i128 {
    if x.is_nan() {
        return 0;
    }
    let r = x.round_ties_even();
    if r <= min as f64 {
        min
    } else if r >= max as f64 {
        max
    } else {
        r as i128
    }
}

impl MLNumber {
    /// The spec's *cast(x, dataType)* ([spec](https://www.w3.org/TR/webnn/#algorithms-casting)):
    /// ConvertToFloat for float types (round to nearest even, overflow to ±Infinity) and
    /// ConvertToInt for integer types (NaN → 0, clamp to the type's range, ties to even). uint32
    /// converts as unsigned (decisions.md D22).
    pub fn cast(self, data_type: DataType) -> Scalar {
        let int = |min: i128, max: i128| -> i128 {
            match self {
                MLNumber::Double(x) => convert_double_to_int(x, min, max),
                MLNumber::BigInt(v) => v.clamp(min, max),
            }
        };
        match data_type {
            DataType::Float32 => Scalar::F32(match self {
                MLNumber::Double(x) => x as f32,
                MLNumber::BigInt(v) => v as f32,
            }),
            DataType::Float16 => Scalar::F16(match self {
                MLNumber::Double(x) => f16::from_f64(x),
                // i128 -> f64 may round once; the result is then far beyond f16's range or exact.
                MLNumber::BigInt(v) => f16::from_f64(v as f64),
            }),
            DataType::Int32 => Scalar::I32(int(i32::MIN as i128, i32::MAX as i128) as i32),
            DataType::Uint32 => Scalar::U32(int(0, u32::MAX as i128) as u32),
            DataType::Int64 => Scalar::I64(int(i64::MIN as i128, i64::MAX as i128) as i64),
            DataType::Uint64 => Scalar::U64(int(0, u64::MAX as i128) as u64),
            DataType::Int8 => Scalar::I8(int(i8::MIN as i128, i8::MAX as i128) as i8),
            DataType::Uint8 => Scalar::U8(int(0, u8::MAX as i128) as u8),
        }
    }

    /// The value as f64 (bigints may round).
    pub fn to_f64(self) -> f64 {
        match self {
            MLNumber::Double(x) => x,
            MLNumber::BigInt(v) => v as f64,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cast_rules_of_section_9_2() {
        assert_eq!(MLNumber::from(300.0).cast(DataType::Int8), Scalar::I8(127));
        assert_eq!(MLNumber::from(-1.0).cast(DataType::Uint8), Scalar::U8(0));
        assert_eq!(MLNumber::from(2.5).cast(DataType::Int32), Scalar::I32(2));
        assert_eq!(MLNumber::from(3.5).cast(DataType::Int32), Scalar::I32(4));
        assert_eq!(MLNumber::from(f64::NAN).cast(DataType::Int32), Scalar::I32(0));
        assert_eq!(MLNumber::from(f64::INFINITY).cast(DataType::Uint32), Scalar::U32(u32::MAX));
        assert_eq!(MLNumber::from(f64::NEG_INFINITY).cast(DataType::Int64), Scalar::I64(i64::MIN));
        assert_eq!(MLNumber::from(4294967295.0).cast(DataType::Uint32), Scalar::U32(4294967295));
        assert_eq!(MLNumber::BigInt(9007199254740993).cast(DataType::Int64), Scalar::I64(9007199254740993));
        assert_eq!(MLNumber::BigInt(u64::MAX as i128).cast(DataType::Uint64), Scalar::U64(u64::MAX));
        assert_eq!(MLNumber::from(1e40).cast(DataType::Float32), Scalar::F32(f32::INFINITY));
        assert_eq!(MLNumber::from(70000.0).cast(DataType::Float16), Scalar::F16(f16::INFINITY));
        assert_eq!(MLNumber::from(65504.0).cast(DataType::Float16), Scalar::F16(f16::MAX));
    }
}

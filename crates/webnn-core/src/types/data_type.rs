//! `MLOperandDataType` ([spec](https://www.w3.org/TR/webnn/#api-mloperanddescriptor)) and the
//! element sizes of
//! [spec](https://www.w3.org/TR/webnn/#appendices-mloperanddatatype-arraybufferview-compatibility).

use crate::error::{Error, Result};
use std::fmt;
use std::str::FromStr;

/// `MLOperandDataType`: the element type of an operand or tensor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DataType {
    /// `"float32"`
    Float32,
    /// `"float16"`
    Float16,
    /// `"int32"`
    Int32,
    /// `"uint32"`
    Uint32,
    /// `"int64"`
    Int64,
    /// `"uint64"`
    Uint64,
    /// `"int8"`
    Int8,
    /// `"uint8"`
    Uint8,
}

impl DataType {
    /// Every data type, in IDL order.
    pub const ALL: [DataType; 8] = [
        DataType::Float32,
        DataType::Float16,
        DataType::Int32,
        DataType::Uint32,
        DataType::Int64,
        DataType::Uint64,
        DataType::Int8,
        DataType::Uint8,
    ];

    /// The exact IDL enum string.
    pub fn as_str(self) -> &'static str {
        match self {
            DataType::Float32 => "float32",
            DataType::Float16 => "float16",
            DataType::Int32 => "int32",
            DataType::Uint32 => "uint32",
            DataType::Int64 => "int64",
            DataType::Uint64 => "uint64",
            DataType::Int8 => "int8",
            DataType::Uint8 => "uint8",
        }
    }

    /// Element size in bytes
    /// ([spec](https://www.w3.org/TR/webnn/#appendices-mloperanddatatype-arraybufferview-compatibility)
    /// ArrayBufferView table).
    pub fn byte_size(self) -> usize {
        match self {
            DataType::Float32 | DataType::Int32 | DataType::Uint32 => 4,
            DataType::Float16 => 2,
            DataType::Int64 | DataType::Uint64 => 8,
            DataType::Int8 | DataType::Uint8 => 1,
        }
    }

    /// True for float32 and float16.
    pub fn is_float(self) -> bool {
        matches!(self, DataType::Float32 | DataType::Float16)
    }

    /// True for the signed integer types.
    pub fn is_signed_int(self) -> bool {
        matches!(self, DataType::Int32 | DataType::Int64 | DataType::Int8)
    }

    /// The name of the matching JS typed array
    /// ([spec](https://www.w3.org/TR/webnn/#appendices-mloperanddatatype-arraybufferview-compatibility)).
    pub fn typed_array_name(self) -> &'static str {
        match self {
            DataType::Float32 => "Float32Array",
            DataType::Float16 => "Float16Array",
            DataType::Int32 => "Int32Array",
            DataType::Uint32 => "Uint32Array",
            DataType::Int64 => "BigInt64Array",
            DataType::Uint64 => "BigUint64Array",
            DataType::Int8 => "Int8Array",
            DataType::Uint8 => "Uint8Array",
        }
    }
}

impl fmt::Display for DataType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for DataType {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        DataType::ALL.into_iter().find(|t| t.as_str() == s).ok_or_else(|| {
            Error::type_error(format!("The provided value '{s}' is not a valid enum value of type MLOperandDataType."))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_round_trip() {
        for t in DataType::ALL {
            assert_eq!(t.as_str().parse::<DataType>().unwrap(), t);
        }
        assert_eq!("float64".parse::<DataType>().unwrap_err().kind, crate::ErrorKind::Type);
    }
}

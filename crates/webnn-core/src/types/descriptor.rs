//! `MLOperandDescriptor` ([spec](https://www.w3.org/TR/webnn/#api-mloperanddescriptor)) and
//! `MLTensorDescriptor` ([spec](https://www.w3.org/TR/webnn/#api-mltensordescriptor)), with the
//! spec's *check dimensions* and *byte length* algorithms using checked arithmetic.

use super::DataType;
use crate::error::{Error, Result};

/// The largest valid dimension and element count: the range of `long`
/// ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder) "valid dimension").
pub const MAX_DIMENSION: u64 = i32::MAX as u64;

/// The largest rank this implementation supports (the spec leaves it implementation-defined, #456).
pub const MAX_RANK: usize = 8;

/// `MLOperandDescriptor`: a data type and a shape.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct OperandDescriptor {
    /// `dataType`
    pub data_type: DataType,
    /// `shape`; empty for a scalar.
    pub shape: Vec<u32>,
}

/// True iff `d` is a *valid dimension*: an integer > 0 and ≤ 2^31−1.
pub fn is_valid_dimension(d: u64) -> bool {
    d > 0 && d <= MAX_DIMENSION
}

impl OperandDescriptor {
    /// Creates a descriptor (unchecked; see [`OperandDescriptor::check_dimensions`]).
    pub fn new(data_type: DataType, shape: impl Into<Vec<u32>>) -> Self {
        OperandDescriptor { data_type, shape: shape.into() }
    }

    /// The rank (size of the shape).
    pub fn rank(&self) -> usize {
        self.shape.len()
    }

    /// *element count*: the product of the shape (1 for a scalar), saturating.
    pub fn element_count(&self) -> u64 {
        element_count(&self.shape)
    }

    /// *byte length*: element count × element size, saturating.
    pub fn byte_length(&self) -> u64 {
        self.element_count().saturating_mul(self.data_type.byte_size() as u64)
    }

    /// The element count as `usize`, for a descriptor that passed *check dimensions*.
    pub fn len(&self) -> usize {
        self.element_count() as usize
    }

    /// True for a descriptor with no elements (never true for a valid descriptor).
    pub fn is_empty(&self) -> bool {
        self.element_count() == 0
    }

    /// The spec's *check dimensions*: every dimension valid, the rank supported, the element
    /// count a valid dimension. Errors are TypeErrors naming the offending value.
    pub fn check_dimensions(&self) -> Result<()> {
        if self.shape.len() > MAX_RANK {
            return Err(Error::type_error(format!(
                "rank {} of shape {:?} exceeds the maximum supported rank {MAX_RANK}",
                self.shape.len(),
                self.shape
            )));
        }
        for (i, &d) in self.shape.iter().enumerate() {
            if !is_valid_dimension(d as u64) {
                return Err(Error::type_error(format!(
                    "dimension {i} of shape {:?} is {d}; every dimension must be in [1, {MAX_DIMENSION}]",
                    self.shape
                )));
            }
        }
        let count = self.element_count();
        if !is_valid_dimension(count) {
            return Err(Error::type_error(format!(
                "shape {:?} has {count} elements; the element count must be at most {MAX_DIMENSION}",
                self.shape
            )));
        }
        Ok(())
    }
}

impl std::fmt::Display for OperandDescriptor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}{:?}", self.data_type, self.shape)
    }
}

/// Product of a shape (1 for a scalar), saturating at `u64::MAX`.
pub fn element_count(shape: &[u32]) -> u64 {
    shape.iter().fold(1u64, |acc, &d| acc.saturating_mul(d as u64))
}

/// `MLTensorDescriptor`: an operand descriptor plus usage flags
/// ([spec](https://www.w3.org/TR/webnn/#api-mltensordescriptor)).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TensorDescriptor {
    /// `dataType`
    pub data_type: DataType,
    /// `shape`
    pub shape: Vec<u32>,
    /// `readable` (default false): the tensor can be read with `readTensor`.
    pub readable: bool,
    /// `writable` (default false): the tensor can be written with `writeTensor`.
    pub writable: bool,
    /// `importableToWebGPU` (default false; MLTensor explainer): the tensor can be rented to
    /// a WebGPU (wgpu) device.
    pub importable_to_webgpu: bool,
}

impl TensorDescriptor {
    /// A descriptor with `readable` and `writable` false (the IDL defaults).
    pub fn new(data_type: DataType, shape: impl Into<Vec<u32>>) -> Self {
        TensorDescriptor {
            data_type,
            shape: shape.into(),
            readable: false,
            writable: false,
            importable_to_webgpu: false,
        }
    }
    /// Sets `importableToWebGPU`.
    pub fn importable_to_webgpu(mut self, importable: bool) -> Self {
        self.importable_to_webgpu = importable;
        self
    }
    /// Sets `readable`.
    pub fn readable(mut self, readable: bool) -> Self {
        self.readable = readable;
        self
    }
    /// Sets `writable`.
    pub fn writable(mut self, writable: bool) -> Self {
        self.writable = writable;
        self
    }
    /// The operand descriptor part (dataType and shape), used for descriptor equality.
    pub fn operand_descriptor(&self) -> OperandDescriptor {
        OperandDescriptor::new(self.data_type, self.shape.clone())
    }
    /// *byte length* of the descriptor.
    pub fn byte_length(&self) -> u64 {
        element_count(&self.shape).saturating_mul(self.data_type.byte_size() as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn check_dimensions_limits() {
        assert!(OperandDescriptor::new(DataType::Float32, []).check_dimensions().is_ok());
        assert!(OperandDescriptor::new(DataType::Float32, [2, 3]).check_dimensions().is_ok());
        assert!(OperandDescriptor::new(DataType::Float32, [0]).check_dimensions().is_err());
        assert!(OperandDescriptor::new(DataType::Float32, [u32::MAX]).check_dimensions().is_err());
        let big = OperandDescriptor::new(DataType::Uint8, [65536, 65536]);
        assert_eq!(big.check_dimensions().unwrap_err().kind, crate::ErrorKind::Type);
        assert!(OperandDescriptor::new(DataType::Uint8, [1; 9]).check_dimensions().is_err());
        assert_eq!(OperandDescriptor::new(DataType::Int64, [2, 3]).byte_length(), 48);
        assert_eq!(OperandDescriptor::new(DataType::Float16, []).byte_length(), 2);
    }
}

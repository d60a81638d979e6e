//! `MLOperand` ([spec](https://www.w3.org/TR/webnn/#api-mloperand)): a handle to a node of one
//! builder's graph.

use crate::graph::OperandId;
use crate::types::{DataType, OperandDescriptor};

/// Identifies one `MLGraphBuilder`; operands remember the builder that made them so that
/// *validate operand* (issue #572) can reject operands from another builder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BuilderId(pub(crate) u64);

/// `MLOperand`: an operand of a graph under construction, with its `dataType` and `shape`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Operand {
    pub(crate) builder: BuilderId,
    pub(crate) id: OperandId,
    pub(crate) descriptor: OperandDescriptor,
}

impl Operand {
    /// `dataType`
    pub fn data_type(&self) -> DataType {
        self.descriptor.data_type
    }
    /// `shape`
    pub fn shape(&self) -> &[u32] {
        &self.descriptor.shape
    }
    /// The operand's descriptor.
    pub fn descriptor(&self) -> &OperandDescriptor {
        &self.descriptor
    }
    /// The rank (size of `shape`).
    pub fn rank(&self) -> usize {
        self.descriptor.shape.len()
    }
    /// The id of this operand in its builder's graph.
    pub fn id(&self) -> OperandId {
        self.id
    }
}

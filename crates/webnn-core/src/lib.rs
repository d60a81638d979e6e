//! # webnn-core
//!
//! The spec surface of the W3C Web Neural Network API (CRD 2026-05-21) without a backend:
//! data types and descriptors, the `MLGraphBuilder` with every validation step of the spec for
//! all 95 operations, the `opSupportLimits()` table, and the graph IR handed to backends.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod backend;
pub mod builder;
pub mod bytes;
pub mod coverage;
pub mod error;
pub mod graph;
pub mod limits;
pub mod operand;
pub mod ops;
pub mod signatures;
pub mod types;
pub mod validate;
pub mod view;

#[doc(hidden)]
pub mod testing;

pub use builder::{ConstantTensorSource, ContextLink, GraphBuilder, NumberParam, OpParams};
pub use bytes::SharedBytes;
pub use error::{Error, ErrorKind, Result};
pub use graph::{Attrs, Graph, OperandId, Operation};
pub use limits::{OpSupportLimits, RankRange, TensorLimits};
pub use operand::Operand;
pub use ops::{LimitsKind, OpKind};
pub use types::options::*;
pub use types::*;

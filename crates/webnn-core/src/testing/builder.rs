//! Helpers shared by the validator table tests of this crate (compiled for its own tests only).

pub(crate) use crate::builder::{ContextLink, GraphBuilder};
pub(crate) use crate::error::{ErrorKind, Result};
pub(crate) use crate::operand::Operand;
pub(crate) use crate::ops::OpKind;
pub(crate) use crate::types::options::*;
pub(crate) use crate::types::{DataType, MLNumber, OperandDescriptor};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// A builder on a fresh, live context.
pub(crate) fn builder() -> GraphBuilder {
    GraphBuilder::new(ContextLink { id: 1, lost: Arc::new(AtomicBool::new(false)), limits: None }).unwrap()
}

/// A descriptor.
pub(crate) fn desc(t: DataType, shape: &[u32]) -> OperandDescriptor {
    OperandDescriptor::new(t, shape.to_vec())
}

/// Operator options with a label.
pub(crate) fn labeled(label: &str) -> OperatorOptions {
    OperatorOptions::labeled(label)
}

/// Asserts a TypeError whose message contains `needle`.
#[track_caller]
pub(crate) fn assert_type_error<T: std::fmt::Debug>(r: Result<T>, needle: &str) {
    match r {
        Ok(v) => panic!("expected TypeError containing {needle:?}, got Ok({v:?})"),
        Err(e) => {
            assert_eq!(e.kind, ErrorKind::Type, "{e}");
            assert!(e.message.contains(needle), "message {:?} should contain {needle:?}", e.message);
        }
    }
}

/// Asserts an error of the given kind.
#[track_caller]
pub(crate) fn assert_kind<T: std::fmt::Debug>(r: Result<T>, kind: ErrorKind) {
    match r {
        Ok(v) => panic!("expected {kind:?}, got Ok({v:?})"),
        Err(e) => assert_eq!(e.kind, kind, "{e}"),
    }
}

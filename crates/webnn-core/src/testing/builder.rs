//! Helpers shared by the builder and validator tests of this crate (compiled for its own tests
//! only).

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

/// Checks `r` against `expect` (the output shape, of data type `t`, or a needle of the TypeError
/// message); `row` names the row in failures.
#[track_caller]
pub(crate) fn check<T: std::fmt::Debug>(
    r: Result<Operand>,
    t: DataType,
    expect: Result<&[u32], &str>,
    row: T,
) -> Option<Operand> {
    match (r, expect) {
        (Ok(o), Ok(shape)) => {
            assert_eq!(o.descriptor(), &desc(t, shape), "row {row:?}");
            Some(o)
        }
        (Err(e), Err(needle)) => {
            assert_eq!(e.kind, ErrorKind::Type, "row {row:?}: {e}");
            assert!(e.message.contains(needle), "row {row:?}: message {:?} should contain {needle:?}", e.message);
            None
        }
        (r, expect) => panic!("row {row:?}: expected {expect:?}, got {r:?}"),
    }
}

/// Builds the graph with `outs` as outputs and returns the attributes of the last operation.
pub(crate) fn built_attrs(b: &mut GraphBuilder, outs: &[&Operand]) -> crate::graph::Operation {
    let names: Vec<String> = (0..outs.len()).map(|i| format!("out{i}")).collect();
    let named: Vec<(&str, &Operand)> = names.iter().map(String::as_str).zip(outs.iter().copied()).collect();
    let g = b.build(&named).unwrap();
    g.operations.last().unwrap().clone()
}

/// Asserts that a failing call left the graph unchanged.
#[track_caller]
pub(crate) fn assert_nothing_added<T: std::fmt::Debug>(b: &GraphBuilder, before: usize, r: &Result<T>) {
    if r.is_err() {
        assert_eq!(b.operation_count(), before, "a throwing call adds nothing");
    }
}

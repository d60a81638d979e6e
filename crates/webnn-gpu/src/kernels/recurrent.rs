//! (Not written yet: this family executes nothing on the GPU, so the GPU limits leave its
//! ops out.)

use super::{Lowering, Work};
use webnn_core::graph::Operation;
use webnn_core::{DataType, OpKind, Result};

/// Whether this family executes `member` of `op` with `dt` (a type the GPU stores).
pub(super) fn executes(op: OpKind, member: &str, dt: DataType) -> bool {
    let _ = (op, member, dt);
    false
}

/// Lowers an op of this family, or None if `op` is not one.
pub(super) fn lower(op: &Operation, l: &Lowering) -> Result<Option<Work>> {
    let _ = (op, l);
    Ok(None)
}

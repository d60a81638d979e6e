//! Index-driven data movement: gather
//! ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-gather)), gatherElements
//! ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-gatherelements)), gatherND
//! ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-gathernd)), scatterElements
//! ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-scatterelements)) and scatterND
//! ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-scatternd)).
//!
//! Only shapes are validated here; index values are unknown at build time. Their valid range
//! is [−N, N), negative values wrap, and kernels clamp anything else (decisions.md D10).
//! The indices data type and the operand ranks of the limits table are checked by the builder
//! before these functions run.

use super::OpCall;
use crate::error::Result;
use crate::types::OperandDescriptor;

/// Fails unless `axis` indexes a dimension of `input`.
fn check_axis(call: &OpCall, input: &OperandDescriptor, axis: u32) -> Result<usize> {
    if axis as usize >= input.rank() {
        return Err(call.error(format_args!(
            "axis {axis} must be less than the input rank {} (input shape {:?})",
            input.rank(),
            input.shape
        )));
    }
    Ok(axis as usize)
}

/// Fails unless `what`'s rank equals the input's (the table's "same rank as input").
fn check_same_rank(call: &OpCall, input: &OperandDescriptor, other: &OperandDescriptor, what: &str) -> Result<()> {
    super::check_same_rank(call, what, other, "the input", input)
}

/// The last item of the indices shape (`coordinateSize` of gatherND/scatterND), which must not
/// exceed the input rank.
fn coordinate_size(call: &OpCall, input: &OperandDescriptor, indices: &OperandDescriptor) -> Result<usize> {
    let Some(&c) = indices.shape.last() else {
        // Unreachable after the limits check (indices rank >= 1); kept so no input can panic.
        return Err(call.error("indices must have rank 1 or more"));
    };
    if c as usize > input.rank() {
        return Err(call.error(format_args!(
            "indices shape {:?}: the coordinate size {c} (last dimension) is greater than the input rank {} (input shape {:?})",
            indices.shape,
            input.rank(),
            input.shape
        )));
    }
    Ok(c as usize)
}

/// `gather(input, indices, options)`
/// ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-gather)): output shape is
/// `input.shape[..axis] ++ indices.shape ++ input.shape[axis+1..]`.
pub(crate) fn gather(
    call: &OpCall,
    input: &OperandDescriptor,
    indices: &OperandDescriptor,
    axis: u32,
) -> Result<OperandDescriptor> {
    let axis = check_axis(call, input, axis)?;
    let mut shape = Vec::with_capacity(input.rank() + indices.rank());
    shape.extend_from_slice(&input.shape[..axis]);
    shape.extend_from_slice(&indices.shape);
    shape.extend_from_slice(&input.shape[axis + 1..]);
    Ok(OperandDescriptor::new(input.data_type, shape))
}

/// `gatherElements(input, indices, options)`
/// ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-gatherelements)): indices has the
/// input's shape except along `axis`; the output has the indices' shape and the input's type
/// (decisions.md D11).
pub(crate) fn gather_elements(
    call: &OpCall,
    input: &OperandDescriptor,
    indices: &OperandDescriptor,
    axis: u32,
) -> Result<OperandDescriptor> {
    check_same_rank(call, input, indices, "indices")?;
    let axis = check_axis(call, input, axis)?;
    check_indices_shape(call, input, indices, axis)?;
    Ok(OperandDescriptor::new(input.data_type, indices.shape.clone()))
}

/// The shared step of gatherElements and scatterElements: `indices.shape` must equal
/// `input.shape` with item `axis` replaced by `indices.shape[axis]`. Ranks are already equal.
fn check_indices_shape(
    call: &OpCall,
    input: &OperandDescriptor,
    indices: &OperandDescriptor,
    axis: usize,
) -> Result<()> {
    let mut expected = input.shape.clone();
    expected[axis] = indices.shape[axis];
    if indices.shape != expected {
        return Err(call.error(format_args!(
            "indices shape {:?} must equal the input shape {:?} except along axis {axis} (expected {expected:?})",
            indices.shape, input.shape
        )));
    }
    Ok(())
}

/// `gatherND(input, indices, options)`
/// ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-gathernd)): output shape is
/// `indices.shape[..-1] ++ input.shape[indices.shape[-1]..]`.
pub(crate) fn gather_nd(
    call: &OpCall,
    input: &OperandDescriptor,
    indices: &OperandDescriptor,
) -> Result<OperandDescriptor> {
    let c = coordinate_size(call, input, indices)?;
    let mut shape = indices.shape[..indices.rank() - 1].to_vec();
    shape.extend_from_slice(&input.shape[c..]);
    Ok(OperandDescriptor::new(input.data_type, shape))
}

/// Fails unless `updates` has the input's data type (the table's "same type as input").
fn check_updates_type(call: &OpCall, input: &OperandDescriptor, updates: &OperandDescriptor) -> Result<()> {
    if updates.data_type != input.data_type {
        return Err(call.error(format_args!(
            "updates data type {} must equal input data type {}",
            updates.data_type, input.data_type
        )));
    }
    Ok(())
}

/// `scatterElements(input, indices, updates, options)`
/// ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-scatterelements)): indices as for
/// gatherElements, updates of the indices' shape; the output is a copy of the input's descriptor.
pub(crate) fn scatter_elements(
    call: &OpCall,
    input: &OperandDescriptor,
    indices: &OperandDescriptor,
    updates: &OperandDescriptor,
    axis: u32,
) -> Result<OperandDescriptor> {
    check_updates_type(call, input, updates)?;
    check_same_rank(call, input, indices, "indices")?;
    check_same_rank(call, input, updates, "updates")?;
    let axis = check_axis(call, input, axis)?;
    check_indices_shape(call, input, indices, axis)?;
    if updates.shape != indices.shape {
        return Err(call.error(format_args!(
            "updates shape {:?} must equal the indices shape {:?}",
            updates.shape, indices.shape
        )));
    }
    Ok(input.clone())
}

/// `scatterND(input, indices, updates, options)`
/// ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-scatternd)): updates must have the shape
/// `indices.shape[..-1] ++ input.shape[indices.shape[-1]..]`; the output has the input's descriptor
/// (the "Returns" rank formula copied from gatherND is wrong; the steps rule).
pub(crate) fn scatter_nd(
    call: &OpCall,
    input: &OperandDescriptor,
    indices: &OperandDescriptor,
    updates: &OperandDescriptor,
) -> Result<OperandDescriptor> {
    check_updates_type(call, input, updates)?;
    let c = coordinate_size(call, input, indices)?;
    let mut expected = indices.shape[..indices.rank() - 1].to_vec();
    expected.extend_from_slice(&input.shape[c..]);
    if updates.shape != expected {
        return Err(call.error(format_args!(
            "updates shape {:?} must equal indices.shape[0:-1] ++ input.shape[{c}:] = {expected:?}",
            updates.shape
        )));
    }
    Ok(input.clone())
}

#[cfg(test)]
#[path = "gather_tests.rs"]
mod tests;

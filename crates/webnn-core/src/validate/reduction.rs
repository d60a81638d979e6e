//! argMin / argMax ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-argminmax)),
//! cumulativeSum ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-cumulativesum)) and the
//! reductions ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-reduce)): reduceL1, reduceL2,
//! reduceLogSum, reduceLogSumExp, reduceMax, reduceMean, reduceMin, reduceProduct, reduceSum,
//! reduceSumSquare.
//!
//! The input's data type and rank are checked by the limits table in `GraphBuilder::begin`;
//! the functions here run the op-specific steps that follow.

use super::activation::check_axis;
use super::reduction_output_shape;
use super::OpCall;
use crate::error::Result;
use crate::limits::member_limits;
use crate::types::{DataType, OperandDescriptor};

/// The largest value of an integer data type (None for float types).
fn max_value(t: DataType) -> Option<u64> {
    Some(match t {
        DataType::Int8 => i8::MAX as u64,
        DataType::Uint8 => u8::MAX as u64,
        DataType::Int32 => i32::MAX as u64,
        DataType::Uint32 => u32::MAX as u64,
        DataType::Int64 => i64::MAX as u64,
        DataType::Uint64 => u64::MAX,
        DataType::Float32 | DataType::Float16 => return None,
    })
}

/// *create an argMin/argMax operation*
/// ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-argminmax)) steps 4–8: axis in range,
/// outputDataType an allowed output type, the axis size representable in it, then the reduction
/// output shape.
pub(crate) fn arg_min_max(
    call: &OpCall,
    input: &OperandDescriptor,
    axis: u32,
    keep_dimensions: bool,
    output_data_type: DataType,
) -> Result<OperandDescriptor> {
    check_axis(call, input, axis)?;
    let allowed = member_limits(call.op, "output").map(|l| l.data_types).unwrap_or(&[]);
    if !allowed.contains(&output_data_type) {
        let names: Vec<_> = allowed.iter().map(|t| t.as_str()).collect();
        return Err(call
            .error(format_args!("outputDataType {output_data_type} is not allowed; allowed: [{}]", names.join(", "))));
    }
    // check_axis guarantees the index is in range.
    let size = input.shape.get(axis as usize).copied().unwrap_or(0);
    match max_value(output_data_type) {
        Some(max) if size as u64 <= max => {}
        _ => {
            return Err(call.error(format_args!(
                "input dimension {axis} of size {size} exceeds the largest {output_data_type} value"
            )))
        }
    }
    let (shape, _) = reduction_output_shape(&input.shape, Some(&[axis]), keep_dimensions).map_err(|e| call.error(e))?;
    Ok(OperandDescriptor::new(output_data_type, shape))
}

/// *create a reduction operation* ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-reduce)):
/// the output shape of *calculate reduction output sizes* (failure → TypeError) and the reduced
/// axes, sorted.
pub(crate) fn reduce(
    call: &OpCall,
    input: &OperandDescriptor,
    axes: Option<&[u32]>,
    keep_dimensions: bool,
) -> Result<(OperandDescriptor, Vec<u32>)> {
    let (shape, axes) = reduction_output_shape(&input.shape, axes, keep_dimensions).map_err(|e| call.error(e))?;
    Ok((OperandDescriptor::new(input.data_type, shape), axes))
}

/// `cumulativeSum()` ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-cumulativesum)) step
/// 4: the axis is in range; the output copies the input.
pub(crate) fn cumulative_sum(call: &OpCall, input: &OperandDescriptor, axis: u32) -> Result<OperandDescriptor> {
    check_axis(call, input, axis)?;
    Ok(input.clone())
}

#[cfg(test)]
#[path = "reduction_tests.rs"]
mod tests;

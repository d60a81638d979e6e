//! Activations and element-wise conversions with validation steps of their own: cast, clamp,
//! dequantizeLinear / quantizeLinear, elu / hardSigmoid / leakyRelu / linear (their scalar
//! attributes), prelu and softmax. The option-less activations (gelu, relu, sigmoid, ...) have
//! no steps beyond the limits check.
//!
//! The data types and ranks of every operand are checked by the limits table in
//! `GraphBuilder::begin`; the functions here run the op-specific steps that follow.

use super::conv::check_same_type;
use super::OpCall;
use super::{blockwise_broadcastable, broadcast_bidirectional};
use crate::error::Result;
use crate::graph::Attrs;
use crate::limits::member_limits;
use crate::ops::OpKind;
use crate::types::{DataType, MLNumber, OperandDescriptor, Scalar};

/// `cast()` ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-cast)) step 3: `dataType` must
/// be an allowed output data type. The output is (`dataType`, input's shape) — decisions.md D3 (the
/// spec text "copies" the input operand).
pub(crate) fn cast(call: &OpCall, input: &OperandDescriptor, data_type: DataType) -> Result<OperandDescriptor> {
    let allowed = member_limits(call.op, "output").map(|l| l.data_types).unwrap_or(&[]);
    if !allowed.contains(&data_type) {
        return Err(call.error(format_args!("dataType {data_type} is not an allowed output data type")));
    }
    Ok(OperandDescriptor::new(data_type, input.shape.clone()))
}

/// `clamp()` ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-clamp)) steps 3–7: the bounds,
/// cast to the input's data type.
///
/// decisions.md D4: an absent minValue is −∞ and an absent maxValue +∞ (the spec text swaps
/// them); both are cast per [spec](https://www.w3.org/TR/webnn/#algorithms-casting) (±∞ saturate to
/// an integer type's range); min > max is a TypeError, min == max is allowed. A NaN bound compares
/// false and is accepted.
pub(crate) fn clamp(
    call: &OpCall,
    input: &OperandDescriptor,
    min_value: Option<MLNumber>,
    max_value: Option<MLNumber>,
) -> Result<(Scalar, Scalar)> {
    let t = input.data_type;
    let min = min_value.unwrap_or(MLNumber::Double(f64::NEG_INFINITY)).cast(t);
    let max = max_value.unwrap_or(MLNumber::Double(f64::INFINITY)).cast(t);
    if min.partial_cmp_value(max) == Some(std::cmp::Ordering::Greater) {
        return Err(
            call.error(format_args!("minValue ({min}) must not be greater than maxValue ({max}) after casting to {t}"))
        );
    }
    Ok((min, max))
}

/// The attributes of elu, leakyRelu (alpha; beta 0), hardSigmoid and linear (alpha, beta):
/// each value cast to the input's data type
/// ([spec](https://www.w3.org/TR/webnn/#algorithms-casting)) and stored as f64.
pub(crate) fn alpha_beta(input: &OperandDescriptor, alpha: f64, beta: f64) -> Attrs {
    let cast = |v: f64| MLNumber::Double(v).cast(input.data_type).to_f64();
    Attrs::AlphaBeta { alpha: cast(alpha), beta: cast(beta) }
}

/// `prelu()` ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-prelu)) steps 3–5: slope has
/// the input's data type ("same as input" in the table); the output shape is the bidirectional
/// broadcast of slope's and input's shapes.
pub(crate) fn prelu(call: &OpCall, input: &OperandDescriptor, slope: &OperandDescriptor) -> Result<OperandDescriptor> {
    check_same_type(call, "slope", slope, "input", input)?;
    let shape = broadcast_bidirectional(&slope.shape, &input.shape).ok_or_else(|| {
        call.error(format_args!(
            "slope shape {:?} is not broadcastable with input shape {:?}",
            slope.shape, input.shape
        ))
    })?;
    Ok(OperandDescriptor::new(input.data_type, shape))
}

/// The axis check of softmax
/// ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-softmax-method)), cumulativeSum
/// ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-cumulativesum)) and argMin/argMax
/// ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-argminmax)): `axis` must be less than
/// the input's rank.
pub(crate) fn check_axis(call: &OpCall, input: &OperandDescriptor, axis: u32) -> Result<()> {
    if axis as usize >= input.rank() {
        return Err(call.error(format_args!(
            "axis {axis} must be less than the input rank {} (shape {:?})",
            input.rank(),
            input.shape
        )));
    }
    Ok(())
}

/// `softmax()` ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-softmax-method)) step 4: the
/// axis is in range; the output copies the input.
pub(crate) fn softmax(call: &OpCall, input: &OperandDescriptor, axis: u32) -> Result<OperandDescriptor> {
    check_axis(call, input, axis)?;
    Ok(input.clone())
}

/// `quantizeLinear()` ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-quantizelinear)) and
/// `dequantizeLinear()` ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-dequantizelinear)),
/// the steps after the limits-table data type checks.
///
/// dequantizeLinear: zeroPoint's data type equals input's; output = (scale type, input shape).
/// quantizeLinear: scale's data type equals input's; output = (zeroPoint type, input shape).
/// Both (decisions.md D8): scale and zeroPoint have the input's rank, equal shapes (the seed's
/// "equals" is a translation error for "is not equal"), and are blockwise broadcastable to the
/// input's shape.
pub(crate) fn quantize_dequantize(
    call: &OpCall,
    input: &OperandDescriptor,
    scale: &OperandDescriptor,
    zero_point: &OperandDescriptor,
) -> Result<OperandDescriptor> {
    let quantize = call.op == OpKind::QuantizeLinear;
    if quantize {
        if scale.data_type != input.data_type {
            return Err(call.error(format_args!(
                "scale data type {} must equal input data type {}",
                scale.data_type, input.data_type
            )));
        }
    } else if zero_point.data_type != input.data_type {
        return Err(call.error(format_args!(
            "zeroPoint data type {} must equal input data type {}",
            zero_point.data_type, input.data_type
        )));
    }
    if scale.rank() != input.rank() || zero_point.rank() != input.rank() {
        return Err(call.error(format_args!(
            "scale rank {} and zeroPoint rank {} must equal input rank {} (shapes {:?}, {:?}, {:?})",
            scale.rank(),
            zero_point.rank(),
            input.rank(),
            scale.shape,
            zero_point.shape,
            input.shape
        )));
    }
    if scale.shape != zero_point.shape {
        return Err(
            call.error(format_args!("scale shape {:?} must equal zeroPoint shape {:?}", scale.shape, zero_point.shape))
        );
    }
    if !blockwise_broadcastable(&scale.shape, &input.shape) {
        return Err(call.error(format_args!(
            "scale shape {:?} is not blockwise broadcastable to input shape {:?}",
            scale.shape, input.shape
        )));
    }
    if !blockwise_broadcastable(&zero_point.shape, &input.shape) {
        return Err(call.error(format_args!(
            "zeroPoint shape {:?} is not blockwise broadcastable to input shape {:?}",
            zero_point.shape, input.shape
        )));
    }
    let data_type = if quantize { zero_point.data_type } else { scale.data_type };
    Ok(OperandDescriptor::new(data_type, input.shape.clone()))
}

#[cfg(test)]
#[path = "activation_tests.rs"]
mod tests;

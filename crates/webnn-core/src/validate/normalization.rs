//! batchNormalization ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-batchnorm)),
//! instanceNormalization ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-instancenorm)) and
//! layerNormalization ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-layernorm)): pure
//! validation, (descriptors, options) → output descriptor and resolved attributes, or a TypeError.
//! The output is always a copy of the input's descriptor.

use super::conv::{cast_float, check_same_type, check_shape};
use super::OpCall;
use crate::error::Result;
use crate::graph::Attrs;
use crate::types::options::{BatchNormalizationOptions, InstanceNormalizationOptions, LayerNormalizationOptions};
use crate::types::{InputOperandLayout, OperandDescriptor};

/// Checks an optional per-channel operand (`scale` / `bias`): input's type, shape `[size]`.
fn check_channel_operand(
    call: &OpCall,
    member: &str,
    operand: Option<&OperandDescriptor>,
    input: &OperandDescriptor,
    size: u32,
) -> Result<()> {
    if let Some(desc) = operand {
        check_same_type(call, member, desc, "input", input)?;
        check_shape(call, member, desc, &[size as u64])?;
    }
    Ok(())
}

/// `batchNormalization()` ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-batchnorm)) after
/// the limits check: axis in range, mean / variance / scale / bias of input's type and shape
/// `[input.shape[axis]]`, epsilon cast to input's type.
pub(crate) fn batch_normalization(
    call: &OpCall,
    input: &OperandDescriptor,
    mean: &OperandDescriptor,
    variance: &OperandDescriptor,
    scale: Option<&OperandDescriptor>,
    bias: Option<&OperandDescriptor>,
    options: &BatchNormalizationOptions,
) -> Result<(OperandDescriptor, Attrs)> {
    let axis = options.axis;
    let Some(&channels) = input.shape.get(axis as usize) else {
        return Err(call.error(format_args!("axis {axis} is out of range for input rank {}", input.rank())));
    };
    check_channel_operand(call, "mean", Some(mean), input, channels)?;
    check_channel_operand(call, "variance", Some(variance), input, channels)?;
    let epsilon = cast_float(options.epsilon, input.data_type);
    check_channel_operand(call, "scale", scale, input, channels)?;
    check_channel_operand(call, "bias", bias, input, channels)?;
    Ok((input.clone(), Attrs::BatchNormalization { axis, epsilon }))
}

/// `instanceNormalization()` ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-instancenorm))
/// after the limits check: epsilon cast to input's type, scale / bias of input's type and shape
/// `[channels]` (axis 1 for "nchw", 3 for "nhwc").
pub(crate) fn instance_normalization(
    call: &OpCall,
    input: &OperandDescriptor,
    scale: Option<&OperandDescriptor>,
    bias: Option<&OperandDescriptor>,
    options: &InstanceNormalizationOptions,
) -> Result<(OperandDescriptor, Attrs)> {
    let epsilon = cast_float(options.epsilon, input.data_type);
    let axis = match options.layout {
        InputOperandLayout::Nchw => 1,
        InputOperandLayout::Nhwc => 3,
    };
    let Some(&channels) = input.shape.get(axis) else {
        return Err(call.error(format_args!("input must have rank 4, got shape {:?}", input.shape)));
    };
    check_channel_operand(call, "scale", scale, input, channels)?;
    check_channel_operand(call, "bias", bias, input, channels)?;
    Ok((input.clone(), Attrs::InstanceNormalization { epsilon, layout: options.layout }))
}

/// `layerNormalization()` ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-layernorm)) after
/// the limits check: axes default to `[1, rank)`; duplicate or out-of-range axes are a TypeError;
/// scale / bias have input's type and the input's sizes at `axes`, in `axes` order.
pub(crate) fn layer_normalization(
    call: &OpCall,
    input: &OperandDescriptor,
    scale: Option<&OperandDescriptor>,
    bias: Option<&OperandDescriptor>,
    options: &LayerNormalizationOptions,
) -> Result<(OperandDescriptor, Attrs)> {
    let rank = input.rank();
    let axes: Vec<u32> = match &options.axes {
        None => (1..rank.max(1) as u32).collect(),
        Some(axes) => {
            let mut seen = vec![false; rank];
            for &a in axes {
                let Some(slot) = seen.get_mut(a as usize) else {
                    return Err(call.error(format_args!("axis {a} in axes {axes:?} is out of range for rank {rank}")));
                };
                if std::mem::replace(slot, true) {
                    return Err(call.error(format_args!("axis {a} is repeated in axes {axes:?}")));
                }
            }
            axes.clone()
        }
    };
    let epsilon = cast_float(options.epsilon, input.data_type);
    // The expected scale / bias shape: input's sizes at `axes`, in `axes` order.
    let expected: Vec<u64> = axes.iter().map(|&a| input.shape[a as usize] as u64).collect();
    for (member, operand) in [("scale", scale), ("bias", bias)] {
        if let Some(desc) = operand {
            check_same_type(call, member, desc, "input", input)?;
            if desc.rank() != axes.len() {
                return Err(call.error(format_args!(
                    "{member} rank {} (shape {:?}) must equal the number of axes {} ({axes:?})",
                    desc.rank(),
                    desc.shape,
                    axes.len()
                )));
            }
        }
    }
    for (member, operand) in [("scale", scale), ("bias", bias)] {
        if let Some(desc) = operand {
            check_shape(call, member, desc, &expected)?;
        }
    }
    Ok((input.clone(), Attrs::LayerNormalization { axes, epsilon }))
}

#[cfg(test)]
#[path = "normalization_tests.rs"]
mod tests;

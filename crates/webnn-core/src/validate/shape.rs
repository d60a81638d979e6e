//! Data-movement ops that change or keep the shape without looking at values: concat
//! ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-concat)), expand
//! ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-expand)), pad
//! ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-pad)), reshape
//! ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-reshape-method)), reverse
//! ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-reverse-method)), slice
//! ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-slice)), split
//! ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-split)), tile
//! ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-tile)), transpose
//! ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-transpose)), triangular
//! ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-triangular)) and where
//! ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-where)). The index-driven ops
//! (gather/scatter) are in [`super::gather`].
//!
//! Every function runs the op's own checks in the spec's order, after the builder has done the
//! can-build, same-builder and limits-table checks, and returns the output descriptor(s) and the
//! resolved attributes. Sizes are computed in u64 so that no caller value can overflow.

use super::conv::check_same_type;
use super::OpCall;
use super::{broadcast_bidirectional, broadcast_unidirectional, check_same_rank, check_sizes_are_rank};
use crate::error::Result;
use crate::limits::member_limits;
use crate::types::options::{PadOptions, Splits};
use crate::types::{element_count, is_valid_dimension, OperandDescriptor, PaddingMode, Scalar};

/// The largest *valid tensor count* ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder),
/// 2026): concat inputs and split outputs.
pub const MAX_TENSOR_COUNT: usize = 8192;

/// *valid tensor count* ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder)): an integer
/// greater than zero and at most [`MAX_TENSOR_COUNT`].
pub fn is_valid_tensor_count(n: u64) -> bool {
    n > 0 && n <= MAX_TENSOR_COUNT as u64
}

/// Fails unless `rank` is an allowed rank of the op's `output` (the "not output tensor's
/// allowed ranks" steps of expand and reshape).
fn check_output_rank(call: &OpCall, rank: usize, what: &str) -> Result<()> {
    if let Some(l) = member_limits(call.op, "output") {
        if rank < l.rank_range.min as usize || rank > l.rank_range.max as usize {
            return Err(call.error(format_args!(
                "{what} has rank {rank}, which is not an allowed output rank [{}, {}]",
                l.rank_range.min, l.rank_range.max
            )));
        }
    }
    Ok(())
}

/// Fails unless every item of `shape` is a *valid dimension* and the element count is one.
fn check_valid_shape(call: &OpCall, shape: &[u64], what: &str) -> Result<Vec<u32>> {
    if let Some((i, d)) = shape.iter().enumerate().find(|(_, &d)| !is_valid_dimension(d)) {
        return Err(call.error(format_args!("{what} {shape:?}: item {i} ({d}) is not a valid dimension")));
    }
    let out: Vec<u32> = shape.iter().map(|&d| d as u32).collect();
    let count = element_count(&out);
    if !is_valid_dimension(count) {
        return Err(
            call.error(format_args!("{what} {shape:?} has {count} elements, more than the largest valid dimension"))
        );
    }
    Ok(out)
}

/// `concat(inputs, axis)` ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-concat)) after
/// the per-item limits check: valid tensor count, axis in range, equal data types and ranks, equal
/// sizes off the axis, valid summed axis size.
pub(crate) fn concat(call: &OpCall, inputs: &[&OperandDescriptor], axis: u32) -> Result<OperandDescriptor> {
    if !is_valid_tensor_count(inputs.len() as u64) {
        return Err(call.error(format_args!(
            "inputs size {} is not a valid tensor count (1 to {MAX_TENSOR_COUNT})",
            inputs.len()
        )));
    }
    let first = inputs[0];
    if axis as usize >= first.rank() {
        return Err(call.error(format_args!("axis {axis} must be less than the rank {} of inputs[0]", first.rank())));
    }
    let axis = axis as usize;
    let mut desc = first.clone();
    let mut axis_size = first.shape[axis] as u64;
    for (index, input) in inputs.iter().enumerate().skip(1) {
        let what = format!("inputs[{index}]");
        check_same_type(call, &what, input, "inputs[0]", first)?;
        check_same_rank(call, &what, input, "inputs[0]", first)?;
        for (dim, &size) in input.shape.iter().enumerate() {
            if dim != axis && size != first.shape[dim] {
                return Err(call.error(format_args!(
                    "inputs[{index}] shape {:?} differs from inputs[0] shape {:?} in dimension {dim} (not the axis {axis})",
                    input.shape, first.shape
                )));
            }
            if dim == axis {
                let sum = axis_size + size as u64;
                if !is_valid_dimension(sum) {
                    return Err(call.error(format_args!(
                        "the concatenated size {sum} along axis {axis} (through inputs[{index}]) is not a valid dimension"
                    )));
                }
                axis_size = sum;
            }
        }
    }
    desc.shape[axis] = axis_size as u32;
    Ok(desc)
}

/// `expand(input, newShape)` ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-expand)):
/// unidirectional broadcast of the input shape to `newShape`, an allowed output rank, and every
/// item a valid dimension (decisions.md D9).
pub(crate) fn expand(call: &OpCall, input: &OperandDescriptor, new_shape: &[u32]) -> Result<OperandDescriptor> {
    let shape = broadcast_unidirectional(&input.shape, new_shape).ok_or_else(|| {
        call.error(format_args!(
            "input shape {:?} is not unidirectionally broadcastable to newShape {new_shape:?}",
            input.shape
        ))
    })?;
    check_output_rank(call, shape.len(), "newShape")?;
    // decisions.md D9: newShape items must be valid dimensions (a 0 would otherwise pass the
    // broadcast rule against an input dimension of 1).
    let wide: Vec<u64> = shape.iter().map(|&d| d as u64).collect();
    let shape = check_valid_shape(call, &wide, "newShape")?;
    Ok(OperandDescriptor::new(input.data_type, shape))
}

/// `pad(input, beginningPadding, endingPadding, options)`
/// ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-pad)): returns the output descriptor and
/// the fill value cast to the input's data type.
pub(crate) fn pad(
    call: &OpCall,
    input: &OperandDescriptor,
    beginning: &[u32],
    ending: &[u32],
    options: &PadOptions,
) -> Result<(OperandDescriptor, Scalar)> {
    // decisions.md D13: either size different from the rank is an error.
    let rank = input.rank();
    check_sizes_are_rank(call, "beginningPadding", beginning.len(), "endingPadding", ending.len(), rank)?;
    let mut out = Vec::with_capacity(rank);
    for (index, &size) in input.shape.iter().enumerate() {
        let (b, e) = (beginning[index], ending[index]);
        if options.mode == PaddingMode::Reflection {
            // The reflection excludes the edge element, so at most size - 1 values exist on
            // either side: the spec rejects padding >= the input size.
            if b >= size {
                return Err(call.error(format_args!(
                    "reflection beginningPadding[{index}] ({b}) must be less than the input size {size} of that dimension"
                )));
            }
            if e >= size {
                return Err(call.error(format_args!(
                    "reflection endingPadding[{index}] ({e}) must be less than the input size {size} of that dimension"
                )));
            }
        }
        out.push(size as u64 + b as u64 + e as u64);
    }
    if let Some((i, d)) = out.iter().enumerate().find(|(_, &d)| !is_valid_dimension(d)) {
        return Err(call.error(format_args!("output size {d} of dimension {i} is not a valid dimension")));
    }
    let shape: Vec<u32> = out.iter().map(|&d| d as u32).collect();
    let value = options.value.cast(input.data_type);
    Ok((OperandDescriptor::new(input.data_type, shape), value))
}

/// `reshape(input, newShape)`
/// ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-reshape-method)): allowed output rank,
/// valid dimensions, same element count.
pub(crate) fn reshape(call: &OpCall, input: &OperandDescriptor, new_shape: &[u32]) -> Result<OperandDescriptor> {
    check_output_rank(call, new_shape.len(), "newShape")?;
    if let Some((i, d)) = new_shape.iter().enumerate().find(|(_, &d)| !is_valid_dimension(d as u64)) {
        return Err(call.error(format_args!("newShape {new_shape:?}: item {i} ({d}) is not a valid dimension")));
    }
    let input_count = input.element_count();
    let new_count = new_shape.iter().try_fold(1u64, |acc, &d| acc.checked_mul(d as u64));
    if new_count != Some(input_count) {
        let shown = new_count.map_or_else(|| "more than 2^64".to_string(), |c| c.to_string());
        return Err(call.error(format_args!(
            "newShape {new_shape:?} has {shown} elements but the input shape {:?} has {input_count}",
            input.shape
        )));
    }
    Ok(OperandDescriptor::new(input.data_type, new_shape.to_vec()))
}

/// `reverse(input, options)`
/// ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-reverse-method)): the reversed axes
/// (absent: all; empty: none), sorted. Duplicates or out-of-range axes are the spec's "return
/// failure", a TypeError (decisions.md D18).
pub(crate) fn reverse(call: &OpCall, input: &OperandDescriptor, axes: Option<&[u32]>) -> Result<Vec<u32>> {
    let rank = input.rank();
    let Some(axes) = axes else {
        return Ok((0..rank as u32).collect());
    };
    let mut seen = vec![false; rank];
    for &a in axes {
        if a as usize >= rank {
            return Err(call.error(format_args!("axes {axes:?}: axis {a} is not in the range [0, {rank})")));
        }
        if std::mem::replace(&mut seen[a as usize], true) {
            return Err(call.error(format_args!("axes {axes:?}: axis {a} is repeated")));
        }
    }
    Ok((0..rank as u32).filter(|&a| seen[a as usize]).collect())
}

/// `slice(input, starts, sizes, options)`
/// ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-slice)): returns the output descriptor
/// and the resolved strides (all 1 when absent). `sizes` is the extent in the input; the output
/// size is ceil(size / stride).
pub(crate) fn slice(
    call: &OpCall,
    input: &OperandDescriptor,
    starts: &[u32],
    sizes: &[u32],
    strides: Option<&[u32]>,
) -> Result<(OperandDescriptor, Vec<u32>)> {
    if let Some(i) = sizes.iter().position(|&s| s == 0) {
        return Err(call.error(format_args!("sizes {sizes:?}: item {i} is 0")));
    }
    let rank = input.rank();
    // The spec's "not both equal to input's rank": either size different is an error.
    check_sizes_are_rank(call, "starts", starts.len(), "sizes", sizes.len(), rank)?;
    let strides: Vec<u32> = match strides {
        Some(s) => {
            if s.len() != rank {
                return Err(call.error(format_args!("strides size {} must equal the input rank {rank}", s.len())));
            }
            s.to_vec()
        }
        None => vec![1; rank],
    };
    let mut shape = Vec::with_capacity(rank);
    for (index, &input_size) in input.shape.iter().enumerate() {
        let (start, size, stride) = (starts[index], sizes[index], strides[index]);
        // (The spec's per-dimension "size is 0" step repeats the check above.)
        if stride < 1 {
            return Err(call.error(format_args!("strides {strides:?}: item {index} is 0; strides must be at least 1")));
        }
        if start > input_size {
            return Err(call.error(format_args!(
                "starts[{index}] ({start}) is greater than the input size {input_size} of that dimension"
            )));
        }
        if start as u64 + size as u64 > input_size as u64 {
            return Err(call.error(format_args!(
                "starts[{index}] ({start}) + sizes[{index}] ({size}) exceeds the input size {input_size} of that dimension"
            )));
        }
        shape.push(size.div_ceil(stride));
    }
    Ok((OperandDescriptor::new(input.data_type, shape), strides))
}

/// `split(input, splits, options)` ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-split)):
/// returns the output descriptors and the size of every output along `axis`.
pub(crate) fn split(
    call: &OpCall,
    input: &OperandDescriptor,
    splits: &Splits,
    axis: u32,
) -> Result<(Vec<OperandDescriptor>, Vec<u32>)> {
    let rank = input.rank();
    if axis as usize >= rank {
        return Err(call.error(format_args!("axis {axis} must be less than the input rank {rank}")));
    }
    let axis = axis as usize;
    let dim = input.shape[axis];
    let sizes: Vec<u32> = match splits {
        Splits::Count(n) => {
            let n = *n;
            if !is_valid_tensor_count(n as u64) {
                return Err(
                    call.error(format_args!("splits {n} is not a valid tensor count (1 to {MAX_TENSOR_COUNT})"))
                );
            }
            #[allow(clippy::manual_is_multiple_of)] // is_multiple_of needs Rust 1.87; MSRV is 1.80
            if dim % n != 0 {
                return Err(
                    call.error(format_args!("the input size {dim} along axis {axis} is not divisible by splits {n}"))
                );
            }
            vec![dim / n; n as usize]
        }
        Splits::Sizes(v) => {
            if !is_valid_tensor_count(v.len() as u64) {
                return Err(call.error(format_args!(
                    "splits size {} is not a valid tensor count (1 to {MAX_TENSOR_COUNT})",
                    v.len()
                )));
            }
            if let Some(i) = v.iter().position(|&s| s == 0) {
                return Err(call.error(format_args!("splits {v:?}: item {i} is 0")));
            }
            let sum: u64 = v.iter().map(|&s| s as u64).sum();
            if sum != dim as u64 {
                return Err(call.error(format_args!(
                    "the sum {sum} of splits {v:?} must equal the input size {dim} along axis {axis}"
                )));
            }
            v.clone()
        }
    };
    let outputs = sizes
        .iter()
        .map(|&s| {
            let mut d = input.clone();
            d.shape[axis] = s;
            d
        })
        .collect();
    Ok((outputs, sizes))
}

/// `tile(input, repetitions)` ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-tile)): one
/// non-zero repetition per dimension; every output dimension and the element count must be valid
/// dimensions (decisions.md D20).
pub(crate) fn tile(call: &OpCall, input: &OperandDescriptor, repetitions: &[u32]) -> Result<OperandDescriptor> {
    if repetitions.len() != input.rank() {
        return Err(call.error(format_args!(
            "repetitions size {} must equal the input rank {}",
            repetitions.len(),
            input.rank()
        )));
    }
    if let Some(i) = repetitions.iter().position(|&r| r == 0) {
        return Err(call.error(format_args!("repetitions {repetitions:?}: item {i} is 0")));
    }
    let out: Vec<u64> = input.shape.iter().zip(repetitions).map(|(&d, &r)| d as u64 * r as u64).collect();
    let shape = check_valid_shape(call, &out, "output shape")?;
    Ok(OperandDescriptor::new(input.data_type, shape))
}

/// `transpose(input, options)` ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-transpose)):
/// returns the output descriptor and the resolved permutation (absent: the reversed dimensions).
/// The output shape is permuted (decisions.md D21).
pub(crate) fn transpose(
    call: &OpCall,
    input: &OperandDescriptor,
    permutation: Option<&[u32]>,
) -> Result<(OperandDescriptor, Vec<u32>)> {
    let rank = input.rank();
    let permutation: Vec<u32> = match permutation {
        None => (0..rank as u32).rev().collect(),
        Some(p) => {
            if p.len() != rank {
                return Err(
                    call.error(format_args!("permutation {p:?} has size {} but the input rank is {rank}", p.len()))
                );
            }
            if let Some(&a) = p.iter().find(|&&a| a as usize >= rank) {
                return Err(call.error(format_args!("permutation {p:?}: item {a} is not in the range [0, {rank})")));
            }
            let mut seen = vec![false; rank];
            for &a in p {
                if std::mem::replace(&mut seen[a as usize], true) {
                    return Err(call.error(format_args!("permutation {p:?}: {a} is repeated")));
                }
            }
            p.to_vec()
        }
    };
    let shape = permutation.iter().map(|&p| input.shape[p as usize]).collect::<Vec<_>>();
    Ok((OperandDescriptor::new(input.data_type, shape), permutation))
}

/// `where(condition, trueValue, falseValue)`
/// ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-where)): falseValue's type equals
/// trueValue's (the table's "same as trueValue"); the three shapes broadcast bidirectionally.
pub(crate) fn where_(
    call: &OpCall,
    condition: &OperandDescriptor,
    true_value: &OperandDescriptor,
    false_value: &OperandDescriptor,
) -> Result<OperandDescriptor> {
    check_same_type(call, "falseValue", false_value, "trueValue", true_value)?;
    let values = broadcast_bidirectional(&true_value.shape, &false_value.shape).ok_or_else(|| {
        call.error(format_args!(
            "trueValue shape {:?} and falseValue shape {:?} are not broadcastable",
            true_value.shape, false_value.shape
        ))
    })?;
    let shape = broadcast_bidirectional(&condition.shape, &values).ok_or_else(|| {
        call.error(format_args!(
            "condition shape {:?} is not broadcastable with the value shape {values:?}",
            condition.shape
        ))
    })?;
    Ok(OperandDescriptor::new(true_value.data_type, shape))
}

#[cfg(test)]
#[path = "shape_tests.rs"]
mod tests;

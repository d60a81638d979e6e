//! gru ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-gru)), gruCell
//! ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-grucell)), lstm
//! ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-lstm)) and lstmCell
//! ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-lstmcell)): pure validation,
//! (descriptors, sizes, options) → output descriptors and resolved attributes, or a TypeError.
//!
//! Expected shapes such as `3 * hiddenSize` are computed in u64 so they never wrap.

use super::conv::{check_same_type, check_shape};
use super::OpCall;
use crate::error::Result;
use crate::graph::Attrs;
use crate::types::options::{GruCellOptions, GruOptions, LstmCellOptions, LstmOptions};
use crate::types::{is_valid_dimension, OperandDescriptor, RecurrentNetworkActivation, RecurrentNetworkDirection};
use RecurrentNetworkActivation::{Sigmoid, Tanh};

/// An optional operand: input's type, then the expected shape.
fn check_optional(
    call: &OpCall,
    member: &str,
    operand: Option<&OperandDescriptor>,
    input: &OperandDescriptor,
    expected: &[u64],
) -> Result<()> {
    if let Some(desc) = operand {
        check_same_type(call, member, desc, "input", input)?;
        check_shape(call, member, desc, expected)?;
    }
    Ok(())
}

/// `[d0, d1]` of a rank-2 shape or `[d0, d1, d2]` of a rank-3 one (guaranteed by the limits
/// table; this never panics).
fn dims<const N: usize>(call: &OpCall, member: &str, shape: &[u32]) -> Result<[u32; N]> {
    <[u32; N]>::try_from(shape)
        .map_err(|_| call.error(format_args!("{member} must have rank {N}, got shape {shape:?}")))
}

/// TypeError unless `hiddenSize * factor` is a valid dimension (platforms may concatenate
/// bias and recurrentBias).
fn check_hidden_size(call: &OpCall, hidden_size: u32, factor: u64) -> Result<()> {
    let v = hidden_size as u64 * factor;
    if !is_valid_dimension(v) {
        return Err(call.error(format_args!("hiddenSize ({hidden_size}) * {factor} = {v} is not a valid dimension")));
    }
    Ok(())
}

/// `options.activations` resolved: exactly `N` items, or `default` when absent.
fn activations<const N: usize>(
    call: &OpCall,
    activations: Option<&[RecurrentNetworkActivation]>,
    default: [RecurrentNetworkActivation; N],
) -> Result<[RecurrentNetworkActivation; N]> {
    match activations {
        None => Ok(default),
        Some(a) => <[RecurrentNetworkActivation; N]>::try_from(a).map_err(|_| {
            let names: Vec<_> = a.iter().map(|x| x.as_str()).collect();
            call.error(format_args!("activations must have {N} items, got {} ({names:?})", a.len()))
        }),
    }
}

fn num_directions(direction: RecurrentNetworkDirection) -> u64 {
    if direction == RecurrentNetworkDirection::Both {
        2
    } else {
        1
    }
}

/// The positional operands and sizes of a gru / lstm call.
pub(crate) struct RecurrentArgs<'a> {
    pub input: &'a OperandDescriptor,
    pub weight: &'a OperandDescriptor,
    pub recurrent_weight: &'a OperandDescriptor,
    pub steps: u32,
    pub hidden_size: u32,
}

/// The shared head of gru and lstm: weight types, steps, input shape, weight shapes,
/// `hiddenSize * 2·gates` valid. Returns (numDirections, batchSize).
fn sequence_head(
    call: &OpCall,
    args: &RecurrentArgs,
    direction: RecurrentNetworkDirection,
    gates: u64,
) -> Result<(u64, u32)> {
    check_same_type(call, "weight", args.weight, "input", args.input)?;
    check_same_type(call, "recurrentWeight", args.recurrent_weight, "input", args.input)?;
    // "The value must be greater than 0" (argument description; lstm's steps check).
    if args.steps == 0 {
        return Err(call.error("steps must be greater than 0"));
    }
    let [input_steps, batch_size, input_size] = dims::<3>(call, "input", &args.input.shape)?;
    if input_steps != args.steps {
        return Err(call.error(format_args!(
            "input.shape[0] ({input_steps}) must equal steps ({}) (input shape {:?})",
            args.steps, args.input.shape
        )));
    }
    let nd = num_directions(direction);
    let h = args.hidden_size as u64;
    check_shape(call, "weight", args.weight, &[nd, gates * h, input_size as u64])?;
    check_shape(call, "recurrentWeight", args.recurrent_weight, &[nd, gates * h, h])?;
    check_hidden_size(call, args.hidden_size, 2 * gates)?;
    Ok((nd, batch_size))
}

/// The outputs of gru (`states` 1) and lstm (2): that many final states
/// `[numDirections, batchSize, hiddenSize]`, then the sequence
/// `[steps, numDirections, batchSize, hiddenSize]` when `return_sequence`.
fn sequence_outputs(
    args: &RecurrentArgs,
    nd: u64,
    batch_size: u32,
    states: usize,
    return_sequence: bool,
) -> Vec<OperandDescriptor> {
    let (t, nd) = (args.input.data_type, nd as u32);
    let mut outputs = vec![OperandDescriptor::new(t, [nd, batch_size, args.hidden_size]); states];
    if return_sequence {
        outputs.push(OperandDescriptor::new(t, [args.steps, nd, batch_size, args.hidden_size]));
    }
    outputs
}

/// `gru()` ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-gru)) after the limits check.
/// Outputs: `[output0]`, plus `output1` (the sequence) when returnSequence.
pub(crate) fn gru(
    call: &OpCall,
    args: &RecurrentArgs,
    bias: Option<&OperandDescriptor>,
    recurrent_bias: Option<&OperandDescriptor>,
    initial_hidden_state: Option<&OperandDescriptor>,
    options: &GruOptions,
) -> Result<(Vec<OperandDescriptor>, Attrs)> {
    let (nd, batch_size) = sequence_head(call, args, options.direction, 3)?;
    let h = args.hidden_size as u64;
    check_optional(call, "bias", bias, args.input, &[nd, 3 * h])?;
    check_optional(call, "recurrentBias", recurrent_bias, args.input, &[nd, 3 * h])?;
    check_optional(call, "initialHiddenState", initial_hidden_state, args.input, &[nd, batch_size as u64, h])?;
    let activations = activations(call, options.activations.as_deref(), [Sigmoid, Tanh])?;
    let outputs = sequence_outputs(args, nd, batch_size, 1, options.return_sequence);
    let attrs = Attrs::Gru {
        steps: args.steps,
        hidden_size: args.hidden_size,
        reset_after: options.reset_after,
        return_sequence: options.return_sequence,
        direction: options.direction,
        layout: options.layout,
        activations,
    };
    Ok((outputs, attrs))
}

/// The positional operands of a gruCell / lstmCell call (`cell_state` only for lstmCell).
pub(crate) struct CellArgs<'a> {
    pub input: &'a OperandDescriptor,
    pub weight: &'a OperandDescriptor,
    pub recurrent_weight: &'a OperandDescriptor,
    pub hidden_state: &'a OperandDescriptor,
    pub cell_state: Option<&'a OperandDescriptor>,
    pub hidden_size: u32,
}

/// The shared head of gruCell and lstmCell: operand types, weight / state shapes,
/// `hiddenSize * 2·gates` valid. Returns batchSize.
fn cell_head(call: &OpCall, args: &CellArgs, gates: u64) -> Result<u32> {
    check_same_type(call, "weight", args.weight, "input", args.input)?;
    check_same_type(call, "recurrentWeight", args.recurrent_weight, "input", args.input)?;
    check_same_type(call, "hiddenState", args.hidden_state, "input", args.input)?;
    if let Some(cell_state) = args.cell_state {
        check_same_type(call, "cellState", cell_state, "input", args.input)?;
    }
    let [batch_size, input_size] = dims::<2>(call, "input", &args.input.shape)?;
    let h = args.hidden_size as u64;
    check_shape(call, "weight", args.weight, &[gates * h, input_size as u64])?;
    check_shape(call, "recurrentWeight", args.recurrent_weight, &[gates * h, h])?;
    check_shape(call, "hiddenState", args.hidden_state, &[batch_size as u64, h])?;
    if let Some(cell_state) = args.cell_state {
        check_shape(call, "cellState", cell_state, &[batch_size as u64, h])?;
    }
    check_hidden_size(call, args.hidden_size, 2 * gates)?;
    Ok(batch_size)
}

/// `gruCell()` ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-grucell)) after the limits
/// check. Output: `[batchSize, hiddenSize]`. The attributes are those of a one-step forward gru.
pub(crate) fn gru_cell(
    call: &OpCall,
    args: &CellArgs,
    bias: Option<&OperandDescriptor>,
    recurrent_bias: Option<&OperandDescriptor>,
    options: &GruCellOptions,
) -> Result<(OperandDescriptor, Attrs)> {
    let batch_size = cell_head(call, args, 3)?;
    let h = args.hidden_size as u64;
    check_optional(call, "bias", bias, args.input, &[3 * h])?;
    check_optional(call, "recurrentBias", recurrent_bias, args.input, &[3 * h])?;
    let activations = activations(call, options.activations.as_deref(), [Sigmoid, Tanh])?;
    let attrs = Attrs::Gru {
        steps: 1,
        hidden_size: args.hidden_size,
        reset_after: options.reset_after,
        return_sequence: false,
        direction: RecurrentNetworkDirection::Forward,
        layout: options.layout,
        activations,
    };
    Ok((OperandDescriptor::new(args.input.data_type, [batch_size, args.hidden_size]), attrs))
}

/// The option operands of lstm / lstmCell.
#[derive(Default)]
pub(crate) struct LstmOperands<'a> {
    pub bias: Option<&'a OperandDescriptor>,
    pub recurrent_bias: Option<&'a OperandDescriptor>,
    pub peephole_weight: Option<&'a OperandDescriptor>,
    pub initial_hidden_state: Option<&'a OperandDescriptor>,
    pub initial_cell_state: Option<&'a OperandDescriptor>,
}

/// `lstm()` ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-lstm)) after the limits check.
/// Outputs: `[hidden, cell]`, plus the sequence when returnSequence.
pub(crate) fn lstm(
    call: &OpCall,
    args: &RecurrentArgs,
    ops: &LstmOperands,
    options: &LstmOptions,
) -> Result<(Vec<OperandDescriptor>, Attrs)> {
    let (nd, batch_size) = sequence_head(call, args, options.direction, 4)?;
    let h = args.hidden_size as u64;
    check_optional(call, "bias", ops.bias, args.input, &[nd, 4 * h])?;
    check_optional(call, "recurrentBias", ops.recurrent_bias, args.input, &[nd, 4 * h])?;
    check_optional(call, "peepholeWeight", ops.peephole_weight, args.input, &[nd, 3 * h])?;
    let state = [nd, batch_size as u64, h];
    check_optional(call, "initialHiddenState", ops.initial_hidden_state, args.input, &state)?;
    check_optional(call, "initialCellState", ops.initial_cell_state, args.input, &state)?;
    let activations = activations(call, options.activations.as_deref(), [Sigmoid, Tanh, Tanh])?;
    let outputs = sequence_outputs(args, nd, batch_size, 2, options.return_sequence);
    let attrs = Attrs::Lstm {
        steps: args.steps,
        hidden_size: args.hidden_size,
        return_sequence: options.return_sequence,
        direction: options.direction,
        layout: options.layout,
        activations,
    };
    Ok((outputs, attrs))
}

/// `lstmCell()` ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-lstmcell)) after the limits
/// check. Outputs: `[hiddenState', cellState']`, each `[batchSize, hiddenSize]`. The attributes are
/// those of a one-step forward lstm.
pub(crate) fn lstm_cell(
    call: &OpCall,
    args: &CellArgs,
    ops: &LstmOperands,
    options: &LstmCellOptions,
) -> Result<(Vec<OperandDescriptor>, Attrs)> {
    let batch_size = cell_head(call, args, 4)?;
    let h = args.hidden_size as u64;
    check_optional(call, "bias", ops.bias, args.input, &[4 * h])?;
    check_optional(call, "recurrentBias", ops.recurrent_bias, args.input, &[4 * h])?;
    check_optional(call, "peepholeWeight", ops.peephole_weight, args.input, &[3 * h])?;
    let activations = activations(call, options.activations.as_deref(), [Sigmoid, Tanh, Tanh])?;
    let state = OperandDescriptor::new(args.input.data_type, [batch_size, args.hidden_size]);
    let attrs = Attrs::Lstm {
        steps: 1,
        hidden_size: args.hidden_size,
        return_sequence: false,
        direction: RecurrentNetworkDirection::Forward,
        layout: options.layout,
        activations,
    };
    Ok((vec![state.clone(), state], attrs))
}

#[cfg(test)]
#[path = "recurrent_tests.rs"]
mod tests;

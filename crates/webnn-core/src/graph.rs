//! The graph IR: operands in an arena with typed ids, operations in topological order
//! (builder call order), named inputs and outputs, and constants whose bytes are shared.
//!
//! Backends receive a [`Graph`] produced by `GraphBuilder::build`: only what is reachable from
//! the outputs, already validated. Each [`Operation`] carries its resolved attributes
//! ([`Attrs`]: defaults applied, scalars cast to the operand type) so kernels never re-derive
//! spec defaults.

use crate::ops::OpKind;
use crate::types::{
    Conv2dFilterOperandLayout, ConvTranspose2dFilterOperandLayout, GruWeightLayout, InputOperandLayout,
    InterpolationMode, LstmWeightLayout, OperandDescriptor, PaddingMode, RecurrentNetworkActivation,
    RecurrentNetworkDirection, Scalar,
};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Index of an operand in [`Graph::operands`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct OperandId(pub u32);

impl OperandId {
    /// The index as usize.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Where an operand's value comes from.
#[derive(Debug, Clone)]
pub enum OperandSource {
    /// A named graph input.
    Input(String),
    /// A constant (index into [`Graph::constants`]).
    Constant(usize),
    /// Output `output` of operation `op` (index into [`Graph::operations`]).
    Operation {
        /// Index of the operation.
        op: usize,
        /// Which of its outputs.
        output: usize,
    },
}

/// One operand of the graph.
#[derive(Debug, Clone)]
pub struct OperandNode {
    /// The descriptor (data type and shape).
    pub descriptor: OperandDescriptor,
    /// Where the value comes from.
    pub source: OperandSource,
}

/// A constant's value: bytes shared, never copied again after `constant()`.
#[derive(Debug, Clone)]
pub struct Constant {
    /// The operand holding the constant.
    pub operand: OperandId,
    /// Little-endian element bytes, exactly the descriptor's byte length.
    pub bytes: crate::SharedBytes,
    /// For `constant(tensor)`: the tensor's destroyed flag (decisions.md D2).
    pub tensor_destroyed: Option<Arc<AtomicBool>>,
}

impl Constant {
    /// True if the constant came from a tensor that has since been destroyed.
    pub fn is_destroyed(&self) -> bool {
        self.tensor_destroyed.as_ref().is_some_and(|f| f.load(Ordering::Acquire))
    }
}

/// One operation: its kind, its operand slots, its outputs, its resolved attributes.
#[derive(Debug, Clone)]
pub struct Operation {
    /// Which op.
    pub kind: OpKind,
    /// Input operands by slot, in the order of `kind.limits_kind().inputs()`; `None` for an
    /// absent optional operand. For `concat`, one entry per input tensor.
    pub inputs: Vec<Option<OperandId>>,
    /// Output operands (one, except split, gru, lstm, lstmCell).
    pub outputs: Vec<OperandId>,
    /// Resolved attributes.
    pub attrs: Attrs,
    /// `options.label`.
    pub label: String,
}

impl Operation {
    /// The operand in input slot `slot`, if present.
    pub fn input(&self, slot: usize) -> Option<OperandId> {
        self.inputs.get(slot).copied().flatten()
    }
}

/// Resolved attributes of an operation (defaults applied; scalars cast to the operand type).
#[derive(Debug, Clone, PartialEq)]
pub enum Attrs {
    /// No attributes (element-wise ops, matmul, cast, expand, reshape, where, gather ND, ...).
    None,
    /// An axis: concat, softmax, gather, gatherElements, scatterElements.
    Axis {
        /// The axis.
        axis: u32,
    },
    /// argMin / argMax. The output type is in the output descriptor.
    ArgMinMax {
        /// Reduced axis.
        axis: u32,
        /// `keepDimensions`
        keep_dimensions: bool,
    },
    /// batchNormalization.
    BatchNormalization {
        /// Channel axis.
        axis: u32,
        /// Epsilon cast to the input type.
        epsilon: f64,
    },
    /// clamp: both bounds cast to the input type (decisions.md D4).
    Clamp {
        /// Lower bound.
        min: Scalar,
        /// Upper bound.
        max: Scalar,
    },
    /// conv2d.
    Conv2d {
        /// [beginH, endH, beginW, endW]
        padding: [u32; 4],
        /// [sH, sW]
        strides: [u32; 2],
        /// [dH, dW]
        dilations: [u32; 2],
        /// groups
        groups: u32,
        /// input layout
        input_layout: InputOperandLayout,
        /// filter layout
        filter_layout: Conv2dFilterOperandLayout,
    },
    /// convTranspose2d. The output size (including outputSizes) is in the output descriptor.
    ConvTranspose2d {
        /// [beginH, endH, beginW, endW]
        padding: [u32; 4],
        /// [sH, sW]
        strides: [u32; 2],
        /// [dH, dW]
        dilations: [u32; 2],
        /// groups
        groups: u32,
        /// input layout
        input_layout: InputOperandLayout,
        /// filter layout
        filter_layout: ConvTranspose2dFilterOperandLayout,
    },
    /// cumulativeSum.
    CumulativeSum {
        /// axis
        axis: u32,
        /// exclusive
        exclusive: bool,
        /// reversed
        reversed: bool,
    },
    /// elu, leakyRelu (alpha), hardSigmoid and linear (alpha, beta); values cast to the input
    /// type. `beta` is 0 where the op has none.
    AlphaBeta {
        /// alpha
        alpha: f64,
        /// beta
        beta: f64,
    },
    /// gemm.
    Gemm {
        /// alpha
        alpha: f64,
        /// beta
        beta: f64,
        /// aTranspose
        a_transpose: bool,
        /// bTranspose
        b_transpose: bool,
    },
    /// gru / gruCell (`steps` is 1 and `direction` forward for gruCell).
    Gru {
        /// steps
        steps: u32,
        /// hiddenSize
        hidden_size: u32,
        /// resetAfter
        reset_after: bool,
        /// returnSequence
        return_sequence: bool,
        /// direction
        direction: RecurrentNetworkDirection,
        /// layout
        layout: GruWeightLayout,
        /// [gate activation, candidate activation]
        activations: [RecurrentNetworkActivation; 2],
    },
    /// lstm / lstmCell (`steps` is 1 and `direction` forward for lstmCell).
    Lstm {
        /// steps
        steps: u32,
        /// hiddenSize
        hidden_size: u32,
        /// returnSequence
        return_sequence: bool,
        /// direction
        direction: RecurrentNetworkDirection,
        /// layout
        layout: LstmWeightLayout,
        /// [gates, cell candidate, cell output]
        activations: [RecurrentNetworkActivation; 3],
    },
    /// instanceNormalization.
    InstanceNormalization {
        /// epsilon
        epsilon: f64,
        /// layout
        layout: InputOperandLayout,
    },
    /// layerNormalization.
    LayerNormalization {
        /// normalized axes, in the caller's order (scale/bias are shaped in this order)
        axes: Vec<u32>,
        /// epsilon
        epsilon: f64,
    },
    /// pad.
    Pad {
        /// beginningPadding, one per dimension
        beginning: Vec<u32>,
        /// endingPadding, one per dimension
        ending: Vec<u32>,
        /// mode
        mode: PaddingMode,
        /// fill value cast to the input type
        value: Scalar,
    },
    /// averagePool2d, l2Pool2d, maxPool2d. The output size is in the output descriptor.
    Pool2d {
        /// [wH, wW]
        window: [u32; 2],
        /// [beginH, endH, beginW, endW]
        padding: [u32; 4],
        /// [sH, sW]
        strides: [u32; 2],
        /// [dH, dW]
        dilations: [u32; 2],
        /// layout
        layout: InputOperandLayout,
    },
    /// Reductions: the reduced axes (sorted, unique) and keepDimensions.
    Reduce {
        /// reduced axes
        axes: Vec<u32>,
        /// keepDimensions
        keep_dimensions: bool,
    },
    /// resample2d. Output sizes are in the output descriptor.
    Resample2d {
        /// mode
        mode: InterpolationMode,
        /// `scales` as given (None when absent or when `sizes` was given)
        scales: Option<[f32; 2]>,
        /// the two resampled axes
        axes: [u32; 2],
    },
    /// reverse: the reversed axes.
    Reverse {
        /// axes
        axes: Vec<u32>,
    },
    /// slice.
    Slice {
        /// starts
        starts: Vec<u32>,
        /// sizes (extent in the input)
        sizes: Vec<u32>,
        /// strides
        strides: Vec<u32>,
    },
    /// split: axis and the size of every output along it.
    Split {
        /// axis
        axis: u32,
        /// sizes
        sizes: Vec<u32>,
    },
    /// tile.
    Tile {
        /// repetitions, one per dimension
        repetitions: Vec<u32>,
    },
    /// transpose.
    Transpose {
        /// permutation
        permutation: Vec<u32>,
    },
    /// triangular.
    Triangular {
        /// upper
        upper: bool,
        /// diagonal
        diagonal: i32,
    },
}

/// A validated graph, as produced by `GraphBuilder::build` and handed to a backend.
///
/// Only operands and operations reachable from the outputs are kept; operations are in
/// topological order.
#[derive(Debug, Clone, Default)]
pub struct Graph {
    /// The operand arena.
    pub operands: Vec<OperandNode>,
    /// Operations in topological order.
    pub operations: Vec<Operation>,
    /// Named inputs reachable from the outputs (`[[inputDescriptors]]`), in creation order.
    pub inputs: Vec<(String, OperandId)>,
    /// Named outputs (`[[outputDescriptors]]`), in the caller's order.
    pub outputs: Vec<(String, OperandId)>,
    /// Constants reachable from the outputs.
    pub constants: Vec<Constant>,
}

impl Graph {
    /// The descriptor of an operand.
    pub fn descriptor(&self, id: OperandId) -> &OperandDescriptor {
        &self.operands[id.index()].descriptor
    }
    /// The descriptor of a named input.
    pub fn input_descriptor(&self, name: &str) -> Option<&OperandDescriptor> {
        self.inputs.iter().find(|(n, _)| n == name).map(|(_, id)| self.descriptor(*id))
    }
    /// The descriptor of a named output.
    pub fn output_descriptor(&self, name: &str) -> Option<&OperandDescriptor> {
        self.outputs.iter().find(|(n, _)| n == name).map(|(_, id)| self.descriptor(*id))
    }
    /// Multiply-accumulates of one run of `op`, for the ops dominated by them (conv2d,
    /// convTranspose2d, matmul, gemm, gru, gruCell, lstm, lstmCell); `None` for the others.
    /// Tools use it to estimate a graph's work (`webnn inspect`).
    pub fn multiply_accumulates(&self, op: &Operation) -> Option<u64> {
        let desc = |slot: usize| op.input(slot).map(|id| self.descriptor(id));
        let out = op.outputs.first().map(|&id| self.descriptor(id))?;
        let channels = |shape: &[u32], layout: InputOperandLayout| -> u64 {
            let c = match layout {
                InputOperandLayout::Nchw => shape.get(1),
                InputOperandLayout::Nhwc => shape.get(3),
            };
            c.copied().unwrap_or(1).max(1) as u64
        };
        match (op.kind, &op.attrs) {
            // Every output element takes (filter elements / output channels) products.
            (OpKind::Conv2d, Attrs::Conv2d { input_layout, .. }) => {
                let filter = desc(1)?;
                Some(out.element_count() * filter.element_count() / channels(&out.shape, *input_layout))
            }
            // Every input element is scattered through (filter elements / input channels) products.
            (OpKind::ConvTranspose2d, Attrs::ConvTranspose2d { input_layout, .. }) => {
                let (input, filter) = (desc(0)?, desc(1)?);
                Some(input.element_count() * filter.element_count() / channels(&input.shape, *input_layout))
            }
            (OpKind::Matmul, _) => {
                let k = desc(0)?.shape.last().copied().unwrap_or(1) as u64;
                Some(out.element_count() * k)
            }
            (OpKind::Gemm, Attrs::Gemm { a_transpose, .. }) => {
                let a = &desc(0)?.shape;
                let k = if *a_transpose { a.first() } else { a.get(1) };
                Some(out.element_count() * k.copied().unwrap_or(1) as u64)
            }
            // Per step and batch row: one product per weight and recurrent weight element.
            (OpKind::Gru | OpKind::Lstm, Attrs::Gru { steps, .. } | Attrs::Lstm { steps, .. }) => {
                let batch = desc(0)?.shape.get(1).copied().unwrap_or(1) as u64;
                Some(*steps as u64 * batch * (desc(1)?.element_count() + desc(2)?.element_count()))
            }
            (OpKind::GruCell | OpKind::LstmCell, _) => {
                let batch = desc(0)?.shape.first().copied().unwrap_or(1) as u64;
                Some(batch * (desc(1)?.element_count() + desc(2)?.element_count()))
            }
            _ => None,
        }
    }
}

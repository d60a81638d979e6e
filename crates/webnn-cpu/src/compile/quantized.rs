//! Integer convs and matmuls from the QDQ form: a quantized model reaches WebNN as
//! `dequantizeLinear(x_q) → conv2d / matmul (filter = dequantizeLinear(int8 constant)) [→
//! relu / clamp] → quantizeLinear`, the form ONNX's static quantizer writes. This pass turns
//! each such chain into one [`NodeKind::Quantized`] node that reads `x_q` and the int8
//! weights and writes the quantized result, computed by [`crate::kernels::quantized`] with
//! exact integer sums and the requantization in float.
//!
//! What matches, on a CPU where the integer GEMM has a SIMD kernel (anything else keeps the
//! float path, which computes the same function with float sums):
//! * the op: conv2d with nchw input and oihw filter, groups 1 or depthwise (groups = input
//!   channels = output channels, strides 1 or 2); or matmul of an input of rank ≥ 2 by a
//!   rank-2 filter; or gemm with alpha 1, the input not transposed, the filter either way,
//!   and a bias c of one value per output column (beta 1) or none;
//! * its input: a `dequantizeLinear` of a uint8 tensor with one scale and one zero point;
//! * its filter: a constant that [`super::fold`] made from `dequantizeLinear(int8 constant)`
//!   with zero points 0 and one scale, or one per output channel (conv: shape `[cout,1,1,1]`;
//!   matmul and gemm: `[1, n]`, a transposed gemm filter `[n, 1]`), not blockwise;
//! * its bias (conv2d): a float32 constant or none;
//! * what reads its result: only a relu or clamp (optional), then only a `quantizeLinear` to
//!   uint8 or int8 with one scale and one zero point; none of these values a graph output.
//!
//! The float path rounds each product-sum in float32 before quantizing; the integer path sums
//! exactly. Where a float sum lands within its rounding error of a rounding boundary of the
//! quantization, the two differ by one quantization step (measured on the bench's QDQ models
//! with bench/compare.py, against ONNX Runtime, which also sums exactly).
//!
//! [`dynamic`] matches the other form quantizers write, ONNX's dynamic quantization
//! (DynamicQuantizeLinear → MatMulInteger → Cast → Mul [→ Add]), whose input zero point and
//! scale are computed at run time: its result is float32.

use super::uses::Uses;
use super::{NodeKind, Program};
use crate::kernels::activation::Activation;
use crate::kernels::constants::{constant_bytes, constant_f32};
use crate::kernels::int8_gemm;
use webnn_core::graph::{Attrs, OperandSource};
use webnn_core::types::{Conv2dFilterOperandLayout, InputOperandLayout, Scalar};
use webnn_core::{DataType, Graph, OpKind, OperandId};

/// How a quantized tensor maps to real values: `real = (q - zero_point) · scale`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct QuantParams {
    /// The scale.
    pub scale: f32,
    /// The zero point.
    pub zero_point: i32,
    /// uint8 or int8.
    pub data_type: DataType,
}

/// A conv2d or matmul computed on integers: node input 0 is the quantized input, input 1 the
/// int8 weights (a constant), input 2 the float32 bias (optional; conv2d's own, or the add
/// after a dynamic matmul); the [`QuantForm`] says what else it reads and what it writes. The
/// node's `op` is the float conv2d / matmul (for its attributes).
#[derive(Debug, Clone, PartialEq)]
pub struct QuantizedOp {
    /// Where the input's quantization comes from and what the result is.
    pub form: QuantForm,
    /// The weights' scales: one, or one per output channel.
    pub weight_scales: Vec<f32>,
    /// The relu or clamp applied to the real result before quantizing: `(lo, hi)`.
    pub clamp: Option<(f32, f32)>,
}

/// The two forms quantizers write.
#[derive(Debug, Clone, PartialEq)]
pub enum QuantForm {
    /// Static QDQ: `dequantizeLinear(x_q) → op → quantizeLinear`, every parameter a constant;
    /// output 0 is the quantized result.
    Static {
        /// The input's quantization.
        input: QuantParams,
        /// The output's quantization.
        output: QuantParams,
    },
    /// Dynamic (ONNX's DynamicQuantizeLinear → MatMulInteger → Cast → Mul [→ Add bias]): node
    /// input 3 is the input's zero point, computed at run time (one uint8), input 4 the
    /// float32 multiplier of the exact integer result (one value, or one per output channel);
    /// output 0 is float32 `f32(Σ (x − zero point)·w) · multiplier + bias`, the weights'
    /// scales all 1. See [`dynamic`].
    Dynamic,
}

impl QuantizedOp {
    /// One line for plan dumps: `x 0.0078/128 uint8, w ×64 scales, clamp (0, inf), y 0.05/3
    /// uint8`, or `dynamic, w ×1 scales`.
    pub fn summary(&self) -> String {
        let q = |p: &QuantParams| format!("{}/{} {}", p.scale, p.zero_point, p.data_type.as_str());
        let clamp = self.clamp.map(|(lo, hi)| format!(", clamp ({lo}, {hi})")).unwrap_or_default();
        let w = self.weight_scales.len();
        match &self.form {
            QuantForm::Static { input, output } => format!("x {}, w ×{w} scales{clamp}, y {}", q(input), q(output)),
            QuantForm::Dynamic => format!("dynamic, w ×{w} scales{clamp}"),
        }
    }
}

/// Rewrites every chain that matches (see the module doc), where the integer GEMM has a SIMD
/// kernel on this CPU (AVX-512 VNNI): its portable kernel is slower than the float path.
pub fn run(graph: &Graph, program: &mut Program) {
    if !int8_gemm::has_simd_kernel() {
        return;
    }
    let producers = folded_producers(graph);
    let mut uses = Uses::of(graph, program);
    for i in 0..program.nodes.len() {
        let Some(m) = match_chain(graph, program, &uses, &producers, i)
            .or_else(|| dynamic::match_chain(graph, program, &uses, &producers, i))
        else {
            continue;
        };
        // The float op and the nodes between it and the last one are dead now.
        for &d in &m.unhooked {
            program.nodes[d].inputs.clear();
        }
        let op = program.nodes[m.anchor].op;
        let node = &mut program.nodes[m.last];
        node.kind = NodeKind::Quantized(m.op);
        node.op = op;
        node.inputs = m.inputs;
        node.name = m.name;
        uses = Uses::of(graph, program);
    }
}

/// Fuses each `quantizeLinear` whose only reader is a `dequantizeLinear` with the same scale
/// and zero point (the round trips between the float ops of a QDQ model) into one
/// [`Activation::QuantizeRoundTrip`] on the dequantize's node: one pass instead of two, no
/// 8-bit intermediate, and the epilogue pass can then fuse it into a float conv or matmul.
pub fn fuse_round_trips(graph: &Graph, program: &mut Program) {
    let uses = Uses::of(graph, program);
    for d in 0..program.nodes.len() {
        let dq = &program.nodes[d];
        if dq.kind != NodeKind::Op || graph.operations[dq.op].kind != OpKind::DequantizeLinear {
            continue;
        }
        let slot = |node: &super::Node, i: usize| node.inputs.get(i).copied().flatten();
        let Some(q_out) = slot(dq, 0) else { continue };
        let Some(qi) = uses.producer[q_out.index()] else { continue };
        let qn = &program.nodes[qi];
        if qn.kind != NodeKind::Op
            || graph.operations[qn.op].kind != OpKind::QuantizeLinear
            || uses.readers[q_out.index()] != 1
        {
            continue;
        }
        let Some(x) = slot(qn, 0) else { continue };
        let data_type = graph.descriptor(q_out).data_type;
        let (Some(q_scale), Some(d_scale)) = (slot(qn, 1), slot(dq, 1)) else { continue };
        let (Some(qp), Some(dp)) = (
            quant_params(graph, q_scale, slot(qn, 2), data_type),
            quant_params(graph, d_scale, slot(dq, 2), data_type),
        ) else {
            continue;
        };
        let x_desc = graph.descriptor(x);
        if qp != dp || x_desc != graph.descriptor(dq.outputs[0]) || x_desc.data_type != DataType::Float32 {
            continue;
        }
        let (lo, hi) = if data_type == DataType::Uint8 { (0.0, 255.0) } else { (-128.0, 127.0) };
        let act = Activation::QuantizeRoundTrip { scale: qp.scale, zero_point: qp.zero_point as f32, lo, hi };
        program.nodes[qi].inputs.clear();
        let node = &mut program.nodes[d];
        node.kind = NodeKind::Activation(act);
        node.inputs = vec![Some(x)];
        node.name = "quantize+dequantize".to_string();
    }
}

/// A match: the nodes it spans, the inputs of the quantized node and what it computes.
struct Match {
    /// The conv2d or matmul.
    anchor: usize,
    /// The last node of the chain, which the quantized node replaces (its outputs stay).
    last: usize,
    /// The other nodes it replaces.
    unhooked: Vec<usize>,
    inputs: Vec<Option<OperandId>>,
    op: QuantizedOp,
    /// For profiles and dumps.
    name: String,
}

/// For each operand the graph operation that produced it, when fold made it a constant (so
/// the int8 weights behind a folded `dequantizeLinear` can be found).
fn folded_producers(graph: &Graph) -> Vec<Option<usize>> {
    let mut producers = vec![None; graph.operands.len()];
    for (i, op) in graph.operations.iter().enumerate() {
        for o in &op.outputs {
            if matches!(graph.operands[o.index()].source, OperandSource::Constant(_)) {
                producers[o.index()] = Some(i);
            }
        }
    }
    producers
}

/// The chain ending in the `quantizeLinear` node `q`, if it matches: the index of the conv2d
/// or matmul node, and the rewrite.
fn match_chain(graph: &Graph, program: &Program, uses: &Uses, producers: &[Option<usize>], q: usize) -> Option<Match> {
    let qnode = &program.nodes[q];
    let qop = &graph.operations[qnode.op];
    if qnode.kind != NodeKind::Op || qop.kind != OpKind::QuantizeLinear {
        return None;
    }
    let slot = |node: &super::Node, i: usize| node.inputs.get(i).copied().flatten();
    let output = quant_params(graph, slot(qnode, 1)?, slot(qnode, 2), graph.descriptor(qnode.outputs[0]).data_type)?;
    let (anchor, clamp, unhooked) = before_quantize(graph, program, uses, qnode)?;
    let node = &program.nodes[anchor];
    let op = &graph.operations[node.op];
    if node.kind != NodeKind::Op || node.outputs.len() != 1 {
        return None;
    }
    let x = node.inputs.first().copied().flatten()?;
    let filter = node.inputs.get(1).copied().flatten()?;
    // The input: dequantizeLinear(uint8, one scale, one zero point).
    let dq = &program.nodes[uses.producer[x.index()]?];
    let dq_op = &graph.operations[dq.op];
    if dq.kind != NodeKind::Op || dq_op.kind != OpKind::DequantizeLinear {
        return None;
    }
    let xq = dq.inputs.first().copied().flatten()?;
    let input = quant_params(graph, slot(dq, 1)?, slot(dq, 2), graph.descriptor(xq).data_type)?;
    if input.data_type != DataType::Uint8 {
        return None;
    }
    let fd = graph.descriptor(filter);
    let (channel_axis, bias) = match (op.kind, &op.attrs) {
        (
            OpKind::Conv2d,
            Attrs::Conv2d {
                groups,
                strides,
                input_layout: InputOperandLayout::Nchw,
                filter_layout: Conv2dFilterOperandLayout::Oihw,
                ..
            },
        ) if *groups == 1 || depthwise_fits(graph, x, filter, *groups, *strides) => {
            let bias = node.inputs.get(2).copied().flatten();
            if let Some(b) = bias {
                let bd = graph.descriptor(b);
                if bd.data_type != DataType::Float32 || constant_bytes(graph, b).is_none() {
                    return None;
                }
            }
            (0, bias)
        }
        (OpKind::Matmul, _) if fd.shape.len() == 2 && graph.descriptor(x).shape.len() >= 2 => (1, None),
        // gemm(x, w [, c]) = x · w (or x · wᵀ) + c: a matmul whose bias is c, one value per
        // output column (`[n]` or `[1, n]`).
        (OpKind::Gemm, Attrs::Gemm { alpha, beta, a_transpose: false, b_transpose }) if *alpha == 1.0 => {
            let channel_axis = if *b_transpose { 0 } else { 1 };
            let bias = node.inputs.get(2).copied().flatten();
            if let Some(c) = bias {
                let cd = graph.descriptor(c);
                let n = fd.shape[channel_axis];
                let row = matches!(cd.shape.as_slice(), [d] | [1, d] if *d == n);
                if *beta != 1.0 || !row || cd.data_type != DataType::Float32 || constant_bytes(graph, c).is_none() {
                    return None;
                }
            }
            (channel_axis, bias)
        }
        _ => return None,
    };
    let (weights, weight_scales) = int8_weights(graph, producers, filter, channel_axis)?;
    let wd = graph.descriptor(weights);
    if wd.len() / wd.shape[channel_axis].max(1) as usize > int8_gemm::MAX_DEPTH {
        return None;
    }
    let inputs = vec![Some(xq), Some(weights), bias];
    let name = format!("{}+quantizeLinear(int8)", program.nodes[anchor].name);
    let op = QuantizedOp { form: QuantForm::Static { input, output }, weight_scales, clamp };
    Some(Match { anchor, last: q, unhooked, inputs, op, name })
}

/// A relu's or clamp's `(lo, hi)`, if the chain has one.
type Clamp = Option<(f32, f32)>;

/// What the quantizeLinear node `qnode` quantizes, through an optional relu or clamp: the node
/// that computes it, the clamp's `(lo, hi)`, and the nodes the chain replaces (that node and
/// the clamp's). The quantized value is float32, and it and the clamp's input are read only
/// once (so no graph output).
fn before_quantize(
    graph: &Graph,
    program: &Program,
    uses: &Uses,
    qnode: &super::Node,
) -> Option<(usize, Clamp, Vec<usize>)> {
    let only_read_here = |id: OperandId| uses.readers[id.index()] == 1;
    let float_in = qnode.inputs.first().copied().flatten()?;
    if graph.descriptor(float_in).data_type != DataType::Float32 || !only_read_here(float_in) {
        return None;
    }
    let mut producer = uses.producer[float_in.index()]?;
    let mut clamp = None;
    let mut unhooked = vec![producer];
    if let Some(bounds) = clamp_of(graph, &program.nodes[producer]) {
        let y = program.nodes[producer].inputs.first().copied().flatten()?;
        if !only_read_here(y) || graph.descriptor(y) != graph.descriptor(float_in) {
            return None;
        }
        clamp = Some(bounds);
        producer = uses.producer[y.index()]?;
        unhooked.push(producer);
    }
    Some((producer, clamp, unhooked))
}

/// Whether a grouped conv2d is a depthwise one that `kernels::quantized_depthwise` takes:
/// groups = input channels = output channels, strides 1 or 2, at most its `MAX_TAPS` taps.
fn depthwise_fits(graph: &Graph, x: OperandId, filter: OperandId, groups: u32, strides: [u32; 2]) -> bool {
    let (xd, fd) = (graph.descriptor(x), graph.descriptor(filter));
    let (Some(&cin), [cout, 1, kh, kw]) = (xd.shape.get(1), fd.shape.as_slice()) else { return false };
    groups == cin
        && *cout == cin
        && (*kh as usize) * (*kw as usize) <= crate::kernels::quantized_depthwise::MAX_TAPS
        && strides.iter().all(|&s| s == 1 || s == 2)
}

/// `(lo, hi)` of a relu or a float32 clamp node.
fn clamp_of(graph: &Graph, node: &super::Node) -> Option<(f32, f32)> {
    if node.kind != NodeKind::Op || node.outputs.len() != 1 {
        return None;
    }
    let op = &graph.operations[node.op];
    match (&op.kind, &op.attrs) {
        (OpKind::Relu, _) => Some((0.0, f32::INFINITY)),
        (OpKind::Clamp, Attrs::Clamp { min: Scalar::F32(lo), max: Scalar::F32(hi) }) => Some((*lo, *hi)),
        _ => None,
    }
}

/// The quantization of `q` from one-element float32 scale and zero-point constants (an absent
/// zero point is 0); `data_type` must be uint8 or int8.
fn quant_params(
    graph: &Graph,
    scale: OperandId,
    zero_point: Option<OperandId>,
    data_type: DataType,
) -> Option<QuantParams> {
    if !matches!(data_type, DataType::Uint8 | DataType::Int8) {
        return None;
    }
    let scales = f32_constant(graph, scale)?;
    let zero_points = match zero_point {
        Some(z) => integer_constant(graph, z)?,
        None => vec![0],
    };
    match (scales.as_slice(), zero_points.as_slice()) {
        ([scale], [zero_point]) if scale.is_finite() && *scale > 0.0 => {
            Some(QuantParams { scale: *scale, zero_point: *zero_point, data_type })
        }
        _ => None,
    }
}

/// The int8 constant behind a filter that fold made from `dequantizeLinear(int8 constant,
/// scale, zero point 0)`, and its scales: one, or one per index of `axis` (the output
/// channels), the scale's other dimensions 1.
fn int8_weights(
    graph: &Graph,
    producers: &[Option<usize>],
    filter: OperandId,
    axis: usize,
) -> Option<(OperandId, Vec<f32>)> {
    let op = &graph.operations[producers[filter.index()]?];
    if op.kind != OpKind::DequantizeLinear {
        return None;
    }
    let weights = op.input(0)?;
    let wd = graph.descriptor(weights);
    if wd.data_type != DataType::Int8 || constant_bytes(graph, weights).is_none() {
        return None;
    }
    if let Some(z) = op.input(2) {
        if integer_constant(graph, z)?.iter().any(|&v| v != 0) {
            return None;
        }
    }
    let scale = op.input(1)?;
    let sd = graph.descriptor(scale);
    let scales = f32_constant(graph, scale)?;
    let per_channel = sd.shape.len() == wd.shape.len()
        && sd.shape.iter().enumerate().all(|(d, &n)| if d == axis { n == wd.shape[d] } else { n == 1 });
    if !(scales.len() == 1 || per_channel) || scales.iter().any(|s| !s.is_finite() || *s <= 0.0) {
        return None;
    }
    Some((weights, scales))
}

/// The values of a float32 constant.
fn f32_constant(graph: &Graph, id: OperandId) -> Option<Vec<f32>> {
    (graph.descriptor(id).data_type == DataType::Float32).then(|| constant_f32(graph, id)).flatten()
}

/// The values of a uint8, int8 or int32 constant.
fn integer_constant(graph: &Graph, id: OperandId) -> Option<Vec<i32>> {
    let bytes = constant_bytes(graph, id)?;
    match graph.descriptor(id).data_type {
        DataType::Uint8 => Some(bytes.iter().map(|&b| b as i32).collect()),
        DataType::Int8 => Some(bytes.iter().map(|&b| b as i8 as i32).collect()),
        DataType::Int32 => Some(bytes.chunks_exact(4).map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()),
        _ => None,
    }
}

pub mod dynamic;
pub mod elementwise;

#[cfg(test)]
#[path = "quantized_tests.rs"]
mod tests;

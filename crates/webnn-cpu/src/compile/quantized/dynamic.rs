//! Dynamically quantized matmuls on integers. ONNX's dynamic quantizer
//! (`quantize_dynamic`) writes `DynamicQuantizeLinear(x) → MatMulInteger(x_q, w_q, x_zero,
//! w_zero) → Cast(float) → Mul(x_scale · w_scale) [→ Add(bias)]`; the importer makes each
//! integer operand `dequantizeLinear(v, 1.0, zero point)` (exact), so WebNN sees
//!
//! ```text
//! dequantizeLinear(x_q uint8, 1.0, x_zero) → matmul(·, dequantizeLinear(int8 constant, 1.0, 0))
//!     → cast(int32) → cast(float32) → mul(multiplier) [→ add(float32 constant bias)]
//! ```
//!
//! where `x_zero` and the multiplier are computed at run time. This matcher turns that chain
//! into one [`QuantForm::Dynamic`] node: exact i32 sums on the integer GEMM, then
//! `f32(sum) · multiplier + bias` in its epilogue. That is the float chain's own arithmetic
//! (cast, multiply, add, each one f32 rounding), except that the float matmul rounds its sums
//! (of integers up to 255 · 128 · depth, past 2^24 in deep matmuls) where this one is exact,
//! as ONNX Runtime's integer kernels are.
//!
//! What matches: the matmul's input of rank ≥ 2, a rank-2 filter (the constant fold made of
//! the int8 weights with scale 1 and zero point 0), depth ≤ [`int8_gemm::MAX_DEPTH`]; the
//! input's dequantize with scale 1 and one uint8 zero point (constant or not); a multiplier
//! and a bias of one value or one per output channel (`[.., n]`, the other dimensions 1) that
//! broadcast into the result without growing it; every intermediate read only by the next
//! step and no graph output.

use super::super::uses::Uses;
use super::super::{NodeKind, Program};
use super::{f32_constant, int8_weights, Match, QuantForm, QuantizedOp};
use crate::kernels::constants::constant_bytes;
use crate::kernels::int8_gemm;
use webnn_core::{DataType, Graph, OpKind, OperandId};

/// The chain whose `mul` is node `m`, if it matches (see the module doc).
pub(super) fn match_chain(
    graph: &Graph,
    program: &Program,
    uses: &Uses,
    producers: &[Option<usize>],
    m: usize,
) -> Option<Match> {
    let node = &program.nodes[m];
    if !is_op(graph, node, OpKind::Mul) {
        return None;
    }
    let slot = |node: &super::super::Node, i: usize| node.inputs.get(i).copied().flatten();
    let only_read_here = |id: OperandId| uses.readers[id.index()] == 1;
    let producer = |id: OperandId| uses.producer[id.index()].map(|p| (p, &program.nodes[p]));
    let product = node.outputs[0];
    // mul(cast(cast(matmul)), multiplier), either way round.
    let (to_float, multiplier) = [(slot(node, 0)?, slot(node, 1)?), (slot(node, 1)?, slot(node, 0)?)]
        .into_iter()
        .find(|&(y, _)| producer(y).is_some_and(|(_, n)| is_cast(graph, n, DataType::Float32)))?;
    let (c2, cast2) = producer(to_float)?;
    let sums = slot(cast2, 0)?;
    let (c1, cast1) = producer(sums)?;
    if !is_cast(graph, cast1, DataType::Int32) {
        return None;
    }
    let float_sums = slot(cast1, 0)?;
    let (anchor, matmul) = producer(float_sums)?;
    if !is_op(graph, matmul, OpKind::Matmul) || ![to_float, sums, float_sums].into_iter().all(only_read_here) {
        return None;
    }
    let (x, filter) = (slot(matmul, 0)?, slot(matmul, 1)?);
    let (xd, fd) = (graph.descriptor(x), graph.descriptor(filter));
    if xd.shape.len() < 2 || fd.shape.len() != 2 || graph.descriptor(product) != graph.descriptor(to_float) {
        return None;
    }
    let channels = fd.shape[1] as usize;
    // The input: dequantizeLinear(uint8, 1.0, one zero point).
    let (_, dq) = producer(x)?;
    if !is_op(graph, dq, OpKind::DequantizeLinear) {
        return None;
    }
    let (xq, x_scale, x_zero) = (slot(dq, 0)?, slot(dq, 1)?, slot(dq, 2)?);
    let zd = graph.descriptor(x_zero);
    if graph.descriptor(xq).data_type != DataType::Uint8
        || zd.data_type != DataType::Uint8
        || zd.len() != 1
        || f32_constant(graph, x_scale)? != [1.0]
    {
        return None;
    }
    let (weights, weight_scales) = int8_weights(graph, producers, filter, 1)?;
    if weight_scales.iter().any(|&s| s != 1.0) || fd.shape[0] as usize > int8_gemm::MAX_DEPTH {
        return None;
    }
    if !per_channel(graph, multiplier, channels, product) {
        return None;
    }
    // An add of a constant bias that alone reads the product joins the chain.
    let mut last = m;
    let mut unhooked = vec![anchor, c1, c2];
    let mut bias = None;
    if only_read_here(product) {
        let add = program.nodes.iter().enumerate().skip(m + 1).find(|(_, n)| n.inputs.contains(&Some(product)));
        if let Some((a, add)) = add.filter(|(_, n)| is_op(graph, n, OpKind::Add)) {
            let other = if slot(add, 0) == Some(product) { slot(add, 1) } else { slot(add, 0) };
            if let Some(b) = other.filter(|&b| {
                graph.descriptor(b).data_type == DataType::Float32
                    && constant_bytes(graph, b).is_some()
                    && graph.descriptor(b).len() == channels
                    && per_channel(graph, b, channels, add.outputs[0])
                    && graph.descriptor(add.outputs[0]) == graph.descriptor(product)
            }) {
                bias = Some(b);
                unhooked.push(m);
                last = a;
            }
        }
    }
    let inputs = vec![Some(xq), Some(weights), bias, Some(x_zero), Some(multiplier)];
    let name = if bias.is_some() { "matmul(int8)+mul+add" } else { "matmul(int8)+mul" }.to_string();
    let op = QuantizedOp { form: QuantForm::Dynamic, weight_scales, clamp: None };
    Some(Match { anchor, last, unhooked, inputs, op, name })
}

/// Whether `node` runs graph operation `kind`, as is, with one output.
fn is_op(graph: &Graph, node: &super::super::Node, kind: OpKind) -> bool {
    node.kind == NodeKind::Op && node.outputs.len() == 1 && graph.operations[node.op].kind == kind
}

/// Whether `node` is a cast to `to`.
fn is_cast(graph: &Graph, node: &super::super::Node, to: DataType) -> bool {
    is_op(graph, node, OpKind::Cast) && graph.descriptor(node.outputs[0]).data_type == to
}

/// Whether the float32 operand `v` holds one value, or one per output channel along the last
/// dimension (its others 1), and has no more dimensions than `result` (so that broadcasting
/// it leaves the result's shape as it is).
fn per_channel(graph: &Graph, v: OperandId, channels: usize, result: OperandId) -> bool {
    let (vd, rd) = (graph.descriptor(v), graph.descriptor(result));
    if vd.data_type != DataType::Float32 || vd.shape.len() > rd.shape.len() {
        return false;
    }
    let len = vd.len();
    len == 1 || (len == channels && vd.shape.last().is_some_and(|&d| d as usize == channels))
}

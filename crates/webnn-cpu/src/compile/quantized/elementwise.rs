//! Element-wise steps between quantized ops, kept on 8-bit values. A QDQ model wraps every
//! float op in dequantizeLinear / quantizeLinear: SiLU arrives as `dequantize → sigmoid →
//! quantize → dequantize → mul (by the first dequantize) → quantize`, a residual as
//! `quantize(add(dequantize(a), dequantize(b)))`. Run literally, each is several passes over
//! float32 tensors four times the size of the 8-bit ones. This pass makes
//!
//! * every chain from **one** 8-bit tensor to an 8-bit result through element-wise float32
//!   steps — activations (relu, clamp, sigmoid, tanh, gelu, hardSwish, …), round trips through
//!   an 8-bit type, add / sub / mul / div of two values of the chain or of a one-element
//!   constant — one [`Elementwise::Table`]: its 256 result bytes, computed here by running the
//!   chain's own formulas (the activation kernels' [`Activation::apply_in_place`], the
//!   spec's quantize / dequantize arithmetic) on the 256 possible inputs. The same function of
//!   the input byte as the float chain, so the same bytes;
//! * `quantizeLinear([relu / clamp](add or mul(dequantizeLinear(a), dequantizeLinear(b))))` of
//!   two different 8-bit tensors, one of the result's shape and the other either the same or
//!   broadcast along trailing dimensions (a squeeze-excitation's `[n, c, 1, 1]` scale), one
//!   [`Elementwise::Binary`]: each element dequantized, added or multiplied, clamped and
//!   quantized with the float chain's own operations, so again the same bytes;
//! * `quantizeLinear(maxPool2d(dequantizeLinear(x)))` of an 8-bit x, both scales positive, one
//!   [`Elementwise::MaxPool`]: dequantize and quantize are then non-decreasing functions of
//!   the byte, and the maximum commutes with a non-decreasing function, so pooling the bytes
//!   and mapping the result through the 256-byte table of `quantize(dequantize(·))` (none
//!   where that is the identity: same type, scale and zero point, as quantizers write them)
//!   gives the float chain's bytes. A window with no real element gives the type's lowest
//!   value on both paths (the float one quantizes −∞), so with a table every window must hold
//!   one.
//!
//! Every value inside a chain is float32 (or an 8-bit round trip), read only inside the chain
//! and no graph output; the dequantizes of the sources stay where something else reads them.
//! Chains are matched from the last quantize backwards, so the longest one wins.

use super::super::uses::Uses;
use super::super::{Node, NodeKind, Program};
use super::{before_quantize, quant_params, QuantParams};
use crate::kernels::activation::Activation;
use crate::kernels::constants::constant_f32;
use crate::kernels::quantize::{dequantize_one, quantize_one};
use crate::kernels::quantized_elementwise::integer;
use webnn_core::{DataType, Graph, OpKind, OperandId};

/// What a node of this pass computes; its inputs are the 8-bit sources.
#[derive(Debug, Clone, PartialEq)]
pub enum Elementwise {
    /// `out[i] = table[x[i]]` (the byte of x as the index, whether x is uint8 or int8).
    Table(Box<[u8; 256]>),
    /// `quantize(clamp(dequantize(a) op dequantize(b)))`; see [`QuantizedBinary`].
    Binary(QuantizedBinary),
    /// maxPool2d of the bytes (the graph operation `pool`'s attributes), then `table` of
    /// the result (`None`: the identity).
    MaxPool {
        /// The maxPool2d operation (index into the graph's operations).
        pool: usize,
        /// `quantize(dequantize(byte))`, unless that is the byte itself.
        table: Option<Box<[u8; 256]>>,
    },
}

impl Elementwise {
    /// One line for plan dumps.
    pub fn summary(&self) -> String {
        match self {
            Elementwise::Table(_) => "256-byte table".to_string(),
            Elementwise::MaxPool { table, .. } => {
                format!("max pool of the bytes{}", if table.is_some() { ", then a 256-byte table" } else { "" })
            }
            Elementwise::Binary(b) => {
                let q = |p: &QuantParams| format!("{}/{} {}", p.scale, p.zero_point, p.data_type.as_str());
                let clamp = b.clamp.map(|(lo, hi)| format!(", clamp ({lo}, {hi})")).unwrap_or_default();
                format!("{:?}: a {}, b {}{clamp}, y {}", b.op, q(&b.a), q(&b.b), q(&b.output))
            }
        }
    }
}

/// The binary steps [`Elementwise::Binary`] computes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinaryStep {
    /// add
    Add,
    /// mul
    Mul,
}

/// A quantized add or multiply: node input 0 (a) has the result's shape, input 1 (b) the same
/// shape or one that broadcasts along trailing dimensions (its shape is the result's up to
/// some axis, then ones).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct QuantizedBinary {
    /// The float step between the dequantizes and the quantize.
    pub op: BinaryStep,
    /// a's quantization.
    pub a: QuantParams,
    /// b's quantization.
    pub b: QuantParams,
    /// The result's quantization.
    pub output: QuantParams,
    /// The relu or clamp before quantizing: `(lo, hi)`.
    pub clamp: Option<(f32, f32)>,
}

/// The most nodes one table chain may span (the walk backtracks at round trips; this bounds it).
const MAX_CHAIN: usize = 32;

/// Rewrites every chain that matches (see the module doc), last quantize first.
pub fn run(graph: &Graph, program: &mut Program) {
    let mut uses = Uses::of(graph, program);
    for q in (0..program.nodes.len()).rev() {
        let Some((kind, inputs, unhooked, name)) = match_table(graph, program, &uses, q)
            .or_else(|| match_binary(graph, program, &uses, q))
            .or_else(|| match_max_pool(graph, program, &uses, q))
        else {
            continue;
        };
        for &d in &unhooked {
            program.nodes[d].inputs.clear();
        }
        let node = &mut program.nodes[q];
        node.kind = NodeKind::QuantizedElementwise(kind);
        node.inputs = inputs;
        node.name = name;
        uses = Uses::of(graph, program);
    }
}

/// A rewrite: what the node at the quantize computes, its inputs, the nodes it replaces (their
/// inputs are cleared) and its name.
type Rewrite = (Elementwise, Vec<Option<OperandId>>, Vec<usize>, String);

fn slot(node: &Node, i: usize) -> Option<OperandId> {
    node.inputs.get(i).copied().flatten()
}

fn is_op(graph: &Graph, node: &Node, kind: OpKind) -> bool {
    node.kind == NodeKind::Op && graph.operations[node.op].kind == kind
}

/// The scale and zero point of a quantizeLinear / dequantizeLinear node whose 8-bit side has
/// type `data_type` (one of each).
fn params_of(graph: &Graph, node: &Node, data_type: DataType) -> Option<QuantParams> {
    quant_params(graph, slot(node, 1)?, slot(node, 2), data_type)
}

/// The value of a one-element float32 constant.
fn scalar_constant(graph: &Graph, id: OperandId) -> Option<f32> {
    let d = graph.descriptor(id);
    if d.data_type != DataType::Float32 || d.len() != 1 {
        return None;
    }
    match constant_f32(graph, id)?.as_slice() {
        [v] => Some(*v),
        _ => None,
    }
}

/// The binary ops a table chain may hold.
fn table_binary(kind: OpKind) -> bool {
    matches!(kind, OpKind::Add | OpKind::Sub | OpKind::Mul | OpKind::Div)
}

/// The activation a node applies, if it is an element-wise one of float32 values.
fn activation_of(graph: &Graph, node: &Node) -> Option<Activation> {
    match &node.kind {
        NodeKind::Op => Activation::of(&graph.operations[node.op]),
        NodeKind::Activation(a) => Some(*a),
        _ => None,
    }
}

/// The nodes of a table chain found so far.
#[derive(Clone, Default)]
struct Chain {
    /// The 8-bit tensor every dequantize at the chain's start reads.
    source: Option<OperandId>,
    /// Nodes computed inside the chain (replaced by the table).
    interior: Vec<usize>,
    /// The dequantizes of the source (they stay while something else reads them).
    leaves: Vec<usize>,
    /// Nodes visited, to bound the walk.
    visits: usize,
}

/// Walks back from the float32 value `v` of shape `shape`, adding what computes it to `chain`.
fn visit(graph: &Graph, program: &Program, uses: &Uses, v: OperandId, shape: &[u32], chain: &mut Chain) -> Option<()> {
    chain.visits += 1;
    if chain.visits > 4 * MAX_CHAIN || chain.interior.len() > MAX_CHAIN {
        return None;
    }
    let d = graph.descriptor(v);
    if d.data_type != DataType::Float32 || d.shape != shape {
        return None;
    }
    let p = uses.producer[v.index()]?;
    if chain.interior.contains(&p) || chain.leaves.contains(&p) {
        return Some(());
    }
    let node = &program.nodes[p];
    if node.outputs.len() != 1 {
        return None;
    }
    if is_op(graph, node, OpKind::DequantizeLinear) {
        let x = slot(node, 0)?;
        params_of(graph, node, graph.descriptor(x).data_type)?;
        // A round trip inside the chain: dequantize(quantize(w)) of a w of the chain.
        if let Some(qi) = uses.producer[x.index()] {
            let qn = &program.nodes[qi];
            if chain.source != Some(x)
                && uses.readers[x.index()] == 1
                && is_op(graph, qn, OpKind::QuantizeLinear)
                && params_of(graph, qn, graph.descriptor(x).data_type).is_some()
            {
                let saved = chain.clone();
                chain.interior.extend([p, qi]);
                if visit(graph, program, uses, slot(qn, 0)?, shape, chain).is_some() {
                    return Some(());
                }
                *chain = saved;
            }
        }
        // Else x is the source.
        if *chain.source.get_or_insert(x) != x {
            return None;
        }
        chain.leaves.push(p);
        return Some(());
    }
    if activation_of(graph, node).is_some() {
        chain.interior.push(p);
        return visit(graph, program, uses, slot(node, 0)?, shape, chain);
    }
    if node.kind == NodeKind::Op && table_binary(graph.operations[node.op].kind) {
        chain.interior.push(p);
        for i in 0..2 {
            let operand = slot(node, i)?;
            if scalar_constant(graph, operand).is_none() {
                visit(graph, program, uses, operand, shape, chain)?;
            }
        }
        return Some(());
    }
    None
}

/// The table chain ending in the quantizeLinear node `q`, if one matches.
fn match_table(graph: &Graph, program: &Program, uses: &Uses, q: usize) -> Option<Rewrite> {
    let qnode = &program.nodes[q];
    if !is_op(graph, qnode, OpKind::QuantizeLinear) {
        return None;
    }
    let output = params_of(graph, qnode, graph.descriptor(qnode.outputs[0]).data_type)?;
    let f = slot(qnode, 0)?;
    let shape = graph.descriptor(f).shape.clone();
    let mut chain = Chain::default();
    visit(graph, program, uses, f, &shape, &mut chain)?;
    let source = chain.source?;
    let source_type = graph.descriptor(source).data_type;
    if !matches!(source_type, DataType::Uint8 | DataType::Int8) || graph.descriptor(source).shape != shape {
        return None;
    }
    // Every value computed inside is read only inside (or by the quantize), and no output.
    let inside = |n: usize| n == q || chain.interior.contains(&n);
    for &n in &chain.interior {
        for o in &program.nodes[n].outputs {
            let reads: usize = (0..program.nodes.len())
                .filter(|&r| inside(r))
                .map(|r| program.nodes[r].inputs.iter().filter(|i| **i == Some(*o)).count())
                .sum();
            if uses.readers[o.index()] != reads {
                return None;
            }
        }
    }
    let table = evaluate(graph, program, &chain, source, source_type, q, output)?;
    let mut steps: Vec<usize> = chain.interior.clone();
    steps.sort_unstable();
    let names: Vec<&str> = steps
        .iter()
        .map(|&n| program.nodes[n].name.as_str())
        .filter(|n| !n.starts_with("quantizeLinear") && !n.starts_with("dequantizeLinear"))
        .collect();
    let name = if names.is_empty() { "requantize(table)".to_string() } else { format!("{}(table)", names.join("+")) };
    Some((Elementwise::Table(table), vec![Some(source)], chain.interior, name))
}

/// Runs the chain on the 256 values of the source: the table.
fn evaluate(
    graph: &Graph,
    program: &Program,
    chain: &Chain,
    source: OperandId,
    source_type: DataType,
    q: usize,
    output: QuantParams,
) -> Option<Box<[u8; 256]>> {
    let mut values: Vec<(OperandId, Vec<f32>)> =
        vec![(source, (0..=255u8).map(|b| integer(b, source_type) as f32).collect())];
    let get = |values: &[(OperandId, Vec<f32>)], id: OperandId| -> Option<Vec<f32>> {
        if let Some(c) = scalar_constant(graph, id) {
            return Some(vec![c; 256]);
        }
        values.iter().find(|(v, _)| *v == id).map(|(_, x)| x.clone())
    };
    let mut order: Vec<usize> = chain.interior.iter().chain(&chain.leaves).copied().collect();
    order.sort_unstable();
    order.dedup();
    for n in order {
        let node = &program.nodes[n];
        let x = get(&values, slot(node, 0)?)?;
        let result: Vec<f32> = if let Some(act) = activation_of(graph, node) {
            let mut v = x;
            act.apply_in_place(&mut v);
            v
        } else {
            match graph.operations[node.op].kind {
                OpKind::DequantizeLinear => {
                    let p = params_of(graph, node, graph.descriptor(slot(node, 0)?).data_type)?;
                    x.iter().map(|&v| dequantize_one::<i32, f32>(v as i32, p.scale, p.zero_point)).collect()
                }
                OpKind::QuantizeLinear => {
                    let p = params_of(graph, node, graph.descriptor(node.outputs[0]).data_type)?;
                    x.iter().map(|&v| quantize_8bit(v, p) as f32).collect()
                }
                kind => {
                    let y = get(&values, slot(node, 1)?)?;
                    let f = |a: f32, b: f32| match kind {
                        OpKind::Add => a + b,
                        OpKind::Sub => a - b,
                        OpKind::Mul => a * b,
                        _ => a / b,
                    };
                    x.iter().zip(&y).map(|(&a, &b)| f(a, b)).collect()
                }
            }
        };
        values.push((node.outputs[0], result));
    }
    let last = get(&values, slot(&program.nodes[q], 0)?)?;
    let mut table = Box::new([0u8; 256]);
    for (t, &v) in table.iter_mut().zip(&last) {
        *t = quantize_8bit(v, output) as u8;
    }
    Some(table)
}

/// quantizeLinear of one float32 value to `p`'s 8-bit type, as an integer.
fn quantize_8bit(v: f32, p: QuantParams) -> i32 {
    match p.data_type {
        DataType::Int8 => i32::from(quantize_one::<f32, i8>(v, p.scale, p.zero_point as i8)),
        _ => i32::from(quantize_one::<f32, u8>(v, p.scale, p.zero_point as u8)),
    }
}

/// `quantize([clamp](add or mul(dequantize(a), dequantize(b))))` ending in node `q`, a and b
/// two different 8-bit tensors, if it matches.
fn match_binary(graph: &Graph, program: &Program, uses: &Uses, q: usize) -> Option<Rewrite> {
    let qnode = &program.nodes[q];
    if !is_op(graph, qnode, OpKind::QuantizeLinear) {
        return None;
    }
    let output = params_of(graph, qnode, graph.descriptor(qnode.outputs[0]).data_type)?;
    let shape = graph.descriptor(slot(qnode, 0)?).shape.clone();
    let (p, clamp, unhooked) = before_quantize(graph, program, uses, qnode)?;
    let node = &program.nodes[p];
    let op = match graph.operations[node.op].kind {
        OpKind::Add if node.kind == NodeKind::Op => BinaryStep::Add,
        OpKind::Mul if node.kind == NodeKind::Op => BinaryStep::Mul,
        _ => return None,
    };
    if graph.descriptor(node.outputs[0]).shape != shape {
        return None;
    }
    // Each operand: dequantizeLinear(8-bit tensor, one scale, one zero point).
    let source = |i: usize| -> Option<(OperandId, QuantParams)> {
        let dq = &program.nodes[uses.producer[slot(node, i)?.index()]?];
        if !is_op(graph, dq, OpKind::DequantizeLinear) {
            return None;
        }
        let x = slot(dq, 0)?;
        Some((x, params_of(graph, dq, graph.descriptor(x).data_type)?))
    };
    let (mut a, mut b) = (source(0)?, source(1)?);
    if a.0 == b.0 {
        return None;
    }
    // a full, b broadcast along trailing dimensions (add and mul commute, in float too).
    if graph.descriptor(a.0).shape != shape {
        std::mem::swap(&mut a, &mut b);
    }
    if graph.descriptor(a.0).shape != shape || !broadcasts_trailing(&graph.descriptor(b.0).shape, &shape) {
        return None;
    }
    let binary = QuantizedBinary { op, a: a.1, b: b.1, output, clamp };
    let name = format!("{}+quantizeLinear(int8)", program.nodes[p].name);
    Some((Elementwise::Binary(binary), vec![Some(a.0), Some(b.0)], unhooked, name))
}

/// `quantize(maxPool2d(dequantize(x)))` ending in node `q`, x an 8-bit tensor, if it matches
/// (see the module doc).
fn match_max_pool(graph: &Graph, program: &Program, uses: &Uses, q: usize) -> Option<Rewrite> {
    let qnode = &program.nodes[q];
    if !is_op(graph, qnode, OpKind::QuantizeLinear) {
        return None;
    }
    let output = params_of(graph, qnode, graph.descriptor(qnode.outputs[0]).data_type)?;
    let pooled = slot(qnode, 0)?;
    if uses.readers[pooled.index()] != 1 || graph.descriptor(pooled).data_type != DataType::Float32 {
        return None;
    }
    let p = uses.producer[pooled.index()]?;
    let pool = &program.nodes[p];
    if !is_op(graph, pool, OpKind::MaxPool2d) || pool.outputs.len() != 1 {
        return None;
    }
    let dq = &program.nodes[uses.producer[slot(pool, 0)?.index()]?];
    if !is_op(graph, dq, OpKind::DequantizeLinear) {
        return None;
    }
    let x = slot(dq, 0)?;
    let source_type = graph.descriptor(x).data_type;
    let input = params_of(graph, dq, source_type)?;
    let increasing = input.scale > 0.0 && output.scale > 0.0;
    if !(matches!(source_type, DataType::Uint8 | DataType::Int8) && increasing) {
        return None;
    }
    let mut table = Box::new([0u8; 256]);
    for (b, t) in (0..=255u8).zip(table.iter_mut()) {
        *t = quantize_8bit(dequantize_one::<i32, f32>(integer(b, source_type), input.scale, input.zero_point), output)
            as u8;
    }
    let identity = output.data_type == source_type && table.iter().enumerate().all(|(b, &t)| usize::from(t) == b);
    let geometry = crate::kernels::pool::geometry(&graph.operations[pool.op], graph).ok()?;
    if !identity && !geometry.every_window_real() {
        return None;
    }
    let kind = Elementwise::MaxPool { pool: pool.op, table: (!identity).then_some(table) };
    Some((kind, vec![Some(x)], vec![p], "maxPool2d+quantizeLinear(int8)".to_string()))
}

/// Whether `b` (right-aligned against `shape`, as the spec broadcasts) equals `shape` up to
/// some axis and is 1 after it.
pub fn broadcasts_trailing(b: &[u32], shape: &[u32]) -> bool {
    if b.len() > shape.len() {
        return false;
    }
    let padded: Vec<u32> = std::iter::repeat_n(1, shape.len() - b.len()).chain(b.iter().copied()).collect();
    let last = padded.iter().rposition(|&d| d != 1).map_or(0, |i| i + 1);
    padded[..last] == shape[..last]
}

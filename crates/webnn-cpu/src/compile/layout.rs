//! Layout choice: the depthwise-separable parts of a conv net run channels-last.
//!
//! A depthwise conv2d in nchw works on planes: a 7×7 plane is one vector wide, a strided one
//! needs its columns split by phase, and the work per plane is small. Channels-last (nhwc),
//! 16 channels are one vector per pixel and every tap is one load and one fused multiply-add
//! (`kernels/depthwise_nhwc_avx512.rs`): 960 channels on 7×7 take 0.017 ms against 0.051 in
//! nchw, 576 on 14×14 at stride 2 0.018 against 0.064 (kernel bench, 1 thread). ONNX models
//! arrive in nchw, so this pass rewrites them.
//!
//! The nodes that can run in nhwc: conv2d with a constant filter that is depthwise or
//! pointwise (1×1, stride 1, no padding: a GEMM either way), element-wise activations, binary
//! element-wise ops whose other operand is constant or scalar-like, and reductions over
//! spatial axes that keep their dimensions (global average pools). Nodes that read each
//! other's 4-D results form groups; a group with at least one depthwise conv runs in nhwc:
//! each of its nodes becomes a copy of its operation on permuted operands (conv2d with
//! `inputLayout: "nhwc"`, the filter as it was; reductions over the permuted axes), values
//! entering the group are transposed to nhwc once (constants at build), and values that
//! leave it (read outside the group, or graph outputs) are transposed back into the original
//! operand. A transpose that only moves unit axes (`[1, C, 1, 1]`, after a global pool) is a
//! reshape, which the plan runs as an alias of its input.
//!
//! The results are those of the nchw program: conv2d in either layout adds the same taps in
//! the same order (depthwise: bit for bit; pointwise: the same GEMM with its operands
//! swapped, within the GEMM's error bound), and the other nodes compute the same function
//! of each element.
//!
//! **Off by default; `WEBNN_LAYOUT=nhwc` turns it on.** Measured on MobileNetV2 and
//! EfficientNet-B0 (1 thread, Zen 4, per-step profiles of both programs): the depthwise convs
//! take 0.45–0.8 ms less, but the pointwise convs take 0.1–0.6 ms more in nhwc (our GEMM is
//! slower with the pixels as its rows: 96→24 on 56×56 0.14 → 0.19 ms, the 7×7 ones with 49
//! rows 10–20 % slower) and the transpose of the first conv's 1.6 MB result costs 0.2 ms, so
//! the models are no faster yet (alternating runs within the host's noise). It turns on by
//! default once the pointwise GEMM in nhwc matches the nchw one (ARCHITECTURE.md, issue 11).

use super::uses::Uses;
use super::{Node, NodeKind, Program};
use crate::kernels::activation::Activation;
use std::borrow::Cow;
use std::collections::HashMap;
use webnn_core::graph::{Attrs, Constant, OperandNode, OperandSource, Operation};
use webnn_core::types::InputOperandLayout;
use webnn_core::{DataType, Graph, OpKind, OperandDescriptor, OperandId};

/// nchw → nhwc: nhwc axis i is nchw axis `TO_NHWC[i]`.
const TO_NHWC: [u32; 4] = [0, 2, 3, 1];
/// nhwc → nchw.
const TO_NCHW: [u32; 4] = [0, 3, 1, 2];

/// Whether `WEBNN_LAYOUT=nhwc` turns the pass on. Off by default: see the module doc.
pub fn enabled_by_env() -> bool {
    std::env::var("WEBNN_LAYOUT").is_ok_and(|v| v == "nhwc")
}

/// What a node is in a channels-last group.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    /// A depthwise conv2d: the reason to convert a group.
    Depthwise,
    /// A pointwise conv2d.
    Pointwise,
    /// An element-wise node (activation or binary op).
    Elementwise,
    /// A reduction over spatial axes that keeps its dimensions.
    Reduce,
}

/// A float32 operand of rank 4.
fn is_f32_4d(graph: &Graph, id: OperandId) -> bool {
    let d = graph.descriptor(id);
    d.data_type == DataType::Float32 && d.shape.len() == 4
}

fn is_constant(graph: &Graph, id: OperandId) -> bool {
    matches!(graph.operands[id.index()].source, OperandSource::Constant(_))
}

/// `shape` left-padded to rank 4 (broadcasting aligns trailing axes).
fn padded(shape: &[u32]) -> [u32; 4] {
    let mut s = [1u32; 4];
    s[4 - shape.len()..].copy_from_slice(shape);
    s
}

/// Whether a tensor of `shape` (padded to rank 4) has the same bytes in nchw and nhwc: one
/// channel, or one pixel (a per-channel constant `[1, C, 1, 1]`).
fn same_bytes_either_way(shape: &[u32]) -> bool {
    let s = padded(shape);
    s[1] == 1 || s[2] * s[3] == 1
}

/// An operand other than the running value that a binary op of the group may read: a 4-D
/// value (transposed on entry), or a constant of rank ≤ 4 whose bytes serve both layouts
/// (re-described at build), or a shape of ones (broadcast alike in both layouts).
fn side_operand_ok(graph: &Graph, id: OperandId) -> bool {
    let d = graph.descriptor(id);
    if d.shape.len() > 4 || d.data_type != DataType::Float32 {
        return false;
    }
    if is_constant(graph, id) {
        return same_bytes_either_way(&d.shape);
    }
    d.shape.len() == 4 || d.shape.iter().all(|&s| s == 1)
}

/// The node's role in a channels-last group, if it can have one.
fn role(graph: &Graph, node: &Node) -> Option<Role> {
    if node.outputs.len() != 1 || !is_f32_4d(graph, node.outputs[0]) {
        return None;
    }
    let op = &graph.operations[node.op];
    let main = |slot: usize| node.inputs.get(slot).copied().flatten().filter(|&id| is_f32_4d(graph, id));
    match node.kind {
        NodeKind::Activation(_) => main(0).map(|_| Role::Elementwise),
        NodeKind::WithEpilogue(_) | NodeKind::Quantized(_) | NodeKind::QuantizedElementwise(_) => None,
        NodeKind::Op => match op.kind {
            OpKind::Conv2d => {
                let Attrs::Conv2d { padding, strides, groups, input_layout: InputOperandLayout::Nchw, .. } = op.attrs
                else {
                    return None;
                };
                let (x, filter) = (main(0)?, op.input(1)?);
                if !is_constant(graph, filter) || op.input(2).is_some_and(|b| !is_constant(graph, b)) {
                    return None;
                }
                let (xs, ys) = (&graph.descriptor(x).shape, &graph.descriptor(node.outputs[0]).shape);
                let (cin, cout) = (xs[1], ys[1]);
                let filter_elems = graph.descriptor(filter).len() as u64;
                if groups > 1 && groups == cin && cin == cout {
                    Some(Role::Depthwise)
                } else if groups == 1
                    && filter_elems == cin as u64 * cout as u64
                    && strides == [1, 1]
                    && padding == [0; 4]
                {
                    Some(Role::Pointwise)
                } else {
                    None
                }
            }
            OpKind::Add | OpKind::Sub | OpKind::Mul | OpKind::Div | OpKind::Max | OpKind::Min => {
                let ins: Vec<OperandId> = node.inputs.iter().flatten().copied().collect();
                let ok = ins.len() == 2
                    && ins.iter().any(|&id| is_f32_4d(graph, id) && !is_constant(graph, id))
                    && ins.iter().all(|&id| side_operand_ok(graph, id));
                ok.then_some(Role::Elementwise)
            }
            OpKind::ReduceMean | OpKind::ReduceSum | OpKind::ReduceMax | OpKind::ReduceMin => match &op.attrs {
                Attrs::Reduce { axes, keep_dimensions: true } if axes.iter().all(|&a| a >= 2) => {
                    main(0).map(|_| Role::Reduce)
                }
                _ => None,
            },
            _ => Activation::of(op).and(main(0)).map(|_| Role::Elementwise),
        },
    }
}

/// Union-find root.
fn root(parent: &mut [usize], mut i: usize) -> usize {
    while parent[i] != i {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    i
}

/// Rewrites the groups of nodes that gain from running channels-last. The graph is copied
/// (`Cow::to_mut`) only when there is one: a depthwise conv2d in nchw with a constant filter.
pub fn run(graph_in: &mut Cow<'_, Graph>, program: &mut Program) {
    let graph: &Graph = graph_in;
    let mut roles: Vec<Option<Role>> = program.nodes.iter().map(|n| role(graph, n)).collect();
    if !roles.contains(&Some(Role::Depthwise)) {
        return;
    }
    let uses = Uses::of(graph, program);
    // An activation whose input comes from outside every group stays outside, with its
    // producer (a conv's epilogue absorbs it there); the value enters after it.
    for (i, node) in program.nodes.iter().enumerate() {
        let unary = matches!(node.kind, NodeKind::Activation(_))
            || (node.kind == NodeKind::Op && Activation::of(&graph.operations[node.op]).is_some());
        let from_outside = node
            .inputs
            .first()
            .copied()
            .flatten()
            .is_none_or(|x| uses.producer[x.index()].is_none_or(|p| roles[p].is_none()));
        if unary && roles[i].is_some() && from_outside {
            roles[i] = None;
        }
    }
    // Groups: nodes with a role joined through the 4-D values one produces and another reads.
    let mut parent: Vec<usize> = (0..program.nodes.len()).collect();
    for (i, node) in program.nodes.iter().enumerate() {
        if roles[i].is_none() {
            continue;
        }
        for id in node.inputs.iter().flatten() {
            if let Some(p) = uses.producer[id.index()] {
                if roles[p].is_some() && is_f32_4d(graph, *id) {
                    let (a, b) = (root(&mut parent, i), root(&mut parent, p));
                    parent[a] = b;
                }
            }
        }
    }
    let mut converted = vec![false; program.nodes.len()];
    for (i, r) in roles.iter().enumerate() {
        if *r == Some(Role::Depthwise) {
            let r = root(&mut parent, i);
            converted[r] = true;
        }
    }
    let in_group: Vec<bool> =
        (0..program.nodes.len()).map(|i| roles[i].is_some() && converted[root(&mut parent, i)]).collect();
    // Who reads each value outside the groups (they need it in nchw).
    let mut read_outside = vec![false; graph.operands.len()];
    for (i, node) in program.nodes.iter().enumerate() {
        if !in_group[i] {
            for id in node.inputs.iter().flatten() {
                read_outside[id.index()] = true;
            }
        }
    }
    for (_, id) in &graph.outputs {
        read_outside[id.index()] = true;
    }

    let mut rewriter = Rewriter { graph: graph_in.to_mut(), twins: HashMap::new() };
    let mut nodes = Vec::with_capacity(program.nodes.len());
    for (i, node) in std::mem::take(&mut program.nodes).into_iter().enumerate() {
        if !in_group[i] {
            nodes.push(node);
            continue;
        }
        let produced_here: Vec<OperandId> = node.outputs.clone();
        let new = rewriter.node(node, &mut nodes);
        let twins: Vec<OperandId> = new.outputs.clone();
        nodes.push(new);
        for (orig, twin) in produced_here.into_iter().zip(twins) {
            if read_outside[orig.index()] {
                nodes.push(rewriter.transpose(twin, Some(orig), &TO_NCHW));
            }
        }
    }
    program.nodes = nodes;
}

/// Adds the nhwc copies of operands and operations to the graph.
struct Rewriter<'g> {
    graph: &'g mut Graph,
    /// The nhwc twin of each nchw value already converted.
    twins: HashMap<OperandId, OperandId>,
}

impl Rewriter<'_> {
    /// A new operand.
    fn operand(&mut self, descriptor: OperandDescriptor, source: OperandSource) -> OperandId {
        let id = OperandId(self.graph.operands.len() as u32);
        self.graph.operands.push(OperandNode { descriptor, source });
        id
    }

    /// A node transposing `input` by `perm` into `output` (a new operand when None); a
    /// reshape when the permutation moves only axes of size 1 (the same bytes).
    fn transpose(&mut self, input: OperandId, output: Option<OperandId>, perm: &[u32; 4]) -> Node {
        let shape = &self.graph.descriptor(input).shape;
        let out_shape: Vec<u32> = perm.iter().map(|&p| shape[p as usize]).collect();
        let moves_only_units = {
            let non_unit = |s: &[u32]| s.iter().copied().filter(|&d| d != 1).collect::<Vec<_>>();
            non_unit(shape) == non_unit(&out_shape)
        };
        let descriptor = OperandDescriptor::new(self.graph.descriptor(input).data_type, out_shape);
        let op_index = self.graph.operations.len();
        let output = match output {
            Some(id) => {
                self.graph.operands[id.index()].source = OperandSource::Operation { op: op_index, output: 0 };
                id
            }
            None => self.operand(descriptor, OperandSource::Operation { op: op_index, output: 0 }),
        };
        let (kind, attrs) = if moves_only_units {
            (OpKind::Reshape, Attrs::None)
        } else {
            (OpKind::Transpose, Attrs::Transpose { permutation: perm.to_vec() })
        };
        self.graph.operations.push(Operation {
            kind,
            inputs: vec![Some(input)],
            outputs: vec![output],
            attrs,
            label: String::new(),
        });
        Node {
            kind: NodeKind::Op,
            op: op_index,
            inputs: vec![Some(input)],
            outputs: vec![output],
            name: kind.to_string(),
        }
    }

    /// The nhwc twin of `id` (a 4-D value or a constant read by a binary op), made on first
    /// use: constants re-described at build (their bytes serve both layouts), other values
    /// by a transpose node pushed to `nodes` (which runs before the reader being rewritten).
    fn twin(&mut self, id: OperandId, nodes: &mut Vec<Node>) -> OperandId {
        if let Some(&t) = self.twins.get(&id) {
            return t;
        }
        let d = self.graph.descriptor(id).clone();
        let t = if let OperandSource::Constant(k) = self.graph.operands[id.index()].source {
            // Bytes that serve both layouts (`side_operand_ok`), re-described.
            let shape = padded(&d.shape);
            let shape: Vec<u32> = TO_NHWC.iter().map(|&p| shape[p as usize]).collect();
            let c = self.graph.constants.len();
            let bytes = self.graph.constants[k].bytes.clone();
            let t = self.operand(OperandDescriptor::new(d.data_type, shape), OperandSource::Constant(c));
            self.graph.constants.push(Constant { operand: t, bytes, tensor_destroyed: None });
            t
        } else {
            let node = self.transpose(id, None, &TO_NHWC);
            let t = node.outputs[0];
            nodes.push(node);
            t
        };
        self.twins.insert(id, t);
        t
    }

    /// The nhwc copy of a group node: its operation on the twins of its inputs, writing new
    /// nhwc operands.
    fn node(&mut self, mut node: Node, nodes: &mut Vec<Node>) -> Node {
        let op = self.graph.operations[node.op].clone();
        // Which input slots carry values to convert: a conv's input (not its filter or bias);
        // every 4-D input of the others, and the constants a binary op broadcasts.
        let convert = |slot: usize, id: OperandId, graph: &Graph| match op.kind {
            OpKind::Conv2d if node.kind == NodeKind::Op => slot == 0,
            _ => graph.descriptor(id).shape.len() == 4 || !graph.descriptor(id).shape.iter().all(|&s| s == 1),
        };
        let mut inputs = node.inputs.clone();
        for (slot, input) in inputs.iter_mut().enumerate() {
            if let Some(id) = *input {
                if convert(slot, id, self.graph) {
                    *input = Some(self.twin(id, nodes));
                }
            }
        }
        // A fused activation has no operation of its own: its outputs name the root op it
        // replaced.
        let op_index = if node.kind == NodeKind::Op { self.graph.operations.len() } else { node.op };
        let outputs: Vec<OperandId> = node
            .outputs
            .iter()
            .enumerate()
            .map(|(k, &o)| {
                let d = self.graph.descriptor(o).clone();
                let shape: Vec<u32> = TO_NHWC.iter().map(|&p| d.shape[p as usize]).collect();
                let t = self.operand(
                    OperandDescriptor::new(d.data_type, shape),
                    OperandSource::Operation { op: op_index, output: k },
                );
                self.twins.insert(o, t);
                t
            })
            .collect();
        let attrs = match op.attrs.clone() {
            Attrs::Conv2d { padding, strides, dilations, groups, filter_layout, .. } => Attrs::Conv2d {
                padding,
                strides,
                dilations,
                groups,
                input_layout: InputOperandLayout::Nhwc,
                filter_layout,
            },
            Attrs::Reduce { axes, keep_dimensions } => {
                let mut axes: Vec<u32> =
                    axes.iter().map(|&a| TO_NHWC.iter().position(|&p| p == a).unwrap_or(0) as u32).collect();
                axes.sort_unstable();
                Attrs::Reduce { axes, keep_dimensions }
            }
            other => other,
        };
        if node.kind == NodeKind::Op {
            self.graph.operations.push(Operation {
                kind: op.kind,
                inputs: inputs.clone(),
                outputs: outputs.clone(),
                attrs,
                label: op.label.clone(),
            });
            node.op = op_index;
        }
        node.inputs = inputs;
        node.outputs = outputs;
        node
    }
}

#[cfg(test)]
#[path = "layout_tests.rs"]
mod tests;

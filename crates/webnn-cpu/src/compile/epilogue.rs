//! Epilogue fusion: a conv2d, matmul or gemm absorbs the chain of element-wise ops that alone
//! read its result: activations (relu, clamp, sigmoid, swish, hardSwish, gelu, leakyRelu, …)
//! and adds or multiplies by an operand broadcast along one group of axes (a residual, a bias,
//! a scale). The fused step runs where the last absorbed op ran (so a residual is computed
//! by then) and applies the chain to each output tile as it leaves the GEMM.
//!
//! The anchors are [`ANCHORS`]; what a follower becomes is [`FOLLOWERS`]: to fuse another
//! kind of follower, add a function from a node to an [`EpilogueStep`] there. Only float32
//! fuses (float16 kernels round once at the end of the op, so a fused float16 chain would
//! round differently from the unfused one).

use super::uses::Uses;
use super::{Node, NodeKind, Program};
use crate::kernels::activation::Activation;
use crate::kernels::epilogue::{Epilogue, EpilogueBinary, EpilogueStep};
use webnn_core::{DataType, Graph, OpKind, OperandId};

/// The ops that take an epilogue.
pub const ANCHORS: &[OpKind] = &[OpKind::Conv2d, OpKind::Matmul, OpKind::Gemm];

/// A follower's step, given the node, the running value it reads and the index its extra
/// operand (if any) will have among the fused node's inputs.
type Follower = fn(&Graph, &Node, OperandId, usize) -> Option<(EpilogueStep, Option<OperandId>)>;

/// What may follow an anchor, tried in order.
pub const FOLLOWERS: &[(&str, Follower)] = &[("activation", activation), ("add or mul", binary)];

/// An activation op (or an activation the pattern pass made).
fn activation(graph: &Graph, node: &Node, _: OperandId, _: usize) -> Option<(EpilogueStep, Option<OperandId>)> {
    let act = match &node.kind {
        NodeKind::Activation(a) => *a,
        NodeKind::Op => Activation::of(&graph.operations[node.op])?,
        NodeKind::WithEpilogue(_) | NodeKind::Quantized(_) | NodeKind::QuantizedElementwise(_) => return None,
    };
    Some((EpilogueStep::Activation(act), None))
}

/// `add(y, other)` / `mul(y, other)` (either order) with `other` broadcast along one
/// contiguous group of the output's axes.
fn binary(graph: &Graph, node: &Node, y: OperandId, slot: usize) -> Option<(EpilogueStep, Option<OperandId>)> {
    if node.kind != NodeKind::Op {
        return None;
    }
    let op = match graph.operations[node.op].kind {
        OpKind::Add => EpilogueBinary::Add,
        OpKind::Mul => EpilogueBinary::Mul,
        _ => return None,
    };
    let (a, b) = (node.inputs.first().copied().flatten()?, node.inputs.get(1).copied().flatten()?);
    let other = if a == y && b != y {
        b
    } else if b == y && a != y {
        a
    } else {
        return None;
    };
    let (inner, len) = axis_group(&graph.descriptor(other).shape, &graph.descriptor(y).shape)?;
    Some((EpilogueStep::Binary { op, input: slot, inner, len }, Some(other)))
}

/// For `other` broadcast to `out`: `(inner, len)` such that output element `i` reads
/// `other[(i / inner) % len]`, when `other`'s non-unit axes are one contiguous group of the
/// output's axes.
pub fn axis_group(other: &[u32], out: &[u32]) -> Option<(usize, usize)> {
    if other.len() > out.len() {
        return None;
    }
    let pad = out.len() - other.len();
    let dim = |d: usize| if d < pad { 1 } else { other[d - pad] };
    let non_unit: Vec<usize> = (0..out.len()).filter(|&d| dim(d) != 1).collect();
    let (Some(&a), Some(&b)) = (non_unit.first(), non_unit.last()) else { return Some((1, 1)) };
    if (a..=b).any(|d| dim(d) != out[d] && out[d] != 1) {
        return None;
    }
    let prod = |r: std::ops::Range<usize>| out[r].iter().map(|&d| d as usize).product::<usize>();
    Some((prod(b + 1..out.len()), prod(a..b + 1)))
}

/// Fuses every anchor with the followers that alone read its result.
pub fn run(graph: &Graph, program: &mut Program) {
    let uses = Uses::of(graph, program);
    // The reader of each operand read exactly once.
    let mut reader = vec![None; graph.operands.len()];
    for (i, node) in program.nodes.iter().enumerate() {
        for id in node.inputs.iter().flatten() {
            reader[id.index()] = Some(i);
        }
    }
    let mut removed = vec![false; program.nodes.len()];
    for anchor in 0..program.nodes.len() {
        let node = &program.nodes[anchor];
        let op = &graph.operations[node.op];
        if removed[anchor] || node.kind != NodeKind::Op || !ANCHORS.contains(&op.kind) || node.outputs.len() != 1 {
            continue;
        }
        let out_desc = graph.descriptor(node.outputs[0]).clone();
        if out_desc.data_type != DataType::Float32 {
            continue;
        }
        let mut fused = node.clone();
        let mut steps = Epilogue::default();
        let mut names = vec![node.name.clone()];
        let mut last = anchor;
        let mut y = node.outputs[0];
        while uses.readers[y.index()] == 1 {
            let Some(r) = reader[y.index()] else { break };
            let follower = &program.nodes[r];
            if removed[r] || follower.outputs.len() != 1 || graph.descriptor(follower.outputs[0]) != &out_desc {
                break;
            }
            let Some((step, extra)) = FOLLOWERS.iter().find_map(|(_, f)| f(graph, follower, y, fused.inputs.len()))
            else {
                break;
            };
            if let Some(e) = extra {
                if graph.descriptor(e).data_type != DataType::Float32 {
                    break;
                }
                fused.inputs.push(Some(e));
            }
            steps.steps.push(step);
            names.push(follower.name.clone());
            removed[r] = true;
            last = r;
            y = follower.outputs[0];
        }
        if last == anchor {
            continue;
        }
        fused.kind = NodeKind::WithEpilogue(steps);
        fused.outputs = vec![y];
        fused.name = names.join("+");
        // The fused step runs where the last absorbed op ran: every operand it reads exists then.
        removed[anchor] = true;
        removed[last] = false;
        program.nodes[last] = fused;
    }
    let mut i = 0;
    program.nodes.retain(|_| {
        i += 1;
        !removed[i - 1]
    });
}

#[cfg(test)]
#[path = "epilogue_tests.rs"]
mod tests;

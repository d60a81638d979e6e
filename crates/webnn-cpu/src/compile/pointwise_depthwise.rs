//! Pointwise → depthwise fusion: a 1×1 conv2d (with its activations) whose result only a
//! depthwise conv2d reads becomes one step with it, computed by bands of output rows
//! (`kernels::pointwise_depthwise`, which also says which pairs fuse), so the expanded tensor
//! between them is never materialized. Runs after [`super::epilogue`]: both convs come with
//! their fused epilogues.

use super::uses::Uses;
use super::{Node, NodeKind, Program};
use crate::kernels::epilogue::{Epilogue, EpilogueStep};
use crate::kernels::pointwise_depthwise::{activations_only, fuses};
use webnn_core::{Graph, OpKind};

/// What a fused pointwise → depthwise step runs besides its node's operation (the depthwise
/// conv).
#[derive(Debug, Clone, PartialEq)]
pub struct PointwiseDepthwise {
    /// The pointwise conv2d's graph operation.
    pub pointwise_op: usize,
    /// Its activations.
    pub pointwise: Epilogue,
    /// The depthwise conv's epilogue; its binary steps read the fused step's inputs from slot
    /// 5 on (after the pointwise conv's input, filter, bias and the depthwise filter, bias).
    pub depthwise: Epilogue,
}

/// A conv2d node's epilogue (empty for a plain one); None for other nodes.
fn conv_epilogue(graph: &Graph, node: &Node) -> Option<Epilogue> {
    if graph.operations[node.op].kind != OpKind::Conv2d {
        return None;
    }
    match &node.kind {
        NodeKind::Op => Some(Epilogue::default()),
        NodeKind::WithEpilogue(e) => Some(e.clone()),
        _ => None,
    }
}

/// Fuses every depthwise conv with the pointwise conv whose result it alone reads, where
/// [`fuses`] accepts the pair.
pub fn run(graph: &Graph, program: &mut Program) {
    let uses = Uses::of(graph, program);
    let mut removed = vec![false; program.nodes.len()];
    for d in 0..program.nodes.len() {
        let node = &program.nodes[d];
        let Some(dw_epilogue) = conv_epilogue(graph, node) else { continue };
        let Some(Some(mid)) = node.inputs.first().copied() else { continue };
        let Some(p) = uses.producer[mid.index()] else { continue };
        let pw = &program.nodes[p];
        let Some(pw_epilogue) = conv_epilogue(graph, pw) else { continue };
        let (pw_op, dw_op) = (&graph.operations[pw.op], &graph.operations[node.op]);
        if removed[p]
            || uses.readers[mid.index()] != 1
            || pw.outputs.as_slice() != [mid]
            || !activations_only(&pw_epilogue)
            || !fuses(graph, pw_op, dw_op)
        {
            continue;
        }
        // Slots: the pointwise conv's three, the depthwise filter and bias, then what the
        // depthwise epilogue reads (after the depthwise conv's own slots until now).
        let own = dw_op.inputs.len();
        let slot = |n: &Node, i: usize| n.inputs.get(i).copied().flatten();
        let mut inputs = vec![slot(pw, 0), slot(pw, 1), slot(pw, 2), slot(node, 1), slot(node, 2)];
        inputs.extend(node.inputs.iter().skip(own).copied());
        let mut depthwise = dw_epilogue;
        for step in &mut depthwise.steps {
            if let EpilogueStep::Binary { input, .. } = step {
                *input = *input - own + 5;
            }
        }
        let fused = Node {
            kind: NodeKind::PointwiseDepthwise(Box::new(PointwiseDepthwise {
                pointwise_op: pw.op,
                pointwise: pw_epilogue,
                depthwise,
            })),
            op: node.op,
            inputs,
            outputs: node.outputs.clone(),
            name: format!("{}+{}", pw.name, node.name),
        };
        program.nodes[d] = fused;
        removed[p] = true;
    }
    let mut i = 0;
    program.nodes.retain(|_| {
        i += 1;
        !removed[i - 1]
    });
}

#[cfg(test)]
#[path = "pointwise_depthwise_tests.rs"]
mod tests;

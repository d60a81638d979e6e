//! Constant folding: an operation whose inputs are all constants runs once, at build, with
//! its own kernel, and its results become constants of the graph the plan is made from.
//!
//! Kernels that prepare constant operands at build (packed GEMM filters, packed recurrent
//! weights, Winograd-transformed filters) then see them: a bias that arrives as
//! `slice(constant)` or a weight as `transpose(constant)` is packed once instead of on every
//! dispatch. The values are the kernel's own, so results are bitwise those of the unfolded plan.
//!
//! Not folded (left to run at dispatch): operations whose result is a graph output (the plan
//! writes those into the caller's buffer), results larger than
//! `max(FOLD_MIN_CAP, FOLD_GROWTH × their constant inputs)` (an `expand` of a small constant
//! would otherwise hold its large result for the graph's lifetime), and any operation whose
//! kernel cannot be prepared or run here, or whose storage cannot be allocated.

use crate::kernels::{self, In, Out};
use crate::memory::AlignedBuf;
use webnn_core::graph::{Constant, OperandSource};
use webnn_core::{Graph, SharedBytes};

/// Results up to this many bytes are folded whatever their inputs' size.
pub const FOLD_MIN_CAP: usize = 1 << 20;
/// Above [`FOLD_MIN_CAP`], results may be at most this many times their inputs' bytes (a
/// float32 `dequantizeLinear` of int8 weights is 4×).
pub const FOLD_GROWTH: usize = 4;

/// The graph with every foldable operation's results turned into constants, or `None` when
/// nothing folds. Operations stay in `operations` (indices are unchanged);
/// [`super::Program::from_graph`] skips those whose results are all constants.
pub fn run(graph: &Graph) -> Option<Graph> {
    let mut folded: Option<Graph> = None;
    let is_output = |id: webnn_core::OperandId| graph.outputs.iter().any(|(_, o)| *o == id);
    for (i, op) in graph.operations.iter().enumerate() {
        let g = folded.as_ref().unwrap_or(graph);
        let constant_input =
            |id: &webnn_core::OperandId| matches!(g.operands[id.index()].source, OperandSource::Constant(_));
        if op.inputs.iter().flatten().next().is_none()
            || !op.inputs.iter().flatten().all(constant_input)
            || op.outputs.iter().any(|&o| is_output(o))
        {
            continue;
        }
        let in_bytes: usize = op.inputs.iter().flatten().map(|id| g.descriptor(*id).byte_length() as usize).sum();
        let out_bytes: usize = op.outputs.iter().map(|id| g.descriptor(*id).byte_length() as usize).sum();
        if out_bytes > FOLD_MIN_CAP.max(in_bytes.saturating_mul(FOLD_GROWTH)) {
            continue;
        }
        let Some(values) = evaluate(g, i) else { continue };
        let g = folded.get_or_insert_with(|| graph.clone());
        for (&id, bytes) in g.operations[i].outputs.clone().iter().zip(values) {
            g.operands[id.index()].source = OperandSource::Constant(g.constants.len());
            g.constants.push(Constant { operand: id, bytes, tensor_destroyed: None });
        }
    }
    folded
}

/// Runs operation `i` of `graph` (whose inputs are constants) with its kernel; its results,
/// or `None` if it cannot run here.
fn evaluate(graph: &Graph, i: usize) -> Option<Vec<SharedBytes>> {
    let op = &graph.operations[i];
    let kernel = kernels::lower(op, graph).ok()?;
    let constant_bytes = |id: &webnn_core::OperandId| match graph.operands[id.index()].source {
        OperandSource::Constant(k) => graph.constants.get(k).map(|c| &c.bytes[..]),
        _ => None,
    };
    let mut ins = Vec::with_capacity(op.inputs.len());
    for slot in &op.inputs {
        ins.push(match slot {
            Some(id) => Some(In { desc: graph.descriptor(*id), bytes: constant_bytes(id)? }),
            None => None,
        });
    }
    let mut bufs = Vec::with_capacity(op.outputs.len());
    for id in &op.outputs {
        bufs.push(AlignedBuf::try_zeroed(graph.descriptor(*id).byte_length() as usize, "constant folding").ok()?);
    }
    let mut outs: Vec<Out<'_>> = op
        .outputs
        .iter()
        .zip(bufs.iter_mut())
        .map(|(id, b)| Out { desc: graph.descriptor(*id), bytes: b.as_bytes_mut() })
        .collect();
    kernel.run(&ins, &mut outs).ok()?;
    bufs.iter().map(|b| SharedBytes::try_copy_from(b.as_bytes()).ok()).collect()
}

#[cfg(test)]
mod tests {
    use super::super::Program;
    use super::*;
    use crate::testing::graphs::*;
    use webnn_core::{DataType, OperandDescriptor};

    #[test]
    fn chains_of_constant_operations_fold_and_give_the_same_values() {
        let mut b = builder();
        let x = b.input("x", &f32_desc(&[2, 3])).unwrap();
        let c =
            b.constant(&f32_desc(&[4, 3]), &f32_bytes(&[1., 2., 3., 4., 5., 6., 7., 8., 9., 10., 11., 12.])).unwrap();
        let s = b.slice(&c, &[1, 0], &[2, 3], &Default::default()).unwrap();
        let t = b.neg(&s, &opts()).unwrap();
        let y = b.add(&x, &t, &opts()).unwrap();
        let graph = b.build(&[("y", &y)]).unwrap();
        let folded = run(&graph).expect("slice and neg fold");
        let program = Program::from_graph(&folded);
        assert_eq!(program.nodes.iter().map(|n| n.name.as_str()).collect::<Vec<_>>(), ["add"]);
        let x_values = [0.5f32, 1.5, 2.5, 3.5, 4.5, 5.5];
        let out = f32_values(&run_graph(&graph, &[&f32_bytes(&x_values)])[0]);
        // -(rows 1..3 of c) + x, written out by hand.
        assert_eq!(out, [-3.5, -3.5, -3.5, -3.5, -3.5, -3.5]);
    }

    #[test]
    fn outputs_inputs_and_large_results_do_not_fold() {
        let mut b = builder();
        let x = b.input("x", &f32_desc(&[2])).unwrap();
        let c = b.constant(&f32_desc(&[2]), &f32_bytes(&[1., 2.])).unwrap();
        // A graph output computed from constants only stays a step.
        let r = b.relu(&c, &opts()).unwrap();
        // An expand of 8 bytes to 4 MiB is too big to hold.
        let big = b.expand(&c, &[1 << 19, 2], &opts()).unwrap();
        let s = b.reduce_sum(&big, &Default::default()).unwrap();
        let y = b.add(&x, &s, &opts()).unwrap();
        let graph = b.build(&[("r", &r), ("y", &y)]).unwrap();
        assert!(run(&graph).is_none());
        let outs = run_graph(&graph, &[&f32_bytes(&[0., 1.])]);
        assert_eq!(f32_values(&outs[0]), [1., 2.]);
        assert_eq!(f32_values(&outs[1]), [(3 << 19) as f32, (3 << 19) as f32 + 1.]);
    }

    #[test]
    fn integer_and_multi_output_operations_fold() {
        let mut b = builder();
        let x = b.input("x", &OperandDescriptor::new(DataType::Int32, vec![3])).unwrap();
        let c = b
            .constant(
                &OperandDescriptor::new(DataType::Int32, vec![6]),
                &[1i32, -2, 3, -4, 5, -6].map(i32::to_le_bytes).concat(),
            )
            .unwrap();
        let parts = b.split(&c, &webnn_core::Splits::Count(2), &Default::default()).unwrap();
        let y = b.mul(&x, &parts[1], &opts()).unwrap();
        let graph = b.build(&[("y", &y)]).unwrap();
        let folded = run(&graph).expect("split folds");
        assert_eq!(Program::from_graph(&folded).nodes.len(), 1);
        let out = run_graph(&graph, &[&[2i32, 3, 4].map(i32::to_le_bytes).concat()]);
        let got: Vec<i32> = out[0].chunks_exact(4).map(|c| i32::from_le_bytes(c.try_into().unwrap())).collect();
        assert_eq!(got, [-8, 15, -24]);
    }
}

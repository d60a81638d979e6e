//! Dead-code removal: drops nodes none of whose outputs is read by a later node or is a graph
//! output (after fusion, and for graphs whose builder produced values it never used).

use super::uses::Uses;
use super::Program;
use webnn_core::Graph;

/// Removes dead nodes, last to first (so chains of dead values go at once).
pub fn run(graph: &Graph, program: &mut Program) {
    let mut readers = Uses::of(graph, program).readers;
    let mut keep = vec![true; program.nodes.len()];
    for (i, node) in program.nodes.iter().enumerate().rev() {
        if node.outputs.iter().all(|o| readers[o.index()] == 0) {
            keep[i] = false;
            for id in node.inputs.iter().flatten() {
                readers[id.index()] -= 1;
            }
        }
    }
    let mut i = 0;
    program.nodes.retain(|_| {
        i += 1;
        keep[i - 1]
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::graphs::*;

    #[test]
    fn unread_values_are_dropped_and_outputs_kept() {
        let mut b = builder();
        let x = b.input("x", &f32_desc(&[2, 3])).unwrap();
        let r = b.relu(&x, &opts()).unwrap();
        let z = b.sigmoid(&r, &opts()).unwrap();
        let y = b.tanh(&x, &opts()).unwrap();
        let mut graph = b.build(&[("y", &y), ("z", &z)]).unwrap();
        let mut program = Program::from_graph(&graph);
        run(&graph, &mut program);
        assert_eq!(program.nodes.len(), 3);
        // Without the output z, relu and sigmoid are dead (a chain, removed in one run).
        graph.outputs.retain(|(name, _)| name == "y");
        run(&graph, &mut program);
        assert_eq!(program.nodes.iter().map(|n| n.name.as_str()).collect::<Vec<_>>(), ["tanh"]);
    }
}

//! Who reads what: the bookkeeping the passes share.

use super::Program;
use webnn_core::Graph;

/// For every operand: how many node input slots read it, plus one if it is a graph output
/// (a graph output must be materialized, so it is never fused away); and which node writes it.
pub struct Uses {
    /// Readers per operand index.
    pub readers: Vec<usize>,
    /// Producing node per operand index.
    pub producer: Vec<Option<usize>>,
}

impl Uses {
    /// Counts the readers and producers in `program`.
    pub fn of(graph: &Graph, program: &Program) -> Uses {
        let n = graph.operands.len();
        let mut readers = vec![0usize; n];
        let mut producer = vec![None; n];
        for (i, node) in program.nodes.iter().enumerate() {
            for id in node.inputs.iter().flatten() {
                readers[id.index()] += 1;
            }
            for id in &node.outputs {
                producer[id.index()] = Some(i);
            }
        }
        for (_, id) in &graph.outputs {
            readers[id.index()] += 1;
        }
        Uses { readers, producer }
    }
}

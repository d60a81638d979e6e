//! Static statistics of a validated graph: operations by kind, parameter count, and an estimate
//! of the floating-point work of one run.

use std::collections::BTreeMap;
use webnn_core::Graph;

/// What `inspect` reports about a WebNN graph.
#[derive(Debug, Clone, PartialEq)]
pub struct GraphStats {
    /// Operations per IDL op name.
    pub ops: BTreeMap<&'static str, usize>,
    /// Elements held by constants (weights, biases, scalars).
    pub parameters: u64,
    /// Bytes held by constants.
    pub constant_bytes: u64,
    /// Multiply-accumulates of conv2d, convTranspose2d, matmul, gemm, gru and lstm.
    pub macs: u64,
    /// Output elements of every other operation (one operation each).
    pub other_elements: u64,
}

impl GraphStats {
    /// The estimate in GFLOP: 2 per multiply-accumulate plus 1 per output element of the
    /// other operations.
    pub fn gflop(&self) -> f64 {
        (2.0 * self.macs as f64 + self.other_elements as f64) / 1e9
    }
}

/// Computes the statistics of `graph`.
pub fn graph_stats(graph: &Graph) -> GraphStats {
    let mut stats = GraphStats { ops: BTreeMap::new(), parameters: 0, constant_bytes: 0, macs: 0, other_elements: 0 };
    for c in &graph.constants {
        let d = graph.descriptor(c.operand);
        stats.parameters += d.element_count();
        stats.constant_bytes += d.byte_length();
    }
    for op in &graph.operations {
        *stats.ops.entry(op.kind.idl_name()).or_default() += 1;
        match graph.multiply_accumulates(op) {
            Some(m) => stats.macs = stats.macs.saturating_add(m),
            None => {
                let out: u64 = op.outputs.iter().map(|&o| graph.descriptor(o).element_count()).sum();
                stats.other_elements = stats.other_elements.saturating_add(out);
            }
        }
    }
    stats
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::build_graph;

    #[test]
    fn builtin_model_flops_match_the_literature() {
        // MobileNetV2 1.0 at 224: ~300 M multiply-adds (paper: 300M; torchvision: 0.30 GMACs).
        let (_, g) = build_graph("mobilenetv2", &[]);
        let s = graph_stats(&g);
        assert!((290e6..320e6).contains(&(s.macs as f64)), "{}", s.macs);
        assert_eq!(s.ops["conv2d"], 52);
        // ResNet-50 at 224: ~4.1 G multiply-adds.
        let (_, g) = build_graph("resnet50", &[]);
        let s = graph_stats(&g);
        assert!((4.0e9..4.2e9).contains(&(s.macs as f64)), "{}", s.macs);
        assert!(s.gflop() > 8.0 && s.gflop() < 8.6, "{}", s.gflop());
        assert_eq!(s.constant_bytes, 4 * s.parameters);
        // BERT layer at seq 128: 4 * 128 * 768^2 + 2 * 128^2 * 768 + 2 * 128 * 768 * 3072 MACs.
        let (_, g) = build_graph("bert", &[]);
        let s = graph_stats(&g);
        let per_layer: u64 = 4 * 128 * 768 * 768 + 2 * 128 * 128 * 768 + 2 * 128 * 768 * 3072;
        assert_eq!(s.macs, 4 * per_layer);
    }

    #[test]
    fn elementwise_graphs_count_output_elements() {
        let (_, g) = build_graph("axpy", &[("x".into(), vec![10, 10])]);
        let s = graph_stats(&g);
        assert_eq!((s.macs, s.other_elements, s.parameters), (0, 200, 200));
        assert_eq!(s.ops.get("mul"), Some(&1));
        assert_eq!(s.ops.get("add"), Some(&1));
    }
}

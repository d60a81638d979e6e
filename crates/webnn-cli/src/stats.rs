//! Static statistics of a validated graph: operations by kind, parameter count, and an estimate
//! of the floating-point work of one run.

use std::collections::BTreeMap;
use webnn::webnn_core::{Attrs, Graph, Operation};
use webnn::{InputOperandLayout, OpKind};

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
        match macs(graph, op) {
            Some(m) => stats.macs = stats.macs.saturating_add(m),
            None => {
                let out: u64 = op.outputs.iter().map(|&o| graph.descriptor(o).element_count()).sum();
                stats.other_elements = stats.other_elements.saturating_add(out);
            }
        }
    }
    stats
}

/// Multiply-accumulates of one operation, for the ops dominated by them.
fn macs(graph: &Graph, op: &Operation) -> Option<u64> {
    let desc = |slot: usize| op.input(slot).map(|id| graph.descriptor(id));
    let out = op.outputs.first().map(|&id| graph.descriptor(id))?;
    let channel = |shape: &[u32], layout: InputOperandLayout| -> u64 {
        let c = match layout {
            InputOperandLayout::Nchw => shape.get(1),
            InputOperandLayout::Nhwc => shape.get(3),
        };
        c.copied().unwrap_or(1).max(1) as u64
    };
    match (op.kind, &op.attrs) {
        // Every output element takes (filter elements / output channels) products.
        (OpKind::Conv2d, Attrs::Conv2d { input_layout, .. }) => {
            let filter = desc(1)?;
            Some(out.element_count() * filter.element_count() / channel(&out.shape, *input_layout))
        }
        // Every input element is scattered through (filter elements / input channels) products.
        (OpKind::ConvTranspose2d, Attrs::ConvTranspose2d { input_layout, .. }) => {
            let (input, filter) = (desc(0)?, desc(1)?);
            Some(input.element_count() * filter.element_count() / channel(&input.shape, *input_layout))
        }
        (OpKind::Matmul, _) => {
            let k = desc(0)?.shape.last().copied().unwrap_or(1) as u64;
            Some(out.element_count() * k)
        }
        (OpKind::Gemm, Attrs::Gemm { a_transpose, .. }) => {
            let a = &desc(0)?.shape;
            let k = if *a_transpose { a.first() } else { a.get(1) };
            Some(out.element_count() * k.copied().unwrap_or(1) as u64)
        }
        // Per step and batch row: one product per weight and recurrent weight element.
        (OpKind::Gru | OpKind::Lstm, Attrs::Gru { steps, .. } | Attrs::Lstm { steps, .. }) => {
            let batch = desc(0)?.shape.get(1).copied().unwrap_or(1) as u64;
            Some(*steps as u64 * batch * (desc(1)?.element_count() + desc(2)?.element_count()))
        }
        (OpKind::GruCell | OpKind::LstmCell, _) => {
            let batch = desc(0)?.shape.first().copied().unwrap_or(1) as u64;
            Some(batch * (desc(1)?.element_count() + desc(2)?.element_count()))
        }
        _ => None,
    }
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

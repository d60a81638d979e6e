//! Helpers shared by the binary's test modules.

use crate::builtin::build;
use crate::loaded::LoadedModel;
use webnn::webnn_core::{ContextLink, Graph, GraphBuilder};

/// A core builder on a fresh context (no backend).
pub fn core_builder() -> GraphBuilder {
    GraphBuilder::new(ContextLink { id: 1, lost: Default::default(), limits: None }).unwrap()
}

/// Builds a built-in into a bare core builder and returns the validated graph (no backend).
pub fn build_graph(name: &str, shapes: &[(String, Vec<u32>)]) -> (LoadedModel, Graph) {
    let mut b = core_builder();
    let model = build(name, &mut b, shapes).unwrap();
    let outputs: Vec<(&str, &webnn::Operand)> = model.outputs.iter().map(|(n, o)| (n.as_str(), o)).collect();
    let graph = b.build(&outputs).unwrap();
    (model, graph)
}

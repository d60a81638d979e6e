//! Helpers shared by the binary's test modules.

use crate::builtin::build;
use crate::loaded::LoadedModel;
use webnn::{ContextOptions, DeviceChoice, GraphBuilder};
use webnn_core::Graph;

/// A builder on a fresh CPU context.
pub fn cpu_builder() -> GraphBuilder {
    let context = webnn::ml().create_context(&ContextOptions { device: DeviceChoice::Cpu, ..Default::default() });
    GraphBuilder::new(&context.unwrap()).unwrap()
}

/// Builds a built-in and returns the validated graph (not compiled).
pub fn build_graph(name: &str, shapes: &[(String, Vec<u32>)]) -> (LoadedModel, Graph) {
    let mut b = cpu_builder();
    let model = build(name, &mut b, shapes).unwrap();
    let outputs: Vec<(&str, &webnn::Operand)> = model.outputs.iter().map(|(n, o)| (n.as_str(), o)).collect();
    let graph = b.start_build(&outputs).unwrap().into_graph();
    (model, graph)
}

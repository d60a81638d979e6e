//! Small graphs made with the core builder and run through the whole CPU backend: the helpers
//! of the compile passes' and the plan's tests.

use crate::plan::{CompiledPlan, Plan};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use webnn_core::backend::CompiledGraph;
use webnn_core::{ContextLink, DataType, Graph, GraphBuilder, OperandDescriptor, OperatorOptions};

/// A fresh builder.
pub fn builder() -> GraphBuilder {
    GraphBuilder::new(ContextLink { id: 7, lost: Arc::new(AtomicBool::new(false)), limits: None }).unwrap()
}

/// Default operator options.
pub fn opts() -> OperatorOptions {
    OperatorOptions::default()
}

/// A float32 descriptor.
pub fn f32_desc(shape: &[u32]) -> OperandDescriptor {
    OperandDescriptor::new(DataType::Float32, shape.to_vec())
}

/// Little-endian bytes of f32 values.
pub fn f32_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// f32 values of little-endian bytes.
pub fn f32_values(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect()
}

/// Runs `graph` with the given input bytes (in input order) and returns every output's bytes.
pub fn run_graph(graph: &Graph, inputs: &[&[u8]]) -> Vec<Vec<u8>> {
    run_graph_with(graph, crate::compile::Passes::from_env(), inputs)
}

/// [`run_graph`] with the optional compile passes of `passes`.
pub fn run_graph_with(graph: &Graph, passes: crate::compile::Passes, inputs: &[&[u8]]) -> Vec<Vec<u8>> {
    let plan = Plan::compile_with(graph, passes).unwrap();
    let compiled = CompiledPlan::new(plan, Arc::new(crate::pool::build_pool(Some(2)).unwrap()));
    let mut outs: Vec<Vec<u8>> =
        graph.outputs.iter().map(|(_, id)| vec![0u8; graph.descriptor(*id).byte_length() as usize]).collect();
    let mut slices: Vec<&mut [u8]> = outs.iter_mut().map(|o| o.as_mut_slice()).collect();
    compiled.execute(inputs, &mut slices).unwrap();
    outs
}

/// Deterministic values in [-r, r) (the kernels' test generator, seeded with `seed`).
pub fn values(n: usize, seed: u64, r: f32) -> Vec<f32> {
    let mut rng = webnn_core::testing::Rng::new(seed);
    (0..n).map(|_| rng.uniform(-r as f64, r as f64) as f32).collect()
}

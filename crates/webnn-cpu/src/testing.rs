//! Test support: run one operation end to end through a compiled plan, without the builder.
//! Kernel tests compare its results with straightforward reference implementations written
//! in the tests themselves.

use crate::plan::{CompiledPlan, Plan};
use std::sync::Arc;
use webnn_core::backend::CompiledGraph;
use webnn_core::graph::{Attrs, OperandNode, OperandSource, Operation};
use webnn_core::{Graph, OpKind, OperandDescriptor, OperandId};

/// Bytes of a typed slice.
pub fn bytes_of<T: bytemuck::Pod>(v: &[T]) -> Vec<u8> {
    bytemuck::cast_slice(v).to_vec()
}

/// Typed copy of bytes.
pub fn from_bytes<T: bytemuck::Pod>(b: &[u8]) -> Vec<T> {
    bytemuck::pod_collect_to_vec(b)
}

/// Runs one operation: `inputs` by slot (`None` = absent optional operand) as graph inputs,
/// `outputs` the output descriptors; returns the output bytes.
pub fn run_op(
    kind: OpKind,
    inputs: &[Option<(OperandDescriptor, Vec<u8>)>],
    attrs: Attrs,
    outputs: &[OperandDescriptor],
) -> Vec<Vec<u8>> {
    let mut graph = Graph::default();
    let mut slots = Vec::new();
    let mut data = Vec::new();
    for (i, input) in inputs.iter().enumerate() {
        match input {
            Some((desc, bytes)) => {
                let id = OperandId(graph.operands.len() as u32);
                let name = format!("in{i}");
                graph.operands.push(OperandNode { descriptor: desc.clone(), source: OperandSource::Input(name.clone()) });
                graph.inputs.push((name, id));
                slots.push(Some(id));
                let mut aligned = crate::memory::AlignedBuf::zeroed(bytes.len());
                aligned.as_bytes_mut().copy_from_slice(bytes);
                data.push(aligned);
            }
            None => slots.push(None),
        }
    }
    let mut out_ids = Vec::new();
    for (i, desc) in outputs.iter().enumerate() {
        let id = OperandId(graph.operands.len() as u32);
        graph.operands.push(OperandNode { descriptor: desc.clone(), source: OperandSource::Operation { op: 0, output: i } });
        graph.outputs.push((format!("out{i}"), id));
        out_ids.push(id);
    }
    graph.operations.push(Operation { kind, inputs: slots, outputs: out_ids, attrs, label: String::new() });
    let plan = Plan::compile(&graph).expect("compile");
    let pool = Arc::new(crate::pool::build_pool(Some(2)).expect("pool"));
    let compiled = CompiledPlan::new(plan, pool);
    let mut out_bufs: Vec<crate::memory::AlignedBuf> =
        outputs.iter().map(|d| crate::memory::AlignedBuf::zeroed(d.byte_length() as usize)).collect();
    {
        let ins: Vec<&[u8]> = data.iter().map(|d| d.as_bytes()).collect();
        let mut outs: Vec<&mut [u8]> = out_bufs.iter_mut().map(|b| b.as_bytes_mut()).collect();
        compiled.execute(&ins, &mut outs).expect("execute");
    }
    out_bufs.iter().map(|b| b.as_bytes().to_vec()).collect()
}

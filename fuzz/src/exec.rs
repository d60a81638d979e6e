//! Compiling and running a validated graph on the CPU backend, for graphs small enough to
//! run in a few milliseconds.

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, OnceLock};
use webnn_core::backend::Backend;
use webnn_core::{ContextLink, Graph, GraphBuilder};
use webnn_cpu::CpuBackend;

/// Largest total size of a graph's operands (inputs, constants, intermediates, outputs)
/// that is compiled and run; larger graphs are only validated.
pub const MAX_GRAPH_BYTES: u64 = 1 << 20;

/// The CPU backend of the process, one thread (the fuzzer runs one input at a time).
fn backend() -> &'static CpuBackend {
    static BACKEND: OnceLock<CpuBackend> = OnceLock::new();
    BACKEND.get_or_init(|| CpuBackend::new(Some(1)).expect("CPU backend"))
}

/// A builder of a context that is never lost.
pub fn builder() -> GraphBuilder {
    GraphBuilder::new(ContextLink { id: 1, lost: Arc::new(AtomicBool::new(false)), limits: None })
        .expect("a new builder")
}

/// With `WEBNN_FUZZ_TRACE` set, prints how far each input got (`trace: built`, `trace: ran`
/// ...), to measure how much of a corpus reaches the backend.
pub fn trace(stage: &str) {
    static ON: OnceLock<bool> = OnceLock::new();
    if *ON.get_or_init(|| std::env::var_os("WEBNN_FUZZ_TRACE").is_some()) {
        eprintln!("trace: {stage}");
    }
}

/// Bytes of every operand of `graph`, saturating.
pub fn graph_bytes(graph: &Graph) -> u64 {
    graph
        .operands
        .iter()
        .fold(0u64, |n, o| n.saturating_add(o.descriptor.byte_length()))
}

/// Compiles `graph` and runs it once if it is small ([`MAX_GRAPH_BYTES`]); `input(name, len)`
/// gives the bytes of each graph input (`len` bytes). Returns whether it ran.
///
/// Panics if a validated graph fails to execute: the backend must run whatever the builder
/// accepted (a compile error is allowed: the backend may refuse a graph it cannot hold).
pub fn run(graph: &Graph, mut input: impl FnMut(&str, usize) -> Vec<u8>) -> bool {
    trace("built");
    if graph_bytes(graph) > MAX_GRAPH_BYTES {
        trace("too large to run");
        return false;
    }
    let compiled = match backend().compile(graph) {
        Ok(c) => c,
        Err(e) => {
            trace(&format!("not compiled: {e}"));
            return false;
        }
    };
    // 8-byte aligned buffers, as CompiledGraph::execute requires.
    let aligned = |bytes: &[u8]| {
        let mut words = vec![0u64; bytes.len().div_ceil(8)];
        bytemuck::cast_slice_mut::<u64, u8>(&mut words)[..bytes.len()].copy_from_slice(bytes);
        (words, bytes.len())
    };
    let inputs: Vec<(Vec<u64>, usize)> = graph
        .inputs
        .iter()
        .map(|(name, id)| {
            let len = graph.descriptor(*id).byte_length() as usize;
            let mut bytes = input(name, len);
            bytes.resize(len, 0);
            aligned(&bytes)
        })
        .collect();
    let mut outputs: Vec<(Vec<u64>, usize)> = graph
        .outputs
        .iter()
        .map(|(_, id)| aligned(&vec![0u8; graph.descriptor(*id).byte_length() as usize]))
        .collect();
    let ins: Vec<&[u8]> = inputs
        .iter()
        .map(|(w, n)| &bytemuck::cast_slice::<u64, u8>(w)[..*n])
        .collect();
    let mut outs: Vec<&mut [u8]> = outputs
        .iter_mut()
        .map(|(w, n)| &mut bytemuck::cast_slice_mut::<u64, u8>(w)[..*n])
        .collect();
    if let Err(e) = compiled.execute(&ins, &mut outs) {
        panic!("a validated graph failed to execute: {e}");
    }
    trace(&format!("ran {} operations", graph.operations.len()));
    true
}

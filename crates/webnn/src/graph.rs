//! `MLGraph` ([spec](https://www.w3.org/TR/webnn/#api-mlgraph)): a compiled graph of one context.

use crate::util::{handle, lock};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use webnn_core::backend::CompiledGraph;
use webnn_core::OperandDescriptor;

pub(crate) struct GraphInner {
    pub context_id: u64,
    /// `[[inputDescriptors]]`, in the order the backend expects the input buffers.
    pub inputs: Vec<(String, OperandDescriptor)>,
    /// `[[outputDescriptors]]`, in the order the backend expects the output buffers.
    pub outputs: Vec<(String, OperandDescriptor)>,
    /// `[[implementation]]`; taken out by `destroy()`. Queued dispatches hold their own
    /// reference, so work submitted before `destroy()` still completes.
    pub implementation: Mutex<Option<Arc<dyn CompiledGraph>>>,
    pub destroyed: AtomicBool,
}

impl GraphInner {
    pub fn is_destroyed(&self) -> bool {
        self.destroyed.load(Ordering::Acquire)
    }

    /// `MLGraph.destroy()` ([spec](https://www.w3.org/TR/webnn/#api-mlgraph-destroy)). Idempotent.
    pub fn destroy(&self) {
        if self.destroyed.swap(true, Ordering::AcqRel) {
            return;
        }
        let implementation = lock(&self.implementation).take();
        // Resources are freed here, or by the last queued dispatch that still uses them.
        drop(implementation);
    }
}

handle! {
    /// `MLGraph` ([spec](https://www.w3.org/TR/webnn/#api-mlgraph)): a compiled graph, executed
    /// with [`crate::Context::dispatch`].
    ///
    /// Cloning gives another handle to the same graph.
    pub struct Graph(Arc<GraphInner>);
    debug |inner| { inputs: inner.inputs, outputs: inner.outputs, destroyed: inner.is_destroyed() }
}

impl Graph {
    /// `destroy()` ([spec](https://www.w3.org/TR/webnn/#api-mlgraph-destroy)): the graph can no
    /// longer be dispatched; its resources are released once the dispatches queued before are done.
    /// Idempotent.
    pub fn destroy(&self) {
        self.inner.destroy();
    }
    /// `[[isDestroyed]]` (not exposed by the spec; for diagnostics).
    pub fn is_destroyed(&self) -> bool {
        self.inner.is_destroyed()
    }
    /// Bytes of native memory the graph holds, or will hold once dispatched (constants, packed
    /// weights, intermediates); 0 once destroyed. Not in the spec: bindings report it to their
    /// garbage collector (e.g. `napi_adjust_external_memory`).
    pub fn memory_bytes(&self) -> usize {
        lock(&self.inner.implementation).as_ref().map_or(0, |i| i.memory_bytes())
    }
    /// `[[inputDescriptors]]`: name and descriptor of every input reachable from the outputs,
    /// in creation order.
    pub fn input_descriptors(&self) -> &[(String, OperandDescriptor)] {
        &self.inner.inputs
    }
    /// `[[outputDescriptors]]`: name and descriptor of every output, in the order given to
    /// `build()`.
    pub fn output_descriptors(&self) -> &[(String, OperandDescriptor)] {
        &self.inner.outputs
    }
}

//! The backend contract: an object-safe trait that receives a validated [`Graph`].
//!
//! Inputs are already validated: every operand descriptor is valid, every op's attributes are
//! resolved, bound tensors match the graph's descriptors. A backend never re-validates.

use crate::error::Result;
use crate::graph::Graph;
use crate::limits::OpSupportLimits;

/// A device that compiles graphs (the platform side of `build()`, §8.9.4 step 7).
pub trait Backend: Send + Sync {
    /// A short name, e.g. `"cpu"`.
    fn name(&self) -> &str;
    /// The limits this backend supports (reported by `opSupportLimits()`).
    fn op_support_limits(&self) -> OpSupportLimits;
    /// Compiles a validated graph. Failure becomes an `OperationError` rejection of build().
    fn compile(&self, graph: &Graph) -> Result<Box<dyn CompiledGraph>>;
}

/// A compiled graph, ready to execute (the `[[implementation]]` of an `MLGraph`).
pub trait CompiledGraph: Send + Sync {
    /// Runs the graph. `inputs[i]` holds the bytes of `graph.inputs[i]` and `outputs[i]`
    /// receives `graph.outputs[i]`, in the order of the [`Graph`] given to `compile`. Buffers
    /// are exactly the descriptors' byte lengths and 8-byte aligned.
    fn execute(&self, inputs: &[&[u8]], outputs: &mut [&mut [u8]]) -> Result<()>;
    /// Bytes of memory the compiled graph holds or will hold once dispatched (constants,
    /// packed weights, its arena of intermediates), for bindings that report native memory to
    /// a garbage collector. An estimate; 0 if unknown.
    fn memory_bytes(&self) -> usize {
        0
    }
    /// Whether one dispatch costs so little (a few microseconds) that the context's timeline
    /// runs it on the dispatching thread when nothing is queued before it, instead of handing
    /// it to its worker thread (a wake-up costs more than such a graph). False if unknown.
    fn runs_inline(&self) -> bool {
        false
    }
}

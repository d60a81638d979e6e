//! The backend contract: an object-safe trait that receives a validated [`Graph`].
//!
//! Inputs are already validated: every operand descriptor is valid, every op's attributes are
//! resolved, bound tensors match the graph's descriptors. A backend never re-validates.

use crate::error::{Error, Result};
use crate::graph::Graph;
use crate::limits::OpSupportLimits;
use crate::types::TensorDescriptor;
use std::any::Any;

/// A device that compiles graphs (the platform side of `build()`,
/// [spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-build) step 7).
pub trait Backend: Send + Sync {
    /// A short name, e.g. `"cpu"`.
    fn name(&self) -> &str;
    /// The limits this backend supports (reported by `opSupportLimits()`).
    fn op_support_limits(&self) -> OpSupportLimits;
    /// Compiles a validated graph. Failure becomes an `OperationError` rejection of build().
    fn compile(&self, graph: &Graph) -> Result<Box<dyn CompiledGraph>>;
    /// Whether work runs on a massively parallel accelerator (`MLContext.accelerated`).
    fn accelerated(&self) -> bool {
        false
    }
    /// The GPU adapter the backend runs on (name and graphics API), if any.
    fn adapter_name(&self) -> Option<String> {
        None
    }
    /// Allocates the zero-filled `[[data]]` of an `MLTensor`
    /// ([spec](https://www.w3.org/TR/webnn/#api-mlcontext-createconstanttensor)) where this
    /// backend's graphs read and write it: host memory by default. Failure is an `UnknownError`.
    fn create_tensor_memory(&self, descriptor: &TensorDescriptor) -> Result<Box<dyn TensorMemory>> {
        Ok(Box::new(HostMemory::zeroed(descriptor.byte_length() as usize)?))
    }
}

/// The `[[data]]` of an `MLTensor`: exactly the descriptor's byte length, in the memory of the
/// backend that made it ([`Backend::create_tensor_memory`]). Only the context's timeline
/// touches it, so reads and writes are in call order.
pub trait TensorMemory: Send + Sync {
    /// `writeTensor()`: replaces the bytes (`bytes` is exactly the byte length).
    fn write(&mut self, bytes: &[u8]) -> Result<()>;
    /// `readTensor()`: copies the bytes into `out` (exactly the byte length).
    fn read(&self, out: &mut [u8]) -> Result<()>;
    /// The byte length.
    fn len(&self) -> usize;
    /// True for a zero-length tensor.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// For the backend that made it, to reach its own type.
    fn as_any(&self) -> &dyn Any;
    /// For the backend that made it, to reach its own type.
    fn as_any_mut(&mut self) -> &mut dyn Any;
}

/// Tensor memory in host RAM: 8-byte aligned, zero-filled at creation.
#[derive(Debug)]
pub struct HostMemory {
    words: Vec<u64>,
    len: usize,
}

impl HostMemory {
    /// Zero-filled memory of `len` bytes; allocation failure is an `UnknownError`
    /// ([spec](https://www.w3.org/TR/webnn/#api-mlcontext-createconstanttensor)).
    pub fn zeroed(len: usize) -> Result<Self> {
        let n = len.div_ceil(8);
        let mut words = Vec::new();
        words
            .try_reserve_exact(n)
            .map_err(|_| Error::unknown(format!("cannot allocate {len} bytes for the tensor")))?;
        words.resize(n, 0);
        Ok(HostMemory { words, len })
    }

    /// The bytes.
    pub fn bytes(&self) -> &[u8] {
        &bytemuck::cast_slice::<u64, u8>(&self.words)[..self.len]
    }

    /// The bytes, writable.
    pub fn bytes_mut(&mut self) -> &mut [u8] {
        &mut bytemuck::cast_slice_mut::<u64, u8>(&mut self.words)[..self.len]
    }
}

impl TensorMemory for HostMemory {
    fn write(&mut self, bytes: &[u8]) -> Result<()> {
        let dst = self.bytes_mut();
        if dst.len() != bytes.len() {
            return Err(Error::unknown(format!("writeTensor: {} bytes for a tensor of {}", bytes.len(), dst.len())));
        }
        dst.copy_from_slice(bytes);
        Ok(())
    }
    fn read(&self, out: &mut [u8]) -> Result<()> {
        let src = self.bytes();
        if src.len() != out.len() {
            return Err(Error::unknown(format!("readTensor: {} bytes for a tensor of {}", out.len(), src.len())));
        }
        out.copy_from_slice(src);
        Ok(())
    }
    fn len(&self) -> usize {
        self.len
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

/// A compiled graph, ready to execute (the `[[implementation]]` of an `MLGraph`).
pub trait CompiledGraph: Send + Sync {
    /// Runs the graph. `inputs[i]` holds the bytes of `graph.inputs[i]` and `outputs[i]`
    /// receives `graph.outputs[i]`, in the order of the [`Graph`] given to `compile`. Buffers
    /// are exactly the descriptors' byte lengths and 8-byte aligned.
    fn execute(&self, inputs: &[&[u8]], outputs: &mut [&mut [u8]]) -> Result<()>;
    /// Runs the graph on tensors' memories (made by the same backend's
    /// [`Backend::create_tensor_memory`]), in the order of `execute`. The default runs
    /// `execute` on [`HostMemory`].
    fn dispatch(&self, inputs: &[&dyn TensorMemory], outputs: &mut [&mut dyn TensorMemory]) -> Result<()> {
        let ins: Option<Vec<&[u8]>> =
            inputs.iter().map(|m| m.as_any().downcast_ref::<HostMemory>().map(HostMemory::bytes)).collect();
        let outs: Option<Vec<&mut [u8]>> = outputs
            .iter_mut()
            .map(|m| m.as_any_mut().downcast_mut::<HostMemory>().map(HostMemory::bytes_mut))
            .collect();
        match (ins, outs) {
            (Some(ins), Some(mut outs)) => self.execute(&ins, &mut outs),
            _ => Err(Error::unknown("dispatch: a tensor's memory belongs to another kind of device")),
        }
    }
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

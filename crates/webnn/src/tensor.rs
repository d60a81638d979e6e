//! `MLTensor` ([spec](https://www.w3.org/TR/webnn/#api-mltensor)): a typed buffer owned by one
//! context, read and written on its timeline.

use crate::promise::{Resolver, Revocable};
use crate::util::{handle, lock};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use webnn_core::backend::TensorMemory;
use webnn_core::{ConstantTensorSource, DataType, Error, Result, TensorDescriptor};

/// Sent to a `read_tensor_into` caller when the timeline reaches its read: while the caller
/// holds it, the timeline waits, so the caller copies exactly the state the read must see.
pub(crate) struct ReadGate {
    _release: mpsc::Sender<()>,
}

impl ReadGate {
    pub fn new() -> (Self, mpsc::Receiver<()>) {
        let (tx, rx) = mpsc::channel();
        (ReadGate { _release: tx }, rx)
    }
}

/// A tensor rented to a wgpu device ([`crate::Context::import_external_buffer`]): the
/// caller's passes may use [`RentedBuffer::buffer`] with exclusive access until it is dropped
/// or released; the context's timeline waits until then.
pub struct RentedBuffer {
    pub(crate) buffer: webnn_gpu::wgpu::Buffer,
    pub(crate) zero_copy: bool,
    pub(crate) _release: mpsc::Sender<()>,
}

impl std::fmt::Debug for RentedBuffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RentedBuffer").field("size", &self.buffer.size()).field("zero_copy", &self.zero_copy).finish()
    }
}

impl RentedBuffer {
    /// The buffer (usages STORAGE | COPY_SRC | COPY_DST).
    pub fn buffer(&self) -> &webnn_gpu::wgpu::Buffer {
        &self.buffer
    }
    /// True if the buffer is the tensor's own memory (no copy was made).
    pub fn is_zero_copy(&self) -> bool {
        self.zero_copy
    }
    /// Returns the tensor to WebNN (the explainer's `GPUBuffer.destroy()` / `release()`):
    /// the same as dropping it. Submit the passes that use the buffer first.
    pub fn release(self) {}
}

impl std::ops::Deref for RentedBuffer {
    type Target = webnn_gpu::wgpu::Buffer;
    fn deref(&self) -> &Self::Target {
        &self.buffer
    }
}

/// A read in `[[pendingPromises]]`.
pub(crate) enum PendingRead {
    /// `readTensor(tensor)`: resolved with a copy of the bytes.
    Copy(Resolver<Result<Vec<u8>>>),
    /// `readTensor(tensor, outputData)`: resolved with a gate; the caller copies.
    Into(Resolver<Result<ReadGate>>),
}

impl PendingRead {
    pub fn reject(self, error: Error) {
        match self {
            PendingRead::Copy(r) => r.resolve(Err(error)),
            PendingRead::Into(r) => r.resolve(Err(error)),
        }
    }
}

/// An entry of `[[pendingPromises]]`.
enum PendingEntry {
    /// Queued on the timeline, not reached yet.
    Waiting(PendingRead),
    /// Resolved by the timeline, but its holder has not taken the value yet: the spec's
    /// settling task has not run, so `destroy()` still rejects it
    /// ([spec](https://www.w3.org/TR/webnn/#api-mltensor-destroy)).
    Settled(Revocable<Result<Vec<u8>>>),
}

#[derive(Default)]
pub(crate) struct Pending {
    next_id: u64,
    reads: HashMap<u64, PendingEntry>,
    /// Size at which entries whose value was taken are pruned next.
    prune_at: usize,
}

/// What a tensor needs of the context that owns it: its id and the release of the tensor's
/// data on its timeline. The context implements it (`crate::context`), so that this module
/// needs nothing of the context's or the timeline's. Held strongly: tensors keep their context
/// alive.
pub(crate) trait TensorOwner: Send + Sync {
    /// The owning context's id (unique in the process).
    fn id(&self) -> u64;
    /// Queues the release of `tensor`'s `[[data]]` on the context's timeline, after the work
    /// queued before it.
    fn release(&self, tensor: Arc<TensorInner>);
}

pub(crate) struct TensorInner {
    /// The context the tensor belongs to.
    pub context: Arc<dyn TensorOwner>,
    pub descriptor: TensorDescriptor,
    pub is_constant: bool,
    /// `[[isDestroyed]]`, shared with graph builders for decisions.md D2.
    pub destroyed: Arc<AtomicBool>,
    /// `[[pendingPromises]]`; its lock also orders `destroy()` against new reads.
    pub pending: Mutex<Pending>,
    /// `[[data]]`: touched only by the timeline (and by a `read_tensor_into` caller holding a
    /// [`ReadGate`]). `None` once released or for a constant tensor.
    pub data: Mutex<Option<Box<dyn TensorMemory>>>,
    /// The bytes of a constant tensor (shared with the constants of graphs built from it).
    pub constant_bytes: Mutex<Option<webnn_core::SharedBytes>>,
}

impl TensorInner {
    pub fn is_destroyed(&self) -> bool {
        self.destroyed.load(Ordering::Acquire)
    }

    /// Adds a pending read unless the tensor is destroyed; returns its id.
    pub fn add_pending(&self, read: PendingRead) -> std::result::Result<u64, PendingRead> {
        let mut pending = lock(&self.pending);
        if self.is_destroyed() {
            return Err(read);
        }
        if pending.reads.len() >= pending.prune_at {
            pending.reads.retain(|_, e| !matches!(e, PendingEntry::Settled(r) if !r.is_live()));
            pending.prune_at = (pending.reads.len() * 2).max(64);
        }
        let id = pending.next_id;
        pending.next_id += 1;
        pending.reads.insert(id, PendingEntry::Waiting(read));
        Ok(id)
    }

    /// The timeline reached pending read `id`: returns it to be settled (None if `destroy()`
    /// already rejected it). A copying read stays in `[[pendingPromises]]` until its holder
    /// takes the value, so that a `destroy()` before that still rejects it.
    pub fn take_pending(&self, id: u64) -> Option<PendingRead> {
        let mut pending = lock(&self.pending);
        // The timeline reaches each read once, so the entry is still waiting unless destroyed.
        let Some(PendingEntry::Waiting(read)) = pending.reads.remove(&id) else { return None };
        if let PendingRead::Copy(resolver) = &read {
            pending.reads.insert(id, PendingEntry::Settled(resolver.revocable()));
        }
        Some(read)
    }

    /// `MLTensor.destroy()` ([spec](https://www.w3.org/TR/webnn/#api-mltensor-destroy)): set
    /// `[[isDestroyed]]`, reject pending reads with InvalidStateError, release `[[data]]` on the
    /// timeline. Idempotent.
    pub fn destroy(self: &Arc<Self>, reason: &str) {
        let entries: Vec<PendingEntry> = {
            let mut pending = lock(&self.pending);
            if self.destroyed.swap(true, Ordering::AcqRel) {
                return;
            }
            pending.reads.drain().map(|(_, r)| r).collect()
        };
        let error = || Error::invalid_state(format!("readTensor: {reason}"));
        for entry in entries {
            match entry {
                PendingEntry::Waiting(read) => read.reject(error()),
                PendingEntry::Settled(value) => value.revoke(Err(error())),
            }
        }
        if self.is_constant {
            lock(&self.constant_bytes).take();
        } else {
            self.context.release(self.clone());
        }
    }
}

handle! {
    /// `MLTensor` ([spec](https://www.w3.org/TR/webnn/#api-mltensor)): a tensor of one context,
    /// usable as a graph input or output, read with [`crate::Context::read_tensor`] and written
    /// with [`crate::Context::write_tensor`].
    ///
    /// Cloning gives another handle to the same tensor.
    pub struct Tensor(Arc<TensorInner>);
    debug |inner| { descriptor: inner.descriptor, constant: inner.is_constant, destroyed: inner.is_destroyed() }
}

impl Tensor {
    /// `dataType`
    pub fn data_type(&self) -> DataType {
        self.inner.descriptor.data_type
    }
    /// `shape`
    pub fn shape(&self) -> &[u32] {
        &self.inner.descriptor.shape
    }
    /// `readable`
    pub fn readable(&self) -> bool {
        self.inner.descriptor.readable
    }
    /// `writable`
    pub fn writable(&self) -> bool {
        self.inner.descriptor.writable
    }
    /// `importableToWebGPU`: the tensor can be rented to a wgpu device
    /// ([`crate::Context::import_external_buffer`]).
    pub fn importable_to_webgpu(&self) -> bool {
        self.inner.descriptor.importable_to_webgpu
    }
    /// `constant`: true for a tensor made by `create_constant_tensor`.
    pub fn constant(&self) -> bool {
        self.inner.is_constant
    }
    /// The tensor's `MLTensorDescriptor`.
    pub fn descriptor(&self) -> &TensorDescriptor {
        &self.inner.descriptor
    }
    /// The byte length of the tensor's data.
    pub fn byte_length(&self) -> usize {
        self.inner.descriptor.byte_length() as usize
    }
    /// `[[isDestroyed]]` (not exposed by the spec; for diagnostics).
    pub fn is_destroyed(&self) -> bool {
        self.inner.is_destroyed()
    }
    /// `destroy()` ([spec](https://www.w3.org/TR/webnn/#api-mltensor-destroy)): pending reads
    /// reject with InvalidStateError; the data is released once the work queued before it is done.
    /// Idempotent.
    pub fn destroy(&self) {
        self.inner.destroy("the tensor was destroyed");
    }
}

impl ConstantTensorSource for Tensor {
    fn context_id(&self) -> u64 {
        self.inner.context.id()
    }
    fn tensor_descriptor(&self) -> &TensorDescriptor {
        &self.inner.descriptor
    }
    fn is_constant(&self) -> bool {
        self.inner.is_constant
    }
    fn destroyed_flag(&self) -> Arc<AtomicBool> {
        self.inner.destroyed.clone()
    }
    fn constant_bytes(&self) -> Option<webnn_core::SharedBytes> {
        lock(&self.inner.constant_bytes).clone()
    }
}

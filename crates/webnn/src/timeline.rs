//! The context timeline (`[[timeline]]`): one worker thread per context, fed by a channel.
//!
//! Jobs run one at a time in submission order, so every read sees everything queued before it
//! and work on a tensor happens in call order. Once the context is lost, queued jobs are
//! aborted (dropped) except releases. A job that fails or panics does not kill the worker: the
//! context is lost with an `UnknownError` message instead, which rejects pending reads.

use crate::context::ContextInner;
use crate::tensor::{PendingRead, ReadGate, TensorInner};
use crate::util::{lock, try_copy};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Receiver;
use std::sync::{Arc, Weak};
use webnn_core::backend::CompiledGraph;
use webnn_core::{Error, Result};

/// One step of the timeline.
pub(crate) enum Job {
    /// `dispatch()` step 7: a compute request. Tensors are in the graph's input / output order.
    Dispatch { implementation: Arc<dyn CompiledGraph>, inputs: Vec<Arc<TensorInner>>, outputs: Vec<Arc<TensorInner>> },
    /// `writeTensor()`: copy the bytes (copied at call time) into `[[data]]`.
    Write { tensor: Arc<TensorInner>, bytes: Vec<u8> },
    /// `readTensor()`: settle pending read `id` of the tensor.
    Read { tensor: Arc<TensorInner>, id: u64 },
    /// `MLTensor.destroy()`: release `[[data]]`. Runs even after the context is lost.
    Release { tensor: Arc<TensorInner> },
}

/// Starts the worker thread of a context, reading its queue `rx`.
pub(crate) fn start(
    context_id: u64,
    rx: Receiver<Job>,
    context: Weak<ContextInner>,
    lost: Arc<AtomicBool>,
) -> Result<()> {
    std::thread::Builder::new()
        .name(format!("webnn-timeline-{context_id}"))
        .spawn(move || worker(rx, context, lost))
        .map_err(|e| Error::unknown(format!("cannot start the context timeline thread: {e}")))?;
    Ok(())
}

fn worker(rx: Receiver<Job>, context: Weak<ContextInner>, lost: Arc<AtomicBool>) {
    // Ends when every sender is gone: the context was lost or dropped and the queue drained.
    for job in rx {
        if lost.load(Ordering::Acquire) && !matches!(job, Job::Release { .. }) {
            // "abort when this is lost": dropping the job settles nothing by itself; pending
            // reads were rejected when the loss destroyed their tensors.
            continue;
        }
        let failure = match catch_unwind(AssertUnwindSafe(|| run(job))) {
            Ok(Ok(())) => None,
            Ok(Err(e)) => Some(format!("UnknownError: the timeline failed: {e}")),
            Err(panic) => {
                let what = panic
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "unknown panic".to_string());
                Some(format!("UnknownError: the timeline panicked: {what}"))
            }
        };
        if let Some(message) = failure {
            if let Some(ctx) = context.upgrade() {
                ctx.lose(&message);
            }
        }
    }
}

fn run(job: Job) -> Result<()> {
    match job {
        Job::Dispatch { implementation, inputs, outputs } => {
            let in_guards: Vec<_> = inputs.iter().map(|t| lock(&t.data)).collect();
            let mut out_guards: Vec<_> = outputs.iter().map(|t| lock(&t.data)).collect();
            let ins: Option<Vec<&[u8]>> = in_guards.iter().map(|g| g.as_ref().map(|s| s.bytes())).collect();
            let outs: Option<Vec<&mut [u8]>> =
                out_guards.iter_mut().map(|g| g.as_mut().map(|s| s.bytes_mut())).collect();
            match (ins, outs) {
                (Some(ins), Some(mut outs)) => implementation.execute(&ins, &mut outs),
                // A tensor was destroyed (and released) between dispatch()'s checks and the
                // enqueue on another thread: nothing to compute into.
                _ => Ok(()),
            }
        }
        Job::Write { tensor, bytes } => {
            if let Some(storage) = lock(&tensor.data).as_mut() {
                let dst = storage.bytes_mut();
                if dst.len() == bytes.len() {
                    dst.copy_from_slice(&bytes);
                }
            }
            Ok(())
        }
        Job::Read { tensor, id } => {
            match tensor.take_pending(id) {
                None => {} // rejected by destroy()
                Some(PendingRead::Copy(resolver)) => {
                    let result = match lock(&tensor.data).as_ref() {
                        Some(storage) => try_copy("readTensor", storage.bytes()),
                        None => Err(Error::invalid_state("readTensor: the tensor was destroyed")),
                    };
                    resolver.resolve(result);
                }
                Some(PendingRead::Into(resolver)) => {
                    let (gate, released) = ReadGate::new();
                    resolver.resolve(Ok(gate));
                    // Wait until the caller has copied the data (or went away).
                    let _ = released.recv();
                }
            }
            Ok(())
        }
        Job::Release { tensor } => {
            lock(&tensor.data).take();
            Ok(())
        }
    }
}

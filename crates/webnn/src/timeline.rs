//! The context timeline (`[[timeline]]`): a queue of jobs run one at a time in submission
//! order, so every read sees everything queued before it and work on a tensor happens in call
//! order. Once the context is lost, queued jobs are aborted (dropped) except releases. A job
//! that fails or panics does not stop the timeline: the context is lost with an
//! `UnknownError` message instead, which rejects pending reads.
//!
//! Who runs the jobs: one worker thread per context, and any caller that would otherwise
//! block waiting for a read ([`Timeline::help`]). Whoever holds the queue's executor token
//! runs the job at its front; the token makes the execution sequential and ordered no matter
//! which thread runs what. A caller that writes, dispatches and then waits for a read thus
//! runs all three itself when the worker is idle, without the two thread handoffs (a futex
//! wake each, 5–20 µs on a virtual machine) of giving the work to the worker and being woken
//! by it; when the worker is already busy, the caller waits for it as before. Cheap jobs
//! (small writes, dispatches of graphs the backend marks as taking microseconds) run at
//! submission when nothing is queued before them, so the worker is not even woken.

use crate::promise::{Helper, Resolver};
use crate::tensor::{PendingRead, ReadGate, RentedBuffer, TensorInner};
use crate::util::lock;
use std::collections::VecDeque;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use webnn_core::backend::{CompiledGraph, TensorMemory};
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
    /// `importExternalBuffer()`: lend the tensor to a wgpu device and wait until the renter
    /// gives it back.
    Rent {
        tensor: Arc<TensorInner>,
        device: webnn_gpu::wgpu::Device,
        queue: webnn_gpu::wgpu::Queue,
        resolver: Resolver<Result<RentedBuffer>>,
    },
}

/// Writes up to this many bytes run on the writing thread when nothing is queued before them.
const INLINE_WRITE_BYTES: usize = 1 << 16;

impl Job {
    /// Cheaper to run on the submitting thread than to hand to the worker (a wake-up costs
    /// 5–45 µs on a busy virtual machine): small writes, and dispatches of graphs whose
    /// backend says they take microseconds ([`CompiledGraph::runs_inline`]).
    fn is_cheap(&self) -> bool {
        match self {
            Job::Write { bytes, .. } => bytes.len() <= INLINE_WRITE_BYTES,
            Job::Dispatch { implementation, .. } => implementation.runs_inline(),
            Job::Read { .. } | Job::Release { .. } | Job::Rent { .. } => false,
        }
    }
}

/// How long the worker, woken by a new job, leaves it to a caller that may be about to run it
/// itself (a caller queues a write, a dispatch and a read within a few microseconds, then
/// helps). Work nobody waits for starts this much later.
const WORKER_GRACE: std::time::Duration = std::time::Duration::from_micros(20);

/// What the context is told when a job fails or panics (it loses itself with the message).
pub(crate) type FailureHandler = Box<dyn Fn(&str) + Send + Sync>;

#[derive(Default)]
struct Queue {
    jobs: VecDeque<Job>,
    /// A thread is running a job (holds the executor token).
    running: bool,
    /// No more jobs will be queued: the worker ends once the queue is drained.
    closed: bool,
    /// The worker is waiting on `changed` (so a new job must wake it).
    worker_parked: bool,
}

/// A context's timeline: its job queue, shared by the worker thread and helping callers.
pub(crate) struct Timeline {
    queue: Mutex<Queue>,
    /// Signalled when a job is queued, the token is released or the timeline is closed.
    changed: Condvar,
    /// `queue.running`, readable without the lock (the worker's grace period polls it).
    busy: AtomicBool,
    /// The context's lost flag: queued jobs but releases are dropped once it is set.
    lost: Arc<AtomicBool>,
    on_failure: FailureHandler,
}

/// The executor token, held while a job taken from the queue runs; released on drop.
pub(crate) struct Token<'a> {
    timeline: &'a Timeline,
}

impl Drop for Token<'_> {
    fn drop(&mut self) {
        let more = {
            let mut q = lock(&self.timeline.queue);
            q.running = false;
            self.timeline.busy.store(false, Ordering::Release);
            !q.jobs.is_empty() || q.closed
        };
        if more {
            // The worker (or a helper) may be waiting for the token.
            self.timeline.changed.notify_all();
        }
    }
}

impl Timeline {
    /// A timeline without a worker yet; `on_failure` is called (on whichever thread ran the
    /// job) when a job fails or panics.
    pub fn new(lost: Arc<AtomicBool>, on_failure: FailureHandler) -> Arc<Timeline> {
        Arc::new(Timeline {
            queue: Mutex::default(),
            changed: Condvar::new(),
            busy: AtomicBool::new(false),
            lost,
            on_failure,
        })
    }

    /// Starts the worker thread, which runs jobs until the timeline is closed and drained.
    pub fn start_worker(self: &Arc<Self>, context_id: u64) -> Result<()> {
        let worker = self.clone();
        std::thread::Builder::new()
            .name(format!("webnn-timeline-{context_id}"))
            .spawn(move || worker.work())
            .map_err(|e| Error::unknown(format!("cannot start the context timeline thread: {e}")))?;
        Ok(())
    }

    /// Queues a job (dropped once the timeline is closed: "abort when lost"). A cheap job
    /// ([`Job::is_cheap`]) with nothing queued or running before it runs now, on this thread,
    /// under the executor token: the same order, without waking the worker.
    pub fn enqueue(&self, job: Job) {
        let mut q = lock(&self.queue);
        if q.closed {
            return;
        }
        if !q.running && q.jobs.is_empty() && job.is_cheap() {
            let token = self.take_token(&mut q);
            drop(q);
            self.execute(job);
            drop(token);
            return;
        }
        q.jobs.push_back(job);
        // A running job's token wakes the worker when it is released.
        let wake = q.worker_parked && !q.running;
        drop(q);
        if wake {
            self.changed.notify_all();
        }
    }

    /// Queues a job that the calling thread runs next through [`Timeline::help`]: the worker
    /// is not woken when the token is free (the caller takes it); when another thread holds
    /// the token, its release wakes the worker as for any job.
    pub fn enqueue_for_helper(&self, job: Job) {
        let mut q = lock(&self.queue);
        if !q.closed {
            q.jobs.push_back(job);
        }
    }

    /// Takes the executor token (the caller checked that it is free).
    fn take_token(&self, q: &mut Queue) -> Token<'_> {
        q.running = true;
        self.busy.store(true, Ordering::Release);
        Token { timeline: self }
    }

    /// Accepts no more jobs; the worker ends after running (or aborting) those queued.
    pub fn close(&self) {
        lock(&self.queue).closed = true;
        self.changed.notify_all();
    }

    /// The worker thread: runs jobs until the timeline is closed and drained.
    ///
    /// Woken by a new job, it first leaves a short grace period ([`WORKER_GRACE`]) in which
    /// a caller that queued work and is about to wait for it can take the token and run it
    /// itself ([`Timeline::help`]); the worker runs what nobody takes. It yields the CPU while
    /// it waits: spinning took a core from the pool thread running the caller's dispatch
    /// (write + dispatch + read of a 1×4 add, 1 thread, 2 cores: 67–71 µs spinning, 59–63
    /// yielding, alternating runs on a noisy machine).
    fn work(&self) {
        loop {
            let (job, token) = {
                let mut q = lock(&self.queue);
                loop {
                    if !q.running {
                        if let Some(job) = q.jobs.pop_front() {
                            let token = self.take_token(&mut q);
                            break (job, token);
                        }
                        if q.closed {
                            return;
                        }
                    }
                    q.worker_parked = true;
                    q = self.changed.wait(q).unwrap_or_else(|e| e.into_inner());
                    q.worker_parked = false;
                    if !q.running && !q.jobs.is_empty() && !q.closed {
                        drop(q);
                        let start = std::time::Instant::now();
                        while !self.busy.load(Ordering::Acquire) && start.elapsed() < WORKER_GRACE {
                            std::thread::yield_now();
                        }
                        q = lock(&self.queue);
                    }
                }
            };
            self.execute(job);
            drop(token);
        }
    }

    /// Runs queued jobs on the calling thread, in order, while `done()` is false and the
    /// token is free. Stops before a job for which `is_mine` is true and returns it with the
    /// token (the caller runs it and drops the token). Returns None when it can do no more:
    /// `done()`, the queue empty, or the token held by another thread (then wait for that
    /// thread to settle what you wait for).
    pub fn help(&self, done: impl Fn() -> bool, is_mine: impl Fn(&Job) -> bool) -> Option<(Job, Token<'_>)> {
        loop {
            if done() {
                return None;
            }
            let (job, token) = {
                let mut q = lock(&self.queue);
                if q.running {
                    return None;
                }
                let job = q.jobs.pop_front()?;
                let token = self.take_token(&mut q);
                (job, token)
            };
            if is_mine(&job) {
                return Some((job, token));
            }
            self.execute(job);
        }
    }

    /// Runs one job, unless the context is lost (then only releases run); a failure or a
    /// panic loses the context.
    fn execute(&self, job: Job) {
        if self.lost.load(Ordering::Acquire) && !matches!(job, Job::Release { .. }) {
            // "abort when this is lost": dropping the job settles nothing by itself; pending
            // reads were rejected when the loss destroyed their tensors.
            return;
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
            (self.on_failure)(&message);
        }
    }

    /// True once the context is lost.
    pub fn is_lost(&self) -> bool {
        self.lost.load(Ordering::Acquire)
    }
}

/// A read's [`crate::Promise::wait`] runs the queue on the waiting thread.
impl Helper for Timeline {
    fn help_until(&self, done: &dyn Fn() -> bool) {
        // No job is the waiter's own: help() runs them all and hands nothing back.
        let _ = self.help(done, |_| false);
    }
}

/// A copy of a tensor's bytes for `readTensor`; a copy that cannot be allocated is an
/// `UnknownError`.
fn read_copy(memory: &dyn TensorMemory) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    out.try_reserve_exact(memory.len())
        .map_err(|_| Error::unknown(format!("readTensor: cannot allocate {} bytes for the copy", memory.len())))?;
    out.resize(memory.len(), 0);
    memory.read(&mut out)?;
    Ok(out)
}

fn run(job: Job) -> Result<()> {
    match job {
        Job::Dispatch { implementation, inputs, outputs } => {
            let in_guards: Vec<_> = inputs.iter().map(|t| lock(&t.data)).collect();
            let mut out_guards: Vec<_> = outputs.iter().map(|t| lock(&t.data)).collect();
            let ins: Option<Vec<&dyn TensorMemory>> = in_guards.iter().map(|g| g.as_deref()).collect();
            let outs: Option<Vec<&mut dyn TensorMemory>> =
                out_guards.iter_mut().map(|g| g.as_mut().map(|m| &mut **m as &mut dyn TensorMemory)).collect();
            match (ins, outs) {
                (Some(ins), Some(mut outs)) => implementation.dispatch(&ins, &mut outs),
                // A tensor was destroyed (and released) between dispatch()'s checks and the
                // enqueue on another thread: nothing to compute into.
                _ => Ok(()),
            }
        }
        Job::Write { tensor, bytes } => match lock(&tensor.data).as_mut() {
            Some(memory) if memory.len() == bytes.len() => memory.write(&bytes),
            _ => Ok(()),
        },
        Job::Read { tensor, id } => {
            match tensor.take_pending(id) {
                None => {} // rejected by destroy()
                Some(PendingRead::Copy(resolver)) => {
                    let result = match lock(&tensor.data).as_ref() {
                        Some(memory) => read_copy(memory.as_ref()),
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
        Job::Rent { tensor, device, queue, resolver } => {
            let mut data = lock(&tensor.data);
            let Some(memory) = data.as_mut() else {
                resolver.resolve(Err(Error::invalid_state("importExternalBuffer: the tensor was destroyed")));
                return Ok(());
            };
            let lent = match webnn_gpu::interop::lend(memory.as_ref(), &device, &queue) {
                Ok(lent) => lent,
                Err(e) => {
                    resolver.resolve(Err(e));
                    return Ok(());
                }
            };
            let (release, released) = std::sync::mpsc::channel();
            resolver.resolve(Ok(RentedBuffer {
                buffer: lent.buffer().clone(),
                zero_copy: lent.is_zero_copy(),
                _release: release,
            }));
            // The timeline waits until the renter drops the buffer (or went away).
            let _ = released.recv();
            webnn_gpu::interop::take_back(lent, memory.as_mut())
        }
    }
}

//! `ML` ([spec](https://www.w3.org/TR/webnn/#api-ml)) and `MLContext`
//! ([spec](https://www.w3.org/TR/webnn/#api-mlcontext)): context creation, tensors, dispatch, reads
//! and writes, loss.
//!
//! Every check of the spec runs synchronously on the caller's thread, in the spec's order;
//! the work itself is queued on the context's timeline ([`crate::timeline`]).

use crate::graph::{Graph, GraphInner};
use crate::promise::{self, Promise, Resolver};
use crate::tensor::{PendingRead, RentedBuffer, Tensor, TensorInner, TensorOwner};
use crate::timeline::{Job, Timeline};
use crate::util::{handle, lock, push_pruned};
use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use webnn_core::backend::{Backend, CompiledGraph};
use webnn_core::{ContextLink, Error, OpSupportLimits, OperandDescriptor, PowerPreference, Result, TensorDescriptor};
use webnn_gpu::wgpu;

static NEXT_CONTEXT_ID: AtomicU64 = AtomicU64::new(1);

/// `MLContextOptions` ([spec](https://www.w3.org/TR/webnn/#api-ml)), plus `threads` and `device`,
/// extensions of this implementation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContextOptions {
    /// `powerPreference` (default `"default"`): `HighPerformance` prefers a discrete GPU,
    /// `LowPower` an integrated one. The CPU engine has a single mode.
    pub power_preference: PowerPreference,
    /// `accelerated` (default true): a preference for massively parallel accelerators. With
    /// [`DeviceChoice::Auto`], true gives a GPU context when a hardware GPU adapter exists,
    /// else a CPU one (the spec's "best available match"; [`Context::accelerated`] says
    /// which).
    pub accelerated: bool,
    /// Extension: number of threads used inside one dispatch of a CPU context (`None` or
    /// `Some(0)`: `WEBNN_NUM_THREADS`, else the machine's available parallelism).
    pub threads: Option<usize>,
    /// Extension: which engine to use (default [`DeviceChoice::Auto`]).
    pub device: DeviceChoice,
}

impl Default for ContextOptions {
    fn default() -> Self {
        ContextOptions {
            power_preference: PowerPreference::Default,
            accelerated: true,
            threads: None,
            device: DeviceChoice::Auto,
        }
    }
}

/// Extension: which engine a context runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DeviceChoice {
    /// What the spec's options ask for: a GPU when `accelerated` is true and a hardware GPU
    /// adapter exists, else the CPU engine. The environment variable `WEBNN_DEVICE` (`cpu`
    /// or `gpu`) overrides it.
    #[default]
    Auto,
    /// The CPU engine.
    Cpu,
    /// The GPU backend on any wgpu adapter, software rasterizers such as Mesa's lavapipe
    /// included; NotSupportedError if there is none.
    Gpu,
}

impl std::str::FromStr for DeviceChoice {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "auto" => Ok(DeviceChoice::Auto),
            "cpu" => Ok(DeviceChoice::Cpu),
            "gpu" => Ok(DeviceChoice::Gpu),
            other => Err(Error::type_error(format!("unknown device '{other}' (expected auto, cpu or gpu)"))),
        }
    }
}

/// `MLContextLostInfo` ([spec](https://www.w3.org/TR/webnn/#api-mlcontext-errors)).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContextLostInfo {
    /// `message`: why the context was lost.
    pub message: String,
}

/// `ML` ([spec](https://www.w3.org/TR/webnn/#api-ml)): the entry point, `navigator.ml` in a
/// browser.
#[derive(Debug, Clone, Copy, Default)]
pub struct ML;

/// `navigator.ml`: the [`ML`] entry point.
pub fn ml() -> ML {
    ML
}

impl ML {
    /// `createContext(options)` ([spec](https://www.w3.org/TR/webnn/#api-mlcontextoptions)),
    /// synchronous in Rust. Which engine runs the context is [`ContextOptions::device`]'s choice.
    /// Errors: NotSupportedError for [`DeviceChoice::Gpu`] without any GPU adapter; UnknownError if
    /// a thread cannot start.
    pub fn create_context(&self, options: &ContextOptions) -> Result<Context> {
        let mut device = options.device;
        if device == DeviceChoice::Auto {
            if let Ok(choice) = std::env::var("WEBNN_DEVICE") {
                device = choice.parse()?;
            }
        }
        let high_performance = options.power_preference == PowerPreference::HighPerformance;
        let gpu = match device {
            DeviceChoice::Cpu => None,
            DeviceChoice::Gpu => Some(webnn_gpu::AdapterChoice::Any),
            DeviceChoice::Auto => (options.accelerated
                && webnn_gpu::find_adapter(webnn_gpu::AdapterChoice::Hardware, high_performance).is_some())
            .then_some(webnn_gpu::AdapterChoice::Hardware),
        };
        match gpu {
            Some(choice) => {
                let backend = webnn_gpu::GpuBackend::new(choice, high_performance)?
                    .with_constant_folding(webnn_cpu::fold_constants);
                let device = (backend.device().clone(), backend.queue().clone());
                self.create(options, Arc::new(backend), Some(device))
            }
            None => {
                let backend = webnn_cpu::CpuBackend::new(options.threads.filter(|&n| n > 0))?;
                self.create(options, Arc::new(backend), None)
            }
        }
    }

    /// `createContext(gpuDevice)` ([spec](https://www.w3.org/TR/webnn/#api-mlcontextoptions)): a
    /// GPU context on the caller's wgpu device and queue, whose tensors the caller's passes can use
    /// ([`Context::import_external_buffer`]). `info` (from the adapter the device came from) names
    /// it in messages.
    pub fn create_context_from_wgpu(
        &self,
        device: webnn_gpu::wgpu::Device,
        queue: webnn_gpu::wgpu::Queue,
        info: &webnn_gpu::wgpu::AdapterInfo,
    ) -> Result<Context> {
        let backend = webnn_gpu::GpuBackend::from_wgpu(device.clone(), queue.clone(), info)
            .with_constant_folding(webnn_cpu::fold_constants);
        let options = ContextOptions { accelerated: true, device: DeviceChoice::Gpu, ..Default::default() };
        self.create(&options, Arc::new(backend), Some((device, queue)))
    }

    /// Extension: a context running on the given backend instead of the built-in CPU engine
    /// (for other devices, and for tests that need a backend that blocks or fails).
    pub fn create_context_with_backend(&self, options: &ContextOptions, backend: Arc<dyn Backend>) -> Result<Context> {
        self.create(options, backend, None)
    }

    fn create(
        &self,
        options: &ContextOptions,
        backend: Arc<dyn Backend>,
        wgpu_device: Option<(wgpu::Device, wgpu::Queue)>,
    ) -> Result<Context> {
        let id = NEXT_CONTEXT_ID.fetch_add(1, Ordering::Relaxed);
        let lost_flag = Arc::new(AtomicBool::new(false));
        let limits = Arc::new(backend.op_support_limits());
        let accelerated = backend.accelerated();
        let adapter_name = backend.adapter_name();
        let inner = Arc::new_cyclic(|context: &Weak<ContextInner>| {
            let context = context.clone();
            let on_failure = Box::new(move |message: &str| {
                if let Some(ctx) = context.upgrade() {
                    ctx.lose(message);
                }
            });
            ContextInner {
                id,
                power_preference: options.power_preference,
                backend_name: backend.name().to_string(),
                backend: Mutex::new(Some(backend)),
                limits,
                accelerated,
                adapter_name,
                wgpu_device,
                lost_flag: lost_flag.clone(),
                state: Mutex::new(ContextState::default()),
                timeline: Timeline::new(lost_flag.clone(), on_failure),
            }
        });
        inner.timeline.start_worker(id)?;
        Ok(Context { inner })
    }
}

#[derive(Default)]
struct ContextState {
    lost_info: Option<ContextLostInfo>,
    lost_resolvers: Vec<Resolver<ContextLostInfo>>,
    graphs: Vec<Weak<GraphInner>>,
    tensors: Vec<Weak<TensorInner>>,
    /// Registry sizes at which dead weak references are pruned next.
    prune_graphs_at: usize,
    prune_tensors_at: usize,
}

pub(crate) struct ContextInner {
    pub id: u64,
    power_preference: PowerPreference,
    /// The device; released when the context is lost, so its threads end then rather than
    /// when the last handle of the context is dropped (a binding's garbage collector may
    /// keep handles for a long time).
    backend: Mutex<Option<Arc<dyn Backend>>>,
    backend_name: String,
    limits: Arc<OpSupportLimits>,
    /// `accelerated`: the backend runs on a massively parallel accelerator.
    accelerated: bool,
    adapter_name: Option<String>,
    /// The wgpu device and queue of a GPU context.
    wgpu_device: Option<(wgpu::Device, wgpu::Queue)>,
    /// Set once lost; shared with graph builders (`ContextLink`) and the timeline.
    lost_flag: Arc<AtomicBool>,
    state: Mutex<ContextState>,
    /// The timeline (closed once lost).
    pub timeline: Arc<Timeline>,
}

impl ContextInner {
    pub fn is_lost(&self) -> bool {
        self.lost_flag.load(Ordering::Acquire)
    }

    /// `" (the context was lost: REASON)"` once the context is lost, else empty: appended to
    /// the errors of objects the loss destroyed, so that a read racing with a failure on the
    /// timeline names that failure, whichever comes first.
    pub fn lost_because(&self) -> String {
        if self.is_lost() {
            format!(" ({})", self.lost_reason())
        } else {
            String::new()
        }
    }

    /// `"the context was lost: REASON"`: the message of the errors for using a lost context.
    pub fn lost_reason(&self) -> String {
        match &lock(&self.state).lost_info {
            Some(info) => lost_phrase(&info.message),
            None => "the context is lost".to_string(),
        }
    }

    /// Puts a job on the timeline (dropped if the context is lost: "abort when lost").
    pub fn enqueue(&self, job: Job) {
        self.timeline.enqueue(job);
    }

    /// *lose* the context ([spec](https://www.w3.org/TR/webnn/#api-mlcontext-errors)): resolve
    /// `lost` with `message`, destroy every graph and tensor of the context (rejecting their
    /// pending reads), abort queued work.
    pub fn lose(&self, message: &str) {
        let (resolvers, graphs, tensors, info) = {
            let mut state = lock(&self.state);
            if state.lost_info.is_some() {
                return;
            }
            let info = ContextLostInfo { message: message.to_string() };
            state.lost_info = Some(info.clone());
            self.lost_flag.store(true, Ordering::Release);
            (
                std::mem::take(&mut state.lost_resolvers),
                std::mem::take(&mut state.graphs),
                std::mem::take(&mut state.tensors),
                info,
            )
        };
        for graph in graphs.iter().filter_map(Weak::upgrade) {
            graph.destroy();
        }
        let reason = lost_phrase(message);
        for tensor in tensors.iter().filter_map(Weak::upgrade) {
            tensor.destroy(&reason);
        }
        // The releases queued above still run; then the worker drains and exits.
        self.timeline.close();
        // The graphs are destroyed: dropping the backend ends its thread pool.
        lock(&self.backend).take();
        // Resolved last so that whoever observes `lost` sees everything destroyed, as the
        // promise reactions of the spec would.
        for r in resolvers {
            r.resolve(info.clone());
        }
    }

    /// The state, locked, or an InvalidStateError with `lost_message` once the context is lost.
    fn live_state(&self, lost_message: &'static str) -> Result<MutexGuard<'_, ContextState>> {
        let state = lock(&self.state);
        if let Some(info) = &state.lost_info {
            return Err(Error::invalid_state(format!("{lost_message}: {}", info.message)));
        }
        Ok(state)
    }

    fn register_tensor(&self, tensor: &Arc<TensorInner>) -> Result<()> {
        let mut guard = self.live_state("createTensor: the context was lost")?;
        let state = &mut *guard;
        push_pruned(&mut state.tensors, &mut state.prune_tensors_at, tensor);
        Ok(())
    }

    fn register_graph(&self, graph: &Arc<GraphInner>) -> Result<()> {
        let mut guard = self.live_state("build: the context was lost while compiling")?;
        let state = &mut *guard;
        push_pruned(&mut state.graphs, &mut state.prune_graphs_at, graph);
        Ok(())
    }
}

/// `"the context was lost: MESSAGE"`: how errors name a loss and its reason.
fn lost_phrase(message: &str) -> String {
    format!("the context was lost: {message}")
}

/// Tensors hold their context through this (see [`TensorOwner`]).
impl TensorOwner for ContextInner {
    fn id(&self) -> u64 {
        self.id
    }

    fn release(&self, tensor: Arc<TensorInner>) {
        self.enqueue(Job::Release { tensor });
    }
}

impl Drop for ContextInner {
    fn drop(&mut self) {
        // Nobody can use the context any more: settle the `lost` promises still held so that
        // no waiter hangs (their resolvers' fallback says so).
        lock(&self.state).lost_resolvers.clear();
        self.timeline.close();
    }
}

handle! {
    /// `MLContext` ([spec](https://www.w3.org/TR/webnn/#api-mlcontext)): owns a timeline (a worker
    /// thread) on which dispatches, tensor writes and reads run in submission order.
    ///
    /// Cloning gives another handle to the same context. Dropping every handle does not lose the
    /// context: graphs, tensors and queued work keep it alive.
    pub struct Context(Arc<ContextInner>);
    debug |inner| { id: inner.id, backend: inner.backend_name, lost: inner.is_lost() }
}

/// Finds the duplicate among `names`, if any.
fn duplicate_name<'a>(names: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    let mut seen = HashSet::new();
    names.into_iter().find(|n| !seen.insert(*n))
}

fn names(list: &[(String, OperandDescriptor)]) -> String {
    list.iter().map(|(n, _)| format!("'{n}'")).collect::<Vec<_>>().join(", ")
}

impl Context {
    /// The link a core `GraphBuilder` keeps to this context.
    pub(crate) fn link(&self) -> ContextLink {
        let limits = (!self.inner.limits.is_complete()).then(|| self.inner.limits.clone());
        ContextLink { id: self.inner.id, lost: self.inner.lost_flag.clone(), limits }
    }

    /// The backend, or None once the context is lost.
    pub(crate) fn backend(&self) -> Option<Arc<dyn Backend>> {
        lock(&self.inner.backend).clone()
    }

    /// `opSupportLimits()` ([spec](https://www.w3.org/TR/webnn/#api-mlcontext-opsupportlimits)).
    pub fn op_support_limits(&self) -> OpSupportLimits {
        (*self.inner.limits).clone()
    }

    /// `accelerated` ([spec](https://www.w3.org/TR/webnn/#api-mlcontext)): whether the context runs
    /// on a massively parallel accelerator (true for a GPU context, false for the CPU engine).
    pub fn accelerated(&self) -> bool {
        self.inner.accelerated
    }

    /// Extension: the GPU adapter a GPU context runs on (name and graphics API), or None for
    /// a CPU context.
    pub fn adapter_name(&self) -> Option<String> {
        self.inner.adapter_name.clone()
    }

    /// Extension: the wgpu device and queue a GPU context runs on (None for a CPU context),
    /// for callers that share tensors with their own passes
    /// ([`Context::import_external_buffer`]).
    pub fn wgpu_device(&self) -> Option<(wgpu::Device, wgpu::Queue)> {
        self.inner.wgpu_device.clone()
    }

    /// `GPUDevice.importExternalBuffer({source: tensor})` (MLTensor explainer): once all
    /// work queued before this call is done, rents the tensor to `device` as a buffer with
    /// usages STORAGE | COPY_SRC | COPY_DST (the tensor's bytes padded to a 4-byte word, an
    /// `array<T>` in WGSL; int8/uint8 as `array<u32>`). While the [`RentedBuffer`] lives,
    /// the caller has exclusive access and this context's timeline waits: work queued after
    /// this call (on any tensor) runs after the rental ends, in call order. Ending it: drop
    /// the [`RentedBuffer`] (or call [`RentedBuffer::release`]) after submitting the passes
    /// that use it. So do not wait on this context's work while holding a rental.
    ///
    /// Zero copy when the tensor belongs to a GPU context on `device`; otherwise the buffer is
    /// a copy on `device`, and its bytes are copied back into the tensor when the rental ends.
    ///
    /// Rejections: TypeError if the tensor belongs to another context, is destroyed, or was
    /// not created with `importableToWebGPU: true`; InvalidStateError if the context is lost
    /// or the tensor destroyed before the rental starts.
    pub fn import_external_buffer(
        &self,
        tensor: &Tensor,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
    ) -> Promise<Result<RentedBuffer>> {
        let what = "importExternalBuffer";
        if let Err(e) = self.check_tensor_access(what, tensor, tensor.importable_to_webgpu(), "importableToWebGPU") {
            return Promise::ready(Err(e));
        }
        if self.inner.is_lost() {
            return Promise::ready(Err(Error::invalid_state(format!("{what}: {}", self.inner.lost_reason()))));
        }
        let (promise, resolver) =
            promise::pair(|| Err(Error::invalid_state("importExternalBuffer: the rental was aborted")));
        self.inner.enqueue(Job::Rent {
            tensor: tensor.inner.clone(),
            device: device.clone(),
            queue: queue.clone(),
            resolver,
        });
        promise
    }

    /// The `powerPreference` the context was created with.
    pub fn power_preference(&self) -> PowerPreference {
        self.inner.power_preference
    }

    /// `lost` ([spec](https://www.w3.org/TR/webnn/#api-mlcontext)): settles with the reason once
    /// the context is lost (by [`Context::destroy`] or a failure on its timeline). Each call
    /// returns a new promise; all settle together.
    pub fn lost(&self) -> Promise<ContextLostInfo> {
        let mut state = lock(&self.inner.state);
        if let Some(info) = &state.lost_info {
            return Promise::ready(info.clone());
        }
        let (p, r) = promise::pair(|| ContextLostInfo { message: "the context was dropped".to_string() });
        state.lost_resolvers.push(r);
        p
    }

    /// True once the context is lost (the spec's *is lost*: `lost` is settled).
    pub fn is_lost(&self) -> bool {
        self.inner.is_lost()
    }

    /// `destroy()` ([spec](https://www.w3.org/TR/webnn/#api-mlcontext-destroy)): loses the context.
    /// Its graphs and tensors are destroyed, pending reads reject with InvalidStateError, queued
    /// work is aborted, `lost` settles. Idempotent.
    pub fn destroy(&self) {
        self.inner.lose("the context was destroyed with destroy()");
    }

    /// `createTensor(descriptor)`
    /// ([spec](https://www.w3.org/TR/webnn/#api-mlcontext-createconstanttensor)). Synchronous in
    /// Rust: the zero-filled storage is allocated here.
    ///
    /// Errors: InvalidStateError if the context is lost; TypeError if the descriptor fails
    /// *check dimensions* (decisions.md D23); UnknownError if the memory cannot be allocated.
    pub fn create_tensor(&self, descriptor: &TensorDescriptor) -> Result<Tensor> {
        if self.inner.is_lost() {
            return Err(Error::invalid_state(format!("createTensor: {}", self.inner.lost_reason())));
        }
        // decisions.md D23: check dimensions as createConstantTensor does.
        descriptor
            .operand_descriptor()
            .check_dimensions()
            .map_err(|e| Error::type_error(format!("createTensor: {}", e.message)))?;
        let Some(backend) = self.backend() else {
            return Err(Error::invalid_state(format!("createTensor: {}", self.inner.lost_reason())));
        };
        let storage = backend.create_tensor_memory(descriptor)?;
        let inner = Arc::new(TensorInner {
            context: self.inner.clone(),
            descriptor: descriptor.clone(),
            is_constant: false,
            destroyed: Arc::new(AtomicBool::new(false)),
            pending: Mutex::default(),
            data: Mutex::new(Some(storage)),
            constant_bytes: Mutex::new(None),
        });
        self.inner.register_tensor(&inner)?;
        Ok(Tensor { inner })
    }

    /// `createConstantTensor(descriptor, inputData)`
    /// ([spec](https://www.w3.org/TR/webnn/#api-mlcontext-readtensor)): a tensor holding a copy of
    /// `bytes` (little-endian elements), usable only through `GraphBuilder::constant_tensor`.
    ///
    /// Errors: InvalidStateError if the context is lost; TypeError if the descriptor fails
    /// *check dimensions* or `bytes` is not exactly its byte length; UnknownError if the copy
    /// cannot be allocated.
    pub fn create_constant_tensor(&self, descriptor: &OperandDescriptor, bytes: &[u8]) -> Result<Tensor> {
        if self.inner.is_lost() {
            return Err(Error::invalid_state(format!("createConstantTensor: {}", self.inner.lost_reason())));
        }
        descriptor.check_dimensions().map_err(|e| Error::type_error(format!("createConstantTensor: {}", e.message)))?;
        if bytes.len() as u64 != descriptor.byte_length() {
            return Err(Error::type_error(format!(
                "createConstantTensor: the buffer has {} bytes but descriptor {descriptor} needs {}",
                bytes.len(),
                descriptor.byte_length()
            )));
        }
        let copy = webnn_core::SharedBytes::try_copy_from(bytes).map_err(|_| {
            Error::unknown(format!("createConstantTensor: cannot allocate {} bytes for {descriptor}", bytes.len()))
        })?;
        let tensor_descriptor = TensorDescriptor::new(descriptor.data_type, descriptor.shape.clone());
        let inner = Arc::new(TensorInner {
            context: self.inner.clone(),
            descriptor: tensor_descriptor,
            is_constant: true,
            destroyed: Arc::new(AtomicBool::new(false)),
            pending: Mutex::default(),
            data: Mutex::new(None),
            constant_bytes: Mutex::new(Some(copy)),
        });
        self.inner.register_tensor(&inner)?;
        Ok(Tensor { inner })
    }

    /// The checks shared by `readTensor` and `writeTensor`: context, destroyed, usage flag.
    fn check_tensor_access(&self, what: &str, tensor: &Tensor, flag: bool, flag_name: &str) -> Result<()> {
        if tensor.inner.context.id() != self.inner.id {
            return Err(Error::type_error(format!("{what}: the tensor belongs to another context")));
        }
        if tensor.inner.is_destroyed() {
            return Err(Error::type_error(format!("{what}: the tensor is destroyed{}", self.inner.lost_because())));
        }
        if !flag {
            return Err(Error::type_error(format!(
                "{what}: the tensor was not created with {flag_name}: true{}",
                if tensor.constant() { " (it is a constant tensor)" } else { "" }
            )));
        }
        Ok(())
    }

    fn check_buffer(what: &str, tensor: &Tensor, len: usize) -> Result<()> {
        let expected = tensor.inner.descriptor.byte_length();
        if len as u64 != expected {
            return Err(Error::type_error(format!(
                "{what}: the buffer has {len} bytes but tensor {} needs {expected}",
                tensor.inner.descriptor.operand_descriptor()
            )));
        }
        Ok(())
    }

    /// `readTensor(tensor)` ([spec](https://www.w3.org/TR/webnn/#api-mlcontext-readtensor-byob)): a
    /// promise of a copy of the tensor's bytes, taken after everything queued before this call.
    ///
    /// Rejections: TypeError if the tensor belongs to another context, is destroyed or is not
    /// readable; InvalidStateError if the tensor is destroyed or the context lost before the
    /// promise's value is taken (awaited, waited on or `try_take`n: the spec settles the
    /// promise in a later task, so a `destroy()` issued before that still rejects it,
    /// [spec](https://www.w3.org/TR/webnn/#api-mltensor-destroy)); UnknownError if the copy cannot
    /// be allocated.
    pub fn read_tensor(&self, tensor: &Tensor) -> Promise<Result<Vec<u8>>> {
        if let Err(e) = self.check_tensor_access("readTensor", tensor, tensor.readable(), "readable") {
            return Promise::ready(Err(e));
        }
        let (promise, resolver) = promise::pair(|| Err(Error::invalid_state("readTensor: the read was aborted")));
        match tensor.inner.add_pending(PendingRead::Copy(resolver)) {
            Ok(id) => self.inner.enqueue(Job::Read { tensor: tensor.inner.clone(), id }),
            // Destroyed by another thread since the check above.
            Err(read) => read
                .reject(Error::type_error(format!("readTensor: the tensor is destroyed{}", self.inner.lost_because()))),
        }
        promise.keeping(tensor.inner.clone()).helped_by(self.inner.timeline.clone())
    }

    /// `readTensor(tensor, outputData)`
    /// ([spec](https://www.w3.org/TR/webnn/#api-mlcontext-writetensor)), blocking: waits until
    /// everything queued before this call is done, then copies the tensor's bytes into `out`. While
    /// the context's worker is idle, the calling thread runs the queued work itself (no thread
    /// handoffs); a loss of the context then shows once the job it is running finishes.
    ///
    /// Errors: TypeError if the tensor belongs to another context, is destroyed, is not
    /// readable, or `out` is not exactly its byte length; InvalidStateError if the tensor is
    /// destroyed or the context lost while waiting.
    pub fn read_tensor_into(&self, tensor: &Tensor, out: &mut [u8]) -> Result<()> {
        self.check_tensor_access("readTensor", tensor, tensor.readable(), "readable")?;
        Self::check_buffer("readTensor", tensor, out.len())?;
        let (promise, resolver) = promise::pair(|| Err(Error::invalid_state("readTensor: the read was aborted")));
        let id = match tensor.inner.add_pending(PendingRead::Into(resolver)) {
            Ok(id) => id,
            Err(_) => {
                return Err(Error::type_error(format!(
                    "readTensor: the tensor is destroyed{}",
                    self.inner.lost_because()
                )))
            }
        };
        self.inner.timeline.enqueue_for_helper(Job::Read { tensor: tensor.inner.clone(), id });
        // Run what is queued before the read here rather than waiting for the worker; on
        // reaching the read, copy while holding the executor token, which orders the copy
        // before every later job as the worker's gate would.
        let is_this_read =
            |job: &Job| matches!(job, Job::Read { tensor: t, id: i } if *i == id && Arc::ptr_eq(t, &tensor.inner));
        if let Some((_job, token)) = self.inner.timeline.help(|| false, is_this_read) {
            let result = match tensor.inner.take_pending(id) {
                // Rejected by a destroy() of the tensor or a loss of the context meanwhile:
                // the promise holds the rejection.
                None => promise.wait().map(drop),
                Some(_) if self.inner.timeline.is_lost() => {
                    Err(Error::invalid_state(format!("readTensor: {}", self.inner.lost_reason())))
                }
                Some(_) => Self::copy_out(tensor, out),
            };
            drop(token);
            return result;
        }
        // The worker runs the read: it waits for us until `gate` is dropped.
        let gate = promise.wait()?;
        let result = Self::copy_out(tensor, out);
        drop(gate);
        result
    }

    /// Copies the tensor's bytes into `out` (the caller holds the timeline: the executor
    /// token or the worker's read gate).
    fn copy_out(tensor: &Tensor, out: &mut [u8]) -> Result<()> {
        match lock(&tensor.inner.data).as_ref() {
            Some(memory) => memory.read(out),
            None => Err(Error::invalid_state("readTensor: the tensor was destroyed")),
        }
    }

    /// `writeTensor(tensor, inputData)`
    /// ([spec](https://www.w3.org/TR/webnn/#api-mlcontext-opsupportlimits)): copies `bytes` now and
    /// writes them into the tensor on the timeline, after everything queued before.
    ///
    /// Errors: TypeError if the tensor belongs to another context, is destroyed, is not
    /// writable, or `bytes` is not exactly its byte length; UnknownError if the copy cannot be
    /// allocated.
    pub fn write_tensor(&self, tensor: &Tensor, bytes: &[u8]) -> Result<()> {
        self.check_tensor_access("writeTensor", tensor, tensor.writable(), "writable")?;
        Self::check_buffer("writeTensor", tensor, bytes.len())?;
        // Our decision (writeTensor has no error of its own for it): a copy that cannot be
        // allocated throws an UnknownError and writes nothing, instead of aborting.
        let copy = crate::util::try_copy("writeTensor", bytes)?;
        self.inner.enqueue(Job::Write { tensor: tensor.inner.clone(), bytes: copy });
        Ok(())
    }

    /// `dispatch(graph, inputs, outputs)`
    /// ([spec](https://www.w3.org/TR/webnn/#api-mlcontext-createtensor)): checks everything now and
    /// queues the computation on the timeline; returns at once. Await a `read_tensor` of an output
    /// to see the results.
    ///
    /// Errors, in the spec's order: TypeError if a name is bound twice (a record cannot hold
    /// the same key twice); TypeError if the graph belongs to another context;
    /// InvalidStateError if the graph is destroyed; TypeError if a tensor is bound twice (also
    /// as both input and output), belongs to another context or is destroyed; TypeError if the
    /// inputs or outputs do not match the graph's descriptors exactly (a constant tensor, a
    /// missing or extra name, another dataType or shape).
    pub fn dispatch(&self, graph: &Graph, inputs: &[(&str, &Tensor)], outputs: &[(&str, &Tensor)]) -> Result<()> {
        if let Some(n) = duplicate_name(inputs.iter().map(|(n, _)| *n)) {
            return Err(Error::type_error(format!("dispatch: input name '{n}' is given twice")));
        }
        if let Some(n) = duplicate_name(outputs.iter().map(|(n, _)| *n)) {
            return Err(Error::type_error(format!("dispatch: output name '{n}' is given twice")));
        }
        let g = &graph.inner;
        // Step 1.
        if g.context_id != self.inner.id {
            return Err(Error::type_error("dispatch: the graph was built for another context"));
        }
        // Step 2.
        if g.is_destroyed() {
            return Err(Error::invalid_state(format!("dispatch: the graph is destroyed{}", self.inner.lost_because())));
        }
        // Step 3.
        let all: Vec<(&str, &str, &Tensor)> = inputs
            .iter()
            .map(|(n, t)| ("input", *n, *t))
            .chain(outputs.iter().map(|(n, t)| ("output", *n, *t)))
            .collect();
        let mut seen: Vec<(&str, &str, *const TensorInner)> = Vec::with_capacity(all.len());
        for &(kind, name, tensor) in &all {
            let ptr = Arc::as_ptr(&tensor.inner);
            if let Some((k0, n0, _)) = seen.iter().find(|(_, _, p)| *p == ptr) {
                return Err(Error::type_error(format!(
                    "dispatch: the same tensor is bound as {k0} '{n0}' and as {kind} '{name}'"
                )));
            }
            seen.push((kind, name, ptr));
        }
        // Step 4.
        for &(kind, name, tensor) in &all {
            if tensor.inner.context.id() != self.inner.id {
                return Err(Error::type_error(format!("dispatch: {kind} '{name}' is a tensor of another context")));
            }
            if tensor.inner.is_destroyed() {
                return Err(Error::type_error(format!(
                    "dispatch: {kind} '{name}' is a destroyed tensor{}",
                    self.inner.lost_because()
                )));
            }
        }
        // Steps 5 and 6.
        let inputs_ordered = Self::bind("input", inputs, &g.inputs)?;
        let outputs_ordered = Self::bind("output", outputs, &g.outputs)?;
        // Step 7.
        let implementation: Arc<dyn CompiledGraph> = match lock(&g.implementation).clone() {
            Some(i) => i,
            // Destroyed by another thread since step 2.
            None => {
                return Err(Error::invalid_state(format!(
                    "dispatch: the graph is destroyed{}",
                    self.inner.lost_because()
                )))
            }
        };
        self.inner.enqueue(Job::Dispatch { implementation, inputs: inputs_ordered, outputs: outputs_ordered });
        Ok(())
    }

    /// *validate tensors with descriptors*, then the tensors in the graph's order.
    fn bind(
        kind: &str,
        bound: &[(&str, &Tensor)],
        descriptors: &[(String, OperandDescriptor)],
    ) -> Result<Vec<Arc<TensorInner>>> {
        if bound.len() != descriptors.len() {
            return Err(Error::type_error(format!(
                "dispatch: the graph has {} {kind}s ({}) but {} were bound ({})",
                descriptors.len(),
                names(descriptors),
                bound.len(),
                bound.iter().map(|(n, _)| format!("'{n}'")).collect::<Vec<_>>().join(", ")
            )));
        }
        for (name, tensor) in bound {
            if tensor.inner.is_constant {
                return Err(Error::type_error(format!(
                    "dispatch: {kind} '{name}' is a constant tensor, which can only be used with constant()"
                )));
            }
            let Some((_, desc)) = descriptors.iter().find(|(n, _)| n == name) else {
                return Err(Error::type_error(format!(
                    "dispatch: '{name}' is not an {kind} of the graph (its {kind}s: {})",
                    names(descriptors)
                )));
            };
            let tdesc = &tensor.inner.descriptor;
            if tdesc.data_type != desc.data_type || tdesc.shape != desc.shape {
                return Err(Error::type_error(format!(
                    "dispatch: {kind} '{name}' is tensor {} but the graph expects {desc}",
                    tdesc.operand_descriptor()
                )));
            }
        }
        // Sizes are equal, names are unique and all known: every graph name is bound once.
        let mut ordered = Vec::with_capacity(descriptors.len());
        for (name, _) in descriptors {
            match bound.iter().find(|(n, _)| n == name) {
                Some((_, t)) => ordered.push(t.inner.clone()),
                None => return Err(Error::type_error(format!("dispatch: {kind} '{name}' is not bound"))),
            }
        }
        Ok(ordered)
    }

    /// Wraps a compiled graph as an `MLGraph` of this context (the end of `build()`).
    pub(crate) fn new_graph(
        &self,
        inputs: Vec<(String, OperandDescriptor)>,
        outputs: Vec<(String, OperandDescriptor)>,
        implementation: Arc<dyn CompiledGraph>,
    ) -> Result<Graph> {
        let inner = Arc::new(GraphInner {
            context_id: self.inner.id,
            inputs,
            outputs,
            implementation: Mutex::new(Some(implementation)),
            destroyed: AtomicBool::new(false),
        });
        self.inner.register_graph(&inner)?;
        Ok(Graph { inner })
    }
}

//! Shared helpers of the integration tests: contexts, byte conversions, error assertions, a
//! minimal executor, and a test backend that can block or fail on purpose.
#![allow(dead_code)]

use std::future::Future;
use std::pin::pin;
use std::sync::{Arc, Condvar, Mutex};
use std::task::{Context as TaskContext, Poll, Wake, Waker};
use webnn::*;
use webnn_cpu::CpuBackend;

pub const NO: OperatorOptions = OperatorOptions { label: String::new() };

/// A CPU context with 2 threads.
pub fn ctx() -> Context {
    ml().create_context(&ContextOptions { threads: Some(2), device: DeviceChoice::Cpu, ..Default::default() })
        .expect("context")
}

pub fn f32_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

pub fn to_f32(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

pub fn i32_bytes(v: &[i32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

pub fn to_i32(b: &[u8]) -> Vec<i32> {
    b.chunks_exact(4).map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

pub fn desc(dt: DataType, shape: &[u32]) -> OperandDescriptor {
    OperandDescriptor::new(dt, shape.to_vec())
}

pub fn tdesc(dt: DataType, shape: &[u32], readable: bool, writable: bool) -> TensorDescriptor {
    TensorDescriptor::new(dt, shape.to_vec()).readable(readable).writable(writable)
}

/// Asserts `r` failed with `kind` and a message containing `needle`.
#[track_caller]
pub fn assert_err<T: std::fmt::Debug>(r: Result<T>, kind: ErrorKind, needle: &str) {
    match r {
        Ok(v) => panic!("expected {kind:?} containing {needle:?}, got Ok({v:?})"),
        Err(e) => {
            assert_eq!(e.kind, kind, "wrong kind for {e}");
            assert!(e.message.contains(needle), "message {:?} lacks {needle:?}", e.message);
        }
    }
}

/// A graph `out = a + b` over float32 tensors of `shape`.
/// An `a + b` graph of one context, its input tensors and its output tensor (zeros), with
/// one dispatch of it already queued: see [`queue_add`].
pub struct QueuedAdd {
    pub graph: Graph,
    pub a: Tensor,
    pub b: Tensor,
    pub out: Tensor,
}

/// Builds `a + b` on `context` over float32 vectors of `a`'s length, makes its tensors from
/// `a`, `b` and zeros, and queues one dispatch of it.
pub fn queue_add(context: &Context, a: &[f32], b: &[f32]) -> QueuedAdd {
    let shape = [a.len() as u32];
    let graph = add_graph(context, &shape);
    let a = rw_tensor(context, &shape, a);
    let b = rw_tensor(context, &shape, b);
    let out = rw_tensor(context, &shape, &vec![0.0; shape[0] as usize]);
    context.dispatch(&graph, &[("a", &a), ("b", &b)], &[("out", &out)]).unwrap();
    QueuedAdd { graph, a, b, out }
}

pub fn add_graph(context: &Context, shape: &[u32]) -> Graph {
    let mut b = GraphBuilder::new(context).unwrap();
    let x = b.input("a", &desc(DataType::Float32, shape)).unwrap();
    let y = b.input("b", &desc(DataType::Float32, shape)).unwrap();
    let s = b.add(&x, &y, &NO).unwrap();
    b.build(&[("out", &s)]).unwrap()
}

/// A readable and writable float32 tensor holding `values`.
pub fn rw_tensor(context: &Context, shape: &[u32], values: &[f32]) -> Tensor {
    let t = context.create_tensor(&tdesc(DataType::Float32, shape, true, true)).unwrap();
    context.write_tensor(&t, &f32_bytes(values)).unwrap();
    t
}

pub fn read_f32(context: &Context, t: &Tensor) -> Vec<f32> {
    to_f32(&context.read_tensor(t).wait().expect("read"))
}

struct Unpark(std::thread::Thread);
impl Wake for Unpark {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }
}

/// Runs a future to completion on the current thread (a minimal executor).
pub fn block_on<F: Future>(f: F) -> F::Output {
    let waker = Waker::from(Arc::new(Unpark(std::thread::current())));
    let mut cx = TaskContext::from_waker(&waker);
    let mut f = pin!(f);
    loop {
        if let Poll::Ready(v) = f.as_mut().poll(&mut cx) {
            return v;
        }
        std::thread::park();
    }
}

/// A gate that blocks the test backend's `execute` until opened.
#[derive(Clone, Default)]
pub struct Gate(Arc<(Mutex<bool>, Condvar)>);

impl Gate {
    pub fn closed() -> Self {
        Gate::default()
    }
    pub fn open(&self) {
        *self.0 .0.lock().unwrap() = true;
        self.0 .1.notify_all();
    }
    fn wait(&self) {
        let mut open = self.0 .0.lock().unwrap();
        while !*open {
            open = self.0 .1.wait(open).unwrap();
        }
    }
}

/// What the test backend does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Compile and run on the CPU backend, waiting for the gate before each execution.
    Gated,
    /// `compile` returns an error.
    CompileError,
    /// `compile` panics.
    CompilePanic,
    /// `execute` returns an error.
    ExecuteError,
    /// `execute` panics.
    ExecutePanic,
}

pub struct TestBackend {
    cpu: CpuBackend,
    gate: Gate,
    mode: Mode,
}

struct TestGraph {
    inner: Box<dyn CompiledGraph>,
    gate: Gate,
    mode: Mode,
}

impl Backend for TestBackend {
    fn name(&self) -> &str {
        "test"
    }
    fn op_support_limits(&self) -> OpSupportLimits {
        self.cpu.op_support_limits()
    }
    fn compile(&self, graph: &webnn_core::Graph) -> Result<Box<dyn CompiledGraph>> {
        match self.mode {
            Mode::CompileError => Err(Error::not_supported("the test backend refuses to compile")),
            Mode::CompilePanic => panic!("test backend compile panic"),
            mode => Ok(Box::new(TestGraph { inner: self.cpu.compile(graph)?, gate: self.gate.clone(), mode })),
        }
    }
}

impl CompiledGraph for TestGraph {
    fn execute(&self, inputs: &[&[u8]], outputs: &mut [&mut [u8]]) -> Result<()> {
        self.gate.wait();
        match self.mode {
            Mode::ExecuteError => Err(Error::unknown("the test backend failed on purpose")),
            Mode::ExecutePanic => panic!("test backend execute panic"),
            _ => self.inner.execute(inputs, outputs),
        }
    }
}

/// A context on the test backend; with `Mode::Gated` every execution waits for `gate`.
pub fn test_ctx(mode: Mode, gate: &Gate) -> Context {
    let backend = TestBackend { cpu: CpuBackend::new(Some(1)).unwrap(), gate: gate.clone(), mode };
    ml().create_context_with_backend(&ContextOptions::default(), Arc::new(backend)).unwrap()
}

//! # webnn
//!
//! The public Rust API of this W3C Web Neural Network API (CRD 2026-05-21) engine:
//! [`ML`] → [`Context`] → [`GraphBuilder`] → [`Graph`], with [`Tensor`]s read and written on
//! the context's timeline. Graphs run on the built-in CPU backend (`webnn-cpu`).
//!
//! ```
//! use webnn::*;
//! let context = ml().create_context(&ContextOptions::default())?;
//! let mut builder = GraphBuilder::new(&context)?;
//! let desc = OperandDescriptor::new(DataType::Float32, [2, 2]);
//! // C = 0.2 * A + B
//! let a = builder.input("A", &desc)?;
//! let b = builder.input("B", &desc)?;
//! let k = builder.constant_scalar(DataType::Float32, 0.2.into())?;
//! let ak = builder.mul(&a, &k, &OperatorOptions::default())?;
//! let c = builder.add(&ak, &b, &OperatorOptions::default())?;
//! let graph = builder.build(&[("C", &c)])?;
//!
//! let ta = context.create_tensor(&TensorDescriptor::new(DataType::Float32, [2, 2]).writable(true))?;
//! let tb = context.create_tensor(&TensorDescriptor::new(DataType::Float32, [2, 2]).writable(true))?;
//! let tc = context.create_tensor(&TensorDescriptor::new(DataType::Float32, [2, 2]).readable(true))?;
//! let bytes = |v: f32| [v; 4].iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
//! context.write_tensor(&ta, &bytes(1.0))?;
//! context.write_tensor(&tb, &bytes(0.8))?;
//! context.dispatch(&graph, &[("A", &ta), ("B", &tb)], &[("C", &tc)])?;
//! let result = context.read_tensor(&tc).wait()?; // or `.await` on any executor
//! assert_eq!(result, bytes(1.0));
//! # Ok::<(), webnn::Error>(())
//! ```
//!
//! ## Execution model (design.md §5)
//!
//! Every check runs synchronously in the calling thread and errors carry the spec's exception
//! kind ([`ErrorKind`]). A [`Context`] owns a timeline: one worker thread fed by a queue.
//! `dispatch`, `write_tensor` and tensor / graph / context destruction return at once;
//! `read_tensor` returns a [`Promise`] (a `Future` with a blocking `wait`) that settles after
//! everything queued before it. Work on a tensor happens in call order. Rust-specific
//! choices, where the spec returns promises: `create_context`, `create_tensor`,
//! `create_constant_tensor` and `build` are synchronous and return `Result`.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod builder;
mod context;
mod graph;
mod promise;
mod tensor;
mod timeline;
mod util;

pub use builder::{GraphBuilder, PendingBuild};
pub use context::{ml, Context, ContextLostInfo, ContextOptions, DeviceChoice, ML};
pub use graph::Graph;
pub use promise::Promise;
pub use tensor::{RentedBuffer, Tensor};

/// The core crate: graph IR, backend trait, validators, limits table.
pub use webnn_core;
pub use webnn_core::backend::{Backend, CompiledGraph};
/// The operations' signatures, options dictionaries and enums as JSON (from the op table):
/// what the Node and Python bindings build their methods from.
pub use webnn_core::signatures::op_signatures;
pub use webnn_core::types::options::*;
pub use webnn_core::types::*;
pub use webnn_core::{
    ConstantTensorSource, Error, ErrorKind, LimitsKind, NumberParam, OpKind, OpParams, OpSupportLimits, Operand,
    RankRange, Result, TensorLimits,
};
/// The GPU backend (adapter discovery, [`webnn_gpu::GpuTensor`]) and the wgpu it runs on.
pub use webnn_gpu::{self, wgpu};

#[cfg(test)]
mod tests {
    use super::*;

    fn send_sync<T: Send + Sync>() {}
    fn send<T: Send>() {}

    #[test]
    fn handles_cross_threads() {
        send_sync::<Context>();
        send_sync::<Tensor>();
        send_sync::<Graph>();
        send_sync::<Promise<Result<Vec<u8>>>>();
        send_sync::<Promise<ContextLostInfo>>();
        // Bindings run build() on a worker thread.
        send::<GraphBuilder>();
        send::<Operand>();
        send::<PendingBuild>();
    }
}

/// The README's example runs as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeDoctests;

//! `MLGraphBuilder` bound to a [`Context`]
//! ([spec](https://www.w3.org/TR/webnn/#mlgraphbuilder)): the operation methods, generated
//! from the op table (`operations.rs`), `input`, the `constant` overloads (`constant(tensor)`
//! taking a [`Tensor`]) and a `build()` that compiles with the context's backend. The
//! validation is webnn-core's builder, which this one wraps.

mod operations;

use crate::context::Context;
use crate::graph::Graph;
use crate::tensor::Tensor;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;
use webnn_core::backend::CompiledGraph;
use webnn_core::types::{MLNumber, OperandDescriptor};
use webnn_core::{Error, ErrorKind, OpKind, OpParams, Operand, Result};

/// `MLGraphBuilder` ([spec](https://www.w3.org/TR/webnn/#mlgraphbuilder)): builds one graph
/// for one context. It has every operation method of the spec (`add`, `conv2d`, ...; snake
/// case, options last), `input`, the `constant` overloads and `build`.
#[derive(Debug)]
pub struct GraphBuilder {
    inner: webnn_core::GraphBuilder,
    context: Context,
}

impl GraphBuilder {
    /// `new MLGraphBuilder(context)`
    /// ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-constructor)): InvalidStateError if
    /// the context is lost.
    pub fn new(context: &Context) -> Result<Self> {
        Ok(GraphBuilder { inner: webnn_core::GraphBuilder::new(context.link())?, context: context.clone() })
    }

    /// The context this builder builds for.
    pub fn context(&self) -> &Context {
        &self.context
    }

    /// `input(name, descriptor)` ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-input)):
    /// a named graph input. TypeError for an empty or repeated name, an invalid descriptor or
    /// one outside the context's limits; InvalidStateError once built or with a lost context.
    pub fn input(&mut self, name: &str, descriptor: &OperandDescriptor) -> Result<Operand> {
        self.inner.input(name, descriptor)
    }

    /// `constant(descriptor, buffer)`
    /// ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-constant-buffer)): a constant
    /// holding a copy of `bytes` (little-endian elements of the descriptor's data type).
    /// TypeError if the byte length does not match the descriptor.
    pub fn constant(&mut self, descriptor: &OperandDescriptor, bytes: &[u8]) -> Result<Operand> {
        self.inner.constant(descriptor, bytes)
    }

    /// `constant(type, value)`
    /// ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-constant-datatype-value)): a scalar
    /// constant (shape `[]`) of `data_type` holding `value` cast to it.
    pub fn constant_scalar(&mut self, data_type: webnn_core::types::DataType, value: MLNumber) -> Result<Operand> {
        self.inner.constant_scalar(data_type, value)
    }

    /// `constant(tensor)`
    /// ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-constant-tensor)): a constant
    /// operand holding the bytes of a constant tensor (from [`Context::create_constant_tensor`]).
    /// TypeError if the tensor belongs to another context, is destroyed or is not a constant
    /// tensor; InvalidStateError if the builder cannot build. The tensor may be destroyed after
    /// `build()` (not before: decisions.md D2).
    pub fn constant_tensor(&mut self, tensor: &Tensor) -> Result<Operand> {
        self.inner.constant_tensor(tensor)
    }

    /// Any operation by its [`OpKind`], with its operands in the slots of
    /// [`LimitsKind::inputs`](webnn_core::LimitsKind::inputs) and its other arguments and
    /// options by IDL name: what bindings use to reach every operation through one entry
    /// point. Same checks and results as the named method.
    pub fn call(&mut self, op: OpKind, operands: &[Option<&Operand>], params: &OpParams) -> Result<Vec<Operand>> {
        self.inner.call(op, operands, params)
    }

    /// False once `build()` has succeeded or the context is lost: every later call then
    /// throws InvalidStateError (the spec's *can build*).
    pub fn can_build(&self) -> bool {
        self.inner.can_build()
    }

    /// Bytes held by the constants added so far (for bindings that report native memory to
    /// their garbage collector).
    pub fn constant_byte_length(&self) -> usize {
        self.inner.constant_byte_length()
    }

    /// Number of operations added so far (a call that throws adds none).
    pub fn operation_count(&self) -> usize {
        self.inner.operation_count()
    }

    /// The webnn-core builder this one wraps, for libraries written against webnn-core rather
    /// than the engine (the ONNX importer, `webnn_onnx::import`): what they add belongs to this
    /// builder and is built by [`GraphBuilder::build`].
    pub fn core_mut(&mut self) -> &mut webnn_core::GraphBuilder {
        &mut self.inner
    }

    /// `build(outputs)` ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-build)),
    /// synchronous in Rust: validates the outputs, then compiles the graph with the context's
    /// backend on the calling thread (compiling touches no tensor data, so it needs no timeline
    /// ordering). Bindings that must not block split it in two: [`GraphBuilder::start_build`] on
    /// the caller's thread, [`PendingBuild::compile`] on a worker thread.
    ///
    /// Errors: those of the core `build` (InvalidStateError if built already or the context is
    /// lost; TypeError for bad outputs or a destroyed constant tensor, decisions.md D2);
    /// OperationError if the backend cannot compile the graph; InvalidStateError if the
    /// context was lost while compiling.
    pub fn build(&mut self, outputs: &[(&str, &Operand)]) -> Result<Graph> {
        self.start_build(outputs)?.compile()
    }

    /// The synchronous steps of `build(outputs)`
    /// ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-build)): validates the outputs and
    /// marks the builder as built (so that every later call on it throws InvalidStateError),
    /// returning the graph still to be compiled. On error the builder is unchanged.
    pub fn start_build(&mut self, outputs: &[(&str, &Operand)]) -> Result<PendingBuild> {
        let graph = self.inner.build(outputs)?;
        Ok(PendingBuild { graph, context: self.context.clone() })
    }
}

/// A validated graph waiting to be compiled: the "in parallel" half of `build()`
/// ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-build)). It is `Send`, so bindings
/// compile it off their event loop.
#[derive(Debug)]
pub struct PendingBuild {
    graph: webnn_core::Graph,
    context: Context,
}

impl PendingBuild {
    /// The validated graph (webnn-core's IR) without compiling it, for tools that describe a
    /// model rather than run it (`webnn inspect`: operations, parameters, the CPU plan).
    pub fn into_graph(self) -> webnn_core::Graph {
        self.graph
    }

    /// Compiles the graph with the context's backend and wraps it as an `MLGraph` of the
    /// context. Errors: OperationError if the backend cannot compile the graph;
    /// InvalidStateError if the context was lost while compiling.
    pub fn compile(self) -> Result<Graph> {
        let PendingBuild { graph, context } = self;
        let Some(backend) = context.backend() else {
            return Err(Error::invalid_state("build: the context was lost while compiling"));
        };
        let compiled = catch_unwind(AssertUnwindSafe(|| backend.compile(&graph))).unwrap_or_else(|panic| {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_string());
            Err(Error::operation(format!("build: the backend panicked while compiling: {what}")))
        });
        let compiled: Box<dyn CompiledGraph> = compiled.map_err(|e| match e.kind {
            ErrorKind::Operation => e,
            _ => Error::operation(format!("build: the graph cannot be compiled: {e}")),
        })?;
        if context.is_lost() {
            return Err(Error::invalid_state("build: the context was lost while compiling"));
        }
        let describe = |list: &[(String, webnn_core::OperandId)]| {
            list.iter().map(|(n, id)| (n.clone(), graph.descriptor(*id).clone())).collect::<Vec<_>>()
        };
        let inputs = describe(&graph.inputs);
        let outputs = describe(&graph.outputs);
        context.new_graph(inputs, outputs, Arc::from(compiled))
    }
}

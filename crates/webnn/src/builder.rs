//! `MLGraphBuilder` (§8.9) bound to a [`Context`]: every op method of
//! [`webnn_core::GraphBuilder`] (through `Deref`), plus `constant(tensor)` taking a [`Tensor`]
//! and a `build()` that compiles with the context's backend.

use crate::context::Context;
use crate::graph::Graph;
use crate::tensor::Tensor;
use std::ops::{Deref, DerefMut};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;
use webnn_core::backend::CompiledGraph;
use webnn_core::{Error, ErrorKind, Operand, Result};

/// `MLGraphBuilder` (§8.9): builds one graph for one context.
///
/// Dereferences to [`webnn_core::GraphBuilder`], so every operation method (`add`, `conv2d`,
/// ...), `input` and the `constant` overloads are available directly.
#[derive(Debug)]
pub struct GraphBuilder {
    inner: webnn_core::GraphBuilder,
    context: Context,
}

impl Deref for GraphBuilder {
    type Target = webnn_core::GraphBuilder;
    fn deref(&self) -> &Self::Target {
        &self.inner
    }
}

impl DerefMut for GraphBuilder {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.inner
    }
}

impl GraphBuilder {
    /// `new MLGraphBuilder(context)` (§8.9.1): InvalidStateError if the context is lost.
    pub fn new(context: &Context) -> Result<Self> {
        Ok(GraphBuilder { inner: webnn_core::GraphBuilder::new(context.link())?, context: context.clone() })
    }

    /// The context this builder builds for.
    pub fn context(&self) -> &Context {
        &self.context
    }

    /// `constant(tensor)` (§8.9.3.2): a constant operand holding the bytes of a constant
    /// tensor (from [`Context::create_constant_tensor`]). TypeError if the tensor belongs to
    /// another context, is destroyed or is not a constant tensor; InvalidStateError if the
    /// builder cannot build. The tensor may be destroyed after `build()` (not before:
    /// decisions.md D2).
    pub fn constant_tensor(&mut self, tensor: &Tensor) -> Result<Operand> {
        self.inner.constant_tensor(tensor)
    }

    /// `build(outputs)` (§8.9.4), synchronous in Rust: validates the outputs, then compiles
    /// the graph with the context's backend on the calling thread (compiling touches no tensor
    /// data, so it needs no timeline ordering). Bindings that must not block split it in two:
    /// [`GraphBuilder::start_build`] on the caller's thread, [`PendingBuild::compile`] on a
    /// worker thread.
    ///
    /// Errors: those of the core `build` (InvalidStateError if built already or the context is
    /// lost; TypeError for bad outputs or a destroyed constant tensor, decisions.md D2);
    /// OperationError if the backend cannot compile the graph; InvalidStateError if the
    /// context was lost while compiling.
    pub fn build(&mut self, outputs: &[(&str, &Operand)]) -> Result<Graph> {
        self.start_build(outputs)?.compile()
    }

    /// The synchronous steps of `build(outputs)` (§8.9.4): validates the outputs and marks the
    /// builder as built (so that every later call on it throws InvalidStateError), returning
    /// the graph still to be compiled. On error the builder is unchanged.
    pub fn start_build(&mut self, outputs: &[(&str, &Operand)]) -> Result<PendingBuild> {
        let graph = self.inner.build(outputs)?;
        Ok(PendingBuild { graph, context: self.context.clone() })
    }
}

/// A validated graph waiting to be compiled: the "in parallel" half of `build()` (§8.9.4).
/// It is `Send`, so bindings compile it off their event loop.
#[derive(Debug)]
pub struct PendingBuild {
    graph: webnn_core::Graph,
    context: Context,
}

impl PendingBuild {
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

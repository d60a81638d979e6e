//! # webnn-cpu
//!
//! The CPU backend: `compile` lowers a validated [`webnn_core::Graph`] to a [`plan::Plan`]
//! (one step per operation with its kernel prepared once, constants copied into aligned
//! storage once, intermediate values placed in one arena with buffer reuse), and `execute`
//! runs the plan on the backend's thread pool without allocating on the hot path.

pub mod compile;
pub mod kernels;
pub mod memory;
pub mod par;
pub mod plan;
pub mod pool;
pub mod profile;

use std::sync::Arc;
use webnn_core::backend::{Backend, CompiledGraph};
use webnn_core::{Graph, InputOperandLayout, OpSupportLimits, Result};

/// The CPU backend (`Backend` implementation).
#[derive(Clone)]
pub struct CpuBackend {
    pool: Arc<rayon::ThreadPool>,
}

impl std::fmt::Debug for CpuBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CpuBackend").field("threads", &self.pool.current_num_threads()).finish()
    }
}

impl CpuBackend {
    /// A backend with `threads` worker threads (`None`: `WEBNN_NUM_THREADS` or the machine's
    /// available parallelism).
    pub fn new(threads: Option<usize>) -> Result<Self> {
        Ok(CpuBackend { pool: Arc::new(pool::build_pool(threads)?) })
    }

    /// Number of threads of the pool used inside one dispatch.
    pub fn threads(&self) -> usize {
        self.pool.current_num_threads()
    }
}

impl Backend for CpuBackend {
    fn name(&self) -> &str {
        "cpu"
    }

    fn op_support_limits(&self) -> OpSupportLimits {
        OpSupportLimits::new(InputOperandLayout::Nchw)
    }

    fn compile(&self, graph: &Graph) -> Result<Box<dyn CompiledGraph>> {
        // In the pool: constant folding runs kernels, whose parallel loops must use it.
        let plan = self.pool.install(|| plan::Plan::compile(graph))?;
        Ok(Box::new(plan::CompiledPlan::new(plan, self.pool.clone())))
    }
}

/// Constant folding as the CPU engine does it (`compile::fold`): the graph with the results of
/// every operation whose inputs are all constants computed once, here, with this engine's
/// kernels, and turned into constants (the operations stay, their outputs now constants); None
/// when nothing folds. Other backends use it before compiling (the GPU's `build()`).
pub fn fold_constants(graph: &Graph) -> Option<Graph> {
    compile::fold::run(graph)
}

#[cfg(test)]
pub(crate) mod testing;

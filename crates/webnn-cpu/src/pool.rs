//! The thread pool used inside one dispatch.

use webnn_core::{Error, Result};

/// Builds the pool: `threads`, else `WEBNN_NUM_THREADS`, else the machine's parallelism.
pub fn build_pool(threads: Option<usize>) -> Result<rayon::ThreadPool> {
    let n = threads
        .or_else(|| std::env::var("WEBNN_NUM_THREADS").ok().and_then(|v| v.parse().ok()))
        .filter(|&n| n > 0)
        .unwrap_or_else(|| std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1));
    rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .thread_name(|i| format!("webnn-cpu-{i}"))
        .build()
        .map_err(|e| Error::unknown(format!("cannot start the CPU thread pool: {e}")))
}

//! Small helpers.

use std::sync::{Mutex, MutexGuard};
use webnn_core::{Error, Result};

/// Locks a mutex, ignoring poisoning: a panic on the timeline is turned into a context loss,
/// and the data behind every lock stays consistent (plain bytes and bookkeeping).
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// A copy of `bytes` whose allocation failure is an UnknownError naming `what`, instead of an
/// abort (readTensor step 8.1.2; our decision for writeTensor).
pub(crate) fn try_copy(what: &str, bytes: &[u8]) -> Result<Vec<u8>> {
    let mut v = Vec::new();
    v.try_reserve_exact(bytes.len())
        .map_err(|_| Error::unknown(format!("{what}: cannot allocate {} bytes", bytes.len())))?;
    v.extend_from_slice(bytes);
    Ok(v)
}

//! Small helpers.

use std::sync::{Mutex, MutexGuard};

/// Locks a mutex, ignoring poisoning: a panic on the timeline is turned into a context loss,
/// and the data behind every lock stays consistent (plain bytes and bookkeeping).
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

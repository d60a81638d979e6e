//! Native memory reported to V8 (`napi_adjust_external_memory`), so that the garbage collector
//! knows what an unreachable builder, graph or tensor holds and collects it in time: a loop that
//! builds graphs with large intermediates and drops them without `destroy()` must not run out
//! of memory while V8 sees only a few small wrapper objects.
//!
//! [`Tracked`] wraps the value kept in an `External` with the number of bytes currently
//! reported for it. [`Tracked::report`] moves the report to a new size (after `constant()`
//! adds bytes to a builder, or to 0 when `destroy()` frees them); dropping it (when the
//! `External` is finalized) takes back whatever is still reported. So each byte is reported
//! once and taken back once, and the total never goes negative.

use napi::Env;
use std::cell::Cell;

/// A value held by a JS object, with the bytes reported to V8 for it.
pub struct Tracked<T> {
    value: T,
    /// The environment the value lives in. A `Tracked` is only touched on that environment's
    /// JS thread: by the addon's functions and by the `External`'s finalizer.
    env: Env,
    reported: Cell<i64>,
}

impl<T> Tracked<T> {
    /// Wraps `value`, reporting `bytes` for it.
    pub fn new(env: Env, value: T, bytes: usize) -> Self {
        let tracked = Tracked { value, env, reported: Cell::new(0) };
        tracked.report(bytes);
        tracked
    }

    /// Makes the reported size `bytes` (adjusting V8's count by the difference).
    pub fn report(&self, bytes: usize) {
        let bytes = i64::try_from(bytes).unwrap_or(i64::MAX);
        let delta = bytes - self.reported.get();
        if delta != 0 {
            let mut env = self.env;
            // Fails only if the environment is unusable, when there is nothing left to tell.
            let _ = env.adjust_external_memory(delta);
            self.reported.set(bytes);
        }
    }
}

impl<T> Drop for Tracked<T> {
    fn drop(&mut self) {
        self.report(0);
    }
}

impl<T> std::ops::Deref for Tracked<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.value
    }
}

impl<T> std::ops::DerefMut for Tracked<T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.value
    }
}

//! Scratch memory of kernels, allocated fallibly: [`Scratch`] (a reusable f32 buffer owned by a
//! kernel), [`grow`] and [`try_zeroed`].

use std::sync::{Mutex, MutexGuard};

/// A reusable f32 buffer owned by a kernel: grown on first use, then reused by every
/// dispatch (a plan runs its steps one at a time, so the lock is never contended).
#[derive(Default)]
pub struct Scratch(Mutex<Vec<f32>>);

/// Makes `buf` at least `len` elements long, fallibly: scratch sized by tensor shapes must not
/// abort the process when memory runs out (an UnknownError instead).
pub fn grow<T: Clone + Default>(buf: &mut Vec<T>, len: usize) -> webnn_core::Result<()> {
    if buf.len() < len {
        buf.try_reserve_exact(len - buf.len()).map_err(|_| {
            webnn_core::Error::unknown(format!(
                "dispatch: cannot allocate {} bytes of scratch",
                len * std::mem::size_of::<T>()
            ))
        })?;
        buf.resize(len, T::default());
    }
    Ok(())
}

/// A locked scratch buffer of the requested length.
pub struct ScratchGuard<'a> {
    guard: MutexGuard<'a, Vec<f32>>,
    len: usize,
}

impl Scratch {
    /// Locks the buffer and makes it at least `len` elements long (contents unspecified); an
    /// UnknownError if it cannot grow (the dispatch fails and the context is lost).
    pub fn get(&self, len: usize) -> webnn_core::Result<ScratchGuard<'_>> {
        let mut guard = self.0.lock().unwrap_or_else(|e| e.into_inner());
        grow(&mut guard, len)?;
        Ok(ScratchGuard { guard, len })
    }
}

impl std::ops::Deref for ScratchGuard<'_> {
    type Target = [f32];
    fn deref(&self) -> &[f32] {
        &self.guard[..self.len]
    }
}

impl std::ops::DerefMut for ScratchGuard<'_> {
    fn deref_mut(&mut self) -> &mut [f32] {
        &mut self.guard[..self.len]
    }
}

/// A zero-filled vector of `n` elements, or None if it cannot be allocated. Kernels use it
/// for what they precompute at build time from constants: when it fails they fall back to
/// their path for non-constant operands (which works from fallible scratch), so a graph never
/// aborts the process for want of memory.
pub fn try_zeroed<T: Clone + Default>(n: usize) -> Option<Vec<T>> {
    let mut v = Vec::new();
    v.try_reserve_exact(n).ok()?;
    v.resize(n, T::default());
    Some(v)
}

//! [`SharedBytes`]: the bytes of a constant, copied once from the caller, allocated fallibly
//! and shared (not copied again) by the builder, its graphs and the backends.

use std::collections::TryReserveError;
use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

/// Immutable bytes, 8-byte aligned, shared by reference count. Made with
/// [`SharedBytes::try_copy_from`], whose allocation fails with an error instead of aborting
/// (design.md §3: allocations sized by a caller or a file are fallible).
#[derive(Clone)]
pub struct SharedBytes(Arc<Words>);

struct Words {
    words: Vec<u64>,
    len: usize,
}

impl SharedBytes {
    /// A copy of `bytes`; fails if the memory cannot be reserved.
    pub fn try_copy_from(bytes: &[u8]) -> Result<Self, TryReserveError> {
        let n = bytes.len().div_ceil(8);
        let mut words: Vec<u64> = Vec::new();
        words.try_reserve_exact(n)?;
        words.resize(n, 0);
        bytemuck::cast_slice_mut::<u64, u8>(&mut words)[..bytes.len()].copy_from_slice(bytes);
        Ok(SharedBytes(Arc::new(Words { words, len: bytes.len() })))
    }

    /// True if both share the same allocation.
    pub fn ptr_eq(a: &Self, b: &Self) -> bool {
        Arc::ptr_eq(&a.0, &b.0)
    }
}

impl Deref for SharedBytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &bytemuck::cast_slice::<u64, u8>(&self.0.words)[..self.0.len]
    }
}

impl AsRef<[u8]> for SharedBytes {
    fn as_ref(&self) -> &[u8] {
        self
    }
}

impl fmt::Debug for SharedBytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SharedBytes({} bytes)", self.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_aligned_and_shares() {
        for len in [0usize, 1, 7, 8, 9, 1000] {
            let src: Vec<u8> = (0..len).map(|i| i as u8).collect();
            let b = SharedBytes::try_copy_from(&src).unwrap();
            assert_eq!(&b[..], &src[..]);
            assert_eq!(b.as_ptr() as usize % 8, 0);
            let c = b.clone();
            assert!(SharedBytes::ptr_eq(&b, &c));
        }
    }
}

//! Small helpers.

use std::sync::{Arc, Mutex, MutexGuard, Weak};
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

/// Records `item` in `list` (weak handles, so that the list keeps nothing alive). Once the list
/// has reached `prune_at` entries the dead ones are dropped first, and the next pruning is set
/// at twice the live count (at least 64), so that pruning costs O(1) per push on average.
pub(crate) fn push_pruned<T>(list: &mut Vec<Weak<T>>, prune_at: &mut usize, item: &Arc<T>) {
    if list.len() >= *prune_at {
        list.retain(|w| w.strong_count() > 0);
        *prune_at = (list.len() * 2).max(64);
    }
    list.push(Arc::downgrade(item));
}

/// Declares a handle type: a struct whose only field, `inner: Arc<$inner>`, is shared by
/// its clones. Two handles are equal when they share that object, and `Debug` shows the
/// fields listed, each an expression of `$h`, the `&Arc<$inner>`.
macro_rules! handle {
    (
        $(#[$doc:meta])*
        pub struct $name:ident(Arc<$inner:ty>);
        debug |$h:ident| { $($field:ident: $value:expr),+ $(,)? }
    ) => {
        $(#[$doc])*
        #[derive(Clone)]
        pub struct $name {
            pub(crate) inner: Arc<$inner>,
        }

        impl std::fmt::Debug for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                let $h = &self.inner;
                f.debug_struct(stringify!($name))$(.field(stringify!($field), &$value))+.finish()
            }
        }

        impl PartialEq for $name {
            fn eq(&self, other: &Self) -> bool {
                Arc::ptr_eq(&self.inner, &other.inner)
            }
        }

        impl Eq for $name {}
    };
}
pub(crate) use handle;

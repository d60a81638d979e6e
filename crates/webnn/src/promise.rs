//! [`Promise`]: the Rust counterpart of the spec's promises (`readTensor()`, `lost`).
//!
//! A one-shot value settled by the context's timeline. It implements
//! [`std::future::Future`] so it can be awaited on any executor, and offers a blocking
//! [`Promise::wait`] for synchronous code. No async runtime is involved.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::task::{Context as TaskContext, Poll, Waker};

struct Slot<T> {
    value: Option<T>,
    settled: bool,
    taken: bool,
    waker: Option<Waker>,
}

struct Shared<T> {
    slot: Mutex<Slot<T>>,
    cond: Condvar,
}

impl<T> Shared<T> {
    fn lock(&self) -> MutexGuard<'_, Slot<T>> {
        self.slot.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Settles the slot once; later calls are ignored.
    fn settle(&self, value: T) {
        let waker = {
            let mut slot = self.lock();
            if slot.settled {
                return;
            }
            slot.value = Some(value);
            slot.settled = true;
            slot.waker.take()
        };
        self.cond.notify_all();
        if let Some(w) = waker {
            w.wake();
        }
    }
}

/// A one-shot future settled by the context's timeline (the spec's `Promise<T>`).
///
/// Await it on any executor (it implements [`Future`]), or block with [`Promise::wait`].
/// Rejections are values: the promises of this crate carry a `Result` where the spec's promise
/// can reject.
pub struct Promise<T> {
    shared: Arc<Shared<T>>,
}

impl<T> fmt::Debug for Promise<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Promise").field("settled", &self.is_settled()).finish()
    }
}

impl<T> Promise<T> {
    /// A promise that is already settled with `value`.
    pub fn ready(value: T) -> Self {
        let shared = Arc::new(Shared {
            slot: Mutex::new(Slot { value: Some(value), settled: true, taken: false, waker: None }),
            cond: Condvar::new(),
        });
        Promise { shared }
    }

    /// True once the promise has a value (it stays true after the value was taken).
    pub fn is_settled(&self) -> bool {
        self.shared.lock().settled
    }

    /// Blocks the calling thread until the promise settles and returns its value.
    ///
    /// # Panics
    /// If the value was already taken by polling this promise to completion.
    pub fn wait(self) -> T {
        let mut slot = self.shared.lock();
        loop {
            if let Some(v) = slot.value.take() {
                slot.taken = true;
                return v;
            }
            assert!(!slot.taken, "Promise::wait called after the value was taken");
            slot = self.shared.cond.wait(slot).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// Returns the value if the promise has settled, or gives the promise back.
    pub fn try_take(self) -> Result<T, Self> {
        let value = {
            let mut slot = self.shared.lock();
            let v = slot.value.take();
            if v.is_some() {
                slot.taken = true;
            }
            v
        };
        value.ok_or(self)
    }
}

impl<T> Future for Promise<T> {
    type Output = T;

    /// # Panics
    /// If polled again after it returned `Ready`.
    fn poll(self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<T> {
        let mut slot = self.shared.lock();
        if let Some(v) = slot.value.take() {
            slot.taken = true;
            return Poll::Ready(v);
        }
        assert!(!slot.taken, "Promise polled after completion");
        match &slot.waker {
            Some(w) if w.will_wake(cx.waker()) => {}
            _ => slot.waker = Some(cx.waker().clone()),
        }
        Poll::Pending
    }
}

/// The settling side of a [`Promise`]. Dropping it unsettled settles the promise with its
/// fallback value, so a waiter can never hang on abandoned work.
pub(crate) struct Resolver<T> {
    shared: Arc<Shared<T>>,
    fallback: Option<Box<dyn FnOnce() -> T + Send>>,
}

impl<T> Resolver<T> {
    /// Settles the promise with `value` (ignored if already settled).
    pub fn resolve(mut self, value: T) {
        self.fallback = None;
        self.shared.settle(value);
    }
}

impl<T> Drop for Resolver<T> {
    fn drop(&mut self) {
        if let Some(fallback) = self.fallback.take() {
            self.shared.settle(fallback());
        }
    }
}

/// A new unsettled promise and its resolver; `fallback` settles it if the resolver is dropped.
pub(crate) fn pair<T>(fallback: impl FnOnce() -> T + Send + 'static) -> (Promise<T>, Resolver<T>) {
    let shared = Arc::new(Shared {
        slot: Mutex::new(Slot { value: None, settled: false, taken: false, waker: None }),
        cond: Condvar::new(),
    });
    (Promise { shared: shared.clone() }, Resolver { shared, fallback: Some(Box::new(fallback)) })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::task::Wake;

    struct Flag(std::sync::atomic::AtomicUsize);
    impl Wake for Flag {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        }
    }

    #[test]
    fn resolves_once_and_wakes() {
        let (mut p, r) = pair(|| 0);
        let flag = Arc::new(Flag(Default::default()));
        let waker = Waker::from(flag.clone());
        let mut cx = TaskContext::from_waker(&waker);
        assert!(Pin::new(&mut p).poll(&mut cx).is_pending());
        assert!(!p.is_settled());
        r.resolve(7);
        assert_eq!(flag.0.load(std::sync::atomic::Ordering::SeqCst), 1);
        assert!(p.is_settled());
        assert_eq!(Pin::new(&mut p).poll(&mut cx), Poll::Ready(7));
    }

    #[test]
    fn dropped_resolver_uses_fallback() {
        let (p, r) = pair(|| "fallback");
        drop(r);
        assert_eq!(p.wait(), "fallback");
    }

    #[test]
    fn try_take_and_wait_across_threads() {
        let (p, r) = pair(|| 0u32);
        let p = p.try_take().unwrap_err();
        let t = std::thread::spawn(move || r.resolve(42));
        assert_eq!(p.wait(), 42);
        t.join().unwrap();
        assert_eq!(Promise::ready(3).try_take().ok(), Some(3));
    }
}

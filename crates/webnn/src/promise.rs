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
        self.store(value, false);
    }

    /// Puts `value` in the slot: only if unsettled, or (`overwrite`) also over a settled value
    /// nobody has taken yet.
    fn store(&self, value: T, overwrite: bool) {
        let waker = {
            let mut slot = self.lock();
            if slot.taken || (slot.settled && !overwrite) {
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
    /// What must live as long as the promise: a read keeps its tensor (and with it the
    /// tensor's `[[pendingPromises]]`) alive, so a later `destroy()` of the context still
    /// reaches the read even if every handle of the tensor was dropped.
    _keep_alive: Option<Arc<dyn std::any::Any + Send + Sync>>,
    /// The timeline that settles it: [`Promise::wait`] runs its queued jobs on the waiting
    /// thread while the worker is idle, instead of sleeping until the worker wakes and runs
    /// them (a read's wait would otherwise cost two thread handoffs).
    helper: Option<Arc<dyn Helper>>,
}

/// Whoever settles a promise and can do that work on the waiting thread: the context's
/// timeline implements it (`crate::timeline`), so this module needs nothing of the timeline's.
pub(crate) trait Helper: Send + Sync {
    /// Runs queued work on the calling thread, in order, while `done()` is false and nobody
    /// else is running it; returns when it can do no more.
    fn help_until(&self, done: &dyn Fn() -> bool);
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
        Promise { shared, _keep_alive: None, helper: None }
    }

    /// True once the promise has a value (it stays true after the value was taken).
    pub fn is_settled(&self) -> bool {
        self.shared.lock().settled
    }

    /// Blocks the calling thread until the promise settles and returns its value. A read's
    /// promise first runs its context's queued work on the calling thread while the
    /// context's worker is idle (so the wait costs no thread handoffs).
    ///
    /// # Panics
    /// If the value was already taken by polling this promise to completion.
    pub fn wait(self) -> T {
        if let Some(helper) = &self.helper {
            helper.help_until(&|| self.is_settled());
        }
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

impl<T> Promise<T> {
    /// Keeps `value` alive as long as this promise.
    pub(crate) fn keeping(mut self, value: Arc<dyn std::any::Any + Send + Sync>) -> Self {
        self._keep_alive = Some(value);
        self
    }

    /// Lets [`Promise::wait`] run `helper`'s queued work (a timeline's jobs) while it would
    /// block.
    pub(crate) fn helped_by(mut self, helper: Arc<dyn Helper>) -> Self {
        self.helper = Some(helper);
        self
    }

    /// `Ready` once the promise has a value, without taking it; otherwise registers the
    /// task's waker (woken when it settles). For callers that must take the value on another
    /// thread than the one the promise settles on (e.g. a JavaScript event loop).
    pub fn poll_settled(&self, cx: &mut TaskContext<'_>) -> Poll<()> {
        let mut slot = self.shared.lock();
        if slot.settled {
            return Poll::Ready(());
        }
        match &slot.waker {
            Some(w) if w.will_wake(cx.waker()) => {}
            _ => slot.waker = Some(cx.waker().clone()),
        }
        Poll::Pending
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

impl<T> Resolver<T> {
    /// A handle that can replace the value this resolver will settle until it is taken.
    pub fn revocable(&self) -> Revocable<T> {
        Revocable { shared: Arc::downgrade(&self.shared) }
    }
}

/// The right to replace a promise's value until its holder takes it (polls it to completion,
/// waits on it, or `try_take`s it). The spec settles a promise in a task queued after the
/// current one, so a `destroy()` issued before that task still rejects it
/// (`[[pendingPromises]]`, [spec](https://www.w3.org/TR/webnn/#api-mltensor-destroy)); in Rust
/// "that task" is the holder taking the value.
pub(crate) struct Revocable<T> {
    shared: std::sync::Weak<Shared<T>>,
}

impl<T> Revocable<T> {
    /// Replaces the value with `value` unless it was taken already (or the promise dropped).
    pub fn revoke(&self, value: T) {
        if let Some(shared) = self.shared.upgrade() {
            shared.store(value, true);
        }
    }

    /// False once the promise is gone (dropped, with or without its value taken) or taken.
    pub fn is_live(&self) -> bool {
        self.shared.upgrade().is_some_and(|s| !s.lock().taken)
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
    (
        Promise { shared: shared.clone(), _keep_alive: None, helper: None },
        Resolver { shared, fallback: Some(Box::new(fallback)) },
    )
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
    fn revocable_replaces_until_taken() {
        let (p, r) = pair(|| 0);
        let rev = r.revocable();
        r.resolve(1);
        assert!(p.is_settled() && rev.is_live());
        rev.revoke(2);
        assert_eq!(p.wait(), 2);
        assert!(!rev.is_live());

        let (p, r) = pair(|| 0);
        let rev = r.revocable();
        rev.revoke(5); // before the resolver settles: the resolver's value is ignored
        r.resolve(1);
        assert_eq!(p.try_take().ok(), Some(5));
        rev.revoke(6); // after the take: nothing changes, nothing panics
        assert!(!rev.is_live());
    }

    #[test]
    fn poll_settled_does_not_take() {
        let (p, r) = pair(|| 0);
        let flag = Arc::new(Flag(Default::default()));
        let waker = Waker::from(flag.clone());
        let mut cx = TaskContext::from_waker(&waker);
        assert!(p.poll_settled(&mut cx).is_pending());
        r.resolve(3);
        assert_eq!(flag.0.load(std::sync::atomic::Ordering::SeqCst), 1);
        assert!(p.poll_settled(&mut cx).is_ready());
        assert_eq!(p.wait(), 3);
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

//! Running a callback when a `webnn::Promise` settles, without a thread of our own: the promise
//! is polled once with a waker that finishes the job when the timeline settles it.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Wake, Waker};
use webnn::Promise;

type Callback<T> = Box<dyn FnOnce(T) + Send>;

struct Pending<T> {
    state: Mutex<Option<(Promise<T>, Callback<T>)>>,
}

impl<T: Send + 'static> Pending<T> {
    /// Polls the promise; on `Ready` runs the callback (once). Returns with the state put back
    /// if the promise is still pending.
    fn poll(self: &Arc<Self>) {
        let waker = Waker::from(self.clone());
        let mut cx = Context::from_waker(&waker);
        let ready = {
            let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
            let Some((promise, _)) = state.as_mut() else { return };
            match Pin::new(promise).poll(&mut cx) {
                Poll::Ready(value) => state.take().map(|(_, callback)| (value, callback)),
                Poll::Pending => None,
            }
        };
        // The callback runs without the lock held.
        if let Some((value, callback)) = ready {
            callback(value);
        }
    }
}

impl<T: Send + 'static> Wake for Pending<T> {
    fn wake(self: Arc<Self>) {
        self.poll();
    }
}

/// Calls `callback` with the promise's value once it settles: at once if it already has, else
/// on the thread that settles it.
pub fn on_settled<T: Send + 'static>(promise: Promise<T>, callback: impl FnOnce(T) + Send + 'static) {
    let pending = Arc::new(Pending { state: Mutex::new(Some((promise, Box::new(callback) as Callback<T>))) });
    pending.poll();
}

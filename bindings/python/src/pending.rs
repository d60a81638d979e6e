//! `Pending`: a settled-later value of the context's timeline (the spec's promises of
//! `readTensor()` and `MLContext.lost`), waitable with a timeout while the GIL is released.
//!
//! The Python layer wraps it (`webnn._pending.Pending`) into an object with `done()`,
//! `result(timeout)` and `__await__` (asyncio waits for it on an executor thread).

use crate::arrays;
use crate::errors::{InvalidStateError, OrRaise};
use pyo3::prelude::*;
use std::sync::{Arc, Condvar, Mutex};
use std::task::{Context as TaskContext, Wake, Waker};
use std::time::{Duration, Instant};
use webnn::{ContextLostInfo, DataType, Promise};

/// What a [`Pending`] settles with.
pub enum Settles {
    /// A `readTensor(tensor)`: the bytes of a tensor of this data type and shape.
    Read(Promise<webnn::Result<Vec<u8>>>, DataType, Vec<u32>),
    /// `MLContext.lost`: the loss's message.
    Lost(Promise<ContextLostInfo>),
}

impl Settles {
    fn poll(&self, cx: &mut TaskContext<'_>) -> bool {
        match self {
            Settles::Read(p, ..) => p.poll_settled(cx).is_ready(),
            Settles::Lost(p) => p.poll_settled(cx).is_ready(),
        }
    }
}

/// A waker that flags a condition variable (it runs on the timeline's thread: it touches no
/// Python object).
#[derive(Default)]
struct Signal {
    woken: Mutex<bool>,
    cond: Condvar,
}

impl Wake for Signal {
    fn wake(self: Arc<Self>) {
        *self.woken.lock().unwrap_or_else(|e| e.into_inner()) = true;
        self.cond.notify_all();
    }
}

impl Signal {
    /// Sleeps until woken or `until`; false if `until` passed.
    fn sleep(&self, until: Option<Instant>) -> bool {
        // A promise keeps one waker: a second waiter on the same value may have replaced ours,
        // so poll again at least this often.
        const RECHECK: Duration = Duration::from_millis(50);
        let mut woken = self.woken.lock().unwrap_or_else(|e| e.into_inner());
        if !*woken {
            let now = Instant::now();
            let limit = match until {
                Some(t) if t <= now => return false,
                Some(t) => (t - now).min(RECHECK),
                None => RECHECK,
            };
            woken = self.cond.wait_timeout(woken, limit).unwrap_or_else(|e| e.into_inner()).0;
        }
        *woken = false;
        true
    }
}

/// A value the context's timeline settles later (see the module doc).
#[pyclass(frozen, module = "webnn._webnn")]
pub struct Pending {
    /// `None` once the value was taken.
    state: Mutex<Option<Settles>>,
}

impl Pending {
    /// Wraps a promise.
    pub fn new(settles: Settles) -> Self {
        Pending { state: Mutex::new(Some(settles)) }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<Settles>> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// True if settled (or taken); registers `cx`'s waker otherwise. The lock is held only
    /// for the poll, never while the GIL is released.
    fn poll(&self, cx: &mut TaskContext<'_>) -> bool {
        self.lock().as_ref().is_none_or(|s| s.poll(cx))
    }
}

#[pymethods]
impl Pending {
    /// True once the value is there.
    fn done(&self) -> bool {
        let waker = Waker::noop();
        self.poll(&mut TaskContext::from_waker(waker))
    }

    /// Waits (the GIL released) until the value is there or `timeout` seconds passed;
    /// returns whether it is there.
    #[pyo3(signature = (timeout=None))]
    fn wait(&self, py: Python<'_>, timeout: Option<f64>) -> bool {
        // A negative or NaN timeout waits not at all; an enormous one, as long as it takes.
        let until = timeout
            .and_then(|t| Instant::now().checked_add(Duration::try_from_secs_f64(t.max(0.0)).unwrap_or(Duration::MAX)));
        let signal = Arc::new(Signal::default());
        let waker = Waker::from(signal.clone());
        loop {
            if self.poll(&mut TaskContext::from_waker(&waker)) {
                return true;
            }
            if !py.detach(|| signal.sleep(until)) {
                return false;
            }
        }
    }

    /// Takes the settled value: a new array for a read, the message for `lost`. Raises the
    /// read's error (TypeError or InvalidStateError), or InvalidStateError if taken before.
    fn take<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let settles = self.lock().take().ok_or_else(|| InvalidStateError::new_err("the value was already taken"))?;
        match settles {
            Settles::Read(promise, data_type, shape) => {
                let bytes = py.detach(|| promise.wait()).or_raise()?;
                Ok(arrays::from_bytes(py, data_type, &shape, &bytes)?.into_any())
            }
            Settles::Lost(promise) => {
                let info = py.detach(|| promise.wait());
                Ok(pyo3::types::PyString::new(py, &info.message).into_any())
            }
        }
    }
}

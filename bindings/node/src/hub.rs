//! The per-environment hub: how work finished on other threads (the contexts' timelines) reaches
//! JavaScript, without ever touching an environment that is gone.
//!
//! A Node process has one environment per JavaScript thread (the main thread and each
//! `worker_threads` Worker). The JS layer calls [`setup`] once per environment; the hub it gets
//! back owns:
//!
//! - a queue of settlements ([`Message`]: a read's bytes or error, a context's loss), filled by
//!   any thread and drained on the JS thread;
//! - one threadsafe function, used only to wake the JS thread when the queue becomes non-empty;
//!   it calls the JS layer's dispatcher with the whole batch. It keeps the event loop alive while
//!   reads are pending (and only then);
//! - the contexts created in this environment.
//!
//! When the environment is torn down (a worker exits or is terminated, or the main thread
//! finishes), Node runs our cleanup hook on the JS thread: under the hub's lock it marks the hub
//! dead, so that no thread calls into napi for this environment again (every caller checks the
//! mark under the same lock), then it destroys the contexts created here, which stops their
//! timelines and rejects whatever was still pending (those settlements are dropped).
//!
//! The threadsafe function is never released or dropped by us: Node deletes it during the
//! environment's cleanup whatever we do, so releasing it ourselves could only race with that.
//! napi-rs marks the handle aborted (under its own lock) when Node finalizes it, so a call that
//! raced past our mark still cannot touch freed memory.

use crate::settle;
use napi::threadsafe_function::{ErrorStrategy, ThreadSafeCallContext, ThreadsafeFunction, ThreadsafeFunctionCallMode};
use napi::{Env, JsFunction, JsUnknown, Status};
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use webnn::{Context, Promise};

/// A settlement for the JS layer's dispatcher: `id` is the number the JS layer gave the call.
pub(crate) struct Message {
    id: f64,
    /// Whether this settles a read (reads keep the event loop alive until settled).
    counted: bool,
    payload: Payload,
}

pub(crate) enum Payload {
    /// A read's bytes (given to JS as an `ArrayBuffer`).
    Bytes(Vec<u8>),
    /// A string value (the message of a context's `MLContextLostInfo`).
    Text(String),
    /// A failure: `"<ErrorKind name>: <message>"`, as the JS layer's `convertError` reads it.
    Error(String),
}

struct HubState {
    /// Wakes the JS thread. Never dropped (see the module docs).
    wake: Option<ThreadsafeFunction<(), ErrorStrategy::Fatal>>,
    /// Set by the environment's cleanup (or when the threadsafe function reports that Node is
    /// closing it): from then on nothing calls into napi for this environment.
    dead: bool,
    /// Settlements not yet handed to JS, in the order they happened.
    queue: Vec<Message>,
    /// A wake-up call is queued on the threadsafe function and has not run yet.
    woken: bool,
    /// Reads started and not yet handed to JS; the threadsafe function holds the event loop
    /// open while this is non-zero.
    pending: usize,
    /// The contexts created in this environment (pruned of dead ones now and then).
    contexts: Vec<Weak<NodeContext>>,
    prune_at: usize,
}

impl Drop for HubState {
    fn drop(&mut self) {
        // Dropping the napi-rs handle would release the threadsafe function, which may already
        // be deleted or closing (its finalizer can run after the last reference from JS went
        // away); Node frees it with the environment.
        if let Some(wake) = self.wake.take() {
            std::mem::forget(wake);
        }
    }
}

/// The per-environment hub (see the module docs).
pub struct Hub {
    state: Mutex<HubState>,
}

/// An `MLContext` of the Node binding: the engine's context plus the hub of the environment that
/// created it.
pub struct NodeContext {
    context: Context,
    hub: Arc<Hub>,
}

impl std::ops::Deref for NodeContext {
    type Target = Context;
    fn deref(&self) -> &Context {
        &self.context
    }
}

impl NodeContext {
    pub(crate) fn hub(&self) -> &Arc<Hub> {
        &self.hub
    }
}

impl Hub {
    fn lock(&self) -> MutexGuard<'_, HubState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Queues a settlement for the JS thread; dropped if the environment is gone. Callable from
    /// any thread.
    pub(crate) fn post(&self, message: Message) {
        let mut state = self.lock();
        if state.dead {
            drop(state);
            drop(message);
            return;
        }
        state.queue.push(message);
        if state.woken {
            return;
        }
        let status = match &state.wake {
            Some(wake) => wake.call((), ThreadsafeFunctionCallMode::NonBlocking),
            None => Status::Closing,
        };
        if status == Status::Ok {
            state.woken = true;
        } else {
            // Node is closing the threadsafe function: the environment is being torn down.
            state.dead = true;
            let dropped = std::mem::take(&mut state.queue);
            drop(state);
            drop(dropped);
        }
    }

    /// Registers a read the JS layer will be told about (JS thread): holds the event loop open
    /// until its settlement has been handed to JS.
    pub(crate) fn start_read(&self, env: &Env) {
        let mut state = self.lock();
        if state.dead {
            return;
        }
        state.pending += 1;
        if state.pending == 1 {
            if let Some(wake) = state.wake.as_mut() {
                let _ = wake.refer(env);
            }
        }
    }

    /// Calls `then` with the read's result, on whichever thread settles it, as a message for JS.
    pub(crate) fn settle_read(self: &Arc<Self>, id: f64, read: Promise<webnn::Result<Vec<u8>>>) {
        let hub = self.clone();
        settle::on_settled(read, move |result| {
            let payload = match result {
                Ok(bytes) => Payload::Bytes(bytes),
                Err(e) => Payload::Error(e.to_string()),
            };
            hub.post(Message { id, counted: true, payload });
        });
    }

    /// Sends `id` the context's `lost` message when it settles (does not hold the event loop).
    pub(crate) fn settle_lost(self: &Arc<Self>, id: f64, context: &Context) {
        let hub = self.clone();
        settle::on_settled(context.lost(), move |info| {
            hub.post(Message { id, counted: false, payload: Payload::Text(info.message) });
        });
    }

    /// Wraps a new context of this environment, remembering it for the cleanup.
    pub(crate) fn adopt(self: &Arc<Self>, context: Context) -> Arc<NodeContext> {
        let node_context = Arc::new(NodeContext { context, hub: self.clone() });
        let mut state = self.lock();
        if state.contexts.len() >= state.prune_at {
            state.contexts.retain(|w| w.strong_count() > 0);
            state.prune_at = (state.contexts.len() * 2).max(16);
        }
        state.contexts.push(Arc::downgrade(&node_context));
        node_context
    }

    /// The batch for the JS dispatcher (JS thread): the queued messages, the read count updated
    /// and the event loop let go once no read is pending.
    fn take_batch(&self, env: &Env) -> Vec<Message> {
        let mut state = self.lock();
        state.woken = false;
        let batch = std::mem::take(&mut state.queue);
        let reads = batch.iter().filter(|m| m.counted).count();
        state.pending = state.pending.saturating_sub(reads);
        if state.pending == 0 && !state.dead {
            if let Some(wake) = state.wake.as_mut() {
                let _ = wake.unref(env);
            }
        }
        batch
    }

    /// The environment's cleanup hook (JS thread, during teardown).
    fn shutdown(&self) {
        let (queue, contexts) = {
            let mut state = self.lock();
            state.dead = true;
            (std::mem::take(&mut state.queue), std::mem::take(&mut state.contexts))
        };
        drop(queue);
        // Without the lock: destroying rejects pending reads and settles `lost`, which post here
        // (and are dropped). The contexts' timelines drain and stop.
        for context in contexts.iter().filter_map(Weak::upgrade) {
            context.context.destroy();
        }
    }
}

/// The batch as the dispatcher's one argument: a flat array `[id, error, value, ...]`, `error`
/// a string or `null`, `value` an `ArrayBuffer`, a string or `undefined`.
fn batch_to_js(env: &Env, batch: Vec<Message>) -> napi::Result<JsUnknown> {
    let mut array = env.create_array_with_length(batch.len() * 3)?;
    for (i, message) in batch.into_iter().enumerate() {
        let i = (i * 3) as u32;
        array.set_element(i, env.create_double(message.id)?)?;
        let (error, value) = match message.payload {
            Payload::Bytes(bytes) => {
                let byte_length = bytes.len();
                match env.create_arraybuffer_with_data(bytes) {
                    Ok(buffer) => (env.get_null()?.into_unknown(), buffer.into_raw().into_unknown()),
                    Err(_) => (
                        env.create_string(&format!("UnknownError: readTensor: cannot allocate {byte_length} bytes"))?
                            .into_unknown(),
                        env.get_undefined()?.into_unknown(),
                    ),
                }
            }
            Payload::Text(text) => (env.get_null()?.into_unknown(), env.create_string(&text)?.into_unknown()),
            Payload::Error(message) => {
                (env.create_string(&message)?.into_unknown(), env.get_undefined()?.into_unknown())
            }
        };
        array.set_element(i + 1, error)?;
        array.set_element(i + 2, value)?;
    }
    Ok(array.into_unknown())
}

/// `setup(dispatcher)`: the hub of the calling environment. `dispatcher(batch)` is called on the
/// JS thread with the settlements (see [`batch_to_js`]); it must not throw.
pub fn setup(mut env: Env, dispatcher: JsFunction) -> napi::Result<Arc<Hub>> {
    let hub = Arc::new(Hub {
        state: Mutex::new(HubState {
            wake: None,
            dead: false,
            queue: Vec::new(),
            woken: false,
            pending: 0,
            contexts: Vec::new(),
            prune_at: 16,
        }),
    });
    let weak = Arc::downgrade(&hub);
    let mut wake: ThreadsafeFunction<(), ErrorStrategy::Fatal> =
        dispatcher.create_threadsafe_function(0, move |cx: ThreadSafeCallContext<()>| {
            let batch = match weak.upgrade() {
                Some(hub) => hub.take_batch(&cx.env),
                None => Vec::new(),
            };
            match batch_to_js(&cx.env, batch) {
                Ok(batch) => Ok(vec![batch]),
                // The environment can no longer run JavaScript (a worker being terminated: Node
                // may still run this callback while it closes its handles). Nobody is left to
                // settle; call nothing rather than raise a fatal exception.
                Err(e) if e.status == Status::PendingException => Ok(vec![]),
                Err(e) => Err(e),
            }
        })?;
    // Nothing is pending yet: a process with no read in flight may exit.
    wake.unref(&env)?;
    hub.lock().wake = Some(wake);
    env.add_env_cleanup_hook(hub.clone(), |hub| hub.shutdown())?;
    Ok(hub)
}

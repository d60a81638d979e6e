//! The kernels' parallel loops, and where they run.
//!
//! A dispatch runs its steps on the thread that executes it (the timeline's worker, or a
//! caller waiting on the result) until a loop here wants more than one thread; only then does
//! the work move into the context's pool. A small graph thus runs without waking a pool thread
//! (each wake-up is a futex handoff of 5–45 µs on a busy VM, more than the whole of such a
//! graph), and a pool of one thread is never entered at all.
//!
//! - [`threads`]: how many threads a kernel may split its work across here. On the dispatching
//!   thread it is the pool's size (set by [`on_caller`] for the duration of the steps), inside
//!   the pool rayon's count.
//! - The loops ([`chunks`], [`zip_chunks`], [`try_range`], [`join`], …) run as plain loops
//!   when [`threads`] is 1, as rayon loops when already inside a pool, and otherwise enter the
//!   dispatch's pool for the loop (`install`) and note it ([`CallerRun::wanted_pool`]), so that
//!   the plan can run the remaining steps inside the pool with one handoff.
//!
//! Results never depend on the thread count: every kernel splits work so that each output
//! element is computed by one thread, in the same order, whatever the split.

use rayon::prelude::*;
use std::cell::{Cell, RefCell};
use std::sync::Arc;

thread_local! {
    /// The pool of the dispatch whose steps run on this thread outside that pool.
    static CALLER_POOL: RefCell<Option<Arc<rayon::ThreadPool>>> = const { RefCell::new(None) };
    /// Set when a loop on this thread entered [`CALLER_POOL`].
    static WANTED_POOL: Cell<bool> = const { Cell::new(false) };
}

/// Marks this thread as running a dispatch's steps outside `pool` until dropped.
pub struct CallerRun(());

/// Steps of a dispatch run on this (non-pool) thread while the returned guard lives; loops
/// that want threads enter `pool`.
pub fn on_caller(pool: &Arc<rayon::ThreadPool>) -> CallerRun {
    CALLER_POOL.with(|p| *p.borrow_mut() = Some(pool.clone()));
    WANTED_POOL.with(|w| w.set(false));
    CallerRun(())
}

impl CallerRun {
    /// Whether a loop entered the pool since the guard was made (or this was last asked).
    pub fn wanted_pool(&self) -> bool {
        WANTED_POOL.with(|w| w.replace(false))
    }
}

impl Drop for CallerRun {
    fn drop(&mut self) {
        CALLER_POOL.with(|p| *p.borrow_mut() = None);
    }
}

/// Threads a kernel may split its work across (see the module documentation).
pub fn threads() -> usize {
    CALLER_POOL
        .with(|p| p.borrow().as_ref().map(|pool| pool.current_num_threads()))
        .unwrap_or_else(rayon::current_num_threads)
}

/// Multiply-adds below which a GEMM on the dispatching thread stays there rather than waking
/// the pool (about 8 µs of one core: a wake-up costs 5–45 µs on a busy virtual machine; once
/// in the pool, smaller splits pay, see `packed_gemm::split`).
const ENTER_POOL_MIN_MACS: usize = 1 << 21;

/// [`threads`] for a GEMM of `macs` multiply-adds: 1 on the dispatching thread when it is too
/// small to be worth waking the pool for.
pub fn threads_for_macs(macs: usize) -> usize {
    let on_caller = CALLER_POOL.with(|p| p.borrow().is_some());
    if on_caller && macs < ENTER_POOL_MIN_MACS {
        1
    } else {
        threads()
    }
}

/// Runs `f` where rayon's parallel loops use the dispatch's pool: in it when called from the
/// dispatching thread (noted for [`CallerRun::wanted_pool`]), as is otherwise. For code that
/// calls rayon itself (the `gemm` crate).
pub fn in_pool<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    let pool = CALLER_POOL.with(|p| p.borrow().clone());
    match pool {
        Some(pool) => {
            WANTED_POOL.with(|w| w.set(true));
            pool.install(f)
        }
        None => f(),
    }
}

/// `f(i, chunk)` for each `size`-element chunk of `data` (the last may be shorter).
pub fn chunks<T: Send>(data: &mut [T], size: usize, f: impl Fn(usize, &mut [T]) + Sync + Send) {
    if threads() <= 1 || data.len() <= size {
        data.chunks_mut(size).enumerate().for_each(|(i, c)| f(i, c));
    } else {
        in_pool(|| data.par_chunks_mut(size).enumerate().for_each(|(i, c)| f(i, c)));
    }
}

/// [`chunks`] with a fallible body: the first error (in no particular order) is returned.
pub fn try_chunks<T: Send, E: Send>(
    data: &mut [T],
    size: usize,
    f: impl Fn(usize, &mut [T]) -> Result<(), E> + Sync + Send,
) -> Result<(), E> {
    if threads() <= 1 || data.len() <= size {
        data.chunks_mut(size).enumerate().try_for_each(|(i, c)| f(i, c))
    } else {
        in_pool(|| data.par_chunks_mut(size).enumerate().try_for_each(|(i, c)| f(i, c)))
    }
}

/// [`try_chunks`] where each task takes at least `min` chunks.
pub fn try_chunks_min<T: Send, E: Send>(
    data: &mut [T],
    size: usize,
    min: usize,
    f: impl Fn(usize, &mut [T]) -> Result<(), E> + Sync + Send,
) -> Result<(), E> {
    if threads() <= 1 || data.len() <= size.saturating_mul(min) {
        data.chunks_mut(size).enumerate().try_for_each(|(i, c)| f(i, c))
    } else {
        in_pool(|| data.par_chunks_mut(size).with_min_len(min).enumerate().try_for_each(|(i, c)| f(i, c)))
    }
}

/// [`chunks`] with per-task state made by `init` (rayon's `for_each_init`).
pub fn chunks_init<T: Send, S>(
    data: &mut [T],
    size: usize,
    init: impl Fn() -> S + Sync + Send,
    f: impl Fn(&mut S, usize, &mut [T]) + Sync + Send,
) {
    if threads() <= 1 || data.len() <= size {
        let mut state = init();
        data.chunks_mut(size).enumerate().for_each(|(i, c)| f(&mut state, i, c));
    } else {
        in_pool(|| data.par_chunks_mut(size).enumerate().for_each_init(&init, |s, (i, c)| f(s, i, c)));
    }
}

/// `f(i, out_chunk, src_chunk)` over `size`-element chunks of `data` paired with
/// `src_size`-element chunks of `src` (as many pairs as the shorter side has chunks).
pub fn zip_chunks<T: Send, U: Sync>(
    data: &mut [T],
    size: usize,
    src: &[U],
    src_size: usize,
    f: impl Fn(usize, &mut [T], &[U]) + Sync + Send,
) {
    if threads() <= 1 || data.len() <= size {
        data.chunks_mut(size).zip(src.chunks(src_size)).enumerate().for_each(|(i, (o, s))| f(i, o, s));
    } else {
        in_pool(|| {
            data.par_chunks_mut(size).zip(src.par_chunks(src_size)).enumerate().for_each(|(i, (o, s))| f(i, o, s))
        });
    }
}

/// [`zip_chunks`] with a fallible body.
pub fn try_zip_chunks<T: Send, U: Sync, E: Send>(
    data: &mut [T],
    size: usize,
    src: &[U],
    src_size: usize,
    f: impl Fn(usize, &mut [T], &[U]) -> Result<(), E> + Sync + Send,
) -> Result<(), E> {
    if threads() <= 1 || data.len() <= size {
        data.chunks_mut(size).zip(src.chunks(src_size)).enumerate().try_for_each(|(i, (o, s))| f(i, o, s))
    } else {
        in_pool(|| {
            data.par_chunks_mut(size).zip(src.par_chunks(src_size)).enumerate().try_for_each(|(i, (o, s))| f(i, o, s))
        })
    }
}

/// `f(chunk)` for each `size`-element chunk of `src`, results in chunk order.
pub fn map_chunks<U: Sync, R: Send>(src: &[U], size: usize, f: impl Fn(&[U]) -> R + Sync + Send) -> Vec<R> {
    if threads() <= 1 || src.len() <= size {
        src.chunks(size).map(f).collect()
    } else {
        in_pool(|| src.par_chunks(size).map(f).collect())
    }
}

/// [`chunks`] split across at most `threads` threads: a plain loop here when it is 1 (a
/// kernel that chose its split with [`threads_for_macs`]).
pub fn chunks_on<T: Send>(threads: usize, data: &mut [T], size: usize, f: impl Fn(usize, &mut [T]) + Sync + Send) {
    if threads <= 1 {
        data.chunks_mut(size).enumerate().for_each(|(i, c)| f(i, c));
    } else {
        chunks(data, size, f);
    }
}

/// [`try_range`] split across at most `threads` threads: a plain loop here when it is 1.
pub fn try_range_on<E: Send>(
    threads: usize,
    n: usize,
    f: impl Fn(usize) -> Result<(), E> + Sync + Send,
) -> Result<(), E> {
    if threads <= 1 {
        (0..n).try_for_each(f)
    } else {
        try_range(n, f)
    }
}

/// `f(i)` for `i` in `0..n`; the first error (in no particular order) is returned.
pub fn try_range<E: Send>(n: usize, f: impl Fn(usize) -> Result<(), E> + Sync + Send) -> Result<(), E> {
    if threads() <= 1 || n <= 1 {
        (0..n).try_for_each(f)
    } else {
        in_pool(|| (0..n).into_par_iter().try_for_each(f))
    }
}

/// `(a(), b())`, in parallel when there are threads to spare.
pub fn join<RA: Send, RB: Send>(a: impl FnOnce() -> RA + Send, b: impl FnOnce() -> RB + Send) -> (RA, RB) {
    if threads() <= 1 {
        (a(), b())
    } else {
        in_pool(|| rayon::join(a, b))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    fn pool(n: usize) -> Arc<rayon::ThreadPool> {
        Arc::new(rayon::ThreadPoolBuilder::new().num_threads(n).build().unwrap())
    }

    #[test]
    fn on_the_caller_loops_enter_the_pool_only_when_it_has_threads_to_give() {
        for n in [1, 3] {
            let p = pool(n);
            let run = on_caller(&p);
            assert_eq!(threads(), n);
            let seen = AtomicUsize::new(0);
            let mut v = vec![0usize; 1000];
            chunks(&mut v, 10, |i, c| {
                // Inside the pool a loop body runs on one of its threads; else on this one.
                assert_eq!(p.current_thread_index().is_some(), n > 1);
                seen.fetch_add(c.len(), Ordering::Relaxed);
                c.fill(i);
            });
            assert_eq!(seen.load(Ordering::Relaxed), 1000);
            assert!(v.iter().enumerate().all(|(k, &i)| i == k / 10));
            assert_eq!(run.wanted_pool(), n > 1);
            assert!(!run.wanted_pool(), "asking resets the flag");
            drop(run);
            // Without the guard and outside any pool: rayon's own count.
            assert_eq!(threads(), rayon::current_num_threads());
        }
    }

    #[test]
    fn small_gemms_do_not_wake_the_pool_from_the_caller() {
        let p = pool(3);
        {
            let run = on_caller(&p);
            assert_eq!(threads_for_macs(ENTER_POOL_MIN_MACS - 1), 1);
            assert_eq!(threads_for_macs(ENTER_POOL_MIN_MACS), 3);
            // The loops of a kernel that chose one thread stay here.
            let mut v = vec![0usize; 1000];
            chunks_on(1, &mut v, 10, |i, c| c.fill(i));
            let r: Result<(), ()> = try_range_on(1, 100, |_| Ok(()));
            assert!(r.is_ok() && v.iter().enumerate().all(|(k, &i)| i == k / 10));
            assert!(!run.wanted_pool());
            chunks_on(3, &mut v, 10, |i, c| c.fill(i + 1));
            assert!(run.wanted_pool() && v.iter().enumerate().all(|(k, &i)| i == k / 10 + 1));
        }
        // Inside the pool the split is the GEMM's own decision.
        assert_eq!(p.install(|| threads_for_macs(1000)), 3);
    }

    #[test]
    fn every_loop_covers_every_element_once_in_order() {
        let p = pool(3);
        for inside in [false, true] {
            let check = || {
                let mut v = vec![0u32; 1001];
                zip_chunks(&mut v, 7, &(0..1001u32).collect::<Vec<_>>(), 7, |_, o, s| o.copy_from_slice(s));
                assert!(v.iter().enumerate().all(|(k, &x)| x == k as u32));
                let sums = map_chunks(&v, 100, |c| c.iter().map(|&x| x as u64).sum::<u64>());
                assert_eq!(sums.len(), 11);
                assert_eq!(sums.iter().sum::<u64>(), 1000 * 1001 / 2);
                let r: Result<(), usize> = try_range(50, |i| if i == 37 { Err(i) } else { Ok(()) });
                assert_eq!(r, Err(37));
                let r: Result<(), ()> = try_chunks_min(&mut v, 3, 20, |i, c| {
                    c.fill(i as u32);
                    Ok(())
                });
                assert!(r.is_ok() && v.iter().enumerate().all(|(k, &x)| x == (k / 3) as u32));
                let counted = AtomicUsize::new(0);
                chunks_init(
                    &mut v,
                    10,
                    || 0usize,
                    |s, _, c| {
                        *s += 1;
                        counted.fetch_add(c.len(), Ordering::Relaxed);
                    },
                );
                assert_eq!(counted.load(Ordering::Relaxed), 1001);
                assert_eq!(join(|| 1, || 2), (1, 2));
            };
            if inside {
                p.install(check);
            } else {
                let _run = on_caller(&p);
                check();
            }
        }
    }
}

//! The context timeline: failures on the worker lose the context instead of hanging readers,
//! promises work with executors and blocking waits, contexts are independent, many threads
//! can share one context.

mod common;
use common::*;
use std::sync::Arc;
use webnn::*;

#[test]
fn execution_failure_loses_the_context_without_hanging_readers() {
    for (mode, needle) in [(Mode::ExecutePanic, "panicked"), (Mode::ExecuteError, "failed on purpose")] {
        let gate = Gate::closed();
        let context = test_ctx(mode, &gate);
        let lost = context.lost();
        let graph = add_graph(&context, &[2]);
        let a = rw_tensor(&context, &[2], &[1.0, 2.0]);
        let b = rw_tensor(&context, &[2], &[1.0, 2.0]);
        let out = rw_tensor(&context, &[2], &[0.0; 2]);
        context.dispatch(&graph, &[("a", &a), ("b", &b)], &[("out", &out)]).unwrap();
        let read_out = context.read_tensor(&out);
        let read_a = context.read_tensor(&a);
        gate.open();
        let info = lost.wait();
        assert!(info.message.starts_with("UnknownError"), "{}", info.message);
        assert!(info.message.contains(needle), "{}", info.message);
        assert_err(read_out.wait(), ErrorKind::InvalidState, "context was lost");
        assert_err(read_a.wait(), ErrorKind::InvalidState, "context was lost");
        assert!(context.is_lost());
        assert!(graph.is_destroyed());
        // Every later use names the failure: a read issued after the loss sees a destroyed
        // tensor (the spec's TypeError), and says why it is destroyed.
        let why = format!("(the context was lost: {})", info.message);
        let reason = format!("the context was lost: {}", info.message);
        let new_tensor = context.create_tensor(&tdesc(DataType::Float32, &[2], true, true));
        assert_err(new_tensor, ErrorKind::InvalidState, &format!("createTensor: {reason}"));
        let mut into = [0u8; 8];
        assert_err(context.read_tensor_into(&a, &mut into), ErrorKind::Type, &format!("destroyed {why}"));
        assert_err(context.read_tensor(&out).wait(), ErrorKind::Type, &format!("destroyed {why}"));
        let again = context.dispatch(&graph, &[("a", &a), ("b", &b)], &[("out", &out)]);
        assert_err(again, ErrorKind::InvalidState, &format!("dispatch: the graph is destroyed {why}"));
    }
}

/// A gated context with `[1, 2] + [3, 4]` queued, and a thread blocked (for 20 ms so far) in
/// `read_tensor_into` of the sum.
fn blocking_read_of_a_gated_add() -> (Gate, Context, std::thread::JoinHandle<Result<Vec<f32>>>) {
    let gate = Gate::closed();
    let context = test_ctx(Mode::Gated, &gate);
    let QueuedAdd { out, .. } = queue_add(&context, &[1.0, 2.0], &[3.0, 4.0]);
    let c2 = context.clone();
    let reader = std::thread::spawn(move || {
        let mut buf = [0u8; 8];
        c2.read_tensor_into(&out, &mut buf).map(|_| to_f32(&buf))
    });
    std::thread::sleep(std::time::Duration::from_millis(20));
    (gate, context, reader)
}

#[test]
fn blocking_read_into_waits_for_queued_work_and_sees_loss() {
    let (gate, _context, reader) = blocking_read_of_a_gated_add();
    assert!(!reader.is_finished(), "the read waits for the dispatch");
    gate.open();
    assert_eq!(reader.join().unwrap().unwrap(), vec![4.0, 6.0]);

    // A blocking read pending when the context is destroyed fails with InvalidStateError.
    let (gate, context, reader) = blocking_read_of_a_gated_add();
    context.destroy();
    // The reader may be running the dispatch itself (a blocked reader runs the idle timeline's
    // queue): it sees the loss once that job is done.
    gate.open();
    match reader.join().unwrap() {
        Err(e) if e.kind == ErrorKind::InvalidState => assert!(e.message.contains("context was lost"), "{e}"),
        // Only if the reader thread was not scheduled before destroy(): the checks see a
        // destroyed tensor.
        Err(e) => assert_eq!((e.kind, e.message.contains("destroyed")), (ErrorKind::Type, true), "{e}"),
        Ok(_) => panic!("the read cannot succeed: the context was lost before it"),
    }
}

#[test]
fn promises_poll_on_an_executor_and_report_settlement() {
    let gate = Gate::closed();
    let context = test_ctx(Mode::Gated, &gate);
    let QueuedAdd { out, .. } = queue_add(&context, &[20.0], &[22.0]);
    let p = context.read_tensor(&out);
    let p = p.try_take().expect_err("not settled while the timeline is blocked");
    assert!(!p.is_settled());
    let opener = {
        let gate = gate.clone();
        std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(10));
            gate.open();
        })
    };
    // block_on parks the thread until the worker wakes the future.
    assert_eq!(to_f32(&block_on(p).unwrap()), vec![42.0]);
    opener.join().unwrap();
    let lost = context.lost();
    context.destroy();
    assert!(block_on(lost).message.contains("destroy()"));
}

#[test]
fn lost_promise_settles_when_the_context_is_dropped() {
    let lost = {
        let context = ctx();
        context.lost()
    };
    // Nothing keeps the context alive: waiting must not hang.
    assert!(lost.wait().message.contains("dropped"));
}

#[test]
fn contexts_are_independent() {
    let c1 = ctx();
    let c2 = ctx();
    let g1 = add_graph(&c1, &[2]);
    let g2 = add_graph(&c2, &[2]);
    let t1 = rw_tensor(&c1, &[2], &[1.0, 2.0]);
    let u1 = rw_tensor(&c1, &[2], &[1.0, 2.0]);
    let o1 = rw_tensor(&c1, &[2], &[0.0; 2]);
    let t2 = rw_tensor(&c2, &[2], &[5.0, 6.0]);
    let u2 = rw_tensor(&c2, &[2], &[5.0, 6.0]);
    let o2 = rw_tensor(&c2, &[2], &[0.0; 2]);
    c1.destroy();
    assert!(g1.is_destroyed() && t1.is_destroyed());
    assert!(!g2.is_destroyed() && !t2.is_destroyed());
    assert!(!c2.lost().is_settled());
    c2.dispatch(&g2, &[("a", &t2), ("b", &u2)], &[("out", &o2)]).unwrap();
    assert_eq!(read_f32(&c2, &o2), vec![10.0, 12.0]);
    assert_err(c1.dispatch(&g1, &[("a", &t1), ("b", &u1)], &[("out", &o1)]), ErrorKind::InvalidState, "destroyed");
}

#[test]
fn many_threads_share_one_context() {
    let context = ctx();
    let graph = Arc::new(add_graph(&context, &[16]));
    let handles: Vec<_> = (0..4)
        .map(|k| {
            let (context, graph) = (context.clone(), graph.clone());
            std::thread::spawn(move || {
                let a = rw_tensor(&context, &[16], &[k as f32; 16]);
                let b = rw_tensor(&context, &[16], &[1.0; 16]);
                let out = rw_tensor(&context, &[16], &[0.0; 16]);
                for i in 0..20 {
                    context.write_tensor(&b, &f32_bytes(&[i as f32; 16])).unwrap();
                    context.dispatch(&graph, &[("a", &a), ("b", &b)], &[("out", &out)]).unwrap();
                    assert_eq!(read_f32(&context, &out), vec![k as f32 + i as f32; 16]);
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
}

#[test]
fn destroying_from_another_thread_while_work_is_queued() {
    let context = ctx();
    let graph = add_graph(&context, &[256]);
    let a = rw_tensor(&context, &[256], &[1.0; 256]);
    let b = rw_tensor(&context, &[256], &[1.0; 256]);
    let out = rw_tensor(&context, &[256], &[0.0; 256]);
    let mut reads = Vec::new();
    for _ in 0..200 {
        context.dispatch(&graph, &[("a", &a), ("b", &b)], &[("out", &out)]).unwrap();
        reads.push(context.read_tensor(&out));
    }
    let c2 = context.clone();
    std::thread::spawn(move || c2.destroy()).join().unwrap();
    // Every read settles: either with the data or rejected with InvalidStateError.
    for r in reads {
        match r.wait() {
            Ok(bytes) => assert_eq!(to_f32(&bytes), vec![2.0; 256]),
            Err(e) => assert_eq!(e.kind, ErrorKind::InvalidState),
        }
    }
}

/// Issue 10, item 7: `readTensor(t); readTensor(t); t.destroy()` rejects both reads with
/// InvalidStateError however far the timeline got
/// ([spec](https://www.w3.org/TR/webnn/#api-mltensor-destroy): a promise leaves
/// `[[pendingPromises]]` only when its settling task runs — in Rust, when its value is taken); the
/// same for a read issued just before `context.destroy()`. The timeline is given time to finish the
/// reads before the destroy, which made the race show every time before the fix.
#[test]
fn destroy_rejects_reads_whose_value_was_not_taken_yet() {
    for round in 0..50 {
        let context = ctx();
        let t = rw_tensor(&context, &[4], &[1.0, 2.0, 3.0, 4.0]);
        let first = context.read_tensor(&t);
        let second = context.read_tensor(&t);
        if round % 2 == 0 {
            // Let the timeline run both reads to the end.
            while !(first.is_settled() && second.is_settled()) {
                std::thread::yield_now();
            }
        }
        t.destroy();
        assert_err(first.wait(), ErrorKind::InvalidState, "destroyed");
        assert_err(second.wait(), ErrorKind::InvalidState, "destroyed");

        let t = rw_tensor(&context, &[4], &[1.0, 2.0, 3.0, 4.0]);
        let read = context.read_tensor(&t);
        if round % 2 == 0 {
            while !read.is_settled() {
                std::thread::yield_now();
            }
        }
        context.destroy();
        assert_err(read.wait(), ErrorKind::InvalidState, "lost");

        // A pending read keeps its tensor alive: dropping every handle of the tensor does not
        // let a later context destroy() miss the read.
        let context = ctx();
        let t = rw_tensor(&context, &[4], &[1.0, 2.0, 3.0, 4.0]);
        let read = context.read_tensor(&t);
        drop(t);
        while !read.is_settled() {
            std::thread::yield_now();
        }
        context.destroy();
        assert_err(read.wait(), ErrorKind::InvalidState, "lost");
    }
}

/// A read whose value was taken before `destroy()` keeps it; reads do not pile up in
/// `[[pendingPromises]]` once taken (many reads of one long-lived tensor).
#[test]
fn taken_reads_stay_resolved_and_do_not_accumulate() {
    let context = ctx();
    let t = rw_tensor(&context, &[2], &[5.0, 6.0]);
    for _ in 0..10_000 {
        assert_eq!(to_f32(&context.read_tensor(&t).wait().unwrap()), vec![5.0, 6.0]);
    }
    let read = context.read_tensor(&t);
    let value = read.wait();
    t.destroy();
    assert_eq!(to_f32(&value.unwrap()), vec![5.0, 6.0]);
}

/// Issue 10, item 6: `destroy()` ends the context's threads (timeline and CPU pool) at once,
/// not when its last handle is dropped: 400 destroyed contexts whose handles are kept, each
/// with a built and dispatched graph, leave no threads behind (411 exhausted thread creation
/// before).
#[test]
fn destroyed_contexts_release_their_threads() {
    fn threads() -> usize {
        std::fs::read_dir("/proc/self/task").map(|d| d.count()).unwrap_or(0)
    }
    let before = threads();
    let mut kept = Vec::new();
    for _ in 0..400 {
        let context = ctx();
        let graph = add_graph(&context, &[2]);
        let (a, b, out) = (
            rw_tensor(&context, &[2], &[1.0, 2.0]),
            rw_tensor(&context, &[2], &[3.0, 4.0]),
            rw_tensor(&context, &[2], &[0.0; 2]),
        );
        context.dispatch(&graph, &[("a", &a), ("b", &b)], &[("out", &out)]).unwrap();
        assert_eq!(read_f32(&context, &out), vec![4.0, 6.0]);
        context.destroy();
        kept.push((context, graph, a, b, out));
    }
    // Threads end asynchronously once their work is gone: wait for them (bounded).
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while threads() > before + 20 && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(threads() <= before + 20, "{} threads alive, {before} before 400 destroyed contexts", threads());
    drop(kept);
}

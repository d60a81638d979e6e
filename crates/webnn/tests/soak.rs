//! Soak test (issue 10): eight threads share one context and mix createTensor, writeTensor,
//! dispatch of chained graphs, readTensor (kept pending, taken later), tensor and graph
//! destroy, and builds; every read is checked against what the calls issued before it imply
//! (a shadow model per thread), and a context destroyed mid-flight settles every promise.
//!
//! `soak_briefly` runs for 2 s in every test run; `.ci/run` runs `soak` for `WEBNN_SOAK_SECS`
//! (default 30) seconds: `cargo test --release -p webnn --test soak -- --ignored`.

mod common;
use common::*;
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};
use webnn::*;
use webnn_core::testing::Rng;

/// The graphs every thread uses: `sum = a + b` and `diff = a - b`, `twice = a + a` (two
/// outputs), built once and shared by all threads.
struct Graphs {
    add: Graph,
    sub_twice: Graph,
}

fn build_graphs(context: &Context, len: u32) -> Graphs {
    let d = desc(DataType::Float32, &[len]);
    let mut b = GraphBuilder::new(context).unwrap();
    let (x, y) = (b.input("a", &d).unwrap(), b.input("b", &d).unwrap());
    let s = b.add(&x, &y, &NO).unwrap();
    let add = b.build(&[("out", &s)]).unwrap();
    let mut b = GraphBuilder::new(context).unwrap();
    let (x, y) = (b.input("a", &d).unwrap(), b.input("b", &d).unwrap());
    let diff = b.sub(&x, &y, &NO).unwrap();
    let twice = b.add(&x, &x, &NO).unwrap();
    let sub_twice = b.build(&[("diff", &diff), ("twice", &twice)]).unwrap();
    Graphs { add, sub_twice }
}

/// A tensor of the thread and the values its shadow says it holds.
struct Slot {
    tensor: Tensor,
    values: Vec<f32>,
}

/// A read issued but not taken yet, with the values the call order implies.
struct PendingCheck {
    promise: Promise<Result<Vec<u8>>>,
    expected: Vec<f32>,
    slot: usize,
}

#[derive(Default, Debug)]
struct Counts {
    ops: u64,
    reads_checked: u64,
    reads_rejected: u64,
}

fn random_values(rng: &mut Rng, len: usize) -> Vec<f32> {
    (0..len).map(|_| rng.below(201) as f32 - 100.0).collect()
}

fn fresh_slot(context: &Context, rng: &mut Rng, len: u32) -> Slot {
    let tensor = context.create_tensor(&tdesc(DataType::Float32, &[len], true, true)).unwrap();
    let values = random_values(rng, len as usize);
    context.write_tensor(&tensor, &f32_bytes(&values)).unwrap();
    Slot { tensor, values }
}

/// Takes a pending read and checks it: the implied values, or InvalidStateError if its tensor
/// was destroyed (or the context lost) before the value was taken.
fn settle(check: PendingCheck, destroyed: bool, counts: &mut Counts) {
    match check.promise.wait() {
        Ok(bytes) => {
            assert!(!destroyed, "a read of slot {} resolved after its tensor was destroyed", check.slot);
            assert_eq!(to_f32(&bytes), check.expected, "slot {}", check.slot);
            counts.reads_checked += 1;
        }
        Err(e) => {
            assert!(destroyed, "a read failed although its tensor lives: {e}");
            assert_eq!(e.kind, ErrorKind::InvalidState, "{e}");
            counts.reads_rejected += 1;
        }
    }
}

/// One thread's work until `deadline`; returns its pending reads at the end (still untaken)
/// for the final context destroy.
fn worker(context: &Context, graphs: &Graphs, seed: u64, len: u32, deadline: Instant) -> (Counts, Vec<PendingCheck>) {
    let mut rng = Rng::from_state(seed);
    let mut counts = Counts::default();
    let mut slots: Vec<Slot> = (0..4).map(|_| fresh_slot(context, &mut rng, len)).collect();
    let mut pending: Vec<PendingCheck> = Vec::new();
    while Instant::now() < deadline {
        counts.ops += 1;
        let n = slots.len() as u64;
        let (i, j, k) = (rng.below(n) as usize, rng.below(n) as usize, rng.below(n) as usize);
        match rng.below(100) {
            0..=19 => {
                let values = random_values(&mut rng, len as usize);
                context.write_tensor(&slots[i].tensor, &f32_bytes(&values)).unwrap();
                slots[i].values = values;
            }
            20..=39 if k != i && k != j => {
                // out = a + b, chained: the output may feed the next dispatch.
                let (a, b) = (&slots[i], &slots[j]);
                let inputs = [("a", &a.tensor), ("b", &b.tensor)];
                if i == j {
                    // The same tensor bound twice is a TypeError (dispatch step 3).
                    assert_err(
                        context.dispatch(&graphs.add, &inputs, &[("out", &slots[k].tensor)]),
                        ErrorKind::Type,
                        "same tensor",
                    );
                    continue;
                }
                context.dispatch(&graphs.add, &inputs, &[("out", &slots[k].tensor)]).unwrap();
                let sum: Vec<f32> = a.values.iter().zip(&b.values).map(|(x, y)| x + y).collect();
                slots[k].values = sum;
            }
            40..=49 if i != j => {
                let others: Vec<usize> = (0..slots.len()).filter(|&s| s != i && s != j).collect();
                if others.len() < 2 {
                    continue;
                }
                let (d, t) = (others[0], others[1]);
                let inputs = [("a", &slots[i].tensor), ("b", &slots[j].tensor)];
                let outputs = [("diff", &slots[d].tensor), ("twice", &slots[t].tensor)];
                context.dispatch(&graphs.sub_twice, &inputs, &outputs).unwrap();
                let diff: Vec<f32> = slots[i].values.iter().zip(&slots[j].values).map(|(x, y)| x - y).collect();
                let twice: Vec<f32> = slots[i].values.iter().map(|x| x + x).collect();
                slots[d].values = diff;
                slots[t].values = twice;
            }
            50..=74 => {
                pending.push(PendingCheck {
                    promise: context.read_tensor(&slots[i].tensor),
                    expected: slots[i].values.clone(),
                    slot: i,
                });
            }
            75..=79 => {
                let mut out = vec![0u8; len as usize * 4];
                context.read_tensor_into(&slots[i].tensor, &mut out).unwrap();
                assert_eq!(to_f32(&out), slots[i].values, "read_tensor_into slot {i}");
                counts.reads_checked += 1;
            }
            80..=89 => {
                // Take the oldest pending reads.
                let take = pending.len().min(1 + rng.below(4) as usize);
                for check in pending.drain(..take) {
                    settle(check, false, &mut counts);
                }
            }
            90..=94 => {
                // Destroy a tensor with reads pending: they reject; a fresh tensor takes its place.
                slots[i].tensor.destroy();
                let (dead, live): (Vec<_>, Vec<_>) = pending.drain(..).partition(|c| c.slot == i);
                pending = live;
                for check in dead {
                    settle(check, true, &mut counts);
                }
                slots[i] = fresh_slot(context, &mut rng, len);
            }
            _ => {
                // A throwaway graph built, dispatched once and destroyed, on a shared context.
                let d = desc(DataType::Float32, &[len]);
                let mut b = GraphBuilder::new(context).unwrap();
                let x = b.input("x", &d).unwrap();
                let y = b.neg(&x, &NO).unwrap();
                let g = b.build(&[("y", &y)]).unwrap();
                if i != k {
                    context.dispatch(&g, &[("x", &slots[i].tensor)], &[("y", &slots[k].tensor)]).unwrap();
                    slots[k].values = slots[i].values.iter().map(|v| -v).collect();
                }
                g.destroy();
                assert_err(
                    context.dispatch(&g, &[("x", &slots[i].tensor)], &[("y", &slots[j].tensor)]),
                    ErrorKind::InvalidState,
                    "destroyed",
                );
            }
        }
        // Keep values small enough for exact float32 arithmetic.
        for slot in &mut slots {
            if slot.values.iter().any(|v| v.abs() > 1e6) {
                let values = random_values(&mut rng, len as usize);
                context.write_tensor(&slot.tensor, &f32_bytes(&values)).unwrap();
                slot.values = values;
            }
        }
    }
    for check in pending.drain(..) {
        settle(check, false, &mut counts);
    }
    // Reads left pending for the final destroy of the context.
    let last = (0..slots.len())
        .map(|i| PendingCheck {
            promise: context.read_tensor(&slots[i].tensor),
            expected: slots[i].values.clone(),
            slot: i,
        })
        .collect();
    (counts, last)
}

fn soak(duration: Duration) {
    let context = ctx();
    let threads = 8;
    let barrier = Arc::new(Barrier::new(threads + 1));
    let deadline = Instant::now() + duration;
    let handles: Vec<_> = (0..threads)
        .map(|t| {
            let (context, barrier) = (context.clone(), barrier.clone());
            std::thread::spawn(move || {
                let len = [1, 7, 64, 1000][t % 4];
                let graphs = build_graphs(&context, len);
                let (mut counts, last) = worker(&context, &graphs, 0x9E37_79B9 + t as u64, len, deadline);
                barrier.wait(); // everyone has issued its last reads
                barrier.wait(); // the context is destroyed
                for check in last {
                    settle(check, true, &mut counts);
                }
                counts
            })
        })
        .collect();
    barrier.wait();
    let lost = context.lost();
    context.destroy();
    assert!(lost.wait().message.contains("destroy"));
    barrier.wait();
    let mut total = Counts::default();
    for h in handles {
        let c = h.join().expect("a soak thread failed");
        total.ops += c.ops;
        total.reads_checked += c.reads_checked;
        total.reads_rejected += c.reads_rejected;
    }
    println!("soak: {threads} threads, {:.0} s: {total:?}", duration.as_secs_f64());
    assert!(total.reads_checked > 100, "{total:?}");
}

#[test]
fn soak_briefly() {
    soak(Duration::from_secs(2));
}

#[test]
#[ignore = "run by .ci/run with WEBNN_SOAK_SECS"]
fn soak_long() {
    let secs = std::env::var("WEBNN_SOAK_SECS").ok().and_then(|v| v.parse().ok()).unwrap_or(30);
    soak(Duration::from_secs(secs));
}

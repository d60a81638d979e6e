//! Issue 10, item 2: allocations sized by the caller fail with the spec's error instead of
//! aborting the process. Each scenario runs in a child process (this test binary again, one
//! `#[ignore]`d scenario test) under an address-space limit (`prlimit --as`), so a regression
//! aborts the child, never the machine; the parent asserts the child exited cleanly.

mod common;
use common::*;
use std::process::Command;
use webnn::*;

const GIB: u64 = 1 << 30;

/// Runs scenario test `name` in a child process limited to `limit` bytes of address space and
/// asserts that it passed (exit 0 and the scenario's own "passed" line).
fn run_limited(name: &str, limit: u64) {
    let exe = std::env::current_exe().expect("test binary");
    let output = Command::new("prlimit")
        .arg(format!("--as={limit}"))
        .arg("--")
        .arg(exe)
        .args(["--exact", name, "--ignored", "--nocapture", "--test-threads=1"])
        // One malloc arena per thread reserves 64 MiB of address space each; keep it small so
        // the limit measures what the scenario allocates.
        .env("MALLOC_ARENA_MAX", "2")
        .env("WEBNN_NUM_THREADS", "2")
        .env("WEBNN_MEMORY_LIMITED", "1")
        .output()
        .expect("prlimit (util-linux) must be installed");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success() && stdout.contains(&format!("scenario {name} passed")),
        "scenario {name} under --as={limit}: {}\nstdout:\n{stdout}\nstderr:\n{stderr}",
        output.status
    );
}

/// Scenarios run only in the limited child (the parent sets this variable).
fn limited() -> bool {
    std::env::var_os("WEBNN_MEMORY_LIMITED").is_some()
}

/// Declares the `#[ignore]`d scenario test `$scenario`, whose `$body` runs only in the limited
/// child and then reports that it passed, and the test `$test` that runs it in a child limited
/// to `$limit` bytes of address space.
macro_rules! limited_scenario {
    ($(#[$doc:meta])* $test:ident runs $scenario:ident under $limit:expr, $body:block) => {
        $(#[$doc])*
        #[test]
        #[ignore = "run in a limited child by the test named after it"]
        fn $scenario() {
            if !limited() {
                return;
            }
            $body
            println!("scenario {} passed", stringify!($scenario));
        }

        #[test]
        fn $test() {
            run_limited(stringify!($scenario), $limit);
        }
    };
}

limited_scenario! {
    /// `expand(x, [2^31 - 1])` then `add` and `reduceSum`: an 8 GiB intermediate. build()
    /// succeeds (the arena is allocated at the first dispatch); the dispatch loses the context with
    /// an UnknownError; pending reads reject; the process lives on.
    huge_intermediate_loses_the_context runs scenario_huge_intermediate under 2 * GIB,
    {
        let context = ctx();
        let lost = context.lost();
        let mut b = GraphBuilder::new(&context).unwrap();
        let x = b.input("x", &desc(DataType::Float32, &[1])).unwrap();
        let big = b.expand(&x, &[(1 << 31) - 1], &NO).unwrap();
        let twice = b.add(&big, &big, &NO).unwrap();
        let sum = b.reduce_sum(&twice, &ReduceOptions::default()).unwrap();
        let graph = b.build(&[("sum", &sum)]).expect("build allocates no intermediates");
        let x_t = rw_tensor(&context, &[1], &[1.0]);
        let out = context.create_tensor(&tdesc(DataType::Float32, &[], true, false)).unwrap();
        context.dispatch(&graph, &[("x", &x_t)], &[("sum", &out)]).unwrap();
        let read = context.read_tensor(&out);
        let info = lost.wait();
        assert!(info.message.starts_with("UnknownError"), "{}", info.message);
        assert!(info.message.contains("cannot allocate"), "{}", info.message);
        assert_err(read.wait(), ErrorKind::InvalidState, "lost");
    }
}

limited_scenario! {
    /// Graphs that are built but never dispatched hold no arena; `destroy()` frees a dispatched
    /// graph's arena: three graphs with 1 GiB intermediates, one at a time, under a 2.5 GiB limit.
    arenas_are_lazy_and_freed_by_destroy runs scenario_lazy_arenas under 2 * GIB + GIB / 2,
    {
        let context = ctx();
        let graph = |context: &Context| {
            let mut b = GraphBuilder::new(context).unwrap();
            let x = b.input("x", &desc(DataType::Float32, &[1])).unwrap();
            let big = b.expand(&x, &[1 << 28], &NO).unwrap(); // 1 GiB
            let sum = b.reduce_sum(&big, &ReduceOptions::default()).unwrap();
            b.build(&[("sum", &sum)]).unwrap()
        };
        let graphs: Vec<Graph> = (0..3).map(|_| graph(&context)).collect();
        let x = rw_tensor(&context, &[1], &[1.0]);
        let out = context.create_tensor(&tdesc(DataType::Float32, &[], true, false)).unwrap();
        for g in &graphs {
            context.dispatch(g, &[("x", &x)], &[("sum", &out)]).unwrap();
            let sum = read_f32(&context, &out)[0];
            assert!((sum / (1u64 << 28) as f32 - 1.0).abs() < 1e-3, "sum {sum}");
            g.destroy();
        }
        assert!(!context.is_lost());
    }
}

limited_scenario! {
    /// `constant()` copies that cannot be allocated throw a TypeError; `createConstantTensor`
    /// rejects with an UnknownError; `writeTensor` throws an UnknownError and writes nothing.
    copies_that_cannot_be_allocated_are_errors runs scenario_copies under 2 * GIB + GIB / 2,
    {
        let context = ctx();
        let source = vec![0u8; GIB as usize];
        let d = desc(DataType::Float32, &[(GIB / 4) as u32]);
        let mut b = GraphBuilder::new(&context).unwrap();
        let mut failed = None;
        let mut kept = Vec::new();
        for i in 0..6 {
            match b.constant(&d, &source) {
                Ok(c) => kept.push(c),
                Err(e) => {
                    failed = Some((i, e));
                    break;
                }
            }
        }
        let (i, e) = failed.expect("six 1 GiB constants cannot fit in 2.5 GiB");
        assert!(i >= 1, "the first copy fits");
        assert_eq!(e.kind, ErrorKind::Type, "{e}");
        assert!(e.message.contains("constant: cannot allocate 1073741824 bytes"), "{e}");
        drop(kept);
        drop(b);

        let tensor = context.create_tensor(&tdesc(DataType::Float32, &[(GIB / 4) as u32], true, true)).unwrap();
        let constant = context.create_constant_tensor(&d, &source);
        let write = context.write_tensor(&tensor, &source);
        // The tensor (1 GiB) and the source (1 GiB) leave no room for a third copy.
        assert_err(constant, ErrorKind::Unknown, "createConstantTensor: cannot allocate");
        assert_err(write, ErrorKind::Unknown, "writeTensor: cannot allocate");
        assert!(!context.is_lost());
    }
}

limited_scenario! {
    /// layerNormalization over [2^27] elements built under a 1 GiB limit (its offsets table
    /// needed 8 bytes per element, 1 GiB, at build time).
    layer_normalization_builds_without_tables runs scenario_layer_norm_build under GIB,
    {
        let context = ctx();
        for axes in [vec![0u32], vec![1, 0]] {
            let mut b = GraphBuilder::new(&context).unwrap();
            let shape: &[u32] = if axes.len() == 1 { &[1 << 27] } else { &[1 << 13, 1 << 14] };
            let x = b.input("x", &desc(DataType::Float32, shape)).unwrap();
            let options = LayerNormalizationOptions { axes: Some(axes), ..Default::default() };
            let y = b.layer_normalization(&x, &options).unwrap();
            b.build(&[("y", &y)]).expect("build");
        }
    }
}

limited_scenario! {
    /// Constants are not copied again at build: a graph with a 1 GiB constant builds and runs
    /// under a 2.5 GiB limit while the caller still holds its 1 GiB source buffer (the compile-time
    /// copy into aligned storage made it 3 GiB).
    constants_are_shared_not_copied_at_build runs scenario_constant_shared_with_the_plan under 2 * GIB + GIB / 2,
    {
        let context = ctx();
        let n = (GIB / 4) as u32;
        let source: Vec<u8> = 2.0f32.to_le_bytes().into_iter().cycle().take(GIB as usize).collect();
        let mut b = GraphBuilder::new(&context).unwrap();
        let x = b.input("x", &desc(DataType::Float32, &[1])).unwrap();
        let c = b.constant(&desc(DataType::Float32, &[n]), &source).unwrap();
        let sum = b.reduce_sum(&c, &ReduceOptions::default()).unwrap();
        let y = b.add(&sum, &x, &NO).unwrap();
        let graph = b.build(&[("y", &y)]).expect("build shares the constant");
        drop(b);
        let x_t = rw_tensor(&context, &[1], &[1.0]);
        // `sum` is rank 0 and `x` is [1], so `y` is [1].
        let out = context.create_tensor(&tdesc(DataType::Float32, &[1], true, false)).unwrap();
        context.dispatch(&graph, &[("x", &x_t)], &[("y", &out)]).unwrap();
        let y = read_f32(&context, &out)[0];
        assert!((y / (2.0 * n as f32) - 1.0).abs() < 1e-3, "y {y}");
    }
}

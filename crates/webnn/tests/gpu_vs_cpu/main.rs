//! Differential test of the GPU backend against the CPU engine: every op × operand × data type
//! combination that a GPU context's `opSupportLimits()` reports is built as one small graph
//! (seeded pseudo-random inputs, small odd shapes, non-default valid options), run through the
//! public API (`GraphBuilder`, `create_tensor` / `write_tensor` / `dispatch` / `read_tensor`) on
//! BOTH a GPU context and a CPU context, and the outputs compared.
//!
//! The CPU engine is the reference: every one of its op × data type combinations is verified
//! against the WPT conformance vectors and independent references (crates/webnn-cpu's own
//! tests), so a difference beyond the tolerance is a GPU bug.
//!
//! Comparison: bit-exact for integer outputs and for data-movement ops on every type (inputs
//! there hold any non-NaN bit pattern: ±0, ±∞, subnormals); value-exact (±0 equal, NaN equal
//! NaN) for exact float ops (abs, floor, max, reduceMax, ...); otherwise within a per-op ULP
//! bound taken from the WPT tolerances (../shared/wpt/README.md §6) or a small absolute bound
//! (for values near 0 where ULPs are tiny, and the WPT ATOL ops), whichever is looser.
//! Arithmetic on a GPU may flush float32 subnormals to zero (Vulkan lets drivers do so, and
//! NVIDIA's do): where the CPU's result is subnormal, a GPU result of zero with the same sign is
//! accepted (data-movement ops, compared bit by bit, must still carry subnormals unchanged).
//!
//! Which combinations run comes from the GPU context's limits: every test iterates the data
//! types of the spec's table (but int64 / uint64, which the GPU never stores); a combination
//! whose members the GPU limits do not all report is run on the CPU only (to keep the case
//! valid) and skipped (the GPU builder would reject it with a TypeError), so the set grows as
//! the GPU backend claims more. Every test prints the combinations it ran and skipped.
//! Together with the WPT vectors run with `--device gpu`, these
//! make `gpu_op_coverage` report every reported combination executed:
//!
//! ```sh
//! rm -f /tmp/gcov
//! WEBNN_GPU_OP_COVERAGE=/tmp/gcov cargo test --release -p webnn --test gpu_vs_cpu
//! WEBNN_GPU_OP_COVERAGE=/tmp/gcov cargo test --release -p webnn --test gpu_op_coverage -- --ignored --nocapture
//! ```
//!
//! Without any wgpu adapter each test prints that it was skipped; with `WEBNN_REQUIRE_GPU=1`
//! a missing adapter fails instead.

use half::f16;
use std::collections::BTreeSet;
use webnn::*;
use webnn_core::testing::{ulp_f16, ulp_f32, Rng};
use DataType::*;
use OpKind::*;

// The harness, and the tests of each op family, in modules of their own (files beside this one).
mod compute;
mod elementwise;
mod harness;
mod movement;
use harness::*;

#[test]
fn every_op_has_a_differential_case() {
    let lists = [
        BINARY_OPS,
        COMPARISON_OPS,
        LOGICAL_OPS,
        UNARY_OPS,
        ACTIVATION_OPS,
        CAST_CLAMP_OPS,
        MATMUL_OPS,
        CONV_OPS,
        POOL_OPS,
        REDUCE_OPS,
        NORMALIZATION_OPS,
        MOVEMENT_OPS,
        GATHER_OPS,
        QUANTIZE_OPS,
        RECURRENT_OPS,
    ];
    let listed: BTreeSet<OpKind> = lists.iter().flat_map(|l| l.iter().copied()).collect();
    let missing: Vec<&OpKind> = OpKind::ALL.iter().filter(|op| !listed.contains(op)).collect();
    assert!(missing.is_empty(), "ops without a differential case: {missing:?}");
    assert_eq!(lists.iter().map(|l| l.len()).sum::<usize>(), OpKind::ALL.len(), "an op is listed twice");
}

// ---------------------------------------------------------------------------------------------
// Element-wise

//! The GPU context's coverage check: every op × operand slot × data type that a GPU context's
//! `opSupportLimits()` reports was executed on the GPU by at least one test (the record that
//! `WEBNN_GPU_OP_COVERAGE=FILE` makes the GPU backend write; see `webnn_core::coverage`):
//!
//! ```sh
//! WEBNN_GPU_OP_COVERAGE=/tmp/gcov cargo run --release -p webnn-conformance -- --device gpu ../shared/wpt
//! WEBNN_GPU_OP_COVERAGE=/tmp/gcov cargo test --release --workspace --test gpu_op_coverage -- --ignored
//! ```

use std::collections::{BTreeMap, BTreeSet};
use webnn::*;

#[test]
#[ignore = "reads the record of a whole GPU test run; see the file's doc comment"]
fn every_op_and_data_type_a_gpu_context_reports_was_executed() {
    let path = std::env::var("WEBNN_GPU_OP_COVERAGE").expect("set WEBNN_GPU_OP_COVERAGE to the record of a GPU run");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"));
    let context = ml()
        .create_context(&ContextOptions { device: DeviceChoice::Gpu, ..Default::default() })
        .expect("a GPU context (the record came from one)");
    let all = webnn_core::coverage::all_combinations(&context.op_support_limits());
    let executed: BTreeSet<&str> = text.lines().collect();
    let allowed: BTreeSet<&str> = all.iter().map(String::as_str).collect();
    let unexpected: Vec<&&str> = executed.difference(&allowed).collect();
    assert!(unexpected.is_empty(), "executed on the GPU but not in its limits: {unexpected:?}");
    let mut missing: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for combo in &all {
        if !executed.contains(combo.as_str()) {
            let (op, rest) = combo.split_once(' ').unwrap_or((combo, ""));
            missing.entry(op).or_default().push(rest);
        }
    }
    let ops: BTreeSet<&str> = all.iter().filter_map(|c| c.split(' ').next()).collect();
    println!(
        "gpu op coverage: {} of {} op x operand x data type combinations executed ({} ops) on {}",
        all.len() - missing.values().map(Vec::len).sum::<usize>(),
        all.len(),
        ops.len(),
        context.adapter_name().unwrap_or_default()
    );
    for (op, rest) in &missing {
        println!("  not executed: {op}: {}", rest.join(", "));
    }
    assert!(missing.is_empty(), "{} ops have reported combinations no test executed", missing.len());
}

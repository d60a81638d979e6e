//! The GPU context's coverage check: every op × operand slot × data type that a GPU context's
//! `opSupportLimits()` reports was executed on the GPU by at least one test (the record that
//! `WEBNN_GPU_OP_COVERAGE=FILE` makes the GPU backend write; see `webnn_core::coverage`):
//!
//! ```sh
//! WEBNN_GPU_OP_COVERAGE=/tmp/gcov cargo run --release -p webnn-conformance -- --device gpu ../shared/wpt
//! WEBNN_GPU_OP_COVERAGE=/tmp/gcov cargo test --release --workspace --test gpu_op_coverage -- --ignored
//! ```

use webnn::*;

#[test]
#[ignore = "reads the record of a whole GPU test run; see the file's doc comment"]
fn every_op_and_data_type_a_gpu_context_reports_was_executed() {
    let path = std::env::var("WEBNN_GPU_OP_COVERAGE").expect("set WEBNN_GPU_OP_COVERAGE to the record of a GPU run");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"));
    let context = ml()
        .create_context(&ContextOptions { device: DeviceChoice::Gpu, ..Default::default() })
        .expect("a GPU context (the record came from one)");
    let report = webnn_core::coverage::check(&text, &context.op_support_limits());
    assert!(report.unexpected.is_empty(), "executed on the GPU but not in its limits: {:?}", report.unexpected);
    println!("gpu op coverage on {}: {}", context.adapter_name().unwrap_or_default(), report.summary());
    assert!(report.missing.is_empty(), "{} ops have reported combinations no test executed", report.missing.len());
}

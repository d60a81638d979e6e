//! The coverage check: every op × operand slot × data type that `opSupportLimits()` reports was
//! executed by at least one test. It reads the record that the other tests wrote with
//! `WEBNN_OP_COVERAGE=FILE` set (see `webnn_core::coverage`), so it runs last and on request:
//!
//! ```sh
//! WEBNN_OP_COVERAGE=/tmp/cov cargo test --release --workspace
//! WEBNN_OP_COVERAGE=/tmp/cov cargo run --release -p webnn-conformance
//! WEBNN_OP_COVERAGE=/tmp/cov cargo test --release -p webnn-cpu --test op_coverage -- --ignored
//! ```

#[test]
#[ignore = "reads the record of a whole test run; see the file's doc comment"]
fn every_reported_op_and_data_type_was_executed() {
    let path = std::env::var("WEBNN_OP_COVERAGE").expect("set WEBNN_OP_COVERAGE to the record of a test run");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"));
    let report =
        webnn_core::coverage::check(&text, &webnn_core::OpSupportLimits::new(webnn_core::InputOperandLayout::Nchw));
    // Executed combinations the limits do not allow would mean the builder let one through.
    assert!(report.unexpected.is_empty(), "executed but not in the limits table: {:?}", report.unexpected);
    println!("op coverage: {}", report.summary());
    assert!(report.missing.is_empty(), "{} ops have combinations no test executed", report.missing.len());
}

//! The coverage check: every op × operand slot × data type that `opSupportLimits()` reports was
//! executed by at least one test. It reads the record that the other tests wrote with
//! `WEBNN_OP_COVERAGE=FILE` set (see `webnn_core::coverage`), so it runs last and on request:
//!
//! ```sh
//! WEBNN_OP_COVERAGE=/tmp/cov cargo test --release --workspace
//! WEBNN_OP_COVERAGE=/tmp/cov cargo run --release -p webnn-conformance
//! WEBNN_OP_COVERAGE=/tmp/cov cargo test --release -p webnn-cpu --test op_coverage -- --ignored
//! ```

use std::collections::{BTreeMap, BTreeSet};

#[test]
#[ignore = "reads the record of a whole test run; see the file's doc comment"]
fn every_reported_op_and_data_type_was_executed() {
    let path = std::env::var("WEBNN_OP_COVERAGE").expect("set WEBNN_OP_COVERAGE to the record of a test run");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"));
    let executed: BTreeSet<&str> = text.lines().collect();
    let all = webnn_core::coverage::all_combinations(&webnn_core::OpSupportLimits::new(webnn_core::InputOperandLayout::Nchw));
    let allowed: BTreeSet<&str> = all.iter().map(String::as_str).collect();
    // Executed combinations the limits do not allow would mean the builder let one through.
    let unexpected: Vec<&&str> = executed.difference(&allowed).collect();
    assert!(unexpected.is_empty(), "executed but not in the limits table: {unexpected:?}");

    let mut missing: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for combo in &all {
        if !executed.contains(combo.as_str()) {
            let (op, rest) = combo.split_once(' ').unwrap_or((combo, ""));
            missing.entry(op).or_default().push(rest);
        }
    }
    let ops: BTreeSet<&str> = all.iter().filter_map(|c| c.split(' ').next()).collect();
    println!(
        "op coverage: {} of {} op x operand x data type combinations executed ({} ops)",
        all.len() - missing.values().map(Vec::len).sum::<usize>(),
        all.len(),
        ops.len()
    );
    for (op, rest) in &missing {
        println!("  not executed: {op}: {}", rest.join(", "));
    }
    assert!(missing.is_empty(), "{} ops have combinations no test executed", missing.len());
}

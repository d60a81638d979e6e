//! Optional record of which op × operand slot × data type combinations were executed, for the
//! coverage check of the test suite (every combination `opSupportLimits()` reports must run in
//! at least one test).
//!
//! Set `WEBNN_OP_COVERAGE=FILE`: the first successful dispatch of every compiled graph appends
//! one line `op member dataType` per operand slot of each of its steps to FILE (the member names
//! are those of the op's `MLOpSupportLimits` dictionary). Without the variable nothing is
//! recorded and nothing is computed.

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;
use webnn_core::graph::Operation;
use webnn_core::{Graph, OpKind};

/// The file named by `WEBNN_OP_COVERAGE`, read once per process.
fn target() -> Option<&'static std::path::Path> {
    static TARGET: OnceLock<Option<std::path::PathBuf>> = OnceLock::new();
    TARGET
        .get_or_init(|| std::env::var_os("WEBNN_OP_COVERAGE").filter(|v| !v.is_empty()).map(Into::into))
        .as_deref()
}

/// Appends the `op member dataType` lines of one operation to `text`.
fn record(op: &Operation, graph: &Graph, text: &mut String) {
    let kind = op.kind.limits_kind();
    // concat's inputs and split's outputs are one member for every operand.
    let member = |names: &[&'static str], slot: usize| names.get(slot).or(names.last()).copied().unwrap_or("?");
    let inputs = op.inputs.iter().enumerate().filter_map(|(slot, id)| id.map(|id| (member(kind.inputs(), slot), id)));
    let outputs = op.outputs.iter().enumerate().map(|(slot, &id)| (member(kind.outputs(), slot), id));
    for (name, id) in inputs.chain(outputs) {
        text.push_str(&format!("{} {} {}\n", op.kind.idl_name(), name, graph.descriptor(id).data_type.as_str()));
    }
}

/// What one compiled graph will record after its first successful dispatch.
#[derive(Debug, Default)]
pub struct Coverage {
    lines: Option<String>,
    written: AtomicBool,
}

impl Coverage {
    /// The record of `graph`, or an empty one when `WEBNN_OP_COVERAGE` is not set.
    pub fn new(graph: &Graph) -> Self {
        let lines = target().map(|_| {
            let mut text = String::new();
            for op in &graph.operations {
                record(op, graph, &mut text);
            }
            text
        });
        Coverage { lines, written: AtomicBool::new(false) }
    }

    /// Appends the record to the file once (after a dispatch succeeded). Failures to write are
    /// ignored: coverage is a test aid and must never fail a dispatch.
    pub fn executed(&self) {
        let (Some(lines), Some(path)) = (&self.lines, target()) else { return };
        if self.written.swap(true, Ordering::Relaxed) {
            return;
        }
        // One write call per graph, in append mode, so records of concurrent processes do not
        // interleave within a line.
        if let Ok(mut file) = std::fs::OpenOptions::new().create(true).append(true).open(path) {
            let _ = file.write_all(lines.as_bytes());
        }
    }
}

/// Every `op member dataType` combination the support limits allow.
pub fn all_combinations() -> Vec<String> {
    let mut all = Vec::new();
    for op in OpKind::ALL {
        for (member, limits) in webnn_core::limits::op_limits(*op) {
            for t in limits.data_types {
                all.push(format!("{} {} {}", op.idl_name(), member, t.as_str()));
            }
        }
    }
    all
}

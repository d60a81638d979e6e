//! Optional record of which op × operand slot × data type combinations were executed, for the
//! coverage check of the test suite (every combination `opSupportLimits()` reports must run in
//! at least one test).
//!
//! Set `WEBNN_OP_COVERAGE=FILE` (the CPU backend) or `WEBNN_GPU_OP_COVERAGE=FILE` (the GPU
//! backend): the first successful dispatch of every compiled graph appends one line
//! `op member dataType` per operand slot of each of its operations to FILE (the member names
//! are those of the op's `MLOpSupportLimits` dictionary). Without the variable nothing is
//! recorded and nothing is computed: the variable is read once per process, and a dispatch of a
//! graph compiled without it pays one test. Backends call [`Coverage::new`] at compile and
//! [`Coverage::executed`] after a dispatch.

use crate::graph::{Graph, Operation};
use crate::limits::OpSupportLimits;
use crate::ops::OpKind;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

/// Which record a backend writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Record {
    /// `WEBNN_OP_COVERAGE`: the CPU backend.
    Cpu,
    /// `WEBNN_GPU_OP_COVERAGE`: the GPU backend.
    Gpu,
}

/// The file named by the record's variable, read once per process.
fn target(record: Record) -> Option<&'static std::path::Path> {
    static CPU: OnceLock<Option<std::path::PathBuf>> = OnceLock::new();
    static GPU: OnceLock<Option<std::path::PathBuf>> = OnceLock::new();
    let (cell, var) = match record {
        Record::Cpu => (&CPU, "WEBNN_OP_COVERAGE"),
        Record::Gpu => (&GPU, "WEBNN_GPU_OP_COVERAGE"),
    };
    cell.get_or_init(|| std::env::var_os(var).filter(|v| !v.is_empty()).map(Into::into)).as_deref()
}

/// Appends the `op member dataType` lines of one operation to `text`.
fn record_op(op: &Operation, graph: &Graph, text: &mut String) {
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
#[derive(Debug)]
pub struct Coverage {
    record: Record,
    lines: Option<String>,
    written: AtomicBool,
}

impl Coverage {
    /// The record of `graph`, or an empty one when the record's variable is not set.
    pub fn new(record: Record, graph: &Graph) -> Self {
        let lines = target(record).map(|_| {
            let mut text = String::new();
            for op in &graph.operations {
                record_op(op, graph, &mut text);
            }
            text
        });
        Coverage { record, lines, written: AtomicBool::new(false) }
    }

    /// Appends the record to the file once (after a dispatch succeeded). Failures to write are
    /// ignored: coverage is a test aid and must never fail a dispatch.
    pub fn executed(&self) {
        // Without the variable `lines` is None (decided at compile): a dispatch pays one test.
        let Some(lines) = &self.lines else { return };
        if self.written.load(Ordering::Relaxed) || self.written.swap(true, Ordering::Relaxed) {
            return;
        }
        let Some(path) = target(self.record) else { return };
        // One write call per graph, in append mode, so records of concurrent processes do not
        // interleave within a line.
        if let Ok(mut file) = std::fs::OpenOptions::new().create(true).append(true).open(path) {
            let _ = file.write_all(lines.as_bytes());
        }
    }
}

/// Every `op member dataType` combination `limits` allow.
pub fn all_combinations(limits: &OpSupportLimits) -> Vec<String> {
    let mut all = Vec::new();
    for op in OpKind::ALL {
        for (member, limits) in limits.op(*op) {
            for t in limits.data_types {
                all.push(format!("{} {} {}", op.idl_name(), member, t.as_str()));
            }
        }
    }
    all
}

/// What a coverage record shows against a context's limits ([`check`]).
#[derive(Debug, Default)]
pub struct Report {
    /// Reported combinations.
    pub total: usize,
    /// Reported combinations the record shows executed.
    pub executed: usize,
    /// Ops with at least one reported combination.
    pub ops: usize,
    /// Per op, the `member dataType` combinations reported but never executed.
    pub missing: std::collections::BTreeMap<String, Vec<String>>,
    /// Executed combinations the limits do not report (the builder let one through).
    pub unexpected: Vec<String>,
}

impl Report {
    /// True when every reported combination ran and nothing else did.
    pub fn is_complete(&self) -> bool {
        self.missing.is_empty() && self.unexpected.is_empty()
    }

    /// `N of M op x operand x data type combinations executed (K ops)`, then one line per op
    /// with combinations that never ran.
    pub fn summary(&self) -> String {
        let mut text = format!(
            "{} of {} op x operand x data type combinations executed ({} ops)",
            self.executed, self.total, self.ops
        );
        for (op, rest) in &self.missing {
            text.push_str(&format!("\n  not executed: {op}: {}", rest.join(", ")));
        }
        text
    }
}

/// Compares a coverage record (the text of the file a test run wrote) with the combinations
/// `limits` report.
pub fn check(record: &str, limits: &OpSupportLimits) -> Report {
    use std::collections::BTreeSet;
    let all = all_combinations(limits);
    let executed: BTreeSet<&str> = record.lines().collect();
    let allowed: BTreeSet<&str> = all.iter().map(String::as_str).collect();
    let mut report = Report {
        total: all.len(),
        unexpected: executed.difference(&allowed).map(|s| s.to_string()).collect(),
        ops: all.iter().filter_map(|c| c.split(' ').next()).collect::<BTreeSet<_>>().len(),
        ..Report::default()
    };
    for combo in &all {
        if executed.contains(combo.as_str()) {
            report.executed += 1;
        } else {
            let (op, rest) = combo.split_once(' ').unwrap_or((combo, ""));
            report.missing.entry(op.to_string()).or_default().push(rest.to_string());
        }
    }
    report
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::{DataType, InputOperandLayout};

    #[test]
    fn a_record_is_checked_against_the_limits() {
        let limits =
            OpSupportLimits::restricted(InputOperandLayout::Nchw, 1 << 20, &[DataType::Float32], |op, _, t| {
                op == OpKind::Relu && t == DataType::Float32
            });
        let full = "relu input float32\nrelu output float32\n";
        let report = check(full, &limits);
        assert!(report.is_complete(), "{}", report.summary());
        assert_eq!((report.total, report.executed, report.ops), (2, 2, 1));
        let report = check("relu input float32\nabs input int32\n", &limits);
        assert_eq!(report.unexpected, vec!["abs input int32".to_string()]);
        assert_eq!(report.missing["relu"], vec!["output float32".to_string()]);
        assert!(report.summary().ends_with("not executed: relu: output float32"), "{}", report.summary());
    }
}

//! The WPT conformance runner as a library: the mapping of one vector operator (`name` +
//! `argList`) to its `MLGraphBuilder` call ([`ops`]), the decoding of the vectors' JSON values
//! into tensor bytes ([`values`]), one case run through the public API ([`case`]) and one
//! vector file ([`run_file`]). The binary, the per-file tests (`tests/wpt.rs`) and the fuzzer
//! (`fuzz/`, target `builder_ops`) all go through them.

pub mod case;
pub mod compare;
pub mod errata;
pub mod ops;
pub mod values;

use std::path::Path;
use std::time::Instant;

/// One case's result: its name (`FILE: CASE`), outcome and run time in milliseconds.
pub struct CaseResult {
    /// `FILE: CASE`
    pub name: String,
    /// Pass, skip (with the reason) or fail (with what failed).
    pub outcome: case::Outcome,
    /// Wall time of the case (build, dispatch, read, compare).
    pub millis: f64,
}

/// Runs the cases of one vector file whose `FILE: CASE` name `keep` accepts, in file order. A
/// file that cannot be read or parsed is one failed case named after the file; a case that
/// panics fails.
pub fn run_file(context: &webnn::Context, path: &Path, keep: impl Fn(&str) -> bool) -> Vec<CaseResult> {
    let file_name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let failed =
        |msg: String| vec![CaseResult { name: file_name.clone(), outcome: case::Outcome::Fail(msg), millis: 0.0 }];
    let json: serde_json::Value = match std::fs::read_to_string(path) {
        Err(e) => return failed(format!("cannot read: {e}")),
        Ok(text) => match serde_json::from_str(&text) {
            Ok(json) => json,
            Err(e) => return failed(format!("bad JSON: {e}")),
        },
    };
    let cases = json["cases"].as_array().map(Vec::as_slice).unwrap_or_default();
    let mut results = Vec::with_capacity(cases.len());
    for case in cases {
        let name = format!("{file_name}: {}", case["name"].as_str().unwrap_or("?"));
        if !keep(&name) {
            continue;
        }
        let start = Instant::now();
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| case::run(context, &file_name, case)))
            .unwrap_or_else(|_| case::Outcome::Fail("panicked".into()));
        results.push(CaseResult { name, outcome, millis: start.elapsed().as_secs_f64() * 1e3 });
    }
    results
}

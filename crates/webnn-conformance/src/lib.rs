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

/// The outcome of every case of one vector file, in file order, by case name. A file that
/// cannot be read or parsed is one failed case named after the file.
pub fn run_file(context: &webnn::Context, path: &Path) -> Vec<(String, case::Outcome)> {
    let file_name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let json: serde_json::Value = match std::fs::read_to_string(path) {
        Err(e) => return vec![(file_name, case::Outcome::Fail(format!("cannot read: {e}")))],
        Ok(text) => match serde_json::from_str(&text) {
            Ok(json) => json,
            Err(e) => return vec![(file_name, case::Outcome::Fail(format!("bad JSON: {e}")))],
        },
    };
    let cases = json["cases"].as_array().map(Vec::as_slice).unwrap_or_default();
    cases
        .iter()
        .map(|case| {
            let name = case["name"].as_str().unwrap_or("?").to_string();
            let outcome =
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| case::run(context, &file_name, case)))
                    .unwrap_or_else(|_| case::Outcome::Fail("panicked".into()));
            (name, outcome)
        })
        .collect()
}

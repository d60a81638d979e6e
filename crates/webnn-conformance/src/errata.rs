//! Known errors in the vectors (`errata.json`): single expected elements that contradict the
//! spec's math, each with the corrected value computed independently in f64 from the case's own
//! inputs and the reason. The runner prints every erratum, then compares those elements with
//! the corrected value at the case's unchanged tolerance; nothing else about the case changes.

use serde_json::Value;
use std::sync::OnceLock;

/// One corrected element.
pub struct Erratum {
    /// Vector file.
    pub file: String,
    /// Case name.
    pub case: String,
    /// Output name.
    pub output: String,
    /// Element index in the output.
    pub index: usize,
    /// The vector's value.
    pub vector: f64,
    /// The corrected value.
    pub corrected: f64,
    /// Why (with the math).
    pub reason: String,
}

/// Every erratum.
pub fn all() -> &'static [Erratum] {
    static ERRATA: OnceLock<Vec<Erratum>> = OnceLock::new();
    ERRATA.get_or_init(|| {
        let json: Value = serde_json::from_str(include_str!("../errata.json")).unwrap_or(Value::Null);
        json.as_array()
            .map(|list| {
                list.iter()
                    .map(|e| Erratum {
                        file: e["file"].as_str().unwrap_or_default().into(),
                        case: e["case"].as_str().unwrap_or_default().into(),
                        output: e["output"].as_str().unwrap_or_default().into(),
                        index: e["index"].as_u64().unwrap_or(u64::MAX) as usize,
                        vector: e["vector"].as_f64().unwrap_or(f64::NAN),
                        corrected: e["corrected"].as_f64().unwrap_or(f64::NAN),
                        reason: e["reason"].as_str().unwrap_or_default().into(),
                    })
                    .collect()
            })
            .unwrap_or_default()
    })
}

/// The expected data of one output with errata applied. An erratum only applies if the
/// vector still holds the value it corrects (so a fixed vector is compared as it is).
pub fn corrected(file: &str, case: &str, output: &str, data: &Value) -> Value {
    let mut data = data.clone();
    for e in all().iter().filter(|e| e.file == file && e.case == case && e.output == output) {
        if let Some(item) = data.as_array_mut().and_then(|a| a.get_mut(e.index)) {
            if item.as_f64() == Some(e.vector) {
                *item = Value::from(e.corrected);
            }
        }
    }
    data
}

#[cfg(test)]
mod tests {
    #[test]
    fn errata_parse_and_every_entry_has_a_reason() {
        let all = super::all();
        assert_eq!(all.len(), 9);
        assert!(all.iter().all(|e| !e.reason.is_empty() && e.corrected.is_finite() && e.vector.is_finite()));
    }
}

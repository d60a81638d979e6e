//! The registry of the operators the importer maps. Each family module (`elementwise`, `nn`,
//! `reduce`...) declares its operators next to its importer as a table of [`OnnxOp`] rows —
//! names, accepted attributes, input count and the function that imports them — and
//! everything else is derived from those rows: [`supported_operators`], the checks [`check`]
//! runs before a node is built, and the dispatch to the importer. A node whose operator or
//! any attribute is not listed is unsupported before anything is built; attribute values are
//! checked when the node is imported.

use super::{elementwise, fold, nn, quant, reduce, resize, rnn, shape_ops};
use super::{unsupported, Ctx, Importer, NResult, Value};
use crate::proto::AttributeProto;

/// The function importing one node of a registered operator.
pub(crate) type ImportFn = fn(&mut Importer, &Ctx) -> NResult<Vec<Value>>;

/// One registration: default-domain operators sharing their accepted attributes, input count
/// and importer.
#[derive(Clone, Copy)]
pub(crate) struct OnnxOp {
    /// The ONNX operator names (`op_type`).
    pub names: &'static [&'static str],
    /// The attributes they may carry; any other attribute makes the node unsupported.
    pub attributes: &'static [&'static str],
    /// How many inputs (present or empty-named optional ones) they take: (min, max).
    pub inputs: (usize, usize),
    /// The importer a node of them dispatches to (after constant folding, which may compute
    /// the node first).
    pub import: ImportFn,
}

impl OnnxOp {
    /// Operators imported by `import`, with no attributes and one input.
    pub const fn new(names: &'static [&'static str], import: ImportFn) -> OnnxOp {
        OnnxOp { names, attributes: &[], inputs: (1, 1), import }
    }

    /// The same registration accepting `attributes`.
    pub const fn attributes(self, attributes: &'static [&'static str]) -> OnnxOp {
        OnnxOp { attributes, ..self }
    }

    /// The same registration taking `min..=max` inputs.
    pub const fn inputs(self, min: usize, max: usize) -> OnnxOp {
        OnnxOp { inputs: (min, max), ..self }
    }
}

/// Every family's registrations.
const FAMILIES: &[&[OnnxOp]] =
    &[elementwise::OPS, fold::OPS, nn::OPS, reduce::OPS, shape_ops::OPS, resize::OPS, quant::OPS, rnn::OPS];

/// Every registration, family by family.
fn registrations() -> impl Iterator<Item = &'static OnnxOp> {
    FAMILIES.iter().flat_map(|family| family.iter())
}

/// The registration of `op` (default domain), or `None` if the operator is not mapped.
pub(crate) fn find(op: &str) -> Option<&'static OnnxOp> {
    registrations().find(|r| r.names.contains(&op))
}

/// Every operator of the default domain the importer maps, with the attributes it accepts,
/// sorted by name.
pub fn supported_operators() -> Vec<(&'static str, &'static [&'static str])> {
    let mut ops: Vec<_> = registrations().flat_map(|r| r.names.iter().map(|&name| (name, r.attributes))).collect();
    ops.sort_unstable_by_key(|&(name, _)| name);
    ops
}

/// Checks the operator and attribute names of a node and its input count, and returns the
/// operator's registration.
pub(crate) fn check(op: &str, domain: &str, attributes: &[AttributeProto], inputs: usize) -> NResult<&'static OnnxOp> {
    if !(domain.is_empty() || domain == "ai.onnx") {
        return Err(unsupported(format!(
            "operator domain '{domain}' is not supported (only the default ai.onnx domain)"
        )));
    }
    let Some(registration) = find(op) else {
        return Err(unsupported(format!("operator {op} has no WebNN mapping")));
    };
    let known = registration.attributes;
    let unknown: Vec<&str> =
        attributes.iter().map(|a| a.name.as_deref().unwrap_or("")).filter(|n| !known.contains(n)).collect();
    if !unknown.is_empty() {
        return Err(unsupported(format!("attribute(s) {} of {op} are not supported", unknown.join(", "))));
    }
    let (min, max) = registration.inputs;
    if inputs < min || inputs > max {
        return Err(super::invalid(format!("{op} takes {min}..={max} inputs, not {inputs}")));
    }
    Ok(registration)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_operator_is_registered_once() {
        let ops = supported_operators();
        for pair in ops.windows(2) {
            assert_ne!(pair[0].0, pair[1].0, "{} is registered twice", pair[0].0);
        }
        assert!(ops.len() > 100, "only {} operators registered", ops.len());
    }

    #[test]
    fn registrations_are_well_formed() {
        for r in registrations() {
            assert!(!r.names.is_empty());
            assert!(r.inputs.0 <= r.inputs.1, "{:?} takes {:?} inputs", r.names, r.inputs);
            for (i, a) in r.attributes.iter().enumerate() {
                assert!(!r.attributes[..i].contains(a), "{:?} lists attribute {a} twice", r.names);
            }
        }
    }

    #[test]
    fn check_reports_the_unmapped_operator_attribute_and_input_count() {
        let attr = |name: &str| AttributeProto { name: Some(name.into()), ..Default::default() };
        let msg = |r: NResult<&OnnxOp>| r.err().map(|e| e.msg).unwrap_or_default();
        assert_eq!(msg(check("NoSuchOp", "", &[], 1)), "operator NoSuchOp has no WebNN mapping");
        assert_eq!(
            msg(check("Relu", "com.example", &[], 1)),
            "operator domain 'com.example' is not supported (only the default ai.onnx domain)"
        );
        assert_eq!(msg(check("Relu", "", &[attr("alpha")], 1)), "attribute(s) alpha of Relu are not supported");
        assert_eq!(msg(check("Add", "ai.onnx", &[], 3)), "Add takes 2..=2 inputs, not 3");
        assert!(check("LeakyRelu", "", &[attr("alpha")], 1).is_ok());
        assert!(check("Conv", "", &[attr("group"), attr("pads")], 3).is_ok());
    }
}

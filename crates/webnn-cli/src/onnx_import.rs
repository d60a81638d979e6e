//! Importing an ONNX model with `crates/webnn-onnx` into a graph builder, and the importer's
//! errors as the CLI reports them. (`inspect` also reads the model's protobuf messages through
//! `webnn_onnx::proto`, and `model` parses `--shape` with `webnn_onnx::parse_shape_override`.)

use crate::loaded::LoadedModel;
use std::path::Path;

/// Import failed because of these nodes: `(op_type, unsupported)` per failing node, where
/// `unsupported` means the operator (or an attribute or use of it) has no WebNN mapping, and
/// false means a mapped node failed. `inspect` reads this to say which operators map.
#[derive(Debug, Clone, PartialEq)]
pub struct NodeFailures {
    /// The failing nodes' operator types and whether each is unsupported.
    pub nodes: Vec<(String, bool)>,
    /// The importer's message.
    pub message: String,
}

impl std::fmt::Display for NodeFailures {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for NodeFailures {}

/// Imports the ONNX model at `path` into `builder`, with `shapes` (parsed `--shape` arguments)
/// fixing the free dimensions of the inputs (by input name or by symbolic dimension name).
pub fn import(
    path: &Path,
    builder: &mut webnn::GraphBuilder,
    shapes: &[(String, Vec<u32>)],
) -> anyhow::Result<LoadedModel> {
    use anyhow::{anyhow, Context as _};
    let model = webnn_onnx::OnnxModel::load(path).map_err(|e| anyhow!("{e}"))?;
    let shape_overrides = shapes.iter().cloned().collect();
    let options = webnn_onnx::ImportOptions { shape_overrides, ..Default::default() };
    let imported = webnn_onnx::import(&model, builder.core_mut(), &options)
        .map_err(|e| match &e {
            webnn_onnx::OnnxError::Nodes(nodes) => anyhow::Error::new(NodeFailures {
                nodes: nodes
                    .iter()
                    .map(|n| (n.op_type.clone(), n.kind == webnn_onnx::NodeErrorKind::Unsupported))
                    .collect(),
                message: e.to_string(),
            }),
            _ => anyhow!("{e}"),
        })
        .with_context(|| format!("cannot import {}", path.display()))?;
    Ok(LoadedModel {
        inputs: imported.inputs.into_iter().map(|i| (i.name, i.descriptor)).collect(),
        outputs: imported.outputs.into_iter().map(|o| (o.name, o.operand)).collect(),
    })
}

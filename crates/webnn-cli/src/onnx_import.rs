//! THE integration point with the ONNX importer (`crates/webnn-onnx`): the only code that
//! names `webnn_onnx`. Compiled in with the cargo feature `onnx` (see Cargo.toml); without it,
//! ONNX models are refused with a clear message and built-in models still work.

use crate::model::LoadedModel;
use std::path::Path;

/// Imports the ONNX model at `path` into `builder`, with `shapes` (`NAME=DIMS` strings) fixing
/// the free dimensions of the inputs.
#[cfg(feature = "onnx")]
pub fn import(path: &Path, builder: &mut webnn::webnn_core::GraphBuilder, shapes: &[String]) -> anyhow::Result<LoadedModel> {
    use anyhow::{anyhow, Context as _};
    let model = webnn_onnx::OnnxModel::load(path)
        .map_err(|e| anyhow!("{e}"))
        .with_context(|| format!("cannot load {}", path.display()))?;
    let shape_overrides = shapes
        .iter()
        .map(|s| webnn_onnx::parse_shape_override(s).map_err(|e| anyhow!("--shape {s}: {e}")))
        .collect::<anyhow::Result<_>>()?;
    let options = webnn_onnx::ImportOptions { shape_overrides, ..Default::default() };
    let imported = webnn_onnx::import(&model, builder, &options)
        .map_err(|e| anyhow!("{e}"))
        .with_context(|| format!("cannot import {}", path.display()))?;
    Ok(LoadedModel { inputs: imported.inputs, outputs: imported.outputs })
}

/// Without the `onnx` feature: a clear error.
#[cfg(not(feature = "onnx"))]
pub fn import(path: &Path, _builder: &mut webnn::webnn_core::GraphBuilder, _shapes: &[String]) -> anyhow::Result<LoadedModel> {
    anyhow::bail!(
        "{}: this webnn binary was built without the ONNX importer (cargo feature `onnx`); \
         built-in models work: webnn builtins",
        path.display()
    )
}

/// True if this binary can import ONNX models.
pub const AVAILABLE: bool = cfg!(feature = "onnx");

//! Loading a model (ONNX file or built-in) into a graph builder, compiling it, and running it
//! with tensors: what `run`, `bench` and `inspect` share.

use crate::loaded::LoadedModel;
use crate::npy;
use crate::{builtin, fill, onnx_import};
use anyhow::{anyhow, bail, Context as _, Result};
use std::path::{Path, PathBuf};
use std::time::Instant;
use webnn::{
    Context, ContextOptions, DeviceChoice, Graph, GraphBuilder, Operand, OperandDescriptor, Tensor, TensorDescriptor,
};

/// Where a model comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum ModelSource {
    /// An ONNX file.
    Onnx(PathBuf),
    /// A built-in model by name.
    Builtin(String),
}

impl ModelSource {
    /// A short name for reports.
    pub fn display_name(&self) -> String {
        match self {
            ModelSource::Onnx(p) => p.display().to_string(),
            ModelSource::Builtin(n) => format!("builtin:{n}"),
        }
    }
}

/// Adds the model to `builder`. `shapes` are `--shape NAME=DIMS` arguments.
pub fn load(source: &ModelSource, builder: &mut GraphBuilder, shapes: &[String]) -> Result<LoadedModel> {
    let shapes = parse_shapes(shapes)?;
    match source {
        ModelSource::Onnx(path) => onnx_import::import(path, builder, &shapes),
        ModelSource::Builtin(name) => builtin::build(name, builder, &shapes),
    }
}

/// Parses `--shape NAME=DIMS` arguments (DIMS like `1x3x224x224` or `1,3,224,224`; an empty
/// DIMS is a scalar) with the ONNX importer's parser, [`webnn_onnx::parse_shape_override`],
/// for ONNX and built-in models alike.
pub fn parse_shapes(specs: &[String]) -> Result<Vec<(String, Vec<u32>)>> {
    specs
        .iter()
        .map(|s| {
            webnn_onnx::parse_shape_override(s).map_err(|e| match e {
                // Its message names the override; "invalid ONNX model" would mislead here.
                webnn_onnx::OnnxError::Invalid(message) => anyhow!("--shape {s}: {message}"),
                e => anyhow!("--shape {s}: {e}"),
            })
        })
        .collect()
}

/// A compiled model with its tensors, ready to dispatch.
pub struct Session {
    /// The context it runs on.
    pub context: Context,
    /// The compiled graph.
    pub graph: Graph,
    /// Input names, descriptors and tensors, in the graph's order.
    pub inputs: Vec<(String, OperandDescriptor, Tensor)>,
    /// Output names, descriptors and tensors, in the graph's order.
    pub outputs: Vec<(String, OperandDescriptor, Tensor)>,
    /// "cpu", or "gpu: " and the adapter's name.
    pub device_name: String,
    /// Milliseconds spent importing or constructing the model with the builder.
    pub load_ms: f64,
    /// Milliseconds spent in `build()` (validation and backend compilation).
    pub build_ms: f64,
}

impl Session {
    /// Loads, builds and allocates tensors for `source` on a new context.
    pub fn new(
        source: &ModelSource,
        shapes: &[String],
        threads: Option<usize>,
        device: DeviceChoice,
    ) -> Result<Session> {
        let context = webnn::ml()
            .create_context(&ContextOptions { threads, device, ..Default::default() })
            .context("cannot create a context")?;
        let device_name = context.adapter_name().map_or_else(|| "cpu".to_string(), |a| format!("gpu: {a}"));
        let mut builder = GraphBuilder::new(&context)?;
        let start = Instant::now();
        let model = load(source, &mut builder, shapes)?;
        let load_ms = ms(start);
        let start = Instant::now();
        let outputs: Vec<(&str, &Operand)> = model.outputs.iter().map(|(n, o)| (n.as_str(), o)).collect();
        let graph = builder
            .build(&outputs)
            .with_context(|| format!("cannot build {} for the {device_name} backend", source.display_name()))?;
        let build_ms = ms(start);
        let tensor = |desc: &OperandDescriptor, input: bool| {
            context.create_tensor(
                &TensorDescriptor::new(desc.data_type, desc.shape.clone()).writable(input).readable(!input),
            )
        };
        let inputs = graph
            .input_descriptors()
            .iter()
            .map(|(n, d)| Ok((n.clone(), d.clone(), tensor(d, true)?)))
            .collect::<Result<Vec<_>>>()?;
        let outputs = graph
            .output_descriptors()
            .iter()
            .map(|(n, d)| Ok((n.clone(), d.clone(), tensor(d, false)?)))
            .collect::<Result<Vec<_>>>()?;
        Ok(Session { context, graph, inputs, outputs, device_name, load_ms, build_ms })
    }

    /// Writes input `index`.
    pub fn write_input(&self, index: usize, bytes: &[u8]) -> Result<()> {
        let (name, _, tensor) = self.inputs.get(index).ok_or_else(|| anyhow!("no input #{index}"))?;
        self.context.write_tensor(tensor, bytes).with_context(|| format!("cannot write input '{name}'"))
    }

    /// Writes every input: from its .npy file if `given` names one, else filled by the rule
    /// of [`crate::fill`]. A given name that is not an input is an error.
    pub fn write_inputs(&self, given: &[(String, PathBuf)]) -> Result<()> {
        if let Some((name, _)) = given.iter().find(|(n, _)| !self.inputs.iter().any(|(m, _, _)| m == n)) {
            bail!(
                "--input {name}: the model has no such input (inputs: {})",
                self.inputs.iter().map(|(n, _, _)| n.as_str()).collect::<Vec<_>>().join(", ")
            );
        }
        for (i, (name, desc, _)) in self.inputs.iter().enumerate() {
            let bytes = match given.iter().find(|(n, _)| n == name) {
                Some((_, path)) => input_from_npy(name, desc, path)?,
                None => fill::input_bytes(name, desc),
            };
            self.write_input(i, &bytes)?;
        }
        Ok(())
    }

    /// Dispatches once and waits for every output; returns their bytes.
    pub fn run(&self) -> Result<Vec<Vec<u8>>> {
        let inputs: Vec<(&str, &Tensor)> = self.inputs.iter().map(|(n, _, t)| (n.as_str(), t)).collect();
        let outputs: Vec<(&str, &Tensor)> = self.outputs.iter().map(|(n, _, t)| (n.as_str(), t)).collect();
        self.context.dispatch(&self.graph, &inputs, &outputs).context("dispatch failed")?;
        self.outputs
            .iter()
            .map(|(n, _, t)| self.context.read_tensor(t).wait().with_context(|| format!("cannot read output '{n}'")))
            .collect()
    }

    /// Dispatches once and waits, reading the outputs into `buffers` (no allocation).
    pub fn run_into(&self, buffers: &mut [Vec<u8>]) -> Result<()> {
        let inputs: Vec<(&str, &Tensor)> = self.inputs.iter().map(|(n, _, t)| (n.as_str(), t)).collect();
        let outputs: Vec<(&str, &Tensor)> = self.outputs.iter().map(|(n, _, t)| (n.as_str(), t)).collect();
        self.context.dispatch(&self.graph, &inputs, &outputs).context("dispatch failed")?;
        for ((n, _, t), buf) in self.outputs.iter().zip(buffers.iter_mut()) {
            self.context.read_tensor_into(t, buf).with_context(|| format!("cannot read output '{n}'"))?;
        }
        Ok(())
    }
}

/// Parses `NAME=FILE.npy` arguments.
pub fn parse_inputs(specs: &[String]) -> Result<Vec<(String, PathBuf)>> {
    let mut given: Vec<(String, PathBuf)> = Vec::new();
    for spec in specs {
        let (name, file) = spec.split_once('=').ok_or_else(|| anyhow!("--input {spec}: expected NAME=FILE.npy"))?;
        if given.iter().any(|(n, _)| n == name) {
            bail!("--input {name} is given twice");
        }
        given.push((name.to_string(), PathBuf::from(file)));
    }
    Ok(given)
}

/// The bytes of input `name` from a .npy file, which must match the input's data type (bool
/// files feed uint8 inputs) and shape.
fn input_from_npy(name: &str, desc: &OperandDescriptor, path: &Path) -> Result<Vec<u8>> {
    let array = npy::read(path).with_context(|| format!("--input {name}"))?;
    if array.dtype.data_type() != desc.data_type {
        bail!(
            "--input {name}: {} holds {} but the input is {}",
            path.display(),
            array.dtype.descr(),
            desc.data_type.as_str()
        );
    }
    let shape: Vec<u64> = array.shape.iter().map(|&d| d as u64).collect();
    let expected: Vec<u64> = desc.shape.iter().map(|&d| d as u64).collect();
    if shape != expected {
        bail!(
            "--input {name}: {} has shape {:?} but the input has shape {:?} (fix free dimensions with --shape)",
            path.display(),
            array.shape,
            desc.shape
        );
    }
    Ok(array.data)
}

/// Milliseconds since `start`.
pub fn ms(start: Instant) -> f64 {
    start.elapsed().as_secs_f64() * 1e3
}

/// A file name for output `name`: characters other than ASCII letters, digits, `.`, `-` and
/// `_` become `_` (ONNX names may hold `/` or `:`). bench/compare.py applies the same rule.
pub fn file_stem(name: &str) -> String {
    let s: String =
        name.chars().map(|c| if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') { c } else { '_' }).collect();
    if s.is_empty() || s.chars().all(|c| c == '.') {
        format!("_{s}")
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shape_overrides_parse() {
        let parse = |s: &str| parse_shapes(&[s.to_string()]).map(|mut v| v.remove(0));
        assert_eq!(parse("x=1x3x224x224").unwrap(), ("x".to_string(), vec![1, 3, 224, 224]));
        assert_eq!(parse("input_ids=1,128").unwrap(), ("input_ids".to_string(), vec![1, 128]));
        assert_eq!(parse("a=b=2").unwrap(), ("a=b".to_string(), vec![2]));
        assert_eq!(parse("s=").unwrap(), ("s".to_string(), vec![]));
        for bad in ["x", "=1x2", "x=1xx2", "x=-1", "x=0", "x=1x99999999999", "x=ax2"] {
            let e = parse(bad).unwrap_err().to_string();
            assert!(e.starts_with(&format!("--shape {bad}: shape override '{bad}'")), "{e}");
        }
        assert_eq!(parse_shapes(&["a=1".into(), "b=2x3".into()]).unwrap().len(), 2);
    }

    #[test]
    fn output_file_names_are_safe() {
        assert_eq!(file_stem("logits"), "logits");
        assert_eq!(file_stem("output/0:0"), "output_0_0");
        assert_eq!(file_stem("a b.c-d_e"), "a_b.c-d_e");
        assert_eq!(file_stem(".."), "_..");
        assert_eq!(file_stem(""), "_");
        assert_eq!(file_stem("é"), "_");
    }
}

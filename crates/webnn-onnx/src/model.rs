//! [`OnnxModel`]: a parsed `.onnx` file and what can be asked of it before importing.

use crate::error::{OnnxError, Result};
use crate::proto::{tensor_shape_proto::dimension, type_proto, ModelProto, ValueInfoProto};
use crate::tensor::ElemType;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// A parsed ONNX model: the protobuf message plus the directory its external data files are
/// read from.
#[derive(Debug, Clone)]
pub struct OnnxModel {
    pub(crate) proto: ModelProto,
    pub(crate) base_dir: Option<PathBuf>,
}

/// One dimension of a graph input as the model declares it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Dim {
    /// A fixed size (`dim_value`).
    Fixed(u64),
    /// A symbolic size (`dim_param`), bound by a shape override or the batch default.
    Symbolic(String),
    /// Neither a value nor a name.
    Unknown,
}

impl std::fmt::Display for Dim {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Dim::Fixed(v) => write!(f, "{v}"),
            Dim::Symbolic(s) => f.write_str(s),
            Dim::Unknown => f.write_str("?"),
        }
    }
}

/// A graph input (initializers excluded) or output as the model declares it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputInfo {
    /// The input's name.
    pub name: String,
    /// The ONNX element type code (`TensorProto.DataType`); `None` if the input is not a
    /// tensor.
    pub elem_type: Option<i32>,
    /// The declared dimensions; `None` if no shape is declared.
    pub dims: Option<Vec<Dim>>,
}

impl InputInfo {
    /// The element type, if the importer can hold it.
    pub fn elem(&self) -> Option<ElemType> {
        self.elem_type.and_then(ElemType::from_onnx)
    }
}

impl OnnxModel {
    /// Reads and parses an `.onnx` file; external data files are looked up next to it.
    pub fn load(path: impl AsRef<Path>) -> Result<OnnxModel> {
        let path = path.as_ref();
        let bytes = std::fs::read(path)
            .map_err(|e| OnnxError::Io { path: path.display().to_string(), message: e.to_string() })?;
        let base = path.parent().map(|p| if p.as_os_str().is_empty() { Path::new(".") } else { p });
        OnnxModel::from_bytes(&bytes, base)
    }

    /// Parses the bytes of an `.onnx` file. `base_dir` is the directory external data files
    /// are read from (`None`: a model with external data fails to import).
    pub fn from_bytes(bytes: &[u8], base_dir: Option<&Path>) -> Result<OnnxModel> {
        let proto = ModelProto::from_bytes(bytes)?;
        let model = OnnxModel { proto, base_dir: base_dir.map(Path::to_path_buf) };
        let Some(graph) = &model.proto.graph else {
            return Err(OnnxError::Invalid("the model has no graph".into()));
        };
        if graph.output.is_empty() {
            return Err(OnnxError::Invalid("the graph has no outputs".into()));
        }
        Ok(model)
    }

    /// The protobuf message.
    pub fn proto(&self) -> &ModelProto {
        &self.proto
    }

    /// The directory external data files are read from.
    pub fn base_dir(&self) -> Option<&Path> {
        self.base_dir.as_deref()
    }

    /// The `ir_version` field.
    pub fn ir_version(&self) -> i64 {
        self.proto.ir_version.unwrap_or(0)
    }

    /// The `producer_name` field.
    pub fn producer(&self) -> &str {
        self.proto.producer_name.as_deref().unwrap_or("")
    }

    /// The version of an imported operator set (`""` or `"ai.onnx"` for the default domain).
    pub fn opset_version(&self, domain: &str) -> Option<i64> {
        let is_default = |d: &str| d.is_empty() || d == "ai.onnx";
        self.proto
            .opset_import
            .iter()
            .find(|o| {
                let d = o.domain.as_deref().unwrap_or("");
                d == domain || (is_default(d) && is_default(domain))
            })
            .map(|o| o.version.unwrap_or(0))
    }

    /// The graph's real inputs (those not also given as initializers), in order.
    pub fn inputs(&self) -> Vec<InputInfo> {
        let Some(graph) = &self.proto.graph else {
            return Vec::new();
        };
        let inits: HashSet<&str> = graph.initializer.iter().filter_map(|t| t.name.as_deref()).collect();
        graph.input.iter().filter(|i| !inits.contains(i.name.as_deref().unwrap_or(""))).map(input_info).collect()
    }

    /// The graph's outputs as declared (name, element type, dimensions), in order.
    pub fn outputs(&self) -> Vec<InputInfo> {
        self.proto.graph.as_ref().map_or_else(Vec::new, |g| g.output.iter().map(input_info).collect())
    }

    /// The names of the graph's outputs, in order.
    pub fn output_names(&self) -> Vec<String> {
        let Some(graph) = &self.proto.graph else {
            return Vec::new();
        };
        graph.output.iter().map(|o| o.name.clone().unwrap_or_default()).collect()
    }
}

/// What a `ValueInfoProto` says of a tensor input.
pub(crate) fn input_info(v: &ValueInfoProto) -> InputInfo {
    let name = v.name.clone().unwrap_or_default();
    let tensor = match v.r#type.as_ref().and_then(|t| t.value.as_ref()) {
        Some(type_proto::Value::TensorType(t)) => t,
        _ => return InputInfo { name, elem_type: None, dims: None },
    };
    let dims = tensor.shape.as_ref().map(|s| {
        s.dim
            .iter()
            .map(|d| match &d.value {
                Some(dimension::Value::DimValue(v)) if *v > 0 => Dim::Fixed(*v as u64),
                Some(dimension::Value::DimParam(p)) if !p.is_empty() => Dim::Symbolic(p.clone()),
                _ => Dim::Unknown,
            })
            .collect()
    });
    InputInfo { name, elem_type: Some(tensor.elem_type.unwrap_or(0)), dims }
}

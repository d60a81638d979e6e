//! The importer's error type and its conversion to [`webnn_core::Error`].

use std::fmt;
use webnn_core::ErrorKind;

/// Why one node could not be imported.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeErrorKind {
    /// The operator, one of its attributes, or the way it is used (a data type, a
    /// runtime-computed parameter) has no WebNN mapping in this importer.
    Unsupported,
    /// The node breaks the ONNX specification (wrong input count, bad attribute value...).
    Invalid,
    /// A `GraphBuilder` call failed; the kind is the builder error's kind.
    Builder(ErrorKind),
}

/// One node that could not be imported.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeError {
    /// The node's `op_type` (with its domain when not the default one).
    pub op_type: String,
    /// The node's name, or `#<index>` when the node has none.
    pub node: String,
    /// What kind of failure this is.
    pub kind: NodeErrorKind,
    /// What was wrong.
    pub message: String,
}

impl fmt::Display for NodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.kind {
            NodeErrorKind::Unsupported => "unsupported".to_string(),
            NodeErrorKind::Invalid => "invalid".to_string(),
            NodeErrorKind::Builder(k) => k.name().to_string(),
        };
        write!(f, "{} node '{}' ({what}): {}", self.op_type, self.node, self.message)
    }
}

/// An error of the ONNX importer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OnnxError {
    /// A file could not be read.
    #[error("cannot read '{path}': {message}")]
    Io {
        /// The file.
        path: String,
        /// The operating system's message.
        message: String,
    },
    /// The bytes are not a valid ONNX protobuf message (truncated, corrupt, inconsistent
    /// tensor sizes...).
    #[error("malformed ONNX data: {0}")]
    Malformed(String),
    /// The model is well-formed protobuf but not a valid ONNX model (missing graph, dangling
    /// value names...), or an import option does not fit it (bad shape override).
    #[error("invalid ONNX model: {0}")]
    Invalid(String),
    /// A model-level feature the importer does not support (opset version, data type of a
    /// graph input, sparse initializers...).
    #[error("unsupported ONNX model: {0}")]
    Unsupported(String),
    /// Every node that could not be imported (all of them are listed, not only the first).
    #[error("{}", format_nodes(.0))]
    Nodes(Vec<NodeError>),
}

fn format_nodes(nodes: &[NodeError]) -> String {
    let unsupported = nodes.iter().filter(|n| n.kind == NodeErrorKind::Unsupported).count();
    let mut s = format!(
        "{} node(s) could not be imported ({unsupported} unsupported, {} failed):",
        nodes.len(),
        nodes.len() - unsupported
    );
    for n in nodes {
        s.push_str("\n  ");
        s.push_str(&n.to_string());
    }
    s
}

impl OnnxError {
    /// True when the model only failed for lack of support (unsupported operators,
    /// attributes, data types or model features), never because it is malformed or because a
    /// supported mapping failed.
    pub fn is_unsupported(&self) -> bool {
        match self {
            OnnxError::Unsupported(_) => true,
            OnnxError::Nodes(nodes) => nodes.iter().all(|n| n.kind == NodeErrorKind::Unsupported),
            _ => false,
        }
    }

    /// The spec exception kind this error maps to: NotSupportedError for unsupported features,
    /// the builder's kind for a failed builder call, TypeError otherwise.
    pub fn kind(&self) -> ErrorKind {
        match self {
            _ if self.is_unsupported() => ErrorKind::NotSupported,
            OnnxError::Nodes(nodes) => nodes
                .iter()
                .find_map(|n| match n.kind {
                    NodeErrorKind::Builder(k) => Some(k),
                    _ => None,
                })
                .unwrap_or(ErrorKind::Type),
            _ => ErrorKind::Type,
        }
    }
}

impl From<OnnxError> for webnn_core::Error {
    fn from(e: OnnxError) -> Self {
        webnn_core::Error::new(e.kind(), e.to_string())
    }
}

/// Result alias of the importer.
pub type Result<T, E = OnnxError> = std::result::Result<T, E>;

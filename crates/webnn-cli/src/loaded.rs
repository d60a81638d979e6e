//! [`LoadedModel`]: what adding a model to a graph builder gives back, whoever added it (the
//! ONNX importer in `onnx_import`, a built-in in `builtin`). Its own module so that the model
//! makers and `model`, which calls them, depend on it and not on each other.

use webnn::{Operand, OperandDescriptor};

/// A model added to a builder: its graph inputs and the operands to build as outputs.
#[derive(Debug)]
pub struct LoadedModel {
    /// Graph inputs, by name.
    pub inputs: Vec<(String, OperandDescriptor)>,
    /// Graph outputs, by name.
    pub outputs: Vec<(String, Operand)>,
}

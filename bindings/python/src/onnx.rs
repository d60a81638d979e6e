//! The native half of `webnn.InferenceSession`: an ONNX model parsed once by `webnn-onnx`,
//! built into a graph on a context for given input shapes (as `webnn run --shape` does).

use crate::context::{Context, Graph};
use crate::errors::{guard, type_error, OrRaise};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use std::collections::HashMap;
use webnn::GraphBuilder;
use webnn_onnx::{Dim, ImportOptions, InputInfo, OnnxModel as Model};

/// A declared input or output: `(name, ONNX element type code or None, dims or None)`, each
/// dim an int, a symbolic name, or None when unknown.
type Declared = (String, Option<i32>, Option<Vec<Py<PyAny>>>);

/// A built input or output: `(name, dataType, shape, ONNX element type code)`.
type BuiltIo = (String, &'static str, Vec<u32>, i32);

/// A parsed ONNX model.
#[pyclass(frozen, module = "webnn._webnn")]
pub struct OnnxModel {
    model: Model,
}

/// Parses an `.onnx` file (a path: external data is read beside it) or the bytes of one.
#[pyfunction]
pub fn load_onnx(py: Python<'_>, source: &Bound<'_, PyAny>) -> PyResult<OnnxModel> {
    let model = if let Ok(bytes) = source.cast::<PyBytes>() {
        let bytes = bytes.as_bytes();
        py.detach(|| {
            guard("InferenceSession", || Model::from_bytes(bytes, None).map_err(|e| crate::errors::to_py(e.into())))
        })?
    } else {
        let path: std::path::PathBuf = source
            .extract()
            .map_err(|_| type_error("InferenceSession: path_or_bytes must be a path (str or os.PathLike) or bytes"))?;
        py.detach(|| guard("InferenceSession", || Model::load(&path).map_err(|e| crate::errors::to_py(e.into()))))?
    };
    Ok(OnnxModel { model })
}

fn declared(py: Python<'_>, info: InputInfo) -> Declared {
    let dims = info.dims.map(|dims| {
        dims.into_iter()
            .map(|d| match d {
                Dim::Fixed(v) => v.into_pyobject(py).map(|o| o.into_any().unbind()).unwrap_or_else(|_| py.None()),
                Dim::Symbolic(s) => s.into_pyobject(py).map(|o| o.into_any().unbind()).unwrap_or_else(|_| py.None()),
                Dim::Unknown => py.None(),
            })
            .collect()
    });
    (info.name, info.elem_type, dims)
}

#[pymethods]
impl OnnxModel {
    /// The graph's inputs as declared (initializers excluded).
    fn inputs(&self, py: Python<'_>) -> Vec<Declared> {
        self.model.inputs().into_iter().map(|i| declared(py, i)).collect()
    }

    /// The graph's outputs as declared.
    fn outputs(&self, py: Python<'_>) -> Vec<Declared> {
        self.model.outputs().into_iter().map(|i| declared(py, i)).collect()
    }

    /// Imports the model into a new graph on `context`; `shapes` maps an input's name to its
    /// whole shape, or a symbolic dimension's name to `[size]`. Returns the graph with its
    /// inputs and outputs.
    fn build(
        &self,
        py: Python<'_>,
        context: &Bound<'_, Context>,
        shapes: &Bound<'_, PyDict>,
    ) -> PyResult<(Graph, Vec<BuiltIo>, Vec<BuiltIo>)> {
        let shape_overrides: HashMap<String, Vec<u32>> = shapes.extract()?;
        let context = &context.get().inner;
        let model = &self.model;
        py.detach(|| {
            guard("InferenceSession", || {
                let mut builder = GraphBuilder::new(context).or_raise()?;
                let options = ImportOptions { shape_overrides, ..Default::default() };
                let imported = webnn_onnx::import(model, builder.core_mut(), &options)
                    .map_err(|e| crate::errors::to_py(e.into()))?;
                let graph = builder.build(&imported.named_outputs()).or_raise()?;
                let inputs = imported
                    .inputs
                    .iter()
                    .map(|i| {
                        (
                            i.name.clone(),
                            i.descriptor.data_type.as_str(),
                            i.descriptor.shape.clone(),
                            i.elem_type.onnx_code(),
                        )
                    })
                    .collect();
                let outputs = imported
                    .outputs
                    .iter()
                    .map(|o| {
                        (
                            o.name.clone(),
                            o.operand.data_type().as_str(),
                            o.operand.shape().to_vec(),
                            o.elem_type.onnx_code(),
                        )
                    })
                    .collect();
                Ok((Graph::new(graph), inputs, outputs))
            })
        })
    }
}

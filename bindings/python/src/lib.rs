//! `webnn._webnn`: the native half of the Python binding (PyO3 + numpy).
//!
//! Like the Node.js binding, this layer is thin: the pure-Python package `webnn`
//! (`bindings/python/python/webnn`) gives the API its Pythonic shape — snake_case methods,
//! keyword options with the IDL defaults, argument conversions with TypeErrors naming the
//! parameter, numpy conversions — and calls this module, which calls the `webnn` crate (and
//! `webnn-onnx` for `InferenceSession`). Errors come back as the spec's kinds
//! (`errors`); no Rust panic crosses into Python.
//!
//! Waits release the GIL: `build()` compiles, reads and `compute()` wait for the context's
//! timeline, and ONNX imports run, while other Python threads go on.

mod arrays;
mod builder;
mod context;
mod errors;
mod onnx;
mod ops;
mod pending;

use pyo3::prelude::*;

/// The signatures of the `MLGraphBuilder` operations, their options dictionaries and enums, as
/// JSON text (`webnn_core::signatures::op_signatures`): `webnn/_ops.py` builds the op methods
/// from it at import.
#[pyfunction]
fn op_signatures() -> String {
    webnn::op_signatures().to_string()
}

/// The module `webnn._webnn`.
#[pymodule]
fn _webnn(m: &Bound<'_, PyModule>) -> PyResult<()> {
    errors::register(m)?;
    m.add_function(wrap_pyfunction!(context::create_context, m)?)?;
    m.add_function(wrap_pyfunction!(onnx::load_onnx, m)?)?;
    m.add_function(wrap_pyfunction!(errors::raise_error_kind, m)?)?;
    m.add_function(wrap_pyfunction!(op_signatures, m)?)?;
    m.add_class::<context::Context>()?;
    m.add_class::<context::Tensor>()?;
    m.add_class::<context::Graph>()?;
    m.add_class::<builder::Builder>()?;
    m.add_class::<builder::Operand>()?;
    m.add_class::<pending::Pending>()?;
    m.add_class::<onnx::OnnxModel>()?;
    Ok(())
}

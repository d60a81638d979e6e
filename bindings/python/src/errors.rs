//! The spec's exception kinds as Python exceptions, and the guard that keeps a Rust panic
//! from crossing into Python as anything but one of them.
//!
//! `TypeError` is Python's own; the spec's DOMException names are classes of the `webnn`
//! package under one base, `webnn.WebNNError` (the spec uses no DataError, and neither does
//! the Rust API: `webnn::ErrorKind` has no such kind).

use pyo3::exceptions::{PyException, PyTypeError};
use pyo3::prelude::*;
use webnn::{Error, ErrorKind};

pyo3::create_exception!(
    webnn,
    WebNNError,
    PyException,
    "Base class of the WebNN errors that the spec raises as DOMExceptions \
     (https://www.w3.org/TR/webnn/#api-mlgraphbuilder); argument errors are TypeError."
);
pyo3::create_exception!(
    webnn,
    InvalidStateError,
    WebNNError,
    "The spec's \"InvalidStateError\" DOMException: a built builder, a lost context, a destroyed graph."
);
pyo3::create_exception!(
    webnn,
    NotSupportedError,
    WebNNError,
    "The spec's \"NotSupportedError\" DOMException: no such device, an unsupported model feature."
);
pyo3::create_exception!(
    webnn,
    OperationError,
    WebNNError,
    "The spec's \"OperationError\" DOMException: building or running a graph failed."
);
pyo3::create_exception!(
    webnn,
    UnknownError,
    WebNNError,
    "The spec's \"UnknownError\" DOMException: out of memory, an internal failure."
);

/// Adds the exception classes to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("WebNNError", py.get_type::<WebNNError>())?;
    m.add("InvalidStateError", py.get_type::<InvalidStateError>())?;
    m.add("NotSupportedError", py.get_type::<NotSupportedError>())?;
    m.add("OperationError", py.get_type::<OperationError>())?;
    m.add("UnknownError", py.get_type::<UnknownError>())?;
    Ok(())
}

/// A `webnn::Error` as the Python exception of its kind; the message (which starts with
/// `[label] ` when the operation had a label) is kept as it is.
pub fn to_py(e: Error) -> PyErr {
    match e.kind {
        ErrorKind::Type => PyTypeError::new_err(e.message),
        ErrorKind::InvalidState => InvalidStateError::new_err(e.message),
        ErrorKind::NotSupported => NotSupportedError::new_err(e.message),
        ErrorKind::Operation => OperationError::new_err(e.message),
        ErrorKind::Unknown => UnknownError::new_err(e.message),
    }
}

/// `webnn::Result` → `PyResult`.
pub trait OrRaise<T> {
    /// The value, or the error as its Python exception.
    fn or_raise(self) -> PyResult<T>;
}

impl<T> OrRaise<T> for webnn::Result<T> {
    fn or_raise(self) -> PyResult<T> {
        self.map_err(to_py)
    }
}

/// A TypeError naming what was wrong with an argument.
pub fn type_error(message: impl Into<String>) -> PyErr {
    PyTypeError::new_err(message.into())
}

/// Raises the exception of the spec error kind named `kind` (`"TypeError"`,
/// `"InvalidStateError"`...) with `message`, through the same conversion as every engine error:
/// the tests check the mapping with it, including kinds no valid graph reaches on the CPU
/// engine (OperationError: a backend that cannot compile a graph it reported as supported).
#[pyfunction]
pub fn raise_error_kind(kind: &str, message: &str) -> PyResult<()> {
    let kind =
        [ErrorKind::Type, ErrorKind::InvalidState, ErrorKind::NotSupported, ErrorKind::Operation, ErrorKind::Unknown]
            .into_iter()
            .find(|k| k.name() == kind)
            .ok_or_else(|| type_error(format!("unknown error kind '{kind}'")))?;
    Err(to_py(Error::new(kind, message)))
}

/// Runs `f`; a panic (a bug: the engine never panics on its inputs by design) becomes an
/// `UnknownError` naming `what`, so Python code sees an ordinary `webnn.WebNNError` rather
/// than PyO3's `PanicException` (a `BaseException`).
pub fn guard<T>(what: &str, f: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(result) => result,
        Err(payload) => {
            let detail = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            Err(UnknownError::new_err(format!("{what}: internal error: {detail}")))
        }
    }
}

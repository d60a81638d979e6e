//! `MLGraphBuilder` and `MLOperand` over the `webnn` crate: inputs, the three `constant()`
//! overloads, every operation through one entry ([`crate::ops`]), and `build()` (which
//! compiles with the GIL released).

use crate::arrays;
use crate::context::{Context, Graph, Tensor};
use crate::errors::{guard, type_error, OrRaise};
use crate::ops;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use std::sync::{Mutex, MutexGuard};
use webnn::{GraphBuilder, MLNumber, OperandDescriptor};

/// `MLOperand` (https://www.w3.org/TR/webnn/#api-mloperand): an operand of a graph being
/// built, with its `data_type` and `shape`.
#[pyclass(frozen, name = "MLOperand", module = "webnn")]
pub struct Operand {
    pub(crate) inner: webnn::Operand,
}

/// `MLGraphBuilder` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder): the native half.
///
/// The lock is only held while the GIL is held (no call here releases the GIL while holding
/// it), so two Python threads using one builder cannot deadlock.
#[pyclass(frozen, module = "webnn._webnn")]
pub struct Builder {
    inner: Mutex<GraphBuilder>,
}

/// An `MLNumber` as the Python layer sends it: a float (an `unrestricted double`), or an int as
/// its decimal string (a `bigint`, already clamped to the i128 range), as the Node binding does.
/// (Not a Python int: extracting one from a float would truncate it, with only a warning, on
/// Python 3.9.)
#[derive(FromPyObject, Clone)]
pub enum Number {
    /// `unrestricted double`
    Float(f64),
    /// `bigint`
    BigInt(String),
}

impl Number {
    /// The `MLNumber`.
    pub fn to_ml(&self) -> PyResult<MLNumber> {
        match self {
            Number::Float(x) => Ok(MLNumber::Double(*x)),
            Number::BigInt(s) => {
                s.parse::<i128>().map(MLNumber::BigInt).map_err(|_| type_error(format!("'{s}' is not an integer")))
            }
        }
    }
}

impl Builder {
    fn lock(&self) -> MutexGuard<'_, GraphBuilder> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Wraps operands for Python.
fn wrap(operands: Vec<webnn::Operand>) -> Vec<Operand> {
    operands.into_iter().map(|inner| Operand { inner }).collect()
}

#[pymethods]
impl Builder {
    /// `new MLGraphBuilder(context)`
    #[new]
    fn new(context: &Bound<'_, Context>) -> PyResult<Self> {
        Ok(Builder { inner: Mutex::new(GraphBuilder::new(&context.get().inner).or_raise()?) })
    }

    /// `input(name, descriptor)`
    fn input(&self, name: &str, data_type: &str, shape: Vec<u32>) -> PyResult<Operand> {
        let descriptor = OperandDescriptor::new(arrays::parse_data_type(data_type)?, shape);
        Ok(Operand { inner: self.lock().input(name, &descriptor).or_raise()? })
    }

    /// `constant(descriptor, buffer)`: `data` is an array of the data type's dtype (or uint8
    /// bytes), C-contiguous.
    fn constant(&self, data_type: &str, shape: Vec<u32>, data: &Bound<'_, PyAny>) -> PyResult<Operand> {
        let descriptor = OperandDescriptor::new(arrays::parse_data_type(data_type)?, shape);
        let mut builder = self.lock();
        if !builder.can_build() {
            // The spec's order: can-build (InvalidStateError) before the buffer checks.
            let why = if builder.context().is_lost() {
                "the context is lost"
            } else {
                "this MLGraphBuilder has already built a graph"
            };
            return Err(crate::errors::InvalidStateError::new_err(format!("constant: {why}")));
        }
        let operand =
            arrays::with_bytes(data, descriptor.data_type, "constant: buffer", |b| builder.constant(&descriptor, b))?;
        Ok(Operand { inner: operand.or_raise()? })
    }

    /// `constant(dataType, value)`
    fn constant_scalar(&self, data_type: &str, value: Number) -> PyResult<Operand> {
        let data_type = arrays::parse_data_type(data_type)?;
        Ok(Operand { inner: self.lock().constant_scalar(data_type, value.to_ml()?).or_raise()? })
    }

    /// `constant(tensor)`
    fn constant_tensor(&self, tensor: &Bound<'_, Tensor>) -> PyResult<Operand> {
        Ok(Operand { inner: self.lock().constant_tensor(&tensor.get().inner).or_raise()? })
    }

    /// Any operation, by its IDL name: `operands` in the op's slot order (`None` for absent
    /// option operands), `params` every other argument by its IDL name.
    fn op(
        &self,
        name: &str,
        operands: Vec<Option<Bound<'_, Operand>>>,
        params: &Bound<'_, PyDict>,
    ) -> PyResult<Vec<Operand>> {
        let operands: Vec<Option<&webnn::Operand>> =
            operands.iter().map(|o| o.as_ref().map(|o| &o.get().inner)).collect();
        let mut builder = self.lock();
        guard(name, || ops::call(&mut builder, name, &operands, params)).map(wrap)
    }

    /// `build(outputs)`: validates now, compiles with the GIL released.
    fn build(&self, py: Python<'_>, outputs: &Bound<'_, PyDict>) -> PyResult<Graph> {
        let mut named: Vec<(String, Bound<'_, Operand>)> = Vec::with_capacity(outputs.len());
        for (k, v) in outputs.iter() {
            let name: String = k.extract().map_err(|_| type_error("build: output names must be str"))?;
            let operand = v
                .cast_into::<Operand>()
                .map_err(|_| type_error(format!("build: outputs['{name}'] is not an MLOperand")))?;
            named.push((name, operand));
        }
        let refs: Vec<(&str, &webnn::Operand)> = named.iter().map(|(n, o)| (n.as_str(), &o.get().inner)).collect();
        let pending = guard("build", || self.lock().start_build(&refs).or_raise())?;
        let graph = py.detach(|| guard("build", || pending.compile().or_raise()))?;
        Ok(Graph::new(graph))
    }
}

#[pymethods]
impl Operand {
    /// `dataType`
    #[getter]
    fn data_type(&self) -> &'static str {
        self.inner.data_type().as_str()
    }

    /// `shape`
    #[getter]
    fn shape<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, self.inner.shape())
    }

    fn __repr__(&self) -> String {
        format!("<MLOperand {} {:?}>", self.inner.data_type().as_str(), self.inner.shape())
    }
}

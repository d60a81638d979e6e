//! `ML.createContext()`, `MLContext`, `MLTensor` and `MLGraph` over the `webnn` crate.
//!
//! Every check is the Rust API's (the spec's steps in the spec's order); this layer only moves
//! numpy arrays in and out. Waits release the GIL: a blocking read lets other Python threads
//! run, and the context's timeline never calls into Python.

use crate::arrays;
use crate::errors::{guard, type_error, OrRaise};
use crate::pending::{Pending, Settles};
use numpy::{PyArrayDescrMethods, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use std::sync::Mutex;
use webnn::{ContextOptions, DataType, DeviceChoice, OperandDescriptor, PowerPreference, TensorDescriptor};

/// `ml.createContext(options)` (https://www.w3.org/TR/webnn/#api-ml-createcontext), with this
/// implementation's extensions `threads` (CPU threads per dispatch) and `device`
/// (`"auto"`, `"cpu"` or `"gpu"`; `"auto"` follows `accelerated` and `WEBNN_DEVICE`).
#[pyfunction]
#[pyo3(signature = (power_preference, accelerated, threads=None, device="auto"))]
pub fn create_context(
    py: Python<'_>,
    power_preference: &str,
    accelerated: bool,
    threads: Option<usize>,
    device: &str,
) -> PyResult<Context> {
    let power_preference: PowerPreference = power_preference.parse().or_raise()?;
    let device: DeviceChoice = device.parse().or_raise()?;
    let options = ContextOptions { power_preference, accelerated, threads, device };
    // Probing GPU adapters can take a while: let other Python threads run.
    let inner = py.detach(|| guard("createContext", || webnn::ml().create_context(&options).or_raise()))?;
    Ok(Context { inner })
}

/// `MLContext` (https://www.w3.org/TR/webnn/#api-mlcontext): the native half.
#[pyclass(frozen, module = "webnn._webnn")]
pub struct Context {
    pub(crate) inner: webnn::Context,
}

/// `MLTensor` (https://www.w3.org/TR/webnn/#api-mltensor): a tensor of one context, read and
/// written with `MLContext.read_tensor` / `write_tensor`.
#[pyclass(frozen, name = "MLTensor", module = "webnn")]
pub struct Tensor {
    pub(crate) inner: webnn::Tensor,
}

/// `MLGraph` (https://www.w3.org/TR/webnn/#api-mlgraph): a compiled graph, run with
/// `MLContext.dispatch` or `MLContext.compute`.
#[pyclass(frozen, name = "MLGraph", module = "webnn")]
pub struct Graph {
    pub(crate) inner: webnn::Graph,
    /// Tensors `compute()` reuses from call to call (made at its first call).
    compute_tensors: Mutex<Option<ComputeTensors>>,
}

impl Graph {
    /// Wraps a built graph.
    pub fn new(inner: webnn::Graph) -> Self {
        Graph { inner, compute_tensors: Mutex::new(None) }
    }
}

/// One tensor per graph input (writable) and output (readable), in the graph's order, on
/// `context`.
struct ComputeTensors {
    context: webnn::Context,
    inputs: Vec<webnn::Tensor>,
    outputs: Vec<webnn::Tensor>,
}

impl ComputeTensors {
    fn new(context: &webnn::Context, graph: &webnn::Graph) -> webnn::Result<Self> {
        let make = |desc: &OperandDescriptor, input: bool| {
            context.create_tensor(
                &TensorDescriptor::new(desc.data_type, desc.shape.clone()).writable(input).readable(!input),
            )
        };
        Ok(ComputeTensors {
            context: context.clone(),
            inputs: graph.input_descriptors().iter().map(|(_, d)| make(d, true)).collect::<webnn::Result<_>>()?,
            outputs: graph.output_descriptors().iter().map(|(_, d)| make(d, false)).collect::<webnn::Result<_>>()?,
        })
    }
}

/// The `(name, dataType, shape)` of each descriptor.
fn describe(list: &[(String, OperandDescriptor)]) -> Vec<(String, &'static str, Vec<u32>)> {
    list.iter().map(|(n, d)| (n.clone(), d.data_type.as_str(), d.shape.clone())).collect()
}

/// The `(name, tensor)` pairs of a `{name: MLTensor}` dict (`which` names it in errors).
fn named_tensors<'py>(d: &Bound<'py, PyDict>, which: &str) -> PyResult<Vec<(String, Bound<'py, Tensor>)>> {
    d.iter()
        .map(|(k, v)| {
            let name: String = k.extract().map_err(|_| type_error(format!("dispatch: {which} names must be str")))?;
            let tensor = v
                .cast_into::<Tensor>()
                .map_err(|_| type_error(format!("dispatch: {which}['{name}'] is not an MLTensor")))?;
            Ok((name, tensor))
        })
        .collect()
}

/// A TypeError unless a typed array (not uint8 bytes for another data type) has `shape`.
fn check_shape(value: &Bound<'_, PyAny>, desc: &OperandDescriptor, what: &str) -> PyResult<()> {
    if let Ok(array) = value.cast::<PyUntypedArray>() {
        let raw_bytes = desc.data_type != DataType::Uint8 && array.dtype().is_equiv_to(&numpy::dtype::<u8>(value.py()));
        let same = array.shape().len() == desc.shape.len()
            && array.shape().iter().zip(&desc.shape).all(|(&a, &b)| a == b as usize);
        if !raw_bytes && !same {
            return Err(type_error(format!(
                "{what}: the array has shape {:?} but the graph expects {:?}",
                array.shape(),
                desc.shape
            )));
        }
    }
    Ok(())
}

#[pymethods]
impl Context {
    /// `MLContext.accelerated`
    #[getter]
    fn accelerated(&self) -> bool {
        self.inner.accelerated()
    }

    /// `destroy()`
    fn destroy(&self) {
        self.inner.destroy();
    }

    /// True once the context is lost.
    fn is_lost(&self) -> bool {
        self.inner.is_lost()
    }

    /// `lost`: settles with the loss's message.
    fn lost(&self) -> Pending {
        Pending::new(Settles::Lost(self.inner.lost()))
    }

    /// `opSupportLimits()` as JSON text.
    fn op_support_limits(&self) -> String {
        self.inner.op_support_limits().to_json().to_string()
    }

    /// `createTensor(descriptor)`
    fn create_tensor(&self, data_type: &str, shape: Vec<u32>, readable: bool, writable: bool) -> PyResult<Tensor> {
        let descriptor =
            TensorDescriptor::new(arrays::parse_data_type(data_type)?, shape).readable(readable).writable(writable);
        Ok(Tensor { inner: self.inner.create_tensor(&descriptor).or_raise()? })
    }

    /// `createConstantTensor(descriptor, inputData)`
    fn create_constant_tensor(&self, data_type: &str, shape: Vec<u32>, data: &Bound<'_, PyAny>) -> PyResult<Tensor> {
        let descriptor = OperandDescriptor::new(arrays::parse_data_type(data_type)?, shape);
        if self.inner.is_lost() {
            // The spec's order: the lost check before the buffer's.
            return Err(crate::errors::InvalidStateError::new_err("createConstantTensor: the context is lost"));
        }
        let what = "createConstantTensor: data";
        let inner = arrays::with_bytes(data, descriptor.data_type, what, |b| {
            self.inner.create_constant_tensor(&descriptor, b)
        })?;
        Ok(Tensor { inner: inner.or_raise()? })
    }

    /// `writeTensor(tensor, inputData)`: the bytes are copied before it returns.
    fn write_tensor(&self, tensor: &Bound<'_, Tensor>, data: &Bound<'_, PyAny>) -> PyResult<()> {
        let t = &tensor.get().inner;
        arrays::with_bytes(data, t.data_type(), "writeTensor: data", |b| self.inner.write_tensor(t, b))?.or_raise()
    }

    /// `readTensor(tensor)`, blocking (the GIL released): a new array of the tensor's dtype
    /// and shape.
    fn read_tensor<'py>(&self, py: Python<'py>, tensor: &Bound<'py, Tensor>) -> PyResult<Bound<'py, PyUntypedArray>> {
        let t = &tensor.get().inner;
        let out = arrays::zeros(py, t.data_type(), t.shape());
        self.read_into(py, t, out.as_any())?;
        Ok(out)
    }

    /// `readTensor(tensor, outputData)`, blocking (the GIL released): fills `out`.
    fn read_tensor_into(&self, py: Python<'_>, tensor: &Bound<'_, Tensor>, out: &Bound<'_, PyAny>) -> PyResult<()> {
        self.read_into(py, &tensor.get().inner, out)
    }

    /// `readTensor(tensor)` as a [`Pending`]: queued now, settled by the timeline.
    fn read_tensor_async(&self, tensor: &Bound<'_, Tensor>) -> PyResult<Pending> {
        let t = &tensor.get().inner;
        let promise = self.inner.read_tensor(t);
        // The checks that fail at once raise here, as the spec rejects before queueing.
        let promise = match promise.try_take() {
            Ok(Err(e)) => return Err(crate::errors::to_py(e)),
            Ok(Ok(bytes)) => webnn::Promise::ready(Ok(bytes)),
            Err(pending) => pending,
        };
        Ok(Pending::new(Settles::Read(promise, t.data_type(), t.shape().to_vec())))
    }

    /// `dispatch(graph, inputs, outputs)`: `inputs` and `outputs` map names to tensors.
    fn dispatch<'py>(
        &self,
        graph: &Bound<'py, Graph>,
        inputs: &Bound<'py, PyDict>,
        outputs: &Bound<'py, PyDict>,
    ) -> PyResult<()> {
        let ins = named_tensors(inputs, "inputs")?;
        let outs = named_tensors(outputs, "outputs")?;
        let ins: Vec<(&str, &webnn::Tensor)> = ins.iter().map(|(n, t)| (n.as_str(), &t.get().inner)).collect();
        let outs: Vec<(&str, &webnn::Tensor)> = outs.iter().map(|(n, t)| (n.as_str(), &t.get().inner)).collect();
        guard("dispatch", || self.inner.dispatch(&graph.get().inner, &ins, &outs).or_raise())
    }

    /// Writes `inputs` (name → array), dispatches `graph` and reads every output into a new
    /// array: `{name: array}`. Tensors are reused from call to call.
    fn compute<'py>(
        &self,
        py: Python<'py>,
        graph: &Bound<'py, Graph>,
        inputs: &Bound<'py, PyDict>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let g = graph.get();
        // Another thread computing with this graph holds its tensors: use fresh ones then.
        let mut cached = g.compute_tensors.try_lock().ok();
        let mut fresh = None;
        let tensors = match cached.as_deref_mut() {
            Some(slot) => {
                // (Re)made on first use, and for another context (whose dispatch then fails).
                if slot.as_ref().is_none_or(|t| t.context != self.inner) {
                    *slot = Some(ComputeTensors::new(&self.inner, &g.inner).or_raise()?);
                }
                slot.as_ref().expect("just filled")
            }
            None => fresh.insert(ComputeTensors::new(&self.inner, &g.inner).or_raise()?),
        };
        let input_descs = g.inner.input_descriptors();
        for ((name, desc), tensor) in input_descs.iter().zip(&tensors.inputs) {
            let what = format!("compute: input '{name}'");
            let value = inputs.get_item(name)?.ok_or_else(|| type_error(format!("{what} is missing")))?;
            check_shape(&value, desc, &what)?;
            arrays::with_bytes(&value, desc.data_type, &what, |b| self.inner.write_tensor(tensor, b))?.or_raise()?;
        }
        if inputs.len() != input_descs.len() {
            for key in inputs.keys() {
                let key: String = key.extract().map_err(|_| type_error("compute: input names must be str"))?;
                if !input_descs.iter().any(|(n, _)| *n == key) {
                    return Err(type_error(format!("compute: the graph has no input named '{key}'")));
                }
            }
        }
        let ins: Vec<(&str, &webnn::Tensor)> =
            input_descs.iter().map(|(n, _)| n.as_str()).zip(&tensors.inputs).collect();
        let output_descs = g.inner.output_descriptors();
        let outs: Vec<(&str, &webnn::Tensor)> =
            output_descs.iter().map(|(n, _)| n.as_str()).zip(&tensors.outputs).collect();
        guard("compute", || self.inner.dispatch(&g.inner, &ins, &outs).or_raise())?;
        let result = PyDict::new(py);
        for ((name, desc), tensor) in output_descs.iter().zip(&tensors.outputs) {
            let out = arrays::zeros(py, desc.data_type, &desc.shape);
            self.read_into(py, tensor, out.as_any())?;
            result.set_item(name, out)?;
        }
        Ok(result)
    }
}

impl Context {
    /// Reads `tensor` into the array `out` with the GIL released.
    fn read_into(&self, py: Python<'_>, tensor: &webnn::Tensor, out: &Bound<'_, PyAny>) -> PyResult<()> {
        arrays::with_bytes_mut(out, tensor.data_type(), "readTensor: out", |bytes| {
            py.detach(|| guard("readTensor", || self.inner.read_tensor_into(tensor, bytes).or_raise()))
        })?
    }
}

#[pymethods]
impl Tensor {
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

    /// `readable`
    #[getter]
    fn readable(&self) -> bool {
        self.inner.readable()
    }

    /// `writable`
    #[getter]
    fn writable(&self) -> bool {
        self.inner.writable()
    }

    /// `constant`
    #[getter]
    fn constant(&self) -> bool {
        self.inner.constant()
    }

    /// `destroy()` (https://www.w3.org/TR/webnn/#api-mltensor-destroy)
    fn destroy(&self) {
        self.inner.destroy();
    }

    fn __repr__(&self) -> String {
        format!("<MLTensor {} {:?}>", self.inner.data_type().as_str(), self.inner.shape())
    }
}

#[pymethods]
impl Graph {
    /// `destroy()` (https://www.w3.org/TR/webnn/#api-mlgraph-destroy)
    fn destroy(&self) {
        self.inner.destroy();
    }

    /// `[[inputDescriptors]]`: `(name, dataType, shape)` of each input.
    fn input_descriptors(&self) -> Vec<(String, &'static str, Vec<u32>)> {
        describe(self.inner.input_descriptors())
    }

    /// `[[outputDescriptors]]`: `(name, dataType, shape)` of each output.
    fn output_descriptors(&self) -> Vec<(String, &'static str, Vec<u32>)> {
        describe(self.inner.output_descriptors())
    }

    fn __repr__(&self) -> String {
        let names =
            |l: &[(String, OperandDescriptor)]| l.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>().join(", ");
        format!(
            "<MLGraph inputs: {}; outputs: {}>",
            names(self.inner.input_descriptors()),
            names(self.inner.output_descriptors())
        )
    }
}

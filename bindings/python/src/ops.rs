//! The operation methods of `MLGraphBuilder`, reached through one native entry point
//! (<https://www.w3.org/TR/webnn/#api-mlgraphbuilder>), as in the Node.js binding.
//!
//! The Python layer (`webnn/_builder.py`, from the table in `webnn/_ops.py`) converts every
//! argument and sends, for an op:
//! - `operands`: the operand arguments in the op's slot order (positional operands, then the
//!   operand members of its options, absent ones as `None`) — the order of
//!   `LimitsKind::inputs()`; for `concat`, the list of inputs;
//! - `params`: every other positional argument and option member, by its IDL name
//!   (`keepDimensions`), with `MLNumber`s as floats or bigints as decimal strings. Absent
//!   options are missing.
//!
//! The params become one [`OpParams`] record and [`GraphBuilder::call`] does the rest (the
//! per-op mapping and the IDL defaults live there, shared with the Node binding and the
//! conformance harness).

use crate::errors::{to_py, UnknownError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde_json::{Map, Number, Value};
use webnn::*;

/// A malformed call from the Python layer (a bug there, never a spec error).
fn internal(msg: impl std::fmt::Display) -> PyErr {
    UnknownError::new_err(format!("webnn internal: {msg}"))
}

/// One converted argument as JSON, exactly: ints as integers, floats as doubles (-0 too), and
/// the non-finite ones by the names [`NumberParam`] reads.
fn json(value: &Bound<'_, PyAny>) -> PyResult<Value> {
    if value.is_none() {
        Ok(Value::Null)
    } else if let Ok(b) = value.cast::<PyBool>() {
        Ok(Value::Bool(b.is_true()))
    } else if value.is_instance_of::<PyInt>() {
        let i: i64 = value.extract()?;
        Ok(Value::from(i))
    } else if let Ok(f) = value.cast::<PyFloat>() {
        let x = f.value();
        Ok(match Number::from_f64(x) {
            Some(n) => Value::Number(n),
            None if x.is_nan() => Value::from("NaN"),
            None => Value::from(if x > 0.0 { "Infinity" } else { "-Infinity" }),
        })
    } else if value.is_instance_of::<PyString>() {
        Ok(Value::String(value.extract()?))
    } else if value.is_instance_of::<PyList>() || value.is_instance_of::<PyTuple>() {
        value.try_iter()?.map(|item| json(&item?)).collect::<PyResult<Vec<_>>>().map(Value::Array)
    } else {
        Err(internal(format!("an op parameter of type {}", value.get_type().name()?)))
    }
}

/// Calls the builder method `op` (its IDL name); returns its output operand(s).
pub fn call(
    builder: &mut GraphBuilder,
    op: &str,
    operands: &[Option<&Operand>],
    params: &Bound<'_, PyDict>,
) -> PyResult<Vec<Operand>> {
    let kind = OpKind::from_idl_name(op).ok_or_else(|| internal(format!("unknown operation {op}")))?;
    let mut map = Map::new();
    for (name, value) in params.iter() {
        map.insert(name.extract::<String>()?, json(&value)?);
    }
    let params: OpParams =
        serde_json::from_value(Value::Object(map)).map_err(|e| internal(format!("{op}: bad parameters: {e}")))?;
    builder.call(kind, operands, &params).map_err(to_py)
}

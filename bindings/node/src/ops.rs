//! The operation methods of `MLGraphBuilder`, reached through one native entry point.
//!
//! The JS layer converts every argument by the WebIDL rules and sends, for an op:
//! - `operands`: the operand arguments in the op's slot order (positional operands, then the
//!   operand members of its options dictionary, absent ones as `undefined`) — the order of
//!   `LimitsKind::inputs()`; for `concat`, the list of inputs;
//! - `params`: every other positional argument and option member, by its IDL name, with
//!   `MLNumber`s as numbers or bigints as decimal strings.
//!
//! The params become one [`OpParams`] record and [`GraphBuilder::call`] does the rest (the
//! per-op mapping and the IDL defaults live there, shared with the Python binding and the
//! conformance harness).

use crate::{internal, js_error};
use napi::{JsUnknown, ValueType};
use serde_json::{Map, Number, Value};
use std::collections::HashMap;
use webnn::*;

type Result<T> = napi::Result<T>;

/// One converted WebIDL value as JSON, exactly: integers as integers, other finite numbers
/// (and -0) as doubles, and the non-finite ones by the names [`NumberParam`] reads.
fn json(value: JsUnknown) -> Result<Value> {
    Ok(match value.get_type()? {
        ValueType::Undefined | ValueType::Null => Value::Null,
        ValueType::Boolean => Value::Bool(value.coerce_to_bool()?.get_value()?),
        ValueType::String => Value::String(value.coerce_to_string()?.into_utf8()?.into_owned()?),
        ValueType::Number => {
            let x = value.coerce_to_number()?.get_double()?;
            let integral = x.fract() == 0.0 && x.abs() < 9.0e15 && !(x == 0.0 && x.is_sign_negative());
            match Number::from_f64(x) {
                _ if integral => Value::from(x as i64),
                Some(n) => Value::Number(n),
                None if x.is_nan() => Value::from("NaN"),
                None => Value::from(if x > 0.0 { "Infinity" } else { "-Infinity" }),
            }
        }
        ValueType::Object => {
            let object = value.coerce_to_object()?;
            if !object.is_array()? {
                return Err(internal("an op parameter is an object, not a list"));
            }
            let length = object.get_array_length()?;
            Value::Array((0..length).map(|i| json(object.get_element::<JsUnknown>(i)?)).collect::<Result<_>>()?)
        }
        other => return Err(internal(format!("an op parameter of type {other:?}"))),
    })
}

/// Calls the builder method `op` (its IDL name); returns its output operand(s).
pub fn call(
    builder: &mut GraphBuilder,
    op: &str,
    operands: &[Option<&Operand>],
    params: HashMap<String, JsUnknown>,
) -> Result<Vec<Operand>> {
    let kind = OpKind::from_idl_name(op).ok_or_else(|| internal(format!("unknown operation {op}")))?;
    let mut map = Map::new();
    for (name, value) in params {
        map.insert(name, json(value)?);
    }
    let params: OpParams =
        serde_json::from_value(Value::Object(map)).map_err(|e| internal(format!("{op}: bad parameters: {e}")))?;
    builder.call(kind, operands, &params).map_err(js_error)
}

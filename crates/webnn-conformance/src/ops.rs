//! Maps one operator of a vector (`name` + `argList`) to a [`GraphBuilder::call`]: the operand
//! arguments by the op's slot names, every other argument and option member into one
//! [`OpParams`] record. The per-op mapping itself is the core builder's, shared with the
//! bindings.

use serde_json::{Map, Value};
use std::collections::HashMap;
use webnn::*;

/// The operands of a graph by name.
pub type Operands = HashMap<String, Operand>;

/// The vectors' argument names that differ from the IDL's (from older drafts).
fn idl_argument_name(name: &str) -> &str {
    match name {
        // cast(input, type): the IDL argument is `type`, carried as `dataType`.
        "type" => "dataType",
        other => other,
    }
}

/// The operand named by `value` (a string).
fn operand<'a>(operands: &'a Operands, value: &Value) -> Result<&'a Operand, String> {
    let key = value.as_str().ok_or_else(|| format!("an operand argument is not a name: {value}"))?;
    operands.get(key).ok_or_else(|| format!("unknown operand {key}"))
}

/// Calls the builder method named `name` with `arg_list`; returns its output operand(s). Takes
/// webnn-core's builder, so that a `webnn::GraphBuilder` (through `core_mut()`) and a
/// backend-less one (the `builder_ops` fuzz target's) both work.
pub fn call(
    builder: &mut webnn::webnn_core::GraphBuilder,
    name: &str,
    arg_list: &[Value],
    operands: &Operands,
) -> Result<Vec<Operand>, String> {
    let op = OpKind::from_idl_name(name).ok_or_else(|| format!("unknown operator {name}"))?;
    // Positional arguments and option members in one map, by IDL name.
    let mut values = Map::new();
    for arg in arg_list {
        let value = &arg["value"];
        if arg["kind"] == "options" {
            if let Some(members) = value.as_object() {
                values.extend(members.iter().filter(|(_, v)| !v.is_null()).map(|(k, v)| (k.clone(), v.clone())));
            }
        } else if let Some(name) = arg["name"].as_str() {
            values.insert(idl_argument_name(name).to_string(), value.clone());
        }
    }
    let slot_operands: Vec<Option<&Operand>> = if op == OpKind::Concat {
        let list = values.remove("inputs").ok_or("concat: missing inputs")?;
        let list = list.as_array().ok_or("concat: inputs is not a list")?;
        list.iter().map(|v| operand(operands, v).map(Some)).collect::<Result<_, _>>()?
    } else {
        let mut slots = Vec::new();
        for slot in op.limits_kind().inputs() {
            // logicalNot / isNaN / isInfinite: the slot is `a`; some vectors name it `input`.
            let value = values.remove(*slot).or_else(|| if *slot == "a" { values.remove("input") } else { None });
            slots.push(value.map(|v| operand(operands, &v)).transpose()?);
        }
        slots
    };
    if op == OpKind::Softmax && !values.contains_key("axis") {
        // The 2025 vectors call softmax(input) on rank-2 inputs, from before `axis` became
        // required; their tolerance function then uses axis 1 (the last axis), and so do we.
        values.insert("axis".into(), Value::from(1));
    }
    let params: OpParams =
        serde_json::from_value(Value::Object(values)).map_err(|e| format!("{name}: bad arguments: {e}"))?;
    builder.call(op, &slot_operands, &params).map_err(|e| e.to_string())
}

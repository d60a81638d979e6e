//! Running one vector case through the public API: build, check descriptors, dispatch, read,
//! compare (wpt/README.md "A case = ...").

use crate::compare::{compare, Tolerance};
use crate::ops;
use crate::values::encode;
use serde_json::Value;
use std::collections::HashMap;
use webnn::*;

/// The outcome of one case.
pub enum Outcome {
    /// Every output matched.
    Pass,
    /// Marked `notApplicable` in the vectors (the reason).
    Skip(String),
    /// Failed (a description: error, descriptor mismatch, or worst element with tolerance).
    Fail(String),
}

fn descriptor(v: &Value) -> Result<OperandDescriptor, String> {
    let data_type: DataType =
        v["dataType"].as_str().ok_or("descriptor without dataType")?.parse().map_err(|e: Error| e.message)?;
    let shape = v["shape"]
        .as_array()
        .ok_or("descriptor without shape")?
        .iter()
        .map(|d| d.as_u64().and_then(|d| u32::try_from(d).ok()).ok_or("bad dimension"))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(OperandDescriptor::new(data_type, shape))
}

fn tolerance(case: &Value) -> Result<Tolerance, String> {
    let t = &case["tolerance"];
    let value = t["value"].as_f64().ok_or("tolerance without value")?;
    match t["metricType"].as_str() {
        Some("ULP") => Ok(Tolerance::Ulp(value)),
        Some("ATOL") => Ok(Tolerance::Atol(value)),
        other => Err(format!("unknown metric {other:?}")),
    }
}

/// Runs one case on `context`.
pub fn run(context: &Context, file: &str, case: &Value) -> Outcome {
    if let Some(reason) = case.get("notApplicable").and_then(Value::as_str) {
        return Outcome::Skip(reason.to_string());
    }
    match run_inner(context, file, case) {
        Ok(None) => Outcome::Pass,
        // A context whose limits leave out an op × data type of the case (a GPU context):
        // the builder's TypeError names them.
        Err(msg) if msg.contains(webnn::webnn_core::limits::NOT_IN_CONTEXT_LIMITS) => {
            Outcome::Skip(format!("not in this context's opSupportLimits: {msg}"))
        }
        Ok(Some(msg)) | Err(msg) => Outcome::Fail(msg),
    }
}

fn run_inner(context: &Context, file: &str, case: &Value) -> Result<Option<String>, String> {
    let graph_json = &case["graph"];
    let tol = tolerance(case)?;
    let mut builder = GraphBuilder::new(context).map_err(|e| e.to_string())?;
    let mut operands: HashMap<String, Operand> = HashMap::new();
    let mut input_tensors: Vec<(String, Tensor)> = Vec::new();
    let inputs = graph_json["inputs"].as_object().ok_or("graph without inputs")?;
    for (name, input) in inputs {
        let desc = descriptor(&input["descriptor"])?;
        let bytes = encode(&input["data"], input.get("dataF16Bits"), desc.data_type, desc.len())?;
        let operand = if input["constant"].as_bool().unwrap_or(false) {
            builder.constant(&desc, &bytes).map_err(|e| e.to_string())?
        } else {
            let operand = builder.input(name, &desc).map_err(|e| e.to_string())?;
            let tensor = context
                .create_tensor(&TensorDescriptor::new(desc.data_type, desc.shape.clone()).writable(true))
                .map_err(|e| e.to_string())?;
            context.write_tensor(&tensor, &bytes).map_err(|e| e.to_string())?;
            input_tensors.push((name.clone(), tensor));
            operand
        };
        operands.insert(name.clone(), operand);
    }
    for op in graph_json["operators"].as_array().ok_or("graph without operators")? {
        let name = op["name"].as_str().ok_or("operator without name")?;
        let arg_list = op["argList"].as_array().ok_or("operator without argList")?;
        let results = ops::call(builder.core_mut(), name, arg_list, &operands).map_err(|e| format!("{name}: {e}"))?;
        let output_names: Vec<&str> = match &op["outputs"] {
            Value::String(s) => vec![s.as_str()],
            Value::Array(list) => list.iter().filter_map(Value::as_str).collect(),
            _ => return Err(format!("{name}: bad outputs")),
        };
        if output_names.len() > results.len() {
            return Err(format!(
                "{name}: {} outputs expected, the builder returned {}",
                output_names.len(),
                results.len()
            ));
        }
        for (out_name, operand) in output_names.iter().zip(results) {
            operands.insert(out_name.to_string(), operand);
        }
    }
    let expected = graph_json["expectedOutputs"].as_object().ok_or("graph without expectedOutputs")?;
    let mut outputs: Vec<(String, Operand, OperandDescriptor)> = Vec::new();
    for (name, exp) in expected {
        let desc = descriptor(&exp["descriptor"])?;
        let operand = operands.get(name).ok_or_else(|| format!("no operand named {name}"))?;
        if operand.descriptor() != &desc {
            return Ok(Some(format!("output {name}: descriptor {} expected {desc}", operand.descriptor())));
        }
        outputs.push((name.clone(), operand.clone(), desc));
    }
    let named: Vec<(&str, &Operand)> = outputs.iter().map(|(n, o, _)| (n.as_str(), o)).collect();
    let graph = builder.build(&named).map_err(|e| e.to_string())?;
    let mut output_tensors = Vec::new();
    for (name, _, desc) in &outputs {
        let t = context
            .create_tensor(&TensorDescriptor::new(desc.data_type, desc.shape.clone()).readable(true))
            .map_err(|e| e.to_string())?;
        output_tensors.push((name.clone(), t));
    }
    let ins: Vec<(&str, &Tensor)> = input_tensors.iter().map(|(n, t)| (n.as_str(), t)).collect();
    let outs: Vec<(&str, &Tensor)> = output_tensors.iter().map(|(n, t)| (n.as_str(), t)).collect();
    context.dispatch(&graph, &ins, &outs).map_err(|e| e.to_string())?;
    let mut failures = Vec::new();
    for ((name, _, desc), (_, tensor)) in outputs.iter().zip(&output_tensors) {
        let bytes = context.read_tensor(tensor).wait().map_err(|e| e.to_string())?;
        let case_name = case["name"].as_str().unwrap_or_default();
        let data = crate::errata::corrected(file, case_name, name, &expected[name]["data"]);
        let exp = &expected[name];
        if let Some(m) = compare(&bytes, desc.data_type, &data, exp.get("dataF16Bits"), tol)? {
            let limit = match tol {
                Tolerance::Ulp(v) => format!("{v} ULP"),
                Tolerance::Atol(v) => format!("ATOL {v}"),
            };
            failures.push(format!(
                "output {name}[{}]: got {}, expected {}, error {} > tolerance {limit}",
                m.index, m.actual, m.expected, m.error
            ));
        }
    }
    graph.destroy();
    Ok(if failures.is_empty() { None } else { Some(failures.join("; ")) })
}

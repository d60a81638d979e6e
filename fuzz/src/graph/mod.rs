//! Target `builder_ops`: a builder call sequence decoded from bytes ([`codec`]) — any of the
//! 95 operations with any arguments and options, inputs and constants of every data type and
//! rank — made through `webnn_conformance::ops::call`, then built, compiled and run when the
//! graph is small. Failing calls are skipped (they must leave the builder unchanged); every
//! result of a call that succeeded is a graph output.

pub mod codec;

use serde_json::Value;
use std::collections::HashMap;
use std::path::Path;
use webnn_conformance::ops::{self, Operands};
use webnn_core::{DataType, Operand, OperandDescriptor};

/// Largest constant made from the decoded values (bytes); larger constant inputs become
/// graph inputs.
const MAX_CONSTANT_BYTES: u64 = 1 << 16;

/// Runs one input. With `WEBNN_FUZZ_PRINT` set, prints the decoded graph first (to see what
/// a crash input does).
pub fn run(data: &[u8]) {
    static PRINT: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    let graph = codec::decode(data);
    if *PRINT.get_or_init(|| std::env::var_os("WEBNN_FUZZ_PRINT").is_some()) {
        eprintln!("{graph:#}");
    }
    execute(&graph);
}

/// `count` elements of `data_type`: `values` repeated (zeros without values).
fn fill(data_type: DataType, count: usize, values: &[Value]) -> Vec<u8> {
    let cycled: Vec<Value> = values.iter().cycle().take(count).cloned().collect();
    if cycled.len() != count {
        return vec![0; count * data_type.byte_size()];
    }
    webnn_conformance::values::encode(&Value::Array(cycled), None, data_type, count)
        .unwrap_or_else(|_| vec![0; count * data_type.byte_size()])
}

/// Replaces every `#i` reference in `v` by the name of operand `i % names.len()`.
fn resolve(v: &Value, names: &[String]) -> Value {
    match v {
        Value::String(s) if s.starts_with('#') && !names.is_empty() => {
            let i: usize = s[1..].parse().unwrap_or(0);
            Value::String(names[i % names.len()].clone())
        }
        Value::Array(items) => Value::Array(items.iter().map(|i| resolve(i, names)).collect()),
        Value::Object(map) => Value::Object(map.iter().map(|(k, i)| (k.clone(), resolve(i, names))).collect()),
        other => other.clone(),
    }
}

/// Builds the decoded graph (see [`codec::decode`] for its form) and runs it if small.
pub fn execute(graph: &Value) {
    let mut builder = crate::exec::builder();
    let mut names: Vec<String> = Vec::new();
    let mut operands = Operands::new();
    let mut input_bytes: HashMap<String, Vec<u8>> = HashMap::new();
    for (i, input) in graph["inputs"].as_array().into_iter().flatten().enumerate() {
        let name = format!("in{i}");
        names.push(name.clone());
        let data_type: DataType = input["dataType"].as_str().unwrap_or("").parse().unwrap_or(DataType::Float32);
        let shape: Vec<u32> = input["shape"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|d| d.as_u64().unwrap_or(1) as u32)
            .collect();
        let desc = OperandDescriptor::new(data_type, shape);
        let values = input["values"].as_array().map(Vec::as_slice).unwrap_or_default();
        let bytes = desc.byte_length();
        let operand = if input["constant"] == true && bytes <= MAX_CONSTANT_BYTES {
            builder.constant(&desc, &fill(data_type, desc.len(), values))
        } else {
            if bytes <= crate::exec::MAX_GRAPH_BYTES {
                input_bytes.insert(name.clone(), fill(data_type, desc.len(), values));
            }
            builder.input(&name, &desc)
        };
        if let Ok(op) = operand {
            operands.insert(name, op);
        }
    }
    let mut outputs: Vec<(String, Operand)> = Vec::new();
    for (k, op) in graph["operators"].as_array().into_iter().flatten().enumerate() {
        let name = op["name"].as_str().unwrap_or("");
        let args = match resolve(&op["argList"], &names) {
            Value::Array(args) => args,
            _ => Vec::new(),
        };
        let Ok(results) = ops::call(&mut builder, name, &args, &operands) else {
            crate::exec::trace(&format!("{name} failed"));
            continue;
        };
        crate::exec::trace(&format!("{name} ok"));
        for (j, result) in results.into_iter().enumerate() {
            let out = format!("op{k}_{j}");
            names.push(out.clone());
            operands.insert(out.clone(), result.clone());
            outputs.push((out, result));
        }
    }
    if outputs.is_empty() {
        return;
    }
    let named: Vec<(&str, &Operand)> = outputs.iter().map(|(n, o)| (n.as_str(), o)).collect();
    let Ok(built) = builder.build(&named) else {
        return;
    };
    crate::exec::run(&built, |name, len| input_bytes.get(name).cloned().unwrap_or_else(|| vec![0; len]));
}

/// Encodes every case of the WPT vector files in `wpt_dir` into `out_dir` (one file per
/// case). Returns (written, not encodable); checks that each decodes to the same operators.
pub fn write_seeds(wpt_dir: &Path, out_dir: &Path) -> std::io::Result<(usize, usize)> {
    std::fs::create_dir_all(out_dir)?;
    let (mut written, mut skipped) = (0, 0);
    let mut files: Vec<_> = std::fs::read_dir(wpt_dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "json") && !p.ends_with("index.json"))
        .collect();
    files.sort();
    for file in files {
        let json: Value = serde_json::from_str(&std::fs::read_to_string(&file)?).map_err(std::io::Error::other)?;
        let stem = file.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        for (i, case) in json["cases"].as_array().into_iter().flatten().enumerate() {
            let encoded = codec::encode_case(case).and_then(|bytes| {
                let decoded = codec::decode(&bytes);
                let names = |ops: &Value| -> Vec<String> {
                    ops.as_array().into_iter().flatten().map(|o| o["name"].to_string()).collect()
                };
                if names(&decoded["operators"]) != names(&case["graph"]["operators"]) {
                    return Err("decodes to other operators".to_string());
                }
                Ok(bytes)
            });
            match encoded {
                Ok(bytes) => {
                    std::fs::write(out_dir.join(format!("wpt-{stem}-{i}")), bytes)?;
                    written += 1;
                }
                Err(e) => {
                    if skipped < 10 {
                        eprintln!("not encodable: {stem} case {i}: {e}");
                    }
                    skipped += 1;
                }
            }
        }
    }
    Ok((written, skipped))
}

/// With `WEBNN_FUZZ_WRITE_SEEDS=WPT_DIR:OUT_DIR`, writes the seeds and exits the process
/// (the seed script runs the fuzz binary this way, so the encoder is built only once).
pub fn seeds_from_env() {
    let Ok(spec) = std::env::var("WEBNN_FUZZ_WRITE_SEEDS") else {
        return;
    };
    let Some((wpt, out)) = spec.split_once(':') else {
        eprintln!("WEBNN_FUZZ_WRITE_SEEDS must be WPT_DIR:OUT_DIR");
        std::process::exit(2);
    };
    match write_seeds(Path::new(wpt), Path::new(out)) {
        Ok((written, skipped)) => {
            eprintln!("builder_ops seeds: {written} written to {out}, {skipped} cases not encodable");
            std::process::exit(0);
        }
        Err(e) => {
            eprintln!("builder_ops seeds: {e}");
            std::process::exit(1);
        }
    }
}

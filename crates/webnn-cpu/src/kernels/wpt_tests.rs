//! WPT conformance vectors (/work/shared/wpt, see its README §4–§6) for the element-wise,
//! activation, cast, where and reduction kernels, run one operator at a time through
//! `run_op` (attributes mapped from the JSON arguments by hand, output descriptors taken from
//! the expected outputs) and compared at each case's exact tolerance.

use crate::testing::run_op;
use half::f16;
use serde_json::Value;
use webnn_core::graph::Attrs;
use webnn_core::{DataType, MLNumber, OpKind, OperandDescriptor};

const WPT_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/wpt");

fn desc_of(v: &Value) -> OperandDescriptor {
    let dt: DataType = v["dataType"].as_str().unwrap().parse().unwrap();
    let shape: Vec<u32> = v["shape"].as_array().unwrap().iter().map(|d| d.as_u64().unwrap() as u32).collect();
    OperandDescriptor::new(dt, shape)
}

fn num(v: &Value) -> f64 {
    match v {
        Value::Number(n) => n.as_f64().unwrap(),
        Value::String(s) => match s.as_str() {
            "NaN" => f64::NAN,
            "Infinity" => f64::INFINITY,
            "-Infinity" => f64::NEG_INFINITY,
            "-0" => -0.0,
            other => other.parse().unwrap(),
        },
        other => panic!("not a number: {other}"),
    }
}

fn int(v: &Value) -> i128 {
    match v {
        Value::Number(n) => n.as_i64().map(|x| x as i128).or_else(|| n.as_u64().map(|x| x as i128)).unwrap_or_else(|| n.as_f64().unwrap() as i128),
        Value::String(s) => s.parse().unwrap(),
        other => panic!("not an integer: {other}"),
    }
}

/// The element values of an operand (`data`, scalar fill expanded to `len`), as raw bytes.
fn operand_bytes(op: &Value, desc: &OperandDescriptor) -> Vec<u8> {
    let len = desc.len();
    let dt = desc.data_type;
    let items: Vec<Value> = if dt == DataType::Float16 {
        match &op["dataF16Bits"] {
            Value::Array(a) => a.clone(),
            v => vec![v.clone()],
        }
    } else {
        match &op["data"] {
            Value::Array(a) => a.clone(),
            v => vec![v.clone()],
        }
    };
    let items: Vec<Value> = if items.len() == 1 && len > 1 { vec![items[0].clone(); len] } else { items };
    assert_eq!(items.len(), len);
    let mut out = Vec::new();
    for v in &items {
        match dt {
            DataType::Float32 => out.extend_from_slice(&(num(v) as f32).to_le_bytes()),
            DataType::Float16 => out.extend_from_slice(&(int(v) as u16).to_le_bytes()),
            DataType::Int32 => out.extend_from_slice(&(int(v) as i32).to_le_bytes()),
            DataType::Uint32 => out.extend_from_slice(&(int(v) as u32).to_le_bytes()),
            DataType::Int64 => out.extend_from_slice(&(int(v) as i64).to_le_bytes()),
            DataType::Uint64 => out.extend_from_slice(&(int(v) as u64).to_le_bytes()),
            DataType::Int8 => out.extend_from_slice(&(int(v) as i8).to_le_bytes()),
            DataType::Uint8 => out.extend_from_slice(&(int(v) as u8).to_le_bytes()),
        }
    }
    out
}

fn ulp_f32(a: f32, e: f64) -> u64 {
    let sb = |x: f32| -> i64 {
        let bits = x.abs().to_bits() as i64;
        if x < 0.0 {
            -bits
        } else {
            bits
        }
    };
    if a.is_nan() && e.is_nan() {
        return 0;
    }
    if a.is_nan() || e.is_nan() {
        return u64::MAX;
    }
    (sb(a) - sb(e as f32)).unsigned_abs()
}

/// Compares one output; returns a description of the first mismatch.
fn compare(actual: &[u8], expected: &Value, desc: &OperandDescriptor, tol: &Value) -> Result<(), String> {
    let metric = tol["metricType"].as_str().unwrap();
    let tv = tol["value"].as_f64().unwrap();
    let dt = desc.data_type;
    let size = desc.len();
    let raw: Vec<Value> = match &expected["data"] {
        Value::Array(a) => a.clone(),
        v => vec![v.clone()],
    };
    let bits: Vec<Value> = match &expected["dataF16Bits"] {
        Value::Array(a) => a.clone(),
        Value::Null => vec![],
        v => vec![v.clone()],
    };
    let n = if raw.len() == 1 && size > 1 { size.min(1000) } else { raw.len() };
    if raw.len() != 1 && raw.len() != size {
        return Err(format!("expected length {} != {size}", raw.len()));
    }
    for i in 0..n {
        let ri = if raw.len() == 1 { 0 } else { i };
        let e = &raw[ri];
        let ok = match (dt, metric) {
            (DataType::Float32, "ULP") => {
                let a = f32::from_le_bytes(actual[i * 4..i * 4 + 4].try_into().unwrap());
                let ev = num(e);
                let d = if a as f64 == ev { 0 } else { ulp_f32(a, ev) };
                if d as f64 > tv {
                    Err(format!("[{i}] got {a:e}, expected {ev:e}: {d} ULP > {tv}"))
                } else {
                    Ok(())
                }
            }
            (DataType::Float16, "ULP") => {
                let a = u16::from_le_bytes(actual[i * 2..i * 2 + 2].try_into().unwrap());
                let b = int(&bits[ri]) as u16;
                let d = if a & 0x7fff == 0 && b & 0x7fff == 0 { 0 } else { (a as i32 - b as i32).unsigned_abs() };
                if d as f64 > tv {
                    Err(format!(
                        "[{i}] got {} ({a:#06x}), expected {} ({b:#06x}): {d} ULP > {tv}",
                        f16::from_bits(a),
                        f16::from_bits(b)
                    ))
                } else {
                    Ok(())
                }
            }
            (DataType::Float32 | DataType::Float16, "ATOL") => {
                let a = if dt == DataType::Float32 {
                    f32::from_le_bytes(actual[i * 4..i * 4 + 4].try_into().unwrap()) as f64
                } else {
                    f16::from_bits(u16::from_le_bytes(actual[i * 2..i * 2 + 2].try_into().unwrap())).to_f64()
                };
                let ev = num(e);
                if (a - ev).abs() <= tv {
                    Ok(())
                } else {
                    Err(format!("[{i}] got {a:e}, expected {ev:e}: |diff| > {tv}"))
                }
            }
            _ => {
                let w = dt.byte_size();
                let mut buf = [0u8; 16];
                buf[..w].copy_from_slice(&actual[i * w..i * w + w]);
                let a: i128 = match dt {
                    DataType::Int32 => i32::from_le_bytes(buf[..4].try_into().unwrap()) as i128,
                    DataType::Uint32 => u32::from_le_bytes(buf[..4].try_into().unwrap()) as i128,
                    DataType::Int64 => i64::from_le_bytes(buf[..8].try_into().unwrap()) as i128,
                    DataType::Uint64 => u64::from_le_bytes(buf[..8].try_into().unwrap()) as i128,
                    DataType::Int8 => buf[0] as i8 as i128,
                    _ => buf[0] as i128,
                };
                let ev = int(e);
                if ((a - ev).unsigned_abs() as f64) <= tv {
                    Ok(())
                } else {
                    Err(format!("[{i}] got {a}, expected {ev}"))
                }
            }
        };
        ok?;
    }
    Ok(())
}

/// The options dictionary of an operator call (empty when absent).
fn options(op: &Value) -> serde_json::Map<String, Value> {
    op["argList"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["kind"] == "options")
        .and_then(|a| a["value"].as_object().cloned())
        .unwrap_or_default()
}

/// A literal positional argument.
fn value_arg<'a>(op: &'a Value, name: &str) -> Option<&'a Value> {
    op["argList"].as_array().unwrap().iter().find(|a| a["kind"] == "value" && a["name"] == name).map(|a| &a["value"])
}

/// A float option cast to the input's data type (§9.2), as f64.
fn float_attr(opts: &serde_json::Map<String, Value>, key: &str, default: f64, dt: DataType) -> f64 {
    let v = opts.get(key).map(num).unwrap_or(default);
    MLNumber::Double(v).cast(dt).to_f64()
}

/// The resolved attributes of a single-operator case.
fn attrs_of(kind: OpKind, op: &Value, input: &OperandDescriptor) -> Attrs {
    let opts = options(op);
    let dt = input.data_type;
    let rank = input.rank() as u32;
    match kind {
        OpKind::Clamp => {
            let get = |k: &str, d: f64| match opts.get(k) {
                Some(v) if v.is_string() => MLNumber::BigInt(int(v)),
                Some(v) => MLNumber::Double(num(v)),
                None => MLNumber::Double(d),
            };
            Attrs::Clamp { min: get("minValue", f64::NEG_INFINITY).cast(dt), max: get("maxValue", f64::INFINITY).cast(dt) }
        }
        OpKind::Elu => Attrs::AlphaBeta { alpha: float_attr(&opts, "alpha", 1.0, dt), beta: 0.0 },
        OpKind::LeakyRelu => Attrs::AlphaBeta { alpha: float_attr(&opts, "alpha", 0.01, dt), beta: 0.0 },
        OpKind::HardSigmoid => Attrs::AlphaBeta {
            alpha: float_attr(&opts, "alpha", 0.2, dt),
            beta: float_attr(&opts, "beta", 0.5, dt),
        },
        OpKind::Linear => Attrs::AlphaBeta {
            alpha: float_attr(&opts, "alpha", 1.0, dt),
            beta: float_attr(&opts, "beta", 0.0, dt),
        },
        // The 2025 vectors call softmax(input) on 2-D inputs: the old default axis was 1.
        OpKind::Softmax => Attrs::Axis { axis: value_arg(op, "axis").map(|v| int(v) as u32).unwrap_or(1) },
        OpKind::ArgMin | OpKind::ArgMax => Attrs::ArgMinMax {
            axis: int(value_arg(op, "axis").unwrap()) as u32,
            keep_dimensions: opts.get("keepDimensions").and_then(Value::as_bool).unwrap_or(false),
        },
        OpKind::CumulativeSum => Attrs::CumulativeSum {
            axis: int(value_arg(op, "axis").unwrap()) as u32,
            exclusive: opts.get("exclusive").and_then(Value::as_bool).unwrap_or(false),
            reversed: opts.get("reversed").and_then(Value::as_bool).unwrap_or(false),
        },
        k if k.idl_name().starts_with("reduce") => {
            let mut axes: Vec<u32> = match opts.get("axes") {
                Some(Value::Array(a)) => a.iter().map(|x| (int(x) + if int(x) < 0 { rank as i128 } else { 0 }) as u32).collect(),
                _ => (0..rank).collect(),
            };
            axes.sort_unstable();
            axes.dedup();
            Attrs::Reduce { axes, keep_dimensions: opts.get("keepDimensions").and_then(Value::as_bool).unwrap_or(false) }
        }
        _ => Attrs::None,
    }
}

/// Runs every single-operator case of `file`; returns (passed, total, failure messages).
fn run_file(file: &str) -> (usize, usize, Vec<String>) {
    let path = format!("{WPT_DIR}/{file}.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let json: Value = serde_json::from_str(&text).unwrap();
    let (mut passed, mut total, mut failures) = (0, 0, Vec::new());
    for case in json["cases"].as_array().unwrap() {
        if case.get("notApplicable").is_some() {
            continue;
        }
        let graph = &case["graph"];
        let ops = graph["operators"].as_array().unwrap();
        if ops.len() != 1 {
            continue;
        }
        total += 1;
        let name = case["name"].as_str().unwrap();
        let op = &ops[0];
        let kind = OpKind::from_idl_name(op["name"].as_str().unwrap()).unwrap();
        let mut inputs = Vec::new();
        for a in op["argList"].as_array().unwrap().iter().filter(|a| a["kind"] == "operand") {
            let src = &graph["inputs"][a["value"].as_str().unwrap()];
            let desc = desc_of(&src["descriptor"]);
            let bytes = operand_bytes(src, &desc);
            inputs.push(Some((desc, bytes)));
        }
        let out_names: Vec<String> = match &op["outputs"] {
            Value::String(s) => vec![s.clone()],
            Value::Array(a) => a.iter().map(|s| s.as_str().unwrap().to_string()).collect(),
            _ => unreachable!(),
        };
        let out_descs: Vec<OperandDescriptor> =
            out_names.iter().map(|n| desc_of(&graph["expectedOutputs"][n]["descriptor"])).collect();
        let attrs = attrs_of(kind, op, &inputs[0].as_ref().unwrap().0);
        let result = std::panic::catch_unwind(|| run_op(kind, &inputs, attrs.clone(), &out_descs));
        let outcome = match result {
            Err(_) => Err("panicked".to_string()),
            Ok(outs) => out_names
                .iter()
                .zip(&outs)
                .zip(&out_descs)
                .try_for_each(|((n, o), d)| compare(o, &graph["expectedOutputs"][n], d, &case["tolerance"])),
        };
        match outcome {
            Ok(()) => passed += 1,
            Err(e) => failures.push(format!("{file}: {name}: {e}")),
        }
    }
    (passed, total, failures)
}

fn check_files(files: &[&str]) {
    let mut all_failures = Vec::new();
    let (mut p, mut t) = (0, 0);
    for f in files {
        let (passed, total, failures) = run_file(f);
        println!("{f}: {passed}/{total}");
        p += passed;
        t += total;
        all_failures.extend(failures);
    }
    println!("total: {p}/{t}");
    assert!(all_failures.is_empty(), "{} failures:\n{}", all_failures.len(), all_failures.join("\n"));
}

#[test]
fn wpt_unary() {
    check_files(&[
        "abs", "ceil", "cos", "erf", "exp", "floor", "identity", "log", "neg", "reciprocal", "sin", "sign", "sqrt", "tan",
    ]);
}

#[test]
fn wpt_logical() {
    check_files(&[
        "equal",
        "not_equal",
        "greater",
        "greater_or_equal",
        "lesser",
        "lesser_or_equal",
        "logical_and",
        "logical_not",
        "logical_or",
        "logical_xor",
        "where",
    ]);
}

#[test]
fn wpt_activation() {
    check_files(&[
        "clamp",
        "elu",
        "gelu",
        "hard_sigmoid",
        "hard_swish",
        "leaky_relu",
        "linear",
        "prelu",
        "relu",
        "sigmoid",
        "softmax",
        "softplus",
        "softsign",
        "tanh",
    ]);
}

#[test]
fn wpt_cast() {
    check_files(&["cast"]);
}

#[test]
fn wpt_reduction() {
    check_files(&[
        "reduce_l1",
        "reduce_l2",
        "reduce_log_sum",
        "reduce_log_sum_exp",
        "reduce_max",
        "reduce_mean",
        "reduce_min",
        "reduce_product",
        "reduce_sum",
        "reduce_sum_square",
        "arg_min_max",
        "cumulative_sum",
    ]);
}

#[test]
fn wpt_binary() {
    check_files(&["add", "sub", "mul", "div", "max", "min", "pow"]);
}

/// Rough throughput of the element-wise and reduction kernels (run with
/// `cargo test --release -p webnn-cpu bench_k1 -- --ignored --nocapture`).
#[test]
#[ignore]
fn bench_k1() {
    use crate::plan::{CompiledPlan, Plan};
    use std::sync::Arc;
    use webnn_core::backend::CompiledGraph;
    use webnn_core::graph::{OperandNode, OperandSource, Operation};
    use webnn_core::{Graph, OperandId};
    let n: u32 = 1 << 22;
    let shape = vec![1024, n / 1024];
    let f32d = OperandDescriptor::new(DataType::Float32, shape.clone());
    let cases: Vec<(OpKind, Attrs, OperandDescriptor)> = vec![
        (OpKind::Relu, Attrs::None, f32d.clone()),
        (OpKind::Abs, Attrs::None, f32d.clone()),
        (OpKind::Exp, Attrs::None, f32d.clone()),
        (OpKind::Sigmoid, Attrs::None, f32d.clone()),
        (OpKind::Tanh, Attrs::None, f32d.clone()),
        (OpKind::Gelu, Attrs::None, f32d.clone()),
        (OpKind::Erf, Attrs::None, f32d.clone()),
        (OpKind::Elu, Attrs::AlphaBeta { alpha: 1.0, beta: 0.0 }, f32d.clone()),
        (OpKind::HardSwish, Attrs::None, f32d.clone()),
        (OpKind::Clamp, Attrs::Clamp { min: MLNumber::Double(0.0).cast(DataType::Float32), max: MLNumber::Double(6.0).cast(DataType::Float32) }, f32d.clone()),
        (OpKind::Softmax, Attrs::Axis { axis: 1 }, f32d.clone()),
        (OpKind::Softmax, Attrs::Axis { axis: 0 }, f32d.clone()),
        (OpKind::ReduceSum, Attrs::Reduce { axes: vec![1], keep_dimensions: false }, OperandDescriptor::new(DataType::Float32, vec![1024])),
        (OpKind::ReduceSum, Attrs::Reduce { axes: vec![0], keep_dimensions: false }, OperandDescriptor::new(DataType::Float32, vec![n / 1024])),
        (OpKind::ReduceMean, Attrs::Reduce { axes: vec![0, 1], keep_dimensions: false }, OperandDescriptor::new(DataType::Float32, vec![])),
        (OpKind::Cast, Attrs::None, OperandDescriptor::new(DataType::Float16, shape.clone())),
        (OpKind::IsNaN, Attrs::None, OperandDescriptor::new(DataType::Uint8, shape.clone())),
    ];
    let data: Vec<f32> = (0..n).map(|i| ((i % 1000) as f32 - 500.0) / 100.0).collect();
    let pool = Arc::new(crate::pool::build_pool(None).unwrap());
    for (kind, attrs, out) in cases {
        let mut graph = Graph::default();
        graph.operands.push(OperandNode { descriptor: f32d.clone(), source: OperandSource::Input("x".into()) });
        graph.inputs.push(("x".into(), OperandId(0)));
        graph.operands.push(OperandNode { descriptor: out.clone(), source: OperandSource::Operation { op: 0, output: 0 } });
        graph.outputs.push(("y".into(), OperandId(1)));
        graph.operations.push(Operation { kind, inputs: vec![Some(OperandId(0))], outputs: vec![OperandId(1)], attrs: attrs.clone(), label: String::new() });
        let compiled = CompiledPlan::new(Plan::compile(&graph).unwrap(), pool.clone());
        let input = bytemuck::cast_slice::<f32, u8>(&data).to_vec();
        let mut output = vec![0u8; out.byte_length() as usize];
        let iters = 10;
        compiled.execute(&[&input], &mut [&mut output]).unwrap();
        let t = std::time::Instant::now();
        for _ in 0..iters {
            compiled.execute(&[&input], &mut [&mut output]).unwrap();
        }
        let ns = t.elapsed().as_nanos() as f64 / iters as f64 / n as f64;
        println!("{kind} {attrs:?}: {ns:.3} ns/elem");
    }
}

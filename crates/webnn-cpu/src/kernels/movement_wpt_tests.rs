//! The WPT conformance vectors of the data-movement, gather/scatter and (de)quantize ops, run
//! through `run_op` (attributes resolved by hand the way the builder resolves them) and compared
//! with the exact rules and tolerances of `/work/shared/wpt/README.md` §5.

use crate::testing::run_op;
use serde_json::Value;
use webnn_core::graph::Attrs;
use webnn_core::types::{MLNumber, PaddingMode};
use webnn_core::{DataType, OpKind, OperandDescriptor};

const WPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/wpt");

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
        Value::Number(n) => n.as_i64().map(|x| x as i128).unwrap_or_else(|| n.as_f64().unwrap() as i128),
        Value::String(s) => s.parse().unwrap(),
        other => panic!("not an integer: {other}"),
    }
}

fn descriptor(v: &Value) -> OperandDescriptor {
    let dt: DataType = v["dataType"].as_str().unwrap().parse().unwrap();
    let shape = v["shape"].as_array().unwrap().iter().map(|d| d.as_u64().unwrap() as u32).collect::<Vec<_>>();
    OperandDescriptor::new(dt, shape)
}

/// The values of an operand (`data`, or `dataF16Bits` for float16), a scalar fill expanded.
fn values(op: &Value, count: usize, use_bits: bool) -> Vec<Value> {
    let key = if use_bits { "dataF16Bits" } else { "data" };
    match &op[key] {
        Value::Array(a) => a.clone(),
        v => vec![v.clone(); count],
    }
}

fn encode(desc: &OperandDescriptor, op: &Value) -> Vec<u8> {
    let n = desc.element_count() as usize;
    let dt = desc.data_type;
    let vals = values(op, n, dt == DataType::Float16);
    let mut out = Vec::new();
    for v in &vals {
        match dt {
            DataType::Float32 => out.extend((num(v) as f32).to_le_bytes()),
            DataType::Float16 => out.extend((int(v) as u16).to_le_bytes()),
            DataType::Int32 => out.extend((int(v) as i32).to_le_bytes()),
            DataType::Uint32 => out.extend((int(v) as u32).to_le_bytes()),
            DataType::Int64 => out.extend((int(v) as i64).to_le_bytes()),
            DataType::Uint64 => out.extend((int(v) as u64).to_le_bytes()),
            DataType::Int8 => out.extend((int(v) as i8).to_le_bytes()),
            DataType::Uint8 => out.extend((int(v) as u8).to_le_bytes()),
        }
    }
    assert_eq!(out.len(), desc.byte_length() as usize, "data length");
    out
}

/// README §5: ULP distance of one element (actual bytes vs expected value).
fn ulp_distance(dt: DataType, act: &[u8], exp: &Value, exp_bits: Option<&Value>) -> f64 {
    let sb = |x: f32| -> i64 {
        let m = x.abs().to_bits() as i64;
        if x.is_sign_negative() { -m } else { m }
    };
    match dt {
        DataType::Float32 => {
            let a = f32::from_le_bytes(act.try_into().unwrap());
            let e = num(exp) as f32;
            if a == e {
                return 0.0;
            }
            if a.is_nan() && e.is_nan() {
                return 0.0;
            }
            (sb(a) - sb(e)).unsigned_abs() as f64
        }
        DataType::Float16 => {
            let a = u16::from_le_bytes(act.try_into().unwrap()) as i64;
            let b = int(exp_bits.unwrap()) as i64;
            if a & 0x7FFF == 0 && b & 0x7FFF == 0 {
                return 0.0;
            }
            (a - b).abs() as f64
        }
        _ => {
            let a: i128 = match dt {
                DataType::Int32 => i32::from_le_bytes(act.try_into().unwrap()) as i128,
                DataType::Uint32 => u32::from_le_bytes(act.try_into().unwrap()) as i128,
                DataType::Int64 => i64::from_le_bytes(act.try_into().unwrap()) as i128,
                DataType::Uint64 => u64::from_le_bytes(act.try_into().unwrap()) as i128,
                DataType::Int8 => act[0] as i8 as i128,
                _ => act[0] as i128,
            };
            (a - int(exp)).abs() as f64
        }
    }
}

fn usizes(v: &Value) -> Vec<u32> {
    v.as_array().unwrap().iter().map(|x| x.as_u64().unwrap() as u32).collect()
}

/// One operand slot of `run_op`.
type Slot = Option<(OperandDescriptor, Vec<u8>)>;

/// Builds the slots and attributes of one operator the way the builder would resolve them.
fn resolve(
    kind: OpKind,
    args: &[Value],
    inputs: &serde_json::Map<String, Value>,
    outs: &[OperandDescriptor],
) -> (Vec<Slot>, Attrs) {
    let operand = |name: &str| {
        let v = &inputs[name];
        let d = descriptor(&v["descriptor"]);
        let bytes = encode(&d, v);
        Some((d, bytes))
    };
    let mut slots = Vec::new();
    let mut values = std::collections::HashMap::new();
    let mut options = serde_json::Map::new();
    for a in args {
        match a["kind"].as_str().unwrap() {
            "operand" => slots.push(operand(a["value"].as_str().unwrap())),
            "operandList" => {
                for n in a["value"].as_array().unwrap() {
                    slots.push(operand(n.as_str().unwrap()));
                }
            }
            "value" => {
                values.insert(a["name"].as_str().unwrap().to_string(), a["value"].clone());
            }
            "options" => options = a["value"].as_object().cloned().unwrap_or_default(),
            other => panic!("argument kind {other}"),
        }
    }
    let in_desc = slots[0].as_ref().unwrap().0.clone();
    let rank = in_desc.shape.len();
    let opt_axis = || options.get("axis").map_or(0, |v| v.as_u64().unwrap() as u32);
    let attrs = match kind {
        OpKind::Concat => Attrs::Axis { axis: values["axis"].as_u64().unwrap() as u32 },
        OpKind::Gather | OpKind::GatherElements | OpKind::ScatterElements => Attrs::Axis { axis: opt_axis() },
        OpKind::Pad => {
            let mode = options.get("mode").map_or(PaddingMode::Constant, |m| m.as_str().unwrap().parse().unwrap());
            let value = options.get("value").map_or(0.0, num);
            Attrs::Pad {
                beginning: usizes(&values["beginningPadding"]),
                ending: usizes(&values["endingPadding"]),
                mode,
                value: MLNumber::Double(value).cast(in_desc.data_type),
            }
        }
        OpKind::Reverse => Attrs::Reverse {
            axes: options.get("axes").map_or_else(|| (0..rank as u32).collect(), usizes),
        },
        OpKind::Slice => Attrs::Slice {
            starts: usizes(&values["starts"]),
            sizes: usizes(&values["sizes"]),
            strides: options.get("strides").map_or_else(|| vec![1; rank], usizes),
        },
        OpKind::Split => Attrs::Split { axis: opt_axis(), sizes: outs.iter().map(|d| d.shape[opt_axis() as usize]).collect() },
        OpKind::Tile => Attrs::Tile { repetitions: usizes(&values["repetitions"]) },
        OpKind::Transpose => Attrs::Transpose {
            permutation: options.get("permutation").map_or_else(|| (0..rank as u32).rev().collect(), usizes),
        },
        OpKind::Triangular => Attrs::Triangular {
            upper: !matches!(options.get("upper"), Some(Value::Bool(false))),
            diagonal: options.get("diagonal").map_or(0, |v| v.as_i64().unwrap() as i32),
        },
        _ => Attrs::None,
    };
    (slots, attrs)
}

/// Runs every applicable case of one file; returns (passed, applicable, failures).
fn run_file(file: &str) -> (usize, usize, Vec<String>) {
    let text = std::fs::read_to_string(format!("{WPT}/{file}.json")).expect("WPT vectors in /work/shared/wpt");
    let doc: Value = serde_json::from_str(&text).unwrap();
    let (mut passed, mut total, mut failures) = (0, 0, Vec::new());
    for case in doc["cases"].as_array().unwrap() {
        if case.get("notApplicable").is_some() {
            continue;
        }
        total += 1;
        let name = case["name"].as_str().unwrap();
        let graph = &case["graph"];
        let ops = graph["operators"].as_array().unwrap();
        assert_eq!(ops.len(), 1, "{name}: single-operator cases only");
        let op = &ops[0];
        let kind = OpKind::from_idl_name(op["name"].as_str().unwrap()).unwrap();
        let out_names: Vec<String> = match &op["outputs"] {
            Value::String(s) => vec![s.clone()],
            Value::Array(a) => a.iter().map(|s| s.as_str().unwrap().to_string()).collect(),
            _ => panic!(),
        };
        let expected = &graph["expectedOutputs"];
        let outs: Vec<OperandDescriptor> = out_names.iter().map(|n| descriptor(&expected[n]["descriptor"])).collect();
        let (slots, attrs) =
            resolve(kind, op["argList"].as_array().unwrap(), graph["inputs"].as_object().unwrap(), &outs);
        let result = run_op(kind, &slots, attrs, &outs);
        let tol = case["tolerance"]["value"].as_f64().unwrap();
        assert_eq!(case["tolerance"]["metricType"], "ULP");
        let mut ok = true;
        for (k, n) in out_names.iter().enumerate() {
            let e = &expected[n];
            let d = &outs[k];
            let size = d.element_count() as usize;
            let exp = values(e, size.min(1000), false);
            let bits = (d.data_type == DataType::Float16).then(|| values(e, size.min(1000), true));
            let es = d.data_type.byte_size();
            let bad = (0..exp.len()).find(|&i| {
                ulp_distance(d.data_type, &result[k][i * es..(i + 1) * es], &exp[i], bits.as_ref().map(|b| &b[i])) > tol
            });
            if exp.len() > size || exp.len() < size.min(1000) {
                ok = false;
            }
            if let Some(i) = bad {
                ok = false;
                failures.push(format!("{file}: {name}: output {n} element {i} expected {}", exp[i]));
            }
        }
        if ok {
            passed += 1;
        }
    }
    (passed, total, failures)
}

#[test]
fn wpt_vectors_pass_at_their_tolerances() {
    let files = [
        "concat",
        "expand",
        "pad",
        "reshape",
        "reverse",
        "slice",
        "split",
        "tile",
        "transpose",
        "triangular",
        "gather",
        "gatherElements",
        "gatherND",
        "scatterElements",
        "scatterND",
        "quantizeLinear",
        "dequantizeLinear",
    ];
    let mut all = Vec::new();
    let mut summary = Vec::new();
    for f in files {
        let (p, t, fails) = run_file(f);
        summary.push(format!("{f}: {p}/{t}"));
        all.extend(fails);
    }
    eprintln!("WPT: {}", summary.join(", "));
    assert!(all.is_empty(), "{} failures:\n{}", all.len(), all.join("\n"));
}

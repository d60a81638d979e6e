//! The WPT conformance vectors of gru, gruCell, lstm and lstmCell (`/work/shared/wpt`), run
//! through a compiled plan at their exact tolerances (README §5). Operands the case marks as
//! constants become graph constants, so the weight packing of `lower` is exercised.

use super::tests::{run_graph, GraphInput};
use serde_json::Value;
use webnn_core::{
    Attrs, DataType, GruWeightLayout, LstmWeightLayout, OpKind, OperandDescriptor, RecurrentNetworkActivation,
    RecurrentNetworkDirection,
};

const WPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/wpt");

fn number(v: &Value) -> f64 {
    match v {
        Value::Number(n) => n.as_f64().unwrap_or(f64::NAN),
        Value::String(s) => match s.as_str() {
            "NaN" => f64::NAN,
            "Infinity" => f64::INFINITY,
            "-Infinity" => f64::NEG_INFINITY,
            "-0" => -0.0,
            other => other.parse().unwrap_or(f64::NAN),
        },
        _ => f64::NAN,
    }
}

fn descriptor(v: &Value) -> OperandDescriptor {
    let dt: DataType = v["dataType"].as_str().unwrap().parse().unwrap();
    let shape: Vec<u32> = v["shape"].as_array().unwrap().iter().map(|d| d.as_u64().unwrap() as u32).collect();
    OperandDescriptor::new(dt, shape)
}

/// The element values of an operand entry: float32 as f64 source values, float16 as bit patterns.
fn values(entry: &Value, desc: &OperandDescriptor) -> Vec<f64> {
    let n = desc.len();
    let key = if desc.data_type == DataType::Float16 { "dataF16Bits" } else { "data" };
    match &entry[key] {
        Value::Array(a) => a.iter().map(number).collect(),
        scalar => vec![number(scalar); n.max(1)],
    }
}

fn bytes(desc: &OperandDescriptor, vals: &[f64]) -> Vec<u8> {
    match desc.data_type {
        DataType::Float16 => vals.iter().flat_map(|&v| (v as u16).to_le_bytes()).collect(),
        _ => vals.iter().flat_map(|&v| (v as f32).to_le_bytes()).collect(),
    }
}

fn ulp_f32(a: f32, e: f64) -> u64 {
    let sb = |x: f32| -> i64 { (if x < 0.0 { -1 } else { 1 }) * (x.abs().to_bits() as i64) };
    let e = e as f32;
    if a == e {
        return 0;
    }
    (sb(a) - sb(e)).unsigned_abs()
}

fn ulp_f16(a: u16, b: u16) -> u64 {
    if a & 0x7FFF == 0 && b & 0x7FFF == 0 {
        return 0;
    }
    (a as i64 - b as i64).unsigned_abs()
}

fn activations<const N: usize>(v: &Value, default: [RecurrentNetworkActivation; N]) -> [RecurrentNetworkActivation; N] {
    match v.as_array() {
        Some(a) => std::array::from_fn(|i| a[i].as_str().unwrap().parse().unwrap()),
        None => default,
    }
}

/// Runs one case; returns Err(description) on a mismatch.
fn run_case(case: &Value) -> Result<(), String> {
    use RecurrentNetworkActivation::{Sigmoid, Tanh};
    let graph = &case["graph"];
    let ops = graph["operators"].as_array().unwrap();
    assert_eq!(ops.len(), 1, "single-operator cases only");
    let op = &ops[0];
    let kind = match op["name"].as_str().unwrap() {
        "gru" => OpKind::Gru,
        "gruCell" => OpKind::GruCell,
        "lstm" => OpKind::Lstm,
        "lstmCell" => OpKind::LstmCell,
        other => panic!("unexpected op {other}"),
    };
    let slot_names = kind.limits_kind().inputs();
    let mut inputs: Vec<Option<GraphInput>> = vec![None; slot_names.len()];
    let mut put = |slot: &str, name: &str| {
        let entry = &graph["inputs"][name];
        let desc = descriptor(&entry["descriptor"]);
        let vals = values(entry, &desc);
        let i = slot_names.iter().position(|s| *s == slot).unwrap_or_else(|| panic!("no slot {slot}"));
        inputs[i] = Some(GraphInput { bytes: bytes(&desc, &vals), desc, constant: entry["constant"].as_bool().unwrap_or(false) });
    };
    let mut steps = 1u32;
    let mut hidden = 0u32;
    let empty = serde_json::Map::new();
    let mut options = &empty;
    for arg in op["argList"].as_array().unwrap() {
        let name = arg["name"].as_str().unwrap();
        match arg["kind"].as_str().unwrap() {
            "operand" => put(name, arg["value"].as_str().unwrap()),
            "value" if name == "steps" => steps = arg["value"].as_u64().unwrap() as u32,
            "value" if name == "hiddenSize" => hidden = arg["value"].as_u64().unwrap() as u32,
            "options" => {
                options = arg["value"].as_object().unwrap();
                for key in arg["operandOptions"].as_array().unwrap() {
                    let key = key.as_str().unwrap();
                    put(key, options[key].as_str().unwrap());
                }
            }
            other => panic!("unexpected argument {name} of kind {other}"),
        }
    }
    let flag = |k: &str, d: bool| options.get(k).and_then(Value::as_bool).unwrap_or(d);
    let direction: RecurrentNetworkDirection =
        options.get("direction").and_then(Value::as_str).map_or(RecurrentNetworkDirection::Forward, |s| s.parse().unwrap());
    let null = Value::Null;
    let acts = options.get("activations").unwrap_or(&null);
    let attrs = match kind {
        OpKind::Gru | OpKind::GruCell => Attrs::Gru {
            steps,
            hidden_size: hidden,
            reset_after: flag("resetAfter", true),
            return_sequence: flag("returnSequence", false),
            direction,
            layout: options.get("layout").and_then(Value::as_str).map_or(GruWeightLayout::Zrn, |s| s.parse().unwrap()),
            activations: activations(acts, [Sigmoid, Tanh]),
        },
        _ => Attrs::Lstm {
            steps,
            hidden_size: hidden,
            return_sequence: flag("returnSequence", false),
            direction,
            layout: options.get("layout").and_then(Value::as_str).map_or(LstmWeightLayout::Iofg, |s| s.parse().unwrap()),
            activations: activations(acts, [Sigmoid, Tanh, Tanh]),
        },
    };
    let out_names: Vec<&str> = match &op["outputs"] {
        Value::String(s) => vec![s.as_str()],
        Value::Array(a) => a.iter().map(|v| v.as_str().unwrap()).collect(),
        _ => panic!("outputs"),
    };
    let expected: Vec<(&Value, OperandDescriptor)> = out_names
        .iter()
        .map(|n| {
            let e = &graph["expectedOutputs"][*n];
            (e, descriptor(&e["descriptor"]))
        })
        .collect();
    let descs: Vec<OperandDescriptor> = expected.iter().map(|(_, d)| d.clone()).collect();
    let actual = run_graph(kind, &inputs, attrs, &descs);
    let tol = case["tolerance"]["value"].as_f64().unwrap() as u64;
    assert_eq!(case["tolerance"]["metricType"], "ULP");
    for (k, ((entry, desc), act)) in expected.iter().zip(&actual).enumerate() {
        let exp = values(entry, desc);
        let got: Vec<u64> = match desc.data_type {
            DataType::Float16 => {
                let a: Vec<u16> = crate::testing::from_bytes(act);
                a.iter().zip(&exp).map(|(&a, &e)| ulp_f16(a, e as u16)).collect()
            }
            _ => {
                let a: Vec<f32> = crate::testing::from_bytes(act);
                a.iter().zip(&exp).map(|(&a, &e)| ulp_f32(a, e)).collect()
            }
        };
        if exp.len() != desc.len() {
            return Err(format!("output {k}: {} expected values for {} elements", exp.len(), desc.len()));
        }
        if let Some((i, d)) = got.iter().enumerate().find(|(_, &d)| d > tol) {
            let a: Vec<f32> = if desc.data_type == DataType::Float16 {
                crate::testing::from_bytes::<half::f16>(act).iter().map(|v| v.to_f32()).collect()
            } else {
                crate::testing::from_bytes(act)
            };
            return Err(format!("output {k} element {i}: {d} ULP > {tol}; got {a:?}, expected {exp:?}"));
        }
    }
    Ok(())
}

fn run_file(file: &str) -> (usize, usize) {
    let text = std::fs::read_to_string(format!("{WPT}/{file}.json")).expect("WPT vectors");
    let json: Value = serde_json::from_str(&text).unwrap();
    let cases = json["cases"].as_array().unwrap();
    let mut failures = Vec::new();
    let mut run = 0;
    for case in cases {
        if case.get("notApplicable").is_some() {
            continue;
        }
        run += 1;
        if let Err(e) = run_case(case) {
            failures.push(format!("{}: {e}", case["name"].as_str().unwrap()));
        }
    }
    eprintln!("{file}: {}/{} passed", run - failures.len(), run);
    assert!(failures.is_empty(), "{file}: {} failures:\n{}", failures.len(), failures.join("\n"));
    (run - failures.len(), run)
}

#[test]
fn wpt_gru() {
    assert_eq!(run_file("gru"), (12, 12));
}

#[test]
fn wpt_gru_cell() {
    assert_eq!(run_file("gru_cell"), (4, 4));
}

#[test]
fn wpt_lstm() {
    assert_eq!(run_file("lstm"), (14, 14));
}

#[test]
fn wpt_lstm_cell() {
    assert_eq!(run_file("lstm_cell"), (5, 5));
}

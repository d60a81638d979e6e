//! Structured fuzzing of the importer: single-node models of every supported operator with
//! random attributes (extreme values included), random input counts, shapes, data types and
//! constant values. Importing (and building) must never panic.

mod build;
mod common;

use build::*;
use common::builder;
use webnn_core::testing::Rng;
use webnn_onnx::proto::{attribute_type as at, data_type as dt, AttributeProto, TensorProto};
use webnn_onnx::{import, supported_operators, ImportOptions, OnnxModel};

static LOCATIONS: std::sync::Mutex<std::collections::BTreeSet<String>> =
    std::sync::Mutex::new(std::collections::BTreeSet::new());

/// Mostly small integers, sometimes extreme ones.
fn int(rng: &mut Rng) -> i64 {
    if rng.below(10) < 7 {
        return rng.below(7) as i64 - 2;
    }
    const INTERESTING: &[i64] = &[0, 1, -1, 2, 3, 4, -2, 7, 1 << 31, -(1 << 31), i64::MAX, i64::MIN, 1 << 40];
    if rng.below(4) == 0 {
        rng.next_u64() as i64
    } else {
        INTERESTING[rng.below(INTERESTING.len() as u64) as usize]
    }
}

/// A float from a list of interesting values.
fn float(rng: &mut Rng) -> f32 {
    const INTERESTING: &[f32] = &[0.0, 1.0, -1.0, 0.5, 2.0, 1e-5, 1e30, -1e30, f32::NAN, f32::INFINITY];
    INTERESTING[rng.below(INTERESTING.len() as u64) as usize]
}

fn random_attr(rng: &mut Rng, name: &str) -> AttributeProto {
    let mut a = AttributeProto { name: Some(name.into()), ..Default::default() };
    // Mostly the attribute's own type, sometimes any.
    let ints = [
        "pads",
        "strides",
        "kernel_shape",
        "dilations",
        "axes",
        "perm",
        "split",
        "starts",
        "ends",
        "output_shape",
        "output_padding",
        "value_ints",
    ];
    let floats = [
        "alpha",
        "beta",
        "epsilon",
        "gamma",
        "bias",
        "lambd",
        "ratio",
        "momentum",
        "cubic_coeff_a",
        "extrapolation_value",
        "value_float",
        "min",
        "max",
    ];
    let strings = [
        "mode",
        "auto_pad",
        "direction",
        "approximate",
        "coordinate_transformation_mode",
        "nearest_mode",
        "equation",
        "keep_aspect_ratio_policy",
        "reduction",
    ];
    let kind = if rng.below(5) == 0 {
        rng.below(5)
    } else if ints.contains(&name) {
        1
    } else if floats.contains(&name) {
        2
    } else if strings.contains(&name) {
        3
    } else if name == "activations" || name == "scales" {
        4
    } else {
        0
    };
    if name == "activations" && kind == 4 {
        a.r#type = Some(at::STRINGS);
        let n = 1 + rng.below(6);
        a.strings =
            (0..n).map(|_| ["Tanh", "Sigmoid", "Relu", "Elu"][rng.below(4) as usize].as_bytes().to_vec()).collect();
        return a;
    }
    match kind {
        0 => {
            a.r#type = Some(at::INT);
            a.i = Some(int(rng));
        }
        1 => {
            a.r#type = Some(at::INTS);
            a.ints = (0..rng.below(6)).map(|_| int(rng)).collect();
        }
        2 => {
            a.r#type = Some(at::FLOAT);
            a.f = Some(float(rng));
        }
        3 => {
            a.r#type = Some(at::STRING);
            let words = [
                "",
                "NOTSET",
                "SAME_UPPER",
                "VALID",
                "linear",
                "nearest",
                "reflect",
                "edge",
                "bidirectional",
                "reverse",
                "Tanh",
                "half_pixel",
                "CRD",
                "ij,jk->ik",
                "ii->i",
                "tanh",
                "none",
                "asymmetric",
            ];
            a.s = Some(words[rng.below(words.len() as u64) as usize].as_bytes().to_vec());
        }
        _ => {
            a.r#type = Some(at::FLOATS);
            a.floats = (0..rng.below(5)).map(|_| float(rng)).collect();
        }
    }
    a
}

fn random_shape(rng: &mut Rng) -> Vec<i64> {
    (0..rng.below(6)).map(|_| [1, 2, 3, 4, 1, 2, 0][rng.below(7) as usize]).collect()
}

fn random_tensor(rng: &mut Rng, name: &str, shape: &[i64], elem: i32) -> TensorProto {
    let n: i64 = shape.iter().product();
    let mut t =
        TensorProto { name: Some(name.into()), dims: shape.to_vec(), data_type: Some(elem), ..Default::default() };
    match elem {
        dt::FLOAT => t.float_data = (0..n).map(|_| float(rng)).collect(),
        dt::INT64 => t.int64_data = (0..n).map(|_| int(rng) % 5).collect(),
        _ => t.int32_data = (0..n).map(|_| (rng.next_u64() % 3) as i32).collect(),
    }
    t
}

#[test]
fn random_single_node_models_never_panic() {
    // FUZZ_SEED / FUZZ_ITERS run other or longer campaigns.
    let seed = std::env::var("FUZZ_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(0x5eed_1234_abcd_ef01u64);
    let mut rng = Rng::from_state(seed | 1);
    let iterations = std::env::var("FUZZ_ITERS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(if cfg!(debug_assertions) { 20_000 } else { 100_000 });
    let ops = supported_operators();
    let mut imported = 0;
    let mut panics: Vec<String> = Vec::new();
    std::panic::set_hook(Box::new(|info| {
        let at = info.location().map(|l| format!("{}:{}", l.file(), l.line())).unwrap_or_default();
        LOCATIONS.lock().unwrap().insert(at);
    }));
    for _ in 0..iterations {
        let (op, op_attrs) = ops[rng.below(ops.len() as u64) as usize];
        let n_inputs = [1, 1, 2, 2, 3, 3, 4, 5][rng.below(8) as usize];
        let mut inputs = Vec::new();
        let mut inits = Vec::new();
        let mut names = Vec::new();
        for i in 0..n_inputs {
            let name = format!("in{i}");
            if rng.below(8) == 0 {
                names.push(String::new()); // absent optional input
                continue;
            }
            let shape = if i == 0 {
                (0..2 + rng.below(3)).map(|_| 1 + rng.below(4) as i64).collect()
            } else {
                random_shape(&mut rng)
            };
            let elem = [dt::FLOAT, dt::INT64, dt::BOOL, dt::UINT8, dt::INT32, dt::FLOAT16]
                [if i == 0 && rng.below(2) == 0 { 0 } else { rng.below(6) as usize }];
            if i > 0 && rng.below(2) == 0 && shape.iter().product::<i64>() <= 64 {
                inits.push(random_tensor(&mut rng, &name, &shape, elem));
            } else {
                let dims: Vec<Result<i64, &str>> = shape.iter().map(|&d| Ok(d.max(1))).collect();
                inputs.push(value_info(&name, elem, &dims));
            }
            names.push(name);
        }
        let mut attrs = Vec::new();
        if !op_attrs.is_empty() {
            for _ in 0..rng.below(3) {
                let name = op_attrs[rng.below(op_attrs.len() as u64) as usize];
                if attrs.iter().all(|a: &AttributeProto| a.name.as_deref() != Some(name)) {
                    attrs.push(random_attr(&mut rng, name));
                }
            }
        }
        let refs: Vec<&str> = names.iter().map(|s| s.as_str()).collect();
        let outs = ["y", "y1", "y2"];
        let n_out = 1 + rng.below(3) as usize;
        let m = model(
            [7, 9, 11, 13, 17, 18, 21][rng.below(7) as usize],
            vec![node(op, "n", &refs, &outs[..n_out], attrs)],
            inputs,
            outs[..n_out].iter().map(|o| f32_info(o, &[1])).collect(),
            inits,
        );
        let Ok(model) = OnnxModel::from_bytes(&bytes(&m), None) else {
            continue;
        };
        let result = std::panic::catch_unwind(|| {
            let mut b = builder();
            match import(&model, &mut b, &ImportOptions::default()) {
                Ok(g) => {
                    let _ = b.build(&g.named_outputs());
                    true
                }
                Err(_) => false,
            }
        });
        match result {
            Ok(true) => imported += 1,
            Ok(false) => {}
            Err(_) => panics.push(format!("{op}: {m:?}")),
        }
    }
    let _ = std::panic::take_hook();
    let locations = std::mem::take(&mut *LOCATIONS.lock().unwrap());
    assert!(panics.is_empty(), "{} panics at {locations:?}; first model: {}", panics.len(), panics[0]);
    assert!(imported > 0);
    println!("{imported} of {iterations} random models imported");
}

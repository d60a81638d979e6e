//! Malformed input never panics: truncated files, random bytes, bit flips, inconsistent
//! tensors and attributes all end in an error (or, when the damage happens to leave a valid
//! message, in a normal import).

mod build;
mod common;

use build::*;
use common::builder;
use webnn_core::testing::Rng;
use webnn_onnx::proto::data_type as dt;
use webnn_onnx::{import, ImportOptions, OnnxError, OnnxModel, TensorData};

/// A small valid model exercising initializers, attributes and folding.
fn sample() -> Vec<u8> {
    let m = model(
        13,
        vec![
            node("Conv", "conv", &["x", "w", "b"], &["c"], vec![attr_ints("pads", &[1, 1, 1, 1])]),
            node("Relu", "relu", &["c"], &["r"], vec![]),
            node("Shape", "shape", &["r"], &["s"], vec![]),
            node("Gather", "gather", &["s", "zero"], &["n"], vec![attr_i("axis", 0)]),
            node("Unsqueeze", "unsq", &["n", "axes"], &["n1"], vec![]),
            node("Concat", "concat", &["n1", "minus1"], &["shape2"], vec![attr_i("axis", 0)]),
            node("Reshape", "reshape", &["r", "shape2"], &["flat"], vec![]),
            node("Gemm", "fc", &["flat", "fw"], &["y"], vec![attr_i("transB", 1)]),
        ],
        vec![value_info("x", dt::FLOAT, &[Err("N"), Ok(2), Ok(4), Ok(4)])],
        vec![f32_info("y", &[1, 3])],
        vec![
            f32_tensor("w", &[2, 2, 3, 3], &[0.5; 36]),
            f32_tensor("b", &[2], &[0.1, 0.2]),
            i64_tensor("zero", &[], &[0]),
            i64_tensor("axes", &[1], &[0]),
            i64_tensor("minus1", &[1], &[-1]),
            f32_tensor("fw", &[3, 32], &[0.25; 96]),
        ],
    );
    bytes(&m)
}

/// Parses and imports; must not panic whatever the bytes.
fn try_import(bytes: &[u8]) -> Result<(), OnnxError> {
    let model = OnnxModel::from_bytes(bytes, None)?;
    let _ = model.inputs();
    let _ = model.output_names();
    let mut b = builder();
    let g = import(&model, &mut b, &ImportOptions::default())?;
    let _ = b.build(&g.named_outputs());
    Ok(())
}

#[test]
fn the_sample_is_valid() {
    try_import(&sample()).unwrap();
}

#[test]
fn truncated_files_are_errors() {
    let full = sample();
    let mut errors = 0;
    for len in 0..full.len() {
        // A cut at a field boundary can leave a valid (smaller) message.
        if try_import(&full[..len]).is_err() {
            errors += 1;
        }
    }
    assert!(errors > full.len() / 2, "{errors} of {} truncations rejected", full.len());
    assert!(try_import(&full[..full.len() / 2]).is_err());
}

#[test]
fn random_bytes_are_errors() {
    let mut rng = Rng::from_state(0x9e37_79b9_7f4a_7c15);
    for size in [0usize, 1, 2, 7, 64, 1000, 10_000] {
        for _ in 0..50 {
            let bytes: Vec<u8> = (0..size).map(|_| rng.next_u64() as u8).collect();
            let _ = try_import(&bytes);
        }
    }
    assert!(matches!(try_import(&[0xff; 16]), Err(OnnxError::Malformed(_))));
    assert!(matches!(try_import(b""), Err(OnnxError::Invalid(_))));
}

/// Imports 3000 copies of the sample model, each changed by `mutate` with a generator seeded
/// with `seed`; whatever the result, nothing may panic.
fn import_mutated_samples(seed: u64, mut mutate: impl FnMut(&mut Vec<u8>, &mut Rng)) {
    let full = sample();
    let mut rng = Rng::from_state(seed);
    for _ in 0..3000 {
        let mut bytes = full.clone();
        mutate(&mut bytes, &mut rng);
        let _ = try_import(&bytes);
    }
}

#[test]
fn bit_flips_never_panic() {
    import_mutated_samples(12345, |bytes, rng| {
        for _ in 0..1 + rng.next_u64() % 3 {
            let i = (rng.next_u64() as usize) % bytes.len();
            bytes[i] ^= 1 << (rng.next_u64() % 8);
        }
    });
}

#[test]
fn byte_substitutions_never_panic() {
    // Replace bytes with extreme varint-ish values (huge lengths, dims, counts).
    import_mutated_samples(777, |bytes, rng| {
        let i = (rng.next_u64() as usize) % bytes.len();
        bytes[i] = [0x00, 0x7f, 0x80, 0xff, 0x01][(rng.next_u64() % 5) as usize];
    });
}

#[test]
fn inconsistent_models_are_errors() {
    // Initializer whose raw data is too short.
    let mut w = f32_tensor("w", &[2, 2], &[1.0, 2.0, 3.0]);
    w.name = Some("w".into());
    let m = x_to_y(node("Add", "add", &["x", "w"], &["y"], vec![]), &[2, 2], &[2, 2], vec![w]);
    assert!(matches!(try_import(&bytes(&m)), Err(OnnxError::Malformed(_))));
    // Negative and huge dims.
    let mut w = f32_tensor("w", &[-2], &[]);
    w.raw_data = Some(vec![]);
    let m = x_to_y(node("Add", "add", &["x", "w"], &["y"], vec![]), &[2], &[2], vec![w]);
    assert!(matches!(try_import(&bytes(&m)), Err(OnnxError::Malformed(_))));
    let w = f32_tensor("w", &[1 << 40, 1 << 40], &[]);
    let m = x_to_y(node("Add", "add", &["x", "w"], &["y"], vec![]), &[2], &[2], vec![w]);
    assert!(matches!(try_import(&bytes(&m)), Err(OnnxError::Malformed(_))));
    // Attribute of the wrong type; axis out of range; bad reshape.
    let m = x_to_y(node("Softmax", "sm", &["x"], &["y"], vec![attr_s("axis", "one")]), &[2], &[2], vec![]);
    assert!(try_import(&bytes(&m)).is_err());
    let m = x_to_y(node("Softmax", "sm", &["x"], &["y"], vec![attr_i("axis", 5)]), &[2], &[2], vec![]);
    assert!(try_import(&bytes(&m)).is_err());
    let m = x_to_y(node("Reshape", "r", &["x", "s"], &["y"], vec![]), &[2, 3], &[5], vec![i64_tensor("s", &[1], &[5])]);
    assert!(try_import(&bytes(&m)).is_err());
    // Missing inputs of a node, a graph without outputs, a huge input dimension.
    let m = x_to_y(node("Add", "add", &["x"], &["y"], vec![]), &[2], &[2], vec![]);
    assert!(try_import(&bytes(&m)).is_err());
    let m = model(17, vec![], vec![f32_info("x", &[2])], vec![], vec![]);
    assert!(matches!(try_import(&bytes(&m)), Err(OnnxError::Invalid(_))));
    let m = x_to_y(node("Relu", "r", &["x"], &["y"], vec![]), &[1 << 40], &[2], vec![]);
    assert!(try_import(&bytes(&m)).is_err());
}

#[test]
fn tensor_files_are_checked() {
    assert!(TensorData::decode(&[0xff, 0xff, 0xff]).is_err());
    let t = f32_tensor("t", &[2], &[1.0, 2.0]);
    let ok = TensorData::decode(&prost::Message::encode_to_vec(&t)).unwrap();
    assert_eq!(ok.shape, vec![2]);
    let encoded = prost::Message::encode_to_vec(&t);
    for len in 0..encoded.len() {
        let _ = TensorData::decode(&encoded[..len]);
    }
}

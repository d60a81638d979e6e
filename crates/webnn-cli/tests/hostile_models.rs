//! `webnn run` and `webnn inspect` on hostile ONNX files: each ends with an error message
//! (exit status 1), never an abort, a hang, or a read outside the model's directory. The
//! binary runs under `prlimit --as` so a regression that allocates from the file's numbers
//! fails here instead of exhausting the machine.

use prost::Message;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};
use webnn_onnx::proto::{
    data_type as dt, type_proto, GraphProto, ModelProto, NodeProto, OperatorSetIdProto, StringStringEntryProto,
    TensorProto, TensorShapeProto, TypeProto, ValueInfoProto, DATA_LOCATION_EXTERNAL,
};

/// Runs `webnn ARGS` with 2 GiB of address space; kills it after 60 s (`None`).
fn webnn(args: &[&str]) -> Option<Output> {
    let exe = env!("CARGO_BIN_EXE_webnn");
    let mut cmd = if Path::new("/usr/bin/prlimit").exists() {
        let mut c = Command::new("/usr/bin/prlimit");
        c.args([&format!("--as={}", 2u64 << 30), "--", exe]);
        c
    } else {
        Command::new(exe)
    };
    let mut child = cmd.args(args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("start webnn");
    let start = Instant::now();
    while child.try_wait().expect("wait").is_none() {
        if start.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Some(child.wait_with_output().expect("output"))
}

/// Asserts that `webnn ARGS` ended with exit status `code` and printed `needle`.
fn ends_with(args: &[&str], code: i32, needle: &str) {
    let out = webnn(args).unwrap_or_else(|| panic!("webnn {args:?} hangs"));
    let text = String::from_utf8_lossy(&out.stdout) + String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(code), "webnn {args:?}: {}\n{text}", out.status);
    assert!(text.contains(needle), "webnn {args:?}: '{needle}' not in\n{text}");
}

/// Asserts that `webnn ARGS` failed cleanly (status 1) with a message containing `needle`.
fn fails_with(args: &[&str], needle: &str) {
    ends_with(args, 1, needle)
}

fn info(name: &str, dims: &[i64]) -> ValueInfoProto {
    let dim = dims
        .iter()
        .map(|&d| webnn_onnx::proto::tensor_shape_proto::Dimension {
            value: Some(webnn_onnx::proto::tensor_shape_proto::dimension::Value::DimValue(d)),
            denotation: None,
        })
        .collect();
    ValueInfoProto {
        name: Some(name.into()),
        r#type: Some(TypeProto {
            value: Some(type_proto::Value::TensorType(type_proto::Tensor {
                elem_type: Some(dt::FLOAT),
                shape: Some(TensorShapeProto { dim }),
            })),
            denotation: None,
        }),
    }
}

/// `y = x + w` with `x`, `y` of shape [3] and the initializer `w` as given.
fn add_model(w: TensorProto) -> Vec<u8> {
    ModelProto {
        ir_version: Some(8),
        opset_import: vec![OperatorSetIdProto { domain: Some(String::new()), version: Some(17) }],
        graph: Some(GraphProto {
            node: vec![NodeProto {
                input: vec!["x".into(), "w".into()],
                output: vec!["y".into()],
                op_type: Some("Add".into()),
                ..Default::default()
            }],
            input: vec![info("x", &[3])],
            output: vec![info("y", &[3])],
            initializer: vec![w],
            ..Default::default()
        }),
        ..Default::default()
    }
    .encode_to_vec()
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("webnn-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn huge_dims_with_one_value_fail_cleanly() {
    let dir = scratch("huge");
    let w = TensorProto {
        name: Some("w".into()),
        dims: vec![1 << 40],
        data_type: Some(dt::FLOAT),
        float_data: vec![1.0],
        ..Default::default()
    };
    let path = dir.join("model.onnx");
    std::fs::write(&path, add_model(w)).unwrap();
    let (model, out) = (path.to_str().unwrap(), dir.join("out"));
    fails_with(&["run", model, "--output-dir", out.to_str().unwrap()], "tensor 'w'");
    // inspect describes what it can of a model that does not import, and says why.
    ends_with(&["inspect", model], 0, "tensor 'w': float_data has 1 values but the shape needs 1099511627776");
    let _ = std::fs::remove_dir_all(&dir);
}

#[cfg(unix)]
#[test]
fn external_data_stays_inside_and_never_blocks() {
    let dir = scratch("external");
    std::os::unix::fs::symlink("/etc", dir.join("etc")).unwrap();
    let fifo_made = Command::new("mkfifo").arg(dir.join("pipe")).status().is_ok_and(|s| s.success());
    let mut cases = vec![("etc/passwd", "outside the model's directory")];
    if fifo_made {
        cases.push(("pipe", "not a regular file"));
    }
    for (location, needle) in cases {
        let w = TensorProto {
            name: Some("w".into()),
            dims: vec![3],
            data_type: Some(dt::FLOAT),
            data_location: Some(DATA_LOCATION_EXTERNAL),
            external_data: vec![StringStringEntryProto { key: Some("location".into()), value: Some(location.into()) }],
            ..Default::default()
        };
        let path = dir.join("model.onnx");
        std::fs::write(&path, add_model(w)).unwrap();
        let out = dir.join("out");
        fails_with(&["run", path.to_str().unwrap(), "--output-dir", out.to_str().unwrap()], needle);
        assert!(!out.join("y.npy").exists(), "{location}: an output was written");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 10, item 3: `ConstantOfShape([2^31 - 1]) → Add → ReduceSum`, about 100 bytes, needs an
/// 8 GiB intermediate: the import and build succeed without allocating it, and the run ends
/// with the context lost (an UnknownError naming the allocation), exit status 1, not an abort.
#[test]
fn huge_intermediate_from_a_tiny_model_fails_cleanly() {
    use webnn_onnx::proto::{attribute_type, AttributeProto};
    let dir = scratch("huge-intermediate");
    let shape = TensorProto {
        name: Some("shape".into()),
        dims: vec![1],
        data_type: Some(dt::INT64),
        int64_data: vec![(1 << 31) - 1],
        ..Default::default()
    };
    let one = TensorProto { dims: vec![1], data_type: Some(dt::FLOAT), float_data: vec![1.0], ..Default::default() };
    let node = |op: &str, input: &[&str], output: &str, attribute: Vec<AttributeProto>| NodeProto {
        input: input.iter().map(|s| s.to_string()).collect(),
        output: vec![output.into()],
        op_type: Some(op.into()),
        attribute,
        ..Default::default()
    };
    let value = AttributeProto {
        name: Some("value".into()),
        r#type: Some(attribute_type::TENSOR),
        t: Some(one),
        ..Default::default()
    };
    let keep = AttributeProto {
        name: Some("keepdims".into()),
        r#type: Some(attribute_type::INT),
        i: Some(0),
        ..Default::default()
    };
    let model = ModelProto {
        ir_version: Some(8),
        opset_import: vec![OperatorSetIdProto { domain: Some(String::new()), version: Some(17) }],
        graph: Some(GraphProto {
            node: vec![
                node("ConstantOfShape", &["shape"], "big", vec![value]),
                node("Add", &["big", "x"], "sum", vec![]),
                node("ReduceSum", &["sum"], "y", vec![keep]),
            ],
            input: vec![info("x", &[1])],
            output: vec![info("y", &[])],
            initializer: vec![shape],
            ..Default::default()
        }),
        ..Default::default()
    }
    .encode_to_vec();
    assert!(model.len() < 200, "{} bytes", model.len());
    let path = dir.join("model.onnx");
    std::fs::write(&path, model).unwrap();
    let out = dir.join("out");
    fails_with(&["run", path.to_str().unwrap(), "--output-dir", out.to_str().unwrap()], "cannot allocate");
    let _ = std::fs::remove_dir_all(&dir);
}

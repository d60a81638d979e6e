//! Hostile models: a few bytes that describe huge tensors, and external data that tries to
//! leave the model's directory or to block. Each must end in an error (or a normal import),
//! never in an abort, a hang or a read outside the directory.
//!
//! Tests that would allocate huge memory if the importer regressed run in a child process
//! (this test binary, `--ignored`, one test) under `prlimit --as`, so a regression fails the
//! test instead of exhausting the machine.

mod build;
mod common;

use build::*;
use common::builder;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;
use webnn_onnx::proto::{data_type as dt, StringStringEntryProto, TensorProto};
use webnn_onnx::{import, ImportOptions, OnnxError, OnnxModel, TensorData};

/// Address space of the child processes: far below what the regressions would allocate.
const CHILD_ADDRESS_SPACE: u64 = 2 << 30;

/// Runs the ignored test `name` of this binary alone in a child process with its address
/// space limited, and fails unless it passed.
fn in_child(name: &str) {
    let exe = std::env::current_exe().expect("test binary");
    let mut cmd = if Path::new("/usr/bin/prlimit").exists() {
        let mut c = Command::new("/usr/bin/prlimit");
        c.arg(format!("--as={CHILD_ADDRESS_SPACE}")).arg("--").arg(exe);
        c
    } else {
        eprintln!("prlimit not found: {name} runs without a memory limit");
        Command::new(exe)
    };
    let out = cmd.args(["--exact", name, "--ignored", "--test-threads=1"]).output().expect("run the child test");
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success() && text.contains("1 passed"), "{name} in a child process: {}\n{text}", out.status);
}

fn load(m: &webnn_onnx::proto::ModelProto) -> OnnxModel {
    OnnxModel::from_bytes(&bytes(m), None).expect("parse")
}

fn try_import(model: &OnnxModel, options: &ImportOptions) -> Result<(), OnnxError> {
    import(model, &mut builder(), options).map(|_| ())
}

/// `w`: dims [2^40] and a single value in the typed field of `code`.
fn huge_typed(code: i32) -> TensorProto {
    let mut t =
        TensorProto { name: Some("w".into()), dims: vec![1 << 40], data_type: Some(code), ..Default::default() };
    match code {
        dt::FLOAT => t.float_data = vec![1.0],
        dt::DOUBLE => t.double_data = vec![1.0],
        dt::INT64 => t.int64_data = vec![1],
        dt::UINT32 | dt::UINT64 => t.uint64_data = vec![1],
        _ => t.int32_data = vec![1],
    }
    t
}

#[test]
fn huge_dims_with_one_value_are_an_error() {
    in_child("child_huge_dims_with_one_value");
}

#[test]
#[ignore = "run by huge_dims_with_one_value_are_an_error under a memory limit"]
fn child_huge_dims_with_one_value() {
    for code in [dt::FLOAT, dt::DOUBLE, dt::INT64, dt::UINT32, dt::UINT64, dt::INT32, dt::FLOAT16, dt::INT8, dt::BOOL] {
        // The 81-byte model of the report: Add(x, w) with w of dims [2^40] holding one value.
        let m = x_to_y(node("Add", "add", &["x", "w"], &["y"], vec![]), &[1], &[1], vec![huge_typed(code)]);
        let err = try_import(&load(&m), &ImportOptions::default()).unwrap_err();
        let msg = err.to_string();
        assert!(matches!(err, OnnxError::Malformed(_)), "{code}: {msg}");
        assert!(
            msg.contains("tensor 'w'") && msg.contains("has 1 values") && msg.contains("1099511627776"),
            "{code}: {msg}"
        );
        // The same tensor as a test-data file.
        let encoded = prost::Message::encode_to_vec(&huge_typed(code));
        assert!(matches!(TensorData::decode(&encoded), Err(OnnxError::Malformed(_))));
    }
}

/// `ConstantOfShape(shape)` with `shape` an int64 initializer, then `rest`; `value` is the
/// fill's data type.
fn splat_model(
    shape: &[i64],
    value: i32,
    rest: Vec<webnn_onnx::proto::NodeProto>,
    inputs: Vec<webnn_onnx::proto::ValueInfoProto>,
    output: webnn_onnx::proto::ValueInfoProto,
) -> webnn_onnx::proto::ModelProto {
    let fill = TensorProto {
        dims: vec![1],
        data_type: Some(value),
        raw_data: Some(vec![0; if value == dt::INT64 { 8 } else { 4 }]),
        ..Default::default()
    };
    let mut value_attr = attr_i("value", 0);
    value_attr.r#type = Some(webnn_onnx::proto::attribute_type::TENSOR);
    value_attr.i = None;
    value_attr.t = Some(fill);
    let mut nodes = vec![node("ConstantOfShape", "cos", &["s"], &["c"], vec![value_attr])];
    nodes.extend(rest);
    model(17, nodes, inputs, vec![output], vec![i64_tensor("s", &[shape.len() as i64], shape)])
}

#[test]
fn huge_splats_are_not_expanded_at_import_time() {
    in_child("child_huge_splats");
}

#[test]
#[ignore = "run by huge_splats_are_not_expanded_at_import_time under a memory limit"]
fn child_huge_splats() {
    let options = ImportOptions::default();
    // The report's ~100-byte model: ConstantOfShape([2^31-1]) -> Add. The importer emits
    // expand + add (what the engine does with an 8 GiB graph is the engine's business).
    let m = splat_model(
        &[(1 << 31) - 1],
        dt::FLOAT,
        vec![node("Add", "add", &["c", "c"], &["y"], vec![])],
        vec![],
        f32_info("y", &[(1 << 31) - 1]),
    );
    let mut b = builder();
    let g = import(&load(&m), &mut b, &options).expect("imports as WebNN ops");
    assert_eq!(g.outputs[0].operand.shape(), &[(1u32 << 31) - 1]);

    // Splats read as values: gather indices, a reshape's shape.
    let indices = splat_model(
        &[(1 << 31) - 1],
        dt::INT64,
        vec![node("Gather", "gather", &["x", "c"], &["y"], vec![])],
        vec![f32_info("x", &[4])],
        f32_info("y", &[(1 << 31) - 1]),
    );
    let shape = splat_model(
        &[1 << 25],
        dt::INT64,
        vec![node("Reshape", "reshape", &["x", "c"], &["y"], vec![])],
        vec![f32_info("x", &[4])],
        f32_info("y", &[4]),
    );
    for m in [indices, shape] {
        let err = try_import(&load(&m), &options).unwrap_err();
        assert!(err.to_string().contains("too large to read"), "{err}");
    }

    // Range of 2^30 int64 elements (8 GiB) is above the fold limit.
    let m = model(
        17,
        vec![node("Range", "range", &["a", "b", "d"], &["y"], vec![])],
        vec![],
        vec![value_info("y", dt::INT64, &[Ok(1 << 30)])],
        vec![i64_tensor("a", &[], &[0]), i64_tensor("b", &[], &[1 << 30]), i64_tensor("d", &[], &[1])],
    );
    let err = try_import(&load(&m), &options).unwrap_err();
    assert!(err.to_string().contains("more than the fold limit"), "{err}");

    // A 3-D Conv is unrolled over the filter's depth taps: a splat filter of depth 2^20
    // would make millions of builder calls.
    let m = splat_model(
        &[1, 1, 1 << 20, 1, 1],
        dt::FLOAT,
        vec![node("Conv", "conv", &["x", "c"], &["y"], vec![])],
        vec![f32_info("x", &[1, 1, 1 << 20, 1, 1])],
        f32_info("y", &[1, 1, 1, 1, 1]),
    );
    let err = try_import(&load(&m), &options).unwrap_err();
    assert!(err.to_string().contains("depth tap"), "{err}");

    // Concat of 400 splats each at the fold limit (400 × 16 MiB once folded): built as a
    // WebNN concat instead.
    let inputs: Vec<&str> = vec!["c"; 400];
    let m = splat_model(
        &[options.fold_limit as i64],
        dt::FLOAT,
        vec![node("Concat", "concat", &inputs, &["y"], vec![attr_i("axis", 0)])],
        vec![],
        f32_info("y", &[400 * options.fold_limit as i64]),
    );
    try_import(&load(&m), &options).expect("imports as a WebNN concat");
}

#[test]
fn folding_stops_at_its_byte_budget() {
    in_child("child_fold_budget");
}

#[test]
#[ignore = "run by folding_stops_at_its_byte_budget under a memory limit"]
fn child_fold_budget() {
    // 3000 casts of a 2^18-element splat would fold to 3000 × 1 MiB of constants (and as
    // much again once copied into the builder); past the budget (256 × fold_limit bytes)
    // they are built as WebNN casts.
    let options = ImportOptions { fold_limit: 1 << 18, ..Default::default() };
    let n = 3000;
    let names: Vec<String> = (0..n).map(|i| format!("y{i}")).collect();
    let casts = names.iter().map(|y| node("Cast", y, &["c"], &[y], vec![attr_i("to", dt::INT32 as i64)])).collect();
    let mut m = splat_model(
        &[options.fold_limit as i64],
        dt::FLOAT,
        casts,
        vec![],
        value_info("y0", dt::INT32, &[Ok(options.fold_limit as i64)]),
    );
    let graph = m.graph.as_mut().unwrap();
    graph.output = names.iter().map(|y| value_info(y, dt::INT32, &[Ok(options.fold_limit as i64)])).collect();
    let mut b = builder();
    let g = import(&load(&m), &mut b, &options).expect("imports");
    assert_eq!(g.outputs.len(), n);
}

/// A fresh directory for one test, removed first if left over.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("webnn-onnx-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A model adding `x` [3] to an initializer `w` [3] kept in `location`.
fn external_model(dir: &Path, location: &str) -> PathBuf {
    let mut w = f32_tensor("w", &[3], &[]);
    w.raw_data = None;
    w.data_location = Some(webnn_onnx::proto::DATA_LOCATION_EXTERNAL);
    w.external_data = vec![StringStringEntryProto { key: Some("location".into()), value: Some(location.into()) }];
    let m = x_to_y(node("Add", "add", &["x", "w"], &["y"], vec![]), &[3], &[3], vec![w]);
    let path = dir.join("model.onnx");
    std::fs::write(&path, bytes(&m)).unwrap();
    path
}

/// Imports the model at `path` on another thread; `None` if it did not finish in 20 s.
fn import_file(path: &Path) -> Option<Result<(), OnnxError>> {
    let path = path.to_path_buf();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let r = OnnxModel::load(&path).and_then(|m| try_import(&m, &ImportOptions::default()));
        let _ = tx.send(r);
    });
    rx.recv_timeout(Duration::from_secs(20)).ok()
}

#[cfg(unix)]
#[test]
fn external_data_never_leaves_the_model_directory() {
    use std::os::unix::fs::symlink;
    let root = scratch("escape");
    let (dir, outside) = (root.join("model"), root.join("outside"));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("secret.bin"), [7u8; 12]).unwrap();
    std::fs::write(dir.join("w.bin"), [0u8; 12]).unwrap();
    symlink(&outside, dir.join("linked_dir")).unwrap();
    symlink(outside.join("secret.bin"), dir.join("linked_file.bin")).unwrap();
    symlink("../outside/secret.bin", dir.join("relative_link.bin")).unwrap();
    symlink("w.bin", dir.join("inside_link.bin")).unwrap();
    for location in ["linked_dir/secret.bin", "linked_file.bin", "relative_link.bin"] {
        let err = import_file(&external_model(&dir, location)).expect("finishes").unwrap_err();
        let msg = err.to_string();
        assert!(matches!(err, OnnxError::Invalid(_)), "{location}: {msg}");
        assert!(msg.contains("outside the model's directory") && msg.contains("tensor 'w'"), "{location}: {msg}");
    }
    // Links that stay inside are followed; `..` and absolute paths are refused as before.
    for location in ["w.bin", "inside_link.bin", "./w.bin"] {
        import_file(&external_model(&dir, location)).expect("finishes").expect(location);
    }
    for location in ["../outside/secret.bin", "/etc/passwd", ""] {
        let err = import_file(&external_model(&dir, location)).expect("finishes").unwrap_err();
        assert!(err.to_string().contains("relative path inside"), "{location}: {err}");
    }
    let _ = std::fs::remove_dir_all(&root);
}

#[cfg(unix)]
#[test]
fn external_data_must_be_a_regular_file() {
    let dir = scratch("special");
    let fifo = dir.join("pipe");
    let made = Command::new("mkfifo").arg(&fifo).status().map(|s| s.success());
    std::fs::create_dir_all(dir.join("subdir")).unwrap();
    let mut locations = vec!["subdir"];
    if made.is_ok_and(|ok| ok) {
        locations.push("pipe");
    } else {
        eprintln!("mkfifo failed: the FIFO case is not tested");
    }
    for location in locations {
        // A FIFO used to block the import forever: it must be refused at once.
        let err = import_file(&external_model(&dir, location))
            .unwrap_or_else(|| panic!("{location}: the import hangs"))
            .unwrap_err();
        assert!(err.to_string().contains("not a regular file"), "{location}: {err}");
    }
    // A file shorter than offset + length is malformed (the real length is the bound).
    std::fs::write(dir.join("short.bin"), [0u8; 8]).unwrap();
    let err = import_file(&external_model(&dir, "short.bin")).expect("finishes").unwrap_err();
    assert!(err.to_string().contains("beyond the end"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

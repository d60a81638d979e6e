//! Whole models: the small real models of onnx's backend tests (`data/light/light_*.onnx`,
//! with stored outputs) and the exported torchvision models in `shared/models` (import, run,
//! check the output shape and that every value is finite).
//!
//! The light models' inputs are what onnx's own runner feeds them: for every non-initializer
//! float input, `arange(n) / n` in its declared shape (unknown dimensions 1). Outputs are
//! compared with `|got - expected| <= 1e-5 + 1e-3 * |expected|` (onnx uses rtol 1e-3 too;
//! the absolute term absorbs summation-order differences of the convolutions).

mod common;

use common::{compare, light_models_dir, run_model, value, Outcome};
use std::path::Path;
use webnn_onnx::{Dim, ElemType, OnnxModel, TensorData};

fn arange_input(name: &str, dims: &[Dim]) -> TensorData {
    let shape: Vec<usize> = dims.iter().map(|d| if let Dim::Fixed(v) = d { *v as usize } else { 1 }).collect();
    let n: usize = shape.iter().product();
    let bytes = (0..n).flat_map(|i| ((i as f64 / n as f64) as f32).to_le_bytes()).collect();
    TensorData { elem_type: ElemType::F32, shape, bytes, name: name.to_string() }
}

fn run_light(path: &Path) -> Outcome {
    let model = match OnnxModel::load(path) {
        Ok(m) => m,
        Err(e) => return Outcome::Failed(format!("load: {e}")),
    };
    let inputs: Vec<TensorData> =
        model.inputs().iter().map(|i| arange_input(&i.name, i.dims.as_deref().unwrap_or(&[]))).collect();
    let stem = path.file_stem().unwrap().to_string_lossy().to_string();
    let expected = match common::read_tensor(&path.with_file_name(format!("{stem}_output_0.pb"))) {
        Ok(t) => t,
        Err(o) => return o,
    };
    match run_model(&model, &inputs) {
        Ok(got) => match compare(&got[0], &expected, 1e-3, 1e-5) {
            Ok(()) => Outcome::Passed,
            Err(msg) => Outcome::Failed(msg),
        },
        Err(o) => o,
    }
}

#[test]
fn onnx_light_models() {
    let Some(dir) = light_models_dir() else {
        println!("onnx light models skipped: no test data (pip install onnx numpy, or set ONNX_BACKEND_DATA)");
        return;
    };
    let mut models: Vec<_> = std::fs::read_dir(dir)
        .map(|rd| rd.flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "onnx")).collect())
        .unwrap_or_default();
    models.sort();
    let filter = std::env::var("ONNX_NODE_FILTER").unwrap_or_default();
    // Unoptimized builds run only the two smallest models (the others take minutes there);
    // `--release` (as CI runs) or ONNX_LIGHT_ALL=1 runs all nine.
    let quick = cfg!(debug_assertions) && std::env::var_os("ONNX_LIGHT_ALL").is_none();
    if quick {
        println!("debug build: only light_squeezenet and light_shufflenet (use --release or ONNX_LIGHT_ALL=1)");
        models.retain(|p| {
            let n = p.to_string_lossy();
            n.contains("squeezenet") || n.contains("shufflenet")
        });
    }
    let (mut passed, mut failed, mut unsupported) = (0, 0, 0);
    let mut failures = Vec::new();
    for path in models.iter().filter(|p| p.to_string_lossy().contains(&filter)) {
        let name = path.file_stem().unwrap().to_string_lossy().to_string();
        let start = std::time::Instant::now();
        let outcome = run_light(path);
        println!("{name}: {outcome:?} ({:.1} s)", start.elapsed().as_secs_f64());
        match outcome {
            Outcome::Passed => passed += 1,
            Outcome::Unsupported(_) => unsupported += 1,
            Outcome::NoKernel(_) | Outcome::Failed(_) => {
                failed += 1;
                failures.push(name);
            }
        }
    }
    println!("onnx light models: {passed} passed, {failed} failed, {unsupported} unsupported");
    assert_eq!(failed, 0, "light models failed: {failures:?}");
}

#[test]
fn shared_torchvision_models_import_and_run() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/models");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        println!("shared/models not found; skipped");
        return;
    };
    let mut models: Vec<_> =
        entries.flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "onnx")).collect();
    models.sort();
    for path in models {
        let model = OnnxModel::load(&path).expect("load");
        let inputs: Vec<TensorData> =
            model.inputs().iter().map(|i| arange_input(&i.name, i.dims.as_deref().unwrap_or(&[]))).collect();
        let out = run_model(&model, &inputs).unwrap_or_else(|o| panic!("{}: {o:?}", path.display()));
        assert_eq!(out[0].shape, vec![1, 1000], "{}", path.display());
        assert!((0..1000).all(|i| value(&out[0], i).is_finite()), "{}", path.display());
    }
}

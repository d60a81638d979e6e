//! Shared harness of the ONNX test suites: finding onnx's backend test data, importing a
//! model, running it on the CPU backend and comparing outputs.

#![allow(dead_code)]

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use webnn_core::backend::Backend;
use webnn_core::{ContextLink, GraphBuilder};
use webnn_onnx::{import, ElemType, ImportOptions, OnnxModel, TensorData};

/// How one model test ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    Passed,
    /// The importer (or test data) declared something unsupported.
    Unsupported(String),
    /// The CPU backend has no kernel for an op of the graph.
    NoKernel(String),
    /// Anything else: importer failure, build/compile/execute error or wrong output.
    Failed(String),
}

/// The installed `onnx` package's directory and version (through `python3`).
fn onnx_package() -> Option<(PathBuf, String)> {
    let out = Command::new("python3")
        .args(["-c", "import onnx,os;print(os.path.dirname(onnx.__file__));print(onnx.__version__)"])
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let mut lines = text.lines();
    let onnx_dir = PathBuf::from(lines.next()?.trim());
    let version = lines.next().unwrap_or("unknown").trim().to_string();
    Some((onnx_dir, version))
}

/// The directory holding onnx's `light_*.onnx` models: `$ONNX_BACKEND_DATA/light`, else the
/// installed `onnx` package's `backend/test/data/light`.
pub fn light_models_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var("ONNX_BACKEND_DATA").ok().filter(|d| !d.is_empty()) {
        let p = PathBuf::from(dir);
        let p = if p.ends_with("node") { p.parent().map(Path::to_path_buf).unwrap_or(p) } else { p };
        return Some(p.join("light")).filter(|p| p.is_dir());
    }
    let (onnx_dir, _) = onnx_package()?;
    Some(onnx_dir.join("backend/test/data/light")).filter(|p| p.is_dir())
}

/// The onnx backend test data directory holding `node/`, if any: `ONNX_BACKEND_DATA`, else
/// the installed `onnx` package's own data, else data generated from the installed package's
/// test case generators into the cargo temp dir.
pub fn backend_data_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var("ONNX_BACKEND_DATA").ok().filter(|d| !d.is_empty()) {
        let p = PathBuf::from(dir);
        return Some(if p.ends_with("node") { p.parent().map(Path::to_path_buf).unwrap_or(p) } else { p });
    }
    let (onnx_dir, version) = onnx_package()?;
    let shipped = onnx_dir.join("backend/test/data");
    if shipped.join("node").is_dir() {
        return Some(shipped);
    }
    // Recent wheels ship the generators but not the generated node tests: generate them once.
    let generated = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("onnx-backend-data-{version}"));
    if !generated.join("node").is_dir() {
        // Generate into a private directory and rename it, so concurrent test binaries never
        // see a half-written tree.
        let tmp = generated.with_extension(format!("tmp-{}", std::process::id()));
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/gen_node_data.py");
        let status = Command::new("python3").arg(script).arg(&tmp).status().ok()?;
        if !status.success() {
            let _ = std::fs::remove_dir_all(&tmp);
            return None;
        }
        if std::fs::rename(&tmp, &generated).is_err() {
            let _ = std::fs::remove_dir_all(&tmp);
        }
    }
    Some(generated)
}

/// The CPU backend shared by every test of a process.
pub fn backend() -> &'static webnn_cpu::CpuBackend {
    static BACKEND: std::sync::OnceLock<webnn_cpu::CpuBackend> = std::sync::OnceLock::new();
    BACKEND.get_or_init(|| webnn_cpu::CpuBackend::new(None).expect("CPU backend"))
}

/// A builder on a fresh (never lost) context.
pub fn builder() -> GraphBuilder {
    GraphBuilder::new(ContextLink { id: 1, lost: Arc::new(AtomicBool::new(false)), limits: None }).expect("builder")
}

/// An 8-byte aligned zeroed buffer of `len` bytes.
struct Aligned(Vec<u64>, usize);

impl Aligned {
    fn new(bytes: &[u8]) -> Self {
        let mut a = Aligned::zeroed(bytes.len());
        a.bytes_mut().copy_from_slice(bytes);
        a
    }
    fn zeroed(len: usize) -> Self {
        Aligned(vec![0u64; len.div_ceil(8)], len)
    }
    fn bytes(&self) -> &[u8] {
        &bytemuck_bytes(&self.0)[..self.1]
    }
    fn bytes_mut(&mut self) -> &mut [u8] {
        let n = self.1;
        &mut bytemuck_bytes_mut(&mut self.0)[..n]
    }
}

fn bytemuck_bytes(v: &[u64]) -> &[u8] {
    bytemuck::cast_slice(v)
}

fn bytemuck_bytes_mut(v: &mut [u64]) -> &mut [u8] {
    bytemuck::cast_slice_mut(v)
}

/// Imports `model` with the inputs' shapes as overrides, runs it on the CPU backend and
/// returns the outputs in graph-output order.
pub fn run_model(model: &OnnxModel, inputs: &[TensorData]) -> Result<Vec<TensorData>, Outcome> {
    let declared = model.inputs();
    if declared.len() != inputs.len() {
        return Err(Outcome::Failed(format!("{} inputs declared, {} given", declared.len(), inputs.len())));
    }
    let mut options = ImportOptions::default();
    for (info, data) in declared.iter().zip(inputs) {
        if data.shape.contains(&0) {
            return Err(Outcome::Unsupported(format!("input '{}' is empty", info.name)));
        }
        options.shape_overrides.insert(info.name.clone(), data.shape.iter().map(|&d| d as u32).collect());
    }
    // Parameters that the model takes as graph inputs (axes, pads, shapes...) must be static
    // in WebNN: bind the inputs the importer asks for as constants and import again.
    let (mut b, imported) = loop {
        let mut b = builder();
        match import(model, &mut b, &options) {
            Ok(imported) => break (b, imported),
            Err(e) => {
                let msg = e.to_string();
                let wanted: Vec<String> = msg
                    .split("computed at run time from graph input(s) ")
                    .skip(1)
                    .filter_map(|rest| rest.split_once(" (bind them").map(|(list, _)| list))
                    .flat_map(|list| list.split(", ").map(|n| n.trim_matches('\'').to_string()))
                    .filter(|n| declared.iter().any(|d| &d.name == n) && !options.constant_inputs.contains_key(n))
                    .collect();
                if wanted.is_empty() {
                    return Err(if e.is_unsupported() {
                        Outcome::Unsupported(msg)
                    } else {
                        Outcome::Failed(format!("import: {msg}"))
                    });
                }
                for name in wanted {
                    let i = declared.iter().position(|d| d.name == name).unwrap();
                    options.constant_inputs.insert(name.clone(), inputs[i].clone());
                    options.shape_overrides.remove(&name);
                }
            }
        }
    };
    let graph = b.build(&imported.named_outputs()).map_err(|e| Outcome::Failed(format!("build: {e}")))?;
    let compiled = backend().compile(&graph).map_err(|e| {
        if e.message.contains("has no CPU kernel yet") {
            Outcome::NoKernel(e.message.clone())
        } else {
            Outcome::Failed(format!("compile: {e}"))
        }
    })?;
    let by_name: HashMap<&str, (usize, &TensorData)> =
        declared.iter().zip(inputs).enumerate().map(|(i, (d, t))| (d.name.as_str(), (i, t))).collect();
    let mut in_bufs = Vec::new();
    for (name, id) in &graph.inputs {
        let (_, data) = by_name[name.as_str()];
        let want = imported.inputs.iter().find(|x| &x.name == name).map(|x| x.elem_type).unwrap_or(data.elem_type);
        let compatible = data.elem_type == want || (want == ElemType::Bool && data.elem_type == ElemType::U8);
        if !compatible {
            return Err(Outcome::Failed(format!("input '{name}' is {} but the model declares {want}", data.elem_type)));
        }
        if graph.descriptor(*id).byte_length() as usize != data.bytes.len() {
            return Err(Outcome::Failed(format!("input '{name}' has the wrong size")));
        }
        in_bufs.push(Aligned::new(&data.bytes));
    }
    let mut out_bufs: Vec<Aligned> =
        graph.outputs.iter().map(|(_, id)| Aligned::zeroed(graph.descriptor(*id).byte_length() as usize)).collect();
    let in_refs: Vec<&[u8]> = in_bufs.iter().map(|b| b.bytes()).collect();
    let mut out_refs: Vec<&mut [u8]> = out_bufs.iter_mut().map(|b| b.bytes_mut()).collect();
    compiled.execute(&in_refs, &mut out_refs).map_err(|e| Outcome::Failed(format!("execute: {e}")))?;
    Ok(graph
        .outputs
        .iter()
        .zip(&out_bufs)
        .zip(&imported.outputs)
        .map(|(((name, id), buf), out)| TensorData {
            elem_type: out.elem_type,
            shape: graph.descriptor(*id).shape.iter().map(|&d| d as usize).collect(),
            bytes: buf.bytes().to_vec(),
            name: name.clone(),
        })
        .collect())
}

/// Compares an output with the expected tensor: exact for integers and bool, `|a - e| <= atol
/// + rtol * |e|` for floats (NaN equals NaN, infinities must match).
pub fn compare(got: &TensorData, want: &TensorData, rtol: f64, atol: f64) -> Result<(), String> {
    if got.shape != want.shape {
        return Err(format!("shape {:?}, expected {:?}", got.shape, want.shape));
    }
    let same_kind = got.elem_type == want.elem_type
        || (matches!(got.elem_type, ElemType::Bool | ElemType::U8)
            && matches!(want.elem_type, ElemType::Bool | ElemType::U8));
    if !same_kind {
        return Err(format!("type {}, expected {}", got.elem_type, want.elem_type));
    }
    let n = want.element_count();
    let mut worst: Option<(usize, f64, f64)> = None;
    let mut bad = 0;
    for i in 0..n {
        let (g, e) = (value(got, i), value(want, i));
        let ok = if want.elem_type.is_float() {
            (g.is_nan() && e.is_nan()) || g == e || (g - e).abs() <= atol + rtol * e.abs()
        } else {
            g == e
        };
        if !ok {
            bad += 1;
            if worst.is_none_or(|(_, wg, we)| (g - e).abs() > (wg - we).abs() || (wg - we).is_nan()) {
                worst = Some((i, g, e));
            }
        }
    }
    match worst {
        None => Ok(()),
        Some((i, g, e)) => Err(format!("{bad}/{n} elements differ; worst at {i}: got {g}, expected {e}")),
    }
}

/// Element `i` as f64.
pub fn value(t: &TensorData, i: usize) -> f64 {
    let s = t.elem_type.size();
    let b = &t.bytes[i * s..(i + 1) * s];
    match t.elem_type {
        ElemType::F32 => f32::from_le_bytes(b.try_into().unwrap()) as f64,
        ElemType::F16 => half::f16::from_bits(u16::from_le_bytes(b.try_into().unwrap())).to_f64(),
        ElemType::F64 => f64::from_le_bytes(b.try_into().unwrap()),
        ElemType::I8 => b[0] as i8 as f64,
        ElemType::U8 | ElemType::Bool => b[0] as f64,
        ElemType::I16 => i16::from_le_bytes(b.try_into().unwrap()) as f64,
        ElemType::U16 => u16::from_le_bytes(b.try_into().unwrap()) as f64,
        ElemType::I32 => i32::from_le_bytes(b.try_into().unwrap()) as f64,
        ElemType::U32 => u32::from_le_bytes(b.try_into().unwrap()) as f64,
        ElemType::I64 => i64::from_le_bytes(b.try_into().unwrap()) as f64,
        ElemType::U64 => u64::from_le_bytes(b.try_into().unwrap()) as f64,
    }
}

/// Reads and decodes a `.pb` TensorProto file.
pub fn read_tensor(path: &Path) -> Result<TensorData, Outcome> {
    let bytes = std::fs::read(path).map_err(|e| Outcome::Failed(format!("{}: {e}", path.display())))?;
    TensorData::decode(&bytes).map_err(|e| {
        if e.is_unsupported() {
            Outcome::Unsupported(format!("test data: {e}"))
        } else {
            Outcome::Failed(format!("{}: {e}", path.display()))
        }
    })
}

//! Helpers shared by the crate's test modules: the GPU backend of the tests (lavapipe on CI),
//! one-op graphs run on it, seeded data and the f64-reference comparison.

use crate::{AdapterChoice, GpuBackend};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, OnceLock};
use webnn_core::backend::Backend;
use webnn_core::{ContextLink, DataType, GraphBuilder, Operand, OperandDescriptor};

/// The GPU backend of the tests (lavapipe on CI), or None where there is no adapter.
pub fn backend() -> Option<&'static GpuBackend> {
    static B: OnceLock<Option<GpuBackend>> = OnceLock::new();
    B.get_or_init(|| GpuBackend::new(AdapterChoice::Any, false).ok()).as_ref()
}

/// A core builder on a fresh, live context.
pub fn builder() -> GraphBuilder {
    GraphBuilder::new(ContextLink { id: 1, lost: Arc::new(AtomicBool::new(false)), limits: None }).unwrap()
}

/// Deterministic data in [-1, 1).
pub fn data(n: usize, seed: u64) -> Vec<f32> {
    webnn_core::testing::Rng::new(seed).vec_f32(n, -1.0, 1.0)
}

/// Builds `op` over fresh float32 inputs of `shapes` (filled with `inputs`), runs it on the
/// GPU and returns its float32 output.
pub fn run(
    gpu: &GpuBackend,
    shapes: &[&[u32]],
    inputs: &[Vec<f32>],
    op: impl FnOnce(&mut GraphBuilder, &[Operand]) -> Operand,
) -> Vec<f32> {
    run_typed(gpu, DataType::Float32, shapes, inputs, op)
}

/// [`run`] with inputs and output of `dt` (float32 or float16; values converted).
pub fn run_typed(
    gpu: &GpuBackend,
    dt: DataType,
    shapes: &[&[u32]],
    inputs: &[Vec<f32>],
    op: impl FnOnce(&mut GraphBuilder, &[Operand]) -> Operand,
) -> Vec<f32> {
    let mut b = builder();
    let operands: Vec<Operand> = shapes
        .iter()
        .enumerate()
        .map(|(i, s)| b.input(&format!("in{i}"), &OperandDescriptor::new(dt, s.to_vec())).unwrap())
        .collect();
    let y = op(&mut b, &operands);
    let graph = b.build(&[("y", &y)]).unwrap();
    let compiled = gpu.compile(&graph).unwrap();
    let elements: usize = y.descriptor().shape.iter().map(|&d| d as usize).product();
    if dt == DataType::Float16 {
        let halves: Vec<Vec<u16>> =
            inputs.iter().map(|v| v.iter().map(|&x| half::f16::from_f32(x).to_bits()).collect()).collect();
        let bytes: Vec<&[u8]> = halves.iter().map(|v| bytemuck::cast_slice(v)).collect();
        let mut out = vec![0u16; elements];
        compiled.execute(&bytes, &mut [bytemuck::cast_slice_mut(&mut out)]).unwrap();
        out.iter().map(|&v| half::f16::from_bits(v).to_f32()).collect()
    } else {
        let bytes: Vec<&[u8]> = inputs.iter().map(|v| bytemuck::cast_slice(v)).collect();
        let mut out = vec![0f32; elements];
        compiled.execute(&bytes, &mut [bytemuck::cast_slice_mut(&mut out)]).unwrap();
        out
    }
}

/// Seconds per execution (best of 3, after a warm-up) of a float32 graph built by `op`.
pub fn time(gpu: &GpuBackend, shapes: &[&[u32]], op: impl FnOnce(&mut GraphBuilder, &[Operand]) -> Operand) -> f64 {
    let mut b = builder();
    let operands: Vec<Operand> = shapes
        .iter()
        .enumerate()
        .map(|(i, s)| b.input(&format!("in{i}"), &OperandDescriptor::new(DataType::Float32, s.to_vec())).unwrap())
        .collect();
    let y = op(&mut b, &operands);
    let graph = b.build(&[("y", &y)]).unwrap();
    let compiled = gpu.compile(&graph).unwrap();
    let inputs: Vec<Vec<f32>> = shapes.iter().map(|s| data(s.iter().map(|&d| d as usize).product(), 1)).collect();
    let bytes: Vec<&[u8]> = inputs.iter().map(|v| bytemuck::cast_slice(v)).collect();
    let mut out = vec![0f32; y.descriptor().shape.iter().map(|&d| d as usize).product()];
    let mut best = f64::MAX;
    for _ in 0..4 {
        let t = std::time::Instant::now();
        compiled.execute(&bytes, &mut [bytemuck::cast_slice_mut(&mut out)]).unwrap();
        best = best.min(t.elapsed().as_secs_f64());
    }
    best
}

/// Timing for information (`cargo test --release -p webnn-gpu --lib timing -- --ignored --nocapture`).
/// Asserts `got` matches `want` (exact sums of products in f64) within f32 accumulation
/// error: `|got - want| <= 1e-5 * scale + 1e-6` where `scale` is the sum of |terms|.
#[track_caller]
pub fn check(what: &str, got: &[f32], want: &[(f64, f64)]) {
    check_within(what, got, want, 0.0);
}

/// [`check`] allowing also `relative · |want|` (the final rounding to float16: 2^-11).
#[track_caller]
pub fn check_within(what: &str, got: &[f32], want: &[(f64, f64)], relative: f64) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (i, (&g, &(w, scale))) in got.iter().zip(want).enumerate() {
        let bound = 1e-5 * scale + 1e-6 + relative * w.abs();
        assert!(((g as f64) - w).abs() <= bound, "{what}: element {i}: got {g}, want {w}");
    }
}

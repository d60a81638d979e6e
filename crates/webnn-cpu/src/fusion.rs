//! Fusion of operation patterns into one plan step, where it saves whole passes over memory
//! and gives bit-identical results (the fused kernel performs the same f32 operations and the
//! same roundings as the unfused steps).
//!
//! The one pattern so far is SiLU / swish, `mul(x, sigmoid(x))` (either operand order), which
//! EfficientNet-style models use after nearly every convolution: unfused it reads `x` twice and
//! writes and reads back the sigmoid; fused it reads `x` once and writes the product. It fuses
//! only when the sigmoid's output is read by that `mul` alone and is not a graph output, and
//! the shapes are equal (no broadcasting).

use crate::kernels::fast_math::sigmoid_f32;
use crate::kernels::unary::{map_float, COSTLY_CHUNK};
use crate::kernels::{In, Kernel, Out};
use half::f16;
use webnn_core::{DataType, Graph, OpKind, OperandId};

/// How one operation of the graph is planned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fate {
    /// Its own step.
    Own,
    /// No step: a later fused step computes what it feeds.
    Absorbed,
    /// `x · sigmoid(x)` in one step (this op is the `mul`; `x` is its only input).
    Swish { x: OperandId },
}

/// The fate of every operation of `graph`, in graph order.
pub fn plan(graph: &Graph) -> Vec<Fate> {
    let ops = &graph.operations;
    let mut readers = vec![0usize; graph.operands.len()];
    for op in ops {
        for id in op.inputs.iter().flatten() {
            readers[id.index()] += 1;
        }
    }
    for (_, id) in &graph.outputs {
        readers[id.index()] += 1; // a graph output must be materialized
    }
    let mut producer = vec![None; graph.operands.len()];
    for (i, op) in ops.iter().enumerate() {
        for id in &op.outputs {
            producer[id.index()] = Some(i);
        }
    }

    let mut fates = vec![Fate::Own; ops.len()];
    for (m, op) in ops.iter().enumerate() {
        if op.kind != OpKind::Mul {
            continue;
        }
        let (Some(a), Some(b)) = (op.input(0), op.input(1)) else { continue };
        let out = graph.descriptor(op.outputs[0]);
        for (s, x) in [(a, b), (b, a)] {
            let Some(p) = producer[s.index()] else { continue };
            let sig = &ops[p];
            let fusable = sig.kind == OpKind::Sigmoid
                && sig.input(0) == Some(x)
                && readers[s.index()] == 1
                && fates[p] == Fate::Own
                && matches!(out.data_type, DataType::Float32 | DataType::Float16)
                && graph.descriptor(x) == out
                && graph.descriptor(s) == out;
            if fusable {
                fates[p] = Fate::Absorbed;
                fates[m] = Fate::Swish { x };
                break;
            }
        }
    }
    fates
}

/// `x · sigmoid(x)`, rounding the sigmoid to the data type before the product as the
/// unfused `sigmoid` step does (float16: computed in f32, rounded once per op).
pub struct SwishKernel {
    /// float32 or float16.
    pub data_type: DataType,
}

impl Kernel for SwishKernel {
    fn run(&self, inputs: &[Option<In<'_>>], outputs: &mut [Out<'_>]) -> webnn_core::Result<()> {
        let Some(x) = inputs[0] else { return Ok(()) };
        let out = &mut outputs[0];
        match self.data_type {
            DataType::Float16 => {
                map_float(self.data_type, x, out, COSTLY_CHUNK, #[inline(always)] |v| v * f16::from_f32(sigmoid_f32(v)).to_f32())
            }
            _ => map_float(self.data_type, x, out, COSTLY_CHUNK, #[inline(always)] |v| v * sigmoid_f32(v)),
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::{CompiledPlan, Plan};
    use std::sync::atomic::AtomicBool;
    use std::sync::Arc;
    use webnn_core::backend::CompiledGraph;
    use webnn_core::{ContextLink, GraphBuilder, OperandDescriptor, OperatorOptions};

    fn builder() -> GraphBuilder {
        GraphBuilder::new(ContextLink { id: 7, lost: Arc::new(AtomicBool::new(false)) }).unwrap()
    }

    /// Runs `graph` on `x` (its one input) and returns every output's bytes.
    fn run(graph: &Graph, x: &[u8]) -> Vec<Vec<u8>> {
        let plan = Plan::compile(graph).unwrap();
        let compiled = CompiledPlan::new(plan, Arc::new(crate::pool::build_pool(Some(2)).unwrap()));
        let mut outs: Vec<Vec<u8>> = graph.outputs.iter().map(|(_, id)| vec![0u8; graph.descriptor(*id).byte_length() as usize]).collect();
        let mut slices: Vec<&mut [u8]> = outs.iter_mut().map(|o| o.as_mut_slice()).collect();
        compiled.execute(&[x], &mut slices).unwrap();
        outs
    }

    /// Values covering both sigmoid branches, large magnitudes, ±0, ±∞ and NaN.
    fn inputs(n: usize) -> Vec<f32> {
        let special = [0.0, -0.0, f32::INFINITY, f32::NEG_INFINITY, f32::NAN, 88.0, -88.0, 1e-30, -104.5, 20.0];
        (0..n).map(|i| if i < special.len() { special[i] } else { ((i * 7919) % 2001) as f32 / 50.0 - 20.0 }).collect()
    }

    #[test]
    fn silu_fuses_and_matches_the_unfused_steps_bit_for_bit() {
        for data_type in [DataType::Float32, DataType::Float16] {
            for swap in [false, true] {
                let desc = OperandDescriptor::new(data_type, vec![3, 5000]);
                let xs = inputs(15000);
                let bytes: Vec<u8> = match data_type {
                    DataType::Float16 => xs.iter().flat_map(|&v| f16::from_f32(v).to_bits().to_le_bytes()).collect(),
                    _ => xs.iter().flat_map(|v| v.to_le_bytes()).collect(),
                };
                let build = |keep_sigmoid: bool| {
                    let mut b = builder();
                    let x = b.input("x", &desc).unwrap();
                    let s = b.sigmoid(&x, &OperatorOptions::default()).unwrap();
                    let y = if swap { b.mul(&s, &x, &OperatorOptions::default()) } else { b.mul(&x, &s, &OperatorOptions::default()) };
                    let y = y.unwrap();
                    // With the sigmoid also an output, nothing fuses.
                    if keep_sigmoid { b.build(&[("y", &y), ("s", &s)]) } else { b.build(&[("y", &y)]) }.unwrap()
                };
                let (fused, unfused) = (build(false), build(true));
                let x = fused.operations[0].inputs[0].unwrap();
                assert_eq!(plan(&fused), vec![Fate::Absorbed, Fate::Swish { x }]);
                assert_eq!(plan(&unfused), vec![Fate::Own, Fate::Own]);
                let (a, b) = (run(&fused, &bytes), run(&unfused, &bytes));
                // Bit for bit, except that a NaN's sign and payload are not specified (Rust,
                // LLVM and the CPU may return either operand's NaN).
                let width = data_type.byte_size();
                for (i, (p, q)) in a[0].chunks_exact(width).zip(b[0].chunks_exact(width)).enumerate() {
                    let nan = |c: &[u8]| match data_type {
                        DataType::Float16 => f16::from_bits(u16::from_le_bytes([c[0], c[1]])).is_nan(),
                        _ => f32::from_le_bytes(c.try_into().unwrap()).is_nan(),
                    };
                    assert!(p == q || (nan(p) && nan(q)), "{data_type:?} swap={swap}: x = {} fused {p:?} unfused {q:?}", xs[i]);
                }

                // And against a reference: x · sigmoid(x) in f64, at the WPT sigmoid tolerance.
                if data_type == DataType::Float32 {
                    let got: Vec<f32> = a[0].chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect();
                    for (&x, &g) in xs.iter().zip(&got) {
                        let want = (x as f64 * (1.0 / (1.0 + (-(x as f64)).exp()))) as f32;
                        let ok = if want.is_nan() { g.is_nan() } else { g == want || (g.to_bits() as i64 - want.to_bits() as i64).abs() <= 34 };
                        assert!(ok, "x={x}: got {g}, want {want}");
                    }
                }
            }
        }
    }

    #[test]
    fn no_fusion_across_broadcasts_other_operands_or_shared_sigmoids() {
        let desc = OperandDescriptor::new(DataType::Float32, vec![2, 4]);
        let o = OperatorOptions::default();
        // mul(y, sigmoid(x)) with y != x.
        let mut b = builder();
        let x = b.input("x", &desc).unwrap();
        let y = b.relu(&x, &o).unwrap();
        let s = b.sigmoid(&x, &o).unwrap();
        let z = b.mul(&y, &s, &o).unwrap();
        assert_eq!(plan(&b.build(&[("z", &z)]).unwrap()), vec![Fate::Own; 3]);
        // The sigmoid read twice.
        let mut b = builder();
        let x = b.input("x", &desc).unwrap();
        let s = b.sigmoid(&x, &o).unwrap();
        let z = b.mul(&x, &s, &o).unwrap();
        let w = b.add(&z, &s, &o).unwrap();
        assert_eq!(plan(&b.build(&[("w", &w)]).unwrap()), vec![Fate::Own; 3]);
        // Broadcasting: sigmoid of a [4] operand times a [2, 4] one.
        let mut b = builder();
        let x = b.input("x", &OperandDescriptor::new(DataType::Float32, vec![4])).unwrap();
        let s = b.sigmoid(&x, &o).unwrap();
        let big = b.input("big", &desc).unwrap();
        let z = b.mul(&big, &s, &o).unwrap();
        assert_eq!(plan(&b.build(&[("z", &z)]).unwrap()), vec![Fate::Own; 2]);
    }
}

//! Tests of the float16 pass: one-operation graphs keep their bits, chains compute in float32
//! and round where the graph says (its outputs and its casts), moves keep float16 bits.

use super::super::{Passes, Program};
use crate::testing::constant_operands::out_f32;
use crate::testing::graphs::*;
use half::f16;
use webnn_core::{DataType, Graph, GraphBuilder, Operand, OperandDescriptor};

const STRICT: Passes = Passes { widen_float16: false, ..Passes::DEFAULT };

fn f16_desc(shape: &[u32]) -> OperandDescriptor {
    OperandDescriptor::new(DataType::Float16, shape.to_vec())
}

fn f16_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|&x| f16::from_f32(x).to_bits().to_le_bytes()).collect()
}

fn f16_constant(b: &mut GraphBuilder, shape: &[u32], v: &[f32]) -> Operand {
    b.constant(&f16_desc(shape), &f16_bytes(v)).unwrap()
}

fn names(graph: &Graph, passes: Passes) -> Vec<String> {
    Program::compile_with(graph, passes).1.nodes.iter().map(|n| n.name.clone()).collect()
}

#[test]
fn one_operation_graphs_give_the_bits_they_gave_before() {
    // Each kernel computed float16 in f32 and rounded once; widened, it computes the same f32
    // values and the output cast rounds them once.
    type Build = fn(&mut GraphBuilder, &Operand) -> Operand;
    let ops: [(&str, Build); 6] = [
        ("sigmoid", |b, x| b.sigmoid(x, &opts()).unwrap()),
        ("softmax", |b, x| b.softmax(x, 1, &opts()).unwrap()),
        ("erf", |b, x| b.erf(x, &opts()).unwrap()),
        ("add", |b, x| {
            let c = f16_constant(b, &[40], &values(40, 3, 2.0));
            b.add(x, &c, &opts()).unwrap()
        }),
        ("matmul", |b, x| {
            let w = f16_constant(b, &[40, 24], &values(960, 4, 0.5));
            b.matmul(x, &w, &opts()).unwrap()
        }),
        ("layerNormalization", |b, x| b.layer_normalization(x, &Default::default()).unwrap()),
    ];
    let xs = f16_bytes(&values(30 * 40, 7, 4.0));
    for (name, build) in ops {
        let mut b = builder();
        let x = b.input("x", &f16_desc(&[30, 40])).unwrap();
        let y = build(&mut b, &x);
        let graph = b.build(&[("y", &y)]).unwrap();
        assert_eq!(names(&graph, Passes::DEFAULT)[0], "cast", "{name}: the input is widened");
        let (widened, strict) =
            (run_graph_with(&graph, Passes::DEFAULT, &[&xs]), run_graph_with(&graph, STRICT, &[&xs]));
        assert_eq!(widened, strict, "{name}");
    }
}

#[test]
fn chains_compute_in_float32_and_round_only_at_the_outputs() {
    // y = (x · x) / 1000: x · x is past float16's range for |x| ≥ 256.
    let mut b = builder();
    let x = b.input("x", &f16_desc(&[4])).unwrap();
    let sq = b.mul(&x, &x, &opts()).unwrap();
    let k = f16_constant(&mut b, &[], &[1000.0]);
    let y = b.div(&sq, &k, &opts()).unwrap();
    let graph = b.build(&[("y", &y)]).unwrap();
    let xs = [300.0f32, -3.0, 0.1, 255.0];
    let widened = out_f32(DataType::Float16, &run_graph_with(&graph, Passes::DEFAULT, &[&f16_bytes(&xs)])[0]);
    let strict = out_f32(DataType::Float16, &run_graph_with(&graph, STRICT, &[&f16_bytes(&xs)])[0]);
    for (i, &x) in xs.iter().enumerate() {
        let x = f16::from_f32(x).to_f64();
        // Widened: the product and the quotient in f32, rounded to float16 once.
        let once = f16::from_f32((x * x) as f32 / 1000.0).to_f32();
        // Strict: the product rounded to float16 first (infinite for 300²).
        let twice = f16::from_f32(f16::from_f32((x * x) as f32).to_f32() / 1000.0).to_f32();
        assert_eq!(widened[i], once, "x = {x}");
        assert_eq!(strict[i], twice, "x = {x}");
    }
    assert_eq!(widened[0], 90.0);
    assert_eq!(strict[0], f32::INFINITY);
}

#[test]
fn casts_round_where_the_graph_says() {
    // A float32 model converted to float16 with float32 inputs and outputs:
    // cast(x, float16) → div(·, 3) → cast(·, float32).
    let mut b = builder();
    let x = b.input("x", &f32_desc(&[3])).unwrap();
    let h = b.cast(&x, DataType::Float16, &opts()).unwrap();
    let three = f16_constant(&mut b, &[], &[3.0]);
    let d = b.div(&h, &three, &opts()).unwrap();
    let y = b.cast(&d, DataType::Float32, &opts()).unwrap();
    let graph = b.build(&[("y", &y)]).unwrap();
    let xs = [1.0001f32, 2049.0, -7.0];
    let got = f32_values(&run_graph_with(&graph, Passes::DEFAULT, &[&f32_bytes(&xs)])[0]);
    for (g, x) in got.iter().zip(xs) {
        // The input rounds to float16 (1.0001 → 1, 2049 → 2048), the quotient too (1/3 →
        // 0.33325195), as the graph's casts say.
        let want = f16::from_f32(f16::from_f32(x).to_f32() / 3.0).to_f32();
        assert_eq!(*g, want, "x = {x}");
    }
    assert_eq!(got[0], 0.33325195);
    assert_eq!(got, f32_values(&run_graph_with(&graph, STRICT, &[&f32_bytes(&xs)])[0]));
}

#[test]
fn outputs_read_inside_the_graph_and_moves_of_float16_values() {
    // s = sigmoid(x) is an output and is read by t = s · x; a transpose of the input (with a
    // NaN payload) stays on float16 and keeps its bits.
    let mut b = builder();
    let x = b.input("x", &f16_desc(&[2, 3])).unwrap();
    let s = b.sigmoid(&x, &opts()).unwrap();
    let t = b.mul(&s, &x, &opts()).unwrap();
    let moved = b.transpose(&x, &Default::default()).unwrap();
    let graph = b.build(&[("s", &s), ("t", &t), ("moved", &moved)]).unwrap();
    let mut xs = f16_bytes(&[0.5, -1.0, 2.0, 7.5, -0.25, 3.0]);
    xs[2..4].copy_from_slice(&0x7d01u16.to_le_bytes()); // a signalling NaN with a payload
    let outs = run_graph_with(&graph, Passes::DEFAULT, &[&xs]);
    let x_values = out_f32(DataType::Float16, &xs);
    for (i, &x) in x_values.iter().enumerate() {
        let sig = 1.0 / (1.0 + (-(x as f64)).exp());
        // s rounds once; t reads the float32 sigmoid, not the rounded one.
        let (s_got, t_got) = (out_f32(DataType::Float16, &outs[0])[i], out_f32(DataType::Float16, &outs[1])[i]);
        if x.is_nan() {
            assert!(s_got.is_nan() && t_got.is_nan());
            continue;
        }
        assert!((s_got as f64 - sig).abs() <= sig * 2f64.powi(-11), "s({x}) = {s_got}, want {sig}");
        assert!((t_got as f64 - sig * x as f64).abs() <= (sig * x as f64).abs() * 2f64.powi(-10), "t({x}) = {t_got}");
    }
    let want_moved: Vec<u8> = [0, 3, 1, 4, 2, 5].iter().flat_map(|&i| xs[2 * i..2 * i + 2].to_vec()).collect();
    assert_eq!(outs[2], want_moved);
    let names = names(&graph, Passes::DEFAULT);
    assert_eq!(names.iter().filter(|n| *n == "transpose").count(), 1);
    // The input cast once; sigmoid's float32 result rounded into the output once.
    assert_eq!(names.iter().filter(|n| *n == "cast").count(), 3, "{names:?}");
}

#[test]
fn a_float16_layer_takes_the_float32_fusions() {
    // matmul → add(bias) → erf-GELU, all float16 constants (√2 written as float16).
    let mut b = builder();
    let x = b.input("x", &f16_desc(&[8, 16])).unwrap();
    let w = f16_constant(&mut b, &[16, 32], &values(512, 5, 0.5));
    let bias = f16_constant(&mut b, &[32], &values(32, 6, 0.5));
    let m = b.matmul(&x, &w, &opts()).unwrap();
    let h = b.add(&m, &bias, &opts()).unwrap();
    let sqrt2 = f16_constant(&mut b, &[], &[std::f32::consts::SQRT_2]);
    let (one, half) = (f16_constant(&mut b, &[], &[1.0]), f16_constant(&mut b, &[], &[0.5]));
    let e = b.div(&h, &sqrt2, &opts()).unwrap();
    let e = b.erf(&e, &opts()).unwrap();
    let e = b.add(&e, &one, &opts()).unwrap();
    let g = b.mul(&h, &e, &opts()).unwrap();
    let y = b.mul(&g, &half, &opts()).unwrap();
    let graph = b.build(&[("y", &y)]).unwrap();
    assert_eq!(names(&graph, Passes::DEFAULT), ["cast", "matmul+add+gelu(erf)", "cast"]);
    // Against the layer in f64 from the same float16 values: within float16's rounding of the
    // result plus the float32 sums' error.
    let xv = values(128, 9, 2.0);
    let got = out_f32(DataType::Float16, &run_graph_with(&graph, Passes::DEFAULT, &[&f16_bytes(&xv)])[0]);
    let q = |v: &[f32]| v.iter().map(|&x| f16::from_f32(x).to_f64()).collect::<Vec<_>>();
    let (xq, wq, bq) = (q(&xv), q(&values(512, 5, 0.5)), q(&values(32, 6, 0.5)));
    for r in 0..8 {
        for c in 0..32 {
            let h: f64 = (0..16).map(|k| xq[r * 16 + k] * wq[k * 32 + c]).sum::<f64>() + bq[c];
            let want = 0.5 * h * (1.0 + libm::erf(h / std::f64::consts::SQRT_2));
            let g = got[r * 32 + c] as f64;
            assert!((g - want).abs() <= want.abs() * 2f64.powi(-10) + 1e-4, "[{r},{c}] {g} vs {want}");
        }
    }
}

#[test]
fn outputs_twice_inputs_as_outputs_multi_output_operations_and_mixed_forms() {
    // identity(x) is an output (a move: x's bits); e = exp(x) is two outputs; split(e) has one part as an output
    // and one read by a concat with x (a value with only a float32 form beside one with a
    // float16 form).
    let mut b = builder();
    let x = b.input("x", &f16_desc(&[4])).unwrap();
    let id = b.identity(&x, &opts()).unwrap();
    let e = b.exp(&x, &opts()).unwrap();
    let parts = b.split(&e, &webnn_core::Splits::Count(2), &Default::default()).unwrap();
    let c = b.concat(&[&parts[1], &x], 0, &opts()).unwrap();
    let graph = b.build(&[("x", &id), ("e1", &e), ("e2", &e), ("p0", &parts[0]), ("c", &c)]).unwrap();
    let xv = [0.5f32, -1.0, 2.0, 3.0];
    let xs = f16_bytes(&xv);
    let outs = run_graph_with(&graph, Passes::DEFAULT, &[&xs]);
    let exp: Vec<f32> = xv.iter().map(|&v| f16::from_f32((v as f64).exp() as f32).to_f32()).collect();
    assert_eq!(outs[0], xs);
    assert_eq!(out_f32(DataType::Float16, &outs[1]), exp);
    assert_eq!(out_f32(DataType::Float16, &outs[2]), exp);
    assert_eq!(out_f32(DataType::Float16, &outs[3]), exp[..2]);
    assert_eq!(out_f32(DataType::Float16, &outs[4]), [exp[2], exp[3], xv[0], xv[1], xv[2], xv[3]]);
    assert_eq!(outs, run_graph_with(&graph, STRICT, &[&xs]));
}

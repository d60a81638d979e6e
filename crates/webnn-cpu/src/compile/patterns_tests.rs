//! Tests of the pattern rewrites: what fuses, what must not, and the fused results against the
//! unfused steps and against f64 references.

use super::super::{NodeKind, Program};
use crate::kernels::activation::Activation;
use crate::testing::graphs::*;
use half::f16;
use webnn_core::testing::ulp_f32;
use webnn_core::{DataType, GraphBuilder, Operand, OperandDescriptor};

/// The program's node kinds, without the casts with which `float16::widen` enters and leaves
/// float32 at a float16 graph's edges (none of these graphs has a cast of its own).
fn kinds(program: &Program) -> Vec<NodeKind> {
    program.nodes.iter().filter(|n| n.name != "cast").map(|n| n.kind.clone()).collect()
}

fn scalar(b: &mut GraphBuilder, v: f32) -> Operand {
    b.constant(&f32_desc(&[]), &f32_bytes(&[v])).unwrap()
}

/// Values covering both sigmoid branches, large magnitudes, ±0, ±∞ and NaN.
fn special_inputs(n: usize) -> Vec<f32> {
    let special = [0.0, -0.0, f32::INFINITY, f32::NEG_INFINITY, f32::NAN, 88.0, -88.0, 1e-30, -104.5, 20.0];
    (0..n).map(|i| if i < special.len() { special[i] } else { ((i * 7919) % 2001) as f32 / 50.0 - 20.0 }).collect()
}

#[test]
fn silu_becomes_swish_and_matches_the_unfused_steps_bit_for_bit() {
    for data_type in [DataType::Float32, DataType::Float16] {
        for swap in [false, true] {
            let desc = OperandDescriptor::new(data_type, vec![3, 5000]);
            let xs = special_inputs(15000);
            let bytes: Vec<u8> = match data_type {
                DataType::Float16 => xs.iter().flat_map(|&v| f16::from_f32(v).to_bits().to_le_bytes()).collect(),
                _ => f32_bytes(&xs),
            };
            let build = |keep_sigmoid: bool| {
                let mut b = builder();
                let x = b.input("x", &desc).unwrap();
                let s = b.sigmoid(&x, &opts()).unwrap();
                let y = if swap { b.mul(&s, &x, &opts()) } else { b.mul(&x, &s, &opts()) }.unwrap();
                // With the sigmoid also an output, nothing fuses.
                if keep_sigmoid { b.build(&[("y", &y), ("s", &s)]) } else { b.build(&[("y", &y)]) }.unwrap()
            };
            let (fused, unfused) = (build(false), build(true));
            assert_eq!(kinds(&Program::compile(&fused).1), [NodeKind::Activation(Activation::Swish)]);
            assert_eq!(kinds(&Program::compile(&unfused).1), [NodeKind::Op, NodeKind::Op]);
            let (a, b) = (run_graph(&fused, &[&bytes]), run_graph(&unfused, &[&bytes]));
            // Bit for bit, except that a NaN's sign and payload are not specified.
            let width = data_type.byte_size();
            for (i, (p, q)) in a[0].chunks_exact(width).zip(b[0].chunks_exact(width)).enumerate() {
                let nan = |c: &[u8]| match data_type {
                    DataType::Float16 => f16::from_bits(u16::from_le_bytes([c[0], c[1]])).is_nan(),
                    _ => f32::from_le_bytes(c.try_into().unwrap()).is_nan(),
                };
                assert!(
                    p == q || (nan(p) && nan(q)),
                    "{data_type:?} swap={swap}: x = {} fused {p:?} unfused {q:?}",
                    xs[i]
                );
            }
            // And against x · sigmoid(x) in f64, at the WPT sigmoid tolerance (34 ULP).
            if data_type == DataType::Float32 {
                for (&x, &g) in xs.iter().zip(&f32_values(&a[0])) {
                    let want = (x as f64 * (1.0 / (1.0 + (-(x as f64)).exp()))) as f32;
                    let ok = if want.is_nan() { g.is_nan() } else { g == want || ulp_f32(g, want) <= 34 };
                    assert!(ok, "x={x}: got {g}, want {want}");
                }
            }
        }
    }
}

#[test]
fn no_swish_across_broadcasts_other_operands_or_shared_sigmoids() {
    let desc = f32_desc(&[2, 4]);
    let o = opts();
    // mul(y, sigmoid(x)) with y != x.
    let mut b = builder();
    let x = b.input("x", &desc).unwrap();
    let y = b.relu(&x, &o).unwrap();
    let s = b.sigmoid(&x, &o).unwrap();
    let z = b.mul(&y, &s, &o).unwrap();
    assert_eq!(kinds(&Program::compile(&b.build(&[("z", &z)]).unwrap()).1), vec![NodeKind::Op; 3]);
    // The sigmoid read twice.
    let mut b = builder();
    let x = b.input("x", &desc).unwrap();
    let s = b.sigmoid(&x, &o).unwrap();
    let z = b.mul(&x, &s, &o).unwrap();
    let w = b.add(&z, &s, &o).unwrap();
    assert_eq!(kinds(&Program::compile(&b.build(&[("w", &w)]).unwrap()).1), vec![NodeKind::Op; 3]);
    // Broadcasting: sigmoid of a [4] operand times a [2, 4] one.
    let mut b = builder();
    let x = b.input("x", &f32_desc(&[4])).unwrap();
    let s = b.sigmoid(&x, &o).unwrap();
    let big = b.input("big", &desc).unwrap();
    let z = b.mul(&big, &s, &o).unwrap();
    assert_eq!(kinds(&Program::compile(&b.build(&[("z", &z)]).unwrap()).1), vec![NodeKind::Op; 2]);
}

/// The gelu formula in each grouping and form exporters write.
fn gelu_graph(form: usize, scale_by_mul: bool, half: f32) -> webnn_core::Graph {
    let mut b = builder();
    let x = b.input("x", &f32_desc(&[7, 301])).unwrap();
    let o = opts();
    let scaled = if scale_by_mul {
        let c = scalar(&mut b, std::f32::consts::FRAC_1_SQRT_2);
        b.mul(&c, &x, &o).unwrap()
    } else {
        let c = scalar(&mut b, std::f32::consts::SQRT_2);
        b.div(&x, &c, &o).unwrap()
    };
    let e = b.erf(&scaled, &o).unwrap();
    let one = scalar(&mut b, 1.0);
    let p = b.add(&one, &e, &o).unwrap();
    let h = scalar(&mut b, half);
    let y = match form {
        0 => {
            let t = b.mul(&x, &p, &o).unwrap();
            b.mul(&t, &h, &o).unwrap()
        }
        1 => {
            let t = b.mul(&h, &x, &o).unwrap();
            b.mul(&t, &p, &o).unwrap()
        }
        _ => {
            let t = b.mul(&p, &h, &o).unwrap();
            b.mul(&x, &t, &o).unwrap()
        }
    };
    b.build(&[("y", &y)]).unwrap()
}

#[test]
fn the_erf_formula_becomes_gelu_within_its_tolerance() {
    let xs: Vec<f32> =
        values(7 * 301, 11, 6.0).into_iter().chain([0.0, -0.0, 1e-20, -30.0, 30.0]).take(7 * 301).collect();
    for form in 0..3 {
        for by_mul in [false, true] {
            let graph = gelu_graph(form, by_mul, 0.5);
            let program = Program::compile(&graph).1;
            assert_eq!(
                kinds(&program),
                [NodeKind::Activation(Activation::Gelu)],
                "form {form} mul {by_mul}:\n{}",
                program.dump(&graph)
            );
            let got = f32_values(&run_graph(&graph, &[&f32_bytes(&xs)])[0]);
            for (&x, &g) in xs.iter().zip(&got) {
                let xd = x as f64;
                let want = (0.5 * xd * (1.0 + libm::erf(xd / std::f64::consts::SQRT_2))) as f32;
                // gelu's WPT tolerance: 18 ULP.
                assert!(g == want || ulp_f32(g, want) <= 18, "form {form}: gelu({x}) = {g}, want {want}");
            }
        }
    }
    // A different constant is a different function: nothing fuses.
    let graph = gelu_graph(0, false, 0.25);
    assert!(kinds(&Program::compile(&graph).1).iter().all(|k| *k == NodeKind::Op));
}

#[test]
fn a_match_with_a_value_read_outside_it_is_left_alone() {
    let mut b = builder();
    let x = b.input("x", &f32_desc(&[4])).unwrap();
    let o = opts();
    let c = scalar(&mut b, std::f32::consts::SQRT_2);
    let d = b.div(&x, &c, &o).unwrap();
    let e = b.erf(&d, &o).unwrap();
    let one = scalar(&mut b, 1.0);
    let p = b.add(&e, &one, &o).unwrap();
    let t = b.mul(&x, &p, &o).unwrap();
    let h = scalar(&mut b, 0.5);
    let y = b.mul(&t, &h, &o).unwrap();
    // erf's result is also an output.
    let graph = b.build(&[("y", &y), ("e", &e)]).unwrap();
    assert!(kinds(&Program::compile(&graph).1).iter().all(|k| *k == NodeKind::Op));
}

#[test]
fn pow_of_exactly_two_becomes_square_and_rounds_as_pow_does() {
    let xs = special_inputs(4000);
    for data_type in [DataType::Float32, DataType::Float16] {
        let desc = OperandDescriptor::new(data_type, vec![4000]);
        let bytes: Vec<u8> = match data_type {
            DataType::Float16 => xs.iter().flat_map(|&v| f16::from_f32(v).to_bits().to_le_bytes()).collect(),
            _ => f32_bytes(&xs),
        };
        let mut b = builder();
        let x = b.input("x", &desc).unwrap();
        let two = match data_type {
            DataType::Float16 => b
                .constant(
                    &OperandDescriptor::new(DataType::Float16, vec![]),
                    &f16::from_f32(2.0).to_bits().to_le_bytes(),
                )
                .unwrap(),
            _ => scalar(&mut b, 2.0),
        };
        let y = b.pow(&x, &two, &opts()).unwrap();
        let graph = b.build(&[("y", &y)]).unwrap();
        assert_eq!(kinds(&Program::compile(&graph).1), [NodeKind::Activation(Activation::Square)]);
        let got = run_graph(&graph, &[&bytes]);
        for (i, &v) in xs.iter().enumerate() {
            // x² in f64 (exact for these inputs), rounded once to the data type.
            let (got, want) = match data_type {
                DataType::Float16 => {
                    let x = f16::from_f32(v).to_f64();
                    (
                        f16::from_bits(u16::from_le_bytes([got[0][2 * i], got[0][2 * i + 1]])).to_f64(),
                        f16::from_f64(x * x).to_f64(),
                    )
                }
                _ => (
                    f32::from_le_bytes(got[0][4 * i..4 * i + 4].try_into().unwrap()) as f64,
                    (v as f64 * v as f64) as f32 as f64,
                ),
            };
            assert!(got == want || (got.is_nan() && want.is_nan()), "{data_type:?} x = {v}: {got} vs {want}");
        }
    }
    // Any other exponent, even one ULP from 2, stays a pow.
    let mut b = builder();
    let x = b.input("x", &f32_desc(&[4])).unwrap();
    let e = scalar(&mut b, f32::from_bits(2.0f32.to_bits() + 1));
    let y = b.pow(&x, &e, &opts()).unwrap();
    assert_eq!(kinds(&Program::compile(&b.build(&[("y", &y)]).unwrap()).1), [NodeKind::Op]);
}

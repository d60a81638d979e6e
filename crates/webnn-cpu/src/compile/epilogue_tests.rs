//! Tests of epilogue fusion: which chains fuse, and fused results equal to the unfused steps
//! bit for bit (the same f32 operations in the same order) on every conv / matmul / gemm path.

use super::super::{NodeKind, Passes, Program};
use super::*;
use crate::kernels::activation::Activation;
use crate::testing::graphs::*;
use webnn_core::types::{Conv2dFilterOperandLayout, InputOperandLayout};
use webnn_core::{ClampOptions, Conv2dOptions, GemmOptions, Graph, GraphBuilder, Operand, OperandDescriptor};

#[test]
fn axis_groups() {
    assert_eq!(axis_group(&[2, 3, 4], &[2, 3, 4]), Some((1, 24))); // residual
    assert_eq!(axis_group(&[4], &[2, 3, 4]), Some((1, 4))); // bias along the last axis
    assert_eq!(axis_group(&[3, 1], &[2, 3, 4]), Some((4, 3))); // per channel, nchw-style
    assert_eq!(axis_group(&[1, 3, 1, 1], &[1, 3, 5, 5]), Some((25, 3)));
    assert_eq!(axis_group(&[], &[2, 3]), Some((1, 1))); // scalar
    assert_eq!(axis_group(&[1, 1], &[2, 3]), Some((1, 1)));
    assert_eq!(axis_group(&[2, 1, 4], &[2, 3, 4]), None); // two separate groups
    assert_eq!(axis_group(&[2, 3, 4, 5], &[3, 4, 5]), None); // higher rank
    assert_eq!(axis_group(&[1, 3, 1], &[1, 3, 1]), Some((1, 3)));
}

/// The layout pass off: these tests fuse epilogues on each conv path as the graph states its
/// layout (the pass would move nchw depthwise convs to nhwc; `layout_tests.rs` covers that).
const AS_BUILT: Passes = Passes::DEFAULT;

fn names(program: &Program) -> Vec<&str> {
    program.nodes.iter().map(|n| n.name.as_str()).collect()
}

/// What a test graph is built from.
struct Case {
    graph: Graph,
    /// The same computation with every intermediate also an output (so nothing fuses).
    unfused: Graph,
    inputs: Vec<Vec<u8>>,
}

/// Builds `f`'s graph twice: with output `y` only, and with the intermediates `f` returns
/// also as outputs.
fn case(descs: &[OperandDescriptor], f: impl Fn(&mut GraphBuilder, &[Operand]) -> (Operand, Vec<Operand>)) -> Case {
    let build = |all: bool| {
        let mut b = builder();
        let ins: Vec<Operand> = descs.iter().enumerate().map(|(i, d)| b.input(&format!("in{i}"), d).unwrap()).collect();
        let (y, mids) = f(&mut b, &ins);
        let names: Vec<String> = (0..mids.len()).map(|i| format!("mid{i}")).collect();
        let mut outs = vec![("y", &y)];
        if all {
            outs.extend(names.iter().map(|n| n.as_str()).zip(&mids));
        }
        b.build(&outs).unwrap()
    };
    let inputs = descs.iter().enumerate().map(|(i, d)| f32_bytes(&values(d.len(), 100 + i as u64, 2.0))).collect();
    Case { graph: build(false), unfused: build(true), inputs }
}

impl Case {
    /// Checks the fused program's step names and that its output equals the unfused one's.
    fn check(&self, want: &[&str]) {
        let (graph, program) = Program::compile_with(&self.graph, AS_BUILT);
        assert_eq!(names(&program), want, "{}", program.dump(&graph));
        let ins: Vec<&[u8]> = self.inputs.iter().map(|v| v.as_slice()).collect();
        let fused = f32_values(&run_graph_with(&self.graph, AS_BUILT, &ins)[0]);
        let unfused = f32_values(&run_graph_with(&self.unfused, AS_BUILT, &ins)[0]);
        assert_eq!(fused.len(), unfused.len());
        for (i, (a, b)) in fused.iter().zip(&unfused).enumerate() {
            assert!(
                a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()),
                "{want:?}: element {i}: fused {a}, unfused {b}"
            );
        }
    }
}

fn constant(b: &mut GraphBuilder, shape: &[u32], seed: u64) -> Operand {
    let d = f32_desc(shape);
    b.constant(&d, &f32_bytes(&values(d.len(), seed, 0.5))).unwrap()
}

fn conv(b: &mut GraphBuilder, x: &Operand, cin: u32, cout: u32, k: u32, groups: u32, nhwc: bool) -> Operand {
    let filter =
        if nhwc { constant(b, &[cout, k, k, cin / groups], 1) } else { constant(b, &[cout, cin / groups, k, k], 1) };
    let bias = constant(b, &[cout], 2);
    let options = Conv2dOptions {
        padding: Some(vec![k / 2; 4]),
        groups,
        input_layout: if nhwc { InputOperandLayout::Nhwc } else { InputOperandLayout::Nchw },
        filter_layout: if nhwc { Conv2dFilterOperandLayout::Ohwi } else { Conv2dFilterOperandLayout::Oihw },
        bias: Some(bias),
        ..Conv2dOptions::new()
    };
    b.conv2d(x, &filter, &options).unwrap()
}

#[test]
fn conv_paths_with_activations_and_residuals_equal_the_unfused_steps() {
    // (cin, cout, kernel, groups): pointwise, im2col, depthwise, grouped.
    for (cin, cout, k, groups) in [(8, 16, 1, 1), (5, 7, 3, 1), (12, 12, 3, 12), (8, 12, 3, 4)] {
        for nhwc in [false, true] {
            let shape = if nhwc { vec![2, 9, 11, cin] } else { vec![2, cin, 9, 11] };
            let out_shape = if nhwc { vec![2, 9, 11, cout] } else { vec![2, cout, 9, 11] };
            // conv → relu
            case(&[f32_desc(&shape)], |b, ins| {
                let c = conv(b, &ins[0], cin, cout, k, groups, nhwc);
                (b.relu(&c, &opts()).unwrap(), vec![c])
            })
            .check(&["conv2d+relu"]);
            // conv → add(residual) → clamp(0, 6)  (a residual the fused step reads)
            case(&[f32_desc(&shape), f32_desc(&out_shape)], |b, ins| {
                let c = conv(b, &ins[0], cin, cout, k, groups, nhwc);
                let r = b.add(&ins[1], &c, &opts()).unwrap();
                let options =
                    ClampOptions { min_value: Some(0.0.into()), max_value: Some(6.0.into()), ..Default::default() };
                (b.clamp(&r, &options).unwrap(), vec![c, r])
            })
            .check(&["conv2d+add+clamp"]);
            // conv → sigmoid·x (swish): on AVX-512 the GEMM's microkernel applies it
            case(&[f32_desc(&shape)], |b, ins| {
                let c = conv(b, &ins[0], cin, cout, k, groups, nhwc);
                let s = b.sigmoid(&c, &opts()).unwrap();
                (b.mul(&c, &s, &opts()).unwrap(), vec![c, s])
            })
            .check(&["conv2d+sigmoid+mul"]);
            // conv → sigmoid·x (swish) → mul(per-channel scale)
            let scale_shape = if nhwc { vec![cout] } else { vec![cout, 1, 1] };
            case(&[f32_desc(&shape)], |b, ins| {
                let c = conv(b, &ins[0], cin, cout, k, groups, nhwc);
                let s = b.sigmoid(&c, &opts()).unwrap();
                let w = b.mul(&c, &s, &opts()).unwrap();
                let scale = constant(b, &scale_shape, 3);
                (b.mul(&w, &scale, &opts()).unwrap(), vec![c, w])
            })
            .check(&["conv2d+sigmoid+mul+mul"]);
        }
    }
}

#[test]
fn depthwise_plane_kernel_activations_equal_the_unfused_steps() {
    // Planes above depthwise_blocked's 10×10 (the streamed plane kernel on AVX-512 CPUs):
    // 3×3 and 5×5 at strides 1 and 2, planes one vector wide (two at a time) and wider ones,
    // an odd channel count; a relu, a clamp and a SiLU.
    for (h, w, k, stride) in [(14, 14, 3, 1), (20, 37, 5, 1), (29, 30, 3, 2), (23, 40, 5, 2)] {
        let c = 5;
        let shape = vec![2, c, h, w];
        type Act = fn(&mut GraphBuilder, &Operand) -> (Operand, Vec<Operand>);
        let acts: [(&str, Act); 3] = [
            ("conv2d+relu", |b, x| (b.relu(x, &opts()).unwrap(), vec![])),
            ("conv2d+clamp", |b, x| {
                let options =
                    ClampOptions { min_value: Some((-0.5).into()), max_value: Some(0.75.into()), ..Default::default() };
                (b.clamp(x, &options).unwrap(), vec![])
            }),
            ("conv2d+sigmoid+mul", |b, x| {
                let s = b.sigmoid(x, &opts()).unwrap();
                (b.mul(x, &s, &opts()).unwrap(), vec![s])
            }),
        ];
        for (name, act) in acts {
            case(&[f32_desc(&shape)], |b, ins| {
                let filter = constant(b, &[c, 1, k, k], 1);
                let bias = constant(b, &[c], 2);
                let options = Conv2dOptions {
                    padding: Some(vec![k / 2; 4]),
                    strides: Some(vec![stride; 2]),
                    groups: c,
                    bias: Some(bias),
                    ..Conv2dOptions::new()
                };
                let y = b.conv2d(&ins[0], &filter, &options).unwrap();
                let (out, mut mids) = act(b, &y);
                mids.insert(0, y);
                (out, mids)
            })
            .check(&[name]);
        }
    }
}

#[test]
fn winograd_and_direct_conv_epilogues_equal_the_unfused_steps() {
    // 16 → 16 on 18×18 takes Winograd (25 tiles); 8 → 20 (72 taps) the direct kernel on
    // AVX-512 CPUs, im2col elsewhere.
    for (cin, cout) in [(16, 16), (8, 20)] {
        let (shape, out_shape) = (vec![1, cin, 18, 18], vec![1, cout, 18, 18]);
        case(&[f32_desc(&shape)], |b, ins| {
            let c = conv(b, &ins[0], cin, cout, 3, 1, false);
            (b.relu(&c, &opts()).unwrap(), vec![c])
        })
        .check(&["conv2d+relu"]);
        case(&[f32_desc(&shape), f32_desc(&out_shape)], |b, ins| {
            let c = conv(b, &ins[0], cin, cout, 3, 1, false);
            let r = b.add(&c, &ins[1], &opts()).unwrap();
            let options =
                ClampOptions { min_value: Some((-1.0).into()), max_value: Some(1.0.into()), ..Default::default() };
            (b.clamp(&r, &options).unwrap(), vec![c, r])
        })
        .check(&["conv2d+add+clamp"]);
        case(&[f32_desc(&shape)], |b, ins| {
            let c = conv(b, &ins[0], cin, cout, 3, 1, false);
            let s = b.sigmoid(&c, &opts()).unwrap();
            (b.mul(&c, &s, &opts()).unwrap(), vec![c, s])
        })
        .check(&["conv2d+sigmoid+mul"]);
    }
}

#[test]
fn conv_residual_epilogues_in_one_pass_equal_the_unfused_steps() {
    // The one-pass tile epilogue (bias, residual, activation): without an activation, with a
    // vectorised one (sigmoid) and a scalar one (relu); a mul; a residual broadcast over the
    // batch (each row's run found by a modulo); pointwise (GEMM) and 3×3 (im2col) convs.
    type Act = fn(&mut GraphBuilder, &Operand) -> Operand;
    let acts: [(&str, Option<Act>); 3] = [
        ("", None),
        ("+sigmoid", Some(|b, x| b.sigmoid(x, &opts()).unwrap())),
        ("+relu", Some(|b, x| b.relu(x, &opts()).unwrap())),
    ];
    for (cin, cout, k) in [(8, 20, 1), (5, 9, 3)] {
        for nhwc in [false, true] {
            let shape = if nhwc { vec![2, 9, 11, cin] } else { vec![2, cin, 9, 11] };
            let out_shape = if nhwc { vec![2, 9, 11, cout] } else { vec![2, cout, 9, 11] };
            for residual in [out_shape.clone(), out_shape[1..].to_vec()] {
                for mul in [false, true] {
                    for (act_name, act) in acts {
                        case(&[f32_desc(&shape), f32_desc(&residual)], |b, ins| {
                            let c = conv(b, &ins[0], cin, cout, k, 1, nhwc);
                            let r = if mul { b.mul(&c, &ins[1], &opts()) } else { b.add(&c, &ins[1], &opts()) };
                            let r = r.unwrap();
                            match act {
                                Some(act) => (act(b, &r), vec![c, r]),
                                None => (r.clone(), vec![c]),
                            }
                        })
                        .check(&[&format!("conv2d+{}{act_name}", if mul { "mul" } else { "add" })]);
                    }
                }
            }
        }
    }
}

#[test]
fn matmul_and_gemm_with_bias_and_activations_equal_the_unfused_steps() {
    // Batched with a shared weight (one folded GEMM), batched with broadcast batches, and
    // wider than one column tile (the bias read from each tile's first column on).
    for (a_shape, b_shape, out_shape) in [
        (vec![2, 37, 19], vec![19, 23], vec![2, 37, 23]),
        (vec![3, 1, 5, 7], vec![2, 7, 9], vec![3, 2, 5, 9]),
        (vec![1, 20, 33], vec![33, 100], vec![1, 20, 100]),
    ] {
        let n = *b_shape.last().unwrap();
        case(&[f32_desc(&a_shape), f32_desc(&b_shape)], |b, ins| {
            let m = b.matmul(&ins[0], &ins[1], &opts()).unwrap();
            let bias = constant(b, &[n], 4);
            let y = b.add(&m, &bias, &opts()).unwrap();
            (b.gelu(&y, &opts()).unwrap(), vec![m, y])
        })
        .check(&["matmul+add+gelu"]);
        // The microkernel's own epilogue (`packed_gemm::StoreOps`): the bias along the last
        // axis, a residual, a relu or a clamp.
        case(&[f32_desc(&a_shape), f32_desc(&b_shape), f32_desc(&out_shape)], |b, ins| {
            let m = b.matmul(&ins[0], &ins[1], &opts()).unwrap();
            let bias = constant(b, &[n], 4);
            let y = b.add(&m, &bias, &opts()).unwrap();
            let r = b.add(&y, &ins[2], &opts()).unwrap();
            (b.relu(&r, &opts()).unwrap(), vec![m, y, r])
        })
        .check(&["matmul+add+add+relu"]);
        case(&[f32_desc(&a_shape), f32_desc(&b_shape)], |b, ins| {
            let m = b.matmul(&ins[0], &ins[1], &opts()).unwrap();
            let bias = constant(b, &[n], 4);
            let y = b.add(&m, &bias, &opts()).unwrap();
            (
                b.clamp(
                    &y,
                    &ClampOptions {
                        min_value: Some((-0.5).into()),
                        max_value: Some(0.75.into()),
                        ..Default::default()
                    },
                )
                .unwrap(),
                vec![m, y],
            )
        })
        .check(&["matmul+add+clamp"]);
        case(&[f32_desc(&a_shape), f32_desc(&b_shape)], |b, ins| {
            let m = b.matmul(&ins[0], &ins[1], &opts()).unwrap();
            let bias = constant(b, &[n], 4);
            let y = b.add(&m, &bias, &opts()).unwrap();
            let s = b.sigmoid(&y, &opts()).unwrap();
            (b.mul(&y, &s, &opts()).unwrap(), vec![m, y, s])
        })
        .check(&["matmul+add+sigmoid+mul"]);
    }
    case(&[f32_desc(&[13, 6])], |b, ins| {
        let w = constant(b, &[10, 6], 5);
        let c = constant(b, &[10], 6);
        let options = GemmOptions { c: Some(c), b_transpose: true, alpha: 0.5, beta: 1.0, ..Default::default() };
        let g = b.gemm(&ins[0], &w, &options).unwrap();
        (b.tanh(&g, &opts()).unwrap(), vec![g])
    })
    .check(&["gemm+tanh"]);
}

#[test]
fn what_must_not_fuse() {
    // The conv result read twice.
    let mut b = builder();
    let x = b.input("x", &f32_desc(&[1, 4, 5, 5])).unwrap();
    let c = conv(&mut b, &x, 4, 4, 3, 1, false);
    let r = b.relu(&c, &opts()).unwrap();
    let y = b.add(&r, &c, &opts()).unwrap();
    let graph = b.build(&[("y", &y)]).unwrap();
    assert_eq!(names(&Program::compile(&graph).1), ["conv2d", "relu", "add"]);
    // An add that broadcasts the conv result to a larger shape.
    let mut b = builder();
    let x = b.input("x", &f32_desc(&[1, 4, 5, 5])).unwrap();
    let big = b.input("big", &f32_desc(&[3, 4, 5, 5])).unwrap();
    let c = conv(&mut b, &x, 4, 4, 3, 1, false);
    let y = b.add(&c, &big, &opts()).unwrap();
    assert_eq!(names(&Program::compile(&b.build(&[("y", &y)]).unwrap()).1), ["conv2d", "add"]);
    // float16 as built (WEBNN_FLOAT16=strict): the epilogues are float32 arithmetic. By
    // default the graph's interior is float32 (`float16::widen`), and it fuses.
    let mut b = builder();
    let d = OperandDescriptor::new(webnn_core::DataType::Float16, vec![4, 4]);
    let x = b.input("x", &d).unwrap();
    let m = b.matmul(&x, &x, &opts()).unwrap();
    let y = b.relu(&m, &opts()).unwrap();
    let graph = b.build(&[("y", &y)]).unwrap();
    let strict = Passes { widen_float16: false, ..AS_BUILT };
    assert_eq!(names(&Program::compile_with(&graph, strict).1), ["matmul", "relu"]);
    assert_eq!(names(&Program::compile_with(&graph, AS_BUILT).1), ["cast", "matmul+relu", "cast"]);
    // The epilogue keeps the activations' parameters.
    let mut b = builder();
    let x = b.input("x", &f32_desc(&[4, 4])).unwrap();
    let m = b.matmul(&x, &x, &opts()).unwrap();
    let options = ClampOptions { min_value: Some((-1.0).into()), max_value: Some(2.5.into()), ..Default::default() };
    let y = b.clamp(&m, &options).unwrap();
    let program = Program::compile(&b.build(&[("y", &y)]).unwrap()).1;
    let NodeKind::WithEpilogue(e) = &program.nodes[0].kind else { panic!("not fused") };
    assert_eq!(e.steps.as_slice(), [EpilogueStep::Activation(Activation::Clamp(-1.0, 2.5))]);
}

//! Tests of the layout pass: which groups run channels-last, where the transposes go, and
//! results equal to the nchw program's (the same graph compiled with the pass off).

use super::super::{Passes, Program};
use crate::testing::graphs::*;
use webnn_core::{ClampOptions, Conv2dOptions, Graph, GraphBuilder, Operand, OperatorOptions, ReduceOptions};

const ON: Passes = Passes { layout: true, ..Passes::DEFAULT };
const OFF: Passes = Passes::DEFAULT;

fn constant(b: &mut GraphBuilder, shape: &[u32], seed: u64) -> Operand {
    let n: u32 = shape.iter().product();
    b.constant(&f32_desc(shape), &f32_bytes(&values(n as usize, seed, 0.5))).unwrap()
}

/// conv2d nchw with a constant filter `[cout, cin/groups, k, k]` and bias, padding k/2.
fn conv(b: &mut GraphBuilder, x: &Operand, cout: u32, k: u32, groups: u32, stride: u32, seed: u64) -> Operand {
    let cin = x.descriptor().shape[1];
    let w = constant(b, &[cout, cin / groups, k, k], seed);
    let bias = constant(b, &[cout], seed + 1);
    let p = k / 2;
    let options = Conv2dOptions {
        padding: Some(vec![p; 4]),
        strides: Some(vec![stride; 2]),
        groups,
        bias: Some(bias),
        ..Default::default()
    };
    b.conv2d(x, &w, &options).unwrap()
}

fn relu6(b: &mut GraphBuilder, x: &Operand) -> Operand {
    b.clamp(x, &ClampOptions { min_value: Some(0.0.into()), max_value: Some(6.0.into()), ..Default::default() })
        .unwrap()
}

fn names(program: &Program) -> Vec<&str> {
    program.nodes.iter().map(|n| n.name.as_str()).collect()
}

/// Runs `graph` with and without the pass on the same inputs; every output agrees within
/// `1e-5` of its magnitude (pointwise convs are the same GEMM with its operands swapped).
fn check_same_results(graph: &Graph) {
    let inputs: Vec<Vec<u8>> = graph
        .inputs
        .iter()
        .enumerate()
        .map(|(i, (_, id))| f32_bytes(&values(graph.descriptor(*id).len(), 40 + i as u64, 2.0)))
        .collect();
    let ins: Vec<&[u8]> = inputs.iter().map(|v| v.as_slice()).collect();
    let (on, off) = (run_graph_with(graph, ON, &ins), run_graph_with(graph, OFF, &ins));
    for (k, (a, b)) in on.iter().zip(&off).enumerate() {
        let (a, b) = (f32_values(a), f32_values(b));
        assert_eq!(a.len(), b.len());
        for (i, (x, y)) in a.iter().zip(&b).enumerate() {
            assert!((x - y).abs() <= 1e-5 * y.abs().max(1.0), "output {k} element {i}: nhwc {x}, nchw {y}");
        }
    }
}

/// An inverted-residual block as MobileNetV2 has it, then a global pool and a reshape.
fn mobilenet_block(channels: u32, hw: u32, with_mid_output: bool) -> Graph {
    let mut b = builder();
    let x = b.input("x", &f32_desc(&[1, channels, hw, hw])).unwrap();
    let e = conv(&mut b, &x, channels * 3, 1, 1, 1, 1);
    let e = relu6(&mut b, &e);
    let d = conv(&mut b, &e, channels * 3, 3, channels * 3, 1, 3);
    let d = relu6(&mut b, &d);
    let p = conv(&mut b, &d, channels, 1, 1, 1, 5);
    let r = b.add(&p, &x, &OperatorOptions::default()).unwrap();
    let s = conv(&mut b, &r, channels, 5, channels, 2, 7);
    let options = ReduceOptions { axes: Some(vec![2, 3]), keep_dimensions: true, ..Default::default() };
    let pool = b.reduce_mean(&s, &options).unwrap();
    let y = b.reshape(&pool, &[1, channels], &OperatorOptions::default()).unwrap();
    let mut outputs = vec![("y", &y)];
    if with_mid_output {
        outputs.push(("mid", &d));
    }
    b.build(&outputs).unwrap()
}

#[test]
fn an_inverted_residual_block_runs_nhwc_with_one_transpose_in() {
    let graph = mobilenet_block(20, 9, false);
    let (g, program) = Program::compile_with(&graph, ON);
    // The input is transposed once; the pooled [1, C, 1, 1] leaves as a reshape (an alias).
    assert_eq!(
        names(&program),
        ["transpose", "conv2d+clamp", "conv2d+clamp", "conv2d+add", "conv2d", "reduceMean", "reshape", "reshape"],
        "{}",
        program.dump(&g)
    );
    let nhwc_convs = program
        .nodes
        .iter()
        .filter(|n| {
            let op = &g.operations[n.op];
            matches!(
                op.attrs,
                webnn_core::graph::Attrs::Conv2d { input_layout: webnn_core::types::InputOperandLayout::Nhwc, .. }
            )
        })
        .count();
    assert_eq!(nhwc_convs, 4);
    check_same_results(&graph);
    // Off, the program is the nchw one.
    let (_, off) = Program::compile_with(&graph, OFF);
    assert!(!names(&off).contains(&"transpose"), "{:?}", names(&off));
}

#[test]
fn values_read_outside_the_group_are_transposed_back() {
    // 20 channels: one full block of 16 and a partial one; 9×9 planes.
    let graph = mobilenet_block(20, 9, true);
    let (g, program) = Program::compile_with(&graph, ON);
    let transposes = names(&program).iter().filter(|n| **n == "transpose").count();
    assert_eq!(transposes, 2, "{}", program.dump(&g));
    check_same_results(&graph);
}

#[test]
fn a_squeeze_excitation_block_with_swish_and_broadcast_constants_runs_nhwc() {
    let mut b = builder();
    let c = 24;
    let x = b.input("x", &f32_desc(&[2, c, 7, 6])).unwrap();
    let d = conv(&mut b, &x, c, 3, c, 1, 11);
    let sig = b.sigmoid(&d, &OperatorOptions::default()).unwrap();
    let d = b.mul(&d, &sig, &OperatorOptions::default()).unwrap();
    let options = ReduceOptions { axes: Some(vec![2, 3]), keep_dimensions: true, ..Default::default() };
    let pool = b.reduce_mean(&d, &options).unwrap();
    let s = conv(&mut b, &pool, 6, 1, 1, 1, 13);
    let s = b.relu(&s, &OperatorOptions::default()).unwrap();
    let s = conv(&mut b, &s, c, 1, 1, 1, 15);
    let s = b.sigmoid(&s, &OperatorOptions::default()).unwrap();
    let y = b.mul(&d, &s, &OperatorOptions::default()).unwrap();
    // A per-channel constant of rank 3 and a scalar constant, broadcast.
    let per_channel = constant(&mut b, &[c, 1, 1], 17);
    let y = b.add(&y, &per_channel, &OperatorOptions::default()).unwrap();
    let half = b.constant(&f32_desc(&[]), &f32_bytes(&[0.5])).unwrap();
    let y = b.mul(&y, &half, &OperatorOptions::default()).unwrap();
    let graph = b.build(&[("y", &y)]).unwrap();
    let (g, program) = Program::compile_with(&graph, ON);
    let got = names(&program);
    assert_eq!(got.first(), Some(&"transpose"), "{}", program.dump(&g));
    assert_eq!(got.iter().filter(|n| **n == "transpose").count(), 2, "{}", program.dump(&g));
    // swish (the pattern pass's activation) fused into the depthwise conv's epilogue.
    assert!(got.contains(&"conv2d+sigmoid+mul"), "{got:?}");
    check_same_results(&graph);
}

#[test]
fn graphs_without_depthwise_convs_keep_nchw() {
    let mut b = builder();
    let x = b.input("x", &f32_desc(&[1, 8, 6, 6])).unwrap();
    let y = conv(&mut b, &x, 16, 1, 1, 1, 21);
    let y = conv(&mut b, &y, 16, 3, 1, 1, 23);
    let y = b.relu(&y, &OperatorOptions::default()).unwrap();
    let graph = b.build(&[("y", &y)]).unwrap();
    let (_, program) = Program::compile_with(&graph, ON);
    assert_eq!(names(&program), ["conv2d", "conv2d+relu"]);
}

#[test]
fn a_depthwise_conv_reading_a_graph_input_and_writing_an_output_is_transposed_both_ways() {
    let mut b = builder();
    let x = b.input("x", &f32_desc(&[1, 33, 12, 10])).unwrap();
    let y = conv(&mut b, &x, 33, 3, 33, 2, 31);
    let graph = b.build(&[("y", &y)]).unwrap();
    let (g, program) = Program::compile_with(&graph, ON);
    assert_eq!(names(&program), ["transpose", "conv2d", "transpose"], "{}", program.dump(&g));
    check_same_results(&graph);
}

#[test]
fn depthwise_convs_give_the_same_bits_in_both_layouts_with_avx512() {
    #[cfg(target_arch = "x86_64")]
    if crate::kernels::unary::has_avx512() {
        // 3×3 and 5×5 at strides 1 and 2, 7×7 planes (the nchw plane-pair and blocked
        // kernels) and 30×30 ones (the streamed plane kernel), 37 channels.
        for (hw, k, stride) in [(7, 3, 1), (7, 5, 1), (14, 3, 2), (30, 3, 1), (30, 5, 2), (30, 5, 1)] {
            let mut b = builder();
            let x = b.input("x", &f32_desc(&[1, 37, hw, hw])).unwrap();
            let y = conv(&mut b, &x, 37, k, 37, stride, 41);
            let graph = b.build(&[("y", &y)]).unwrap();
            let x = f32_bytes(&values(37 * (hw * hw) as usize, 43, 2.0));
            let (on, off) = (run_graph_with(&graph, ON, &[&x]), run_graph_with(&graph, OFF, &[&x]));
            assert!(on == off, "{hw}x{hw} {k}x{k} stride {stride}: the layouts differ");
        }
    }
}

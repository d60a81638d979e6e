//! The QDQ pass and its integer kernels: which chains become one quantized node, and their
//! results against a straightforward reference (quantize the input, sum the integer products
//! exactly, requantize) written here.

use super::super::Program;
use crate::testing::graphs::*;
use webnn_core::types::{Conv2dFilterOperandLayout, InputOperandLayout};
use webnn_core::{Conv2dOptions, DataType, Graph, GraphBuilder, Operand, OperandDescriptor};

fn desc(t: DataType, shape: &[u32]) -> OperandDescriptor {
    OperandDescriptor::new(t, shape.to_vec())
}

fn scalar(b: &mut GraphBuilder, rank: usize, v: f32) -> Operand {
    b.constant(&f32_desc(&vec![1; rank]), &f32_bytes(&[v])).unwrap()
}

fn zero_point(b: &mut GraphBuilder, t: DataType, rank: usize, v: i32) -> Operand {
    b.constant(&desc(t, &vec![1; rank]), &[v as u8]).unwrap()
}

/// `quantizeLinear` as the spec computes it in float32: x / scale, rounded half to even, plus
/// the zero point, saturated.
fn quantize(x: f32, scale: f32, zero_point: i32, lo: i32, hi: i32) -> i32 {
    ((x / scale).round_ties_even() + zero_point as f32).clamp(lo as f32, hi as f32) as i32
}

/// Deterministic int8 weights in [-127, 127].
fn int8_weights(n: usize, seed: u64) -> Vec<i8> {
    values(n, seed, 1.0).iter().map(|v| (v * 127.0).round() as i8).collect()
}

/// Whether the integer kernels run here (else the float path does, within one quantization
/// step of the integer reference).
fn integer_path() -> bool {
    crate::kernels::int8_gemm::has_simd_kernel()
}

/// `got` equals `want`, or, where the float path runs, is within one step of it.
fn assert_quantized_eq(got: &[u8], want: &[u8], signed: bool, what: &str) {
    if integer_path() {
        assert_eq!(got, want, "{what}");
        return;
    }
    let v = |b: u8| if signed { b as i8 as i32 } else { b as i32 };
    assert!(got.iter().zip(want).all(|(&g, &w)| (v(g) - v(w)).abs() <= 1), "{what}");
}

/// The graph's quantized nodes, by name.
fn quantized_nodes(graph: &Graph) -> Vec<String> {
    let (g, program) = Program::compile(graph);
    let _ = g;
    program.nodes.iter().filter(|n| matches!(n.kind, super::NodeKind::Quantized(_))).map(|n| n.name.clone()).collect()
}

struct ConvCase {
    cin: usize,
    cout: usize,
    h: usize,
    w: usize,
    k: usize,
    stride: usize,
    pad: usize,
    per_channel: bool,
    relu: bool,
    weight_zero: i32,
    /// groups = cin = cout, filter `[cout, 1, k, k]`.
    depthwise: bool,
}

impl ConvCase {
    /// Input channels per filter.
    fn cig(&self) -> usize {
        if self.depthwise {
            1
        } else {
            self.cin
        }
    }
}

/// x (float32) → quantize (uint8) → dequantize → conv2d (dequantized int8 filter, bias)
/// [→ relu] → quantize (uint8): the graph and its input.
fn conv_graph(c: &ConvCase) -> (Graph, Vec<f32>, Vec<i8>, Vec<f32>, Vec<f32>) {
    let (sx, zx, sy, zy) = (0.02f32, 120, 0.05f32, 3);
    let mut b = builder();
    let x = b.input("x", &f32_desc(&[1, c.cin as u32, c.h as u32, c.w as u32])).unwrap();
    let (s, z) = (scalar(&mut b, 4, sx), zero_point(&mut b, DataType::Uint8, 4, zx));
    let xq = b.quantize_linear(&x, &s, &z, &opts()).unwrap();
    let (s, z) = (scalar(&mut b, 4, sx), zero_point(&mut b, DataType::Uint8, 4, zx));
    let xd = b.dequantize_linear(&xq, &s, &z, &opts()).unwrap();
    let wq = int8_weights(c.cout * c.cig() * c.k * c.k, 7);
    let k = c.k as u32;
    let wc =
        b.constant(&desc(DataType::Int8, &[c.cout as u32, c.cig() as u32, k, k]), bytemuck::cast_slice(&wq)).unwrap();
    let scales: Vec<f32> = (0..c.cout).map(|o| if c.per_channel { 0.004 + 0.001 * o as f32 } else { 0.005 }).collect();
    let sw = if c.per_channel {
        b.constant(&f32_desc(&[c.cout as u32, 1, 1, 1]), &f32_bytes(&scales)).unwrap()
    } else {
        scalar(&mut b, 4, scales[0])
    };
    let zw_shape = [if c.per_channel { c.cout as u32 } else { 1 }, 1, 1, 1];
    let zw = b.constant(&desc(DataType::Int8, &zw_shape), &vec![c.weight_zero as u8; zw_shape[0] as usize]).unwrap();
    let filter = b.dequantize_linear(&wc, &sw, &zw, &opts()).unwrap();
    let bias_values = values(c.cout, 9, 0.3);
    let bias = b.constant(&f32_desc(&[c.cout as u32]), &f32_bytes(&bias_values)).unwrap();
    let p = c.pad as u32;
    let options = Conv2dOptions {
        padding: Some(vec![p; 4]),
        strides: Some(vec![c.stride as u32; 2]),
        input_layout: InputOperandLayout::Nchw,
        filter_layout: Conv2dFilterOperandLayout::Oihw,
        bias: Some(bias),
        groups: if c.depthwise { c.cin as u32 } else { 1 },
        ..Conv2dOptions::new()
    };
    let mut y = b.conv2d(&xd, &filter, &options).unwrap();
    if c.relu {
        y = b.relu(&y, &opts()).unwrap();
    }
    let (s, z) = (scalar(&mut b, 4, sy), zero_point(&mut b, DataType::Uint8, 4, zy));
    let yq = b.quantize_linear(&y, &s, &z, &opts()).unwrap();
    let graph = b.build(&[("y", &yq)]).unwrap();
    (graph, values(c.cin * c.h * c.w, 3, 2.0), wq, scales, bias_values)
}

/// The reference of [`conv_graph`]: the exact integer sums, requantized as the kernel
/// documents (`(Σ (x−zx)·w) · (sx·sw) + bias`, clamp, quantize).
fn conv_reference(c: &ConvCase, x: &[f32], wq: &[i8], scales: &[f32], bias: &[f32]) -> Vec<u8> {
    let (sx, zx, sy, zy) = (0.02f32, 120, 0.05f32, 3);
    let xq: Vec<i32> = x.iter().map(|&v| quantize(v, sx, zx, 0, 255)).collect();
    let oh = (c.h + 2 * c.pad - c.k) / c.stride + 1;
    let ow = (c.w + 2 * c.pad - c.k) / c.stride + 1;
    let mut out = vec![0u8; c.cout * oh * ow];
    for o in 0..c.cout {
        for i in 0..oh {
            for j in 0..ow {
                let mut acc = 0i64;
                let channels = if c.depthwise { o..o + 1 } else { 0..c.cin };
                for ci in channels {
                    for u in 0..c.k {
                        for v in 0..c.k {
                            let (r, s) = (
                                (i * c.stride + u) as isize - c.pad as isize,
                                (j * c.stride + v) as isize - c.pad as isize,
                            );
                            if r < 0 || s < 0 || r >= c.h as isize || s >= c.w as isize {
                                continue;
                            }
                            let xv = xq[(ci * c.h + r as usize) * c.w + s as usize] - zx;
                            let wi = if c.depthwise { 0 } else { ci };
                            acc += (xv * wq[((o * c.cig() + wi) * c.k + u) * c.k + v] as i32) as i64;
                        }
                    }
                }
                let mut real = acc as f32 * (sx * scales[o]) + bias[o];
                if c.relu {
                    real = real.max(0.0);
                }
                out[(o * oh + i) * ow + j] = quantize(real, sy, zy, 0, 255) as u8;
            }
        }
    }
    out
}

const CONV: ConvCase = ConvCase {
    cin: 5,
    cout: 7,
    h: 9,
    w: 11,
    k: 3,
    stride: 1,
    pad: 1,
    per_channel: true,
    relu: true,
    weight_zero: 0,
    depthwise: false,
};

#[test]
fn qdq_convs_run_on_integers_and_match_the_reference() {
    let cases = [
        CONV,
        ConvCase { stride: 2, per_channel: false, relu: false, ..CONV },
        ConvCase { k: 1, pad: 0, cin: 19, cout: 33, ..CONV },
        ConvCase { k: 5, pad: 2, cin: 2, cout: 50, h: 4, w: 3, ..CONV },
        // Depthwise: strides 1 and 2, rows longer than one vector, tails, 5×5.
        ConvCase { depthwise: true, cin: 6, cout: 6, h: 13, w: 37, ..CONV },
        ConvCase { depthwise: true, cin: 3, cout: 3, h: 20, w: 33, stride: 2, relu: false, ..CONV },
        ConvCase { depthwise: true, cin: 4, cout: 4, h: 7, w: 9, k: 5, pad: 2, stride: 2, per_channel: false, ..CONV },
        ConvCase { depthwise: true, cin: 2, cout: 2, h: 3, w: 3, k: 3, pad: 0, ..CONV },
    ];
    for c in &cases {
        let (graph, x, wq, scales, bias) = conv_graph(c);
        let what = format!("k={} stride={} depthwise={}", c.k, c.stride, c.depthwise);
        assert_eq!(quantized_nodes(&graph).len(), usize::from(integer_path()), "{what}");
        let got = run_graph(&graph, &[&f32_bytes(&x)]).remove(0);
        assert_quantized_eq(&got, &conv_reference(c, &x, &wq, &scales, &bias), false, &what);
    }
}

#[test]
fn chains_the_integer_kernels_cannot_take_keep_the_float_path() {
    // Weights with a zero point other than 0.
    let (graph, x, ..) = conv_graph(&ConvCase { weight_zero: 2, ..CONV });
    assert!(quantized_nodes(&graph).is_empty());
    assert_eq!(run_graph(&graph, &[&f32_bytes(&x)])[0].len(), 7 * 9 * 11);
    // The conv's float result also a graph output.
    let (graph, ..) = conv_graph(&CONV);
    let mut g = graph.clone();
    let conv = g.operations.iter().find(|o| o.kind == webnn_core::OpKind::Conv2d).unwrap().outputs[0];
    g.outputs.push(("conv".into(), conv));
    assert!(quantized_nodes(&g).is_empty());
}

/// The integer reference of a QDQ matmul `x [rows, k] × w [k, n]`: x quantized to uint8 with
/// `(scale, zero point)`, the exact sums `Σ (x_q − zero point) · w`, and `requantize(sum,
/// column)` for each output byte.
fn matmul_reference(
    x: &[f32],
    (sx, zx): (f32, i32),
    wq: &[i8],
    (rows, k, n): (usize, usize, usize),
    requantize: impl Fn(i64, usize) -> u8,
) -> Vec<u8> {
    let xq: Vec<i32> = x.iter().map(|&v| quantize(v, sx, zx, 0, 255)).collect();
    let mut want = vec![0u8; rows * n];
    for r in 0..rows {
        for j in 0..n {
            let acc: i64 = (0..k).map(|p| ((xq[r * k + p] - zx) * wq[p * n + j] as i32) as i64).sum();
            want[r * n + j] = requantize(acc, j);
        }
    }
    want
}

#[test]
fn qdq_matmuls_run_on_integers_and_match_the_reference() {
    let (rows, k, n) = (6usize, 37usize, 21usize);
    let (sx, zx, sy, zy) = (0.03f32, 128, 0.2f32, -3);
    let mut b = builder();
    let x = b.input("x", &f32_desc(&[2, 3, k as u32])).unwrap();
    let (s, z) = (scalar(&mut b, 3, sx), zero_point(&mut b, DataType::Uint8, 3, zx));
    let xq = b.quantize_linear(&x, &s, &z, &opts()).unwrap();
    let (s, z) = (scalar(&mut b, 3, sx), zero_point(&mut b, DataType::Uint8, 3, zx));
    let xd = b.dequantize_linear(&xq, &s, &z, &opts()).unwrap();
    let wq = int8_weights(k * n, 11);
    let wc = b.constant(&desc(DataType::Int8, &[k as u32, n as u32]), bytemuck::cast_slice(&wq)).unwrap();
    let scales: Vec<f32> = (0..n).map(|j| 0.01 + 0.0005 * j as f32).collect();
    let sw = b.constant(&f32_desc(&[1, n as u32]), &f32_bytes(&scales)).unwrap();
    let zw = b.constant(&desc(DataType::Int8, &[1, n as u32]), &vec![0; n]).unwrap();
    let w = b.dequantize_linear(&wc, &sw, &zw, &opts()).unwrap();
    let y = b.matmul(&xd, &w, &opts()).unwrap();
    let (s, z) = (scalar(&mut b, 3, sy), zero_point(&mut b, DataType::Int8, 3, zy));
    let yq = b.quantize_linear(&y, &s, &z, &opts()).unwrap();
    let graph = b.build(&[("y", &yq)]).unwrap();
    assert_eq!(quantized_nodes(&graph).len(), usize::from(integer_path()));
    let xv = values(rows * k, 5, 3.0);
    let got = run_graph(&graph, &[&f32_bytes(&xv)]).remove(0);
    let want = matmul_reference(&xv, (sx, zx), &wq, (rows, k, n), |acc, j| {
        quantize(acc as f32 * (sx * scales[j]), sy, zy, -128, 127) as i8 as u8
    });
    assert_quantized_eq(&got, &want, true, "matmul");
}

#[test]
fn qdq_gemms_run_on_integers_and_match_the_reference() {
    // A classifier head: gemm(x, wᵀ, c) as ONNX's Gemm(transB = 1) imports, and the same
    // without the transpose; per-channel weight scales, a bias c of shape [n] or [1, n].
    let (rows, k, n) = (3usize, 45usize, 19usize);
    let (sx, zx, sy, zy) = (0.03f32, 128, 0.1f32, 7);
    let wq = int8_weights(k * n, 17);
    let scales: Vec<f32> = (0..n).map(|j| 0.01 + 0.0005 * j as f32).collect();
    let bias = values(n, 19, 2.0);
    let xv = values(rows * k, 5, 3.0);
    for b_transpose in [true, false] {
        let mut b = builder();
        let x = b.input("x", &f32_desc(&[rows as u32, k as u32])).unwrap();
        let (s, z) = (scalar(&mut b, 2, sx), zero_point(&mut b, DataType::Uint8, 2, zx));
        let xq = b.quantize_linear(&x, &s, &z, &opts()).unwrap();
        let (s, z) = (scalar(&mut b, 2, sx), zero_point(&mut b, DataType::Uint8, 2, zx));
        let xd = b.dequantize_linear(&xq, &s, &z, &opts()).unwrap();
        // wq is [k, n]; the transposed filter is its transpose [n, k].
        let (shape, data, scale_shape) = if b_transpose {
            let t: Vec<i8> = (0..n * k).map(|i| wq[(i % k) * n + i / k]).collect();
            ([n as u32, k as u32], t, [n as u32, 1])
        } else {
            ([k as u32, n as u32], wq.clone(), [1, n as u32])
        };
        let wc = b.constant(&desc(DataType::Int8, &shape), bytemuck::cast_slice(&data)).unwrap();
        let sw = b.constant(&f32_desc(&scale_shape), &f32_bytes(&scales)).unwrap();
        let zw = b.constant(&desc(DataType::Int8, &scale_shape), &vec![0; n]).unwrap();
        let w = b.dequantize_linear(&wc, &sw, &zw, &opts()).unwrap();
        let c_shape: &[u32] = if b_transpose { &[n as u32] } else { &[1, n as u32] };
        let c = b.constant(&f32_desc(c_shape), &f32_bytes(&bias)).unwrap();
        let options = webnn_core::GemmOptions { c: Some(c), b_transpose, ..Default::default() };
        let y = b.gemm(&xd, &w, &options).unwrap();
        let (s, z) = (scalar(&mut b, 2, sy), zero_point(&mut b, DataType::Uint8, 2, zy));
        let yq = b.quantize_linear(&y, &s, &z, &opts()).unwrap();
        let graph = b.build(&[("y", &yq)]).unwrap();
        assert_eq!(quantized_nodes(&graph).len(), usize::from(integer_path()), "bTranspose {b_transpose}");
        let got = run_graph(&graph, &[&f32_bytes(&xv)]).remove(0);
        let want = matmul_reference(&xv, (sx, zx), &wq, (rows, k, n), |acc, j| {
            quantize(acc as f32 * (sx * scales[j]) + bias[j], sy, zy, 0, 255) as u8
        });
        assert_quantized_eq(&got, &want, false, &format!("gemm, bTranspose {b_transpose}"));
    }
}

/// x → quantize → dequantize (the parameters of each given), as a graph.
fn round_trip_graph(t: DataType, q: (f32, i32), d: (f32, i32)) -> Graph {
    let mut b = builder();
    let x = b.input("x", &f32_desc(&[2, 9])).unwrap();
    let (s, z) = (scalar(&mut b, 2, q.0), zero_point(&mut b, t, 2, q.1));
    let xq = b.quantize_linear(&x, &s, &z, &opts()).unwrap();
    let (s, z) = (scalar(&mut b, 2, d.0), zero_point(&mut b, t, 2, d.1));
    let y = b.dequantize_linear(&xq, &s, &z, &opts()).unwrap();
    b.build(&[("y", &y)]).unwrap()
}

#[test]
fn quantize_dequantize_round_trips_fuse_and_give_the_same_values() {
    let x = [
        0.0,
        -0.0,
        0.25,
        0.75,
        -0.25,
        -0.75,
        1.0,
        63.6,
        -63.6,
        1e30,
        -1e30,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        0.125,
        0.375,
        12.3,
        -12.3,
    ];
    for (t, zp, lo, hi) in [(DataType::Uint8, 100, 0, 255), (DataType::Int8, -7, -128, 127)] {
        let graph = round_trip_graph(t, (0.5, zp), (0.5, zp));
        let names: Vec<String> = Program::compile(&graph).1.nodes.iter().map(|n| n.name.clone()).collect();
        assert_eq!(names, ["quantize+dequantize"]);
        let got = f32_values(&run_graph(&graph, &[&f32_bytes(&x)])[0]);
        // The two steps by hand: NaN quantizes to 0.
        for (&v, &g) in x.iter().zip(&got) {
            let q = if v.is_nan() { 0 } else { quantize(v, 0.5, zp, lo, hi) };
            assert_eq!(g.to_bits(), ((q - zp) as f32 * 0.5).to_bits(), "{t:?} x={v}");
        }
    }
    // Different parameters: two steps.
    let graph = round_trip_graph(DataType::Uint8, (0.5, 3), (0.25, 3));
    assert_eq!(Program::compile(&graph).1.nodes.len(), 2);
}

/// How [`dynamic_graph`] ends: the multiplier per output channel or one, and whether a bias
/// add follows (written `add(bias, product)`, as ONNX's quantizer orders it).
struct DynamicCase {
    per_channel: bool,
    bias: bool,
}

/// The importer's form of ONNX's dynamic quantization: `dequantizeLinear(x_q, 1.0, x_zero)`
/// → matmul(dequantizeLinear(int8 constant, 1.0, 0)) → cast(int32) → cast(float32) →
/// mul(multiplier) [→ add(bias)], with `x_q`, `x_zero` and the multiplier graph inputs.
fn dynamic_graph(c: &DynamicCase, k: usize, n: usize, wq: &[i8], bias: &[f32]) -> Graph {
    let mut b = builder();
    let xq = b.input("xq", &desc(DataType::Uint8, &[2, 3, k as u32])).unwrap();
    let zero = b.input("zero", &desc(DataType::Uint8, &[1, 1, 1])).unwrap();
    let m_shape: &[u32] = if c.per_channel { &[n as u32] } else { &[] };
    let multiplier = b.input("multiplier", &f32_desc(m_shape)).unwrap();
    let one = scalar(&mut b, 3, 1.0);
    let xd = b.dequantize_linear(&xq, &one, &zero, &opts()).unwrap();
    let wc = b.constant(&desc(DataType::Int8, &[k as u32, n as u32]), bytemuck::cast_slice(wq)).unwrap();
    let (one, zw) = (scalar(&mut b, 2, 1.0), zero_point(&mut b, DataType::Int8, 2, 0));
    let w = b.dequantize_linear(&wc, &one, &zw, &opts()).unwrap();
    let y = b.matmul(&xd, &w, &opts()).unwrap();
    let y = b.cast(&y, DataType::Int32, &opts()).unwrap();
    let y = b.cast(&y, DataType::Float32, &opts()).unwrap();
    let mut y = b.mul(&y, &multiplier, &opts()).unwrap();
    if c.bias {
        let bc = b.constant(&f32_desc(&[n as u32]), &f32_bytes(bias)).unwrap();
        y = b.add(&bc, &y, &opts()).unwrap();
    }
    b.build(&[("y", &y)]).unwrap()
}

#[test]
fn dynamic_matmuls_run_on_integers_and_match_the_reference() {
    // Sums below 2^24: the float path (CPUs without the integer kernel) is exact too.
    let (rows, k, n) = (6usize, 37usize, 21usize);
    let wq = int8_weights(k * n, 13);
    let bias = values(n, 17, 0.5);
    let xq: Vec<u8> = values(rows * k, 19, 1.0).iter().map(|v| ((v + 1.0) * 127.5) as u8).collect();
    let zero = 131u8;
    for c in [DynamicCase { per_channel: false, bias: true }, DynamicCase { per_channel: true, bias: false }] {
        let graph = dynamic_graph(&c, k, n, &wq, &bias);
        let names = quantized_nodes(&graph);
        let want_name = if c.bias { "matmul(int8)+mul+add" } else { "matmul(int8)+mul" };
        assert_eq!(names, if integer_path() { vec![want_name.to_string()] } else { vec![] });
        let multiplier: Vec<f32> =
            if c.per_channel { (0..n).map(|j| 0.001 * (j + 1) as f32).collect() } else { vec![0.0123] };
        let got = f32_values(&run_graph(&graph, &[&xq, &[zero], &f32_bytes(&multiplier)])[0]);
        for r in 0..rows {
            for j in 0..n {
                let acc: i64 = (0..k).map(|p| (xq[r * k + p] as i64 - zero as i64) * wq[p * n + j] as i64).sum();
                let mut want = acc as f32 * multiplier[if c.per_channel { j } else { 0 }];
                if c.bias {
                    want += bias[j];
                }
                assert_eq!(got[r * n + j].to_bits(), want.to_bits(), "row {r} column {j}");
            }
        }
    }
}

#[test]
fn dynamic_chains_whose_sums_are_read_elsewhere_keep_the_float_path() {
    let (k, n) = (8usize, 5usize);
    let graph =
        dynamic_graph(&DynamicCase { per_channel: false, bias: true }, k, n, &int8_weights(k * n, 3), &[0.0; 5]);
    let mut g = graph.clone();
    let sums = g.operations.iter().find(|o| o.kind == webnn_core::OpKind::Cast).unwrap().outputs[0];
    g.outputs.push(("sums".into(), sums));
    assert!(quantized_nodes(&g).is_empty());
}

//! Microbenchmarks of the hot kernels (issue 11): one-op graphs compiled by the CPU backend and
//! timed by their median over many dispatches, printed as ns per element or GFLOP/s.
//!
//! `cargo bench -p webnn-cpu --bench kernels` (all), or with a filter:
//! `cargo bench -p webnn-cpu --bench kernels -- silu softmax`. `WEBNN_NUM_THREADS` (default 1
//! here) sets the pool size.
//!
//! The `gemm` cases call `kernels::packed_gemm::gemm` and the `gemm` crate
//! (`sgemm::sgemm`) directly on 1 and 2 threads, alternating them, and print the median
//! GFLOP/s of each (`-- gemm` runs only those).
//!
//! The `int8` cases call `kernels::int8_gemm::gemm` (u8 activations × s8 weights, requantized
//! to u8) on `WEBNN_NUM_THREADS` threads and print GOP/s (2·m·n·k / time) and the share of
//! one core's VNNI peak (`-- int8` runs only those).

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};
use webnn_core::backend::{Backend, CompiledGraph};
use webnn_core::*;
use webnn_cpu::kernels::packed_gemm::{self, Lhs, PackedLhs, PackedRhs, Rhs};
use webnn_cpu::kernels::sgemm::{sgemm, Mat};
use webnn_cpu::CpuBackend;

fn builder() -> GraphBuilder {
    GraphBuilder::new(ContextLink { id: 1, lost: Arc::new(AtomicBool::new(false)), limits: None }).expect("builder")
}

fn f32_desc(shape: &[u32]) -> OperandDescriptor {
    OperandDescriptor::new(DataType::Float32, shape.to_vec())
}

/// Deterministic values in [-4, 4).
fn values(n: usize) -> Vec<f32> {
    webnn_core::testing::Rng::new(1).vec_f32(n, -4.0, 4.0)
}

fn constant(b: &mut GraphBuilder, shape: &[u32]) -> Operand {
    let n: usize = shape.iter().map(|&d| d as usize).product();
    let bytes: Vec<u8> = values(n).iter().map(|v| v * 0.1).flat_map(|v| v.to_le_bytes()).collect();
    b.constant(&f32_desc(shape), &bytes).expect("constant")
}

/// Median seconds per dispatch of `graph` (float32 inputs, filled with [`values`]).
fn time(backend: &CpuBackend, graph: &Graph) -> f64 {
    let compiled: Box<dyn CompiledGraph> = backend.compile(graph).expect("compile");
    let inputs: Vec<Vec<u8>> = graph
        .inputs
        .iter()
        .map(|(_, id)| values(graph.descriptor(*id).len()).iter().flat_map(|v| v.to_le_bytes()).collect())
        .collect();
    let inputs: Vec<&[u8]> = inputs.iter().map(Vec::as_slice).collect();
    let mut out: Vec<Vec<u8>> =
        graph.outputs.iter().map(|(_, id)| vec![0u8; graph.descriptor(*id).byte_length() as usize]).collect();
    let mut run = || {
        let mut slices: Vec<&mut [u8]> = out.iter_mut().map(|o| o.as_mut_slice()).collect();
        compiled.execute(&inputs, &mut slices).expect("execute");
    };
    run();
    let mut samples = Vec::new();
    let start = Instant::now();
    while samples.len() < 20 || (start.elapsed() < Duration::from_millis(700) && samples.len() < 5000) {
        let t = Instant::now();
        run();
        samples.push(t.elapsed().as_secs_f64());
    }
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

type Case = (&'static str, Box<dyn Fn() -> (Graph, f64, &'static str)>);

fn elementwise(
    shape: &'static [u32],
    f: fn(&mut GraphBuilder, &Operand) -> Operand,
) -> Box<dyn Fn() -> (Graph, f64, &'static str)> {
    Box::new(move || {
        let mut b = builder();
        let x = b.input("x", &f32_desc(shape)).unwrap();
        let y = f(&mut b, &x);
        let n = f32_desc(shape).len() as f64;
        (b.build(&[("y", &y)]).unwrap(), n, "ns/elem")
    })
}

/// conv2d nchw: input [1, cin, h, w], filter [cout, cin/groups, k, k], stride 1, same padding.
fn conv(cin: u32, cout: u32, hw: u32, k: u32, groups: u32) -> Box<dyn Fn() -> (Graph, f64, &'static str)> {
    conv_strided(cin, cout, hw, k, groups, 1, Act::None)
}

/// [`conv_in_layout`] in nchw.
fn conv_strided(
    cin: u32,
    cout: u32,
    hw: u32,
    k: u32,
    groups: u32,
    stride: u32,
    act: Act,
) -> Box<dyn Fn() -> (Graph, f64, &'static str)> {
    conv_in_layout(cin, cout, hw, k, groups, stride, act, false)
}

/// The activation after a benchmarked conv (applied as the conv's epilogue).
#[derive(Clone, Copy)]
enum Act {
    None,
    /// clamp(0, 6)
    Relu6,
    /// x · sigmoid(x)
    Silu,
}

/// conv2d as [`conv`], with both strides `stride` (padding k/2), followed by `act`; nhwc input (filter ohwi, depthwise
/// ihwo) if `nhwc`.
#[allow(clippy::too_many_arguments)]
fn conv_in_layout(
    cin: u32,
    cout: u32,
    hw: u32,
    k: u32,
    groups: u32,
    stride: u32,
    act: Act,
    nhwc: bool,
) -> Box<dyn Fn() -> (Graph, f64, &'static str)> {
    Box::new(move || {
        let mut b = builder();
        let depthwise = groups > 1 && groups == cin && cin == cout;
        let (x, w, input_layout, filter_layout) = if nhwc {
            let x = b.input("x", &f32_desc(&[1, hw, hw, cin])).unwrap();
            if depthwise {
                (x, constant(&mut b, &[1, k, k, cout]), InputOperandLayout::Nhwc, Conv2dFilterOperandLayout::Ihwo)
            } else {
                (
                    x,
                    constant(&mut b, &[cout, k, k, cin / groups]),
                    InputOperandLayout::Nhwc,
                    Conv2dFilterOperandLayout::Ohwi,
                )
            }
        } else {
            let x = b.input("x", &f32_desc(&[1, cin, hw, hw])).unwrap();
            (
                x,
                constant(&mut b, &[cout, cin / groups, k, k]),
                InputOperandLayout::Nchw,
                Conv2dFilterOperandLayout::Oihw,
            )
        };
        let bias = constant(&mut b, &[cout]);
        let p = k / 2;
        let options = Conv2dOptions {
            padding: Some(vec![p, p, p, p]),
            strides: Some(vec![stride, stride]),
            groups,
            bias: Some(bias),
            input_layout,
            filter_layout,
            ..Default::default()
        };
        let mut y = b.conv2d(&x, &w, &options).unwrap();
        match act {
            Act::None => {}
            Act::Relu6 => {
                let options =
                    ClampOptions { min_value: Some(0.0.into()), max_value: Some(6.0.into()), ..Default::default() };
                y = b.clamp(&y, &options).unwrap();
            }
            Act::Silu => {
                let s = b.sigmoid(&y, &OperatorOptions::default()).unwrap();
                y = b.mul(&y, &s, &OperatorOptions::default()).unwrap();
            }
        }
        let out_hw = (hw + 2 * p - k) / stride + 1;
        let flops = 2.0 * (cout * (cin / groups) * k * k) as f64 * (out_hw * out_hw) as f64;
        (b.build(&[("y", &y)]).unwrap(), flops, "GFLOP/s")
    })
}

/// A ResNet bottleneck's last conv: pointwise `cin -> cout` on `hw`², + bias, + a residual
/// input of the output's shape, relu (one conv step with its epilogue).
fn pointwise_residual_relu(cin: u32, cout: u32, hw: u32) -> Box<dyn Fn() -> (Graph, f64, &'static str)> {
    Box::new(move || {
        let mut b = builder();
        let x = b.input("x", &f32_desc(&[1, cin, hw, hw])).unwrap();
        let skip = b.input("skip", &f32_desc(&[1, cout, hw, hw])).unwrap();
        let w = constant(&mut b, &[cout, cin, 1, 1]);
        let bias = constant(&mut b, &[cout]);
        let options = Conv2dOptions { bias: Some(bias), ..Default::default() };
        let y = b.conv2d(&x, &w, &options).unwrap();
        let y = b.add(&y, &skip, &OperatorOptions::default()).unwrap();
        let y = b.relu(&y, &OperatorOptions::default()).unwrap();
        let flops = 2.0 * (cout * cin) as f64 * (hw * hw) as f64;
        (b.build(&[("y", &y)]).unwrap(), flops, "GFLOP/s")
    })
}

/// GEMM shapes (m, n, k) and which operand is packed once: A for convs (the filter), B for
/// MatMuls (the weights); the other is a row-major view.
const GEMM_SHAPES: [(&str, usize, usize, usize, bool); 9] = [
    ("ResNet 1x1 64->256 56x56, A packed", 256, 3136, 64, true),
    ("conv3x3 64ch 56x56, A packed", 64, 3136, 576, true),
    ("conv3x3 128ch 28x28, A packed", 256, 784, 1152, true),
    ("BERT qkv/out, B packed", 128, 768, 768, false),
    ("BERT ffn up, B packed", 128, 3072, 768, false),
    ("BERT ffn down, B packed", 384, 768, 3072, false),
    ("ResNet 1x1 7x7, A packed", 2048, 49, 512, true),
    ("ResNet 3x3 7x7, A packed", 512, 49, 4608, true),
    // A classifier: 5 MB of weights streamed once per row (GB/s = 2 × GFLOP/s).
    ("classifier GEMV, B packed", 1, 1000, 1280, false),
];

/// Median seconds of `f` over about `ms` milliseconds (at least 5 runs, after one warm-up).
fn median_secs(mut f: impl FnMut(), ms: u64) -> f64 {
    f();
    let mut samples = Vec::new();
    let start = Instant::now();
    while samples.len() < 5 || (start.elapsed() < Duration::from_millis(ms) && samples.len() < 5000) {
        let t = Instant::now();
        f();
        samples.push(t.elapsed().as_secs_f64());
    }
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

/// Our GEMM against the `gemm` crate on `GEMM_SHAPES`, 1 and 2 threads, 7 alternating rounds.
fn gemm_cases(filters: &[String]) {
    for &(what, m, n, k, a_packed) in &GEMM_SHAPES {
        let name = format!("gemm {m}x{n}x{k} ({what})");
        if !filters.is_empty() && !filters.iter().any(|f| name.contains(f.as_str())) {
            continue;
        }
        let a = values(m * k);
        let b: Vec<f32> = values(k * n).iter().map(|v| v * 0.5).collect();
        let (am, bm) = (Mat::rows(&a, k), Mat::rows(&b, n));
        let pa = PackedLhs::new(m, k, am).expect("pack A");
        let pb = PackedRhs::new(k, n, bm).expect("pack B");
        let (lhs, rhs) =
            if a_packed { (Lhs::Packed(&pa), Rhs::Strided(bm)) } else { (Lhs::Strided(am), Rhs::Packed(&pb)) };
        let mut c = vec![0f32; m * n];
        let flops = 2.0 * (m * n * k) as f64;
        for threads in [1, 2] {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("pool");
            let parallel = threads > 1;
            let (mut ours, mut theirs) = (Vec::new(), Vec::new());
            pool.install(|| {
                for _ in 0..7 {
                    let t = median_secs(
                        || {
                            packed_gemm::gemm(m, n, k, lhs, rhs, &mut c, n, parallel, &packed_gemm::no_epilogue)
                                .expect("gemm")
                        },
                        150,
                    );
                    ours.push(flops / t / 1e9);
                    let t = median_secs(|| sgemm(m, n, k, am, bm, &mut c, n, 1, 1.0, None, parallel), 150);
                    theirs.push(flops / t / 1e9);
                }
            });
            ours.sort_by(f64::total_cmp);
            theirs.sort_by(f64::total_cmp);
            println!("{name:<58} {threads}T  ours {:>6.1}  gemm crate {:>6.1} GFLOP/s", ours[3], theirs[3]);
        }
    }
}

/// Integer GEMM shapes (m, n, k): ResNet-50's convs (m = cout, k = cin·kh·kw, n = oh·ow; B
/// row-major, the im2col matrix or the NCHW input, C row-major NCHW) and BERT-base's matmuls
/// (m = output features, n = 128 tokens; B the `[tokens][k]` activations read transposed, C
/// `[tokens][m]`, transposed).
const INT8_SHAPES: [(&str, usize, usize, usize, bool); 11] = [
    ("ResNet conv3x3 64ch 56x56", 64, 3136, 576, false),
    ("ResNet conv1x1 64->256 56x56", 256, 3136, 64, false),
    ("ResNet conv3x3 128ch 28x28", 128, 784, 1152, false),
    ("ResNet conv3x3 512ch 7x7", 512, 49, 2304, false),
    ("ResNet conv1x1 512->2048 7x7", 2048, 49, 512, false),
    ("BERT qkv/out", 768, 128, 768, true),
    ("BERT ffn up", 3072, 128, 768, true),
    ("BERT ffn down", 768, 128, 3072, true),
    ("MobileNetV2 conv1x1 16->96 112x112", 96, 12544, 16, false),
    ("MobileNetV2 conv1x1 24->144 56x56", 144, 3136, 24, false),
    ("MobileNetV2 conv1x1 144->24 56x56", 24, 3136, 144, false),
];

/// The VNNI peak of one core, in GOP/s (2 ops per multiply-add), as the brief of this benchmark
/// takes it: two 512-bit `vpdpbusd` per cycle (64 multiply-adds each) at about 4.1 GHz (Ice Lake
/// and later Intel cores issue them on ports 0 and 5). Zen 4 issues one per cycle (measured on
/// an EPYC Zen 4 host: 3.6 G `vpdpbusd`/s, ~465 GOP/s), so there the reachable peak is about
/// half of this.
const INT8_PEAK_GOPS: f64 = 1060.0;

/// `int8_gemm::gemm` on [`INT8_SHAPES`] with a u8 output (per-row scales, a bias, a relu),
/// 5 rounds on `threads` threads, the median.
fn int8_cases(filters: &[String], threads: usize) {
    use webnn_cpu::kernels::int8_gemm::{self, Output, PackedI8, Requant, U8View};
    for &(what, m, n, k, transposed) in &INT8_SHAPES {
        let name = format!("int8 gemm {m}x{n}x{k} ({what})");
        if !filters.is_empty() && !filters.iter().any(|f| name.contains(f.as_str())) {
            continue;
        }
        let mut rng = webnn_core::testing::Rng::new(3);
        let a: Vec<i8> = (0..m * k).map(|_| rng.int(-128, 127) as i8).collect();
        let b: Vec<u8> = (0..k * n).map(|_| rng.int(0, 255) as u8).collect();
        let packed = PackedI8::pack(&a, m, k, k).expect("pack");
        let scale: Vec<f32> = (0..m).map(|_| rng.uniform_f32(1e-5, 1e-4)).collect();
        let bias: Vec<f32> = (0..m).map(|_| rng.uniform_f32(-1.0, 1.0)).collect();
        let req =
            Requant { b_zero_point: 128, scale: &scale, bias: Some(&bias), lo: 0.0, hi: f32::INFINITY, folded: None };
        let (view, rs, cs) = if transposed {
            (U8View { data: &b, k, n, rs: 1, cs: k }, 1, m)
        } else {
            (U8View { data: &b, k, n, rs: n, cs: 1 }, n, 1)
        };
        let mut c = vec![0u8; m * n];
        let ops = 2.0 * (m * n * k) as f64;
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("pool");
        let mut rates: Vec<f64> = pool.install(|| {
            (0..5)
                .map(|_| {
                    let t = median_secs(
                        || {
                            let out = Output::U8 { data: &mut c, rs, cs, scale: 0.05, zero_point: 0 };
                            int8_gemm::gemm(&packed, view, &req, out).expect("int8 gemm")
                        },
                        150,
                    );
                    ops / t / 1e9
                })
                .collect()
        });
        rates.sort_by(f64::total_cmp);
        let rate = rates[2];
        println!(
            "{name:<50} {threads}T {:>7.1} GOP/s {:>5.1} % of {INT8_PEAK_GOPS} ({:?})",
            rate,
            100.0 * rate / INT8_PEAK_GOPS / threads as f64,
            int8_gemm::Isa::best()
        );
    }
}

/// Winograd-relevant 3×3 stride-1 convs (cin = cout, square output, padding 1).
const WINOGRAD_SHAPES: [(usize, usize); 8] =
    [(64, 56), (128, 28), (256, 14), (512, 7), (80, 40), (32, 256), (16, 112), (8, 112)];

/// `conv3x3` cases: the Winograd kernel against im2col + GEMM on the same nchw conv (bias, no
/// epilogue), 1 and 2 threads, 7 alternating rounds; effective GFLOP/s = direct-conv FLOPs
/// (2·cout·cin·9·oh·ow) / time.
fn winograd_cases(filters: &[String]) {
    use webnn_cpu::kernels::conv::{im2col_conv, pack_conv_filter, Geom};
    use webnn_cpu::kernels::epilogue::Epilogue;
    use webnn_cpu::kernels::winograd::{self, WinogradFilter};
    for &(c, hw) in &WINOGRAD_SHAPES {
        let name = format!("conv3x3 {c}->{c} {hw}x{hw} winograd vs im2col");
        if !filters.is_empty() && !filters.iter().any(|f| name.contains(f.as_str())) {
            continue;
        }
        let g = Geom {
            n: 1,
            cin: c,
            h: hw,
            w: hw,
            cout: c,
            oh: hw,
            ow: hw,
            kh: 3,
            kw: 3,
            groups: 1,
            strides: [1, 1],
            dilations: [1, 1],
            padding: [1; 4],
            nhwc: false,
        };
        let x = values(c * hw * hw);
        let raw: Vec<f32> = values(c * c * 9).iter().map(|v| v * 0.1).collect();
        let bias = values(c);
        let mut wts = vec![0f32; raw.len()];
        pack_conv_filter(webnn_core::types::Conv2dFilterOperandLayout::Oihw, &g, false, &raw, &mut wts);
        let wf = WinogradFilter::new(&g, &wts).expect("winograd filter");
        let mut out = vec![0f32; c * hw * hw];
        let none = Epilogue::default();
        let ep = none.bind(&[]);
        let col = webnn_cpu::kernels::scratch::Scratch::default();
        let flops = 2.0 * (c * c * 9 * hw * hw) as f64;
        for threads in [1, 2] {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("pool");
            let (mut wino, mut base) = (Vec::new(), Vec::new());
            pool.install(|| {
                for _ in 0..7 {
                    let t =
                        median_secs(|| winograd::conv(&g, &x, &wf, Some(&bias), &mut out, &ep).expect("winograd"), 150);
                    wino.push(flops / t / 1e9);
                    let t = median_secs(
                        || im2col_conv(&g, &x, &wts, Some(&bias), &col, &mut out, &ep).expect("im2col"),
                        150,
                    );
                    base.push(flops / t / 1e9);
                }
            });
            wino.sort_by(f64::total_cmp);
            base.sort_by(f64::total_cmp);
            println!("{name:<58} {threads}T  winograd {:>6.1}  im2col {:>6.1} GFLOP/s", wino[3], base[3]);
        }
    }
}

fn main() {
    let cases: Vec<Case> = vec![
        (
            "silu 1x96x112x112",
            elementwise(&[1, 96, 112, 112], |b, x| {
                let s = b.sigmoid(x, &OperatorOptions::default()).unwrap();
                b.mul(x, &s, &OperatorOptions::default()).unwrap()
            }),
        ),
        (
            "sigmoid 1x96x112x112",
            elementwise(&[1, 96, 112, 112], |b, x| b.sigmoid(x, &OperatorOptions::default()).unwrap()),
        ),
        (
            "softmax 1x12x128x128",
            elementwise(&[1, 12, 128, 128], |b, x| b.softmax(x, 3, &OperatorOptions::default()).unwrap()),
        ),
        (
            // ViT-B/16's attention: rows of 197, not a multiple of the vector width.
            "softmax 1x12x197x197",
            elementwise(&[1, 12, 197, 197], |b, x| b.softmax(x, 3, &OperatorOptions::default()).unwrap()),
        ),
        (
            // A padded attention mask: the last 32 keys −10000 (their exponentials round to 0).
            "softmax masked 1x12x128x128",
            elementwise(&[1, 12, 128, 128], |b, x| {
                let mask: Vec<u8> =
                    (0..128).map(|j| if j < 96 { 0.0f32 } else { -10000.0 }).flat_map(|v| v.to_le_bytes()).collect();
                let mask = b.constant(&f32_desc(&[128]), &mask).unwrap();
                let scores = b.add(x, &mask, &OperatorOptions::default()).unwrap();
                b.softmax(&scores, 3, &OperatorOptions::default()).unwrap()
            }),
        ),
        ("erf 1x128x1536", elementwise(&[1, 128, 1536], |b, x| b.erf(x, &OperatorOptions::default()).unwrap())),
        ("gelu 1x128x1536", elementwise(&[1, 128, 1536], |b, x| b.gelu(x, &OperatorOptions::default()).unwrap())),
        (
            "layerNorm 1x128x384",
            elementwise(&[1, 128, 384], |b, x| {
                let options = LayerNormalizationOptions { axes: Some(vec![2]), ..Default::default() };
                b.layer_normalization(x, &options).unwrap()
            }),
        ),
        ("conv3x3 64->64 40x40", conv(64, 64, 40, 3, 1)),
        ("conv3x3 512->512 7x7", conv(512, 512, 7, 3, 1)),
        ("conv3x3 64->64 56x56", conv(64, 64, 56, 3, 1)),
        ("conv3x3 128->128 28x28", conv(128, 128, 28, 3, 1)),
        ("conv3x3 256->256 14x14", conv(256, 256, 14, 3, 1)),
        ("conv3x3 16->64 55x55", conv(16, 64, 55, 3, 1)),
        ("conv3x3 64->256 13x13", conv(64, 256, 13, 3, 1)),
        ("conv3x3 stride 2 512->512 14x14", conv_strided(512, 512, 14, 3, 1, 2, Act::None)),
        ("conv3x3 stride 2 128->128 56x56", conv_strided(128, 128, 56, 3, 1, 2, Act::None)),
        ("conv3x3 stride 2 256->256 28x28", conv_strided(256, 256, 28, 3, 1, 2, Act::None)),
        ("conv3x3 stride 2 16->32 160x160", conv_strided(16, 32, 160, 3, 1, 2, Act::None)),
        ("conv3x3 stride 2 16->32 160x160 silu", conv_strided(16, 32, 160, 3, 1, 2, Act::Silu)),
        ("conv3x3 stride 2 32->64 80x80 silu", conv_strided(32, 64, 80, 3, 1, 2, Act::Silu)),
        ("conv3x3 16->16 80x80", conv(16, 16, 80, 3, 1)),
        ("conv3x3 128->128 10x10", conv(128, 128, 10, 3, 1)),
        ("conv3x3 3->32 224x224 (few input channels)", conv(3, 32, 224, 3, 1)),
        ("conv3x3 stride 2 3->64 224x224 (SqueezeNet's first)", conv_strided(3, 64, 224, 3, 1, 2, Act::None)),
        ("conv7x7 stride 2 3->64 224x224", conv_strided(3, 64, 224, 7, 1, 2, Act::None)),
        ("depthwise3x3 96 112x112", conv(96, 96, 112, 3, 96)),
        ("depthwise5x5 144 56x56", conv(144, 144, 56, 5, 144)),
        ("depthwise5x5 672 14x14", conv(672, 672, 14, 5, 672)),
        ("depthwise5x5 1152 7x7", conv(1152, 1152, 7, 5, 1152)),
        ("depthwise3x3 144 28x28", conv(144, 144, 28, 3, 144)),
        ("depthwise3x3 384 14x14", conv(384, 384, 14, 3, 384)),
        ("depthwise3x3 stride 2 96 112x112", conv_strided(96, 96, 112, 3, 96, 2, Act::None)),
        ("depthwise5x5 stride 2 144 56x56", conv_strided(144, 144, 56, 5, 144, 2, Act::None)),
        ("depthwise3x3 stride 2 144 56x56", conv_strided(144, 144, 56, 3, 144, 2, Act::None)),
        ("depthwise3x3 stride 2 576 14x14", conv_strided(576, 576, 14, 3, 576, 2, Act::None)),
        ("depthwise3x3 stride 2 192 28x28", conv_strided(192, 192, 28, 3, 192, 2, Act::None)),
        ("depthwise5x5 stride 2 240 28x28", conv_strided(240, 240, 28, 5, 240, 2, Act::None)),
        ("depthwise3x3 960 7x7", conv(960, 960, 7, 3, 960)),
        ("depthwise3x3 960 7x7 relu6", conv_strided(960, 960, 7, 3, 960, 1, Act::Relu6)),
        ("depthwise3x3 384 14x14 relu6", conv_strided(384, 384, 14, 3, 384, 1, Act::Relu6)),
        ("depthwise3x3 576 14x14", conv(576, 576, 14, 3, 576)),
        ("depthwise3x3 32 112x112", conv(32, 32, 112, 3, 32)),
        ("depthwise3x3 144 56x56", conv(144, 144, 56, 3, 144)),
        ("pointwise 64->256 56x56", conv(64, 256, 56, 1, 1)),
        ("pointwise 256->64 56x56", conv(256, 64, 56, 1, 1)),
        ("pointwise 64->256 56x56 + residual + relu", pointwise_residual_relu(64, 256, 56)),
        ("pointwise 128->512 28x28 + residual + relu", pointwise_residual_relu(128, 512, 28)),
        ("pointwise 256->1024 14x14 + residual + relu", pointwise_residual_relu(256, 1024, 14)),
        ("pointwise 32->16 112x112", conv(32, 16, 112, 1, 1)),
        ("pointwise 16->96 112x112", conv(16, 96, 112, 1, 1)),
        ("pointwise 16->96 112x112 silu", conv_strided(16, 96, 112, 1, 1, 1, Act::Silu)),
        ("pointwise 24->144 56x56 silu", conv_strided(24, 144, 56, 1, 1, 1, Act::Silu)),
        ("pointwise 112->672 14x14 silu", conv_strided(112, 672, 14, 1, 1, 1, Act::Silu)),
        ("depthwise3x3 32 112x112 silu", conv_strided(32, 32, 112, 3, 32, 1, Act::Silu)),
        ("depthwise3x3 stride 2 96 112x112 silu", conv_strided(96, 96, 112, 3, 96, 2, Act::Silu)),
        ("depthwise5x5 672 14x14 silu", conv_strided(672, 672, 14, 5, 672, 1, Act::Silu)),
        ("pointwise 96->24 56x56", conv(96, 24, 56, 1, 1)),
        ("nhwc pointwise 16->96 112x112", conv_in_layout(16, 96, 112, 1, 1, 1, Act::None, true)),
        ("nhwc pointwise 32->16 112x112", conv_in_layout(32, 16, 112, 1, 1, 1, Act::None, true)),
        ("nhwc pointwise 96->24 56x56", conv_in_layout(96, 24, 56, 1, 1, 1, Act::None, true)),
        ("nhwc pointwise 64->256 56x56", conv_in_layout(64, 256, 56, 1, 1, 1, Act::None, true)),
        ("nhwc depthwise3x3 32 112x112", conv_in_layout(32, 32, 112, 3, 32, 1, Act::None, true)),
        ("nhwc depthwise3x3 stride 2 96 112x112", conv_in_layout(96, 96, 112, 3, 96, 2, Act::None, true)),
        ("nhwc depthwise3x3 144 56x56", conv_in_layout(144, 144, 56, 3, 144, 1, Act::None, true)),
        ("nhwc depthwise3x3 stride 2 144 56x56", conv_in_layout(144, 144, 56, 3, 144, 2, Act::None, true)),
        ("nhwc depthwise3x3 384 14x14", conv_in_layout(384, 384, 14, 3, 384, 1, Act::None, true)),
        ("nhwc depthwise3x3 stride 2 576 14x14", conv_in_layout(576, 576, 14, 3, 576, 2, Act::None, true)),
        ("nhwc depthwise3x3 960 7x7", conv_in_layout(960, 960, 7, 3, 960, 1, Act::None, true)),
        ("nhwc depthwise5x5 1152 7x7", conv_in_layout(1152, 1152, 7, 5, 1152, 1, Act::None, true)),
        ("nhwc depthwise5x5 672 14x14", conv_in_layout(672, 672, 14, 5, 672, 1, Act::None, true)),
        ("nhwc conv3x3 64->64 40x40", conv_in_layout(64, 64, 40, 3, 1, 1, Act::None, true)),
    ];
    let filters: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with('-')).collect();
    let threads = std::env::var("WEBNN_NUM_THREADS").ok().and_then(|v| v.parse().ok()).unwrap_or(1);
    let backend = CpuBackend::new(Some(threads)).expect("backend");
    println!("webnn-cpu kernels, {threads} thread(s), median per dispatch");
    for (name, make) in &cases {
        if !filters.is_empty() && !filters.iter().any(|f| name.contains(f.as_str())) {
            continue;
        }
        let (graph, work, unit) = make();
        let secs = time(&backend, &graph);
        let rate = if unit == "GFLOP/s" { work / secs / 1e9 } else { secs * 1e9 / work };
        println!("{name:<45} {:>9.3} ms  {rate:>8.3} {unit}", secs * 1e3);
    }
    gemm_cases(&filters);
    winograd_cases(&filters);
    int8_cases(&filters, threads);
}

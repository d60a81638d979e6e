//! Timing of typical CNN, transformer and recurrent layer shapes: one-op graphs (matmul, gemm,
//! conv2d, convTranspose2d, pooling, resample2d, the normalizations, lstm) compiled by the CPU
//! backend, each reported as the fastest of many dispatches (robust to other load on the
//! machine), with GFLOP/s where the work is a product.
//!
//! `cargo bench -p webnn-cpu --bench layer_shapes` (all), or with name filters:
//! `cargo bench -p webnn-cpu --bench layer_shapes -- conv lstm`. `WEBNN_NUM_THREADS` (default 2
//! here) sets the pool size.

use std::time::Instant;
use webnn_core::backend::{Backend, CompiledGraph};
use webnn_core::graph::{Constant, OperandNode, OperandSource, Operation};
use webnn_core::testing::Rng;
use webnn_core::types::{
    Conv2dFilterOperandLayout, ConvTranspose2dFilterOperandLayout, InputOperandLayout, InterpolationMode,
};
use webnn_core::{
    Attrs, DataType, Graph, LstmWeightLayout, OpKind, OperandDescriptor, OperandId, RecurrentNetworkActivation,
    RecurrentNetworkDirection, SharedBytes,
};
use webnn_cpu::CpuBackend;

/// One operand slot: absent, or a float32 shape that is a graph input or (true) a constant.
type Slot<'a> = Option<(&'a [u32], bool)>;

/// The backend and the name filters of this run.
struct Bench {
    backend: CpuBackend,
    filters: Vec<String>,
}

impl Bench {
    /// Builds a one-op graph with inputs in [-1, 1) (constants scaled by `constant_scale`),
    /// times its dispatch and prints the fastest time (and GFLOP/s when `flops > 0`).
    #[allow(clippy::too_many_arguments)]
    fn run(
        &self,
        name: &str,
        kind: OpKind,
        inputs: &[Slot],
        attrs: Attrs,
        outs: &[&[u32]],
        flops: f64,
        constant_scale: f32,
    ) {
        if !self.filters.is_empty() && !self.filters.iter().any(|f| name.contains(f.as_str())) {
            return;
        }
        let mut graph = Graph::default();
        let mut slots = Vec::new();
        let mut data: Vec<Vec<f32>> = Vec::new();
        for (i, input) in inputs.iter().enumerate() {
            let Some((shape, constant)) = input else {
                slots.push(None);
                continue;
            };
            let desc = OperandDescriptor::new(DataType::Float32, shape.to_vec());
            let mut values = Rng::new(i as u64 + 1).vec_f32(desc.len(), -1.0, 1.0);
            let id = OperandId(graph.operands.len() as u32);
            if *constant {
                values.iter_mut().for_each(|v| *v *= constant_scale);
                let bytes = SharedBytes::try_copy_from(bytemuck::cast_slice(&values)).expect("constant");
                graph
                    .operands
                    .push(OperandNode { descriptor: desc, source: OperandSource::Constant(graph.constants.len()) });
                graph.constants.push(Constant { operand: id, bytes, tensor_destroyed: None });
            } else {
                let n = format!("in{i}");
                graph.operands.push(OperandNode { descriptor: desc, source: OperandSource::Input(n.clone()) });
                graph.inputs.push((n, id));
                data.push(values);
            }
            slots.push(Some(id));
        }
        let mut out_ids = Vec::new();
        let mut out_bufs: Vec<Vec<f32>> = Vec::new();
        for (k, shape) in outs.iter().enumerate() {
            let desc = OperandDescriptor::new(DataType::Float32, shape.to_vec());
            let id = OperandId(graph.operands.len() as u32);
            out_bufs.push(vec![0.0; desc.len()]);
            graph
                .operands
                .push(OperandNode { descriptor: desc, source: OperandSource::Operation { op: 0, output: k } });
            graph.outputs.push((format!("out{k}"), id));
            out_ids.push(id);
        }
        graph.operations.push(Operation { kind, inputs: slots, outputs: out_ids, attrs, label: String::new() });
        let compiled: Box<dyn CompiledGraph> = self.backend.compile(&graph).expect("compile");
        let ins: Vec<&[u8]> = data.iter().map(|d| bytemuck::cast_slice(d)).collect();
        let mut run = || {
            let mut outs: Vec<&mut [u8]> = out_bufs.iter_mut().map(|b| bytemuck::cast_slice_mut(b)).collect();
            compiled.execute(&ins, &mut outs).expect("execute");
        };
        run();
        let start = Instant::now();
        let mut iters = 0;
        let mut best = f64::INFINITY;
        while start.elapsed().as_secs_f64() < 1.0 || iters < 5 {
            let t = Instant::now();
            run();
            best = best.min(t.elapsed().as_secs_f64());
            iters += 1;
        }
        let ms = best * 1000.0;
        if flops > 0.0 {
            println!("{name:<52} {ms:9.3} ms  {:7.1} GFLOP/s", flops / ms / 1e6);
        } else {
            println!("{name:<52} {ms:9.3} ms");
        }
    }
}

fn layout(nhwc: bool) -> InputOperandLayout {
    if nhwc {
        InputOperandLayout::Nhwc
    } else {
        InputOperandLayout::Nchw
    }
}

fn conv(pad: u32, stride: u32, groups: u32, nhwc: bool) -> Attrs {
    Attrs::Conv2d {
        padding: [pad; 4],
        strides: [stride; 2],
        dilations: [1, 1],
        groups,
        input_layout: layout(nhwc),
        filter_layout: if nhwc { Conv2dFilterOperandLayout::Ohwi } else { Conv2dFilterOperandLayout::Oihw },
    }
}

fn pool(window: u32, pad: u32, stride: u32, nhwc: bool) -> Attrs {
    Attrs::Pool2d {
        window: [window; 2],
        padding: [pad; 4],
        strides: [stride; 2],
        dilations: [1, 1],
        layout: layout(nhwc),
    }
}

/// `2·m·k·n`.
fn mm(m: f64, k: f64, n: f64) -> f64 {
    2.0 * m * k * n
}

fn products(b: &Bench) {
    let c = 1.0;
    b.run(
        "matmul 1024^3",
        OpKind::Matmul,
        &[Some((&[1024, 1024], false)), Some((&[1024, 1024], true))],
        Attrs::None,
        &[&[1024, 1024]],
        mm(1024.0, 1024.0, 1024.0),
        c,
    );
    b.run(
        "matmul [1,128,768]x[768,3072]",
        OpKind::Matmul,
        &[Some((&[1, 128, 768], false)), Some((&[768, 3072], true))],
        Attrs::None,
        &[&[1, 128, 3072]],
        mm(128.0, 768.0, 3072.0),
        c,
    );
    b.run(
        "matmul [12,128,64]x[12,64,128]",
        OpKind::Matmul,
        &[Some((&[12, 128, 64], false)), Some((&[12, 64, 128], false))],
        Attrs::None,
        &[&[12, 128, 128]],
        12.0 * mm(128.0, 64.0, 128.0),
        c,
    );
    b.run(
        "gemm [1,2048]x[1000,2048]^T+c",
        OpKind::Gemm,
        &[Some((&[1, 2048], false)), Some((&[1000, 2048], true)), Some((&[1000], true))],
        Attrs::Gemm { alpha: 1.0, beta: 1.0, a_transpose: false, b_transpose: true },
        &[&[1, 1000]],
        mm(1.0, 2048.0, 1000.0),
        c,
    );
}

fn cnn_layers(b: &Bench, nhwc: bool) {
    let c = 1.0;
    let l = if nhwc { "nhwc" } else { "nchw" };
    let sh = |n: u32, c: u32, h: u32, w: u32| if nhwc { [n, h, w, c] } else { [n, c, h, w] };
    let fsh = |o: u32, i: u32, kh: u32, kw: u32| if nhwc { [o, kh, kw, i] } else { [o, i, kh, kw] };
    let conv_case = |name: String, x: [u32; 4], f: [u32; 4], attrs: Attrs, y: [u32; 4], flops: f64| {
        let bias = [f[0]];
        b.run(
            &name,
            OpKind::Conv2d,
            &[Some((&x, false)), Some((&f, true)), Some((&bias, true))],
            attrs,
            &[&y],
            flops,
            c,
        );
    };
    // (name, input [c, h, w], filter [o, i, kh, kw], (padding, stride, groups), output [c, h, w], flops)
    for (name, [xc, xh, xw], [o, i, kh, kw], (pad, stride, groups), [yc, yh, yw], flops) in [
        ("conv 64x56x56 3x3 64", [64, 56, 56], [64, 64, 3, 3], (1, 1, 1), [64, 56, 56], mm(64.0, 576.0, 3136.0)),
        ("conv 64x56x56 1x1 256", [64, 56, 56], [256, 64, 1, 1], (0, 1, 1), [256, 56, 56], mm(256.0, 64.0, 3136.0)),
        ("conv 3x224x224 7x7/2 64", [3, 224, 224], [64, 3, 7, 7], (3, 2, 1), [64, 112, 112], mm(64.0, 147.0, 12544.0)),
        (
            "conv dw 144x56x56 3x3",
            [144, 56, 56],
            [144, 1, 3, 3],
            (1, 1, 144),
            [144, 56, 56],
            2.0 * 144.0 * 9.0 * 3136.0,
        ),
        ("conv 256x14x14 3x3 256", [256, 14, 14], [256, 256, 3, 3], (1, 1, 1), [256, 14, 14], mm(256.0, 2304.0, 196.0)),
    ] {
        let (x, f, y) = (sh(1, xc, xh, xw), fsh(o, i, kh, kw), sh(1, yc, yh, yw));
        conv_case(format!("{name} {l}"), x, f, conv(pad, stride, groups, nhwc), y, flops);
    }
    b.run(
        &format!("convT 64x32x32 4x4/2 32 {l}"),
        OpKind::ConvTranspose2d,
        &[
            Some((&sh(1, 64, 32, 32), false)),
            Some((&if nhwc { [32, 4, 4, 64] } else { [64, 32, 4, 4] }, true)),
            Some((&[32], true)),
        ],
        Attrs::ConvTranspose2d {
            padding: [1; 4],
            strides: [2, 2],
            dilations: [1, 1],
            groups: 1,
            input_layout: layout(nhwc),
            filter_layout: if nhwc {
                ConvTranspose2dFilterOperandLayout::Ohwi
            } else {
                ConvTranspose2dFilterOperandLayout::Iohw
            },
        },
        &[&sh(1, 32, 64, 64)],
        mm(32.0 * 16.0, 64.0, 1024.0),
        c,
    );
    // (name, op, input [c, h, w], (window, padding, stride), output [c, h, w])
    for (name, op, [xc, xh, xw], (window, pad, stride), [yc, yh, yw]) in [
        ("maxPool 64x112x112 3x3/2", OpKind::MaxPool2d, [64, 112, 112], (3, 1, 2), [64, 56, 56]),
        ("avgPool global 2048x7x7", OpKind::AveragePool2d, [2048, 7, 7], (7, 0, 1), [2048, 1, 1]),
    ] {
        let (x, y) = (sh(1, xc, xh, xw), sh(1, yc, yh, yw));
        b.run(&format!("{name} {l}"), op, &[Some((&x, false))], pool(window, pad, stride, nhwc), &[&y], 0.0, c);
    }
    b.run(
        &format!("instanceNorm 64x56x56 {l}"),
        OpKind::InstanceNormalization,
        &[Some((&sh(1, 64, 56, 56), false)), Some((&[64], true)), Some((&[64], true))],
        Attrs::InstanceNormalization { epsilon: 1e-5, layout: layout(nhwc) },
        &[&sh(1, 64, 56, 56)],
        0.0,
        c,
    );
}

fn other_layers(b: &Bench) {
    let c = 1.0;
    b.run(
        "resample linear 64x56x56 -> 112",
        OpKind::Resample2d,
        &[Some((&[1, 64, 56, 56], false))],
        Attrs::Resample2d { mode: InterpolationMode::Linear, scales: Some([2.0, 2.0]), axes: [2, 3] },
        &[&[1, 64, 112, 112]],
        0.0,
        c,
    );
    b.run(
        "batchNorm 64x112x112",
        OpKind::BatchNormalization,
        &[
            Some((&[1, 64, 112, 112], false)),
            Some((&[64], true)),
            Some((&[64], true)),
            Some((&[64], true)),
            Some((&[64], true)),
        ],
        Attrs::BatchNormalization { axis: 1, epsilon: 1e-5 },
        &[&[1, 64, 112, 112]],
        0.0,
        c,
    );
    b.run(
        "layerNorm [128,768]",
        OpKind::LayerNormalization,
        &[Some((&[128, 768], false)), Some((&[768], true)), Some((&[768], true))],
        Attrs::LayerNormalization { axes: vec![1], epsilon: 1e-5 },
        &[&[128, 768]],
        0.0,
        c,
    );
}

/// lstm (iofg, sigmoid/tanh/tanh, the whole sequence returned) over (steps, batch, input,
/// hidden, directions); weights and bias in [-0.1, 0.1).
fn recurrent(b: &Bench) {
    for &(steps, batch, input, h, dirs) in
        &[(50u32, 1u32, 256u32, 256u32, 1u32), (50, 1, 256, 256, 2), (20, 16, 512, 512, 1), (100, 1, 64, 128, 2)]
    {
        let gh = 4 * h;
        let attrs = Attrs::Lstm {
            steps,
            hidden_size: h,
            return_sequence: true,
            direction: if dirs == 2 { RecurrentNetworkDirection::Both } else { RecurrentNetworkDirection::Forward },
            layout: LstmWeightLayout::Iofg,
            activations: [
                RecurrentNetworkActivation::Sigmoid,
                RecurrentNetworkActivation::Tanh,
                RecurrentNetworkActivation::Tanh,
            ],
        };
        let inputs: [Slot; 8] = [
            Some((&[steps, batch, input], false)),
            Some((&[dirs, gh, input], true)),
            Some((&[dirs, gh, h], true)),
            Some((&[dirs, gh], true)),
            None,
            None,
            None,
            None,
        ];
        let flops = 2.0 * (steps * batch * dirs * gh * (input + h)) as f64;
        b.run(
            &format!("lstm steps={steps} batch={batch} input={input} h={h} dirs={dirs}"),
            OpKind::Lstm,
            &inputs,
            attrs,
            &[&[dirs, batch, h], &[dirs, batch, h], &[steps, dirs, batch, h]],
            flops,
            0.1,
        );
    }
}

fn main() {
    let filters: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with('-')).collect();
    let threads = std::env::var("WEBNN_NUM_THREADS").ok().and_then(|v| v.parse().ok()).unwrap_or(2);
    let bench = Bench { backend: CpuBackend::new(Some(threads)).expect("backend"), filters };
    println!("webnn-cpu layer shapes, {threads} thread(s), fastest dispatch");
    products(&bench);
    for nhwc in [false, true] {
        cnn_layers(&bench, nhwc);
    }
    other_layers(&bench);
    recurrent(&bench);
}

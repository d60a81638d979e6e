//! Timing of typical CNN/transformer shapes of the matmul/conv/pool/resample/normalization
//! kernels through whole plans (2 threads). Ignored by default; run with
//! `cargo test -p webnn-cpu --release k2_bench -- --ignored --nocapture` (threads: `K2_THREADS`,
//! default 2). Reports the fastest of many runs.

use crate::kernels::k2_wpt_tests::pseudo;
use crate::plan::{CompiledPlan, Plan};
use std::sync::Arc;
use std::time::Instant;
use webnn_core::backend::CompiledGraph;
use webnn_core::graph::{Attrs, Constant, OperandNode, OperandSource, Operation};
use webnn_core::types::{Conv2dFilterOperandLayout, ConvTranspose2dFilterOperandLayout, InputOperandLayout, InterpolationMode};
use webnn_core::{DataType, Graph, OpKind, OperandDescriptor, OperandId};

/// Builds a one-op graph (inputs flagged constant become constants), times `execute`.
fn bench(name: &str, kind: OpKind, inputs: &[Option<(&[u32], bool)>], attrs: Attrs, out: &[u32], flops: f64) {
    if std::env::var("K2_FILTER").is_ok_and(|f| !name.contains(&f)) {
        return;
    }
    let mut graph = Graph::default();
    let mut slots = Vec::new();
    let mut data = Vec::new();
    for (i, inp) in inputs.iter().enumerate() {
        let Some((shape, constant)) = inp else {
            slots.push(None);
            continue;
        };
        let desc = OperandDescriptor::new(DataType::Float32, shape.to_vec());
        let values = pseudo(desc.len(), i as u32 + 1);
        let bytes: Vec<u8> = bytemuck::cast_slice(&values).to_vec();
        let id = OperandId(graph.operands.len() as u32);
        if *constant {
            graph.operands.push(OperandNode { descriptor: desc, source: OperandSource::Constant(graph.constants.len()) });
            graph.constants.push(Constant { operand: id, bytes: webnn_core::SharedBytes::try_copy_from(&bytes).unwrap(), tensor_destroyed: None });
        } else {
            let n = format!("in{i}");
            graph.operands.push(OperandNode { descriptor: desc, source: OperandSource::Input(n.clone()) });
            graph.inputs.push((n, id));
            let mut b = crate::memory::AlignedBuf::zeroed(bytes.len());
            b.as_bytes_mut().copy_from_slice(&bytes);
            data.push(b);
        }
        slots.push(Some(id));
    }
    let od = OperandDescriptor::new(DataType::Float32, out.to_vec());
    let oid = OperandId(graph.operands.len() as u32);
    graph.operands.push(OperandNode { descriptor: od.clone(), source: OperandSource::Operation { op: 0, output: 0 } });
    graph.outputs.push(("out".into(), oid));
    graph.operations.push(Operation { kind, inputs: slots, outputs: vec![oid], attrs, label: String::new() });
    let plan = Plan::compile(&graph).expect("compile");
    let threads = std::env::var("K2_THREADS").ok().and_then(|v| v.parse().ok()).unwrap_or(2);
    let compiled = CompiledPlan::new(plan, Arc::new(crate::pool::build_pool(Some(threads)).expect("pool")));
    let mut ob = crate::memory::AlignedBuf::zeroed(od.byte_length() as usize);
    let ins: Vec<&[u8]> = data.iter().map(|d| d.as_bytes()).collect();
    let mut run = || {
        let mut outs = [ob.as_bytes_mut()];
        compiled.execute(&ins, &mut outs).expect("execute");
    };
    run();
    // The minimum over many runs: robust to other load on the machine.
    let t = Instant::now();
    let mut iters = 0;
    let mut best = f64::INFINITY;
    while t.elapsed().as_secs_f64() < 1.0 || iters < 5 {
        let s = Instant::now();
        run();
        best = best.min(s.elapsed().as_secs_f64());
        iters += 1;
    }
    let ms = best * 1000.0;
    if flops > 0.0 {
        eprintln!("{name:<40} {ms:9.3} ms  {:7.1} GFLOP/s", flops / ms / 1e6);
    } else {
        eprintln!("{name:<40} {ms:9.3} ms");
    }
}

fn conv(pad: u32, stride: u32, groups: u32, nhwc: bool) -> Attrs {
    Attrs::Conv2d {
        padding: [pad; 4],
        strides: [stride; 2],
        dilations: [1, 1],
        groups,
        input_layout: if nhwc { InputOperandLayout::Nhwc } else { InputOperandLayout::Nchw },
        filter_layout: if nhwc { Conv2dFilterOperandLayout::Ohwi } else { Conv2dFilterOperandLayout::Oihw },
    }
}

#[test]
#[ignore]
fn k2_bench() {
    let mm = |m: f64, k: f64, n: f64| 2.0 * m * k * n;
    bench("matmul 1024^3", OpKind::Matmul, &[Some((&[1024, 1024], false)), Some((&[1024, 1024], true))], Attrs::None, &[1024, 1024], mm(1024.0, 1024.0, 1024.0));
    bench("matmul [1,128,768]x[768,3072]", OpKind::Matmul, &[Some((&[1, 128, 768], false)), Some((&[768, 3072], true))], Attrs::None, &[1, 128, 3072], mm(128.0, 768.0, 3072.0));
    bench("matmul [12,128,64]x[12,64,128]", OpKind::Matmul, &[Some((&[12, 128, 64], false)), Some((&[12, 64, 128], false))], Attrs::None, &[12, 128, 128], 12.0 * mm(128.0, 64.0, 128.0));
    bench(
        "gemm [1,2048]x[1000,2048]^T+c",
        OpKind::Gemm,
        &[Some((&[1, 2048], false)), Some((&[1000, 2048], true)), Some((&[1000], true))],
        Attrs::Gemm { alpha: 1.0, beta: 1.0, a_transpose: false, b_transpose: true },
        &[1, 1000],
        mm(1.0, 2048.0, 1000.0),
    );
    for nhwc in [false, true] {
        let l = if nhwc { "nhwc" } else { "nchw" };
        let sh = |n: u32, c: u32, h: u32, w: u32| if nhwc { [n, h, w, c] } else { [n, c, h, w] };
        let fsh = |o: u32, i: u32, kh: u32, kw: u32| if nhwc { [o, kh, kw, i] } else { [o, i, kh, kw] };
        bench(
            &format!("conv 64x56x56 3x3 64 {l}"),
            OpKind::Conv2d,
            &[Some((&sh(1, 64, 56, 56), false)), Some((&fsh(64, 64, 3, 3), true)), Some((&[64], true))],
            conv(1, 1, 1, nhwc),
            &sh(1, 64, 56, 56),
            mm(64.0, 576.0, 3136.0),
        );
        bench(
            &format!("conv 64x56x56 1x1 256 {l}"),
            OpKind::Conv2d,
            &[Some((&sh(1, 64, 56, 56), false)), Some((&fsh(256, 64, 1, 1), true)), Some((&[256], true))],
            conv(0, 1, 1, nhwc),
            &sh(1, 256, 56, 56),
            mm(256.0, 64.0, 3136.0),
        );
        bench(
            &format!("conv 3x224x224 7x7/2 64 {l}"),
            OpKind::Conv2d,
            &[Some((&sh(1, 3, 224, 224), false)), Some((&fsh(64, 3, 7, 7), true)), Some((&[64], true))],
            conv(3, 2, 1, nhwc),
            &sh(1, 64, 112, 112),
            mm(64.0, 147.0, 12544.0),
        );
        bench(
            &format!("conv dw 144x56x56 3x3 {l}"),
            OpKind::Conv2d,
            &[Some((&sh(1, 144, 56, 56), false)), Some((&fsh(144, 1, 3, 3), true)), Some((&[144], true))],
            conv(1, 1, 144, nhwc),
            &sh(1, 144, 56, 56),
            2.0 * 144.0 * 9.0 * 3136.0,
        );
        bench(
            &format!("conv 256x14x14 3x3 256 {l}"),
            OpKind::Conv2d,
            &[Some((&sh(1, 256, 14, 14), false)), Some((&fsh(256, 256, 3, 3), true)), Some((&[256], true))],
            conv(1, 1, 1, nhwc),
            &sh(1, 256, 14, 14),
            mm(256.0, 2304.0, 196.0),
        );
        bench(
            &format!("convT 64x32x32 4x4/2 32 {l}"),
            OpKind::ConvTranspose2d,
            &[Some((&sh(1, 64, 32, 32), false)), Some((&if nhwc { [32, 4, 4, 64] } else { [64, 32, 4, 4] }, true)), Some((&[32], true))],
            Attrs::ConvTranspose2d {
                padding: [1; 4],
                strides: [2, 2],
                dilations: [1, 1],
                groups: 1,
                input_layout: if nhwc { InputOperandLayout::Nhwc } else { InputOperandLayout::Nchw },
                filter_layout: if nhwc { ConvTranspose2dFilterOperandLayout::Ohwi } else { ConvTranspose2dFilterOperandLayout::Iohw },
            },
            &sh(1, 32, 64, 64),
            mm(32.0 * 16.0, 64.0, 1024.0),
        );
        bench(
            &format!("maxPool 64x112x112 3x3/2 {l}"),
            OpKind::MaxPool2d,
            &[Some((&sh(1, 64, 112, 112), false))],
            Attrs::Pool2d {
                window: [3, 3],
                padding: [1; 4],
                strides: [2, 2],
                dilations: [1, 1],
                layout: if nhwc { InputOperandLayout::Nhwc } else { InputOperandLayout::Nchw },
            },
            &sh(1, 64, 56, 56),
            0.0,
        );
        bench(
            &format!("avgPool global 2048x7x7 {l}"),
            OpKind::AveragePool2d,
            &[Some((&sh(1, 2048, 7, 7), false))],
            Attrs::Pool2d {
                window: [7, 7],
                padding: [0; 4],
                strides: [1, 1],
                dilations: [1, 1],
                layout: if nhwc { InputOperandLayout::Nhwc } else { InputOperandLayout::Nchw },
            },
            &sh(1, 2048, 1, 1),
            0.0,
        );
        bench(
            &format!("instanceNorm 64x56x56 {l}"),
            OpKind::InstanceNormalization,
            &[Some((&sh(1, 64, 56, 56), false)), Some((&[64], true)), Some((&[64], true))],
            Attrs::InstanceNormalization { epsilon: 1e-5, layout: if nhwc { InputOperandLayout::Nhwc } else { InputOperandLayout::Nchw } },
            &sh(1, 64, 56, 56),
            0.0,
        );
    }
    bench(
        "resample linear 64x56x56 -> 112",
        OpKind::Resample2d,
        &[Some((&[1, 64, 56, 56], false))],
        Attrs::Resample2d { mode: InterpolationMode::Linear, scales: Some([2.0, 2.0]), axes: [2, 3] },
        &[1, 64, 112, 112],
        0.0,
    );
    bench(
        "batchNorm 64x112x112",
        OpKind::BatchNormalization,
        &[Some((&[1, 64, 112, 112], false)), Some((&[64], true)), Some((&[64], true)), Some((&[64], true)), Some((&[64], true))],
        Attrs::BatchNormalization { axis: 1, epsilon: 1e-5 },
        &[1, 64, 112, 112],
        0.0,
    );
    bench(
        "layerNorm [128,768]",
        OpKind::LayerNormalization,
        &[Some((&[128, 768], false)), Some((&[768], true)), Some((&[768], true))],
        Attrs::LayerNormalization { axes: vec![1], epsilon: 1e-5 },
        &[128, 768],
        0.0,
    );
}

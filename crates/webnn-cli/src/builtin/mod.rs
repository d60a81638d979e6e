//! Built-in models, constructed directly with the graph builder and seeded weights, so that
//! `webnn bench --builtin NAME` works with nothing else installed.
//!
//! The topologies are the real ones (torchvision's MobileNetV2 and ResNet-50 with BatchNorm
//! folded into the convolutions, as exporters write them; a BERT-base encoder stack); the
//! weights are pseudo-random (xorshift64*, fixed seeds) with fan-in scaling so that activations
//! stay in a sane range through the whole network. Outputs are meaningless as predictions but
//! deterministic.

mod bert;
mod mobilenetv2;
mod net;
mod resnet50;

use crate::loaded::LoadedModel;
use anyhow::{anyhow, bail, Result};
use webnn::GraphBuilder;
use webnn::InputOperandLayout;

pub use net::Net;

/// The built-in models: name and one line about each.
pub const LIST: &[(&str, &str)] = &[
    ("mobilenetv2", "MobileNetV2 1.0 (torchvision topology, BN folded), NCHW: input [1,3,224,224] -> logits [1,1000]"),
    ("mobilenetv2-nhwc", "the same network in NHWC with ohwi/ihwo filters: input [1,224,224,3] -> logits [1,1000]"),
    ("resnet50", "ResNet-50 v1.5 (torchvision topology, BN folded), NCHW: input [1,3,224,224] -> logits [1,1000]"),
    ("bert", "BERT-base encoder, 4 layers, hidden 768, 12 heads: hidden_states [1,128,768] -> last_hidden_state"),
    ("axpy", "a small element-wise graph (y = a*x + b over [256,1024]) for smoke tests"),
];

/// Adds built-in model `name` to `builder`. `shapes` overrides input shapes by name (e.g. the
/// batch size or the image size; BERT's sequence length).
pub fn build(name: &str, builder: &mut GraphBuilder, shapes: &[(String, Vec<u32>)]) -> Result<LoadedModel> {
    let mut shapes = Shapes { given: shapes, used: vec![false; shapes.len()] };
    let model = match name {
        "mobilenetv2" => mobilenetv2::build(builder, &mut shapes, InputOperandLayout::Nchw)?,
        "mobilenetv2-nhwc" => mobilenetv2::build(builder, &mut shapes, InputOperandLayout::Nhwc)?,
        "resnet50" => resnet50::build(builder, &mut shapes)?,
        "bert" => bert::build(builder, &mut shapes, &bert::Config::default())?,
        "axpy" => axpy(builder, &mut shapes)?,
        _ => bail!(
            "no built-in model named '{name}' (available: {})",
            LIST.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")
        ),
    };
    if let Some(i) = shapes.used.iter().position(|u| !u) {
        bail!(
            "--shape {}: built-in model '{name}' has no such input (inputs: {})",
            shapes.given[i].0,
            model.inputs.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>().join(", ")
        );
    }
    Ok(model)
}

/// Shape overrides, remembering which were used.
pub struct Shapes<'a> {
    given: &'a [(String, Vec<u32>)],
    used: Vec<bool>,
}

impl Shapes<'_> {
    /// The shape of input `name`: the override if one was given, else `default`.
    pub fn get(&mut self, name: &str, default: &[u32]) -> Vec<u32> {
        match self.given.iter().position(|(n, _)| n == name) {
            Some(i) => {
                self.used[i] = true;
                self.given[i].1.clone()
            }
            None => default.to_vec(),
        }
    }
}

/// Checks that an input shape has rank 4 with `channels` channels in the layout's place.
pub(crate) fn image_shape(shape: &[u32], layout: InputOperandLayout, channels: u32, min_size: u32) -> Result<[u32; 4]> {
    let s: [u32; 4] = shape.try_into().map_err(|_| anyhow!("the input must have rank 4, not {shape:?}"))?;
    let (c, h, w) = match layout {
        InputOperandLayout::Nchw => (s[1], s[2], s[3]),
        InputOperandLayout::Nhwc => (s[3], s[1], s[2]),
    };
    if c != channels || s[0] == 0 || h < min_size || w < min_size {
        bail!("the input shape {shape:?} must have {channels} channels, batch >= 1 and height and width >= {min_size}");
    }
    Ok(s)
}

/// `axpy`: y = a * x + b with constant a and b, for smoke tests of run and bench.
fn axpy(b: &mut GraphBuilder, shapes: &mut Shapes) -> Result<LoadedModel> {
    let shape = shapes.get("x", &[256, 1024]);
    let mut net = Net::new(b, 7);
    let desc = webnn::OperandDescriptor::new(webnn::DataType::Float32, shape.clone());
    let x = net.b.input("x", &desc)?;
    let a = net.uniform(&shape, 1.0, "a")?;
    let c = net.uniform(&shape, 1.0, "b")?;
    let ax = net.b.mul(&a, &x, &net::label("ax"))?;
    let y = net.b.add(&ax, &c, &net::label("y"))?;
    Ok(LoadedModel { inputs: vec![("x".into(), desc)], outputs: vec![("y".into(), y)] })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{build_graph, cpu_builder};
    use webnn::{DataType, OperandDescriptor};
    use webnn_core::Graph;

    fn count(graph: &Graph, kind: webnn::OpKind) -> usize {
        graph.operations.iter().filter(|o| o.kind == kind).count()
    }

    fn params(graph: &Graph) -> u64 {
        graph.constants.iter().map(|c| graph.descriptor(c.operand).element_count()).sum()
    }

    fn f32_desc(shape: &[u32]) -> OperandDescriptor {
        OperandDescriptor::new(DataType::Float32, shape.to_vec())
    }

    #[test]
    fn mobilenetv2_nchw_topology() {
        use webnn::OpKind::*;
        let (model, graph) = build_graph("mobilenetv2", &[]);
        assert_eq!(model.inputs, vec![("input".to_string(), f32_desc(&[1, 3, 224, 224]))]);
        assert_eq!(graph.output_descriptor("logits"), Some(&f32_desc(&[1, 1000])));
        // stem + 17 blocks (16 with an expansion) * (dw + project) + expansion convs + head
        assert_eq!(count(&graph, Conv2d), 1 + 17 * 2 + 16 + 1);
        let depthwise = graph
            .operations
            .iter()
            // A depthwise filter (oihw) has one input channel per group.
            .filter(|o| o.kind == webnn::OpKind::Conv2d && graph.descriptor(o.inputs[1].unwrap()).shape[1] == 1)
            .count();
        assert_eq!(depthwise, 17);
        assert_eq!(count(&graph, Add), 10, "residual connections");
        assert_eq!(count(&graph, Clamp), 1 + 16 + 17 + 1, "relu6 after stem, expansions, depthwise, head");
        assert_eq!((count(&graph, AveragePool2d), count(&graph, Gemm)), (1, 1));
        // torchvision mobilenet_v2 has 3,504,872 parameters; folding BatchNorm (2 per channel
        // over 17,056 channels) into conv biases (1 per channel) removes 17,056.
        assert_eq!(params(&graph), 3_504_872 - 17_056);
    }

    #[test]
    fn mobilenetv2_nhwc_matches_nchw_shapes() {
        let (model, graph) = build_graph("mobilenetv2-nhwc", &[]);
        assert_eq!(model.inputs, vec![("input".to_string(), f32_desc(&[1, 224, 224, 3]))]);
        assert_eq!(graph.output_descriptor("logits"), Some(&f32_desc(&[1, 1000])));
        let (_, nchw) = build_graph("mobilenetv2", &[]);
        assert_eq!(params(&graph), params(&nchw));
        assert_eq!(graph.operations.len(), nchw.operations.len());
    }

    #[test]
    fn mobilenetv2_other_batch_and_size() {
        let (_, graph) = build_graph("mobilenetv2", &[("input".into(), vec![2, 3, 160, 160])]);
        assert_eq!(graph.output_descriptor("logits"), Some(&f32_desc(&[2, 1000])));
        let mut b = cpu_builder();
        let e = build("mobilenetv2", &mut b, &[("input".into(), vec![1, 4, 224, 224])]).unwrap_err();
        assert!(e.to_string().contains("3 channels"), "{e}");
    }

    #[test]
    fn resnet50_topology() {
        use webnn::OpKind::*;
        let (model, graph) = build_graph("resnet50", &[]);
        assert_eq!(model.inputs, vec![("input".to_string(), f32_desc(&[1, 3, 224, 224]))]);
        assert_eq!(graph.output_descriptor("logits"), Some(&f32_desc(&[1, 1000])));
        // conv1 + 16 bottlenecks * 3 + 4 downsamples
        assert_eq!(count(&graph, Conv2d), 1 + 16 * 3 + 4);
        assert_eq!(count(&graph, Add), 16);
        assert_eq!(count(&graph, Relu), 1 + 16 * 3);
        assert_eq!((count(&graph, MaxPool2d), count(&graph, AveragePool2d), count(&graph, Gemm)), (1, 1, 1));
        // torchvision resnet50: 25,557,032 parameters; folding BN adds a bias to all 53 convs.
        let conv_channels: u64 = 64
            + (64 + 64 + 256) * 3
            + (128 + 128 + 512) * 4
            + (256 + 256 + 1024) * 6
            + (512 + 512 + 2048) * 3
            + 256
            + 512
            + 1024
            + 2048;
        assert_eq!(params(&graph), 25_557_032 - 2 * conv_channels + conv_channels);
    }

    #[test]
    fn bert_topology() {
        use webnn::OpKind::*;
        let (model, graph) = build_graph("bert", &[]);
        assert_eq!(model.inputs, vec![("hidden_states".to_string(), f32_desc(&[1, 128, 768]))]);
        assert_eq!(graph.output_descriptor("last_hidden_state"), Some(&f32_desc(&[1, 128, 768])));
        assert_eq!(count(&graph, Matmul), 4 * 8, "q, k, v, scores, context, out, ffn1, ffn2");
        assert_eq!(count(&graph, Softmax), 4);
        assert_eq!(count(&graph, LayerNormalization), 8);
        assert_eq!(count(&graph, Gelu), 4);
        // Per layer: 4 * (768*768 + 768) attention + 2 * 768 LN + 768*3072 + 3072 + 3072*768 + 768 + 2 * 768 LN
        let per_layer = 4 * (768 * 768 + 768) + 2 * 768 + 768 * 3072 + 3072 + 3072 * 768 + 768 + 2 * 768;
        // + the scalar scale constant of each layer
        assert_eq!(params(&graph), 4 * (per_layer + 1));
        let scores = graph.operations.iter().find(|o| o.kind == Softmax).unwrap();
        assert_eq!(graph.descriptor(scores.outputs[0]).shape, vec![1, 12, 128, 128]);
    }

    #[test]
    fn bert_sequence_length_override() {
        let (_, graph) = build_graph("bert", &[("hidden_states".into(), vec![2, 64, 768])]);
        assert_eq!(graph.output_descriptor("last_hidden_state"), Some(&f32_desc(&[2, 64, 768])));
        let mut b = cpu_builder();
        assert!(build("bert", &mut b, &[("hidden_states".into(), vec![1, 64, 512])]).is_err());
    }

    #[test]
    fn unknown_names_and_inputs_are_errors() {
        let mut b = cpu_builder();
        let e = build("alexnet", &mut b, &[]).unwrap_err().to_string();
        assert!(e.contains("no built-in model named 'alexnet'") && e.contains("resnet50"), "{e}");
        let mut b = cpu_builder();
        let e = build("axpy", &mut b, &[("y".into(), vec![2])]).unwrap_err().to_string();
        assert!(e.contains("has no such input"), "{e}");
        let (_, graph) = build_graph("axpy", &[("x".into(), vec![3, 5])]);
        assert_eq!(graph.output_descriptor("y"), Some(&f32_desc(&[3, 5])));
    }

    fn run_f32(name: &str, shape: &[u32], input: &[f32]) -> Vec<f32> {
        let dims = shape.iter().map(|d| d.to_string()).collect::<Vec<_>>().join("x");
        let input_name = if name == "bert" { "hidden_states" } else { "input" };
        let source = crate::model::ModelSource::Builtin(name.into());
        let session =
            crate::model::Session::new(&source, &[format!("{input_name}={dims}")], Some(2), webnn::DeviceChoice::Cpu)
                .unwrap();
        let bytes: Vec<u8> = input.iter().flat_map(|v| v.to_le_bytes()).collect();
        session.write_input(0, &bytes).unwrap();
        let out = session.run().unwrap().remove(0);
        out.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
    }

    fn assert_sane(values: &[f32]) {
        assert!(values.iter().all(|v| v.is_finite()));
        let (min, max) = values.iter().fold((f32::MAX, f32::MIN), |(a, b), &v| (a.min(v), b.max(v)));
        assert!(max - min > 1e-3, "constant output {min}..{max}");
    }

    #[test]
    fn mobilenetv2_nhwc_computes_what_nchw_computes() {
        let (c, h, w) = (3usize, 64usize, 64usize);
        let nchw = crate::fill::input_bytes("input", &f32_desc(&[1, 3, 64, 64]));
        let nchw: Vec<f32> = nchw.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
        let mut nhwc = vec![0f32; nchw.len()];
        for ci in 0..c {
            for y in 0..h {
                for x in 0..w {
                    nhwc[(y * w + x) * c + ci] = nchw[(ci * h + y) * w + x];
                }
            }
        }
        let a = run_f32("mobilenetv2", &[1, 3, 64, 64], &nchw);
        let b = run_f32("mobilenetv2-nhwc", &[1, 64, 64, 3], &nhwc);
        assert_eq!(a.len(), 1000);
        assert_sane(&a);
        let range = a.iter().fold(f32::MIN, |m, &v| m.max(v)) - a.iter().fold(f32::MAX, |m, &v| m.min(v));
        for (i, (x, y)) in a.iter().zip(&b).enumerate() {
            assert!((x - y).abs() <= 1e-4 * range, "logit {i}: {x} vs {y}");
        }
    }

    #[test]
    fn resnet50_and_bert_run_with_finite_outputs() {
        let input: Vec<f32> = (0..3 * 64 * 64).map(|i| ((i % 17) as f32 - 8.0) / 8.0).collect();
        let logits = run_f32("resnet50", &[1, 3, 64, 64], &input);
        assert_eq!(logits.len(), 1000);
        assert_sane(&logits);
        let hidden: Vec<f32> = (0..16 * 768).map(|i| ((i % 13) as f32 - 6.0) / 6.0).collect();
        let out = run_f32("bert", &[1, 16, 768], &hidden);
        assert_eq!(out.len(), 16 * 768);
        assert_sane(&out);
    }

    #[test]
    fn weights_are_deterministic() {
        let (_, a) = build_graph("mobilenetv2", &[]);
        let (_, b) = build_graph("mobilenetv2", &[]);
        assert!(a.constants.iter().zip(&b.constants).all(|(x, y)| x.bytes[..] == y.bytes[..]));
        let first = &a.constants[0].bytes;
        assert!(first.iter().any(|&x| x != 0));
    }
}

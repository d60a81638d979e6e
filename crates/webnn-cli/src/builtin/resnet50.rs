//! ResNet-50 v1.5 (He et al. 2016; torchvision's variant with the stride on the 3x3 conv),
//! BatchNorm folded into the convolutions: a 7x7 stride-2 stem with relu and a 3x3 stride-2
//! max pool, then 3, 4, 6 and 3 bottleneck blocks (1x1, 3x3, 1x1 x4 channels; a 1x1
//! projection shortcut on the first block of each stage; add, relu), global average pooling
//! and a fully connected layer to 1000 classes.

use super::net::{label, Act, Net};
use super::{image_shape, Shapes};
use crate::loaded::LoadedModel;
use anyhow::Result;
use webnn::GraphBuilder;
use webnn::{DataType, InputOperandLayout, OperandDescriptor, Pool2dOptions};

/// (bottleneck width, blocks, first stride) of the four stages.
const STAGES: [(u32, u32, u32); 4] = [(64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)];

/// Builds ResNet-50 (NCHW).
pub fn build(b: &mut GraphBuilder, shapes: &mut Shapes) -> Result<LoadedModel> {
    let shape = image_shape(&shapes.get("input", &[1, 3, 224, 224]), InputOperandLayout::Nchw, 3, 32)?;
    let mut net = Net::new(b, 0x5245_534E_4554);
    let desc = OperandDescriptor::new(DataType::Float32, shape.to_vec());
    let input = net.b.input("input", &desc)?;

    let x = net.conv(&input, 64, 7, 2, 1, Act::Relu, 1.0, "conv1")?;
    let mut x = net.b.max_pool2d(
        &x,
        &Pool2dOptions {
            label: "maxpool".into(),
            window_dimensions: Some(vec![3, 3]),
            padding: Some(vec![1; 4]),
            strides: Some(vec![2, 2]),
            ..Default::default()
        },
    )?;
    let mut in_c = 64;
    for (stage, (width, blocks, first_stride)) in STAGES.into_iter().enumerate() {
        for block in 0..blocks {
            let name = format!("layer{}.{block}", stage + 1);
            let stride = if block == 0 { first_stride } else { 1 };
            let out_c = width * 4;
            let h = net.conv(&x, width, 1, 1, 1, Act::Relu, 1.0, &format!("{name}.conv1"))?;
            let h = net.conv(&h, width, 3, stride, 1, Act::Relu, 1.0, &format!("{name}.conv2"))?;
            // The residual branch starts small (as with a zero-initialised last BN gamma) so
            // that the activations do not grow through 16 blocks.
            let h = net.conv(&h, out_c, 1, 1, 1, Act::None, 0.2, &format!("{name}.conv3"))?;
            let shortcut = if stride != 1 || in_c != out_c {
                net.conv(&x, out_c, 1, stride, 1, Act::None, 1.0, &format!("{name}.downsample"))?
            } else {
                x.clone()
            };
            let sum = net.b.add(&h, &shortcut, &label(&format!("{name}.add")))?;
            x = net.b.relu(&sum, &label(&format!("{name}.relu")))?;
            in_c = out_c;
        }
    }
    let pooled = net.global_average_pool(&x, "avgpool")?;
    let logits = net.linear(&pooled, 1000, "fc")?;
    Ok(LoadedModel { inputs: vec![("input".into(), desc)], outputs: vec![("logits".into(), logits)] })
}

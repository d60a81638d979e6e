//! MobileNetV2 1.0 (Sandler et al. 2018), torchvision's topology with BatchNorm folded into
//! the convolutions: a 3x3 stride-2 stem, 17 inverted residual blocks (1x1 expansion, 3x3
//! depthwise, 1x1 linear projection; relu6 as `clamp(0, 6)`; a residual add when the stride
//! is 1 and the channels match), a 1x1 conv to 1280 channels, global average pooling and a
//! fully connected layer to 1000 classes.

use super::net::{Act, Net};
use super::{image_shape, Shapes};
use crate::loaded::LoadedModel;
use anyhow::Result;
use webnn::GraphBuilder;
use webnn::{DataType, InputOperandLayout, OperandDescriptor};

/// (expansion t, output channels c, repeats n, first stride s), as in the paper's Table 2.
const SETTINGS: [(u32, u32, u32, u32); 7] =
    [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1), (6, 160, 3, 2), (6, 320, 1, 1)];

/// Builds MobileNetV2 in `layout` (the NHWC variant uses OHWI filters, IHWO for depthwise).
pub fn build(b: &mut GraphBuilder, shapes: &mut Shapes, layout: InputOperandLayout) -> Result<LoadedModel> {
    let default: &[u32] = match layout {
        InputOperandLayout::Nchw => &[1, 3, 224, 224],
        InputOperandLayout::Nhwc => &[1, 224, 224, 3],
    };
    let shape = image_shape(&shapes.get("input", default), layout, 3, 32)?;
    let mut net = Net::new(b, 0x4D4F_4249_4C45);
    net.layout = layout;
    let desc = OperandDescriptor::new(DataType::Float32, shape.to_vec());
    let input = net.b.input("input", &desc)?;

    let mut x = net.conv(&input, 32, 3, 2, 1, Act::Relu6, 1.0, "features.0")?;
    let mut in_c = 32;
    let mut index = 1;
    for (t, c, n, s) in SETTINGS {
        for i in 0..n {
            let stride = if i == 0 { s } else { 1 };
            let name = format!("features.{index}");
            let hidden = in_c * t;
            let mut h = x.clone();
            if t != 1 {
                h = net.conv(&h, hidden, 1, 1, 1, Act::Relu6, 1.0, &format!("{name}.expand"))?;
            }
            h = net.conv(&h, hidden, 3, stride, hidden, Act::Relu6, 1.0, &format!("{name}.depthwise"))?;
            // A smaller projection keeps the residual stream from growing block after block.
            h = net.conv(&h, c, 1, 1, 1, Act::None, 0.5, &format!("{name}.project"))?;
            x = if stride == 1 && in_c == c {
                net.b.add(&x, &h, &super::net::label(&format!("{name}.add")))?
            } else {
                h
            };
            in_c = c;
            index += 1;
        }
    }
    x = net.conv(&x, 1280, 1, 1, 1, Act::Relu6, 1.0, &format!("features.{index}"))?;
    let pooled = net.global_average_pool(&x, "pool")?;
    let logits = net.linear(&pooled, 1000, "classifier")?;
    Ok(LoadedModel { inputs: vec![("input".into(), desc)], outputs: vec![("logits".into(), logits)] })
}

//! Layer helpers for the built-in models: seeded constants, convolution with folded
//! BatchNorm (bias) and activation, global pooling, fully connected layers.

use crate::fill::XorShift;
use anyhow::Result;
use webnn::GraphBuilder;
use webnn::{
    ClampOptions, Conv2dFilterOperandLayout, Conv2dOptions, DataType, GemmOptions, InputOperandLayout, MLNumber,
    Operand, OperandDescriptor, OperatorOptions, Pool2dOptions,
};

/// `OperatorOptions` with a label.
pub fn label(name: &str) -> OperatorOptions {
    OperatorOptions { label: name.to_string() }
}

/// The activation after a convolution.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Act {
    /// None (linear bottlenecks, the last conv of a residual block).
    None,
    /// relu
    Relu,
    /// relu6, as `clamp(0, 6)`
    Relu6,
}

/// A builder with a seeded weight generator and a tensor layout.
pub struct Net<'a> {
    /// The graph builder.
    pub b: &'a mut GraphBuilder,
    rng: XorShift,
    /// Layout of the activations (NCHW or NHWC).
    pub layout: InputOperandLayout,
}

impl<'a> Net<'a> {
    /// A NCHW network whose weights come from `seed`.
    pub fn new(b: &'a mut GraphBuilder, seed: u64) -> Self {
        Net { b, rng: XorShift::new(seed), layout: InputOperandLayout::Nchw }
    }

    /// `n` values uniform in [-scale, scale).
    pub fn values(&mut self, n: usize, scale: f32) -> Vec<f32> {
        (0..n).map(|_| self.rng.next_signed_unit() * scale).collect()
    }

    /// A float32 constant holding `data`.
    pub fn constant(&mut self, shape: &[u32], data: &[f32]) -> Result<Operand> {
        let bytes: Vec<u8> = data.iter().flat_map(|v| v.to_le_bytes()).collect();
        Ok(self.b.constant(&OperandDescriptor::new(DataType::Float32, shape.to_vec()), &bytes)?)
    }

    /// A float32 constant uniform in [-scale, scale). `_name` documents the call site.
    pub fn uniform(&mut self, shape: &[u32], scale: f32, _name: &str) -> Result<Operand> {
        let n = shape.iter().map(|&d| d as usize).product();
        let data = self.values(n, scale);
        self.constant(shape, &data)
    }

    /// A float32 scalar constant.
    pub fn scalar(&mut self, value: f64) -> Result<Operand> {
        Ok(self.b.constant_scalar(DataType::Float32, MLNumber::Double(value))?)
    }

    /// Number of channels of an activation in this network's layout.
    pub fn channels(&self, x: &Operand) -> u32 {
        let s = &x.descriptor().shape;
        match self.layout {
            InputOperandLayout::Nchw => s.get(1).copied().unwrap_or(0),
            InputOperandLayout::Nhwc => s.last().copied().unwrap_or(0),
        }
    }

    /// `k`x`k` convolution (padding `(k - 1) / 2`, "same" for stride 1) with a bias (BatchNorm
    /// folded in) and an activation. Weights are He-uniform over the fan-in (gain 2 before a
    /// rectifier, 1 otherwise) times `weight_gain`; filters are OIHW for NCHW networks, OHWI
    /// (IHWO for depthwise) for NHWC ones, from the same generated values.
    #[allow(clippy::too_many_arguments)]
    pub fn conv(
        &mut self,
        x: &Operand,
        out_c: u32,
        k: u32,
        stride: u32,
        groups: u32,
        act: Act,
        weight_gain: f32,
        name: &str,
    ) -> Result<Operand> {
        let in_c = self.channels(x);
        let in_per_group = in_c / groups.max(1);
        let fan_in = (in_per_group * k * k).max(1) as f32;
        let gain = if act == Act::None { 1.0 } else { 2.0 };
        let bound = (3.0 * gain / fan_in).sqrt() * weight_gain;
        let oihw = [out_c, in_per_group, k, k];
        let weights = self.values(oihw.iter().map(|&d| d as usize).product(), bound);
        let depthwise = groups > 1 && groups == in_c && in_per_group == 1;
        let (filter, filter_layout) = match self.layout {
            InputOperandLayout::Nchw => (self.constant(&oihw, &weights)?, Conv2dFilterOperandLayout::Oihw),
            InputOperandLayout::Nhwc if depthwise => {
                let (shape, data) = permute4(&weights, oihw, [1, 2, 3, 0]);
                (self.constant(&shape, &data)?, Conv2dFilterOperandLayout::Ihwo)
            }
            InputOperandLayout::Nhwc => {
                let (shape, data) = permute4(&weights, oihw, [0, 2, 3, 1]);
                (self.constant(&shape, &data)?, Conv2dFilterOperandLayout::Ohwi)
            }
        };
        let bias_values = self.values(out_c as usize, 0.05);
        let bias = self.constant(&[out_c], &bias_values)?;
        let pad = (k - 1) / 2;
        let options = Conv2dOptions {
            label: name.to_string(),
            padding: Some(vec![pad; 4]),
            strides: Some(vec![stride; 2]),
            dilations: None,
            groups,
            input_layout: self.layout,
            filter_layout,
            bias: Some(bias),
        };
        let y = self.b.conv2d(x, &filter, &options)?;
        self.act(&y, act, &format!("{name}.act"))
    }

    /// Applies an activation.
    pub fn act(&mut self, x: &Operand, act: Act, name: &str) -> Result<Operand> {
        Ok(match act {
            Act::None => x.clone(),
            Act::Relu => self.b.relu(x, &label(name))?,
            Act::Relu6 => self.b.clamp(
                x,
                &ClampOptions {
                    label: name.to_string(),
                    min_value: Some(MLNumber::Double(0.0)),
                    max_value: Some(MLNumber::Double(6.0)),
                },
            )?,
        })
    }

    /// Global average pooling followed by a flatten to [N, C].
    pub fn global_average_pool(&mut self, x: &Operand, name: &str) -> Result<Operand> {
        let pooled = self
            .b
            .average_pool2d(x, &Pool2dOptions { label: name.to_string(), layout: self.layout, ..Default::default() })?;
        let n = x.descriptor().shape.first().copied().unwrap_or(1);
        let c = self.channels(x);
        Ok(self.b.reshape(&pooled, &[n, c], &label(&format!("{name}.flatten")))?)
    }

    /// Fully connected layer as ONNX exporters write it: `gemm(x, W[out, in], bTranspose) + b`.
    pub fn linear(&mut self, x: &Operand, out: u32, name: &str) -> Result<Operand> {
        let in_f = x.descriptor().shape.last().copied().unwrap_or(1);
        let bound = (1.0f32 / in_f.max(1) as f32).sqrt();
        let w = self.uniform(&[out, in_f], bound, name)?;
        let bias = self.uniform(&[out], bound, name)?;
        Ok(self.b.gemm(
            x,
            &w,
            &GemmOptions { label: name.to_string(), c: Some(bias), b_transpose: true, ..Default::default() },
        )?)
    }
}

/// Permutes a 4-D array: output dimension `i` is input dimension `perm[i]`.
pub fn permute4(data: &[f32], shape: [u32; 4], perm: [usize; 4]) -> ([u32; 4], Vec<f32>) {
    let s = shape.map(|d| d as usize);
    let strides = [s[1] * s[2] * s[3], s[2] * s[3], s[3], 1];
    let out_shape = perm.map(|p| shape[p]);
    let o = out_shape.map(|d| d as usize);
    let mut out = Vec::with_capacity(data.len());
    for a in 0..o[0] {
        for b in 0..o[1] {
            for c in 0..o[2] {
                for d in 0..o[3] {
                    let idx = [a, b, c, d];
                    let src: usize = (0..4).map(|i| idx[i] * strides[perm[i]]).sum();
                    out.push(data[src]);
                }
            }
        }
    }
    (out_shape, out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permute4_moves_elements() {
        // OIHW [2, 1, 1, 3] -> OHWI [2, 1, 3, 1]
        let data: Vec<f32> = (0..6).map(|v| v as f32).collect();
        let (shape, out) = permute4(&data, [2, 1, 1, 3], [0, 2, 3, 1]);
        assert_eq!(shape, [2, 1, 3, 1]);
        assert_eq!(out, data);
        // [2, 3, 1, 1] -> [1, 1, 3, 2]: a transpose of a 2x3 matrix
        let (shape, out) = permute4(&data, [2, 3, 1, 1], [2, 3, 1, 0]);
        assert_eq!(shape, [1, 1, 3, 2]);
        assert_eq!(out, vec![0.0, 3.0, 1.0, 4.0, 2.0, 5.0]);
        // identity and an involution
        let data: Vec<f32> = (0..24).map(|v| v as f32).collect();
        assert_eq!(permute4(&data, [2, 3, 2, 2], [0, 1, 2, 3]).1, data);
        let (s1, once) = permute4(&data, [2, 3, 2, 2], [1, 0, 3, 2]);
        assert_eq!(permute4(&once, s1, [1, 0, 3, 2]).1, data);
    }
}

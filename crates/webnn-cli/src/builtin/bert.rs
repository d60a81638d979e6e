//! A BERT-base encoder stack (Devlin et al. 2019), post-LayerNorm as in the original: per
//! layer, multi-head self-attention (Q, K, V projections, scaled dot-product with softmax,
//! output projection), residual add and layerNormalization, then a GELU feed-forward block,
//! residual add and layerNormalization. The input is the embedded sequence
//! (`hidden_states`, [batch, sequence, hidden]); no attention mask.

use super::net::{label, Net};
use super::Shapes;
use crate::loaded::LoadedModel;
use anyhow::{bail, Result};
use webnn::GraphBuilder;
use webnn::{DataType, LayerNormalizationOptions, Operand, OperandDescriptor, TransposeOptions};

/// Sizes of the encoder.
#[derive(Debug, Clone)]
pub struct Config {
    /// Encoder layers.
    pub layers: u32,
    /// Hidden size.
    pub hidden: u32,
    /// Attention heads (hidden must be a multiple).
    pub heads: u32,
    /// Feed-forward size.
    pub intermediate: u32,
    /// Default sequence length.
    pub sequence: u32,
}

impl Default for Config {
    fn default() -> Self {
        Config { layers: 4, hidden: 768, heads: 12, intermediate: 3072, sequence: 128 }
    }
}

/// BERT's initializer range (truncated normal, std 0.02); we draw uniform with that std.
const INIT_BOUND: f32 = 0.02 * 1.732_050_8;

/// Builds the encoder stack.
pub fn build(b: &mut GraphBuilder, shapes: &mut Shapes, config: &Config) -> Result<LoadedModel> {
    let shape = shapes.get("hidden_states", &[1, config.sequence, config.hidden]);
    let (batch, seq) = match shape.as_slice() {
        &[batch, seq, h] if h == config.hidden && batch > 0 && seq > 0 => (batch, seq),
        _ => bail!("hidden_states must have shape [batch, sequence, {}], not {shape:?}", config.hidden),
    };
    if config.heads == 0 || !config.hidden.is_multiple_of(config.heads) {
        bail!("hidden size {} is not a multiple of {} heads", config.hidden, config.heads);
    }
    let mut net = Net::new(b, 0x4245_5254);
    let desc = OperandDescriptor::new(DataType::Float32, shape.clone());
    let mut x = net.b.input("hidden_states", &desc)?;
    for layer in 0..config.layers {
        x = encoder_layer(&mut net, &x, config, batch, seq, &format!("encoder.layer.{layer}"))?;
    }
    Ok(LoadedModel { inputs: vec![("hidden_states".into(), desc)], outputs: vec![("last_hidden_state".into(), x)] })
}

fn encoder_layer(net: &mut Net, x: &Operand, c: &Config, batch: u32, seq: u32, name: &str) -> Result<Operand> {
    let (h, nh) = (c.hidden, c.heads);
    let dh = h / nh;
    let q = dense(net, x, h, h, &format!("{name}.attention.query"))?;
    let k = dense(net, x, h, h, &format!("{name}.attention.key"))?;
    let v = dense(net, x, h, h, &format!("{name}.attention.value"))?;
    // [B, S, H] -> [B, S, nh, dh] -> [B, nh, S, dh] (keys: [B, nh, dh, S])
    let mut heads = |t: &Operand, perm: [u32; 4], what: &str| -> Result<Operand> {
        let r = net.b.reshape(t, &[batch, seq, nh, dh], &label(&format!("{name}.attention.{what}.split")))?;
        Ok(net.b.transpose(
            &r,
            &TransposeOptions { label: format!("{name}.attention.{what}.heads"), permutation: Some(perm.to_vec()) },
        )?)
    };
    let qh = heads(&q, [0, 2, 1, 3], "query")?;
    let kt = heads(&k, [0, 2, 3, 1], "key")?;
    let vh = heads(&v, [0, 2, 1, 3], "value")?;
    let scores = net.b.matmul(&qh, &kt, &label(&format!("{name}.attention.scores")))?;
    let scale = net.scalar(1.0 / (dh as f64).sqrt())?;
    let scaled = net.b.mul(&scores, &scale, &label(&format!("{name}.attention.scale")))?;
    let probs = net.b.softmax(&scaled, 3, &label(&format!("{name}.attention.softmax")))?;
    let context = net.b.matmul(&probs, &vh, &label(&format!("{name}.attention.context")))?;
    let context = net.b.transpose(
        &context,
        &TransposeOptions { label: format!("{name}.attention.merge"), permutation: Some(vec![0, 2, 1, 3]) },
    )?;
    let context = net.b.reshape(&context, &[batch, seq, h], &label(&format!("{name}.attention.flatten")))?;
    let attention = dense(net, &context, h, h, &format!("{name}.attention.output"))?;
    let sum = net.b.add(x, &attention, &label(&format!("{name}.attention.residual")))?;
    let x1 = layer_norm(net, &sum, h, &format!("{name}.attention.layer_norm"))?;

    let up = dense(net, &x1, h, c.intermediate, &format!("{name}.intermediate"))?;
    let up = net.b.gelu(&up, &label(&format!("{name}.intermediate.gelu")))?;
    let down = dense(net, &up, c.intermediate, h, &format!("{name}.output"))?;
    let sum = net.b.add(&x1, &down, &label(&format!("{name}.output.residual")))?;
    layer_norm(net, &sum, h, &format!("{name}.output.layer_norm"))
}

/// `x @ W + b` with W [in, out], as exporters write a Linear on a rank-3 tensor.
fn dense(net: &mut Net, x: &Operand, in_f: u32, out_f: u32, name: &str) -> Result<Operand> {
    let w = net.uniform(&[in_f, out_f], INIT_BOUND, name)?;
    let bias = net.uniform(&[out_f], INIT_BOUND, name)?;
    let y = net.b.matmul(x, &w, &label(&format!("{name}.matmul")))?;
    Ok(net.b.add(&y, &bias, &label(&format!("{name}.bias")))?)
}

/// layerNormalization over the last axis with scale and bias, epsilon 1e-12 as in BERT.
fn layer_norm(net: &mut Net, x: &Operand, h: u32, name: &str) -> Result<Operand> {
    let scale_values: Vec<f32> = net.values(h as usize, 0.1).into_iter().map(|v| 1.0 + v).collect();
    let scale = net.constant(&[h], &scale_values)?;
    let bias = net.uniform(&[h], 0.1, name)?;
    let rank = x.descriptor().shape.len() as u32;
    Ok(net.b.layer_normalization(
        x,
        &LayerNormalizationOptions {
            label: name.to_string(),
            scale: Some(scale),
            bias: Some(bias),
            axes: Some(vec![rank.saturating_sub(1)]),
            epsilon: 1e-12,
        },
    )?)
}

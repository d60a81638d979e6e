//! batchNormalization (§8.9.6, any channel axis), instanceNormalization (§8.9.29, nchw and
//! nhwc) and layerNormalization (§8.9.30, any axes; scale/bias laid out in `axes` order).
//!
//! `y = scale · (x − mean) / sqrt(variance + epsilon) + bias`, scale defaulting to 1 and bias
//! to 0. Statistics (instance/layer) are accumulated in f64 (mean, then the population
//! variance around it); the per-element update runs in f32 with the factor
//! `scale / sqrt(variance + epsilon)` formed in f64. float16 is read as f32 and rounded once.
//! Constant parameters are widened to f32 in `lower`.

use super::gemm_backend::{constant_f32, FloatElem, Scratch};
use super::util::strides;
use super::{In, Kernel, Out};
use half::f16;
use rayon::prelude::*;
use webnn_core::graph::{Attrs, Operation};
use webnn_core::types::InputOperandLayout;
use webnn_core::{DataType, Error, Graph, Result};

/// Channels handled together in the channels-last statistics loop.
const LANES: usize = 64;

/// An optional parameter operand (mean, variance, scale, bias): its slot, and its values
/// widened to f32 in `lower` when it is a constant.
struct Param {
    slot: usize,
    constant: Option<Vec<f32>>,
}

impl Param {
    fn new(op: &Operation, graph: &Graph, slot: usize) -> Option<Param> {
        let id = op.input(slot)?;
        Some(Param { slot, constant: constant_f32(graph, id) })
    }
}

/// Read access to a parameter's values during a dispatch.
#[derive(Clone, Copy)]
enum Values<'a> {
    F32(&'a [f32]),
    F16(&'a [f16]),
}

impl Values<'_> {
    #[inline(always)]
    fn get(&self, i: usize) -> f32 {
        match self {
            Values::F32(v) => v[i],
            Values::F16(v) => v[i].to_f32(),
        }
    }
}

fn values<'a>(data_type: DataType, inputs: &[Option<In<'a>>], p: &'a Option<Param>) -> Option<Values<'a>> {
    let p = p.as_ref()?;
    if let Some(c) = &p.constant {
        return Some(Values::F32(c));
    }
    let i = inputs.get(p.slot).copied().flatten()?;
    Some(if data_type == DataType::Float16 { Values::F16(i.slice()) } else { Values::F32(i.slice()) })
}

/// Mean and population variance (f64) of `n` values given by `get`.
#[inline]
fn moments(n: usize, get: impl Fn(usize) -> f32) -> (f64, f64) {
    if n == 0 {
        return (0.0, 0.0);
    }
    let mut s = 0f64;
    for i in 0..n {
        s += get(i) as f64;
    }
    let mean = s / n as f64;
    let mut v = 0f64;
    for i in 0..n {
        let d = get(i) as f64 - mean;
        v += d * d;
    }
    (mean, v / n as f64)
}

// ---------------------------------------------------------------------------------------
// batchNormalization

struct BatchNormKernel {
    data_type: DataType,
    epsilon: f64,
    channels: usize,
    inner: usize,
    /// mean, variance, scale, bias.
    params: [Option<Param>; 4],
    /// Per channel: (mean, factor, bias).
    coef: Scratch,
}

/// Lowers batchNormalization.
pub fn lower_batch_norm(op: &Operation, graph: &Graph) -> Result<Box<dyn Kernel>> {
    let Attrs::BatchNormalization { axis, epsilon } = op.attrs else {
        return Err(Error::operation("batchNormalization: missing attributes"));
    };
    let (Some(x), Some(_), Some(_)) = (op.input(0), op.input(1), op.input(2)) else {
        return Err(Error::operation("batchNormalization: missing operand"));
    };
    let shape = &graph.descriptor(x).shape;
    let axis = axis as usize;
    if axis >= shape.len() {
        return Err(Error::operation("batchNormalization: axis out of range"));
    }
    Ok(Box::new(BatchNormKernel {
        data_type: graph.descriptor(op.outputs[0]).data_type,
        epsilon,
        channels: shape[axis] as usize,
        inner: shape[axis + 1..].iter().map(|&d| d as usize).product(),
        params: std::array::from_fn(|i| Param::new(op, graph, i + 1)),
        coef: Scratch::default(),
    }))
}

/// `out = (x − k0) · k1 + k2` per channel, `x` as [outer, channels, inner].
fn affine<T: FloatElem>(x: &[T], coef: &[f32], channels: usize, inner: usize, out: &mut [T]) {
    let block = (channels * inner).max(1);
    out.par_chunks_mut(block).zip(x.par_chunks(block)).for_each(|(o, xs)| {
        if inner == 1 {
            for (k, (ov, &xv)) in coef.chunks_exact(3).zip(o.iter_mut().zip(xs)) {
                *ov = T::from_f32((xv.to_f32() - k[0]) * k[1] + k[2]);
            }
        } else {
            for (ch, k) in coef.chunks_exact(3).enumerate().take(channels) {
                for (ov, &xv) in o[ch * inner..][..inner].iter_mut().zip(&xs[ch * inner..][..inner]) {
                    *ov = T::from_f32((xv.to_f32() - k[0]) * k[1] + k[2]);
                }
            }
        }
    });
}

impl Kernel for BatchNormKernel {
    fn run(&self, inputs: &[Option<In<'_>>], outputs: &mut [Out<'_>]) {
        let Some(x) = inputs[0] else { return };
        let dt = self.data_type;
        let [Some(mean), Some(var)] = [values(dt, inputs, &self.params[0]), values(dt, inputs, &self.params[1])] else {
            return;
        };
        let scale = values(dt, inputs, &self.params[2]);
        let bias = values(dt, inputs, &self.params[3]);
        let c = self.channels;
        let mut coef = self.coef.get(3 * c);
        for ch in 0..c {
            let s = scale.map_or(1.0, |s| s.get(ch) as f64);
            coef[ch * 3] = mean.get(ch);
            coef[ch * 3 + 1] = (s / (var.get(ch) as f64 + self.epsilon).sqrt()) as f32;
            coef[ch * 3 + 2] = bias.map_or(0.0, |b| b.get(ch));
        }
        let out = &mut outputs[0];
        match dt {
            DataType::Float16 => affine::<f16>(x.slice(), &coef, c, self.inner, out.slice_mut()),
            _ => affine::<f32>(x.slice(), &coef, c, self.inner, out.slice_mut()),
        }
    }
}

// ---------------------------------------------------------------------------------------
// instanceNormalization

struct InstanceNormKernel {
    data_type: DataType,
    epsilon: f64,
    n: usize,
    c: usize,
    /// Spatial elements per channel (H·W).
    hw: usize,
    nhwc: bool,
    /// scale, bias.
    params: [Option<Param>; 2],
    /// nhwc: per (n, c): (mean, factor, bias).
    coef: Scratch,
}

/// Lowers instanceNormalization.
pub fn lower_instance_norm(op: &Operation, graph: &Graph) -> Result<Box<dyn Kernel>> {
    let Attrs::InstanceNormalization { epsilon, layout } = op.attrs else {
        return Err(Error::operation("instanceNormalization: missing attributes"));
    };
    let Some(x) = op.input(0) else {
        return Err(Error::operation("instanceNormalization: missing input"));
    };
    let s: Vec<usize> = graph.descriptor(x).shape.iter().map(|&d| d as usize).collect();
    if s.len() != 4 {
        return Err(Error::operation("instanceNormalization: input must have rank 4"));
    }
    let nhwc = layout == InputOperandLayout::Nhwc;
    let (n, c, hw) = if nhwc { (s[0], s[3], s[1] * s[2]) } else { (s[0], s[1], s[2] * s[3]) };
    Ok(Box::new(InstanceNormKernel {
        data_type: graph.descriptor(op.outputs[0]).data_type,
        epsilon,
        n,
        c,
        hw,
        nhwc,
        params: [Param::new(op, graph, 1), Param::new(op, graph, 2)],
        coef: Scratch::default(),
    }))
}

impl InstanceNormKernel {
    fn compute<T: FloatElem>(&self, x: &[T], scale: Option<Values<'_>>, bias: Option<Values<'_>>, out: &mut [T]) {
        let (c, hw, eps) = (self.c, self.hw, self.epsilon);
        let factor = |ch: usize, var: f64| (scale.map_or(1.0, |s| s.get(ch) as f64) / (var + eps).sqrt()) as f32;
        if !self.nhwc {
            out.par_chunks_mut(hw.max(1)).zip(x.par_chunks(hw.max(1))).enumerate().for_each(|(p, (o, xs))| {
                let ch = p % c;
                let (mean, var) = moments(hw, |i| xs[i].to_f32());
                let (m, f, b) = (mean as f32, factor(ch, var), bias.map_or(0.0, |b| b.get(ch)));
                for (ov, &xv) in o.iter_mut().zip(xs) {
                    *ov = T::from_f32((xv.to_f32() - m) * f + b);
                }
            });
            return;
        }
        // Channels-last: statistics per (image, block of LANES channels), then one affine pass.
        let mut coef = self.coef.get(self.n * c * 3);
        coef.par_chunks_mut(c * 3).enumerate().for_each(|(n, kn)| {
            let xn = &x[n * hw * c..][..hw * c];
            kn.par_chunks_mut(LANES * 3).enumerate().for_each(|(blk, k)| {
                let c0 = blk * LANES;
                let lanes = k.len() / 3;
                let mut sum = [0f64; LANES];
                for px in xn.chunks_exact(c) {
                    for (s, &v) in sum.iter_mut().zip(&px[c0..c0 + lanes]) {
                        *s += v.to_f32() as f64;
                    }
                }
                let mean: [f64; LANES] = std::array::from_fn(|i| sum[i] / hw.max(1) as f64);
                let mut var = [0f64; LANES];
                for px in xn.chunks_exact(c) {
                    for ((s, &v), &m) in var.iter_mut().zip(&px[c0..c0 + lanes]).zip(&mean) {
                        let d = v.to_f32() as f64 - m;
                        *s += d * d;
                    }
                }
                for i in 0..lanes {
                    let ch = c0 + i;
                    k[i * 3] = mean[i] as f32;
                    k[i * 3 + 1] = factor(ch, var[i] / hw.max(1) as f64);
                    k[i * 3 + 2] = bias.map_or(0.0, |b| b.get(ch));
                }
            });
        });
        let coef = &coef[..];
        out.par_chunks_mut((hw * c).max(1)).zip(x.par_chunks((hw * c).max(1))).enumerate().for_each(|(n, (o, xs))| {
            let kn = &coef[n * c * 3..][..c * 3];
            o.par_chunks_mut(c * 256).zip(xs.par_chunks(c * 256)).for_each(|(o, xs)| {
                for (opx, xpx) in o.chunks_exact_mut(c).zip(xs.chunks_exact(c)) {
                    for ((ov, &xv), k) in opx.iter_mut().zip(xpx).zip(kn.chunks_exact(3)) {
                        *ov = T::from_f32((xv.to_f32() - k[0]) * k[1] + k[2]);
                    }
                }
            });
        });
    }
}

impl Kernel for InstanceNormKernel {
    fn run(&self, inputs: &[Option<In<'_>>], outputs: &mut [Out<'_>]) {
        let Some(x) = inputs[0] else { return };
        let dt = self.data_type;
        let scale = values(dt, inputs, &self.params[0]);
        let bias = values(dt, inputs, &self.params[1]);
        let out = &mut outputs[0];
        match dt {
            DataType::Float16 => self.compute::<f16>(x.slice(), scale, bias, out.slice_mut()),
            _ => self.compute::<f32>(x.slice(), scale, bias, out.slice_mut()),
        }
    }
}

// ---------------------------------------------------------------------------------------
// layerNormalization

struct LayerNormKernel {
    data_type: DataType,
    epsilon: f64,
    /// Offsets (relative to a kept position) of the reduced elements, enumerated in `axes`
    /// order: element j pairs with scale[j] and bias[j].
    red: Vec<usize>,
    /// `red[j] == j`: rows are contiguous and in scale order.
    identity: bool,
    /// The reduced axes are the trailing dimensions: each kept position owns a contiguous row.
    trailing: bool,
    /// Offsets of the kept positions (only when not `trailing`).
    kept: Vec<usize>,
    /// scale, bias.
    params: [Option<Param>; 2],
}

/// Offsets of every index of `dims` (given as (size, stride) pairs, outermost first).
fn offsets(dims: &[(usize, usize)]) -> Vec<usize> {
    let mut out = vec![0usize];
    for &(size, stride) in dims {
        let mut next = Vec::with_capacity(out.len() * size);
        for &o in &out {
            for i in 0..size {
                next.push(o + i * stride);
            }
        }
        out = next;
    }
    out
}

/// Lowers layerNormalization.
pub fn lower_layer_norm(op: &Operation, graph: &Graph) -> Result<Box<dyn Kernel>> {
    let Attrs::LayerNormalization { ref axes, epsilon } = op.attrs else {
        return Err(Error::operation("layerNormalization: missing attributes"));
    };
    let Some(x) = op.input(0) else {
        return Err(Error::operation("layerNormalization: missing input"));
    };
    let shape = &graph.descriptor(x).shape;
    let rank = shape.len();
    let st = strides(shape);
    let axes: Vec<usize> = axes.iter().map(|&a| a as usize).collect();
    if axes.iter().any(|&a| a >= rank) {
        return Err(Error::operation("layerNormalization: axis out of range"));
    }
    let red = offsets(&axes.iter().map(|&a| (shape[a] as usize, st[a])).collect::<Vec<_>>());
    let identity = red.iter().enumerate().all(|(j, &o)| j == o);
    let mut sorted = axes.clone();
    sorted.sort_unstable();
    let trailing = sorted.iter().enumerate().all(|(i, &a)| a == rank - sorted.len() + i);
    let kept = if trailing {
        Vec::new()
    } else {
        offsets(&(0..rank).filter(|d| !axes.contains(d)).map(|d| (shape[d] as usize, st[d])).collect::<Vec<_>>())
    };
    Ok(Box::new(LayerNormKernel {
        data_type: graph.descriptor(op.outputs[0]).data_type,
        epsilon,
        red,
        identity,
        trailing,
        kept,
        params: [Param::new(op, graph, 1), Param::new(op, graph, 2)],
    }))
}

impl LayerNormKernel {
    /// Normalizes the reduced elements at `base` (offsets `red`), reading `x`, writing via `put`.
    #[inline]
    fn stats<T: FloatElem>(&self, get: impl Fn(usize) -> T) -> (f32, f32) {
        let (mean, var) = moments(self.red.len(), |j| get(j).to_f32());
        (mean as f32, (1.0 / (var + self.epsilon).sqrt()) as f32)
    }

    fn compute<T: FloatElem>(&self, x: &[T], scale: Option<Values<'_>>, bias: Option<Values<'_>>, out: &mut [T]) {
        let r = self.red.len();
        let y = |j: usize, xv: T, mean: f32, inv: f32| -> T {
            let s = scale.map_or(1.0, |s| s.get(j));
            let b = bias.map_or(0.0, |b| b.get(j));
            T::from_f32((xv.to_f32() - mean) * inv * s + b)
        };
        if self.trailing {
            out.par_chunks_mut(r).zip(x.par_chunks(r)).for_each(|(o, xs)| {
                if self.identity {
                    let (mean, inv) = self.stats(|j| xs[j]);
                    if let (Some(Values::F32(s)), Some(Values::F32(b))) = (scale, bias) {
                        for (((ov, &xv), &sv), &bv) in o.iter_mut().zip(xs).zip(s).zip(b) {
                            *ov = T::from_f32((xv.to_f32() - mean) * inv * sv + bv);
                        }
                    } else {
                        for (j, (ov, &xv)) in o.iter_mut().zip(xs).enumerate() {
                            *ov = y(j, xv, mean, inv);
                        }
                    }
                } else {
                    let (mean, inv) = self.stats(|j| xs[self.red[j]]);
                    for (j, &off) in self.red.iter().enumerate() {
                        o[off] = y(j, xs[off], mean, inv);
                    }
                }
            });
            return;
        }
        for &base in &self.kept {
            let (mean, inv) = self.stats(|j| x[base + self.red[j]]);
            for (j, &off) in self.red.iter().enumerate() {
                out[base + off] = y(j, x[base + off], mean, inv);
            }
        }
    }
}

impl Kernel for LayerNormKernel {
    fn run(&self, inputs: &[Option<In<'_>>], outputs: &mut [Out<'_>]) {
        let Some(x) = inputs[0] else { return };
        let dt = self.data_type;
        let scale = values(dt, inputs, &self.params[0]);
        let bias = values(dt, inputs, &self.params[1]);
        let out = &mut outputs[0];
        match dt {
            DataType::Float16 => self.compute::<f16>(x.slice(), scale, bias, out.slice_mut()),
            _ => self.compute::<f32>(x.slice(), scale, bias, out.slice_mut()),
        }
    }
}

#[cfg(test)]
#[path = "normalization_tests.rs"]
mod tests;

//! batchNormalization ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-batchnorm), any
//! channel axis), instanceNormalization
//! ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-instancenorm), nchw and nhwc) and
//! layerNormalization ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-layernorm), any axes;
//! scale/bias laid out in `axes` order).
//!
//! `y = scale · (x − mean) / sqrt(variance + epsilon) + bias`, scale defaulting to 1 and bias
//! to 0. Statistics (instance/layer) are accumulated in f64 (mean, then the population
//! variance around it); the per-element update runs in f32 with the factor
//! `scale / sqrt(variance + epsilon)` formed in f64. float16 is read as f32 and rounded once.
//! Constant parameters are widened to f32 in `lower`.

use super::constants::constant_f32;
use super::float_elem::FloatElem;
use super::scratch::Scratch;
use super::simd::simd;
use super::util::strides;
use super::{In, Kernel, Out};
use half::f16;
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

/// Rejects (instead of indexing out of bounds later) parameters whose element count is not
/// `count`; the builder's validation guarantees it is.
fn check_params(graph: &Graph, op: &Operation, slots: &[usize], count: usize) -> Result<()> {
    for &slot in slots {
        if op.input(slot).is_some_and(|id| graph.descriptor(id).len() != count) {
            return Err(Error::operation("normalization: parameter size does not match the input"));
        }
    }
    Ok(())
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

/// Mean and population variance (f64) of a contiguous slice, with independent accumulators so the loops vectorize.
#[inline(always)]
fn moments_slice<T: FloatElem>(xs: &[T]) -> (f64, f64) {
    const L: usize = 8;
    let n = xs.len();
    if n == 0 {
        return (0.0, 0.0);
    }
    let chunks = xs.chunks_exact(L);
    let rem = chunks.remainder();
    let mut acc = [0f64; L];
    for c in chunks.clone() {
        for (a, v) in acc.iter_mut().zip(c) {
            *a += v.to_f32() as f64;
        }
    }
    let mut s: f64 = acc.iter().sum::<f64>() + rem.iter().map(|v| v.to_f32() as f64).sum::<f64>();
    let mean = s / n as f64;
    let mut acc = [0f64; L];
    for c in chunks {
        for (a, v) in acc.iter_mut().zip(c) {
            let d = v.to_f32() as f64 - mean;
            *a += d * d;
        }
    }
    s = acc.iter().sum::<f64>();
    for v in rem {
        let d = v.to_f32() as f64 - mean;
        s += d * d;
    }
    (mean, s / n as f64)
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
    check_params(graph, op, &[1, 2, 3, 4], shape[axis] as usize)?;
    Ok(Box::new(BatchNormKernel {
        data_type: graph.descriptor(op.outputs[0]).data_type,
        epsilon,
        channels: shape[axis] as usize,
        inner: shape[axis + 1..].iter().map(|&d| d as usize).product(),
        params: std::array::from_fn(|i| Param::new(op, graph, i + 1)),
        coef: Scratch::default(),
    }))
}

/// One [channels, inner] block of [`affine`].
#[inline(always)]
fn affine_block<T: FloatElem>(o: &mut [T], xs: &[T], coef: &[f32], channels: usize, inner: usize) {
    if inner == 1 {
        for (k, (ov, &xv)) in coef.chunks_exact(3).zip(o.iter_mut().zip(xs)) {
            *ov = T::from_f32((xv.to_f32() - k[0]) * k[1] + k[2]);
        }
    } else {
        for (ch, k) in coef.chunks_exact(3).enumerate().take(channels) {
            let (m, f, b) = (k[0], k[1], k[2]);
            for (ov, &xv) in o[ch * inner..][..inner].iter_mut().zip(&xs[ch * inner..][..inner]) {
                *ov = T::from_f32((xv.to_f32() - m) * f + b);
            }
        }
    }
}

/// `out = (x − k0) · k1 + k2` per channel, `x` as [outer, channels, inner].
fn affine<T: FloatElem>(x: &[T], coef: &[f32], channels: usize, inner: usize, out: &mut [T]) {
    let block = (channels * inner).max(1);
    crate::par::zip_chunks(out, block, x, block, |_, o, xs| {
        simd(
            #[inline(always)]
            || affine_block(o, xs, coef, channels, inner),
        )
    });
}

impl Kernel for BatchNormKernel {
    fn run(&self, inputs: &[Option<In<'_>>], outputs: &mut [Out<'_>]) -> webnn_core::Result<()> {
        let Some(x) = inputs[0] else { return Ok(()) };
        let dt = self.data_type;
        let [Some(mean), Some(var)] = [values(dt, inputs, &self.params[0]), values(dt, inputs, &self.params[1])] else {
            return Ok(());
        };
        let scale = values(dt, inputs, &self.params[2]);
        let bias = values(dt, inputs, &self.params[3]);
        let c = self.channels;
        let mut coef = self.coef.get(3 * c)?;
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
        Ok(())
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
    check_params(graph, op, &[1, 2], c)?;
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

/// Normalizes one contiguous group (an nchw plane): `y = (x − mean) · scale/sqrt(var + eps) + bias`.
#[inline(always)]
fn normalize_slice<T: FloatElem>(o: &mut [T], xs: &[T], scale: f64, bias: f32, eps: f64) {
    let (mean, var) = moments_slice(xs);
    let (m, f) = (mean as f32, (scale / (var + eps).sqrt()) as f32);
    for (ov, &xv) in o.iter_mut().zip(xs) {
        *ov = T::from_f32((xv.to_f32() - m) * f + bias);
    }
}

/// Channels-last statistics of channels `c0..c0 + k.len()/3` of one image `xn` ([hw, c]):
/// writes (mean, factor, bias) per channel into `k`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn channel_stats<T: FloatElem>(
    xn: &[T],
    c: usize,
    c0: usize,
    eps: f64,
    scale: Option<Values<'_>>,
    bias: Option<Values<'_>>,
    k: &mut [f32],
) {
    let lanes = k.len() / 3;
    let hw = (xn.len() / c.max(1)).max(1) as f64;
    let mut sum = [0f64; LANES];
    for px in xn.chunks_exact(c) {
        for (s, &v) in sum.iter_mut().zip(&px[c0..c0 + lanes]) {
            *s += v.to_f32() as f64;
        }
    }
    let mean: [f64; LANES] = std::array::from_fn(|i| sum[i] / hw);
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
        k[i * 3 + 1] = (scale.map_or(1.0, |s| s.get(ch) as f64) / (var[i] / hw + eps).sqrt()) as f32;
        k[i * 3 + 2] = bias.map_or(0.0, |b| b.get(ch));
    }
}

/// Applies per-channel (mean, factor, bias) to channels-last pixels.
#[inline(always)]
fn apply_pixels<T: FloatElem>(o: &mut [T], xs: &[T], kn: &[f32], c: usize) {
    for (opx, xpx) in o.chunks_exact_mut(c).zip(xs.chunks_exact(c)) {
        for ((ov, &xv), k) in opx.iter_mut().zip(xpx).zip(kn.chunks_exact(3)) {
            *ov = T::from_f32((xv.to_f32() - k[0]) * k[1] + k[2]);
        }
    }
}

impl InstanceNormKernel {
    fn compute<T: FloatElem>(
        &self,
        x: &[T],
        scale: Option<Values<'_>>,
        bias: Option<Values<'_>>,
        out: &mut [T],
    ) -> webnn_core::Result<()> {
        let (c, hw, eps) = (self.c, self.hw, self.epsilon);
        if !self.nhwc {
            crate::par::zip_chunks(out, hw.max(1), x, hw.max(1), |p, o, xs| {
                let ch = p % c;
                let (s, b) = (scale.map_or(1.0, |s| s.get(ch) as f64), bias.map_or(0.0, |b| b.get(ch)));
                simd(
                    #[inline(always)]
                    || normalize_slice(o, xs, s, b, eps),
                )
            });
            return Ok(());
        }
        // Channels-last: statistics per (image, block of LANES channels), then one affine pass.
        let mut coef = self.coef.get(self.n * c * 3)?;
        crate::par::chunks(&mut coef, c * 3, |n, kn| {
            let xn = &x[n * hw * c..][..hw * c];
            crate::par::chunks(kn, LANES * 3, |blk, k| {
                simd(
                    #[inline(always)]
                    || channel_stats(xn, c, blk * LANES, eps, scale, bias, k),
                )
            });
        });
        let coef = &coef[..];
        crate::par::zip_chunks(out, (hw * c).max(1), x, (hw * c).max(1), |n, o, xs| {
            let kn = &coef[n * c * 3..][..c * 3];
            crate::par::zip_chunks(o, c * 256, xs, c * 256, |_, o, xs| {
                simd(
                    #[inline(always)]
                    || apply_pixels(o, xs, kn, c),
                )
            });
        });
        Ok(())
    }
}

impl Kernel for InstanceNormKernel {
    fn run(&self, inputs: &[Option<In<'_>>], outputs: &mut [Out<'_>]) -> webnn_core::Result<()> {
        let Some(x) = inputs[0] else { return Ok(()) };
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
    /// (size, stride) of the reduced axes in `axes` order: element j of a group (in that
    /// order) pairs with scale[j] and bias[j].
    red: Vec<(usize, usize)>,
    /// Number of elements of a group.
    red_len: usize,
    /// The group's element j sits at offset j: rows are contiguous and in scale order.
    identity: bool,
    /// The reduced axes are the trailing dimensions: each kept position owns a contiguous row.
    trailing: bool,
    /// (size, stride) of the kept axes, outermost first (used when not `trailing`).
    kept: Vec<(usize, usize)>,
    /// scale, bias.
    params: [Option<Param>; 2],
}

/// The offsets of every index of `dims` ((size, stride) pairs, outermost first, at most 8),
/// in row-major order, computed as they are visited: a table would hold one entry per
/// element (16 GiB for an input of 2^31 elements).
fn offsets(dims: &[(usize, usize)]) -> impl Iterator<Item = usize> + '_ {
    let total: usize = dims.iter().map(|d| d.0).product();
    let mut index = [0usize; 8];
    let mut offset = 0usize;
    (0..total).map(move |_| {
        let current = offset;
        for (k, &(size, stride)) in dims.iter().enumerate().rev() {
            index[k] += 1;
            offset += stride;
            if index[k] < size {
                break;
            }
            offset -= stride * size;
            index[k] = 0;
        }
        current
    })
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
    if axes.iter().any(|&a| a >= rank) || rank > 8 {
        return Err(Error::operation("layerNormalization: axis out of range"));
    }
    let red: Vec<(usize, usize)> = axes.iter().map(|&a| (shape[a] as usize, st[a])).collect();
    let red_len = red.iter().map(|d| d.0).product();
    check_params(graph, op, &[1, 2], red_len)?;
    // Offsets j = 0, 1, ... in order: walking the axes from the last, each (of size > 1) has
    // the stride of the elements after it.
    let mut expected = 1;
    let mut identity = true;
    for &(size, stride) in red.iter().rev() {
        if size > 1 && stride != expected {
            identity = false;
        }
        expected *= size;
    }
    let mut sorted = axes.clone();
    sorted.sort_unstable();
    let trailing = sorted.iter().enumerate().all(|(i, &a)| a == rank - sorted.len() + i);
    let kept = (0..rank).filter(|d| !axes.contains(d)).map(|d| (shape[d] as usize, st[d])).collect();
    Ok(Box::new(LayerNormKernel {
        data_type: graph.descriptor(op.outputs[0]).data_type,
        epsilon,
        red,
        red_len,
        identity,
        trailing,
        kept,
        params: [Param::new(op, graph, 1), Param::new(op, graph, 2)],
    }))
}

impl LayerNormKernel {
    /// One contiguous row whose elements are in scale order.
    #[inline(always)]
    fn row_identity<T: FloatElem>(&self, o: &mut [T], xs: &[T], scale: Option<Values<'_>>, bias: Option<Values<'_>>) {
        let (mean, var) = moments_slice(xs);
        let (mean, inv) = (mean as f32, (1.0 / (var + self.epsilon).sqrt()) as f32);
        match (scale, bias) {
            (Some(Values::F32(s)), Some(Values::F32(b))) => {
                for (((ov, &xv), &sv), &bv) in o.iter_mut().zip(xs).zip(s).zip(b) {
                    *ov = T::from_f32((xv.to_f32() - mean) * inv * sv + bv);
                }
            }
            (None, None) => {
                for (ov, &xv) in o.iter_mut().zip(xs) {
                    *ov = T::from_f32((xv.to_f32() - mean) * inv);
                }
            }
            _ => {
                for (j, (ov, &xv)) in o.iter_mut().zip(xs).enumerate() {
                    let s = scale.map_or(1.0, |s| s.get(j));
                    let b = bias.map_or(0.0, |b| b.get(j));
                    *ov = T::from_f32((xv.to_f32() - mean) * inv * s + b);
                }
            }
        }
    }

    /// One group at `base` whose elements sit at offsets `red` (in scale order).
    #[inline(always)]
    fn group<T: FloatElem>(
        &self,
        x: &[T],
        base: usize,
        out: &mut [T],
        scale: Option<Values<'_>>,
        bias: Option<Values<'_>>,
    ) {
        // The two passes of `moments`, over offsets computed as they are visited.
        let n = self.red_len.max(1) as f64;
        let mean = offsets(&self.red).map(|off| x[base + off].to_f32() as f64).sum::<f64>() / n;
        let var = offsets(&self.red)
            .map(|off| {
                let d = x[base + off].to_f32() as f64 - mean;
                d * d
            })
            .sum::<f64>()
            / n;
        let (mean, inv) = (mean as f32, (1.0 / (var + self.epsilon).sqrt()) as f32);
        for (j, off) in offsets(&self.red).enumerate() {
            let s = scale.map_or(1.0, |s| s.get(j));
            let b = bias.map_or(0.0, |b| b.get(j));
            out[base + off] = T::from_f32((x[base + off].to_f32() - mean) * inv * s + b);
        }
    }

    fn compute<T: FloatElem>(&self, x: &[T], scale: Option<Values<'_>>, bias: Option<Values<'_>>, out: &mut [T]) {
        let r = self.red_len;
        if self.trailing {
            crate::par::zip_chunks(out, r, x, r, |_, o, xs| {
                if self.identity {
                    simd(
                        #[inline(always)]
                        || self.row_identity(o, xs, scale, bias),
                    )
                } else {
                    simd(
                        #[inline(always)]
                        || self.group(xs, 0, o, scale, bias),
                    )
                }
            });
            return;
        }
        simd(
            #[inline(always)]
            || {
                for base in offsets(&self.kept) {
                    self.group(x, base, out, scale, bias);
                }
            },
        );
    }
}

impl Kernel for LayerNormKernel {
    fn run(&self, inputs: &[Option<In<'_>>], outputs: &mut [Out<'_>]) -> webnn_core::Result<()> {
        let Some(x) = inputs[0] else { return Ok(()) };
        let dt = self.data_type;
        let scale = values(dt, inputs, &self.params[0]);
        let bias = values(dt, inputs, &self.params[1]);
        let out = &mut outputs[0];
        match dt {
            DataType::Float16 => self.compute::<f16>(x.slice(), scale, bias, out.slice_mut()),
            _ => self.compute::<f32>(x.slice(), scale, bias, out.slice_mut()),
        }
        Ok(())
    }
}

#[cfg(test)]
#[path = "normalization_tests.rs"]
mod tests;

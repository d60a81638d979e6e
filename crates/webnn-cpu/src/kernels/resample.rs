//! resample2d ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-resample2d-method)):
//! nearest-neighbor and linear over any two distinct axes of a 4-D tensor, with the spec's
//! half-pixel transform `in = clamp((out + 0.5) / scale − 0.5, 0, inSize − 1)`; nearest takes
//! `ceil(in − 0.5)`.
//!
//! The scale of an axis is `scales[i]` when the caller gave `scales` (and no `sizes`), else
//! `outSize / inSize`. The WPT vectors only use integral scales, where both agree; the given
//! scale matches ONNX Resize and the spec's "outputSize given by scales" wording.
//!
//! All index and weight tables are built in `lower`; a dispatch is table lookups only.
//! Linear on float16 computes in f32 and rounds once; on int8/uint8 it computes in f32,
//! rounds half to even and saturates (decisions.md D17).

use super::simd::simd;
use super::util::strides;
use super::{In, Kernel, Out};
use half::f16;
use webnn_core::graph::{Attrs, Operation};
use webnn_core::types::InterpolationMode;
use webnn_core::{DataType, Error, Graph, Result};

/// One output index along one dimension: the two input offsets (elements, already times
/// the input stride) and the weight of the second.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tap {
    /// Offset of the lower neighbour.
    pub lo: usize,
    /// Offset of the upper neighbour.
    pub hi: usize,
    /// Weight of `hi` (`lo` gets `1 − t`).
    pub t: f32,
}

/// The input coordinate of `out` along an axis (half-pixel, clamped).
pub fn source_coordinate(out: usize, scale: f64, in_size: usize) -> f64 {
    let c = (out as f64 + 0.5) / scale - 0.5;
    c.clamp(0.0, (in_size - 1) as f64)
}

/// Taps of one resampled axis.
pub fn axis_taps(mode: InterpolationMode, in_size: usize, out_size: usize, scale: f64, stride: usize) -> Vec<Tap> {
    (0..out_size)
        .map(|o| {
            let c = source_coordinate(o, scale, in_size);
            match mode {
                InterpolationMode::NearestNeighbor => {
                    let i = ((c - 0.5).ceil().max(0.0) as usize).min(in_size - 1);
                    Tap { lo: i * stride, hi: i * stride, t: 0.0 }
                }
                InterpolationMode::Linear => {
                    let i0 = c.floor() as usize;
                    let i1 = (c.ceil() as usize).min(in_size - 1);
                    Tap { lo: i0 * stride, hi: i1 * stride, t: (c - i0 as f64) as f32 }
                }
            }
        })
        .collect()
}

/// Element conversion for linear interpolation.
pub trait Interp: Copy + Send + Sync + bytemuck::Pod {
    /// To f32.
    fn to_f32(self) -> f32;
    /// From f32: floats round to nearest, 8-bit integers round half to even and saturate.
    fn from_f32(v: f32) -> Self;
}

/// Interp for each type from its conversions to and from f32.
macro_rules! interp {
    ($($t:ty: |$x:ident| $to:expr, |$v:ident| $from:expr;)+) => {$(
        impl Interp for $t {
            #[inline(always)]
            fn to_f32(self) -> f32 {
                let $x = self;
                $to
            }
            #[inline(always)]
            fn from_f32($v: f32) -> $t {
                $from
            }
        }
    )+};
}
// 8-bit integers round half to even and saturate (`as` saturates, NaN → 0; decisions.md D17).
interp! {
    f32: |x| x, |v| v;
    f16: |x| x.to_f32(), |v| f16::from_f32(v);
    i8: |x| x as f32, |v| v.round_ties_even() as i8;
    u8: |x| x as f32, |v| v.round_ties_even() as u8;
}

struct ResampleKernel {
    data_type: DataType,
    linear: bool,
    /// Taps per dimension (identity taps on the two other dimensions).
    taps: [Vec<Tap>; 4],
    /// The resampled axes: [y (axes[0]), x (axes[1])].
    axes: [usize; 2],
    out_shape: [usize; 4],
}

/// Lowers resample2d.
pub fn lower(op: &Operation, graph: &Graph) -> Result<Box<dyn Kernel>> {
    let Attrs::Resample2d { mode, scales, axes } = op.attrs else {
        return Err(Error::operation("resample2d: missing attributes"));
    };
    let Some(x) = op.input(0) else {
        return Err(Error::operation("resample2d: missing input"));
    };
    let xd = graph.descriptor(x);
    let od = graph.descriptor(op.outputs[0]);
    let axes = [axes[0] as usize, axes[1] as usize];
    if xd.shape.len() != 4 || od.shape.len() != 4 || axes[0] >= 4 || axes[1] >= 4 || axes[0] == axes[1] {
        return Err(Error::operation("resample2d: rank-4 operands and two distinct axes expected"));
    }
    let in_shape: Vec<usize> = xd.shape.iter().map(|&d| d as usize).collect();
    let out_shape: [usize; 4] = std::array::from_fn(|d| od.shape[d] as usize);
    let in_strides = strides(&xd.shape);
    let taps: [Vec<Tap>; 4] = std::array::from_fn(|d| match axes.iter().position(|&a| a == d) {
        Some(i) => {
            let scale = match scales {
                Some(s) => s[i] as f64,
                None => out_shape[d] as f64 / in_shape[d] as f64,
            };
            axis_taps(mode, in_shape[d], out_shape[d], scale, in_strides[d])
        }
        None => (0..out_shape[d]).map(|i| Tap { lo: i * in_strides[d], hi: i * in_strides[d], t: 0.0 }).collect(),
    });
    Ok(Box::new(ResampleKernel {
        data_type: od.data_type,
        linear: mode == InterpolationMode::Linear,
        taps,
        axes,
        out_shape,
    }))
}

#[inline(always)]
fn lerp(a: f32, b: f32, t: f32) -> f32 {
    a * (1.0 - t) + b * t
}

impl ResampleKernel {
    /// Output row `r` (a run along the last dimension) of nearest-neighbor resampling.
    #[inline(always)]
    fn nearest_row<T: Copy>(&self, x: &[T], r: usize, row: &mut [T]) {
        let [_, d1, d2, _] = self.out_shape;
        let t = &self.taps;
        let (i0, i1, i2) = (r / (d1 * d2), (r / d2) % d1, r % d2);
        let base = t[0][i0].lo + t[1][i1].lo + t[2][i2].lo;
        for (o, tap) in row.iter_mut().zip(&t[3]) {
            *o = x[base + tap.lo];
        }
    }

    fn nearest<T: Copy + Send + Sync>(&self, x: &[T], out: &mut [T]) {
        let d3 = self.out_shape[3];
        crate::par::chunks(out, d3.max(1), |r, row| {
            simd(
                #[inline(always)]
                || self.nearest_row(x, r, row),
            )
        });
    }

    /// Output row `r` of bilinear resampling.
    #[inline(always)]
    fn linear_row<T: Interp>(&self, x: &[T], r: usize, row: &mut [T]) {
        let [_, d1, d2, _] = self.out_shape;
        let [ay, ax] = self.axes;
        let t = &self.taps;
        let zero = Tap { lo: 0, hi: 0, t: 0.0 };
        let idx = [r / (d1 * d2), (r / d2) % d1, r % d2];
        // Taps fixed for the row: the resampled axes among the first three dimensions, and
        // the offset of the others.
        let (mut y, mut xx, mut base) = (zero, zero, 0);
        for d in 0..3 {
            let tap = t[d][idx[d]];
            if d == ay {
                y = tap;
            } else if d == ax {
                xx = tap;
            } else {
                base += tap.lo;
            }
        }
        let v = |off: usize| x[off].to_f32();
        if ax == 3 {
            let (r0, r1) = (base + y.lo, base + y.hi);
            for (o, xt) in row.iter_mut().zip(&t[3]) {
                let vy0 = lerp(v(r0 + xt.lo), v(r0 + xt.hi), xt.t);
                let vy1 = lerp(v(r1 + xt.lo), v(r1 + xt.hi), xt.t);
                *o = T::from_f32(lerp(vy0, vy1, y.t));
            }
        } else if ay == 3 {
            let (c0, c1) = (base + xx.lo, base + xx.hi);
            for (o, yt) in row.iter_mut().zip(&t[3]) {
                let vy0 = lerp(v(c0 + yt.lo), v(c1 + yt.lo), xx.t);
                let vy1 = lerp(v(c0 + yt.hi), v(c1 + yt.hi), xx.t);
                *o = T::from_f32(lerp(vy0, vy1, yt.t));
            }
        } else {
            // The last dimension is not resampled: four contiguous source rows.
            let n = row.len();
            let s00 = &x[base + y.lo + xx.lo..][..n];
            let s01 = &x[base + y.lo + xx.hi..][..n];
            let s10 = &x[base + y.hi + xx.lo..][..n];
            let s11 = &x[base + y.hi + xx.hi..][..n];
            for (i, o) in row.iter_mut().enumerate() {
                let vy0 = lerp(s00[i].to_f32(), s01[i].to_f32(), xx.t);
                let vy1 = lerp(s10[i].to_f32(), s11[i].to_f32(), xx.t);
                *o = T::from_f32(lerp(vy0, vy1, y.t));
            }
        }
    }

    fn linear<T: Interp>(&self, x: &[T], out: &mut [T]) {
        let d3 = self.out_shape[3];
        crate::par::chunks(out, d3.max(1), |r, row| {
            simd(
                #[inline(always)]
                || self.linear_row(x, r, row),
            )
        });
    }
}

impl Kernel for ResampleKernel {
    fn run(&self, inputs: &[Option<In<'_>>], outputs: &mut [Out<'_>]) -> webnn_core::Result<()> {
        let Some(x) = inputs[0] else { return Ok(()) };
        let out = &mut outputs[0];
        if !self.linear {
            crate::with_type!(self.data_type, T => self.nearest::<T>(x.slice(), out.slice_mut()));
            return Ok(());
        }
        match self.data_type {
            DataType::Float16 => self.linear::<f16>(x.slice(), out.slice_mut()),
            DataType::Int8 => self.linear::<i8>(x.slice(), out.slice_mut()),
            DataType::Uint8 => self.linear::<u8>(x.slice(), out.slice_mut()),
            _ => self.linear::<f32>(x.slice(), out.slice_mut()),
        }
        Ok(())
    }
}

#[cfg(test)]
#[path = "resample_tests.rs"]
mod tests;

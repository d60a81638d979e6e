//! convTranspose2d ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-convtranspose2d)),
//! float32 and float16 (computed in f32, rounded once): GEMM of the filter with the input into
//! columns, then col2im; the output size comes from the output descriptor
//! (outputPadding/outputSizes may make it larger than the computed size: positions no input reaches
//! hold the bias). The geometry and the float I/O are conv2d's (`conv.rs`).

use super::constants::constant_f32;
use super::conv::{check_sizes, conv_geom, fill_bias, span, ConvOperands, Geom};
use super::scratch::{try_zeroed, Scratch};
use super::sgemm::{sgemm, Mat};
use super::simd::simd;
use super::{In, Kernel, Out};
use webnn_core::graph::{Attrs, Operation};
use webnn_core::types::ConvTranspose2dFilterOperandLayout;
use webnn_core::{Error, Graph, Result};

/// Index of filter element (group-input channel `i` as a global input channel, group-output
/// channel `o`, `h`, `w`) in a convTranspose2d filter of `layout`.
fn convt_filter_index(
    layout: ConvTranspose2dFilterOperandLayout,
    g: &Geom,
    i: usize,
    o: usize,
    h: usize,
    w: usize,
) -> usize {
    let (cog, kh, kw, cin) = (g.cog(), g.kh, g.kw, g.cin);
    match layout {
        ConvTranspose2dFilterOperandLayout::Iohw => ((i * cog + o) * kh + h) * kw + w,
        ConvTranspose2dFilterOperandLayout::Hwoi => ((h * kw + w) * cog + o) * cin + i,
        ConvTranspose2dFilterOperandLayout::Ohwi => ((o * kh + h) * kw + w) * cin + i,
    }
}

/// Repacks a convTranspose2d filter: nchw `[groups][cog·kh·kw][cig]` (GEMM lhs per group),
/// nhwc `[groups][cig][kh·kw·cog]` (GEMM rhs per group).
pub fn pack_convt_filter(layout: ConvTranspose2dFilterOperandLayout, g: &Geom, src: &[f32], dst: &mut [f32]) {
    let (cig, cog, kk) = (g.cig(), g.cog(), g.kk());
    for i in 0..g.cin {
        let (grp, il) = (i / cig, i % cig);
        for o in 0..cog {
            for h in 0..g.kh {
                for w in 0..g.kw {
                    let v = src[convt_filter_index(layout, g, i, o, h, w)];
                    let k = h * g.kw + w;
                    let base = grp * cig * cog * kk;
                    let d = if g.nhwc { base + il * kk * cog + k * cog + o } else { base + (o * kk + k) * cig + il };
                    dst[d] = v;
                }
            }
        }
    }
}

struct ConvTranspose2dKernel {
    operands: ConvOperands,
    g: Geom,
    layout: ConvTranspose2dFilterOperandLayout,
}

/// Lowers convTranspose2d.
pub fn lower_conv_transpose2d(op: &Operation, graph: &Graph) -> Result<Box<dyn Kernel>> {
    let Attrs::ConvTranspose2d { filter_layout, .. } = op.attrs else {
        return Err(Error::operation("convTranspose2d: missing attributes"));
    };
    let (data_type, g) = conv_geom(graph, op, |f| match filter_layout {
        ConvTranspose2dFilterOperandLayout::Iohw => (f[2], f[3]),
        ConvTranspose2dFilterOperandLayout::Hwoi => (f[0], f[1]),
        ConvTranspose2dFilterOperandLayout::Ohwi => (f[1], f[2]),
    })?;
    let (cin, cout) = (g.cin, g.cout);
    check_sizes(graph, op, cin * g.cog() * g.kk(), cout)?;
    let weights = op.input(1).and_then(|id| constant_f32(graph, id)).and_then(|raw| {
        let mut packed = try_zeroed(raw.len())?;
        pack_convt_filter(filter_layout, &g, &raw, &mut packed);
        Some(packed)
    });
    let bias = op.input(2).and_then(|id| constant_f32(graph, id));
    Ok(Box::new(ConvTranspose2dKernel {
        operands: ConvOperands::new(data_type, weights, bias),
        g,
        layout: filter_layout,
    }))
}

/// convTranspose2d on f32 data with a packed filter.
pub fn conv_transpose(
    g: &Geom,
    x: &[f32],
    wts: &[f32],
    bias: Option<&[f32]>,
    col_scratch: &Scratch,
    out: &mut [f32],
) -> webnn_core::Result<()> {
    let (cig, cog, kk) = (g.cig(), g.cog(), g.kk());
    let hw = g.h * g.w;
    let opix = g.oh * g.ow;
    let mut col = col_scratch.get(g.cout * kk * hw)?;
    fill_bias(g, bias, out);
    let w_spans: Vec<(usize, usize)> =
        (0..g.kw).map(|k| span(g.w, g.strides[1], k * g.dilations[1], g.padding[2], g.ow)).collect();
    for n in 0..g.n {
        if !g.nhwc {
            // col[(co·kk + k)·hw + pixel] for every output channel co (all groups).
            for grp in 0..g.groups {
                let a = Mat::rows(&wts[grp * cog * kk * cig..], cig);
                let xg = &x[(n * g.cin + grp * cig) * hw..][..cig * hw];
                let c = &mut col[grp * cog * kk * hw..][..cog * kk * hw];
                sgemm(cog * kk, hw, cig, a, Mat::rows(xg, hw), c, hw, 1, 1.0, None, true);
            }
            let col = &col[..];
            crate::par::chunks(&mut out[n * g.cout * opix..][..g.cout * opix], opix, |co, plane| {
                simd(
                    #[inline(always)]
                    || col2im_plane(g, &col[co * kk * hw..][..kk * hw], &w_spans, plane),
                )
            });
        } else {
            // col[pixel][grp][k][o]: row stride cout·kk.
            let xn = &x[n * hw * g.cin..][..hw * g.cin];
            let row = g.cout * kk;
            for grp in 0..g.groups {
                let a = Mat { data: &xn[grp * cig..], rs: g.cin, cs: 1 };
                let b = Mat::rows(&wts[grp * cig * kk * cog..], kk * cog);
                sgemm(hw, kk * cog, cig, a, b, &mut col[grp * kk * cog..], row, 1, 1.0, None, true);
            }
            let col = &col[..];
            crate::par::chunks(&mut out[n * opix * g.cout..][..opix * g.cout], g.ow * g.cout, |oh, orow| {
                simd(
                    #[inline(always)]
                    || col2im_row(g, col, &w_spans, oh, orow),
                )
            });
        }
    }
    Ok(())
}

/// nchw col2im of one output channel plane: `src` holds its kh·kw rows of input pixels.
#[inline(always)]
fn col2im_plane(g: &Geom, src: &[f32], w_spans: &[(usize, usize)], plane: &mut [f32]) {
    let [st_h, st_w] = g.strides;
    let [dl_h, dl_w] = g.dilations;
    let [pt, _, pl, _] = g.padding;
    let hw = g.h * g.w;
    for kh in 0..g.kh {
        for kw in 0..g.kw {
            let src = &src[(kh * g.kw + kw) * hw..][..hw];
            let (lo, hi) = w_spans[kw];
            if lo >= hi {
                continue;
            }
            for ih in 0..g.h {
                let Some(oh) = (ih * st_h + kh * dl_h).checked_sub(pt).filter(|&o| o < g.oh) else { continue };
                let orow = &mut plane[oh * g.ow..][..g.ow];
                let srow = &src[ih * g.w..][..g.w];
                let base = lo * st_w + kw * dl_w - pl;
                if st_w == 1 {
                    for (d, &v) in orow[base..base + (hi - lo)].iter_mut().zip(&srow[lo..hi]) {
                        *d += v;
                    }
                } else {
                    for (j, &v) in srow[lo..hi].iter().enumerate() {
                        orow[base + j * st_w] += v;
                    }
                }
            }
        }
    }
}

/// nhwc col2im of output row `oh`: gathers, for every pixel and window position that maps
/// onto it, the `cog` values of each group from `col[pixel][group][k][o]`.
#[inline(always)]
fn col2im_row(g: &Geom, col: &[f32], w_spans: &[(usize, usize)], oh: usize, orow: &mut [f32]) {
    let [st_h, st_w] = g.strides;
    let [dl_h, dl_w] = g.dilations;
    let [pt, _, pl, _] = g.padding;
    let (cog, kk) = (g.cog(), g.kk());
    let row = g.cout * kk;
    for kh in 0..g.kh {
        let Some(t) = (oh + pt).checked_sub(kh * dl_h) else { continue };
        if t % st_h != 0 || t / st_h >= g.h {
            continue;
        }
        let ih = t / st_h;
        for kw in 0..g.kw {
            let (lo, hi) = w_spans[kw];
            for iw in lo..hi {
                let ow = iw * st_w + kw * dl_w - pl;
                let src = &col[(ih * g.w + iw) * row..][..row];
                let dst = &mut orow[ow * g.cout..][..g.cout];
                for grp in 0..g.groups {
                    let s = &src[grp * kk * cog + (kh * g.kw + kw) * cog..][..cog];
                    for (d, &v) in dst[grp * cog..][..cog].iter_mut().zip(s) {
                        *d += v;
                    }
                }
            }
        }
    }
}

impl Kernel for ConvTranspose2dKernel {
    fn run(&self, inputs: &[Option<In<'_>>], outputs: &mut [Out<'_>]) -> webnn_core::Result<()> {
        self.operands.run(
            inputs,
            outputs,
            |raw, dst| pack_convt_filter(self.layout, &self.g, raw, dst),
            |xs, wts, b, os| conv_transpose(&self.g, xs, wts, b, &self.operands.col_scratch, os),
        )
    }
}

#[cfg(test)]
#[path = "conv_transpose_tests.rs"]
mod tests;

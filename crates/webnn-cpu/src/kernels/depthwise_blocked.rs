//! Depthwise conv2d (nchw, groups = input channels = output channels) computed 16 channels at
//! a time: each block of 16 input planes is transposed into a zero-padded pixel-major buffer
//! (`[row][column][16 channels]`, the NCHW16c layout for one block), every tap is then one
//! 16-lane fused multiply-add per output pixel, and the block's output is transposed back to
//! its 16 planes, where the fused epilogue is applied.
//!
//! The plane kernel (`depthwise::depthwise_plane`) vectorises along a plane's pixels and pays a
//! per-plane setup (padding copy, wide plane); on the small planes of late CNN stages (14×14,
//! 7×7 with hundreds of channels) that setup dominates and a vector spans few pixels. Here
//! the vector runs across channels, so plane size does not matter.
//!
//! Every output adds its taps to the bias in window order (row, then column) with fused
//! multiply-adds, exactly as the plane kernel does: both give the same bits.

use super::conv::Geom;
use super::epilogue::BoundEpilogue;
use super::scratch::grow;
use super::simd::simd;

/// Channels per block: one AVX-512 vector of f32 (two AVX2 vectors).
const LANES: usize = 16;

/// Output pixels computed together (their accumulators stay in registers across the taps).
const PIXELS: usize = 4;

/// Largest output plane (pixels) that takes this path. Measured (`cargo bench -p webnn-cpu
/// --bench kernels -- depthwise`, 1 thread, busy machine, this path / the plane kernel):
/// 5×5 1152 ch 7×7 0.165 / 0.255 ms; 5×5 672 ch 14×14 0.326 / 0.274; 3×3 384 ch 14×14
/// 0.117 / 0.077; 3×3 144 ch 28×28 0.155 / 0.065. The scalar transposes into and out of the
/// block cost as much as the taps; with vector transposes the limit could rise.
const MAX_PLANE: usize = 10 * 10;

thread_local! {
    /// Per-thread scratch: the padded input block and the block's output, pixel-major.
    static SCRATCH: std::cell::RefCell<(Vec<f32>, Vec<f32>)> = const { std::cell::RefCell::new((Vec::new(), Vec::new())) };
}

/// The extent of the zero-padded input that the windows reach: `(rows, columns)`.
fn padded_extent(g: &Geom) -> (usize, usize) {
    let reach = |out: usize, stride: usize, k: usize, dilation: usize| (out - 1) * stride + (k - 1) * dilation + 1;
    (reach(g.oh, g.strides[0], g.kh, g.dilations[0]), reach(g.ow, g.strides[1], g.kw, g.dilations[1]))
}

/// Whether a depthwise conv2d takes this path: nchw, a small output plane, and a padded input
/// block of bounded size (strides, dilations and padding may be huge around tiny planes).
pub fn fits(g: &Geom) -> bool {
    if g.nhwc || g.oh == 0 || g.ow == 0 || g.kh == 0 || g.kw == 0 || g.oh * g.ow > MAX_PLANE {
        return false;
    }
    let (rows, cols) = padded_extent(g);
    rows.checked_mul(cols).is_some_and(|px| px <= 16 * MAX_PLANE)
}

/// The depthwise conv2d of [`fits`] shapes: `out` pre-filled with the bias (each plane's
/// first element is its channel's bias), `wts` as `[C][kh·kw]`; `ep` is applied to each
/// output plane once it is finished.
pub fn depthwise_blocked(
    g: &Geom,
    x: &[f32],
    wts: &[f32],
    out: &mut [f32],
    ep: &BoundEpilogue<'_>,
) -> webnn_core::Result<()> {
    let c = g.cout;
    let (plane, oplane) = (g.h * g.w, g.oh * g.ow);
    if c == 0 || oplane == 0 {
        return Ok(());
    }
    let (rows, cols) = padded_extent(g);
    crate::par::try_chunks(out, c * oplane, |n, image| {
        crate::par::try_chunks(image, LANES * oplane, |b, o| {
            let c0 = b * LANES;
            let lanes = (c - c0).min(LANES);
            // The scratch is borrowed outside `simd` (`LocalKey::with` is not inlined, so the
            // code in its closure would not get the wider instruction sets).
            SCRATCH.with(|cell| {
                let (xin, acc) = &mut *cell.borrow_mut();
                grow(xin, rows * cols * LANES)?;
                grow(acc, oplane * LANES)?;
                let (xin, acc) = (&mut xin[..rows * cols * LANES], &mut acc[..oplane * LANES]);
                let xs = &x[(n * c + c0) * plane..][..lanes * plane];
                simd(
                    #[inline(always)]
                    || {
                        gather_block(g, xs, lanes, cols, xin);
                        let mut w = [[0.0f32; LANES]; 49];
                        let taps = g.kh * g.kw;
                        let bias: [f32; LANES] = std::array::from_fn(|l| if l < lanes { o[l * oplane] } else { 0.0 });
                        if taps <= w.len() {
                            for (t, wt) in w.iter_mut().enumerate().take(taps) {
                                *wt = std::array::from_fn(|l| if l < lanes { wts[(c0 + l) * taps + t] } else { 0.0 });
                            }
                            compute_block(g, cols, xin, &w[..taps], bias, acc);
                        } else {
                            let w: Vec<[f32; LANES]> = (0..taps)
                                .map(|t| {
                                    std::array::from_fn(|l| if l < lanes { wts[(c0 + l) * taps + t] } else { 0.0 })
                                })
                                .collect();
                            compute_block(g, cols, xin, &w, bias, acc);
                        }
                        for (l, op) in o.chunks_exact_mut(oplane).enumerate() {
                            for (p, v) in op.iter_mut().enumerate() {
                                *v = acc[p * LANES + l];
                            }
                        }
                    },
                );
                for (l, op) in o.chunks_exact_mut(oplane).enumerate() {
                    ep.apply((n * c + c0 + l) * oplane, op);
                }
                Ok(())
            })
        })
    })
}

/// Transposes `lanes` input planes into the zero-padded pixel-major block `xin`
/// (`[row][column][LANES]`, `cols` columns per row), padded row r = input row r − top.
#[inline(always)]
fn gather_block(g: &Geom, xs: &[f32], lanes: usize, cols: usize, xin: &mut [f32]) {
    xin.fill(0.0);
    let [pt, _, pl, _] = g.padding;
    let rows = xin.len() / (cols * LANES);
    // Input rows and columns that land inside the block.
    let ih_end = g.h.min(rows.saturating_sub(pt));
    let iw_end = g.w.min(cols.saturating_sub(pl));
    if iw_end == 0 {
        // The left padding reaches past every window: the block is all padding (and
        // `pl` may lie beyond the block's row, so no row offset below would be valid).
        return;
    }
    for ih in 0..ih_end {
        let dst = &mut xin[((ih + pt) * cols + pl) * LANES..];
        for l in 0..lanes {
            let src = &xs[(l * g.h + ih) * g.w..][..iw_end];
            for (iw, &v) in src.iter().enumerate() {
                dst[iw * LANES + l] = v;
            }
        }
    }
}

/// `acc[p] = bias + Σ_taps w[tap] · xin[window(p, tap)]` per output pixel p, 16 lanes at a
/// time, taps in window order, [`PIXELS`] pixels of a row per pass.
#[inline(always)]
fn compute_block(g: &Geom, cols: usize, xin: &[f32], w: &[[f32; LANES]], bias: [f32; LANES], acc: &mut [f32]) {
    for oh in 0..g.oh {
        let mut ow = 0;
        while ow + PIXELS <= g.ow {
            pixels::<PIXELS>(g, cols, xin, w, bias, (oh, ow), acc);
            ow += PIXELS;
        }
        while ow < g.ow {
            pixels::<1>(g, cols, xin, w, bias, (oh, ow), acc);
            ow += 1;
        }
    }
}

/// Output pixels `(oh, ow..ow + Q)` of a block (their Q × 16 sums held in registers).
#[inline(always)]
fn pixels<const Q: usize>(
    g: &Geom,
    cols: usize,
    xin: &[f32],
    w: &[[f32; LANES]],
    bias: [f32; LANES],
    (oh, ow): (usize, usize),
    acc: &mut [f32],
) {
    let [st_h, st_w] = g.strides;
    let [dl_h, dl_w] = g.dilations;
    let mut sums = [bias; Q];
    for kh in 0..g.kh {
        let r = oh * st_h + kh * dl_h;
        for kw in 0..g.kw {
            let wt = &w[kh * g.kw + kw];
            for (q, sum) in sums.iter_mut().enumerate() {
                let xv = &xin[(r * cols + (ow + q) * st_w + kw * dl_w) * LANES..][..LANES];
                for l in 0..LANES {
                    sum[l] = wt[l].mul_add(xv[l], sum[l]);
                }
            }
        }
    }
    for (q, sum) in sums.iter().enumerate() {
        acc[(oh * g.ow + ow + q) * LANES..][..LANES].copy_from_slice(sum);
    }
}

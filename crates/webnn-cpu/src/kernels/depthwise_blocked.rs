//! Depthwise conv2d (nchw, groups = input channels = output channels) computed 16 channels at
//! a time: each block of 16 input planes is transposed, a band of rows at a time, into a
//! zero-padded pixel-major buffer (`[row][column][16 channels]`, the NCHW16c layout for one
//! block), every tap is then one 16-lane fused multiply-add per output pixel, and the band's
//! output is transposed back to its 16 planes, where the fused epilogue is applied.
//!
//! The plane kernel (`depthwise::depthwise_plane`) vectorises along a plane's pixels and pays a
//! per-plane setup (padding copy, phase split for strides); on small planes (14×14, 7×7 with
//! hundreds of channels) that setup dominates and a vector spans few pixels, and at stride 2
//! the phase split is a pass of its own. Here the vector runs across channels, so neither the
//! plane size nor the stride matters; with AVX-512 the transposes are 16×16 register
//! transposes (the `avx512` module), else scalar loops. With AVX-512 the common windows
//! (3 or 5 wide, width stride 1 or 2) load each input column of a window row once per group
//! of up to 8 pixels and feed it to every pixel that reads it, as the nhwc kernel does.
//!
//! Every output adds its taps to the bias in window order (row, then column) with fused
//! multiply-adds, exactly as the plane kernel does: both give the same bits.

use super::conv::Geom;
use super::epilogue::BoundEpilogue;
use super::scratch::grow;
use super::simd::simd;

/// Channels per block: one AVX-512 vector of f32 (two AVX2 vectors).
const LANES: usize = 16;

/// Output pixels computed together (their 16-lane sums stay in registers across the taps:
/// eight independent fused multiply-add chains keep both FMA pipes busy).
const PIXELS: usize = 8;

/// Largest output plane (pixels) that takes this path where [`preferred`] has no measured
/// rule (no AVX-512: the transposes are scalar loops). Measured with the scalar transposes
/// (`cargo bench -p webnn-cpu --bench kernels -- depthwise`, 1 thread, busy machine, this
/// path / the plane kernel): 5×5 1152 ch 7×7 0.165 / 0.255 ms; 5×5 672 ch 14×14 0.326 /
/// 0.274; 3×3 384 ch 14×14 0.117 / 0.077.
const MAX_PLANE_PORTABLE: usize = 10 * 10;

/// Elements of the padded input band (per thread): output rows are taken a band at a time so
/// that the band and its output stay in the L2 cache.
const BAND_ELEMENTS: usize = 32 << 10;

thread_local! {
    /// Per-thread scratch: the padded input band and the band's output, pixel-major.
    static SCRATCH: std::cell::RefCell<(Vec<f32>, Vec<f32>)> = const { std::cell::RefCell::new((Vec::new(), Vec::new())) };
}

/// Columns of the zero-padded input that the windows reach.
fn padded_cols(g: &Geom) -> usize {
    (g.ow - 1) * g.strides[1] + (g.kw - 1) * g.dilations[1] + 1
}

/// Padded input rows that `out_rows` consecutive output rows read.
fn band_input_rows(g: &Geom, out_rows: usize) -> usize {
    (out_rows - 1) * g.strides[0] + (g.kh - 1) * g.dilations[0] + 1
}

/// Output rows per band: as many as keep the band within [`BAND_ELEMENTS`] (at least one).
fn band_rows(g: &Geom, cols: usize) -> usize {
    let mut rows = 1;
    while rows < g.oh && band_input_rows(g, rows + 1).saturating_mul(cols * LANES) <= BAND_ELEMENTS {
        rows += 1;
    }
    rows
}

/// Whether a depthwise conv2d can take this path: nchw, non-empty, and a padded band of one
/// output row near the size of the work (strides, dilations and padding may be huge around
/// tiny planes; such shapes take the im2col path, whose buffers follow the output).
pub fn fits(g: &Geom) -> bool {
    if g.nhwc || g.oh == 0 || g.ow == 0 || g.kh == 0 || g.kw == 0 {
        return false;
    }
    let band = (band_input_rows(g, 1) as u64).saturating_mul(padded_cols(g) as u64);
    let work = (g.h as u64 * g.w as u64).saturating_add((g.oh * g.ow * g.kh * g.kw) as u64);
    band <= work.saturating_mul(4).saturating_add(4096)
}

/// Whether this path is the faster one for `g` on this CPU (it [`fits`]): with AVX-512 for
/// strided 3×3 and 5×5 windows with outputs up to 10×10 (where the streamed plane kernel
/// spends most of its time splitting the input plane by phase), else for planes up to 10×10.
///
/// Measured (`cargo bench -p webnn-cpu --bench kernels -- depthwise`, 1 thread, ms, the
/// streamed plane kernel → this path): stride 2: 3×3 576 ch 14² 0.057 → 0.029, 192 ch 28²
/// 0.066 → 0.028, 144 ch 56² 0.105 → 0.074; 5×5 240 ch 28² 0.094 → 0.052, 144 ch 56² 0.127
/// → 0.098; but 3×3 96 ch 112² (a 56×56 output) 0.185 → 0.202. Stride 1 (the plane kernel
/// streams rows with no phase split): 3×3 144 ch 28² 0.030 → 0.048, 576 ch 14² 0.044 →
/// 0.062, 960 ch 7² 0.039 → 0.041, 5×5 672 ch 14² 0.088 → 0.132. Since the plane kernels
/// split rows by phase with permutes (`depthwise_avx512::split_rows`, 2026-11-27, Zen 4,
/// 4 alternating runs, this path → the plane kernel): 3×3 stride 2 144 ch 56² 0.109 →
/// 0.099, 192 ch 28² 0.044 → 0.042, 5×5 stride 2 240 ch 28² 0.080 → 0.073, 144 ch 56²
/// 0.156 → 0.140, but 3×3 stride 2 576 ch 14² (a 7×7 output) 0.048 → 0.066.
///
/// Since this path's rows share each loaded input column among a group of pixels and run a
/// row's rest as one group (2026-11-30, Zen 4, 3 alternating runs, medians, the plane
/// kernel → this path): every output up to 10×10 (5×5 1152 ch 7² 0.123 → 0.064, 3×3 960 ch
/// 7² 0.052 → 0.038, stride 2 576 ch 14² 0.040 → 0.037) and 5×5 at stride 1 (672 ch 14²
/// 0.124 → 0.115, 144 ch 56² 0.354 → 0.334); 3×3 stride 1 stays with the plane kernel
/// (384 ch 14² 0.035 → 0.042, 144 ch 56² 0.137 → 0.205), as do larger strided outputs
/// (3×3 stride 2 144 ch 56² 0.097 → 0.110, 5×5 144 ch 56² 0.144 → 0.148).
pub fn preferred(g: &Geom) -> bool {
    if !fits(g) {
        return false;
    }
    #[cfg(target_arch = "x86_64")]
    if super::unary::has_avx512() && super::depthwise::streamed(g.kh, g.kw, g.strides, g.dilations) {
        return g.oh * g.ow <= 10 * 10 || (g.kw == 5 && g.strides == [1, 1]);
    }
    g.oh * g.ow <= MAX_PLANE_PORTABLE
}

/// The depthwise conv2d of [`fits`] shapes: `wts` as `[C][kh·kw]`, `bias` per channel (none:
/// zeros); `ep` is applied to each band of each output plane once it is finished.
pub fn depthwise_blocked(
    g: &Geom,
    x: &[f32],
    wts: &[f32],
    bias: Option<&[f32]>,
    out: &mut [f32],
    ep: &BoundEpilogue<'_>,
) -> webnn_core::Result<()> {
    let c = g.cout;
    let (plane, oplane) = (g.h * g.w, g.oh * g.ow);
    if c == 0 || oplane == 0 {
        return Ok(());
    }
    let cols = padded_cols(g);
    let band = band_rows(g, cols);
    let taps = g.kh * g.kw;
    crate::par::try_chunks(out, c * oplane, |n, image| {
        crate::par::try_chunks(image, LANES * oplane, |b, o| {
            let c0 = b * LANES;
            let lanes = (c - c0).min(LANES);
            // The scratch is borrowed outside `simd` (`LocalKey::with` is not inlined, so the
            // code in its closure would not get the wider instruction sets).
            SCRATCH.with(|cell| {
                let (xin, acc) = &mut *cell.borrow_mut();
                grow(xin, band_input_rows(g, band) * cols * LANES)?;
                grow(acc, band * g.ow * LANES)?;
                let xs = &x[(n * c + c0) * plane..][..lanes * plane];
                let bias: [f32; LANES] =
                    std::array::from_fn(|l| if l < lanes { bias.map_or(0.0, |b| b[c0 + l]) } else { 0.0 });
                let mut w_small = [[0.0f32; LANES]; 49];
                let mut w_big: Vec<[f32; LANES]>;
                let w: &mut [[f32; LANES]] = if taps <= w_small.len() {
                    &mut w_small[..taps]
                } else {
                    w_big = vec![[0.0; LANES]; taps];
                    &mut w_big
                };
                block_taps(&wts[c0 * taps..][..lanes * taps], lanes, w);
                let w = &*w;
                let mut oh0 = 0;
                while oh0 < g.oh {
                    let oh1 = (oh0 + band).min(g.oh);
                    let rows = band_input_rows(g, oh1 - oh0);
                    let (xin, acc) = (&mut xin[..rows * cols * LANES], &mut acc[..(oh1 - oh0) * g.ow * LANES]);
                    simd(
                        #[inline(always)]
                        || {
                            gather_band(g, xs, lanes, cols, oh0 * g.strides[0], xin);
                            compute_band(g, cols, xin, w, bias, oh1 - oh0, acc);
                            scatter_band(acc, o, lanes, oplane, oh0 * g.ow);
                        },
                    );
                    let (a, z) = (oh0 * g.ow, oh1 * g.ow);
                    if (a, z) == (0, oplane) {
                        // The band is the whole plane: one call for the block's planes (a call
                        // per 7×7 plane cost as much as its taps).
                        ep.apply((n * c + c0) * oplane, o);
                    } else {
                        for (l, op) in o.chunks_exact_mut(oplane).enumerate() {
                            ep.apply((n * c + c0 + l) * oplane + a, &mut op[a..z]);
                        }
                    }
                    oh0 = oh1;
                }
                Ok(())
            })
        })
    })
}

/// The block's weights one vector per tap: `w[t][l]` = tap `t` of channel `l` of the block
/// (`wts` holds `lanes` channels of `w.len()` taps; lanes past `lanes` are zero).
#[inline(always)]
fn block_taps(wts: &[f32], lanes: usize, w: &mut [[f32; LANES]]) {
    let taps = w.len();
    #[cfg(target_arch = "x86_64")]
    if super::unary::has_avx512() {
        // SAFETY: AVX-512F was detected; `wts` holds `lanes` rows of `taps` elements and `w`
        // `taps` pixels of LANES lanes: the 16-lane transpose of one "row" of the block.
        unsafe { avx512::gather_row(wts, taps, 0, lanes, taps, w.as_flattened_mut()) };
        return;
    }
    for (t, wt) in w.iter_mut().enumerate() {
        *wt = std::array::from_fn(|l| if l < lanes { wts[l * taps + t] } else { 0.0 });
    }
}

/// Transposes the padded rows `r0..` (as many as `xin` holds) of `lanes` input planes into the
/// pixel-major band `xin` (`[row][column][LANES]`, `cols` columns per row; padded row r is
/// input row r − top; lanes past `lanes` are zero).
#[inline(always)]
fn gather_band(g: &Geom, xs: &[f32], lanes: usize, cols: usize, r0: usize, xin: &mut [f32]) {
    let [pt, _, pl, _] = g.padding;
    // Input columns that land inside the band's rows.
    let iw_end = g.w.min(cols.saturating_sub(pl));
    #[cfg(target_arch = "x86_64")]
    let avx512 = super::unary::has_avx512();
    for (r, row) in xin.chunks_exact_mut(cols * LANES).enumerate() {
        let ih = (r0 + r).checked_sub(pt).filter(|&ih| ih < g.h);
        let Some(ih) = ih.filter(|_| iw_end > 0) else {
            row.fill(0.0);
            continue;
        };
        row[..pl * LANES].fill(0.0);
        row[(pl + iw_end) * LANES..].fill(0.0);
        let dst = &mut row[pl * LANES..(pl + iw_end) * LANES];
        #[cfg(target_arch = "x86_64")]
        if avx512 {
            // SAFETY: AVX-512F was detected; each of the `lanes` planes has row `ih` of `g.w ≥
            // iw_end` columns, and `dst` holds `iw_end` pixels.
            unsafe { avx512::gather_row(xs, g.h * g.w, ih * g.w, lanes, iw_end, dst) };
            continue;
        }
        dst.fill(0.0);
        for l in 0..lanes {
            let src = &xs[l * g.h * g.w + ih * g.w..][..iw_end];
            for (iw, &v) in src.iter().enumerate() {
                dst[iw * LANES + l] = v;
            }
        }
    }
}

/// Transposes the band's pixel-major output `acc` (`[pixel][LANES]`) into the planes of `o`
/// (`lanes` planes of `oplane` pixels), at pixel `first` of each.
#[inline(always)]
fn scatter_band(acc: &[f32], o: &mut [f32], lanes: usize, oplane: usize, first: usize) {
    let pixels = acc.len() / LANES;
    #[cfg(target_arch = "x86_64")]
    if super::unary::has_avx512() {
        // SAFETY: AVX-512F was detected; every plane of `o` holds pixels first..first + pixels.
        unsafe { avx512::scatter(acc, o, lanes, oplane, first, pixels) };
        return;
    }
    for (l, op) in o.chunks_exact_mut(oplane).take(lanes).enumerate() {
        for (p, v) in op[first..first + pixels].iter_mut().enumerate() {
            *v = acc[p * LANES + l];
        }
    }
}

/// `acc[p] = bias + Σ_taps w[tap] · xin[window(p, tap)]` for the `out_rows` output rows of a
/// band, 16 lanes at a time, taps in window order, [`PIXELS`] pixels of a row per pass.
#[inline(always)]
fn compute_band(
    g: &Geom,
    cols: usize,
    xin: &[f32],
    w: &[[f32; LANES]],
    bias: [f32; LANES],
    out_rows: usize,
    acc: &mut [f32],
) {
    #[cfg(target_arch = "x86_64")]
    if super::unary::has_avx512() {
        debug_assert!(xin.len() >= band_input_rows(g, out_rows) * cols * LANES);
        debug_assert!(acc.len() >= out_rows * g.ow * LANES && w.len() == g.kh * g.kw);
        // SAFETY: AVX-512F was detected; every window of the band's output rows lies inside
        // `xin` (band_input_rows rows of `cols` padded columns, `cols` reaching the last
        // window), `acc` holds the band's pixels and `w` one vector per tap.
        unsafe { avx512::compute_band(g, cols, xin, w, bias, out_rows, acc) };
        return;
    }
    for oh in 0..out_rows {
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

/// Output pixels `(oh, ow..ow + Q)` of a band (their Q × 16 sums held in registers).
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

/// The block's transposes with 16×16 register transposes (`transpose16` also serves
/// `conv_few_channels`).
#[cfg(target_arch = "x86_64")]
pub(super) mod avx512 {
    use super::LANES;
    use std::arch::x86_64::*;

    /// Transposes 16 vectors (rows) of 16 floats: lane `j` of result `i` is lane `i` of
    /// input `j`.
    #[inline]
    #[target_feature(enable = "avx512f")]
    pub(in crate::kernels) fn transpose16(r: [__m512; 16]) -> [__m512; 16] {
        // Pairs of rows interleaved: a[2i] holds, per 128-bit lane k, columns 4k and 4k + 1
        // of rows 2i and 2i + 1; a[2i + 1] columns 4k + 2 and 4k + 3.
        let a: [__m512; 16] = std::array::from_fn(|i| {
            let (x, y) = (r[i & !1], r[i | 1]);
            if i % 2 == 0 {
                _mm512_unpacklo_ps(x, y)
            } else {
                _mm512_unpackhi_ps(x, y)
            }
        });
        // Four rows: b[4i + j] holds, per 128-bit lane k, column 4k + j of rows 4i..4i + 3.
        let b: [__m512; 16] = std::array::from_fn(|i| {
            let (base, j) = (i & !3, i % 4);
            let (x, y) = (_mm512_castps_pd(a[base + j / 2]), _mm512_castps_pd(a[base + 2 + j / 2]));
            _mm512_castpd_ps(if j % 2 == 0 { _mm512_unpacklo_pd(x, y) } else { _mm512_unpackhi_pd(x, y) })
        });
        // Gather lane k of b[j], b[4 + j], b[8 + j], b[12 + j]: column 4k + j.
        let mut out = [_mm512_setzero_ps(); 16];
        for j in 0..4 {
            let even_lo = _mm512_shuffle_f32x4::<0x88>(b[j], b[4 + j]);
            let even_hi = _mm512_shuffle_f32x4::<0x88>(b[8 + j], b[12 + j]);
            let odd_lo = _mm512_shuffle_f32x4::<0xDD>(b[j], b[4 + j]);
            let odd_hi = _mm512_shuffle_f32x4::<0xDD>(b[8 + j], b[12 + j]);
            out[j] = _mm512_shuffle_f32x4::<0x88>(even_lo, even_hi);
            out[8 + j] = _mm512_shuffle_f32x4::<0xDD>(even_lo, even_hi);
            out[4 + j] = _mm512_shuffle_f32x4::<0x88>(odd_lo, odd_hi);
            out[12 + j] = _mm512_shuffle_f32x4::<0xDD>(odd_lo, odd_hi);
        }
        out
    }

    /// [`super::compute_band`] with the sums of up to 8 pixels of a row in registers and no
    /// bounds checks in the tap loop: undilated windows 3 or 5 columns wide at width stride 1
    /// or 2 load each input column of a window row once and feed it to every pixel of the
    /// group that reads it ([`shared`]; 5×5 stride 1: 12 loads for 40 fused multiply-adds),
    /// other windows load one input per tap and pixel ([`per_tap`]).
    ///
    /// # Safety
    /// AVX-512F; as checked by the debug assertions of [`super::compute_band`].
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn compute_band(
        g: &super::Geom,
        cols: usize,
        xin: &[f32],
        w: &[[f32; LANES]],
        bias: [f32; LANES],
        out_rows: usize,
        acc: &mut [f32],
    ) {
        let band = Band {
            x: xin.as_ptr(),
            y: acc.as_mut_ptr(),
            w: w.as_ptr() as *const f32,
            // SAFETY: 16 floats.
            bias: unsafe { _mm512_loadu_ps(bias.as_ptr()) },
            kh: g.kh,
            kw: g.kw,
            cols,
            ow: g.ow,
            strides: g.strides,
            dilations: g.dilations,
        };
        // SAFETY (caller): every group of pixels below is one of the band's rows.
        unsafe {
            match (g.kw, g.strides[1], g.dilations[1]) {
                (3, 1, 1) => rows::<3, 1, 8>(&band, out_rows),
                (3, 2, 1) => rows::<3, 2, 8>(&band, out_rows),
                (5, 1, 1) => rows::<5, 1, 8>(&band, out_rows),
                // 4 pixels: 8 would read 19 columns (more than `MAX_COLUMNS`).
                (5, 2, 1) => rows::<5, 2, 4>(&band, out_rows),
                _ => rows::<0, 0, 8>(&band, out_rows),
            }
        }
    }

    /// One band's pointers and geometry: the padded input `x` (`[row][cols][16]`), the output
    /// `y` (`[out row][ow][16]`), the weights `w` (one vector per tap).
    struct Band {
        x: *const f32,
        y: *mut f32,
        w: *const f32,
        bias: __m512,
        kh: usize,
        kw: usize,
        cols: usize,
        ow: usize,
        strides: [usize; 2],
        dilations: [usize; 2],
    }

    /// Input columns one window row of a [`shared`] group reads, at most: (8 − 1)·2 + 3 for
    /// 3×3 stride 2.
    const MAX_COLUMNS: usize = 17;

    /// Every output row of the band, `M` pixels at a time, the row's rest in one group:
    /// [`shared`] for a window `K` wide at width stride `S` (undilated), [`per_tap`] when `K`
    /// is 0.
    ///
    /// # Safety
    /// AVX-512F; as [`compute_band`].
    #[inline]
    #[target_feature(enable = "avx512f")]
    unsafe fn rows<const K: usize, const S: usize, const M: usize>(b: &Band, out_rows: usize) {
        /// Pixels `ow..ow + P` of row `oh`.
        #[inline(always)]
        unsafe fn group<const P: usize, const K: usize, const S: usize>(b: &Band, oh: usize, ow: usize) {
            // SAFETY (caller): pixels of the band.
            unsafe {
                if K == 0 {
                    per_tap::<P>(b, oh, ow)
                } else {
                    shared::<P, K, S>(b, oh, ow)
                }
            }
        }
        for oh in 0..out_rows {
            let mut ow = 0;
            // SAFETY (caller): every pixel below is one of the band's.
            unsafe {
                while ow + M <= b.ow {
                    group::<M, K, S>(b, oh, ow);
                    ow += M;
                }
                // The rest (fewer than M pixels) as one group: as many independent chains as
                // pixels (a 7-wide row as 4 + 1 + 1 + 1 ran three latency-bound chains).
                match b.ow - ow {
                    0 => {}
                    1 => group::<1, K, S>(b, oh, ow),
                    2 => group::<2, K, S>(b, oh, ow),
                    3 => group::<3, K, S>(b, oh, ow),
                    4 => group::<4, K, S>(b, oh, ow),
                    5 => group::<5, K, S>(b, oh, ow),
                    6 => group::<6, K, S>(b, oh, ow),
                    _ => group::<7, K, S>(b, oh, ow),
                }
            }
        }
    }

    /// Pixels `ow..ow + P` of output row `oh`, a window `K` wide at width stride `S`
    /// (undilated): per window row, input columns `ow·S..ow·S + (P − 1)·S + K` loaded once
    /// each and fed to the pixels that read them, taps in window order.
    ///
    /// # Safety
    /// AVX-512F; pixels of the band; `(P − 1)·S + K ≤ MAX_COLUMNS`.
    #[inline(always)]
    unsafe fn shared<const P: usize, const K: usize, const S: usize>(b: &Band, oh: usize, ow: usize) {
        let n = (P - 1) * S + K;
        const { assert!((P - 1) * S + K <= MAX_COLUMNS) };
        // SAFETY (caller): AVX-512F; columns ow·S.. ow·S + n of each window row lie in the
        // band, the taps in the weights, pixels (oh, ow + q) in the output.
        unsafe {
            let mut sums = [b.bias; P];
            for kh in 0..b.kh {
                let row = (oh * b.strides[0] + kh * b.dilations[0]) * b.cols;
                let base = b.x.add((row + ow * S) * LANES);
                let mut xs = [_mm512_setzero_ps(); MAX_COLUMNS];
                for (j, x) in xs.iter_mut().enumerate().take(n) {
                    *x = _mm512_loadu_ps(base.add(j * LANES));
                }
                for kw in 0..K {
                    let wt = _mm512_loadu_ps(b.w.add((kh * K + kw) * LANES));
                    for (q, s) in sums.iter_mut().enumerate() {
                        *s = _mm512_fmadd_ps(wt, xs[q * S + kw], *s);
                    }
                }
            }
            store(b, oh, ow, &sums);
        }
    }

    /// Pixels `ow..ow + P` of output row `oh`, any window: one load per tap and pixel, taps
    /// in window order.
    ///
    /// # Safety
    /// AVX-512F; pixels of the band.
    #[inline(always)]
    unsafe fn per_tap<const P: usize>(b: &Band, oh: usize, ow: usize) {
        let [st_h, st_w] = b.strides;
        let [dl_h, dl_w] = b.dilations;
        // SAFETY (caller): AVX-512F; every tap of pixels (oh, ow + q) lies in the band, the
        // taps in the weights, the pixels in the output.
        unsafe {
            let mut sums = [b.bias; P];
            for kh in 0..b.kh {
                let row = (oh * st_h + kh * dl_h) * b.cols;
                for kw in 0..b.kw {
                    let wt = _mm512_loadu_ps(b.w.add((kh * b.kw + kw) * LANES));
                    let base = b.x.add((row + ow * st_w + kw * dl_w) * LANES);
                    for (q, s) in sums.iter_mut().enumerate() {
                        *s = _mm512_fmadd_ps(wt, _mm512_loadu_ps(base.add(q * st_w * LANES)), *s);
                    }
                }
            }
            store(b, oh, ow, &sums);
        }
    }

    /// Stores the sums of pixels `(oh, ow..)` of the band's output.
    ///
    /// # Safety
    /// AVX-512F; pixels of the band.
    #[inline(always)]
    unsafe fn store<const P: usize>(b: &Band, oh: usize, ow: usize, sums: &[__m512; P]) {
        for (q, s) in sums.iter().enumerate() {
            // SAFETY (caller): AVX-512F; pixel (oh, ow + q) of the band's output.
            unsafe { _mm512_storeu_ps(b.y.add((oh * b.ow + ow + q) * LANES), *s) };
        }
    }

    /// The first `n` bits set.
    #[inline(always)]
    fn mask(n: usize) -> __mmask16 {
        ((1u32 << n.min(16)) - 1) as __mmask16
    }

    /// `dst[iw·16 + l] = xs[l·plane + row + iw]` for `iw < cols`, `l < 16` (zero for
    /// `l ≥ lanes`).
    ///
    /// # Safety
    /// AVX-512F; `xs` holds `lanes` planes of `plane` elements, each with `row + cols`
    /// elements; `dst.len() == cols·16`.
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn gather_row(xs: &[f32], plane: usize, row: usize, lanes: usize, cols: usize, dst: &mut [f32]) {
        debug_assert!(lanes <= LANES && dst.len() == cols * LANES);
        debug_assert!(lanes == 0 || (lanes - 1) * plane + row + cols <= xs.len());
        let (src, out) = (xs.as_ptr(), dst.as_mut_ptr());
        let mut iw = 0;
        while iw < cols {
            let m = mask(cols - iw);
            let rows: [__m512; 16] = std::array::from_fn(|l| {
                if l < lanes {
                    // SAFETY (caller): masked lanes are columns iw.. < cols of plane l's row.
                    unsafe { _mm512_maskz_loadu_ps(m, src.add(l * plane + row + iw)) }
                } else {
                    _mm512_setzero_ps()
                }
            });
            let t = transpose16(rows);
            for (j, v) in t.iter().enumerate().take(cols - iw) {
                // SAFETY (caller): pixel iw + j < cols of dst.
                unsafe { _mm512_storeu_ps(out.add((iw + j) * LANES), *v) };
            }
            iw += 16;
        }
    }

    /// `o[l·oplane + first + p] = acc[p·16 + l]` for `p < pixels`, `l < lanes`.
    ///
    /// # Safety
    /// AVX-512F; `acc` holds `pixels·16` elements, `o` `lanes` planes of `oplane ≥ first +
    /// pixels` elements.
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn scatter(acc: &[f32], o: &mut [f32], lanes: usize, oplane: usize, first: usize, pixels: usize) {
        debug_assert!(acc.len() >= pixels * LANES && first + pixels <= oplane);
        debug_assert!(lanes == 0 || (lanes - 1) * oplane + oplane <= o.len());
        let (src, out) = (acc.as_ptr(), o.as_mut_ptr());
        let mut p = 0;
        while p < pixels {
            let n = (pixels - p).min(16);
            let rows: [__m512; 16] = std::array::from_fn(|j| {
                if j < n {
                    // SAFETY (caller): pixel p + j < pixels of acc.
                    unsafe { _mm512_loadu_ps(src.add((p + j) * LANES)) }
                } else {
                    _mm512_setzero_ps()
                }
            });
            let t = transpose16(rows);
            for (l, v) in t.iter().enumerate().take(lanes) {
                // SAFETY (caller): pixels first + p.. first + p + n of plane l.
                unsafe { _mm512_mask_storeu_ps(out.add(l * oplane + first + p), mask(n), *v) };
            }
            p += 16;
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn transpose16_swaps_rows_and_lanes() {
            if !crate::kernels::unary::has_avx512() {
                return;
            }
            let m: Vec<f32> = (0..256).map(|i| i as f32).collect();
            // SAFETY: AVX-512F was detected; each load reads 16 of the 256 elements.
            let t = unsafe { transpose16(std::array::from_fn(|i| _mm512_loadu_ps(m.as_ptr().add(16 * i)))) };
            let mut got = [0f32; 256];
            for (i, v) in t.iter().enumerate() {
                // SAFETY: AVX-512F; 16 elements of `got`.
                unsafe { _mm512_storeu_ps(got.as_mut_ptr().add(16 * i), *v) };
            }
            for i in 0..16 {
                for j in 0..16 {
                    assert_eq!(got[16 * i + j], m[16 * j + i], "row {i} lane {j}");
                }
            }
        }
    }
}

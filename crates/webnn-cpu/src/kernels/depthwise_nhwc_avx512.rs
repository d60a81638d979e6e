//! The nhwc depthwise kernel in AVX-512: one output row at a time, 16 channels per vector.
//!
//! Channels-last, a pixel's channels are contiguous, so a block of 16 channels is one vector
//! per pixel: no padded copies, no phase split for strides, no transposes (what the nchw plane
//! kernels of [`super::depthwise_avx512`] pay for planes one vector wide or strided).
//!
//! - Windows 3 or 5 columns wide at width stride 1 or 2, undilated (`row_shared`, nearly every
//!   depthwise conv of MobileNet/EfficientNet-style nets): groups of up to 8 output pixels
//!   (4 for 5×5 stride 2), pixel groups outer and blocks of 16 channels inner; per window
//!   row, each input column the group reads is loaded once and fed to every pixel of the
//!   group that reads it (3×3 stride 1: 10 loads for 24 fused multiply-adds). Columns and
//!   rows in the padding read a row of zeros, so border pixels take the same loop.
//! - Any other window: per block of 16 channels, the row's interior pixels (every tap of the
//!   window inside the width) go 8 (then 4, then 1) at a time, one load and one fused
//!   multiply-add per tap and pixel, addresses by arithmetic (a window row above or below
//!   the image reads the zeros); the border pixels go one at a time, each tap checked.
//!
//! Every output adds its taps to the bias in window order (row, then column) with fused
//! multiply-adds, padding taps adding 0·w, as the nchw plane kernels do on their zero-padded
//! planes: both layouts give the same bits.

use super::conv::{span, Geom};
use std::arch::x86_64::*;

/// Interior output pixels accumulated together by the path for other windows (then 4, then 1).
const PIXELS: usize = 8;

/// Input columns one window row of a [`group`] reads, at most: (8 − 1)·2 + 3 = 17 for 3×3
/// stride 2, (4 − 1)·2 + 5 for 5×5 stride 2 (which groups 4 pixels: 8 would need 32 vector
/// registers), (8 − 1) + 5 = 12 for 5×5 stride 1.
const MAX_COLUMNS: usize = 17;

/// The lanes of the block of channels from `c0` (of `c`) and its starting sums (the bias, or
/// zeros).
///
/// # Safety
/// AVX-512F; `bias` (if any) holds at least `c` floats and `c0 < c`.
#[inline(always)]
unsafe fn block_start(c: usize, c0: usize, bias: Option<&[f32]>) -> (__mmask16, __m512) {
    let m = ((1u32 << (c - c0).min(16)) - 1) as __mmask16;
    // SAFETY (caller): AVX-512F, and the masked lanes lie inside the bias.
    let b = unsafe {
        match bias {
            Some(b) => _mm512_maskz_loadu_ps(m, b.as_ptr().add(c0)),
            None => _mm512_setzero_ps(),
        }
    };
    (m, b)
}

/// One window row of an output row's interior pixels: where tap (kh, 0) of output pixel 0
/// would be (channel `c0`; before the input row when there is left padding, so only an
/// address), the steps to the next pixel and to the next tap column (both 0 for a window
/// row that reads padding: it points at the zeros).
#[derive(Clone, Copy)]
struct WindowRow {
    at: *const f32,
    pixel_step: usize,
    tap_step: usize,
}

/// Output row `oh` of image `xn` (`[h][w][c]`): `o[ow·c + ch] = bias[ch] + Σ_{kh,kw}
/// wts[(kh·kw_n + kw)·c + ch]·x(ih, iw)[ch]`, taps in window order, 0 for padding.
///
/// # Safety
/// The CPU must support AVX-512F. `xn.len() == g.h·g.w·c`, `o.len() == g.ow·c`,
/// `wts.len() >= g.kk()·c`, `zeros.len() >= c` and all zero, `bias` (if any) at least `c`
/// long, with `c = g.cout = g.cin` (depthwise).
#[target_feature(enable = "avx512f,avx512vl,avx2,fma")]
pub(super) unsafe fn row(
    g: &Geom,
    xn: &[f32],
    zeros: &[f32],
    oh: usize,
    wts: &[f32],
    bias: Option<&[f32]>,
    o: &mut [f32],
) {
    let c = g.cout;
    let [st_h, st_w] = g.strides;
    let [dl_h, dl_w] = g.dilations;
    let [pt, _, pl, _] = g.padding;
    debug_assert!(xn.len() == g.h * g.w * c && o.len() == g.ow * c && wts.len() >= g.kk() * c && zeros.len() >= c);
    debug_assert!(bias.is_none_or(|b| b.len() >= c));
    // The input row of each window row (None: padding).
    let in_rows: smallvec::SmallVec<[Option<usize>; 8]> =
        (0..g.kh).map(|kh| (oh * st_h + kh * dl_h).checked_sub(pt).filter(|&i| i < g.h)).collect();
    if dl_w == 1 {
        // SAFETY (caller): as this function's.
        unsafe {
            match (g.kw, st_w) {
                (3, 1) => return row_shared::<3, 1, 8>(g, xn, zeros, &in_rows, wts, bias, o),
                (3, 2) => return row_shared::<3, 2, 8>(g, xn, zeros, &in_rows, wts, bias, o),
                (5, 1) => return row_shared::<5, 1, 8>(g, xn, zeros, &in_rows, wts, bias, o),
                (5, 2) => return row_shared::<5, 2, 4>(g, xn, zeros, &in_rows, wts, bias, o),
                _ => {}
            }
        }
    }
    // Interior pixels: the window's first and last columns both inside the width.
    let (first, last) = (span(g.ow, st_w, 0, pl, g.w), span(g.ow, st_w, (g.kw - 1) * dl_w, pl, g.w));
    let (lo, hi) = (first.0.max(last.0), first.1.min(last.1).max(first.0.max(last.0)));
    let (x, w, y, z) = (xn.as_ptr(), wts.as_ptr(), o.as_mut_ptr(), zeros.as_ptr());
    let mut window: smallvec::SmallVec<[WindowRow; 8]> = smallvec::SmallVec::with_capacity(g.kh);
    // SAFETY (caller): every address below lies inside `xn`, `zeros`, `wts`, `bias` or `o`:
    // taps are read only at in-range (ih, iw) or from the zeros, outputs at ow < g.ow.
    unsafe {
        let mut c0 = 0;
        while c0 < c {
            let (m, b) = block_start(c, c0, bias);
            let wb = w.add(c0);
            // Border pixels, one at a time, each tap checked.
            for ow in (0..lo).chain(hi..g.ow) {
                let mut acc = b;
                for (kh, ih) in in_rows.iter().enumerate() {
                    for kw in 0..g.kw {
                        let iw = (ow * st_w + kw * dl_w).checked_sub(pl).filter(|&i| i < g.w);
                        let src = match (ih, iw) {
                            (Some(ih), Some(iw)) => x.add((ih * g.w + iw) * c + c0),
                            _ => z.add(c0),
                        };
                        let wv = _mm512_maskz_loadu_ps(m, wb.add((kh * g.kw + kw) * c));
                        acc = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, src), wv, acc);
                    }
                }
                _mm512_mask_storeu_ps(y.add(ow * c + c0), m, acc);
            }
            // Interior pixels, several at a time: window row kh's tap kw of pixel ow at
            // `window[kh].at + ow·pixel_step + kw·tap_step` (`at` itself may lie before the
            // row: it is never read).
            window.clear();
            window.extend(in_rows.iter().map(|ih| match ih {
                Some(ih) => WindowRow {
                    at: x.add((ih * g.w) * c + c0).wrapping_sub(pl * c),
                    pixel_step: st_w * c,
                    tap_step: dl_w * c,
                },
                None => WindowRow { at: z.add(c0), pixel_step: 0, tap_step: 0 },
            }));
            let mut ow = lo;
            while ow < hi {
                let out = y.add(ow * c + c0);
                if hi - ow >= PIXELS {
                    pixels::<PIXELS>(&window, ow, g.kw, wb, c, m, b, out);
                    ow += PIXELS;
                } else if hi - ow >= 4 {
                    pixels::<4>(&window, ow, g.kw, wb, c, m, b, out);
                    ow += 4;
                } else {
                    pixels::<1>(&window, ow, g.kw, wb, c, m, b, out);
                    ow += 1;
                }
            }
            c0 += 16;
        }
    }
}

/// `P` interior output pixels from `ow` of one block of channels (lanes `m`): window row
/// kh's tap kw of pixel ow + p at `window[kh].at + (ow + p)·pixel_step + kw·tap_step`; `w`
/// the block's weights (tap t at `w + t·c`); `y` pixel ow's output (pixel ow + p at
/// `y + p·c`).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn pixels<const P: usize>(
    window: &[WindowRow],
    ow: usize,
    kw_n: usize,
    w: *const f32,
    c: usize,
    m: __mmask16,
    b: __m512,
    y: *mut f32,
) {
    // SAFETY (caller): as [`row`].
    unsafe {
        let mut acc = [b; P];
        for (kh, r) in window.iter().enumerate() {
            for kw in 0..kw_n {
                let wv = _mm512_maskz_loadu_ps(m, w.add((kh * kw_n + kw) * c));
                let col = r.at.wrapping_add(ow * r.pixel_step + kw * r.tap_step);
                for (p, a) in acc.iter_mut().enumerate() {
                    *a = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, col.add(p * r.pixel_step)), wv, *a);
                }
            }
        }
        for (p, a) in acc.iter().enumerate() {
            _mm512_mask_storeu_ps(y.add(p * c), m, *a);
        }
    }
}

/// [`row`] for a window `K` columns wide at width stride `S` (no dilation): groups of up to
/// `M` output pixels, borders included, each window row's input pixels loaded once and
/// fed to every output pixel of the group that reads them (for 3×3 stride 1: 10 loads for 24
/// fused multiply-adds, against 24 when each tap loads its own pixel); a pixel in the padding
/// reads the zeros.
///
/// # Safety
/// As [`row`]; `in_rows[kh]` is window row kh's input row, None for padding.
#[target_feature(enable = "avx512f,avx512vl,avx2,fma")]
unsafe fn row_shared<const K: usize, const S: usize, const M: usize>(
    g: &Geom,
    xn: &[f32],
    zeros: &[f32],
    in_rows: &[Option<usize>],
    wts: &[f32],
    bias: Option<&[f32]>,
    o: &mut [f32],
) {
    let c = g.cout;
    let pl = g.padding[2] as isize;
    let mut rows: smallvec::SmallVec<[Option<*const f32>; 8]> = smallvec::SmallVec::new();
    // SAFETY (caller): every address lies inside `xn` (rows in range, columns checked by
    // `group`), `zeros`, `wts`, `bias` or `o` (pixels below g.ow).
    unsafe {
        rows.extend(in_rows.iter().map(|ih| ih.map(|ih| xn.as_ptr().add(ih * g.w * c))));
        let at = Window { rows: &rows, w: g.w, c, zeros: zeros.as_ptr(), weights: wts.as_ptr() };
        // Pixel groups outer, channel blocks inner: a group's input columns are read whole
        // (every channel of a pixel while its lines are in L1).
        let mut ow = 0;
        while ow < g.ow {
            let first = (ow * S) as isize - pl;
            let p = (g.ow - ow).min(M);
            let mut c0 = 0;
            while c0 < c {
                let (m, b) = block_start(c, c0, bias);
                let y = o.as_mut_ptr().add(ow * c + c0);
                // M (8, or 4 for 5×5 stride 2) first: a group of 8 at 5×5 stride 2 would read
                // more columns than `MAX_COLUMNS` (and is not instantiated).
                match p {
                    _ if p == M => group::<M, K, S>(&at, first, c0, m, b, y),
                    7 => group::<7, K, S>(&at, first, c0, m, b, y),
                    6 => group::<6, K, S>(&at, first, c0, m, b, y),
                    5 => group::<5, K, S>(&at, first, c0, m, b, y),
                    4 => group::<4, K, S>(&at, first, c0, m, b, y),
                    3 => group::<3, K, S>(&at, first, c0, m, b, y),
                    2 => group::<2, K, S>(&at, first, c0, m, b, y),
                    _ => group::<1, K, S>(&at, first, c0, m, b, y),
                }
                c0 += 16;
            }
            ow += p;
        }
    }
}

/// What [`group`] reads: each window row's input row (None for padding), the input width, the
/// channel count, the zeros and the weights (tap t at `weights + t·c`).
struct Window<'a> {
    rows: &'a [Option<*const f32>],
    w: usize,
    c: usize,
    zeros: *const f32,
    weights: *const f32,
}

/// `P` output pixels whose window starts at input column `first` (negative in the left
/// padding): per window row, input columns `first..first + (P − 1)·S + K` loaded once each
/// (the zeros outside the row), each fed to the pixels that read it, taps in window order
/// (for each pixel, kh, then kw ascending). `(P − 1)·S + K ≤ MAX_COLUMNS`.
#[inline(always)]
unsafe fn group<const P: usize, const K: usize, const S: usize>(
    at: &Window<'_>,
    first: isize,
    c0: usize,
    m: __mmask16,
    b: __m512,
    y: *mut f32,
) {
    const { assert!((P - 1) * S + K <= MAX_COLUMNS) };
    // SAFETY (caller): as [`row_shared`].
    unsafe {
        let mut acc = [b; P];
        for (kh, row) in at.rows.iter().enumerate() {
            let mut xs = [_mm512_setzero_ps(); MAX_COLUMNS];
            for (j, x) in xs.iter_mut().enumerate().take((P - 1) * S + K) {
                let iw = first + j as isize;
                let src = match row {
                    Some(r) if iw >= 0 && (iw as usize) < at.w => r.add(iw as usize * at.c + c0),
                    _ => at.zeros.add(c0),
                };
                *x = _mm512_maskz_loadu_ps(m, src);
            }
            for kw in 0..K {
                let wv = _mm512_maskz_loadu_ps(m, at.weights.add((kh * K + kw) * at.c + c0));
                for (p, a) in acc.iter_mut().enumerate() {
                    *a = _mm512_fmadd_ps(xs[p * S + kw], wv, *a);
                }
            }
        }
        for (p, a) in acc.iter().enumerate() {
            _mm512_mask_storeu_ps(y.add(p * at.c), m, *a);
        }
    }
}

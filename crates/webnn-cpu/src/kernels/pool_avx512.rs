//! maxPool2d of float32 nchw planes with windows 3 columns wide at column stride 2 (no
//! dilation): CNN stems and SqueezeNet's pools. One pass per output row, in registers: per 16
//! outputs, the window rows' columns `c0 .. c0 + 34` are reduced vertically as four vectors,
//! then two-source permutes pick the even, odd and shifted-even columns, the three taps of
//! the 16 windows. The portable row pipeline (vertical pass, phase split, taps) stores and
//! reloads each of those steps. Measured (1 thread, `cargo bench -p webnn-cpu --bench
//! layer_shapes -- maxPool`): 64×112×112 3×3/2 0.131 ms portable, 0.118 ms here; in
//! SqueezeNet 1.1 (`bench/profile_vs_ort.py`) its three pools take 216 µs here against 335
//! portable (ONNX Runtime: ~85). What is left is latency: each group of 16 is a short chain
//! of dependent max steps.
//!
//! Rows, then taps, are reduced in the portable kernel's order with its NaN-propagating max
//! (`maxps` gives its second operand when either is NaN; a NaN first operand is fixed by an
//! add), so results are the same bits.

use super::pool::{MaxElem, PoolGeom};
use std::arch::x86_64::*;

/// Whether [`max_pool_plane`] applies to this geometry.
pub(super) fn applies(g: &PoolGeom) -> bool {
    !g.nhwc && g.window[1] == 3 && g.strides[1] == 2 && g.dilations[1] == 1
}

/// One nchw plane: `xp` (h × w) into `o` (oh × ow). The output columns at the padded edges
/// (outside `g.interior`) reduce their real columns one by one.
///
/// # Safety
/// AVX-512F; [`applies`] holds; `xp` and `o` hold a plane of `g`.
#[target_feature(enable = "avx512f")]
pub(super) unsafe fn max_pool_plane(g: &PoolGeom, xp: &[f32], o: &mut [f32]) {
    let (a, b) = g.interior;
    for (oh, orow) in o.chunks_exact_mut(g.ow).enumerate() {
        let (h0, h1) = g.rows[oh];
        let row = |kh: usize| &xp[g.ih_of(oh, kh) * g.w..][..g.w];
        if h0 < h1 && a < b {
            let first = g.iw_of(a, 0);
            // SAFETY: AVX-512F by this function's contract; the rows are whole input rows and
            // the interior outputs' windows lie inside them.
            unsafe { row_interior(&row, h0, h1, first, &mut orow[a..b]) };
        }
        // Columns, each reduced over the rows first: the portable kernel's order.
        for ow in (0..a).chain(b..g.ow) {
            let (w0, w1) = g.cols[ow];
            let mut acc = f32::NEG_INFINITY;
            for kw in w0..w1 {
                let column = (h0..h1).fold(f32::NEG_INFINITY, |v, kh| f32::max_of(v, row(kh)[g.iw_of(ow, kw)]));
                acc = f32::max_of(acc, column);
            }
            orow[ow] = acc;
        }
    }
}

/// `max_of` of the portable kernel on 16 lanes.
#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn max_v(a: __m512, b: __m512) -> __m512 {
    let m = _mm512_max_ps(a, b);
    let a_nan = _mm512_cmp_ps_mask::<_CMP_UNORD_Q>(a, a);
    _mm512_mask_add_ps(m, a_nan, a, b)
}

/// The 16 (or fewer) elements of `r` from column `c`; lanes past the row read as 0.
#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn load(r: &[f32], c: usize) -> __m512 {
    let lanes = r.len().saturating_sub(c).min(16);
    if lanes == 0 {
        return _mm512_setzero_ps();
    }
    let mask = ((1u32 << lanes) - 1) as u16;
    // SAFETY: the mask covers only columns c .. c + lanes < r.len().
    unsafe { _mm512_maskz_loadu_ps(mask, r.as_ptr().add(c)) }
}

/// Interior outputs of one output row: `out[t]` is the max over window rows `h0..h1` of the
/// columns `first + 2t + {0, 1, 2}`.
#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn row_interior<'r>(row: &impl Fn(usize) -> &'r [f32], h0: usize, h1: usize, first: usize, out: &mut [f32]) {
    let even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    let odd = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
    let n = out.len();
    let w = row(h0).len();
    let mut t0 = 0;
    while t0 < n {
        let c0 = first + 2 * t0;
        // Whole vectors while the four loads lie inside the row, masked ones for the rest.
        let whole = c0 + 34 <= w;
        // SAFETY (this block): AVX-512F by the caller; unmasked loads only when `whole`.
        unsafe {
            let at = |r: &[f32], c: usize| if whole { _mm512_loadu_ps(r.as_ptr().add(c)) } else { load(r, c) };
            let r = row(h0);
            let mut v = [at(r, c0), at(r, c0 + 16), at(r, c0 + 2), at(r, c0 + 18)];
            for kh in h0 + 1..h1 {
                let r = row(kh);
                v = [
                    max_v(v[0], at(r, c0)),
                    max_v(v[1], at(r, c0 + 16)),
                    max_v(v[2], at(r, c0 + 2)),
                    max_v(v[3], at(r, c0 + 18)),
                ];
            }
            let tap0 = _mm512_permutex2var_ps(v[0], even, v[1]);
            let tap1 = _mm512_permutex2var_ps(v[0], odd, v[1]);
            let tap2 = _mm512_permutex2var_ps(v[2], even, v[3]);
            let result = max_v(max_v(tap0, tap1), tap2);
            let lanes = (n - t0).min(16);
            if lanes == 16 {
                _mm512_storeu_ps(out.as_mut_ptr().add(t0), result);
            } else {
                _mm512_mask_storeu_ps(out.as_mut_ptr().add(t0), ((1u32 << lanes) - 1) as u16, result);
            }
        }
        t0 += 16;
    }
}

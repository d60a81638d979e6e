//! The AVX2 + FMA form of the direct kernel's tiles and store: the same filter blocks of 16
//! output channels, each held as two 8-lane halves, and the same pixel-major sums
//! `[block][pixel][16]`, so the driver ([`super::conv`]) is shared.
//!
//! A tile is one block × 6 pixels: 12 ymm sums; per tap 2 aligned weight loads and 6
//! broadcast inputs for 12 FMAs (the shape of the AVX2 GEMM microkernel, 6 × 16). The blocks
//! of a channel group run one after the other over the run's pixels, so a chunk's weights of
//! one block (64 taps, 4 KiB) stay in L1. Each output is Σ over the taps in order with FMAs,
//! then + bias: the same operations per lane as the AVX-512 form, so the same bits.

use super::{Tiles, LANES};
use crate::kernels::epilogue::StoreActivation;
use crate::kernels::simd::transpose8_avx2;
use std::arch::x86_64::*;

/// Pixels of a tile.
const P: usize = 6;

/// Adds taps `t0..t0 + taps.len()` of a run's `n` output pixels to the sums of its `cb`
/// blocks, as [`Tiles::run`] does (the last tile's overrun reads `bases` past `n`).
///
/// # Safety
/// AVX2 and FMA; `bases` holds `n + P - 1` offsets; every `taps[t] + bases[i]` lies inside
/// `tiles.x`; `tiles.w` holds `cb` blocks of `k` taps (64-byte aligned); `sums` holds `cb`
/// blocks of `tiles.stride ≥ n + P - 1` pixels (64-byte aligned).
#[target_feature(enable = "avx2,fma")]
pub(super) unsafe fn run(
    tiles: &Tiles,
    cb: usize,
    bases: &[usize],
    n: usize,
    t0: usize,
    taps: &[usize],
    sums: *mut f32,
) {
    for c in 0..cb {
        for p0 in (0..n).step_by(P) {
            let base: [usize; P] = bases[p0..p0 + P].try_into().expect("P bases");
            // SAFETY (caller): as documented.
            unsafe { tile(tiles, c, base, t0, taps, sums.add((c * tiles.stride + p0) * LANES)) };
        }
    }
}

/// The sums of block `c` of the P pixels whose taps read from `base`, taps `t0..`.
///
/// # Safety
/// As [`run`]; `sums` is the tile's first pixel in block c.
#[inline(always)]
unsafe fn tile(tiles: &Tiles, c: usize, base: [usize; P], t0: usize, taps: &[usize], sums: *mut f32) {
    // SAFETY (caller): AVX2 and FMA here and below (inlined into `run`); the sums, inputs
    // and weights addressed lie inside their buffers.
    unsafe {
        let mut acc = [[_mm256_setzero_ps(); 2]; P];
        if t0 > 0 {
            for (p, a) in acc.iter_mut().enumerate() {
                *a = [_mm256_load_ps(sums.add(p * LANES)), _mm256_load_ps(sums.add(p * LANES + 8))];
            }
        }
        let xs: [*const f32; P] = base.map(|b| tiles.x.wrapping_add(b));
        let mut w = tiles.w.add((c * tiles.k + t0) * LANES);
        for &tap in taps {
            let wv = [_mm256_load_ps(w), _mm256_load_ps(w.add(8))];
            for (a, x) in acc.iter_mut().zip(xs) {
                let xv = _mm256_set1_ps(*x.add(tap));
                a[0] = _mm256_fmadd_ps(wv[0], xv, a[0]);
                a[1] = _mm256_fmadd_ps(wv[1], xv, a[1]);
            }
            w = w.add(LANES);
        }
        for (p, a) in acc.iter().enumerate() {
            _mm256_store_ps(sums.add(p * LANES), a[0]);
            _mm256_store_ps(sums.add(p * LANES + 8), a[1]);
        }
    }
}

/// A run's sums + bias, then `act` (a clamp or the AVX2 SiLU), transposed
/// into pixels `pixels` of the first `channels` planes at `y` (`oplane` apart), as
/// [`super::store`] does: per 8 channels × 8 pixels, one register transpose.
///
/// # Safety
/// AVX2 and FMA; those pixels of those planes belong to the caller; `sums` holds every
/// block's pixels up to the next multiple of 8; a SiLU only where the AVX-512 one is not
/// the activations' form (`StoreActivation::apply_avx2`).
#[allow(clippy::too_many_arguments)]
#[target_feature(enable = "avx2,fma")]
pub(super) unsafe fn store(
    sums: &[f32],
    stride: usize,
    bias: Option<&[f32]>,
    act: Option<StoreActivation>,
    channels: usize,
    y: *mut f32,
    oplane: usize,
    pixels: std::ops::Range<usize>,
) {
    for h in 0..channels.div_ceil(8) {
        let (c, half) = (h / 2, h % 2);
        let n = (channels - h * 8).min(8);
        let mut b = [0f32; 8];
        if let Some(bias) = bias {
            b[..n].copy_from_slice(&bias[h * 8..][..n]);
        }
        // SAFETY: AVX2 (this function's features), here and below.
        let b = unsafe { _mm256_loadu_ps(b.as_ptr()) };
        for q0 in (0..pixels.len()).step_by(8) {
            let valid = (pixels.len() - q0).min(8);
            let v = &sums[(c * stride + q0) * LANES + half * 8..][..7 * LANES + 8];
            // SAFETY: 8 pixels' halves inside the run's sums.
            let cols: [__m256; 8] =
                std::array::from_fn(|i| _mm256_add_ps(unsafe { _mm256_loadu_ps(v.as_ptr().add(i * LANES)) }, b));
            let rows = transpose8_avx2(cols);
            let mask = _mm256_cmpgt_epi32(_mm256_set1_epi32(valid as i32), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
            for (j, v) in rows.iter().enumerate().take(n) {
                let v = match act {
                    // SAFETY: AVX2 and FMA (this function's features).
                    Some(act) => unsafe { act.apply_avx2(*v) },
                    None => *v,
                };
                let at = y.wrapping_add((h * 8 + j) * oplane + pixels.start + q0);
                if valid == 8 {
                    // SAFETY (caller): pixels.start + q0.. of plane h·8 + j.
                    unsafe { _mm256_storeu_ps(at, v) };
                } else {
                    // SAFETY (caller): as above, under the mask.
                    unsafe { _mm256_maskstore_ps(at, mask, v) };
                }
            }
        }
    }
}

//! The AVX2 form of the direct int8 conv's fill, tiles and store, for CPUs without AVX-512
//! VNNI: the same driver ([`super::conv`]), filter blocks of 16 output channels and
//! pixel-major sums `[block][pixel][16]`.
//!
//! A padded word holds two input channels as 16-bit values (u8 widened, once per image), a
//! tap of a block's weights 16 channels × 2 input channels as i16: one `vpmaddwd` of a
//! broadcast word by a weight half (8 channels) gives 8 lanes of `x0·w0 + x1·w1`, exact (at
//! most 2 · 255 · 128 in magnitude), and one `vpaddd` adds them to the sums. No `vpmaddubsw`,
//! whose pair sum saturates at i16.
//!
//! A tile is one block × 6 pixels: 12 ymm sums; per tap 2 aligned weight loads and 6
//! broadcast words for 12 `vpmaddwd` + 12 `vpaddd` (the AVX2 float kernel's shape). The blocks
//! of a channel group run one after the other over the run's pixels, so a chunk's weights of
//! one block (64 taps, 4 KiB) stay in L1.

use super::super::conv::Geom;
use super::super::conv_direct::OutPlanes;
use super::super::quantize::low_bytes_avx2;
use super::super::requantize::RequantizerLanes8;
use super::super::simd::transpose8_avx2;
use super::{padded_dims, DirectFilterI8, Tiles, LANES, TAP_BYTES};
use std::arch::x86_64::*;

/// Pixels of a tile.
const P: usize = 6;

/// Fills channel pair `q`'s padded plane `words` (`rows × pitch`): word (r, c) holds input
/// channels 2q (low 16 bits) and 2q + 1 (high) at pixel (r − top, c − left), or the zero
/// point in the padding and for a channel past cin.
///
/// # Safety
/// The CPU has AVX2.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn fill_pair(g: &Geom, image: &[u8], q: usize, x_zero: u8, words: &mut [u32]) {
    let (rows, pitch) = padded_dims(g);
    let (top, left) = (g.padding[0], g.padding[2]);
    let plane = g.h * g.w;
    let zero = u32::from(x_zero);
    let zero_word = zero | zero << 16;
    for (r, row) in words[..rows * pitch].chunks_exact_mut(pitch).enumerate() {
        let Some(ih) = r.checked_sub(top).filter(|&ih| ih < g.h) else {
            row.fill(zero_word);
            continue;
        };
        row[..left].fill(zero_word);
        row[left + g.w..].fill(zero_word);
        // The two channels' input rows (None past cin: the zero point).
        let src = |j: usize| {
            let c = 2 * q + j;
            (c < g.cin).then(|| &image[c * plane + ih * g.w..][..g.w])
        };
        let (lo, hi) = (src(0), src(1));
        let dst = &mut row[left..left + g.w];
        let whole = g.w / 8 * 8;
        let widen = |s: Option<&[u8]>, c0: usize| match s {
            // SAFETY: bytes c0..c0 + 8 of the row (c0 + 8 ≤ whole ≤ w); AVX2 is enabled.
            Some(s) => unsafe { _mm256_cvtepu8_epi32(_mm_loadl_epi64(s.as_ptr().add(c0).cast())) },
            None => _mm256_set1_epi32(zero as i32),
        };
        for c0 in (0..whole).step_by(8) {
            let v = _mm256_or_si256(widen(lo, c0), _mm256_slli_epi32::<16>(widen(hi, c0)));
            // SAFETY: words c0..c0 + 8 of the row's interior.
            unsafe { _mm256_storeu_si256(dst.as_mut_ptr().add(c0).cast(), v) };
        }
        let byte = |s: Option<&[u8]>, c: usize| s.map_or(zero, |s| u32::from(s[c]));
        for (c, d) in dst.iter_mut().enumerate().skip(whole) {
            *d = byte(lo, c) | byte(hi, c) << 16;
        }
    }
}

/// Adds taps `t0..t0 + taps.len()` of a run's `n` output pixels to the sums of its `cb`
/// blocks, as the VNNI `Tiles::run` does (the last tile's overrun reads `bases` past `n`).
///
/// # Safety
/// AVX2; `bases` holds `n + P - 1` offsets; every `taps[t] + bases[i]` lies inside
/// `tiles.x`; `tiles.w` holds `cb` blocks of `k` taps (the AVX2 layout, 32-byte aligned);
/// `sums` holds `cb` blocks of `tiles.stride ≥ n + P - 1` pixels (32-byte aligned).
#[target_feature(enable = "avx2")]
pub(super) unsafe fn run(
    tiles: &Tiles,
    cb: usize,
    bases: &[usize],
    n: usize,
    t0: usize,
    taps: &[usize],
    sums: *mut i32,
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
unsafe fn tile(tiles: &Tiles, c: usize, base: [usize; P], t0: usize, taps: &[usize], sums: *mut i32) {
    // SAFETY (caller): AVX2 here and below (inlined into `run`); the sums, inputs and weights
    // addressed lie inside their buffers.
    unsafe {
        let mut acc = [[_mm256_setzero_si256(); 2]; P];
        if t0 > 0 {
            for (p, a) in acc.iter_mut().enumerate() {
                let at = sums.add(p * LANES);
                *a = [_mm256_load_si256(at.cast()), _mm256_load_si256(at.add(8).cast())];
            }
        }
        let xs: [*const u32; P] = base.map(|b| tiles.x.wrapping_add(b));
        let mut w = tiles.w.add((c * tiles.k + t0) * TAP_BYTES);
        for &tap in taps {
            let wv = [_mm256_load_si256(w.cast()), _mm256_load_si256(w.add(32).cast())];
            for (a, x) in acc.iter_mut().zip(xs) {
                // Two input channels (u16) of one pixel, times 8 output channels' two i16
                // weights, added pairwise into the i32 sums (exact).
                let xv = _mm256_set1_epi32(x.add(tap).read() as i32);
                a[0] = _mm256_add_epi32(a[0], _mm256_madd_epi16(xv, wv[0]));
                a[1] = _mm256_add_epi32(a[1], _mm256_madd_epi16(xv, wv[1]));
            }
            w = w.add(TAP_BYTES);
        }
        for (p, a) in acc.iter().enumerate() {
            let at = sums.add(p * LANES);
            _mm256_store_si256(at.cast(), a[0]);
            _mm256_store_si256(at.add(8).cast(), a[1]);
        }
    }
}

/// A run's sums `[block][pixel][16]` (blocks `stride` pixels apart), transposed 8 × 8 into
/// channel rows, zero-point corrected, requantized, into pixels `pixels` of planes
/// `channels`, as the VNNI `store` does.
///
/// # Safety
/// AVX2; those pixels of those planes belong to the caller; `sums` holds whole 16-pixel
/// vectors past `pixels.len()`.
#[allow(clippy::too_many_arguments)]
#[target_feature(enable = "avx2")]
pub(super) unsafe fn store(
    sums: &[i32],
    stride: usize,
    filter: &DirectFilterI8,
    x_zero: u8,
    channels: std::ops::Range<usize>,
    y: OutPlanes<u8>,
    oplane: usize,
    pixels: std::ops::Range<usize>,
) {
    let x_zero = i32::from(x_zero);
    for h in 0..channels.len().div_ceil(8) {
        let (c, half) = (h / 2, h % 2);
        let co0 = channels.start + h * 8;
        let n = (channels.end - co0).min(8);
        // Each channel's requantization and zero-point correction (the last channel again
        // past n, never stored).
        let lanes: [(RequantizerLanes8, __m256i); 8] = std::array::from_fn(|j| {
            let co = co0 + j.min(n - 1);
            // No overflow: |Σw| ≤ 128 · MAX_DEPTH and x_zero ≤ 255 (int8_gemm, Limits).
            (RequantizerLanes8::new(&filter.requant[co]), _mm256_set1_epi32(x_zero * filter.sums[co]))
        });
        for q0 in (0..pixels.len()).step_by(8) {
            let count = (pixels.len() - q0).min(8);
            let v = &sums[(c * stride + q0) * LANES + half * 8..][..7 * LANES + 8];
            // SAFETY: 8 pixels' halves inside the run's sums.
            let cols: [__m256; 8] = std::array::from_fn(|i| {
                _mm256_castsi256_ps(unsafe { _mm256_loadu_si256(v.as_ptr().add(i * LANES).cast()) })
            });
            let rows = transpose8_avx2(cols);
            for (j, (rq, corr)) in lanes.iter().enumerate().take(n) {
                let q = low_bytes_avx2(rq.apply(_mm256_sub_epi32(_mm256_castps_si256(rows[j]), *corr)));
                let at = y.at((co0 + j) * oplane + pixels.start + q0);
                if count == 8 {
                    // SAFETY (caller): pixels pixels.start + q0.. (8 of them) of plane co0 + j.
                    unsafe { _mm_storel_epi64(at.cast(), q) };
                } else {
                    let mut bytes = [0u8; 16];
                    // SAFETY: 16 bytes into the array.
                    unsafe { _mm_storeu_si128(bytes.as_mut_ptr().cast(), q) };
                    // SAFETY (caller): `count` pixels of plane co0 + j from `at`.
                    unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), at, count) };
                }
            }
        }
    }
}

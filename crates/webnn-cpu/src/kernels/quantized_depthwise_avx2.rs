//! The quantized depthwise conv's plane in AVX2 + FMA, for CPUs without AVX-512: the sums of
//! up to 32 outputs of a row stay in four ymm registers over the whole window, and are
//! requantized and stored as bytes from there. (The row-at-a-time loops of
//! [`super::quantized_depthwise`] load and store a row of sums per tap, then requantize the
//! plane in a second pass: MobileNetV2 int8's 144-channel 3×3 on 56² took 1.35 ms on Zen 3,
//! 0.3 ns per multiply-add.)
//!
//! The arithmetic is that module's: the padded plane holds `x − x_zero` as float32, the
//! weights are float32 integers, every product and partial sum is an integer below 2^24
//! (`MAX_TAPS`), so each fused multiply-add is exact and the sums are the exact integer sums
//! whatever the order; the folded requantization then gives the bytes of
//! `Requantizer::apply`. At width stride 2 each padded row is stored split by column parity
//! (its even columns, then its odd: [`widen_row`]), so that a tap's 8 inputs are 8 adjacent
//! floats of one half, one plain load (taking the even lanes of two loads with `vshufps` +
//! `vpermpd` instead ran MobileNetV2's 96-channel 3×3 stride 2 on 112² at 0.66–0.85 ms).

use super::conv::Geom;
use super::quantize::low_bytes_avx2;
use super::requantize::{Requantizer, RequantizerLanes8};
use std::arch::x86_64::*;

/// Vectors of 8 outputs whose sums a chunk keeps in registers.
const VECTORS: usize = 4;

/// Widens an input row into the padded float plane: `to[i] = row[i] − zero`.
///
/// # Safety
/// The CPU has AVX2.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn widen(row: &[u8], zero: f32, to: &mut [f32]) {
    let n = row.len().min(to.len());
    let whole = n / 8 * 8;
    let z = _mm256_set1_ps(zero);
    for i in (0..whole).step_by(8) {
        // SAFETY: bytes i..i + 8 of the row and floats i..i + 8 of `to` (i + 8 ≤ n).
        unsafe {
            let v = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_loadl_epi64(row.as_ptr().add(i).cast())));
            _mm256_storeu_ps(to.as_mut_ptr().add(i), _mm256_sub_ps(v, z));
        }
    }
    for (d, &v) in to[whole..n].iter_mut().zip(&row[whole..n]) {
        *d = v as f32 - zero;
    }
}

/// Widens input row `row` into its padded row `dst` (`pw` floats) as `x − zero` from padded
/// column `left` on; at width stride 2 in [`plane`]'s split layout: padded column c at
/// `c / 2` of the even half (`pw.div_ceil(2)` floats) or of the odd half after it. Only the
/// row's own columns are written (the padding is the caller's, the same for every plane).
///
/// # Safety
/// The CPU has AVX2.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn widen_row(stride: usize, left: usize, row: &[u8], zero: f32, dst: &mut [f32]) {
    if stride != 2 {
        // SAFETY (caller): AVX2.
        unsafe { widen(row, zero, &mut dst[left..left + row.len()]) };
        return;
    }
    let half = dst.len().div_ceil(2);
    // Padded column c's place in the split row.
    let at = |c: usize| (c % 2) * half + c / 2;
    let z = _mm256_set1_ps(zero);
    // Bytes 0, 2, .., 14 to the low 8, 1, 3, .., 15 to the high 8 (of 8 bytes: 0, 2, 4, 6 to
    // the low 4, 1, 3, 5, 7 to the next 4).
    let parity16 = _mm_setr_epi8(0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15);
    let parity8 = _mm_setr_epi8(0, 2, 4, 6, 1, 3, 5, 7, -1, -1, -1, -1, -1, -1, -1, -1);
    let mut i = 0;
    // Row bytes i + 2j land in column c + 2j (at `at(c) + j`), bytes i + 2j + 1 in column
    // c + 1 + 2j (at `at(c + 1) + j`): interior columns of the row, 8 (or 4) of each parity.
    while i + 16 <= row.len() {
        let c = left + i;
        let (a, b) = (at(c), at(c + 1));
        assert!(a.max(b) + 8 <= dst.len(), "split row: columns {c}.. past {}", dst.len());
        // SAFETY: bytes i..i + 16 of the row; 8 floats from a and from b inside `dst`
        // (asserted).
        unsafe {
            let v = _mm_shuffle_epi8(_mm_loadu_si128(row.as_ptr().add(i).cast()), parity16);
            let first = _mm256_sub_ps(_mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(v)), z);
            let second = _mm256_sub_ps(_mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_srli_si128::<8>(v))), z);
            _mm256_storeu_ps(dst.as_mut_ptr().add(a), first);
            _mm256_storeu_ps(dst.as_mut_ptr().add(b), second);
        }
        i += 16;
    }
    if i + 8 <= row.len() {
        let c = left + i;
        let (a, b) = (at(c), at(c + 1));
        assert!(a.max(b) + 4 <= dst.len(), "split row: columns {c}.. past {}", dst.len());
        // SAFETY: bytes i..i + 8 of the row; 4 floats from a and from b inside `dst`
        // (asserted).
        unsafe {
            let v = _mm_shuffle_epi8(_mm_loadl_epi64(row.as_ptr().add(i).cast()), parity8);
            let first = _mm256_sub_ps(_mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(v)), z);
            _mm_storeu_ps(dst.as_mut_ptr().add(a), _mm256_castps256_ps128(first));
            _mm_storeu_ps(dst.as_mut_ptr().add(b), _mm256_extractf128_ps::<1>(first));
        }
        i += 8;
    }
    for (j, &x) in row.iter().enumerate().skip(i) {
        dst[at(left + j)] = x as f32 - zero;
    }
}

/// Where tap column `v` (kernel column v, dilation `dw`) of output column 0 reads, in a padded
/// row `pw` floats long: `v·dw` at width stride 1; in the split layout ([`widen_row`]) at
/// stride 2, `v·dw / 2` in the half of `v·dw`'s parity (output column ox then reads `ox`
/// further: padded column `2·ox + v·dw`).
#[inline(always)]
fn tap_column(stride: usize, pw: usize, v: usize, dw: usize) -> usize {
    let c = v * dw;
    if stride == 2 {
        (c % 2) * pw.div_ceil(2) + c / 2
    } else {
        c
    }
}

/// Whether [`plane`] stays inside a padded plane of `len` floats, `pw` to a row: its last
/// chunk of a row reads up to 8 outputs' inputs past the row's last output.
pub(super) fn fits(g: &Geom, pw: usize, len: usize) -> bool {
    let ([sh, sw], [dh, dw]) = (g.strides, g.dilations);
    if g.oh == 0 || g.ow == 0 || g.kw == 0 || !matches!(sw, 1 | 2) {
        return false;
    }
    // The last vector of the last row: outputs up to ow rounded up to 8, one float each from
    // the tap column that reads furthest.
    let furthest = (0..g.kw).map(|v| tap_column(sw, pw, v, dw)).max().unwrap_or(0);
    let last = (g.oh - 1) * sh * pw + (g.kh - 1) * dh * pw + furthest;
    last + g.ow.next_multiple_of(8) <= len
}

/// Channel plane `y` (`oh × ow` bytes) of the depthwise conv: the window sums of the padded
/// plane (`pw` floats to a row; at width stride 2 each row split by parity, [`widen_row`])
/// with the weights `taps` (`kh × kw`), requantized by `rq`.
///
/// # Safety
/// AVX2 and FMA; [`fits`]`(g, pw, padded.len())`; `y` holds `oh × ow` bytes, `taps` `kh · kw`
/// weights.
#[target_feature(enable = "avx2,fma")]
pub(super) unsafe fn plane(g: &Geom, padded: &[f32], pw: usize, taps: &[f32], rq: &Requantizer, y: &mut [u8]) {
    match (g.kh, g.kw) {
        // SAFETY (caller): forwarded.
        (3, 3) => unsafe { rows::<3, 3>(g, padded, pw, taps, rq, y) },
        // SAFETY (caller): forwarded.
        (5, 5) => unsafe { rows::<5, 5>(g, padded, pw, taps, rq, y) },
        // SAFETY (caller): forwarded.
        _ => unsafe { rows::<0, 0>(g, padded, pw, taps, rq, y) },
    }
}

/// [`plane`] for a `KH × KW` window known when compiled (0: `g`'s, read at run time), so
/// that the common 3×3 and 5×5 windows run fully unrolled.
///
/// # Safety
/// As [`plane`].
#[inline(always)]
unsafe fn rows<const KH: usize, const KW: usize>(
    g: &Geom,
    padded: &[f32],
    pw: usize,
    taps: &[f32],
    rq: &Requantizer,
    y: &mut [u8],
) {
    // SAFETY (caller): AVX2.
    let lanes = unsafe { RequantizerLanes8::new(rq) };
    let (ow, sh) = (g.ow, g.strides[0]);
    for (oy, out) in y.chunks_exact_mut(ow).take(g.oh).enumerate() {
        let row = padded.as_ptr().wrapping_add(oy * sh * pw);
        let mut ox = 0;
        while ox < ow {
            let vectors = (ow - ox).div_ceil(8).min(VECTORS);
            // SAFETY (caller): `fits` bounds every read of the chunk; the stores stay in `out`.
            unsafe {
                match (g.strides[1], vectors) {
                    (1, 4) => chunk::<4, 1, KH, KW>(g, row, pw, taps, ox, &lanes, out),
                    (1, 3) => chunk::<3, 1, KH, KW>(g, row, pw, taps, ox, &lanes, out),
                    (1, 2) => chunk::<2, 1, KH, KW>(g, row, pw, taps, ox, &lanes, out),
                    (1, _) => chunk::<1, 1, KH, KW>(g, row, pw, taps, ox, &lanes, out),
                    (_, 4) => chunk::<4, 2, KH, KW>(g, row, pw, taps, ox, &lanes, out),
                    (_, 3) => chunk::<3, 2, KH, KW>(g, row, pw, taps, ox, &lanes, out),
                    (_, 2) => chunk::<2, 2, KH, KW>(g, row, pw, taps, ox, &lanes, out),
                    (_, _) => chunk::<1, 2, KH, KW>(g, row, pw, taps, ox, &lanes, out),
                }
            }
            ox += 8 * vectors;
        }
    }
}

/// Outputs `ox..ox + 8·NV` of one row (those past the row computed, not stored), width
/// stride `SW`, window `KH × KW` (0: `g`'s): the window's taps in order, then the
/// requantization.
///
/// # Safety
/// As [`plane`]; `row` is the output row's first padded input row.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
unsafe fn chunk<const NV: usize, const SW: usize, const KH: usize, const KW: usize>(
    g: &Geom,
    row: *const f32,
    pw: usize,
    taps: &[f32],
    ox: usize,
    lanes: &RequantizerLanes8,
    out: &mut [u8],
) {
    let [dh, dw] = g.dilations;
    let (kh, kw) = if KH > 0 { (KH, KW) } else { (g.kh, g.kw) };
    // SAFETY (caller): AVX2 and FMA (inlined into `plane`); every read inside the padded plane.
    unsafe {
        let mut acc = [_mm256_setzero_ps(); NV];
        let start = row.add(ox);
        for u in 0..kh {
            for v in 0..kw {
                let w = _mm256_set1_ps(*taps.get_unchecked(u * kw + v));
                let src = start.add(u * dh * pw + tap_column(SW, pw, v, dw));
                for (i, a) in acc.iter_mut().enumerate() {
                    // Exact: integers below 2^24 (module documentation).
                    *a = _mm256_fmadd_ps(w, _mm256_loadu_ps(src.add(8 * i)), *a);
                }
            }
        }
        for (i, &a) in acc.iter().enumerate() {
            let at = ox + 8 * i;
            if at >= out.len() {
                break;
            }
            let q = low_bytes_avx2(lanes.apply_f32(a));
            let n = (out.len() - at).min(8);
            if n == 8 {
                _mm_storel_epi64(out.as_mut_ptr().add(at).cast(), q);
            } else {
                let mut bytes = [0u8; 16];
                _mm_storeu_si128(bytes.as_mut_ptr().cast(), q);
                out[at..at + n].copy_from_slice(&bytes[..n]);
            }
        }
    }
}

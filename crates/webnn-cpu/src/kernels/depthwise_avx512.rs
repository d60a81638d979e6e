//! The nchw depthwise plane kernels in AVX-512: one output plane from the zero-padded,
//! phase-split input plane of [`super::depthwise`] (every tap of output `(oh, ow)` reads
//! `padded[tap_offset + oh·pitch + ow]`), computed straight into the output rows; output
//! rows are cut into vectors of 16 pixels, the last one masked (masked lanes are neither read
//! nor written).
//!
//! - [`plane_streamed`] (3×3 and 5×5, strides 1 or 2, no dilation: nearly every depthwise conv
//!   of MobileNet/EfficientNet-style nets) streams the input rows past a window of output-row
//!   accumulators held in registers, so that one load feeds every output row that reads it.
//! - [`plane`] (any other window) computes [`GROUP`] output vectors together, one load per
//!   tap and vector, so that their fused multiply-add chains overlap.
//!
//! Every output adds its taps to the bias in window order (row, then column) with fused
//! multiply-adds, as the portable plane kernel and [`super::depthwise_blocked`] do: all give
//! the same bits.
//!
//! Measured (`cargo bench -p webnn-cpu --bench kernels -- depthwise`, 1 thread, busy 2-core
//! VM; the portable plane kernel or depthwise_blocked → these): 3×3 96 ch 112² 0.47 → 0.31 ms;
//! 5×5 144 ch 56² 0.33 → 0.17–0.21; 5×5 672 ch 14² 0.26 → 0.09; 5×5 1152 ch 7² 0.15 → 0.12;
//! 3×3 144 ch 28² 0.051 → 0.033; 3×3 384 ch 14² 0.063 → 0.038; 3×3 stride 2 96 ch 112²
//! 0.23 → 0.19; 5×5 stride 2 144 ch 56² 0.19 → 0.12.

use std::arch::x86_64::*;

/// Output vectors computed together.
const GROUP: usize = 8;

/// One output vector: where its taps start in the padded plane, where it is stored, and which
/// of its 16 lanes are pixels of the row.
#[derive(Clone, Copy)]
struct Job {
    src: usize,
    dst: usize,
    mask: __mmask16,
}

/// A [`streamed`](super::depthwise::streamed) plane: `o[oh·ow_n + ow] = bias + Σ_{kh,kw} w[kh·k + kw]·x(s·oh + kh,
/// s·ow + kw)`, taps in window order, where the padded input is split by phase (stride s):
/// padded row r, column c at `((r % s)·s + c % s)·phase + (r / s)·pitch + c / s`.
///
/// The input rows stream top to bottom past a window of output-row accumulators per column
/// vector: each loaded input vector (phase row u, tap column kw) feeds every output row that
/// reads it, each with its own weight, and the oldest row is stored once it has all its taps.
/// Each output still adds its taps in window order (its kh ascends with u, then with the row
/// phase). Loads per output vector drop from k² to about k²/(number of rows sharing a load);
/// the accumulator indices are static, so they stay in registers.
///
/// # Safety
/// The CPU must support AVX-512F. `padded` is the phase-split plane of
/// `depthwise::PhaseLayout` for this geometry (one row of slack after the last phase plane);
/// `o.len() == oh_n·ow_n`; `w.len() == k²`.
#[target_feature(enable = "avx512f,avx512vl,avx2,fma")]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn plane_streamed(
    padded: &[f32],
    pitch: usize,
    phase: usize,
    k: usize,
    stride: usize,
    w: &[f32],
    bias: f32,
    o: &mut [f32],
    oh_n: usize,
    ow_n: usize,
) {
    debug_assert_eq!(o.len(), oh_n * ow_n);
    debug_assert!(phase * stride * stride + pitch <= padded.len());
    let (x, y) = (padded.as_ptr(), o.as_mut_ptr());
    let mut ow0 = 0;
    while ow0 < ow_n {
        let vectors = (ow_n - ow0).div_ceil(16);
        let mask = |c: usize| -> __mmask16 {
            let lanes = ow_n.saturating_sub(ow0 + 16 * c).min(16);
            ((1u32 << lanes) - 1) as u16
        };
        // SAFETY: ow0 < ow_n ≤ pitch and o has ow_n columns: both stay inside their planes.
        let at = Strip { x: unsafe { x.add(ow0) }, pitch, phase, y: unsafe { y.add(ow0) }, ow_n, oh_n };
        let m1 = [mask(0)];
        let m2 = [mask(0), mask(1)];
        let m4 = [mask(0), mask(1), mask(2), mask(3)];
        // SAFETY (caller): the rows and the masked columns lie inside both planes.
        unsafe {
            match (k, stride, vectors) {
                (3, 1, 1) => strip::<3, 1, 1, 3, 1>([at], [w], [bias], m1),
                (3, 1, 2) => strip::<3, 1, 2, 3, 1>([at], [w], [bias], m2),
                (3, 1, _) => strip::<3, 1, 4, 3, 1>([at], [w], [bias], m4),
                (5, 1, 1) => strip::<5, 1, 1, 5, 1>([at], [w], [bias], m1),
                (5, 1, 2) => strip::<5, 1, 2, 5, 1>([at], [w], [bias], m2),
                (5, 1, _) => strip::<5, 1, 4, 5, 1>([at], [w], [bias], m4),
                (3, _, 1) => strip::<3, 2, 1, 2, 1>([at], [w], [bias], m1),
                (3, _, 2) => strip::<3, 2, 2, 2, 1>([at], [w], [bias], m2),
                (3, _, _) => strip::<3, 2, 4, 2, 1>([at], [w], [bias], m4),
                (_, _, 1) => strip::<5, 2, 1, 3, 1>([at], [w], [bias], m1),
                (_, _, 2) => strip::<5, 2, 2, 3, 1>([at], [w], [bias], m2),
                _ => strip::<5, 2, 4, 3, 1>([at], [w], [bias], m4),
            }
        }
        ow0 += 16 * vectors.min(4);
    }
}

/// Where [`strip`] reads and writes: the first column of a strip of both planes.
#[derive(Clone, Copy)]
struct Strip {
    x: *const f32,
    pitch: usize,
    phase: usize,
    y: *mut f32,
    ow_n: usize,
    oh_n: usize,
}

/// Every output row of a strip of C column vectors (lanes under `masks`) of P planes of a
/// `K`×`K`, stride-`S` depthwise conv (same geometry, own weights and bias), the phase rows
/// streaming past `M` = (K − 1)/S + 1 accumulator rows per plane. Two planes one vector wide
/// give twice the independent FMA chains of one.
///
/// # Safety
/// As [`plane_streamed`], for this strip of every plane.
#[inline]
#[target_feature(enable = "avx512f,avx512vl,avx2,fma")]
unsafe fn strip<const K: usize, const S: usize, const C: usize, const M: usize, const P: usize>(
    at: [Strip; P],
    w: [&[f32]; P],
    bias: [f32; P],
    masks: [__mmask16; C],
) {
    debug_assert_eq!(M, (K - 1) / S + 1);
    let w: [&[f32]; P] = w.map(|w| &w[..K * K]);
    let init: [__m512; P] = bias.map(|b| _mm512_set1_ps(b));
    let (pitch, phase, ow_n, oh_n) = (at[0].pitch, at[0].phase, at[0].ow_n, at[0].oh_n);
    // acc[q][i] holds plane q's output row u − (M − 1) + i; at phase row u it takes tap row
    // kh = S·(M − 1 − i) + row phase.
    let mut acc: [[[__m512; C]; M]; P] = std::array::from_fn(|q| [[init[q]; C]; M]);
    for u in 0..oh_n + M - 1 {
        for ph in 0..S {
            for kw in 0..K {
                let src = (ph * S + kw % S) * phase + u * pitch + kw / S;
                for q in 0..P {
                    // SAFETY (caller): inside the phase-split plane (its slack row included).
                    let v: [__m512; C] =
                        std::array::from_fn(|c| unsafe { _mm512_maskz_loadu_ps(masks[c], at[q].x.add(src + 16 * c)) });
                    for (i, a) in acc[q].iter_mut().enumerate() {
                        let kh = S * (M - 1 - i) + ph;
                        if kh < K {
                            let wv = _mm512_set1_ps(w[q][kh * K + kw]);
                            for c in 0..C {
                                a[c] = _mm512_fmadd_ps(wv, v[c], a[c]);
                            }
                        }
                    }
                }
            }
        }
        // Output row u − (M − 1) has all its taps (rows before 0 are discarded).
        if u + 1 >= M {
            let oh = u + 1 - M;
            for q in 0..P {
                for c in 0..C {
                    // SAFETY (caller): output row oh < oh_n, lanes under the mask.
                    unsafe { _mm512_mask_storeu_ps(at[q].y.add(oh * ow_n + 16 * c), masks[c], acc[q][0][c]) };
                }
            }
        }
        for q in 0..P {
            for i in 0..M - 1 {
                acc[q][i] = acc[q][i + 1];
            }
            acc[q][M - 1] = [init[q]; C];
        }
    }
}

/// Two [`streamed`](super::depthwise::streamed) planes one vector wide (`ow_n ≤ 16`) of the same geometry at once: as
/// [`plane_streamed`] on each, with twice the independent FMA chains.
///
/// # Safety
/// As [`plane_streamed`] for each plane; `ow_n ≤ 16`.
#[target_feature(enable = "avx512f,avx512vl,avx2,fma")]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn pair_streamed(
    padded: [&[f32]; 2],
    pitch: usize,
    phase: usize,
    k: usize,
    stride: usize,
    w: [&[f32]; 2],
    bias: [f32; 2],
    o: [&mut [f32]; 2],
    oh_n: usize,
    ow_n: usize,
) {
    debug_assert!(ow_n <= 16);
    debug_assert!(o.iter().all(|o| o.len() == oh_n * ow_n));
    let mask = [((1u32 << ow_n.min(16)) - 1) as u16];
    let [oa, ob] = o;
    let at = [
        Strip { x: padded[0].as_ptr(), pitch, phase, y: oa.as_mut_ptr(), ow_n, oh_n },
        Strip { x: padded[1].as_ptr(), pitch, phase, y: ob.as_mut_ptr(), ow_n, oh_n },
    ];
    // SAFETY (caller): the rows and the masked columns lie inside every plane.
    unsafe {
        match (k, stride) {
            (3, 1) => strip::<3, 1, 1, 3, 2>(at, w, bias, mask),
            (5, 1) => strip::<5, 1, 1, 5, 2>(at, w, bias, mask),
            (3, _) => strip::<3, 2, 1, 2, 2>(at, w, bias, mask),
            _ => strip::<5, 2, 1, 3, 2>(at, w, bias, mask),
        }
    }
}

/// Copies the rows of a stride-1 input plane (`xp`, rows of `w`) into the padded plane at
/// `padded[first + r·pitch..]`, each with `simd::copy_masked` (a `copy_from_slice` of a short
/// row is a call to `memcpy`, which cost about as much as the taps of a 7×7 plane).
///
/// # Safety
/// The CPU must support AVX-512F; `w > 0`; every row's destination lies inside `padded`.
#[target_feature(enable = "avx512f")]
pub(super) unsafe fn copy_rows(xp: &[f32], w: usize, padded: &mut [f32], first: usize, pitch: usize) {
    debug_assert!(w > 0 && xp.len().is_multiple_of(w));
    for (r, row) in xp.chunks_exact(w).enumerate() {
        // SAFETY (caller): AVX-512F; both runs hold w floats.
        unsafe { super::simd::copy_masked(&mut padded[first + r * pitch..][..w], row) };
    }
}

/// Copies the rows of an input plane (`xp`, rows of `w`) into the padded plane split by
/// column phase (stride 2 along the width): row r's columns 0, 2, 4, … to consecutive
/// elements from `at(r).0`, its columns 1, 3, … from `at(r).1`. 32 columns at a time: two
/// (masked) loads, two permutes, two masked stores.
///
/// # Safety
/// The CPU must support AVX-512F; every row's destinations (`⌈w/2⌉` and `⌊w/2⌋` elements)
/// lie inside `padded`.
#[target_feature(enable = "avx512f")]
pub(super) unsafe fn split_rows(xp: &[f32], w: usize, padded: &mut [f32], at: impl Fn(usize) -> (usize, usize)) {
    debug_assert!(w > 0 && xp.len().is_multiple_of(w));
    let mask = |n: usize| ((1u32 << n.min(16)) - 1) as u16;
    let even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    let odd = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
    let (src, dst) = (xp.as_ptr(), padded.as_mut_ptr());
    for r in 0..xp.len() / w {
        let (de, dodd) = at(r);
        debug_assert!(de + w.div_ceil(2) <= padded.len() && dodd + w / 2 <= padded.len());
        let mut c = 0;
        while c < w {
            let n = (w - c).min(32);
            // SAFETY (caller): the n floats from column c lie inside row r of `xp`, and their
            // halves inside the row's two phase rows of `padded`.
            unsafe {
                let s = src.add(r * w + c);
                let a = _mm512_maskz_loadu_ps(mask(n), s);
                let b = _mm512_maskz_loadu_ps(mask(n.saturating_sub(16)), s.add(16));
                let ev = _mm512_permutex2var_ps(a, even, b);
                let od = _mm512_permutex2var_ps(a, odd, b);
                _mm512_mask_storeu_ps(dst.add(de + c / 2), mask(n.div_ceil(2)), ev);
                _mm512_mask_storeu_ps(dst.add(dodd + c / 2), mask(n / 2), od);
            }
            c += 32;
        }
    }
}

/// Computes an output plane `o` (`oh` rows of `ow` pixels) of a depthwise conv:
/// `o[oh·ow_n + ow] = bias + Σ_t w[t]·padded[taps[t] + oh·pitch + ow]`, taps in window order.
///
/// # Safety
/// The CPU must support AVX-512F. Every `taps[t] + (oh_n − 1)·pitch + ow_n − 1` lies inside
/// `padded`; `o.len() == oh_n·ow_n`; `w.len() == taps.len()`.
#[target_feature(enable = "avx512f,avx512vl,avx2,fma")]
#[allow(clippy::too_many_arguments)] // one plane's geometry, taps and buffers
pub(super) unsafe fn plane(
    padded: &[f32],
    pitch: usize,
    taps: &[usize],
    w: &[f32],
    bias: f32,
    o: &mut [f32],
    oh_n: usize,
    ow_n: usize,
) {
    debug_assert_eq!(o.len(), oh_n * ow_n);
    debug_assert!(taps.iter().all(|&t| oh_n == 0 || ow_n == 0 || t + (oh_n - 1) * pitch + ow_n <= padded.len()));
    let (x, y) = (padded.as_ptr(), o.as_mut_ptr());
    let mut group = [Job { src: 0, dst: 0, mask: 0 }; GROUP];
    let mut len = 0;
    for oh in 0..oh_n {
        let mut ow = 0;
        while ow < ow_n {
            let lanes = (ow_n - ow).min(16);
            group[len] = Job { src: oh * pitch + ow, dst: oh * ow_n + ow, mask: ((1u32 << lanes) - 1) as u16 };
            len += 1;
            if len == GROUP {
                // SAFETY: the caller's bounds cover every job's lanes.
                unsafe { run::<GROUP>(x, y, taps, w, bias, &group) };
                len = 0;
            }
            ow += 16;
        }
    }
    // The remainder, at most GROUP − 1 vectors, in groups of 4, 2, 1.
    let mut at = 0;
    for size in [4, 2, 1] {
        while len - at >= size {
            let rest = &group[at..at + size];
            // SAFETY: as above.
            unsafe {
                match size {
                    4 => run::<4>(x, y, taps, w, bias, rest),
                    2 => run::<2>(x, y, taps, w, bias, rest),
                    _ => run::<1>(x, y, taps, w, bias, rest),
                }
            }
            at += size;
        }
    }
}

/// `N` output vectors: bias, then every tap as one FMA per vector.
///
/// # Safety
/// As [`plane`]; `jobs.len() == N`.
#[inline]
#[target_feature(enable = "avx512f,avx512vl,avx2,fma")]
unsafe fn run<const N: usize>(x: *const f32, y: *mut f32, taps: &[usize], w: &[f32], bias: f32, jobs: &[Job]) {
    let jobs: &[Job; N] = jobs.try_into().expect("N jobs");
    let mut acc = [_mm512_set1_ps(bias); N];
    if jobs.iter().all(|j| j.mask == u16::MAX) {
        // Whole vectors (plain loads are faster than masked ones).
        for (&t, &wt) in taps.iter().zip(w) {
            let wv = _mm512_set1_ps(wt);
            for (a, job) in acc.iter_mut().zip(jobs) {
                // SAFETY (caller): the 16 lanes lie inside the padded plane.
                let xv = unsafe { _mm512_loadu_ps(x.add(t + job.src)) };
                *a = _mm512_fmadd_ps(wv, xv, *a);
            }
        }
    } else {
        for (&t, &wt) in taps.iter().zip(w) {
            let wv = _mm512_set1_ps(wt);
            for (a, job) in acc.iter_mut().zip(jobs) {
                // SAFETY (caller): lanes under the mask lie inside the padded plane.
                let xv = unsafe { _mm512_maskz_loadu_ps(job.mask, x.add(t + job.src)) };
                *a = _mm512_fmadd_ps(wv, xv, *a);
            }
        }
    }
    for (a, job) in acc.iter().zip(jobs) {
        // SAFETY (caller): lanes under the mask lie inside the output plane.
        unsafe { _mm512_mask_storeu_ps(y.add(job.dst), job.mask, *a) };
    }
}

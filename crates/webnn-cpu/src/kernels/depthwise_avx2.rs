//! The streamed nchw depthwise plane kernel in AVX2 + FMA: the AVX-512 kernel's
//! [`plane_streamed`](super::depthwise_avx512::plane_streamed) (3×3 and 5×5 windows, strides 1
//! or 2, no dilation) with vectors of 8 pixels.
//!
//! The input rows of the zero-padded, phase-split plane of [`super::depthwise`] stream top to
//! bottom past a window of output-row accumulators per column vector: each loaded input
//! vector feeds every output row that reads it, each with its own weight, and the oldest row
//! is stored once it has all its taps. Sixteen ymm registers hold M accumulator rows × C
//! column vectors, the C loaded vectors and one weight, so C is chosen per window and stride
//! ([`strip_vectors`]). Strips of whole vectors load and store plainly; the row's last strip
//! masks its lanes (`vmaskmovps`, which reads and writes nothing under a clear lane; its
//! store form is slow on AMD cores, so only partial vectors use it).
//!
//! Every output adds its taps to the bias in window order (row, then column) with fused
//! multiply-adds, as the other depthwise kernels do: all give the same bits.
//!
//! Measured (`cargo bench -p webnn-cpu --bench kernels -- depthwise`, 1 thread, Zen 3, one
//! run each on a noisy host; the portable plane kernel → this, ms): stride 2: 3×3 96 ch 112²
//! 0.57 → 0.43, 144 ch 56² 0.29 → 0.22, 576 ch 14² 0.24 → 0.12, 192 ch 28² 0.16 → 0.10; 5×5
//! 144 ch 56² 0.46 → 0.28, 240 ch 28² 0.33 → 0.19. Stride 1: 5×5 144 ch 56² 0.89 → 0.66,
//! 3×3 384 ch 14² 0.16 → 0.08, 576 ch 14² 0.14 → 0.12; on 112² and 56² planes 3×3 measured
//! 0.27 → 0.18–0.36 (32 ch 112²), within the noise of the portable loop, not yet A/B'd.

use std::arch::x86_64::*;

/// Pixels per vector.
const LANES: usize = 8;

/// Column vectors of a strip for a `k`×`k` window at stride `s` (M = (k − 1)/s + 1
/// accumulator rows): the most with M·C + C + 1 ≤ 16 registers, and no more than 4.
const fn strip_vectors(k: usize, s: usize) -> usize {
    match (k, s) {
        (3, 1) => 3,
        (5, 1) => 2,
        (3, _) => 4,
        _ => 3,
    }
}

/// A streamed plane (see [`super::depthwise::streamed`]): `o[oh·ow_n + ow] = bias +
/// Σ_{kh,kw} w[kh·k + kw]·x(s·oh + kh, s·ow + kw)`, taps in window order, where the padded
/// input is split by phase (stride s): padded row r, column c at `((r % s)·s + c % s)·phase +
/// (r / s)·pitch + c / s`.
///
/// # Safety
/// The CPU must support AVX2 and FMA. `padded` is the phase-split plane of
/// `depthwise::PhaseLayout` for this geometry (one row of slack after the last phase plane);
/// `o.len() == oh_n·ow_n`; `w.len() == k²`; `k` is 3 or 5, `stride` 1 or 2.
#[target_feature(enable = "avx2,fma")]
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
    debug_assert_eq!(w.len(), k * k);
    let (x, y) = (padded.as_ptr(), o.as_mut_ptr());
    let c_max = strip_vectors(k, stride);
    let full = ow_n / LANES;
    let mut ow0 = 0;
    // SAFETY (all strips): ow0 < ow_n ≤ pitch and o has ow_n columns, so both pointers stay
    // inside their planes; the caller's layout holds every row and column read.
    for _ in 0..full / c_max {
        let at =
            Strip { x: unsafe { x.add(ow0) }, pitch, phase, y: unsafe { y.add(ow0) }, ow_n, oh_n, lanes: ow_n - ow0 };
        unsafe {
            match (k, stride) {
                (3, 1) => strip::<3, 1, 3, 3, false>(at, w, bias),
                (5, 1) => strip::<5, 1, 2, 5, false>(at, w, bias),
                (3, _) => strip::<3, 2, 4, 2, false>(at, w, bias),
                _ => strip::<5, 2, 3, 3, false>(at, w, bias),
            }
        }
        ow0 += LANES * c_max;
    }
    if ow0 < ow_n {
        // The rest: fewer than c_max whole vectors and a partial one.
        let vectors = (ow_n - ow0).div_ceil(LANES);
        let at =
            Strip { x: unsafe { x.add(ow0) }, pitch, phase, y: unsafe { y.add(ow0) }, ow_n, oh_n, lanes: ow_n - ow0 };
        unsafe {
            match (k, stride, vectors) {
                (3, 1, 1) => strip::<3, 1, 1, 3, true>(at, w, bias),
                (3, 1, 2) => strip::<3, 1, 2, 3, true>(at, w, bias),
                (3, 1, _) => strip::<3, 1, 3, 3, true>(at, w, bias),
                (5, 1, 1) => strip::<5, 1, 1, 5, true>(at, w, bias),
                (5, 1, _) => strip::<5, 1, 2, 5, true>(at, w, bias),
                (3, _, 1) => strip::<3, 2, 1, 2, true>(at, w, bias),
                (3, _, 2) => strip::<3, 2, 2, 2, true>(at, w, bias),
                (3, _, 3) => strip::<3, 2, 3, 2, true>(at, w, bias),
                (3, _, _) => strip::<3, 2, 4, 2, true>(at, w, bias),
                (_, _, 1) => strip::<5, 2, 1, 3, true>(at, w, bias),
                (_, _, 2) => strip::<5, 2, 2, 3, true>(at, w, bias),
                _ => strip::<5, 2, 3, 3, true>(at, w, bias),
            }
        }
    }
}

/// Where [`strip`] reads and writes: the first column of a strip of both planes, and the
/// pixels of the row from there.
#[derive(Clone, Copy)]
struct Strip {
    x: *const f32,
    pitch: usize,
    phase: usize,
    y: *mut f32,
    ow_n: usize,
    oh_n: usize,
    lanes: usize,
}

/// Every output row of a strip of C column vectors of a `K`×`K`, stride-`S` depthwise conv,
/// the phase rows streaming past `M` = (K − 1)/S + 1 accumulator rows. Without `MASKED`
/// every vector is whole (`at.lanes ≥ 8·C`); with it, the lanes from `at.lanes` on are
/// neither read nor written.
///
/// # Safety
/// As [`plane_streamed`], for this strip.
#[inline]
#[target_feature(enable = "avx2,fma")]
unsafe fn strip<const K: usize, const S: usize, const C: usize, const M: usize, const MASKED: bool>(
    at: Strip,
    w: &[f32],
    bias: f32,
) {
    debug_assert_eq!(M, (K - 1) / S + 1);
    debug_assert!(MASKED || at.lanes >= LANES * C);
    let w = &w[..K * K];
    let init = _mm256_set1_ps(bias);
    let Strip { x, pitch, phase, y, ow_n, oh_n, lanes } = at;
    let iota = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    let masks: [__m256i; C] = std::array::from_fn(|c| {
        _mm256_cmpgt_epi32(_mm256_set1_epi32(lanes.saturating_sub(LANES * c).min(LANES) as i32), iota)
    });
    // acc[i] holds output row u − (M − 1) + i; at phase row u it takes tap row
    // kh = S·(M − 1 − i) + row phase.
    let mut acc = [[init; C]; M];
    for u in 0..oh_n + M - 1 {
        for ph in 0..S {
            for kw in 0..K {
                let src = (ph * S + kw % S) * phase + u * pitch + kw / S;
                // SAFETY (caller): inside the phase-split plane (its slack row included); a
                // masked vector reads only its lanes of the row.
                let v: [__m256; C] = std::array::from_fn(|c| unsafe {
                    let p = x.add(src + LANES * c);
                    if MASKED {
                        _mm256_maskload_ps(p, masks[c])
                    } else {
                        _mm256_loadu_ps(p)
                    }
                });
                for (i, a) in acc.iter_mut().enumerate() {
                    let kh = S * (M - 1 - i) + ph;
                    if kh < K {
                        let wv = _mm256_set1_ps(w[kh * K + kw]);
                        for c in 0..C {
                            a[c] = _mm256_fmadd_ps(wv, v[c], a[c]);
                        }
                    }
                }
            }
        }
        // Output row u − (M − 1) has all its taps (rows before 0 are discarded).
        if u + 1 >= M {
            let oh = u + 1 - M;
            for c in 0..C {
                // SAFETY (caller): output row oh < oh_n; whole vectors lie inside the row,
                // a partial one stores only its lanes.
                unsafe {
                    let p = y.add(oh * ow_n + LANES * c);
                    if !MASKED || lanes >= LANES * (c + 1) {
                        _mm256_storeu_ps(p, acc[0][c])
                    } else {
                        _mm256_maskstore_ps(p, masks[c], acc[0][c])
                    }
                }
            }
        }
        for i in 0..M - 1 {
            acc[i] = acc[i + 1];
        }
        acc[M - 1] = [init; C];
    }
}

//! The AVX2 + FMA form of the few-channel kernel's rows: the same padded planes, filter
//! blocks and tasks as the AVX-512 form ([`super::Row::vectors`]), with pixel vectors of 8.
//!
//! [`B`] channels × [`P`] pixel vectors of sums (8 ymm registers), the `P` input vectors of a
//! tap and one broadcast weight: per tap 2 loads and 4 broadcasts feed 8
//! FMAs. A group's channels run `B` at a time over the row. Full vectors load and store
//! plainly; the row's last block masks its lanes (`vmaskmovps`, which reads and writes
//! nothing under a clear lane). Each output is Σ over the taps in order with FMAs, then
//! + bias: the same operations per lane as the AVX-512 form, so the same bits.

use super::{Row, LANES};
use std::arch::x86_64::*;

/// Output channels summed together, and pixel vectors (8 pixels each). Kernel bench, 1
/// thread, Zen 3 (3→32 3×3 on 224², 3→64 3×3/2 on 224²; im2col + GEMM 4.85 and 1.66 ms):
/// 4 × 2 1.06–1.17 and 0.58–0.62 ms (74–82 GFLOP/s); 8 × 1 1.42 and 0.70; 2 × 4 1.76 and
/// 1.83; 4 × 3 3.23 and 1.91, its 12 sums + 3 inputs + 1 weight one register past the 16
/// ymm, so one sum lived on the stack (a store-to-load chain per tap).
const B: usize = 4;
const P: usize = 2;

const _: () = assert!(super::GROUP.is_multiple_of(B), "a group is whole runs of B channels");

/// Output row `oh` (`ow_n` pixels) of the group's `G` planes, as [`Row::vectors`] computes
/// it.
///
/// # Safety
/// AVX2 and FMA; as [`Row::vectors`] with `G` channels.
#[target_feature(enable = "avx2,fma")]
pub(super) unsafe fn row<const G: usize>(row: &Row, oh: usize, ow_n: usize) {
    for c0 in (0..G).step_by(B) {
        let full = ow_n - ow_n % (8 * P);
        for ow0 in (0..full).step_by(8 * P) {
            // SAFETY (caller): the vectors lie inside the row; channels c0..c0 + B of the
            // group.
            unsafe { vectors::<false>(row, c0, oh, ow_n, ow0) }
        }
        if full < ow_n {
            // SAFETY (caller): as above, the lanes past the row masked.
            unsafe { vectors::<true>(row, c0, oh, ow_n, full) }
        }
    }
}

/// Pixels `ow0..ow0 + 8·P` of row `oh` of channels `c0..c0 + B`; with `TAIL` the lanes at
/// `ow_n` and past are masked (read and written as nothing).
///
/// # Safety
/// As [`row`]; without `TAIL`, `ow0 + 8·P ≤ ow_n`.
#[target_feature(enable = "avx2,fma")]
unsafe fn vectors<const TAIL: bool>(row: &Row, c0: usize, oh: usize, ow_n: usize, ow0: usize) {
    let iota = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    let m: [__m256i; P] = std::array::from_fn(|p| {
        let lanes = ow_n.saturating_sub(ow0 + 8 * p).min(8) as i32;
        _mm256_cmpgt_epi32(_mm256_set1_epi32(lanes), iota)
    });
    let base = oh * row.pitch + ow0;
    // SAFETY (caller): channel c0 of the group's weights.
    let w = unsafe { row.w.add(c0) };
    let mut acc = [[_mm256_setzero_ps(); P]; B];
    for (t, &tap) in row.taps.iter().enumerate() {
        // SAFETY (caller): the lanes read (all of them without TAIL) lie inside the padded
        // planes. A vector wholly past the row (mask 0) reads nothing; its address may lie
        // past the planes, hence `wrapping_add`.
        let v: [__m256; P] = std::array::from_fn(|p| unsafe {
            let at = row.x.wrapping_add(tap + base + 8 * p);
            if TAIL {
                _mm256_maskload_ps(at, m[p])
            } else {
                _mm256_loadu_ps(at)
            }
        });
        // SAFETY (caller): the tap's weights of the group's channels.
        let wt = unsafe { w.add(t * LANES) };
        for (co, a) in acc.iter_mut().enumerate() {
            // SAFETY (caller): as above.
            let wv = _mm256_set1_ps(unsafe { *wt.add(co) });
            for p in 0..P {
                a[p] = _mm256_fmadd_ps(wv, v[p], a[p]);
            }
        }
    }
    for (co, a) in acc.iter().enumerate() {
        for p in 0..P {
            let a = match row.bias {
                Some(b) => _mm256_add_ps(a[p], _mm256_set1_ps(b[c0 + co])),
                None => a[p],
            };
            // SAFETY (caller): row oh of plane c0 + co; every lane without TAIL, the lanes
            // under the mask with it (none for a vector past the row, whose address may lie
            // past the planes).
            let at = row.y.wrapping_add((c0 + co) * row.oplane + oh * ow_n + ow0 + 8 * p);
            unsafe {
                if TAIL {
                    _mm256_maskstore_ps(at, m[p], a)
                } else {
                    _mm256_storeu_ps(at, a)
                }
            }
        }
    }
}

//! The AVX2 microkernel and epilogue, for CPUs without AVX-512 VNNI (Haswell to Alder Lake's
//! predecessors, Zen 1–3).
//!
//! Without `vpdpbusd` the usual route is `vpmaddubsw` (u8 × s8, pairs added into a
//! *saturating* i16) then `vpmaddwd` by ones: a pair such as 255·127 + 255·127 overflows the
//! i16 and the sum is wrong. Here both operands are widened to 16 bits when they are packed
//! (`pack.rs`, the wide layouts), so one `vpmaddwd` multiplies two depth steps of eight
//! columns exactly (u8 ≤ 255 and s8 ≥ −128 are both i16; a pair's sum fits an i32 lane) and
//! one `vpaddd` adds them into the sums. That is as many multiply instructions per product
//! as the saturating route (which needs `vpmaddubsw` and `vpmaddwd` per 32 products where
//! this needs two `vpmaddwd`), at twice the bytes of B and A per product.
//!
//! The driver's MR × NR = 8 × 48 tile runs as sub-tiles of 4 rows × 16 columns: 8 ymm
//! accumulators, the two B vectors of a pair of depth steps and one broadcast weight word
//! (12 of 16 registers); per pair 2 loads and 4 broadcasts feed 8 `vpmaddwd` + 8 `vpaddd`.
//! A last chunk of at most 8 columns runs a 4 × 8 sub-tile.
//!
//! The epilogue converts 8 sums at a time: an 8-bit output whose parameters fold takes
//! `requantize::RequantizerLanes8` (the same f32 operations as `Requantizer::apply`, the
//! rounding to nearest even by `vroundps`); an f32 output the
//! steps of `driver::Epilogue::value` in lanes. An 8-bit output that does not fold (a
//! parameter that is not finite; rare) is finished element by element as the portable
//! epilogue does. A full tile of a transposed C (`rs == 1`, a matmul's `[tokens][channels]`)
//! is transposed in registers (8 × 8) and written a column (8 contiguous values) at a time.

use super::driver::{Epilogue, OutKind};
use super::{MR, NR};
use crate::kernels::quantize::low_bytes_avx2 as low_bytes;
use crate::kernels::requantize::RequantizerLanes8;
use std::arch::x86_64::*;

/// Rows of a sub-tile.
const SUB_ROWS: usize = 4;

/// `driver::tile` for AVX2, on the wide layouts: `k4` groups of four depth steps are `2·k4`
/// pairs, each `MR · 4` bytes of A and `NR · 4` of B.
///
/// # Safety
/// As `driver::tile` (the CPU has AVX2; `a` and `b` hold the wide layouts).
#[inline(always)]
pub(super) unsafe fn tile(k4: usize, a: *const u8, b: *const u8, acc: *mut i32, accumulate: bool, cols: usize) {
    let pairs = 2 * k4;
    let mut c0 = 0;
    while c0 < cols {
        let vectors = if cols - c0 > 8 { 2 } else { 1 };
        // Both row halves over one chunk of columns, while its B (64 bytes per pair) is in L1.
        for half in 0..MR / SUB_ROWS {
            // SAFETY: rows 4·half.. of every pair's MR words of A, columns c0.. (c0 + 16 ≤ NR,
            // or c0 + 8 ≤ NR for the last chunk) of every pair's NR words of B, and the
            // matching sums inside the caller's MR·NR.
            unsafe {
                let (a, b, acc) = (a.add(half * SUB_ROWS * 4), b.add(c0 * 4), acc.add(half * SUB_ROWS * NR + c0));
                if vectors == 2 {
                    sub_tile::<2>(pairs, a, b, acc, accumulate);
                } else {
                    sub_tile::<1>(pairs, a, b, acc, accumulate);
                }
            }
        }
        c0 += 8 * vectors;
    }
}

/// The sums of 4 rows × `8·NV` columns over `pairs` pairs of depth steps.
///
/// # Safety
/// `a` + `p·MR·4 + r·4` (r < 4) and `b` + `p·NR·4` (32·NV bytes) are readable for every pair
/// p < `pairs`, `acc` + `r·NR` for 8·NV i32 of every row r < 4; the CPU has AVX2.
#[target_feature(enable = "avx2")]
unsafe fn sub_tile<const NV: usize>(pairs: usize, a: *const u8, b: *const u8, acc: *mut i32, accumulate: bool) {
    let mut c = [[_mm256_setzero_si256(); NV]; SUB_ROWS];
    // SAFETY: the extents the caller guarantees.
    unsafe {
        if accumulate {
            for (r, row) in c.iter_mut().enumerate() {
                for (v, x) in row.iter_mut().enumerate() {
                    *x = _mm256_loadu_si256(acc.add(r * NR + v * 8).cast());
                }
            }
        }
        let (mut a, mut b) = (a, b);
        for _ in 0..pairs {
            let mut bv = [_mm256_setzero_si256(); NV];
            for (v, x) in bv.iter_mut().enumerate() {
                *x = _mm256_loadu_si256(b.add(v * 32).cast());
            }
            for (r, row) in c.iter_mut().enumerate() {
                let w = _mm256_set1_epi32(a.add(r * 4).cast::<i32>().read_unaligned());
                for (x, &bx) in row.iter_mut().zip(&bv) {
                    // Two i16 products (u8 of B, s8 of A, both widened) per lane, exact.
                    *x = _mm256_add_epi32(*x, _mm256_madd_epi16(bx, w));
                }
            }
            a = a.add(MR * 4);
            b = b.add(NR * 4);
        }
        for (r, row) in c.iter().enumerate() {
            for (v, &x) in row.iter().enumerate() {
                _mm256_storeu_si256(acc.add(r * NR + v * 8).cast(), x);
            }
        }
    }
}

/// `driver::finish` for AVX2.
///
/// # Safety
/// As `driver::finish` (the CPU has AVX2).
#[target_feature(enable = "avx2")]
pub(super) unsafe fn finish(e: &Epilogue<'_>, acc: *const i32, i: usize, j: usize, rows: usize, cols: usize) {
    let folded = e.folded.filter(|_| !matches!(e.kind, OutKind::F32));
    if folded.is_none() && !matches!(e.kind, OutKind::F32) {
        // SAFETY: forwarded from the caller.
        unsafe { super::portable::finish(e, acc, i, j, rows, cols) };
        return;
    }
    let (lo, hi) = (_mm256_set1_ps(e.lo), _mm256_set1_ps(e.hi));
    // Row r's constants, broadcast once per tile.
    let row_lanes = |r: usize| -> RowLanes {
        let (corr, scale, bias, has_bias) = e.row(i + r);
        RowLanes {
            corr: _mm256_set1_epi32(corr),
            scale: _mm256_set1_ps(scale),
            bias: has_bias.then(|| _mm256_set1_ps(bias)),
            folded: folded.map(|f| RequantizerLanes8::new(&f[i + r])),
        }
    };
    // One row's 8 lanes: the output bytes (low byte of each i32) or the f32 values.
    let lanes = |row: &RowLanes, r: usize, c0: usize| -> __m256i {
        // SAFETY: c0 + 8 ≤ NR inside the caller's MR·NR sums; AVX2 is enabled here.
        let s = unsafe { _mm256_loadu_si256(acc.add(r * NR + c0).cast()) };
        let s = _mm256_sub_epi32(s, row.corr);
        match &row.folded {
            Some(rq) => rq.apply(s),
            None => {
                let mut y = _mm256_mul_ps(_mm256_cvtepi32_ps(s), row.scale);
                if let Some(bias) = row.bias {
                    y = _mm256_add_ps(y, bias);
                }
                // activation::clamp_value: `vmaxps lo, y` is `lo > y ? lo : y`, `vminps hi, y`
                // `hi < y ? hi : y`: the same selects, NaN and signed zeros included.
                _mm256_castps_si256(_mm256_min_ps(hi, _mm256_max_ps(lo, y)))
            }
        }
    };
    let f32_out = matches!(e.kind, OutKind::F32);
    if e.rs == 1 && e.cs != 1 && rows == MR {
        let consts: [RowLanes; MR] = std::array::from_fn(row_lanes);
        for c0 in (0..cols).step_by(8) {
            let t = transpose8(std::array::from_fn(|r| lanes(&consts[r], r, c0)));
            for (c, &column) in t.iter().take((cols - c0).min(8)).enumerate() {
                let at = (j + c0 + c) * e.cs + i;
                // SAFETY: the caller guarantees that the tile's elements (i + r, j + c0 + c),
                // r < MR, lie inside C, for this thread only: the MR elements from `at`.
                unsafe {
                    if f32_out {
                        _mm256_storeu_si256(e.out.0.cast::<f32>().add(at).cast(), column);
                    } else {
                        _mm_storel_epi64(e.out.0.add(at).cast(), low_bytes(column));
                    }
                }
            }
        }
        return;
    }
    for r in 0..rows {
        let base = (i + r) * e.rs + j * e.cs;
        let consts = row_lanes(r);
        for c0 in (0..cols).step_by(8) {
            let n = (cols - c0).min(8);
            let v = lanes(&consts, r, c0);
            let at = base + c0 * e.cs;
            // SAFETY: the caller guarantees that the tile's elements (i + r, j + c0 + t), t < n,
            // lie inside C, for this thread only; `at` is the first, `cs` apart.
            unsafe {
                if e.cs == 1 && n == 8 {
                    if f32_out {
                        _mm256_storeu_si256(e.out.0.cast::<f32>().add(at).cast(), v);
                    } else {
                        _mm_storel_epi64(e.out.0.add(at).cast(), low_bytes(v));
                    }
                } else {
                    let mut words = [0u32; 8];
                    _mm256_storeu_si256(words.as_mut_ptr().cast(), v);
                    for (t, &x) in words[..n].iter().enumerate() {
                        if f32_out {
                            *e.out.0.cast::<u32>().add(at + t * e.cs) = x;
                        } else {
                            *e.out.0.add(at + t * e.cs) = x as u8;
                        }
                    }
                }
            }
        }
    }
}

/// One row's constants of the epilogue, broadcast.
struct RowLanes {
    corr: __m256i,
    scale: __m256,
    bias: Option<__m256>,
    folded: Option<RequantizerLanes8>,
}

/// The 8 × 8 transpose of 32-bit lanes: `out[c]` lane r = `rows[r]` lane c.
#[inline]
#[target_feature(enable = "avx2")]
fn transpose8(rows: [__m256i; 8]) -> [__m256i; 8] {
    super::super::simd::transpose8_avx2(rows.map(|r| _mm256_castsi256_ps(r))).map(|r| _mm256_castps_si256(r))
}

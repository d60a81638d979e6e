//! The AVX-512F microkernel: an 8 × 48 tile in 24 zmm accumulators. Each depth step loads
//! three vectors of B and broadcasts eight values of A into 24 FMAs (two FMA pipes: 12
//! cycles, against 11 loads). Tiles of at most 32 or 16 columns (the last panel of B) run
//! a 2- or 1-vector variant; partial tiles are stored with masks. Tiles of at most 7 columns
//! (n = 49 leaves one) run a column kernel instead: the 8 rows of A in one ymm times a
//! broadcast of B per column, which costs one 8-lane FMA per column and step instead of eight
//! 16-lane ones.

use super::super::gemm_backend::Mat;
use super::kernel::{Kernel, Tile};
use super::pack;
use std::arch::x86_64::*;

const MR: usize = 8;
const NR: usize = 48;

/// The AVX-512 kernel.
pub(super) static KERNEL: Kernel = Kernel {
    mr: MR,
    nr: NR,
    narrow: 7,
    kc_max: 768,
    b_block: 512 * 240,
    a_block: 512 * 128,
    tile,
    pack_lhs,
    pack_rhs,
};

/// One tile: the variant with as many vectors of B as the columns need.
///
/// # Safety
/// The [`super::kernel::TileFn`] contract, with MR = 8, NR = 48 and AVX-512F.
#[target_feature(enable = "avx512f,avx2,fma")]
unsafe fn tile(t: &Tile) {
    // SAFETY: forwarded from the caller; each variant reads at most NR floats per step of B.
    unsafe {
        match t.cols {
            33.. => tile_n::<3>(t),
            17..=32 => tile_n::<2>(t),
            8..=16 => tile_n::<1>(t),
            7 => columns::<7>(t),
            6 => columns::<6>(t),
            5 => columns::<5>(t),
            4 => columns::<4>(t),
            3 => columns::<3>(t),
            2 => columns::<2>(t),
            _ => columns::<1>(t),
        }
    }
}

/// The tile with `NV` vectors (16·NV columns) of each B row; B rows are NR floats apart.
///
/// # Safety
/// As [`tile`], with `t.cols <= 16 * NV`.
#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn tile_n<const NV: usize>(t: &Tile) {
    let mut acc = [[_mm512_setzero_ps(); NV]; MR];
    // Fetch the tile of C while the sums run (it is read or written at the end).
    for i in 0..t.rows {
        for v in 0..NV {
            _mm_prefetch::<_MM_HINT_T0>(t.c.wrapping_add(i * t.c_rs + 16 * v).cast());
        }
    }
    let (mut a, mut b) = (t.a, t.b);
    for _ in 0..t.kc {
        let mut bv = [_mm512_setzero_ps(); NV];
        for (v, x) in bv.iter_mut().enumerate() {
            // SAFETY: step p of the B micro-panel holds NR >= 16·NV floats.
            *x = unsafe { _mm512_loadu_ps(b.add(16 * v)) };
        }
        for (i, row) in acc.iter_mut().enumerate() {
            // SAFETY: step p of the A micro-panel holds MR floats.
            let av = _mm512_set1_ps(unsafe { *a.add(i) });
            for (r, x) in row.iter_mut().zip(&bv) {
                *r = _mm512_fmadd_ps(av, *x, *r);
            }
        }
        // Wrapping: after the last step the pointers may pass the end of the data unused.
        a = a.wrapping_add(MR);
        b = b.wrapping_add(t.b_rs);
    }
    let mut masks = [0 as __mmask16; NV];
    for (v, m) in masks.iter_mut().enumerate() {
        *m = ((1u32 << t.cols.saturating_sub(16 * v).min(16)) - 1) as __mmask16;
    }
    for (i, row) in acc.iter().enumerate() {
        if i < t.rows {
            for ((v, x), &mask) in row.iter().enumerate().zip(&masks) {
                // SAFETY: the mask keeps to the tile's valid columns of valid row i, which the
                // caller lets us access.
                unsafe {
                    let p = t.c.add(i * t.c_rs + 16 * v);
                    let y = if t.accumulate { _mm512_add_ps(_mm512_maskz_loadu_ps(mask, p), *x) } else { *x };
                    _mm512_mask_storeu_ps(p, mask, y);
                }
            }
        }
    }
}

/// A tile of `C` (at most 7) columns: for each column, the 8 rows of A (one ymm) times a
/// broadcast of B, with four independent sums per column (FMA latency) added at the end.
///
/// # Safety
/// As [`tile`], with `t.cols == C` (only the valid columns of B are read).
#[target_feature(enable = "avx512f,avx2,fma")]
#[inline]
unsafe fn columns<const C: usize>(t: &Tile) {
    const U: usize = 4;
    let mut acc = [[_mm256_setzero_ps(); C]; U];
    /// One step into `sums`.
    #[inline(always)]
    unsafe fn step<const C: usize>(sums: &mut [__m256; C], a: *const f32, b: *const f32) {
        // SAFETY: `columns`' caller guarantees AVX2 + FMA; step p of the A micro-panel holds
        // MR = 8 floats and of B at least C.
        unsafe {
            let av = _mm256_loadu_ps(a);
            for (j, s) in sums.iter_mut().enumerate() {
                *s = _mm256_fmadd_ps(av, _mm256_set1_ps(*b.add(j)), *s);
            }
        }
    }
    let (a, b, b_rs) = (t.a, t.b, t.b_rs);
    let whole = t.kc / U * U;
    let mut p = 0;
    while p < whole {
        for (u, sums) in acc.iter_mut().enumerate() {
            // SAFETY: p + u < kc.
            unsafe { step(sums, a.wrapping_add((p + u) * MR), b.wrapping_add((p + u) * b_rs)) };
        }
        p += U;
    }
    while p < t.kc {
        // SAFETY: p < kc.
        unsafe { step(&mut acc[0], a.wrapping_add(p * MR), b.wrapping_add(p * b_rs)) };
        p += 1;
    }
    let mut out = [[0f32; MR]; C];
    for (j, o) in out.iter_mut().enumerate() {
        let s = _mm256_add_ps(_mm256_add_ps(acc[0][j], acc[1][j]), _mm256_add_ps(acc[2][j], acc[3][j]));
        // SAFETY: `o` holds 8 floats.
        unsafe { _mm256_storeu_ps(o.as_mut_ptr(), s) };
    }
    for i in 0..t.rows {
        for (j, o) in out.iter().enumerate() {
            // SAFETY: (i, j) is a valid element of the tile.
            unsafe {
                let p = t.c.add(i * t.c_rs + j);
                *p = if t.accumulate { *p + o[i] } else { o[i] };
            }
        }
    }
}

/// Packs A for this kernel: full panels of a row-major A by 8 × 16 in-register transposes,
/// the rest by the generic loops.
///
/// # Safety
/// The CPU has AVX-512F.
#[target_feature(enable = "avx512f")]
unsafe fn pack_lhs(a: Mat<'_>, i0: usize, mc: usize, p0: usize, kc: usize, dst: &mut [f32]) {
    let full = if a.cs == 1 { mc / MR } else { 0 };
    for (r, panel) in dst[..full * MR * kc].chunks_exact_mut(MR * kc).enumerate() {
        let base = (i0 + r * MR) * a.rs + p0;
        let rows: [&[f32]; MR] = std::array::from_fn(|ii| &a.data[base + ii * a.rs..][..kc]);
        let mut chunks = panel.chunks_exact_mut(16 * MR);
        for (q, out) in (&mut chunks).enumerate() {
            transpose_8x16(&rows, 16 * q, out);
        }
        let done = kc / 16 * 16;
        for (p, out) in chunks.into_remainder().chunks_exact_mut(MR).enumerate() {
            for (o, row) in out.iter_mut().zip(&rows) {
                *o = row[done + p];
            }
        }
    }
    if full * MR < mc {
        pack::pack_lhs::<MR>(a, i0 + full * MR, mc - full * MR, p0, kc, &mut dst[full * MR * kc..]);
    }
}

/// Writes steps `p..p+16` of the eight `rows` to `out` (step by step, 8 values each).
#[target_feature(enable = "avx512f")]
fn transpose_8x16(rows: &[&[f32]; MR], p: usize, out: &mut [f32]) {
    let r: [__m512; MR] = std::array::from_fn(|ii| {
        let src: &[f32; 16] = rows[ii][p..p + 16].try_into().unwrap();
        // SAFETY: `src` holds 16 floats.
        unsafe { _mm512_loadu_ps(src.as_ptr()) }
    });
    // Pairs of rows interleaved, then fours: u[q] holds, in 128-bit lane l, column 4l + q of
    // rows 0-3, and u[4 + q] of rows 4-7.
    let t = [
        _mm512_unpacklo_ps(r[0], r[1]),
        _mm512_unpackhi_ps(r[0], r[1]),
        _mm512_unpacklo_ps(r[2], r[3]),
        _mm512_unpackhi_ps(r[2], r[3]),
        _mm512_unpacklo_ps(r[4], r[5]),
        _mm512_unpackhi_ps(r[4], r[5]),
        _mm512_unpacklo_ps(r[6], r[7]),
        _mm512_unpackhi_ps(r[6], r[7]),
    ];
    let pd = _mm512_castps_pd;
    let ps = _mm512_castpd_ps;
    let u = [
        ps(_mm512_unpacklo_pd(pd(t[0]), pd(t[2]))),
        ps(_mm512_unpackhi_pd(pd(t[0]), pd(t[2]))),
        ps(_mm512_unpacklo_pd(pd(t[1]), pd(t[3]))),
        ps(_mm512_unpackhi_pd(pd(t[1]), pd(t[3]))),
        ps(_mm512_unpacklo_pd(pd(t[4]), pd(t[6]))),
        ps(_mm512_unpackhi_pd(pd(t[4]), pd(t[6]))),
        ps(_mm512_unpacklo_pd(pd(t[5]), pd(t[7]))),
        ps(_mm512_unpackhi_pd(pd(t[5]), pd(t[7]))),
    ];
    let out: &mut [f32; 16 * MR] = out.try_into().unwrap();
    for q in 0..4 {
        let lanes = [
            (_mm512_castps512_ps128(u[q]), _mm512_castps512_ps128(u[4 + q])),
            (_mm512_extractf32x4_ps::<1>(u[q]), _mm512_extractf32x4_ps::<1>(u[4 + q])),
            (_mm512_extractf32x4_ps::<2>(u[q]), _mm512_extractf32x4_ps::<2>(u[4 + q])),
            (_mm512_extractf32x4_ps::<3>(u[q]), _mm512_extractf32x4_ps::<3>(u[4 + q])),
        ];
        for (l, (lo, hi)) in lanes.into_iter().enumerate() {
            let step = 4 * l + q;
            // SAFETY: `out` holds 16 steps of MR = 8 floats; step < 16.
            unsafe {
                _mm_storeu_ps(out.as_mut_ptr().add(step * MR), lo);
                _mm_storeu_ps(out.as_mut_ptr().add(step * MR + 4), hi);
            }
        }
    }
}

/// Packs B for this kernel.
///
/// # Safety
/// The CPU has AVX-512F.
#[target_feature(enable = "avx512f")]
unsafe fn pack_rhs(b: Mat<'_>, p0: usize, kc: usize, j0: usize, nc: usize, dst: &mut [f32]) {
    pack::pack_rhs::<NR>(b, p0, kc, j0, nc, dst)
}

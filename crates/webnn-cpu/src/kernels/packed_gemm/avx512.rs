//! The AVX-512F microkernel: an 8 × 48 tile in 24 zmm accumulators. Each depth step loads
//! three vectors of B and broadcasts eight values of A into 24 FMAs (two FMA pipes: 12
//! cycles, against 11 loads); it reaches ~272 GFLOP/s from L1 on Zen 5 (6 × 64, 12 × 32 and
//! 14 × 32 measured the same; 8 rows divide the usual m, 48 columns 768 and 3072). A is read
//! packed or in place (any strides: eight row pointers), so a strided A is never copied.
//! Variants: tiles of at most 32 or 16 columns (the last panel of B) use 2 or 1 vectors,
//! tiles of 1, 2 or 3-4 rows (m < 8, row tails) use that many rows with the steps spread over
//! 4 or 2 sets of sums (FMA latency); partial tiles are stored with masks. Tiles of at most 7
//! columns (n = 49 leaves one) run a column kernel: the 8 rows of A in one ymm times a
//! broadcast of B per column, one 8-lane FMA per column and step instead of eight 16-lane ones.
//! While a tile runs, it fetches its share of the next B micro-panel into L2, a line every
//! few steps (`Tile::b_ahead`). On the last depth block the sums get `Tile::ops` (bias,
//! element-wise operand, clamp, SiLU) before the store: for a 16→96 pointwise conv on 112² (k = 16,
//! the store as costly as the sums) 0.52 → 0.47 ms against a pass over the stored tile.

use super::super::sgemm::Mat;
use super::kernel::{Kernel, Tile};
use super::pack;
use std::arch::x86_64::*;

const MR: usize = 8;
const NR: usize = 48;

/// How far ahead (floats) the microkernels prefetch a packed A micro-panel: 3 KiB, about 100
/// steps of 8 floats. A packed A is a conv's filter (m = output channels); when its pixels
/// are few (7×7 and 14×14 planes) each filter element serves few FMAs, and the kernel
/// consumes the panel faster than the hardware prefetcher brings it from DRAM. Measured
/// (`WEBNN_PROFILE=all webnn bench resnet50.onnx --threads 1`, alternating runs): 3×3
/// 512→512 conv on 7×7 2.10 → 1.31 ms, 1×1 1024→2048 stride 2 1.75 → 1.09 ms, the whole
/// model 46.2 → 39.2–40.0 ms; 512 to 1024 floats ahead measured the same, 2048 slower on
/// the 1×1 conv.
const A_PREFETCH: usize = 768;

/// The AVX-512 kernel.
pub(super) static KERNEL: Kernel = Kernel {
    mr: MR,
    nr: NR,
    narrow: 7,
    a_in_place: true,
    // Depth blocks up to 768 (the BERT k in one block; 512 was 2-5 % slower); B blocks of
    // 480 KiB and A blocks of 256 KiB in the 1 MiB L2 (measured flat from half to twice that).
    kc_max: 768,
    b_block: 512 * 240,
    a_block: 512 * 128,
    // An A read in place (a transformer's activations against packed weights) up to 1.2 MB
    // is one block, about an L2 (1.25 MiB on Ice Lake-SP), so the weights stream from DRAM
    // once per matmul. Measured (Ice Lake-SP, 1 thread, alternating runs, medians of 3):
    // BERT-base seq 128 259 -> 230 ms, seq 384 750 -> 699, ViT-B/16 414 -> 346; 2 threads
    // BERT-base 128 140 -> 122, ViT-B/16 218 -> 205.
    a_in_place_block: 1200 * 256,
    b_ahead: true,
    b_in_place: true,
    swish: || true,
    tile,
    pack_lhs,
    pack_rhs,
};

/// One tile: the variant for A packed or in place, with as many vectors of B as the columns
/// need.
///
/// # Safety
/// The [`super::kernel::TileFn`] contract, with MR = 8, NR = 48 and AVX-512F.
#[target_feature(enable = "avx512f,avx2,fma")]
unsafe fn tile(t: &Tile) {
    // SAFETY: forwarded from the caller.
    unsafe {
        if t.a_rs == 1 && t.a_step == MR {
            tile_a::<true>(t)
        } else {
            tile_a::<false>(t)
        }
    }
}

/// [`tile`] for A packed (`PACKED`) or in place.
///
/// # Safety
/// As [`tile`].
#[target_feature(enable = "avx512f,avx2,fma")]
#[inline]
unsafe fn tile_a<const PACKED: bool>(t: &Tile) {
    // SAFETY: forwarded from the caller; each variant reads at most NR floats per step of B
    // and, when it is narrow, only the valid columns.
    unsafe {
        match t.cols {
            33.. => tile_v::<3, PACKED>(t),
            17..=32 => tile_v::<2, PACKED>(t),
            8..=16 => tile_v::<1, PACKED>(t),
            7 => columns::<7, PACKED>(t),
            6 => columns::<6, PACKED>(t),
            5 => columns::<5, PACKED>(t),
            4 => columns::<4, PACKED>(t),
            3 => columns::<3, PACKED>(t),
            2 => columns::<2, PACKED>(t),
            _ => columns::<1, PACKED>(t),
        }
    }
}

/// [`tile_n`] with as few rows as the tile needs (1, 2, 4 or 8: an m = 1 GEMM computes one
/// row, not eight), with enough independent sums for the FMA latency.
///
/// # Safety
/// As [`tile_n`].
#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn tile_v<const NV: usize, const PACKED: bool>(t: &Tile) {
    // SAFETY: forwarded from the caller.
    unsafe {
        match t.rows {
            1 => tile_n::<NV, PACKED, 1, 4>(t),
            2 => tile_n::<NV, PACKED, 2, 2>(t),
            3 | 4 => tile_n::<NV, PACKED, 4, 1>(t),
            _ => tile_n::<NV, PACKED, MR, 1>(t),
        }
    }
}

/// The rows of the A micro-panel: packed ones MR floats apart, in place ones `a_rs` apart with
/// the rows past `rows` read from the last valid row (their results are not stored).
#[inline(always)]
fn a_rows<const PACKED: bool>(t: &Tile) -> [*const f32; MR] {
    std::array::from_fn(|i| if PACKED { t.a.wrapping_add(i) } else { t.a.wrapping_add(i.min(t.rows - 1) * t.a_rs) })
}

/// The tile with `NV` vectors (16·NV columns) of each B row and the first `R` rows of A,
/// the steps dealt round-robin to `U` sets of sums (added at the end).
///
/// # Safety
/// As [`tile`], with `t.cols <= 16 * NV` and `t.rows <= R`.
#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn tile_n<const NV: usize, const PACKED: bool, const R: usize, const U: usize>(t: &Tile) {
    /// One step: offset `a` of the A rows times the B vectors at `b`, into `acc`. Safety:
    /// called from `tile_n` (AVX-512F) with a step inside both micro-panels.
    #[inline(always)]
    unsafe fn step<const NV: usize, const R: usize>(
        acc: &mut [[__m512; NV]; R],
        rows: &[*const f32; MR],
        a: usize,
        b: *const f32,
    ) {
        // SAFETY: `tile_n`'s caller guarantees AVX-512F; the B micro-panel holds NR >= 16·NV
        // floats at this step and the A micro-panel each row (or the last valid one).
        unsafe {
            let mut bv = [_mm512_setzero_ps(); NV];
            for (v, x) in bv.iter_mut().enumerate() {
                *x = _mm512_loadu_ps(b.add(16 * v));
            }
            for (row, r) in acc.iter_mut().zip(rows) {
                let av = _mm512_set1_ps(*r.add(a));
                for (s, x) in row.iter_mut().zip(&bv) {
                    *s = _mm512_fmadd_ps(av, *x, *s);
                }
            }
        }
    }
    let mut acc = [[[_mm512_setzero_ps(); NV]; R]; U];
    // Fetch the tile of C while the sums run (it is read or written at the end).
    for i in 0..t.rows {
        for v in 0..NV {
            _mm_prefetch::<_MM_HINT_T0>(t.c.wrapping_add(i * t.c_rs + 16 * v).cast());
        }
    }
    let rows = a_rows::<PACKED>(t);
    let a_step = if PACKED { MR } else { t.a_step };
    let (mut a, mut b) = (0, t.b);
    // A later B micro-panel's lines into L2: one every `every` steps (the rest, if the lines
    // outnumber the steps, at the end).
    let every = t.kc.checked_div(t.b_ahead_lines).map_or(usize::MAX, |e| e.max(1));
    let (mut ahead, mut ahead_left, mut countdown) = (t.b_ahead, t.b_ahead_lines, every);
    let mut p = 0;
    while p + U <= t.kc {
        for sums in acc.iter_mut() {
            if PACKED {
                _mm_prefetch::<_MM_HINT_T0>(rows[0].wrapping_add(a + A_PREFETCH).cast());
            }
            countdown -= 1;
            if countdown == 0 {
                countdown = every;
                if ahead_left > 0 {
                    _mm_prefetch::<_MM_HINT_T1>(ahead.cast());
                    ahead = ahead.wrapping_add(16);
                    ahead_left -= 1;
                }
            }
            // SAFETY: this step is < kc.
            unsafe { step(sums, &rows, a, b) };
            a += a_step;
            // Wrapping: after the last step the pointer may pass the end of the data unused.
            b = b.wrapping_add(t.b_rs);
        }
        p += U;
    }
    while p < t.kc {
        // SAFETY: p < kc.
        unsafe { step(&mut acc[0], &rows, a, b) };
        a += a_step;
        b = b.wrapping_add(t.b_rs);
        p += 1;
    }
    while ahead_left > 0 {
        _mm_prefetch::<_MM_HINT_T1>(ahead.cast());
        ahead = ahead.wrapping_add(16);
        ahead_left -= 1;
    }
    let mut sums = acc[0];
    for more in &acc[1..] {
        for (row, m) in sums.iter_mut().zip(more) {
            for (s, x) in row.iter_mut().zip(m) {
                *s = _mm512_add_ps(*s, *x);
            }
        }
    }
    let mut masks = [0 as __mmask16; NV];
    for (v, m) in masks.iter_mut().enumerate() {
        *m = ((1u32 << t.cols.saturating_sub(16 * v).min(16)) - 1) as __mmask16;
    }
    // SAFETY: forwarded from the caller.
    unsafe {
        if t.ops.any() {
            store::<NV, R, true>(t, &sums, &masks)
        } else {
            store::<NV, R, false>(t, &sums, &masks)
        }
    }
}

/// Stores the valid rows of a tile's sums (added to C's contents if `t.accumulate`), through
/// `t.ops` if `OPS` (a separate instance, so the plain store has no branches for them).
///
/// # Safety
/// As [`tile`]; `masks` keep to the tile's valid columns.
#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn store<const NV: usize, const R: usize, const OPS: bool>(
    t: &Tile,
    sums: &[[__m512; NV]; R],
    masks: &[__mmask16; NV],
) {
    let ops = &t.ops;
    for (i, row) in sums.iter().enumerate() {
        if i < t.rows {
            for ((v, x), &mask) in row.iter().enumerate().zip(masks) {
                // SAFETY: the mask keeps to the tile's valid columns of valid row i, which the
                // caller lets us access, and the bias and operand cover them.
                unsafe {
                    let p = t.c.add(i * t.c_rs + 16 * v);
                    let mut y = if t.accumulate { _mm512_add_ps(_mm512_maskz_loadu_ps(mask, p), *x) } else { *x };
                    if OPS {
                        if !ops.bias.is_null() {
                            let bias = if ops.bias_cols {
                                _mm512_maskz_loadu_ps(mask, ops.bias.add(16 * v))
                            } else {
                                _mm512_set1_ps(*ops.bias.add(i))
                            };
                            y = _mm512_add_ps(y, bias);
                        }
                        if !ops.other.is_null() {
                            let o = _mm512_maskz_loadu_ps(mask, ops.other.add(i * ops.other_rs + 16 * v));
                            y = if ops.other_mul { _mm512_mul_ps(y, o) } else { _mm512_add_ps(y, o) };
                        }
                        if let Some(act) = ops.act {
                            y = act.apply_avx512(y);
                        }
                    }
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
unsafe fn columns<const C: usize, const PACKED: bool>(t: &Tile) {
    const U: usize = 4;
    /// One step into `sums`: the rows of A at offset `a`, the columns of B at `b`. Safety:
    /// called from `columns` (AVX2 + FMA) with a step inside both micro-panels.
    #[inline(always)]
    unsafe fn step<const C: usize, const PACKED: bool>(
        sums: &mut [__m256; C],
        rows: &[*const f32; MR],
        a: usize,
        b: *const f32,
    ) {
        // SAFETY: `columns`' caller guarantees AVX2 + FMA; the A micro-panel holds each row
        // (or the last valid one) at this step and B at least C columns.
        unsafe {
            let av = if PACKED {
                _mm256_loadu_ps(rows[0].add(a))
            } else {
                _mm256_setr_ps(
                    *rows[0].add(a),
                    *rows[1].add(a),
                    *rows[2].add(a),
                    *rows[3].add(a),
                    *rows[4].add(a),
                    *rows[5].add(a),
                    *rows[6].add(a),
                    *rows[7].add(a),
                )
            };
            for (j, s) in sums.iter_mut().enumerate() {
                *s = _mm256_fmadd_ps(av, _mm256_set1_ps(*b.add(j)), *s);
            }
        }
    }
    let mut acc = [[_mm256_setzero_ps(); C]; U];
    let rows = a_rows::<PACKED>(t);
    let a_step = if PACKED { MR } else { t.a_step };
    let (b, b_rs) = (t.b, t.b_rs);
    let whole = t.kc / U * U;
    let mut p = 0;
    while p < whole {
        if PACKED {
            // U steps of 8 floats: two cache lines.
            let ahead = rows[0].wrapping_add(p * a_step + A_PREFETCH);
            _mm_prefetch::<_MM_HINT_T0>(ahead.cast());
            _mm_prefetch::<_MM_HINT_T0>(ahead.wrapping_add(16).cast());
        }
        for (u, sums) in acc.iter_mut().enumerate() {
            // SAFETY: p + u < kc.
            unsafe { step::<C, PACKED>(sums, &rows, (p + u) * a_step, b.wrapping_add((p + u) * b_rs)) };
        }
        p += U;
    }
    while p < t.kc {
        // SAFETY: p < kc.
        unsafe { step::<C, PACKED>(&mut acc[0], &rows, p * a_step, b.wrapping_add(p * b_rs)) };
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
            // SAFETY: (i, j) is a valid element of the tile, and the bias covers it.
            unsafe {
                let p = t.c.add(i * t.c_rs + j);
                *p = t.ops.finish(if t.accumulate { *p + o[i] } else { o[i] }, i, j);
            }
        }
    }
}

/// Packs A for this kernel (only for [`super::PackedLhs`]: a strided A is read in place).
///
/// # Safety
/// The CPU has AVX-512F.
#[target_feature(enable = "avx512f")]
unsafe fn pack_lhs(a: Mat<'_>, i0: usize, mc: usize, p0: usize, kc: usize, dst: &mut [f32]) {
    pack::pack_lhs::<MR>(a, i0, mc, p0, kc, dst)
}

/// Packs B for this kernel.
///
/// # Safety
/// The CPU has AVX-512F.
#[target_feature(enable = "avx512f")]
unsafe fn pack_rhs(b: Mat<'_>, p0: usize, kc: usize, j0: usize, nc: usize, dst: &mut [f32]) {
    pack::pack_rhs::<NR>(b, p0, kc, j0, nc, dst)
}

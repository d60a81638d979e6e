//! The AVX-512 VNNI microkernel and epilogue.
//!
//! The tile is 8 rows × 48 columns in 24 zmm accumulators of 16 i32 lanes. Each group of
//! four depth steps loads three vectors of B (48 columns × 4 bytes) and, for each of the 8
//! rows, broadcasts the row's four weights (one 32-bit word, folded into `vpdpbusd`'s
//! memory-broadcast operand) into three `vpdpbusd`: 24 of them, 1536 multiply-adds, against
//! 3 vector loads and 8 broadcasts. Why this shape: `vpdpbusd` has a latency of about 4 to 5
//! cycles and 1 (Zen 4, 512 bits) or 2 (Ice Lake and later, ports 0 and 5) per cycle
//! throughput, so at least 10 independent accumulators are needed; 24 leave registers for the
//! three B vectors and the broadcast (28 of 32), and the loads (11 per 24 `vpdpbusd`) stay
//! well within two load ports. 8 rows divide every usual channel count, 48 columns 768 and
//! 3072 (BERT) and 3136 (56²) leaves a 16-column tail. The last panel of a row block with at
//! most 16 or 32 columns left runs a kernel with one or two vectors (a 7×7 plane, n = 49,
//! leaves one column: 16 lanes computed instead of 48).
//!
//! The epilogue converts 16 sums at a time. An 8-bit output whose parameters fold takes
//! `requantize::RequantizerLanes` (subtract the zero-point correction, convert, multiply, add,
//! one clamp, round-convert, add the zero point). Otherwise: subtract the zero-point
//! correction, convert to f32, scale, bias, clamp (`vmaxps`/`vminps` in the operand order that makes them
//! `activation::clamp_value`'s selects), then for an integer output divide, round to nearest
//! even (`vrndscaleps`), add the zero point, saturate (NaN to 0, tested only when a parameter
//! makes NaN possible) with `quantize::quantize_lanes_avx512`, and store the low bytes with
//! `quantize::store_low_bytes_avx512`. Contiguous rows of C
//! are stored with a mask; other strides element by element.

use super::driver::{Epilogue, OutKind};
use super::{MR, NR};
use crate::kernels::quantize::{quantize_lanes_avx512, store_low_bytes_avx512};
use crate::kernels::requantize::RequantizerLanes;
use std::arch::x86_64::*;

/// `driver::tile` for AVX-512 VNNI: the 1, 2 or 3 vectors of columns that `cols` needs.
///
/// # Safety
/// As `driver::tile` (the CPU has AVX-512F, BW, VL and VNNI).
#[inline(always)]
pub(super) unsafe fn tile(k4: usize, a: *const u8, b: *const u8, acc: *mut i32, accumulate: bool, cols: usize) {
    // SAFETY: forwarded from the caller.
    unsafe {
        match cols {
            0..=16 => tile_nv::<1>(k4, a, b, acc, accumulate),
            17..=32 => tile_nv::<2>(k4, a, b, acc, accumulate),
            _ => tile_nv::<3>(k4, a, b, acc, accumulate),
        }
    }
}

/// The first `NV` vectors of columns of a tile.
///
/// # Safety
/// As [`tile`].
#[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
unsafe fn tile_nv<const NV: usize>(k4: usize, a: *const u8, b: *const u8, acc: *mut i32, accumulate: bool) {
    let mut c = [[_mm512_setzero_si512(); NV]; MR];
    // SAFETY: the caller guarantees `acc` holds MR·NR i32 (row r's at `acc + r·NR`), `a`
    // k4·MR·4 bytes and `b` k4·NR·4 bytes; every access below lies inside those (NV ≤ 3
    // vectors of 16 i32 or 64 bytes per row or group).
    unsafe {
        if accumulate {
            for (r, row) in c.iter_mut().enumerate() {
                for (v, x) in row.iter_mut().enumerate() {
                    *x = _mm512_loadu_si512(acc.add(r * NR + v * 16).cast());
                }
            }
        }
        let (mut a, mut b) = (a, b);
        for _ in 0..k4 {
            let mut bv = [_mm512_setzero_si512(); NV];
            for (v, x) in bv.iter_mut().enumerate() {
                *x = _mm512_loadu_si512(b.add(v * 64).cast());
            }
            for (r, row) in c.iter_mut().enumerate() {
                let w = _mm512_set1_epi32(a.add(r * 4).cast::<i32>().read_unaligned());
                for (x, &bx) in row.iter_mut().zip(&bv) {
                    // u8 (B) × s8 (A), four products per lane added into the i32 sum; the
                    // sums stay in range (mod.rs, Limits), so no wrap-around.
                    *x = _mm512_dpbusd_epi32(*x, bx, w);
                }
            }
            a = a.add(MR * 4);
            b = b.add(NR * 4);
        }
        for (r, row) in c.iter().enumerate() {
            for (v, &x) in row.iter().enumerate() {
                _mm512_storeu_si512(acc.add(r * NR + v * 16).cast(), x);
            }
        }
    }
}

/// The sums of `count` (≤ N) consecutive packed A panels (`stride` bytes apart) times the
/// vector `x` (4·k4 bytes): per group of four depth steps, one broadcast word of x and, per
/// panel, one 32-byte load (MR rows × 4 weights) into one 8-lane `vpdpbusd`.
///
/// # Safety
/// The CPU has AVX-512F, VL and VNNI; each of the `count` panels is readable for k4·32 bytes;
/// `x` holds 4·k4 bytes.
#[target_feature(enable = "avx512f,avx512vl,avx512vnni")]
pub(super) unsafe fn gemv_panels<const N: usize>(
    k4: usize,
    a: *const u8,
    stride: usize,
    x: &[u8],
    count: usize,
    sums: &mut [[i32; MR]; N],
) {
    debug_assert!(count <= N && x.len() >= 4 * k4);
    let mut acc = [_mm256_setzero_si256(); N];
    let panels: [*const u8; N] = std::array::from_fn(|q| a.wrapping_add(q.min(count.saturating_sub(1)) * stride));
    for s in 0..k4 {
        // SAFETY: x holds 4·k4 bytes.
        let xv = _mm256_set1_epi32(unsafe { x.as_ptr().add(4 * s).cast::<i32>().read_unaligned() });
        for (q, sum) in acc.iter_mut().enumerate() {
            // SAFETY: group s of panel q (the panels past `count` repeat the last one, whose
            // sums are not kept).
            let w = unsafe { _mm256_loadu_si256(panels[q].add(s * MR * 4).cast()) };
            // u8 (x) × s8 (A), four products per lane into row r's sum (no wrap-around:
            // mod.rs, Limits).
            *sum = _mm256_dpbusd_epi32(*sum, xv, w);
        }
    }
    for (out, v) in sums.iter_mut().zip(acc) {
        // SAFETY: 8 i32 into an [i32; 8].
        unsafe { _mm256_storeu_si256(out.as_mut_ptr().cast(), v) };
    }
}

/// `driver::finish` for AVX-512.
///
/// # Safety
/// As `driver::finish` (the CPU has AVX-512F, BW, VL and VNNI).
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vnni")]
pub(super) unsafe fn finish(e: &Epilogue<'_>, acc: *const i32, i: usize, j: usize, rows: usize, cols: usize) {
    // SAFETY: forwarded from the caller.
    unsafe {
        match e.kind {
            OutKind::F32 => finish_as::<F32>(e, acc, (i, j, rows, cols), 0.0, 0.0),
            OutKind::U8 { scale, zero_point } => finish_as::<U8>(e, acc, (i, j, rows, cols), scale, zero_point),
            OutKind::I8 { scale, zero_point } => finish_as::<I8>(e, acc, (i, j, rows, cols), scale, zero_point),
        }
    }
}

/// Output kinds of [`finish_as`].
const F32: u8 = 0;
const U8: u8 = 1;
const I8: u8 = 2;

/// [`finish`] for one kind of output (`out_scale` and `out_zero_point` for U8 and I8).
///
/// # Safety
/// As [`finish`].
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vnni")]
unsafe fn finish_as<const KIND: u8>(
    e: &Epilogue<'_>,
    acc: *const i32,
    (i, j, rows, cols): (usize, usize, usize, usize),
    out_scale: f32,
    out_zero_point: f32,
) {
    let (lo, hi) = (_mm512_set1_ps(e.lo), _mm512_set1_ps(e.hi));
    let (out_scale, out_zero_point) = (_mm512_set1_ps(out_scale), _mm512_set1_ps(out_zero_point));
    let (min, max) = if KIND == U8 { (0.0, 255.0) } else { (-128.0, 127.0) };
    let (min, max) = (_mm512_set1_ps(min), _mm512_set1_ps(max));
    if e.rs == 1 && e.cs != 1 && rows == MR {
        // SAFETY: forwarded from the caller.
        unsafe { finish_transposed::<KIND>(e, acc, (i, j, cols), (out_scale, out_zero_point), (min, max)) };
        return;
    }
    if let (Some(folded), true) = (e.folded, KIND != F32) {
        for (r, rq) in folded[i..i + rows].iter().enumerate() {
            let (corr, ..) = e.row(i + r);
            let (corr, rq) = (_mm512_set1_epi32(corr), RequantizerLanes::new(rq));
            let base = (i + r) * e.rs + j * e.cs;
            for c0 in (0..cols).step_by(16) {
                let n = (cols - c0).min(16);
                let mask: __mmask16 = if n == 16 { 0xffff } else { (1 << n) - 1 };
                // SAFETY: the caller guarantees MR·NR readable sums (c0 + 16 ≤ NR), and that
                // the tile's elements (i + r, j + c0 + t), t < n, lie inside C, for this
                // thread only; the CPU has AVX-512F, BW and VL.
                unsafe {
                    let s = _mm512_loadu_si512(acc.add(r * NR + c0).cast());
                    let q = rq.apply(_mm512_sub_epi32(s, corr));
                    store_low_bytes_avx512(e.out.0.add(base + c0 * e.cs), e.cs, n, mask, q);
                }
            }
        }
        return;
    }
    for r in 0..rows {
        let (corr, scale, bias, has_bias) = e.row(i + r);
        let (corr, scale, bias) = (_mm512_set1_epi32(corr), _mm512_set1_ps(scale), _mm512_set1_ps(bias));
        let base = (i + r) * e.rs + j * e.cs;
        for c0 in (0..cols).step_by(16) {
            let n = (cols - c0).min(16);
            let mask: __mmask16 = if n == 16 { 0xffff } else { (1 << n) - 1 };
            // SAFETY: the caller guarantees MR·NR readable sums; c0 + 16 ≤ NR.
            let s = unsafe { _mm512_loadu_si512(acc.add(r * NR + c0).cast()) };
            let y = value_lanes(s, (corr, scale, bias, has_bias), lo, hi);
            let at = base + c0 * e.cs;
            // SAFETY: the caller guarantees that the tile's elements (i + r, j + c0 + t)
            // for t < n lie inside C, for this thread only; `at` is the first.
            if KIND == F32 {
                unsafe { store_f32(e.out.0.cast::<f32>().add(at), e.cs, n, mask, y) };
            } else {
                // SAFETY: this function's CPU features include AVX-512F.
                let q = unsafe { quantize_lanes_avx512(y, out_scale, out_zero_point, min, max, e.may_be_nan) };
                // SAFETY: as for the f32 store (and the CPU has AVX-512F, BW and VL).
                unsafe { store_low_bytes_avx512(e.out.0.add(at), e.cs, n, mask, q) };
            }
        }
    }
}

/// The f32 values v of 16 sums of one row (`driver::Epilogue::value` in lanes): subtract the
/// zero-point correction, convert, scale, add the bias, clamp.
#[inline]
#[target_feature(enable = "avx512f")]
fn value_lanes(
    s: __m512i,
    (corr, scale, bias, has_bias): (__m512i, __m512, __m512, bool),
    lo: __m512,
    hi: __m512,
) -> __m512 {
    let mut y = _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_sub_epi32(s, corr)), scale);
    if has_bias {
        y = _mm512_add_ps(y, bias);
    }
    // clamp_value: `if y < lo { lo } else { y }`, then `if y > hi { hi } else { y }`.
    // `vmaxps lo, y` is `lo > y ? lo : y` and `vminps hi, y` `hi < y ? hi : y`: the same
    // selects, NaN (in y or a bound) and signed zeros included.
    _mm512_min_ps(hi, _mm512_max_ps(lo, y))
}

/// [`finish_as`] for a full tile (MR rows) of a transposed C (`rs == 1`, a matmul's output
/// `[tokens][channels]` with the channels as A's rows): element (i + r, j + t) lies at
/// `(j + t)·cs + i + r`, so the MR values of each column are contiguous. Each 16-column chunk
/// of the MR rows is finished as [`finish_as`] does, transposed in registers, and each column
/// written with two 4-float stores (one 8-byte store for an 8-bit output) instead of MR
/// scattered ones (those took 45 % of MiniLM's dynamic int8 matmuls).
///
/// # Safety
/// As [`finish`], with `rows == MR` and `e.rs == 1`.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vnni")]
unsafe fn finish_transposed<const KIND: u8>(
    e: &Epilogue<'_>,
    acc: *const i32,
    (i, j, cols): (usize, usize, usize),
    (out_scale, out_zero_point): (__m512, __m512),
    (min, max): (__m512, __m512),
) {
    let (lo, hi) = (_mm512_set1_ps(e.lo), _mm512_set1_ps(e.hi));
    let rows: [_; MR] = std::array::from_fn(|r| {
        let (corr, scale, bias, has_bias) = e.row(i + r);
        (_mm512_set1_epi32(corr), _mm512_set1_ps(scale), _mm512_set1_ps(bias), has_bias)
    });
    let folded: Option<[RequantizerLanes; MR]> =
        e.folded.filter(|_| KIND != F32).map(|f| std::array::from_fn(|r| RequantizerLanes::new(&f[i + r])));
    for c0 in (0..cols).step_by(16) {
        let mut v = [_mm512_setzero_ps(); MR];
        for (r, (x, &(corr, scale, bias, has_bias))) in v.iter_mut().zip(&rows).enumerate() {
            // SAFETY: the caller guarantees MR·NR readable sums; c0 + 16 ≤ NR.
            let s = unsafe { _mm512_loadu_si512(acc.add(r * NR + c0).cast()) };
            *x = if let Some(folded) = &folded {
                _mm512_castsi512_ps(folded[r].apply(_mm512_sub_epi32(s, corr)))
            } else if KIND == F32 {
                value_lanes(s, (corr, scale, bias, has_bias), lo, hi)
            } else {
                let y = value_lanes(s, (corr, scale, bias, has_bias), lo, hi);
                // SAFETY: this function's CPU features include AVX-512F.
                _mm512_castsi512_ps(unsafe {
                    quantize_lanes_avx512(y, out_scale, out_zero_point, min, max, e.may_be_nan)
                })
            };
        }
        // Transpose: per 128-bit lane k, t[q] holds rows 0..4 of column 4k + q and t[q + 4]
        // rows 4..8.
        let pd = _mm512_castps_pd;
        let ps = _mm512_castpd_ps;
        let mut t = [_mm512_setzero_ps(); 8];
        for half in 0..2 {
            let w = &v[half * 4..half * 4 + 4];
            let (u0, u1) = (_mm512_unpacklo_ps(w[0], w[1]), _mm512_unpackhi_ps(w[0], w[1]));
            let (u2, u3) = (_mm512_unpacklo_ps(w[2], w[3]), _mm512_unpackhi_ps(w[2], w[3]));
            t[half * 4] = ps(_mm512_unpacklo_pd(pd(u0), pd(u2)));
            t[half * 4 + 1] = ps(_mm512_unpackhi_pd(pd(u0), pd(u2)));
            t[half * 4 + 2] = ps(_mm512_unpacklo_pd(pd(u1), pd(u3)));
            t[half * 4 + 3] = ps(_mm512_unpackhi_pd(pd(u1), pd(u3)));
        }
        let lanes = |x: __m512| {
            [
                _mm512_castps512_ps128(x),
                _mm512_extractf32x4_ps::<1>(x),
                _mm512_extractf32x4_ps::<2>(x),
                _mm512_extractf32x4_ps::<3>(x),
            ]
        };
        let parts: [[__m128; 4]; 8] = t.map(lanes);
        for c in 0..(cols - c0).min(16) {
            let (k, q) = (c / 4, c % 4);
            let (top, bottom) = (parts[q][k], parts[q + 4][k]);
            let at = (j + c0 + c) * e.cs + i;
            // SAFETY: the caller guarantees that the tile's elements (i + r, j + c0 + c),
            // r < MR, lie inside C, for this thread only: the MR elements from `at`.
            unsafe {
                if KIND == F32 {
                    let out = e.out.0.cast::<f32>().add(at);
                    _mm_storeu_ps(out, top);
                    _mm_storeu_ps(out.add(4), bottom);
                } else {
                    let q = _mm256_set_m128i(_mm_castps_si128(bottom), _mm_castps_si128(top));
                    _mm_storel_epi64(e.out.0.add(at).cast(), _mm256_cvtepi32_epi8(q));
                }
            }
        }
    }
}

/// Stores the first `n` lanes of `y` (as `mask` selects them) at `out`, `cs` apart.
///
/// # Safety
/// The `n` floats are writable, and the CPU has AVX-512F.
#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn store_f32(out: *mut f32, cs: usize, n: usize, mask: __mmask16, y: __m512) {
    if cs == 1 {
        // SAFETY: the caller guarantees the n floats that `mask` selects.
        unsafe { _mm512_mask_storeu_ps(out, mask, y) };
    } else {
        let mut v = [0f32; 16];
        // SAFETY: 16 floats into a 16-float array.
        unsafe { _mm512_storeu_ps(v.as_mut_ptr(), y) };
        for (t, &x) in v[..n].iter().enumerate() {
            // SAFETY: the caller guarantees the n floats, `cs` apart.
            unsafe { *out.add(t * cs) = x };
        }
    }
}

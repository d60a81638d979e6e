//! The AVX2 + FMA microkernel: a 6 × 16 tile in 12 ymm accumulators (two vectors of B and
//! six broadcasts of A per depth step). Partial tiles are stored through a small buffer.

use super::super::sgemm::Mat;
use super::kernel::{Kernel, Tile};
use super::pack;
use std::arch::x86_64::*;

const MR: usize = 6;
const NR: usize = 16;

/// How far ahead (floats) the microkernel prefetches its packed A micro-panel: 3 KiB, as
/// the AVX-512 kernel (`avx512::A_PREFETCH`, where the reason is measured). A conv's filter
/// on a small plane serves few FMAs per element and streams from DRAM: on Zen 3 (kernel
/// bench, 1 thread) 512×49×4608 33–35 → 37–40 GFLOP/s.
const A_PREFETCH: usize = 768;

/// The AVX2 kernel.
pub(super) static KERNEL: Kernel = Kernel {
    mr: MR,
    nr: NR,
    narrow: 0,
    a_in_place: false,
    kc_max: 256,
    b_block: 256 * 512,
    a_block: 256 * 96,
    a_in_place_block: 0, // A is packed
    b_ahead: false,
    // Packed: a 16-wide panel read in place steps a whole row of B per depth step, and at a
    // 56 × 56 plane's 12.5 KB row stride its rows fall into 16 of the 64 sets of the 32 KiB
    // 8-way L1 of the CPUs this kernel runs on (Zen 1–3, Intel client cores), so a deep
    // panel does not stay in L1. Measured on Zen 3 (kernel bench, 1 thread, GFLOP/s, in
    // place → packed): 256×3136×64 20–24 → 41–43, 64×3136×576 28–29 → 32, 2048×49×512
    // 24–32 → 37–38, 512×49×4608 26–27 → 34.
    b_in_place: false,
    // Its SiLU is the AVX2 form: the activations' own only on CPUs without AVX-512.
    swish: || !super::super::unary::has_avx512(),
    tile,
    pack_lhs,
    pack_rhs,
};

/// One tile.
///
/// # Safety
/// The [`super::kernel::TileFn`] contract, with MR = 6, NR = 16 and AVX2 + FMA.
#[target_feature(enable = "avx2,fma")]
unsafe fn tile(t: &Tile) {
    let mut acc = [[_mm256_setzero_ps(); 2]; MR];
    // Fetch the tile of C while the sums run (it is read or written at the end): a row's 16
    // floats span one or two lines.
    for i in 0..t.rows {
        let row = t.c.wrapping_add(i * t.c_rs);
        _mm_prefetch::<_MM_HINT_T0>(row.cast());
        _mm_prefetch::<_MM_HINT_T0>(row.wrapping_add(NR - 1).cast());
    }
    let (mut a, mut b) = (t.a, t.b);
    for _ in 0..t.kc {
        // Prefetching never faults, whatever the address.
        _mm_prefetch::<_MM_HINT_T0>(a.wrapping_add(A_PREFETCH).cast());
        // SAFETY: step p of the B micro-panel holds NR = 16 floats, of A MR floats.
        let bv = unsafe { [_mm256_loadu_ps(b), _mm256_loadu_ps(b.add(8))] };
        for (i, row) in acc.iter_mut().enumerate() {
            // SAFETY: as above.
            let av = _mm256_set1_ps(unsafe { *a.add(i) });
            row[0] = _mm256_fmadd_ps(av, bv[0], row[0]);
            row[1] = _mm256_fmadd_ps(av, bv[1], row[1]);
        }
        // Wrapping: after the last step the pointers may pass the end of the data unused.
        a = a.wrapping_add(MR);
        b = b.wrapping_add(t.b_rs);
    }
    if t.rows == MR && t.cols == NR {
        let ops = &t.ops;
        for (i, row) in acc.iter().enumerate() {
            for (v, x) in row.iter().enumerate() {
                // SAFETY: the full tile is valid for the caller, and the bias covers its rows
                // or columns.
                unsafe {
                    let p = t.c.add(i * t.c_rs + 8 * v);
                    let mut y = if t.accumulate { _mm256_add_ps(_mm256_loadu_ps(p), *x) } else { *x };
                    if !ops.bias.is_null() {
                        let bias = if ops.bias_cols {
                            _mm256_loadu_ps(ops.bias.add(8 * v))
                        } else {
                            _mm256_set1_ps(*ops.bias.add(i))
                        };
                        y = _mm256_add_ps(y, bias);
                    }
                    if !ops.other.is_null() {
                        let o = _mm256_loadu_ps(ops.other.add(i * ops.other_rs + 8 * v));
                        y = if ops.other_mul { _mm256_mul_ps(y, o) } else { _mm256_add_ps(y, o) };
                    }
                    // (A SiLU reaches this kernel only where `Kernel::swish` said so.)
                    if let Some(act) = ops.act {
                        y = act.apply_avx2(y);
                    }
                    _mm256_storeu_ps(p, y);
                }
            }
        }
    } else {
        let mut buf = [[0f32; NR]; MR];
        for (row, out) in acc.iter().zip(buf.iter_mut()) {
            // SAFETY: each row of `buf` holds 16 floats.
            unsafe {
                _mm256_storeu_ps(out.as_mut_ptr(), row[0]);
                _mm256_storeu_ps(out.as_mut_ptr().add(8), row[1]);
            }
        }
        // SAFETY: forwarded from the caller (the tile's valid elements).
        unsafe { super::portable::store_partial(t, &buf) };
    }
}

/// Packs A for this kernel.
///
/// # Safety
/// The CPU has AVX2 and FMA.
#[target_feature(enable = "avx2,fma")]
unsafe fn pack_lhs(a: Mat<'_>, i0: usize, mc: usize, p0: usize, kc: usize, dst: &mut [f32]) {
    pack::pack_lhs::<MR>(a, i0, mc, p0, kc, dst)
}

/// Packs B for this kernel.
///
/// # Safety
/// The CPU has AVX2 and FMA.
#[target_feature(enable = "avx2,fma")]
unsafe fn pack_rhs(b: Mat<'_>, p0: usize, kc: usize, j0: usize, nc: usize, dst: &mut [f32]) {
    pack::pack_rhs::<NR>(b, p0, kc, j0, nc, dst)
}

//! The portable microkernel: a 4 × 8 tile in plain Rust (the compiler vectorizes the column
//! loops for the baseline target: SSE2 on x86-64, NEON on aarch64). Correct on any target.

use super::super::sgemm::Mat;
use super::kernel::{Kernel, Tile};
use super::pack;

const MR: usize = 4;
const NR: usize = 8;

/// The portable kernel.
pub(super) static KERNEL: Kernel = Kernel {
    mr: MR,
    nr: NR,
    narrow: 0,
    a_in_place: false,
    kc_max: 256,
    b_block: 256 * 256,
    a_block: 256 * 64,
    a_in_place_block: 0, // A is packed
    b_ahead: false,
    b_in_place: true,
    swish: || false,
    tile,
    pack_lhs,
    pack_rhs,
};

/// One tile.
///
/// # Safety
/// The [`super::kernel::TileFn`] contract, with MR = 4 and NR = 8.
unsafe fn tile(t: &Tile) {
    let (kc, b_rs) = (t.kc, t.b_rs);
    // SAFETY: the A micro-panel holds kc steps of MR floats.
    let a = unsafe { std::slice::from_raw_parts(t.a, MR * kc) };
    let mut acc = [[0f32; NR]; MR];
    for (p, av) in a.chunks_exact(MR).enumerate() {
        // SAFETY: step p of the B micro-panel holds NR floats (copied: `b` may be unaligned).
        let bv: [f32; NR] = unsafe { t.b.add(p * b_rs).cast::<[f32; NR]>().read_unaligned() };
        for (row, &x) in acc.iter_mut().zip(av) {
            for (r, &y) in row.iter_mut().zip(&bv) {
                *r += x * y;
            }
        }
    }
    // SAFETY: forwarded from the caller.
    unsafe { store_partial(t, &acc) };
}

/// Stores (or adds, if `t.accumulate`) the valid `t.rows × t.cols` part of a computed tile,
/// then applies `t.ops`.
///
/// # Safety
/// The tile's valid elements of C are accessible as the [`super::kernel::TileFn`] contract says.
#[inline(always)]
pub(super) unsafe fn store_partial<const R: usize, const C: usize>(t: &Tile, acc: &[[f32; C]; R]) {
    let finish = t.ops.any();
    for (i, row) in acc.iter().enumerate().take(t.rows) {
        // SAFETY: row i < t.rows of the tile has t.cols valid elements.
        let out = unsafe { std::slice::from_raw_parts_mut(t.c.add(i * t.c_rs), t.cols) };
        if t.accumulate {
            out.iter_mut().zip(row).for_each(|(o, &x)| *o += x);
        } else {
            out.copy_from_slice(&row[..t.cols]);
        }
        if finish {
            for (j, o) in out.iter_mut().enumerate() {
                // SAFETY: the driver's bias and operand cover the tile's rows and columns.
                *o = unsafe { t.ops.finish(*o, i, j) };
            }
        }
    }
}

/// Packs A for this kernel.
///
/// # Safety
/// None beyond the signature's (safe code; `unsafe` only to share the function type).
unsafe fn pack_lhs(a: Mat<'_>, i0: usize, mc: usize, p0: usize, kc: usize, dst: &mut [f32]) {
    pack::pack_lhs::<MR>(a, i0, mc, p0, kc, dst)
}

/// Packs B for this kernel.
///
/// # Safety
/// None beyond the signature's (safe code; `unsafe` only to share the function type).
unsafe fn pack_rhs(b: Mat<'_>, p0: usize, kc: usize, j0: usize, nc: usize, dst: &mut [f32]) {
    pack::pack_rhs::<NR>(b, p0, kc, j0, nc, dst)
}

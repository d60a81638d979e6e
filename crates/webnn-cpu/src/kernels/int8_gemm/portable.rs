//! The portable microkernel and epilogue (any CPU): plain loops over the packed panels,
//! giving the same i32 sums as the SIMD kernels (integer arithmetic is exact) and the same
//! f32 steps in the epilogue, so the same outputs.

use super::driver::Epilogue;
use super::{MR, NR};

/// The portable form of `driver::tile`: the first `cols` columns of the MR × NR tile.
///
/// # Safety
/// As `driver::tile`.
pub(super) unsafe fn tile(k4: usize, a: *const u8, b: *const u8, acc: *mut i32, accumulate: bool, cols: usize) {
    // SAFETY: the caller guarantees these extents (`acc` aligned, not aliased during the call).
    let (a, b, acc) = unsafe {
        (
            std::slice::from_raw_parts(a.cast::<i8>(), k4 * MR * 4),
            std::slice::from_raw_parts(b, k4 * NR * 4),
            std::slice::from_raw_parts_mut(acc, MR * NR),
        )
    };
    let mut sums = [[0i32; NR]; MR];
    if accumulate {
        for (row, src) in sums.iter_mut().zip(acc.chunks_exact(NR)) {
            row.copy_from_slice(src);
        }
    }
    for (a4, b4) in a.chunks_exact(MR * 4).zip(b.chunks_exact(NR * 4)) {
        for (row, w) in sums.iter_mut().zip(a4.chunks_exact(4)) {
            let w = [w[0] as i32, w[1] as i32, w[2] as i32, w[3] as i32];
            for (s, x) in row[..cols].iter_mut().zip(b4.chunks_exact(4)) {
                *s += w[0] * x[0] as i32 + w[1] * x[1] as i32 + w[2] * x[2] as i32 + w[3] * x[3] as i32;
            }
        }
    }
    for (row, dst) in sums.iter().zip(acc.chunks_exact_mut(NR)) {
        dst.copy_from_slice(row);
    }
}

/// The portable form of `driver::finish`.
///
/// # Safety
/// As `driver::finish`.
pub(super) unsafe fn finish(e: &Epilogue<'_>, acc: *const i32, i: usize, j: usize, rows: usize, cols: usize) {
    // SAFETY: the caller guarantees MR·NR readable sums.
    let acc = unsafe { std::slice::from_raw_parts(acc, MR * NR) };
    if let Some(folded) = e.folded {
        for (r, sums) in acc.chunks_exact(NR).take(rows).enumerate() {
            let (corr, ..) = e.row(i + r);
            let rq = &folded[i + r];
            for (c, &s) in sums[..cols].iter().enumerate() {
                // SAFETY: the caller guarantees that the tile lies inside C (an 8-bit output
                // where `folded` is set), for this thread only.
                unsafe { *e.out.0.add((i + r) * e.rs + (j + c) * e.cs) = rq.apply(s - corr) };
            }
        }
        return;
    }
    for (r, sums) in acc.chunks_exact(NR).take(rows).enumerate() {
        let terms = e.row(i + r);
        for (c, &s) in sums[..cols].iter().enumerate() {
            // SAFETY: the caller guarantees that the tile lies inside C, for this thread only.
            unsafe { e.store(e.value(s, terms), i + r, j + c) };
        }
    }
}

//! Packing: operands copied into the panel layouts the microkernels read, and the 64-byte
//! aligned, fallibly grown storage that holds them.

use super::super::sgemm::Mat;

/// One cache line of floats (the unit of [`AlignedBuf`], which gives it its alignment).
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Line([f32; 16]);

/// Floats in 64-byte aligned storage, grown fallibly (never aborts when memory runs out).
#[derive(Default)]
pub(super) struct AlignedBuf {
    lines: Vec<Line>,
}

impl AlignedBuf {
    /// Makes room for at least `len` floats (contents unspecified); false if the memory
    /// cannot be allocated.
    pub fn grow(&mut self, len: usize) -> bool {
        let lines = len.div_ceil(16);
        if self.lines.len() < lines {
            if self.lines.try_reserve_exact(lines - self.lines.len()).is_err() {
                return false;
            }
            self.lines.resize(lines, Line([0.0; 16]));
        }
        true
    }

    /// All the floats (a multiple of 16, at least what `grow` asked for).
    pub fn as_slice(&self) -> &[f32] {
        // SAFETY: `Line` is `repr(C)` around `[f32; 16]` with size 64 and alignment 64, so
        // `lines.len()` lines are exactly `16 * lines.len()` contiguous, initialized floats.
        unsafe { std::slice::from_raw_parts(self.lines.as_ptr().cast::<f32>(), self.lines.len() * 16) }
    }

    /// All the floats, mutably.
    pub fn as_mut_slice(&mut self) -> &mut [f32] {
        // SAFETY: as in `as_slice`; the borrow of `self` is exclusive.
        unsafe { std::slice::from_raw_parts_mut(self.lines.as_mut_ptr().cast::<f32>(), self.lines.len() * 16) }
    }

    /// Bytes held.
    pub fn bytes(&self) -> usize {
        self.lines.len() * 64
    }
}

/// Floats of `rows × depth` packed into `width`-wide panels (the padded size).
pub(super) fn packed_len(rows: usize, depth: usize, width: usize) -> Option<usize> {
    rows.div_ceil(width).checked_mul(width)?.checked_mul(depth)
}

/// Packs rows `i0..i0+mc` and depth `p0..p0+kc` of A into MR-high micro-panels: panel r holds,
/// for each p in 0..kc, the MR values A[i0 + r·MR + ii, p0 + p] (zero for rows past `mc`).
/// `dst` holds at least `ceil(mc / MR) · MR · kc` floats; the view covers the block.
#[inline(always)]
pub(super) fn pack_lhs<const MR: usize>(a: Mat<'_>, i0: usize, mc: usize, p0: usize, kc: usize, dst: &mut [f32]) {
    for (r, panel) in dst[..mc.div_ceil(MR) * MR * kc].chunks_exact_mut(MR * kc).enumerate() {
        let rows = (mc - r * MR).min(MR);
        let base = (i0 + r * MR) * a.rs + p0 * a.cs;
        if a.rs == 1 && rows == MR {
            // Column-major A: each step's MR values are contiguous.
            for (p, out) in panel.chunks_exact_mut(MR).enumerate() {
                let s = base + p * a.cs;
                out.copy_from_slice(&a.data[s..s + MR]);
            }
        } else if a.cs == 1 && rows == MR {
            // Row-major A: step p gathers element p of MR contiguous rows.
            let src: [&[f32]; MR] = std::array::from_fn(|ii| &a.data[base + ii * a.rs..][..kc]);
            for (p, out) in panel.chunks_exact_mut(MR).enumerate() {
                for (o, row) in out.iter_mut().zip(&src) {
                    *o = row[p];
                }
            }
        } else if a.cs == 1 {
            // Row-major A: each row's kc values are contiguous; write them with stride MR.
            interleave_runs::<MR>(panel, a.data, base, a.rs, rows, kc);
        } else {
            gather_lanes::<MR>(panel, a.data, |ii, p| base + ii * a.rs + p * a.cs, rows);
        }
    }
}

/// Packs depth `p0..p0+kc` and columns `j0..j0+nc` of B into NR-wide micro-panels: panel q
/// holds, for each p in 0..kc, the NR values B[p0 + p, j0 + q·NR + jj] (zero for columns past
/// `nc`). `dst` holds at least `ceil(nc / NR) · NR · kc` floats; the view covers the block.
#[inline(always)]
pub(super) fn pack_rhs<const NR: usize>(b: Mat<'_>, p0: usize, kc: usize, j0: usize, nc: usize, dst: &mut [f32]) {
    if b.cs == 1 {
        // Row-major B: row by row (each read once, front to back, as the prefetchers like; a
        // panel at a time would jump a row stride per step), the full panels' runs copied
        // with a fixed width (vector moves, not a `memcpy` call each).
        let (full, panel_len) = (nc / NR, NR * kc);
        let dst = &mut dst[..nc.div_ceil(NR) * panel_len];
        for p in 0..kc {
            let row = &b.data[(p0 + p) * b.rs + j0..][..nc];
            for (q, run) in row.chunks_exact(NR).enumerate() {
                dst[q * panel_len + p * NR..][..NR].copy_from_slice(run);
            }
            if full * NR < nc {
                let out = &mut dst[full * panel_len + p * NR..][..NR];
                let cols = nc - full * NR;
                out[..cols].copy_from_slice(&row[full * NR..]);
                out[cols..].fill(0.0);
            }
        }
        return;
    }
    for (q, panel) in dst[..nc.div_ceil(NR) * NR * kc].chunks_exact_mut(NR * kc).enumerate() {
        let cols = (nc - q * NR).min(NR);
        let base = p0 * b.rs + (j0 + q * NR) * b.cs;
        if b.rs == 1 {
            // Column-major B: each column's kc values are contiguous; write them with stride NR.
            interleave_runs::<NR>(panel, b.data, base, b.cs, cols, kc);
        } else {
            gather_lanes::<NR>(panel, b.data, |jj, p| base + p * b.rs + jj * b.cs, cols);
        }
    }
}

/// Fills a W-wide micro-panel of `kc` steps from `valid` runs of `kc` contiguous values (lane
/// `l`'s run starts at `data[base + l·lane_stride]`), each written with stride W; lanes from
/// `valid` on are zero.
#[inline(always)]
fn interleave_runs<const W: usize>(
    panel: &mut [f32],
    data: &[f32],
    base: usize,
    lane_stride: usize,
    valid: usize,
    kc: usize,
) {
    for l in 0..W {
        if l < valid {
            let s = base + l * lane_stride;
            for (out, &v) in panel[l..].iter_mut().step_by(W).zip(&data[s..s + kc]) {
                *out = v;
            }
        } else {
            panel[l..].iter_mut().step_by(W).for_each(|out| *out = 0.0);
        }
    }
}

/// Fills a W-wide micro-panel element by element: step p, lane l reads `data[at(l, p)]`;
/// lanes from `valid` on are zero.
#[inline(always)]
fn gather_lanes<const W: usize>(panel: &mut [f32], data: &[f32], at: impl Fn(usize, usize) -> usize, valid: usize) {
    for (p, out) in panel.chunks_exact_mut(W).enumerate() {
        for (l, o) in out.iter_mut().enumerate() {
            *o = if l < valid { data[at(l, p)] } else { 0.0 };
        }
    }
}

/// Packs depth `p0..p0+kc` and columns `j0..j0+cols` of B without padding: step p holds the
/// `cols` values B[p0 + p, j0..j0 + cols] (for the narrow last panel of a kernel that reads
/// only the valid columns). `dst` holds at least `kc · cols` floats.
pub(super) fn pack_rhs_narrow(b: Mat<'_>, p0: usize, kc: usize, j0: usize, cols: usize, dst: &mut [f32]) {
    for (p, out) in dst[..kc * cols].chunks_exact_mut(cols).enumerate() {
        for (c, o) in out.iter_mut().enumerate() {
            *o = b.data[(p0 + p) * b.rs + (j0 + c) * b.cs];
        }
    }
}

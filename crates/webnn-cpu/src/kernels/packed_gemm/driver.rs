//! The blocked loops (BLIS-style) that run one rectangle of the output: depth blocks of KC,
//! column blocks of NC and row blocks of MC; operands read in place where the microkernel can
//! (packed ones, a row-major B, a strided A for AVX-512), the others packed block by block into
//! thread-local scratch; then every MR × NR tile through the microkernel, and the epilogue on
//! a tile's rows as soon as its last depth block is stored.

use super::super::epilogue::{EpilogueBinary, TileBias};
use super::kernel::{Blocking, Kernel, Tile, TileOps};
use super::pack::{self, packed_len, AlignedBuf};
use super::{Lhs, Rhs, StoreOps, TileEpilogue, TileOut};
use std::cell::Cell;
use std::ops::Range;

/// The output matrix, shared by the tasks that write disjoint tiles of it.
#[derive(Clone, Copy)]
pub(super) struct OutPtr {
    /// Element (0, 0).
    pub ptr: *mut f32,
    /// Row stride, in elements.
    pub rs: usize,
}

// SAFETY: `OutPtr` is only dereferenced for the tiles of the task that holds it; tasks cover
// disjoint rectangles of C (see `super::gemm_blocked`), so no element is accessed by two threads.
unsafe impl Send for OutPtr {}
// SAFETY: as for Send.
unsafe impl Sync for OutPtr {}

/// One GEMM: the operands, the output, the epilogue and the blocking.
pub(super) struct Job<'a, E> {
    pub kernel: &'static Kernel,
    pub k: usize,
    pub a: Lhs<'a>,
    pub b: Rhs<'a>,
    pub c: OutPtr,
    pub epilogue: &'a E,
    /// The epilogue's [`TileEpilogue::store_ops`] (its bias checked to cover C's rows or
    /// columns): applied by the microkernel, and `epilogue.tile` never called.
    pub store: Option<StoreOps<'a>>,
    pub blocking: Blocking,
}

/// A micro-panels of a block: panel r's depth block starts at `ptr + r * stride`, its rows
/// `rs` and its steps `step` floats apart (1 and MR when packed, A's strides in place).
#[derive(Clone, Copy)]
struct LhsPanels {
    ptr: *const f32,
    stride: usize,
    rs: usize,
    step: usize,
}

/// B micro-panels of a block: panel q's depth block starts at `ptr + q * stride`, its steps
/// `step` floats apart (NR when packed, B's row stride when read in place), except a partial
/// last panel given apart as `tail` (its start and step).
#[derive(Clone, Copy)]
struct RhsPanels {
    ptr: *const f32,
    stride: usize,
    step: usize,
    tail: Option<(*const f32, usize)>,
}

/// Depth blocks up to this deep run their tiles row panel by row panel (see `Job::block`).
const SHALLOW_KC: usize = 64;

thread_local! {
    /// The packing scratch of this thread (taken while in use, so a nested GEMM in an
    /// epilogue gets a fresh one instead of a conflict).
    static SCRATCH: Cell<AlignedBuf> = Cell::default();
}

impl<E: TileEpilogue> Job<'_, E> {
    /// Computes C[rows, cols] and applies the epilogue to it. `rows.start` and `cols.start`
    /// are multiples of MR and NR; the ranges lie inside the validated m × n output.
    pub fn run(&self, rows: Range<usize>, cols: Range<usize>) -> webnn_core::Result<()> {
        let mut scratch = SCRATCH.with(Cell::take);
        let result = self.run_in(rows, cols, &mut scratch);
        SCRATCH.with(|s| {
            let kept = s.take();
            s.set(if kept.bytes() >= scratch.bytes() { kept } else { scratch });
        });
        result
    }

    fn run_in(&self, rows: Range<usize>, cols: Range<usize>, scratch: &mut AlignedBuf) -> webnn_core::Result<()> {
        let Blocking { kc: kcb, mc: mcb, nc: ncb, a_in_place_block, .. } = self.blocking;
        let (mr, nr) = (self.kernel.mr, self.kernel.nr);
        let a_len = match self.a {
            Lhs::Strided(_) if !self.kernel.a_in_place => packed_len(mcb, kcb, mr).map(|l| l.next_multiple_of(16)),
            Lhs::Strided(_) => Some(0),
            Lhs::Packed(_) => Some(0),
        };
        let b_len = match self.b {
            Rhs::Strided(_) => packed_len(ncb, kcb, nr),
            Rhs::Packed(_) => Some(0),
        };
        let total = a_len.zip(b_len).and_then(|(a, b)| a.checked_add(b));
        if !total.is_some_and(|t| scratch.grow(t)) {
            return Err(webnn_core::Error::unknown(format!(
                "gemm: cannot allocate the packing scratch ({kcb} deep blocks of {mcb} rows and {ncb} columns)"
            )));
        }
        let (sa, sb) = scratch.as_mut_slice().split_at_mut(a_len.unwrap_or(0));
        let k = self.k;
        let step = |r: Range<usize>, s: usize| r.clone().step_by(s).map(move |x| (x, s.min(r.end - x)));
        if matches!((&self.a, &self.b), (Lhs::Strided(_), Rhs::Packed(_))) {
            // B is packed already (a model's weights, read from DRAM when the model outgrows
            // the caches): pack each A block once (if the kernel packs A) and sweep all the
            // columns with it. An A read in place is one block when the task's rows fit
            // `a_in_place_block`, so that B streams from memory once, not once per MC rows.
            let mcb = if self.kernel.a_in_place && rows.len().saturating_mul(kcb) <= a_in_place_block {
                rows.len().next_multiple_of(mr)
            } else {
                mcb
            };
            for (ic, mc) in step(rows.clone(), mcb) {
                for (pc, kc) in step(0..k, kcb) {
                    let ab = self.lhs_block(ic, mc, pc, kc, sa);
                    for (jc, nc) in step(cols.clone(), ncb) {
                        let bb = self.rhs_block(pc, kc, jc, nc, sb);
                        self.block(ab, bb, (ic, mc), (jc, nc), (pc, kc));
                    }
                }
            }
        } else {
            // Pack each B block once (if it needs packing; it stays in L2) and sweep the rows
            // over it.
            for (jc, nc) in step(cols.clone(), ncb) {
                for (pc, kc) in step(0..k, kcb) {
                    let bb = self.rhs_block(pc, kc, jc, nc, sb);
                    for (ic, mc) in step(rows.clone(), mcb) {
                        let ab = self.lhs_block(ic, mc, pc, kc, sa);
                        self.block(ab, bb, (ic, mc), (jc, nc), (pc, kc));
                    }
                }
            }
        }
        Ok(())
    }

    /// The A micro-panels of rows `ic..ic+mc`, depth `pc..pc+kc`: packed ones in place, a
    /// strided A in place if the kernel can read it so, else packed into `scratch`.
    fn lhs_block(&self, ic: usize, mc: usize, pc: usize, kc: usize, scratch: &mut [f32]) -> LhsPanels {
        let mr = self.kernel.mr;
        match self.a {
            Lhs::Packed(p) => {
                let stride = mr * p.k;
                // SAFETY: `ic` is a multiple of MR inside the packed rows and `pc < k`, so the
                // offset lies inside the packed buffer (ceil(m / MR) panels of MR·k floats).
                LhsPanels {
                    ptr: unsafe { p.buf.as_slice().as_ptr().add(ic / mr * stride + pc * mr) },
                    stride,
                    rs: 1,
                    step: mr,
                }
            }
            Lhs::Strided(a) if self.kernel.a_in_place => {
                LhsPanels { ptr: a.data[ic * a.rs + pc * a.cs..].as_ptr(), stride: mr * a.rs, rs: a.rs, step: a.cs }
            }
            Lhs::Strided(a) => {
                // SAFETY: the kernel's ISA is available (checked when the job was made); the
                // view was validated to cover m × k and the scratch to hold MC × KC panels.
                unsafe { (self.kernel.pack_lhs)(a, ic, mc, pc, kc, scratch) };
                LhsPanels { ptr: scratch.as_ptr(), stride: mr * kc, rs: 1, step: mr }
            }
        }
    }

    /// The B micro-panels of depth `pc..pc+kc`, columns `jc..jc+nc`: packed ones in place;
    /// a strided row-major B in place but for a partial last panel (if the blocking says
    /// so); other strided views packed into `scratch`. A partial last panel of at most
    /// `kernel.narrow` columns is packed without padding (its kernel reads only those
    /// columns, so they stay in L1).
    fn rhs_block(&self, pc: usize, kc: usize, jc: usize, nc: usize, scratch: &mut [f32]) -> RhsPanels {
        let nr = self.kernel.nr;
        let b = match self.b {
            Rhs::Packed(p) => {
                let stride = nr * p.k;
                let base = p.buf.as_slice().as_ptr();
                // SAFETY: `jc` is a multiple of NR inside the packed columns and `pc < k`, so
                // the offsets lie inside the packed buffer (ceil(n / NR) panels of NR·k floats,
                // the last one `tail_step`·k when it is narrow).
                let (ptr, tail) = unsafe {
                    let tail = (jc + nc == p.n && p.tail_step < nr)
                        .then(|| (base.add(p.n / nr * stride + pc * p.tail_step), p.tail_step));
                    (base.add(jc / nr * stride + pc * nr), tail)
                };
                return RhsPanels { ptr, stride, step: nr, tail };
            }
            Rhs::Strided(b) => b,
        };
        let full = nc / nr * nr;
        let in_place = b.cs == 1 && self.blocking.b_in_place;
        let (head, rest) = scratch.split_at_mut(if in_place { 0 } else { full * kc });
        let tail = (full < nc).then(|| {
            let cols = nc - full;
            if cols <= self.kernel.narrow {
                pack::pack_rhs_narrow(b, pc, kc, jc + full, cols, rest);
                (rest.as_ptr(), cols)
            } else {
                // SAFETY: as in `lhs_block`.
                unsafe { (self.kernel.pack_rhs)(b, pc, kc, jc + full, cols, rest) };
                (rest.as_ptr(), nr)
            }
        });
        if head.is_empty() && full > 0 {
            // Row-major B: its full panels are read in place.
            return RhsPanels { ptr: b.data[pc * b.rs + jc..].as_ptr(), stride: nr, step: b.rs, tail };
        }
        if full > 0 {
            // SAFETY: as in `lhs_block`.
            unsafe { (self.kernel.pack_rhs)(b, pc, kc, jc, full, head) };
        }
        RhsPanels { ptr: head.as_ptr(), stride: nr * kc, step: nr, tail }
    }

    /// Every tile of one block; the epilogue follows each tile of the last depth block.
    fn block(
        &self,
        ab: LhsPanels,
        bb: RhsPanels,
        (ic, mc): (usize, usize),
        (jc, nc): (usize, usize),
        (pc, kc): (usize, usize),
    ) {
        let (mr, nr) = (self.kernel.mr, self.kernel.nr);
        let (mt, nt) = (mc.div_ceil(mr), nc.div_ceil(nr));
        if kc <= SHALLOW_KC {
            // Shallow: each A micro-panel stays in L1 while the B micro-panels (in L2) stream
            // past it, so C is written MR rows at a time, MR sequential streams.
            for ir in 0..mt {
                for jr in 0..nt {
                    self.tile(ab, bb, (ic, mc, ir), (jc, nc, jr), (pc, kc), (std::ptr::null(), 0));
                }
            }
            return;
        }
        // Each B micro-panel stays in L1/L2 while the A micro-panels of the block (in L2)
        // stream past it. Meanwhile the next full B micro-panel is fetched into L2, a
        // `1/mt`-th of it during each tile: by the microkernel, a line every few steps, when
        // it can (`Kernel::b_ahead`) and the panel is contiguous, else all before the tile
        // (`prefetch_share`). Issued all at once, the share's prefetches (144 lines per tile
        // for BERT-base) waited for free fill buffers: 7-9 % of BERT-base and ViT-B/16 in
        // perf. Spread, 1 thread, alternating runs on a loaded host (medians of 5): BERT-base
        // 128 352 -> 301 ms, ViT-B/16 551 -> 493.
        for jr in 0..nt {
            let next = (jr + 1 < nt && (jr + 2) * nr <= nc).then(|| bb.ptr.wrapping_add((jr + 1) * bb.stride));
            for ir in 0..mt {
                let mut ahead = (std::ptr::null(), 0);
                if let Some(next) = next {
                    if self.kernel.b_ahead && bb.step == nr {
                        // A packed panel is contiguous: the microkernel fetches this tile's
                        // share of its lines itself, spread over its steps.
                        let (l0, l1) = (kc * nr * ir / mt / 16, kc * nr * (ir + 1) / mt / 16);
                        ahead = (next.wrapping_add(l0 * 16), l1 - l0);
                    } else {
                        prefetch_share(next, bb.step, kc, nr, ir, mt);
                    }
                }
                self.tile(ab, bb, (ic, mc, ir), (jc, nc, jr), (pc, kc), ahead);
            }
        }
    }

    /// Tile (ir, jr) of a block, then its epilogue if this is the last depth block.
    #[inline(always)]
    fn tile(
        &self,
        ab: LhsPanels,
        bb: RhsPanels,
        (ic, mc, ir): (usize, usize, usize),
        (jc, nc, jr): (usize, usize, usize),
        (pc, kc): (usize, usize),
        (b_ahead, b_ahead_lines): (*const f32, usize),
    ) {
        let (mr, nr) = (self.kernel.mr, self.kernel.nr);
        let i = ic + ir * mr;
        let rows = (ic + mc - i).min(mr);
        let j = jc + jr * nr;
        let cols = (jc + nc - j).min(nr);
        let (b, b_rs) = match bb.tail {
            Some(t) if cols < nr => t,
            _ => (bb.ptr.wrapping_add(jr * bb.stride), bb.step),
        };
        let last = pc + kc == self.k;
        let ops = match self.store {
            Some(StoreOps { bias, other, act }) if last => {
                let (bias, bias_cols) = match bias {
                    TileBias::None => (std::ptr::null(), false),
                    TileBias::Rows(b) => (b.as_ptr().wrapping_add(i), false),
                    TileBias::Cols(b) => (b.as_ptr().wrapping_add(j), true),
                };
                let (other, other_rs, other_mul) = match other {
                    Some(o) => (o.data.as_ptr().wrapping_add(i * o.rs + j), o.rs, o.op == EpilogueBinary::Mul),
                    None => (std::ptr::null(), 0, false),
                };
                TileOps { bias, bias_cols, other, other_rs, other_mul, act }
            }
            _ => TileOps::NONE,
        };
        // SAFETY: the panels hold kc steps (see `lhs_block`/`rhs_block`); the tile's
        // rows × cols elements lie inside this task's rectangle of the validated C.
        let tile = unsafe {
            Tile {
                kc,
                a: ab.ptr.wrapping_add(ir * ab.stride),
                a_rs: ab.rs,
                a_step: ab.step,
                b,
                b_rs,
                b_ahead,
                b_ahead_lines,
                c: self.c.ptr.add(i * self.c.rs + j),
                c_rs: self.c.rs,
                rows,
                cols,
                accumulate: pc > 0,
                ops,
            }
        };
        if last {
            self.epilogue.prefetch(i, j, rows, cols);
        }
        // SAFETY: the tile satisfies the TileFn contract (above), and the kernel's ISA is
        // available.
        unsafe { (self.kernel.tile)(&tile) };
        if last && self.store.is_none() {
            // The tile's rows × cols elements, written above and touched by no other task.
            let mut out = TileOut { ptr: tile.c, rs: self.c.rs, rows, cols, _c: std::marker::PhantomData };
            self.epilogue.tile(i, j, &mut out);
        }
    }
}

/// Fetches share `part` of `parts` of a B micro-panel (`kc` steps of `nr` floats, `step`
/// floats apart) into L2. A packed B is a model's weights, read from DRAM on each dispatch
/// when the model is larger than the caches (BERT-base: 340 MB). The first tile to read a
/// micro-panel streams it at the FMAs' pace, faster than one core's demand misses bring it
/// from DRAM; fetched in shares ahead, while the previous panel's tiles run from L1/L2, it
/// is there in time.
#[inline(always)]
fn prefetch_share(panel: *const f32, step: usize, kc: usize, nr: usize, part: usize, parts: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T1};
        let (p0, p1) = (kc * part / parts, kc * (part + 1) / parts);
        for p in p0..p1 {
            let row = panel.wrapping_add(p * step);
            let mut off = 0;
            while off < nr {
                // SAFETY: prefetching never faults, whatever the address.
                unsafe { _mm_prefetch::<_MM_HINT_T1>(row.wrapping_add(off).cast()) };
                off += 16;
            }
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (panel, step, kc, nr, part, parts);
}

//! The blocked loops of one thread and the split of the output among threads.
//!
//! One thread computes a rectangle of C: for each block of NC columns it packs B's columns
//! (the whole depth, NC × k bytes, sized to stay in L2), then for each block of MC rows and
//! each depth block of KC, every MR × NR tile: the B micro-panel (KC × NR bytes) stays in L1
//! while the A micro-panels of the row block (MC × KC bytes, in L2) stream past it. The i32
//! sums of a tile go to an MR × NR buffer (L1) and, after the last depth block, through the
//! epilogue into C. When the depth is one block a single tile buffer serves every tile; else
//! each tile of the MC × NC block keeps its own between depth blocks.

use super::super::activation::clamp_value;
use super::super::quantize::round_half_even;
use super::super::requantize::Requantizer;
use super::pack::{self, padded_depth};
use super::{Isa, PackedI8, U8View, MR, NR};
use crate::memory::AlignedBuf;
use std::cell::Cell;
use std::ops::Range;
use webnn_core::Error;

/// Deepest depth block. A B micro-panel of KC × 48 bytes is read once per A micro-panel, a
/// 192-byte group per 24 `vpdpbusd`: from L2 that is fast enough, so the depth need not fit
/// L1, and fewer blocks save the stores and reloads of the sums. Measured on Zen 4 (1
/// thread, the `int8` kernel bench): 256, 512, 1024 and 4096 within 1-3 % of each other,
/// 1024 and up the best.
const KC_MAX: usize = 1024;
/// Deepest depth block of the wide (AVX2) layout: a sub-tile streams 16 columns × KC steps
/// of B (64 bytes per pair of steps) per 4 rows of A; 512 steps keep that 16 KB in L1.
const KC_MAX_WIDE: usize = 512;
/// Bytes of the packed B block (k × NC) kept in L2.
const B_BLOCK: usize = 384 << 10;
/// Bytes of the A block (MC × KC) kept in L2.
const A_BLOCK: usize = 128 << 10;
/// A panels read together by the matrix-vector kernel (independent sums for the latency of
/// `vpdpbusd`).
const GEMV_PANELS: usize = 4;
/// Below this many multiply-adds a GEMM stays on one thread (as `packed_gemm::split`).
const PARALLEL_MIN_MACS: usize = 1 << 18;
/// Cost of bringing one operand byte into a part, in multiply-adds (a vpdpbusd does 64).
const READ_COST: usize = 1;
/// Extra cost of packing one byte of B at run time.
const PACK_COST: usize = 2;

/// The cache blocks: depth KC (a multiple of 4), MC rows, NC columns (multiples of MR, NR).
#[derive(Clone, Copy, Debug)]
pub(super) struct Blocking {
    pub kc: usize,
    pub mc: usize,
    pub nc: usize,
}

impl Blocking {
    /// The blocks for an m × n GEMM of padded depth `kp`: the depth in equal blocks of at most
    /// KC_MAX, NC and MC sized for their L2 budgets (at least one panel, at most the problem).
    /// `w` is the bytes per packed element (`pack::elem_bytes`).
    pub fn choose(m: usize, n: usize, kp: usize, w: usize) -> Blocking {
        let kc_max = if w == 1 { KC_MAX } else { KC_MAX_WIDE };
        let kc = if kp == 0 { 4 } else { kp.div_ceil(kp.div_ceil(kc_max)).next_multiple_of(4) };
        let nc = ((B_BLOCK / (kp.max(4) * w)) / NR).max(1) * NR;
        let mc = ((A_BLOCK / (kc * w)) / MR).max(1) * MR;
        Blocking { kc, mc: mc.min(m.div_ceil(MR) * MR), nc: nc.min(n.div_ceil(NR) * NR) }
    }
}

/// What the output holds.
#[derive(Clone, Copy, Debug)]
pub(super) enum OutKind {
    F32,
    U8 { scale: f32, zero_point: f32 },
    I8 { scale: f32, zero_point: f32 },
}

/// C's element (0, 0) (f32, u8 or i8 per [`OutKind`]), shared by the tasks that write
/// disjoint tiles of it.
#[derive(Clone, Copy)]
pub(super) struct OutPtr(pub *mut u8);

// SAFETY: only dereferenced for the tiles of the task that holds it; tasks cover disjoint
// rectangles of C and the view was checked not to repeat elements, so no element is accessed
// by two threads.
unsafe impl Send for OutPtr {}
// SAFETY: as for Send.
unsafe impl Sync for OutPtr {}

/// The requantization and the output (validated by `super::gemm_tuned`: the scale, bias and
/// row sums cover every row, the output view every element of C).
pub(super) struct Epilogue<'a> {
    pub b_zero_point: i32,
    pub row_sums: &'a [i32],
    pub scale: &'a [f32],
    pub bias: Option<&'a [f32]>,
    pub lo: f32,
    pub hi: f32,
    pub kind: OutKind,
    pub out: OutPtr,
    pub rs: usize,
    pub cs: usize,
    /// Whether a value to quantize can be NaN (a NaN or infinite parameter, or a zero output
    /// scale); else the SIMD epilogues skip the NaN test.
    pub may_be_nan: bool,
    /// For an 8-bit output whose parameters fold (`requantize`), each row's folded
    /// requantization: then the epilogues apply it to the corrected sums instead of `value`
    /// and `store`.
    pub folded: Option<&'a [Requantizer]>,
}

impl Epilogue<'_> {
    /// The terms of row i: the zero-point correction `b_zero_point · row_sums[i]`, the scale,
    /// the bias (0 and false when none).
    #[inline(always)]
    pub fn row(&self, i: usize) -> (i32, f32, f32, bool) {
        // No overflow: |row_sums[i]| ≤ 128 · MAX_DEPTH, b_zero_point ≤ 255 (mod.rs, Limits).
        let corr = self.b_zero_point * self.row_sums[i];
        let scale = if self.scale.len() == 1 { self.scale[0] } else { self.scale[i] };
        match self.bias {
            Some(b) => (corr, scale, b[i], true),
            None => (corr, scale, 0.0, false),
        }
    }

    /// The f32 value v of a sum of row i (the scalar form of every kernel's epilogue).
    #[inline(always)]
    pub fn value(&self, acc: i32, (corr, scale, bias, has_bias): (i32, f32, f32, bool)) -> f32 {
        let y = (acc - corr) as f32 * scale;
        let y = if has_bias { y + bias } else { y };
        clamp_value(y, self.lo, self.hi)
    }

    /// Stores the value v at element (i, j) of C.
    ///
    /// # Safety
    /// (i, j) lies inside C and no other thread accesses it.
    #[inline(always)]
    pub unsafe fn store(&self, v: f32, i: usize, j: usize) {
        let at = i * self.rs + j * self.cs;
        // SAFETY: forwarded from the caller; the pointer has the element type of `kind`.
        unsafe {
            match self.kind {
                OutKind::F32 => *self.out.0.cast::<f32>().add(at) = v,
                OutKind::U8 { scale, zero_point } => *self.out.0.add(at) = quantize(v, scale, zero_point) as u8,
                OutKind::I8 { scale, zero_point } => {
                    *self.out.0.cast::<i8>().add(at) = quantize(v, scale, zero_point) as i8
                }
            }
        }
    }
}

/// `round_half_even(v / scale) + zero_point`, in f32 as `quantize::quantize_one` (the `as`
/// cast to u8 or i8 that follows saturates and maps NaN to 0).
#[inline(always)]
pub(super) fn quantize(v: f32, scale: f32, zero_point: f32) -> f32 {
    round_half_even(v / scale) + zero_point
}

/// How the output is divided: `parts` bands of whole tiles along the rows or the columns.
#[derive(Clone, Copy, Debug)]
pub(super) struct Split {
    pub parts: usize,
    pub by_rows: bool,
}

impl Split {
    /// The split of an (m, n, k) problem on `threads` threads that makes the slowest part
    /// cheapest: each part multiplies its band, reads all of the other operand, and packs the
    /// columns of B it needs (all of them when split by rows).
    fn choose((m, n, k): (usize, usize, usize), threads: usize) -> Split {
        if threads <= 1 || m.saturating_mul(n).saturating_mul(k) < PARALLEL_MIN_MACS {
            return Split { parts: 1, by_rows: true };
        }
        let cost = |by_rows: bool| -> (usize, usize) {
            let (tiles, unit) = if by_rows { (m.div_ceil(MR), MR) } else { (n.div_ceil(NR), NR) };
            let parts = threads.min(tiles);
            let share = tiles.div_ceil(parts) * unit;
            let (rows, cols) = if by_rows { (share.min(m), n) } else { (m, share.min(n)) };
            ((rows * cols * k) / 64 + READ_COST * (rows + cols) * k + PACK_COST * cols * k, parts)
        };
        let ((rows_cost, rows_parts), (cols_cost, cols_parts)) = (cost(true), cost(false));
        if rows_cost <= cols_cost {
            Split { parts: rows_parts, by_rows: true }
        } else {
            Split { parts: cols_parts, by_rows: false }
        }
    }

    /// The rows and columns of part `t` (starting at tile boundaries; possibly empty).
    fn part(&self, t: usize, m: usize, n: usize) -> (Range<usize>, Range<usize>) {
        let (end, unit) = if self.by_rows { (m, MR) } else { (n, NR) };
        let tiles = end.div_ceil(unit);
        let lo = (tiles * t / self.parts * unit).min(end);
        let hi = (tiles * (t + 1) / self.parts * unit).min(end);
        if self.by_rows {
            (lo..hi, 0..n)
        } else {
            (0..m, lo..hi)
        }
    }
}

thread_local! {
    /// The scratch of this thread: the packed B block and the tile sums (taken while in use).
    static SCRATCH: Cell<AlignedBuf> = Cell::default();
}

/// One GEMM, validated.
struct Job<'a> {
    isa: Isa,
    blocking: Blocking,
    a: &'a PackedI8,
    b: U8View<'a>,
    epilogue: &'a Epilogue<'a>,
}

/// Runs the GEMM: split into `split` parts (None: chosen from the thread count), each on the
/// current pool.
pub(super) fn run(
    isa: Isa,
    blocking: Option<Blocking>,
    split: Option<Split>,
    a: &PackedI8,
    b: U8View<'_>,
    epilogue: &Epilogue<'_>,
) -> Result<(), Error> {
    let (m, n, k) = (a.m, b.n, a.k);
    let w = pack::elem_bytes(isa.wide());
    // (Tests that force the blocking or the split mean the blocked loops.)
    let blocking_was_chosen = blocking.is_none() && split.is_none();
    let blocking = blocking.unwrap_or_else(|| Blocking::choose(m, n, padded_depth(k), w));
    let split = split.unwrap_or_else(|| {
        let macs = m.saturating_mul(n).saturating_mul(k);
        Split::choose((m, n, k), crate::par::threads_for_macs(macs))
    });
    let job = Job { isa, blocking, a, b, epilogue };
    #[cfg(target_arch = "x86_64")]
    if n == 1 && isa == Isa::Avx512Vnni && blocking_was_chosen {
        return job.gemv();
    }
    if split.parts <= 1 {
        return job.run(0..m, 0..n);
    }
    crate::par::try_range(split.parts, |t| {
        let (rows, cols) = split.part(t, m, n);
        job.run(rows, cols)
    })
}

impl Job<'_> {
    /// The GEMM of one column of B (a classifier's matrix-vector product) on AVX-512 VNNI:
    /// each packed A panel (MR rows) is read once, as MR rows × four depth steps per 32-byte
    /// load against one broadcast word of B (`avx512_vnni::gemv_panels`), instead of the
    /// blocked loops' tile, whose 16 B lanes would hold one column and 15 of padding. The sums
    /// go through the same epilogue (`finish`), so the same outputs. The panels are shared
    /// among the threads.
    #[cfg(target_arch = "x86_64")]
    fn gemv(&self) -> Result<(), Error> {
        let (m, k) = (self.a.m, self.a.k);
        let kp = padded_depth(k);
        // B's column with the depth padding (A is zero there, so any value serves).
        let mut x: Vec<u8> = Vec::new();
        x.try_reserve_exact(kp).map_err(|_| Error::unknown("int8 gemm: cannot allocate the vector"))?;
        x.extend((0..k).map(|p| self.b.data[p * self.b.rs]));
        x.resize(kp, 0);
        let panels = m.div_ceil(MR);
        let threads = crate::par::threads_for_macs(m.saturating_mul(k));
        let parts = threads.min(panels.div_ceil(GEMV_PANELS)).max(1);
        let a = self.a.buf.as_bytes();
        crate::par::try_range(parts, |t| {
            let (p0, p1) = (panels * t / parts, panels * (t + 1) / parts);
            let mut acc = [0i32; MR * NR];
            for g in (p0..p1).step_by(GEMV_PANELS) {
                let count = GEMV_PANELS.min(p1 - g);
                let mut sums = [[0i32; MR]; GEMV_PANELS];
                // SAFETY: panels g..g + count lie in the packed A (ceil(m / MR) panels of
                // MR·kp bytes; the layout of this ISA, checked by `gemm_tuned`), `x` holds kp
                // bytes; the CPU has AVX-512 VNNI (the caller's `isa`, checked available).
                unsafe {
                    super::avx512_vnni::gemv_panels(kp / 4, a.as_ptr().add(g * MR * kp), kp * MR, &x, count, &mut sums)
                };
                for (q, panel) in sums[..count].iter().enumerate() {
                    let i = (g + q) * MR;
                    for (r, &s) in panel.iter().enumerate() {
                        acc[r * NR] = s;
                    }
                    // SAFETY: the tile (rows i..i + rows, column 0) lies inside the validated
                    // C; the panels of each part are disjoint; the CPU has the ISA.
                    unsafe { finish(self.isa, self.epilogue, acc.as_ptr(), i, 0, MR.min(m - i), 1) };
                }
            }
            Ok(())
        })
    }

    /// Computes C[rows, cols] (starting at tile boundaries, inside the validated C).
    fn run(&self, rows: Range<usize>, cols: Range<usize>) -> Result<(), Error> {
        if rows.is_empty() || cols.is_empty() {
            return Ok(());
        }
        let mut scratch = SCRATCH.with(Cell::take);
        let result = self.run_in(rows, cols, &mut scratch);
        SCRATCH.with(|s| {
            let kept = s.take();
            s.set(if kept.len() >= scratch.len() { kept } else { scratch });
        });
        result
    }

    fn run_in(&self, rows: Range<usize>, cols: Range<usize>, scratch: &mut AlignedBuf) -> Result<(), Error> {
        let Blocking { kc: kcb, mc: mcb, nc: ncb } = self.blocking;
        let kp = padded_depth(self.a.k);
        let wide = self.isa.wide();
        let w = pack::elem_bytes(wide);
        let one_block = kp <= kcb;
        // The tile sums (one tile, or every tile of an MC × NC block), then the B block.
        let acc_len = if one_block { Some(MR * NR) } else { mcb.checked_mul(ncb) };
        let acc_bytes = acc_len.and_then(|l| l.checked_mul(4));
        let b_bytes = kp.checked_mul(ncb).and_then(|b| b.checked_mul(w));
        let total = acc_bytes.zip(b_bytes).and_then(|(a, b)| a.checked_add(b));
        let Some(total) = total else {
            return Err(Error::unknown("int8 gemm: the packing scratch is too large"));
        };
        if scratch.len() < total {
            *scratch = AlignedBuf::try_zeroed(total, "int8 gemm: packing scratch")?;
        }
        let bytes = scratch.as_bytes_mut();
        let (acc, packed_b) = bytes.split_at_mut(acc_bytes.unwrap_or(0));
        let acc = acc.as_mut_ptr().cast::<i32>();
        let a = self.a.buf.as_bytes().as_ptr();
        let step = |r: Range<usize>, s: usize| r.clone().step_by(s).map(move |x| (x, s.min(r.end - x)));
        for (jc, nc) in step(cols, ncb) {
            let b = self.b;
            if wide {
                pack::pack_b_wide(b.data, b.k, b.rs, b.cs, jc, nc, packed_b);
            } else {
                pack::pack_b(b.data, b.k, b.rs, b.cs, jc, nc, packed_b);
            }
            let b = packed_b.as_ptr();
            for (ic, mc) in step(rows.clone(), mcb) {
                let (mt, nt) = (mc.div_ceil(MR), nc.div_ceil(NR));
                // At least one depth block, so that k = 0 stores zero sums.
                for (pc, kc) in step(0..kp.max(1), kcb) {
                    let kc = kc.min(kp - pc);
                    let last = pc + kc == kp;
                    for jr in 0..nt {
                        let tile_cols = (nc - jr * NR).min(NR);
                        for ir in 0..mt {
                            let tile_rows = (mc - ir * MR).min(MR);
                            let slot = if one_block { 0 } else { (jr * mt + ir) * MR * NR };
                            // SAFETY: the A panel of rows ic + ir·MR lies in the packed A
                            // (ceil(m / MR) panels of MR·kp·w bytes, the layout of this
                            // ISA, checked by `gemm_tuned`), depth pc..pc + kc inside it;
                            // the B panel jr of the block in the scratch (ceil(nc / NR)
                            // panels of NR·kp·w bytes); the slot in the sums (one tile, or
                            // mt·nt tiles of MR·NR i32); the tile inside this task's part
                            // of C. The kernel's ISA was checked to be available.
                            unsafe {
                                let acc = acc.add(slot);
                                let a = a.add(((ic / MR + ir) * MR * kp + pc * MR) * w);
                                let b = b.add((jr * NR * kp + pc * NR) * w);
                                tile(self.isa, kc / 4, a, b, acc, pc > 0, tile_cols);
                                if last {
                                    let (i, j) = (ic + ir * MR, jc + jr * NR);
                                    finish(self.isa, self.epilogue, acc, i, j, tile_rows, tile_cols);
                                }
                            }
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

/// The sums of one MR × NR tile over `k4` groups of four depth steps into `acc` (row r's at
/// `acc + r·NR`), added to its contents if `accumulate`; only the first `cols` columns (rounded
/// up to a vector) need be right.
///
/// # Safety
/// `a` is readable for `k4 · MR · 4 · w` bytes, `b` for `k4 · NR · 4 · w` (w: the bytes per
/// element of the ISA's layout), `acc` writable for MR·NR i32 (and aligned to 4); the CPU
/// has `isa`.
#[inline(always)]
unsafe fn tile(isa: Isa, k4: usize, a: *const u8, b: *const u8, acc: *mut i32, accumulate: bool, cols: usize) {
    match isa {
        // SAFETY: forwarded from the caller.
        Isa::Portable => unsafe { super::portable::tile(k4, a, b, acc, accumulate, cols) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: forwarded from the caller.
        Isa::Avx512Vnni => unsafe { super::avx512_vnni::tile(k4, a, b, acc, accumulate, cols) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: forwarded from the caller.
        Isa::Avx2 => unsafe { super::avx2::tile(k4, a, b, acc, accumulate, cols) },
        #[cfg(not(target_arch = "x86_64"))]
        Isa::Avx512Vnni | Isa::Avx2 => unreachable!("never available off x86-64"),
    }
}

/// The epilogue of the `rows × cols` tile at C[i, j] from its sums at `acc` (row stride NR).
///
/// # Safety
/// `acc` is readable for MR·NR i32; the tile lies inside C and no other thread accesses it;
/// the CPU has `isa`.
#[inline(always)]
unsafe fn finish(isa: Isa, e: &Epilogue<'_>, acc: *const i32, i: usize, j: usize, rows: usize, cols: usize) {
    match isa {
        // SAFETY: forwarded from the caller.
        Isa::Portable => unsafe { super::portable::finish(e, acc, i, j, rows, cols) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: forwarded from the caller.
        Isa::Avx512Vnni => unsafe { super::avx512_vnni::finish(e, acc, i, j, rows, cols) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: forwarded from the caller.
        Isa::Avx2 => unsafe { super::avx2::finish(e, acc, i, j, rows, cols) },
        #[cfg(not(target_arch = "x86_64"))]
        Isa::Avx512Vnni | Isa::Avx2 => unreachable!("never available off x86-64"),
    }
}

//! Dividing one GEMM among the threads of the current rayon pool: bands of whole tiles along
//! the rows or along the columns, whichever makes the slowest part cheapest.

use super::kernel::Kernel;
use std::ops::Range;

/// Below this many multiply-adds a GEMM stays on one thread (about 2 µs of one core; measured
/// on 2 threads: 2^17 is slower split, 2^18 already 15 % faster).
const PARALLEL_MIN_MACS: usize = 1 << 18;

/// Cost of bringing one operand element into a part (mostly from L3), in multiply-adds.
const READ_COST: usize = 4;

/// Extra cost of packing one element at run time (a store, then a second read).
const PACK_COST: usize = 8;

/// How the output is divided: `parts` bands of `tiles` tiles of `unit` rows (or columns).
pub(super) struct Split {
    pub parts: usize,
    by_rows: bool,
    unit: usize,
    tiles: usize,
}

impl Split {
    /// The split of an (m, n, k) problem on `threads` threads, `packs` telling whether A and B
    /// are packed at run time: each part multiplies its band and reads (and packs) the part of
    /// each operand it needs, all of the other operand included.
    pub fn choose(kernel: &Kernel, (m, n, k): (usize, usize, usize), packs: (bool, bool), threads: usize) -> Split {
        let (mr, nr) = (kernel.mr, kernel.nr);
        let (mt, nt) = (m.div_ceil(mr), n.div_ceil(nr));
        if threads <= 1 || m.saturating_mul(n).saturating_mul(k) < PARALLEL_MIN_MACS {
            return Split { parts: 1, by_rows: true, unit: mr, tiles: mt };
        }
        let cost = |by_rows: bool| -> (usize, usize) {
            let (tiles, unit) = if by_rows { (mt, mr) } else { (nt, nr) };
            let parts = threads.min(tiles);
            let share = tiles.div_ceil(parts) * unit;
            let (rows, cols) = if by_rows { (share, n) } else { (m, share) };
            let (a, b) = (rows * k, k * cols);
            let pack = packs.0 as usize * a + packs.1 as usize * b;
            (rows * cols * k + READ_COST * (a + b) + PACK_COST * pack, parts)
        };
        let (rows_cost, rows_parts) = cost(true);
        let (cols_cost, cols_parts) = cost(false);
        if rows_cost <= cols_cost {
            Split { parts: rows_parts, by_rows: true, unit: mr, tiles: mt }
        } else {
            Split { parts: cols_parts, by_rows: false, unit: nr, tiles: nt }
        }
    }

    /// The rows and columns of part `t` of an m × n output (starts at tile boundaries).
    pub fn part(&self, t: usize, m: usize, n: usize) -> (Range<usize>, Range<usize>) {
        let end = if self.by_rows { m } else { n };
        let lo = (self.tiles * t / self.parts * self.unit).min(end);
        let hi = (self.tiles * (t + 1) / self.parts * self.unit).min(end);
        if self.by_rows {
            (lo..hi, 0..n)
        } else {
            (0..m, lo..hi)
        }
    }
}

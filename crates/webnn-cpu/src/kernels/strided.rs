//! The data-movement engine shared by transpose, slice, reverse, expand, tile and reshape:
//! a copy whose output is contiguous (row-major) and whose input is an affine view
//! `out[i₀, …, iₙ₋₁] = in[base + Σ i_d · stride_d]` (strides in elements, possibly 0 for
//! broadcasting or negative for reversal).
//!
//! Data movement does not depend on the element type, only on its size: kernels run on
//! `u8`/`u16`/`u32`/`u64` chosen by the element size (see [`with_elem!`](crate::with_elem)).
//!
//! At lowering, size-1 dimensions are dropped and adjacent dimensions that are contiguous in
//! the input are merged, so most copies become a few long `copy_from_slice` runs. A run whose
//! innermost input stride is 0 becomes a `fill`; a transpose-like view (some outer dimension
//! has input stride 1) is copied in cache blocks. Big copies are split over the thread pool
//! along the outermost dimension.

use rayon::prelude::*;
use webnn_core::types::MAX_RANK;

/// The most dimensions a view can have (tile doubles the rank).
pub const MAX_DIMS: usize = 2 * MAX_RANK;

/// Below this many output bytes a copy stays on the calling thread.
pub const PAR_MIN_BYTES: usize = 1 << 16;

/// Edge of the square blocks of the blocked transpose, in elements.
const BLOCK: usize = 32;

/// Runs `$body` with `$T` bound to the unsigned integer type of element size `$size` bytes
/// (1, 2, 4 or 8): the type data-movement kernels copy.
#[macro_export]
macro_rules! with_elem {
    ($size:expr, $T:ident => $body:expr) => {{
        match $size {
            1 => { type $T = u8; $body }
            2 => { type $T = u16; $body }
            4 => { type $T = u32; $body }
            _ => { type $T = u64; $body }
        }
    }};
}

/// A prepared affine copy (see the module documentation).
#[derive(Debug, Clone)]
pub struct StridedCopy {
    /// Element size in bytes.
    elem: usize,
    /// Merged output shape (no size-1 dimensions).
    shape: Vec<usize>,
    /// Input stride of every merged dimension, in elements.
    strides: Vec<isize>,
    /// Input offset of the first output element, in elements.
    base: isize,
}

impl StridedCopy {
    /// Prepares `out[i] = in[base + Σ i_d · strides[d]]` over the row-major `shape`
    /// (`shape.len() == strides.len() <= MAX_DIMS`).
    pub fn new(shape: &[usize], strides: &[isize], base: isize, elem: usize) -> Self {
        let (shape, strides) = merge_dims(shape, strides);
        StridedCopy { elem, shape, strides, base }
    }

    /// The merged view (for tests).
    pub fn view(&self) -> (&[usize], &[isize], isize) {
        (&self.shape, &self.strides, self.base)
    }

    /// Copies from `input` to `output` (bytes of the whole operands).
    pub fn run(&self, input: &[u8], output: &mut [u8]) {
        crate::with_elem!(self.elem, T => par_copy::<T>(
            bytemuck::cast_slice_mut(output),
            bytemuck::cast_slice(input),
            &self.shape,
            &self.strides,
            self.base,
        ))
    }
}

/// Drops size-1 dimensions and merges neighbours `d, d+1` with `stride[d] == stride[d+1] · shape[d+1]`.
pub fn merge_dims(shape: &[usize], strides: &[isize]) -> (Vec<usize>, Vec<isize>) {
    let mut s: Vec<usize> = Vec::with_capacity(shape.len());
    let mut t: Vec<isize> = Vec::with_capacity(shape.len());
    for (&d, &st) in shape.iter().zip(strides) {
        if d == 1 {
            continue;
        }
        if let (Some(ps), Some(pt)) = (s.last_mut(), t.last_mut()) {
            if *pt == st * d as isize {
                *ps *= d;
                *pt = st;
                continue;
            }
        }
        s.push(d);
        t.push(st);
    }
    (s, t)
}

/// Row-major strides of `shape` (in elements) as isize.
pub fn istrides(shape: &[usize]) -> Vec<isize> {
    let mut s = vec![1isize; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1] * shape[i + 1] as isize;
    }
    s
}

/// Calls `f(first_row, rows)` on consecutive groups of rows of length `row_len` of `out`,
/// on the thread pool when `out` is big.
pub fn par_rows<T: Send>(out: &mut [T], row_len: usize, f: impl Fn(usize, &mut [T]) + Sync) {
    let row_len = row_len.max(1);
    let rows = out.len() / row_len;
    let bytes = std::mem::size_of_val(out);
    let threads = rayon::current_num_threads();
    if bytes < PAR_MIN_BYTES || threads <= 1 || rows <= 1 {
        f(0, out);
        return;
    }
    let per = rows.div_ceil(threads * 4).max(1);
    out.par_chunks_mut(per * row_len).enumerate().for_each(|(c, chunk)| f(c * per, chunk));
}

/// Parallel copy: splits along dimension 0 (or recurses into it when it is short).
fn par_copy<T: Copy + Send + Sync>(out: &mut [T], inp: &[T], shape: &[usize], st: &[isize], base: isize) {
    let threads = rayon::current_num_threads();
    if shape.is_empty() || std::mem::size_of_val(out) < PAR_MIN_BYTES || threads <= 1 {
        copy_serial(out, inp, shape, st, base);
        return;
    }
    let d0 = shape[0];
    let inner = out.len() / d0;
    if d0 >= 2 * threads || shape.len() == 1 {
        let mut per = d0.div_ceil(threads * 4).max(1);
        if st[0] == 1 && shape.len() > 1 {
            // Dimension 0 is the blocked dimension of a transpose: keep whole blocks per task.
            per = per.div_ceil(BLOCK) * BLOCK;
        }
        let mut sub = [0usize; MAX_DIMS];
        sub[..shape.len()].copy_from_slice(shape);
        out.par_chunks_mut(per * inner).enumerate().for_each(|(c, o)| {
            let mut sub = sub;
            sub[0] = o.len() / inner;
            copy_serial(o, inp, &sub[..shape.len()], st, base + (c * per) as isize * st[0]);
        });
    } else {
        out.par_chunks_mut(inner)
            .enumerate()
            .for_each(|(i, o)| par_copy(o, inp, &shape[1..], &st[1..], base + i as isize * st[0]));
    }
}

/// Advances the odometer `idx` over `dims` (skipping `skip`), updating `off` by `st`.
#[inline]
fn advance(idx: &mut [usize], dims: &[usize], st: &[isize], off: &mut isize, skip: usize) {
    for d in (0..dims.len()).rev() {
        if d == skip {
            continue;
        }
        idx[d] += 1;
        *off += st[d];
        if idx[d] < dims[d] {
            return;
        }
        *off -= st[d] * dims[d] as isize;
        idx[d] = 0;
    }
}

/// The serial copy of one (sub)view; `out.len()` is the product of `shape`.
pub fn copy_serial<T: Copy>(out: &mut [T], inp: &[T], shape: &[usize], st: &[isize], base: isize) {
    let n = shape.len();
    if n == 0 {
        if let Some(o) = out.first_mut() {
            *o = inp[base as usize];
        }
        return;
    }
    let last = n - 1;
    let len = shape[last];
    let sl = st[last];
    if !matches!(sl, -1..=1) {
        if let Some(k) = (0..last).rev().find(|&d| st[d] == 1) {
            if shape[k] >= 4 {
                blocked(out, inp, shape, st, base, k);
                return;
            }
        }
    }
    let mut idx = [0usize; MAX_DIMS];
    let mut off = base;
    for o in out.chunks_exact_mut(len) {
        let start = off as usize;
        match sl {
            1 => o.copy_from_slice(&inp[start..start + len]),
            0 => o.fill(inp[start]),
            -1 => {
                let src = &inp[start + 1 - len..=start];
                for (d, s) in o.iter_mut().zip(src.iter().rev()) {
                    *d = *s;
                }
            }
            _ => {
                let mut p = off;
                for d in o.iter_mut() {
                    *d = inp[p as usize];
                    p += sl;
                }
            }
        }
        advance(&mut idx[..last], &shape[..last], &st[..last], &mut off, usize::MAX);
    }
}

/// Blocked copy for a transpose-like view: dimension `k` (not the last) has input stride 1.
/// Tiles of `BLOCK × BLOCK` over (k, last) read the input along k and write the output along
/// the last dimension, both within a few cache lines.
fn blocked<T: Copy>(out: &mut [T], inp: &[T], shape: &[usize], st: &[isize], base: isize, k: usize) {
    let n = shape.len();
    let last = n - 1;
    let (kk, len) = (shape[k], shape[last]);
    let sl = st[last];
    // Output strides.
    let mut ost = [0usize; MAX_DIMS];
    let mut acc = 1;
    for d in (0..n).rev() {
        ost[d] = acc;
        acc *= shape[d];
    }
    let outer: usize = out.len() / (kk * len);
    let mut idx = [0usize; MAX_DIMS];
    let mut in_off = base;
    for _ in 0..outer {
        // Output offset of this outer position.
        let out_off: usize = (0..last).filter(|&d| d != k).map(|d| idx[d] * ost[d]).sum();
        for a0 in (0..kk).step_by(BLOCK) {
            let a1 = (a0 + BLOCK).min(kk);
            for b0 in (0..len).step_by(BLOCK) {
                let b1 = (b0 + BLOCK).min(len);
                for a in a0..a1 {
                    let orow = out_off + a * ost[k];
                    let dst = &mut out[orow + b0..orow + b1];
                    let mut p = in_off + a as isize + b0 as isize * sl;
                    for d in dst.iter_mut() {
                        *d = inp[p as usize];
                        p += sl;
                    }
                }
            }
        }
        advance(&mut idx[..last], &shape[..last], &st[..last], &mut in_off, k);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Naive reference: walks every output index and evaluates the affine map.
    fn naive(inp: &[u32], shape: &[usize], st: &[isize], base: isize) -> Vec<u32> {
        let total: usize = shape.iter().product();
        (0..total)
            .map(|mut flat| {
                let mut off = base;
                for d in (0..shape.len()).rev() {
                    off += (flat % shape[d]) as isize * st[d];
                    flat /= shape[d];
                }
                inp[off as usize]
            })
            .collect()
    }

    fn check(in_len: usize, shape: &[usize], st: &[isize], base: isize) {
        let inp: Vec<u32> = (0..in_len as u32).map(|x| x * 7 + 1).collect();
        let want = naive(&inp, shape, st, base);
        let c = StridedCopy::new(shape, st, base, 4);
        let mut out = vec![0u32; want.len()];
        c.run(bytemuck::cast_slice(&inp), bytemuck::cast_slice_mut(&mut out));
        assert_eq!(out, want, "shape {shape:?} strides {st:?} base {base}");
        // Serial path on the unmerged view too.
        let mut out2 = vec![0u32; want.len()];
        copy_serial(&mut out2, &inp, shape, st, base);
        assert_eq!(out2, want);
    }

    #[test]
    fn merging_drops_ones_and_joins_contiguous_dims() {
        let (s, t) = merge_dims(&[2, 1, 3, 4], &[12, 99, 4, 1]);
        assert_eq!((s, t), (vec![24], vec![1]));
        let (s, t) = merge_dims(&[2, 3, 4], &[0, 0, 1]);
        assert_eq!((s, t), (vec![6, 4], vec![0, 1]));
        let (s, t) = merge_dims(&[1, 1], &[1, 1]);
        assert!(s.is_empty() && t.is_empty());
    }

    #[test]
    fn views_match_naive() {
        // Plain copy, transpose 2-D (small and blocked sizes), 3-D permutations.
        check(6, &[2, 3], &[3, 1], 0);
        check(6, &[3, 2], &[1, 3], 0);
        check(37 * 45, &[45, 37], &[1, 45], 0);
        check(2 * 3 * 4, &[4, 2, 3], &[1, 12, 4], 0);
        check(5 * 6 * 7, &[7, 5, 6], &[1, 42, 7], 0);
        check(5 * 6 * 7, &[6, 7, 5], &[7, 1, 42], 0);
        // Broadcast (stride 0) inner and outer.
        check(3, &[3, 5], &[1, 0], 0);
        check(5, &[3, 5], &[0, 1], 0);
        check(1, &[4, 1, 3], &[0, 0, 0], 0);
        // Reversal.
        check(12, &[3, 4], &[4, -1], 3);
        check(12, &[3, 4], &[-4, 1], 8);
        check(12, &[3, 4], &[-4, -1], 11);
        // Strided slice.
        check(100, &[3, 4], &[20, 3], 5);
        // Scalar.
        check(1, &[], &[], 0);
    }

    #[test]
    fn big_views_use_the_pool_and_match_naive() {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
        pool.install(|| {
            check(300 * 257, &[257, 300], &[1, 257], 0);
            check(2 * 100 * 130, &[2, 130, 100], &[13000, 1, 130], 0);
            check(3 * 160 * 150, &[160, 150, 3], &[150, 1, 160 * 150], 0);
            check(200, &[200, 400], &[1, 0], 0);
            check(300 * 257, &[300, 257], &[-257, -1], 300 * 257 - 1);
            check(40000, &[3, 40000], &[0, 1], 0);
        });
    }

    #[test]
    fn par_rows_covers_every_row_once() {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
        pool.install(|| {
            let mut v = vec![0u32; 70_000];
            par_rows(&mut v, 7, |first, rows| {
                for (r, row) in rows.chunks_mut(7).enumerate() {
                    row.fill((first + r) as u32);
                }
            });
            assert!(v.iter().enumerate().all(|(i, &x)| x as usize == i / 7));
        });
    }
}

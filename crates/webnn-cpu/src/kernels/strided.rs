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

use webnn_core::types::MAX_RANK;

/// The most dimensions a view can have (tile doubles the rank).
pub const MAX_DIMS: usize = 2 * MAX_RANK;

/// Below this many output bytes a copy stays on the calling thread.
pub const PAR_MIN_BYTES: usize = 1 << 16;

/// Edge of the square blocks of the blocked transpose, in elements.
const BLOCK: usize = 64;

/// Runs `$body` with `$T` bound to the unsigned integer type of element size `$size` bytes
/// (1, 2, 4 or 8): the type data-movement kernels copy.
#[macro_export]
macro_rules! with_elem {
    ($size:expr, $T:ident => $body:expr) => {
        $crate::match_type!($size, $T => $body; 1 => u8, 2 => u16, 4 => u32, _ => u64)
    };
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

    /// True if the view reads only inside an input of `in_len` elements and writes exactly
    /// `out_len` elements.
    pub fn fits(&self, in_len: usize, out_len: usize) -> bool {
        let count: usize = self.shape.iter().product();
        let (mut lo, mut hi) = (self.base, self.base);
        for (&d, &s) in self.shape.iter().zip(&self.strides) {
            let span = (d as isize - 1) * s;
            if span < 0 {
                lo += span;
            } else {
                hi += span;
            }
        }
        count == out_len && lo >= 0 && (hi as usize) < in_len && self.shape.len() <= MAX_DIMS
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

/// Calls `f(first_row, rows)` on consecutive groups of rows of length `row_len` of `out`,
/// on the thread pool when `out` is big.
pub fn par_rows<T: Send>(out: &mut [T], row_len: usize, f: impl Fn(usize, &mut [T]) + Sync) {
    let row_len = row_len.max(1);
    let rows = out.len() / row_len;
    let bytes = std::mem::size_of_val(out);
    let threads = crate::par::threads();
    if bytes < PAR_MIN_BYTES || threads <= 1 || rows <= 1 {
        f(0, out);
        return;
    }
    let per = rows.div_ceil(threads * 4).max(1);
    crate::par::chunks(out, per * row_len, |c, chunk| f(c * per, chunk));
}

/// `dst.copy_from_slice(src)`, split over the thread pool when big.
pub fn par_memcpy<T: Copy + Send + Sync>(dst: &mut [T], src: &[T]) {
    const PIECE: usize = 1 << 14;
    let piece = (PIECE / std::mem::size_of::<T>().max(1)).max(1);
    par_rows(dst, piece, |first, part| {
        let s = first * piece;
        part.copy_from_slice(&src[s..s + part.len()]);
    });
}

/// Parallel copy: splits along dimension 0 (or recurses into it when it is short).
fn par_copy<T: Elem>(out: &mut [T], inp: &[T], shape: &[usize], st: &[isize], base: isize) {
    let threads = crate::par::threads();
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
        crate::par::chunks(out, per * inner, |c, o| {
            let mut sub = sub;
            sub[0] = o.len() / inner;
            copy_serial(o, inp, &sub[..shape.len()], st, base + (c * per) as isize * st[0]);
        });
    } else {
        crate::par::chunks(out, inner, |i, o| par_copy(o, inp, &shape[1..], &st[1..], base + i as isize * st[0]));
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
pub fn copy_serial<T: Elem>(out: &mut [T], inp: &[T], shape: &[usize], st: &[isize], base: isize) {
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
            if shape[k] >= MICRO && len >= MICRO {
                blocked(out, inp, shape, st, base, k);
                return;
            }
            if k == last - 1 && len < MICRO && shape[k] >= MICRO {
                interleave(out, inp, shape, st, base);
                return;
            }
            if k == last - 1 && shape[k] < MICRO && sl > 0 && len >= MICRO {
                deinterleave(out, inp, shape, st, base);
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

/// A transpose-like view whose last dimension is short (`len < 8`, e.g. NCHW → NHWC with 3
/// channels) and whose second-to-last has input stride 1: the output rows `[.., a, 0..len]`
/// interleave `len` contiguous input runs. Each run is read in order, in chunks that keep the
/// written output in L1.
fn interleave<T: Elem>(out: &mut [T], inp: &[T], shape: &[usize], st: &[isize], base: isize) {
    const CHUNK: usize = 512;
    let n = shape.len();
    let (kk, len) = (shape[n - 2], shape[n - 1]);
    let sl = st[n - 1];
    let mut idx = [0usize; MAX_DIMS];
    let mut off = base;
    for plane in out.chunks_exact_mut(kk * len) {
        for (c, dst) in plane.chunks_mut(CHUNK * len).enumerate() {
            let rows = dst.len() / len;
            for b in 0..len {
                let s = (off + b as isize * sl) as usize + c * CHUNK;
                for (d, &v) in dst[b..].iter_mut().step_by(len).zip(&inp[s..s + rows]) {
                    *d = v;
                }
            }
        }
        advance(&mut idx[..n - 2], &shape[..n - 2], &st[..n - 2], &mut off, usize::MAX);
    }
}

/// The mirror of [`interleave`]: the second-to-last dimension is short (`< 8`) with input
/// stride 1 and the last one long, e.g. NHWC → NCHW with 3 channels. Output rows are filled in
/// chunks so that the input span read for one chunk stays in L1 for all the rows.
fn deinterleave<T: Elem>(out: &mut [T], inp: &[T], shape: &[usize], st: &[isize], base: isize) {
    const CHUNK: usize = 512;
    let n = shape.len();
    let (kk, len) = (shape[n - 2], shape[n - 1]);
    let sl = st[n - 1] as usize;
    let mut idx = [0usize; MAX_DIMS];
    let mut off = base;
    for plane in out.chunks_exact_mut(kk * len) {
        for c0 in (0..len).step_by(CHUNK) {
            let c1 = (c0 + CHUNK).min(len);
            for a in 0..kk {
                let dst = &mut plane[a * len + c0..a * len + c1];
                let mut p = off as usize + a + c0 * sl;
                for d in dst.iter_mut() {
                    *d = inp[p];
                    p += sl;
                }
            }
        }
        advance(&mut idx[..n - 2], &shape[..n - 2], &st[..n - 2], &mut off, usize::MAX);
    }
}

/// Blocked copy for a transpose-like view: dimension `k` (not the last) has input stride 1.
/// Tiles of `BLOCK × BLOCK` over (k, last) stay in cache; inside them, 8 × 8 micro-tiles read 8
/// input runs along k and write 8 output runs along the last dimension, so each side touches
/// only 8 cache lines at a time (safe even for power-of-two strides that alias in the cache).
fn blocked<T: Elem>(out: &mut [T], inp: &[T], shape: &[usize], st: &[isize], base: isize, k: usize) {
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
    let osk = ost[k];
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
                let mut a = a0;
                while a + MICRO <= a1 {
                    let mut b = b0;
                    while b + MICRO <= b1 {
                        T::micro_tile(out, out_off + a * osk + b, osk, inp, in_off + a as isize + b as isize * sl, sl);
                        b += MICRO;
                    }
                    scalar_tile(out, out_off, osk, inp, in_off, sl, a..a + MICRO, b..b1);
                    a += MICRO;
                }
                scalar_tile(out, out_off, osk, inp, in_off, sl, a..a1, b0..b1);
            }
        }
        advance(&mut idx[..last], &shape[..last], &st[..last], &mut in_off, k);
    }
}

/// Edge of the micro-tiles of [`blocked`].
const MICRO: usize = 8;

/// An element moved by the data-movement kernels (u8, u16, u32, u64: one per element size).
pub trait Elem: bytemuck::Pod + Send + Sync {
    /// The 8 × 8 micro-tile of `blocked`: `out[o + a·os + b] = inp[i + a + b·is]` for a, b < 8.
    #[inline(always)]
    fn micro_tile(out: &mut [Self], o: usize, os: usize, inp: &[Self], i: isize, is: isize) {
        micro_tile_portable(out, o, os, inp, i, is)
    }
}

/// The u8 micro-tile as one 8 × 8 SSE2 byte transpose (SSE2 is part of x86_64).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub fn micro_tile_u8_sse2(out: &mut [u8], o: usize, os: usize, inp: &[u8], i: isize, is: isize) {
    use std::arch::x86_64::*;
    let src = input_runs(inp, i, is);
    let dst = output_runs(out, o, os);
    // SAFETY: every load reads the 8 bytes of a checked 8-element array; every store writes 8
    // bytes at out[d..d + 8], checked by `output_runs`; SSE2 is always available on x86_64; the
    // 64-bit loads/stores have no alignment requirement.
    unsafe {
        let a: [__m128i; MICRO] = std::array::from_fn(|b| _mm_loadl_epi64(src[b].as_ptr() as *const __m128i));
        let t0 = _mm_unpacklo_epi8(a[0], a[1]);
        let t1 = _mm_unpacklo_epi8(a[2], a[3]);
        let t2 = _mm_unpacklo_epi8(a[4], a[5]);
        let t3 = _mm_unpacklo_epi8(a[6], a[7]);
        let u0 = _mm_unpacklo_epi16(t0, t1);
        let u1 = _mm_unpackhi_epi16(t0, t1);
        let u2 = _mm_unpacklo_epi16(t2, t3);
        let u3 = _mm_unpackhi_epi16(t2, t3);
        let v = [
            _mm_unpacklo_epi32(u0, u2),
            _mm_unpackhi_epi32(u0, u2),
            _mm_unpacklo_epi32(u1, u3),
            _mm_unpackhi_epi32(u1, u3),
        ];
        let base = out.as_mut_ptr();
        for (j, x) in v.iter().enumerate() {
            _mm_storel_epi64(base.add(dst[2 * j]) as *mut __m128i, *x);
            _mm_storel_epi64(base.add(dst[2 * j + 1]) as *mut __m128i, _mm_srli_si128::<8>(*x));
        }
    }
}
impl Elem for u64 {}

/// Elem for the types with an SSE2 micro-tile on x86_64 (the portable one elsewhere).
macro_rules! sse2_elem {
    ($($t:ty => $sse2:ident),+) => {$(
        impl Elem for $t {
            #[inline(always)]
            fn micro_tile(out: &mut [$t], o: usize, os: usize, inp: &[$t], i: isize, is: isize) {
                #[cfg(target_arch = "x86_64")]
                {
                    $sse2(out, o, os, inp, i, is)
                }
                #[cfg(not(target_arch = "x86_64"))]
                {
                    micro_tile_portable(out, o, os, inp, i, is)
                }
            }
        }
    )+};
}
sse2_elem!(u8 => micro_tile_u8_sse2, u16 => micro_tile_u16_sse2, u32 => micro_tile_u32_sse2);

/// The 8 input runs of a micro-tile, bounds-checked: run b is `inp[i + b·is..][..8]`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn input_runs<T>(inp: &[T], i: isize, is: isize) -> [&[T; MICRO]; MICRO] {
    std::array::from_fn(|b| {
        let s = (i + b as isize * is) as usize;
        <&[T; MICRO]>::try_from(&inp[s..s + MICRO]).expect("8 elements")
    })
}

/// The starts `o + a·os` of the 8 output runs of a micro-tile, each run bounds-checked
/// against `out` (before the unchecked stores of the SSE2 tiles).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn output_runs<T>(out: &[T], o: usize, os: usize) -> [usize; MICRO] {
    let dst: [usize; MICRO] = std::array::from_fn(|a| o + a * os);
    for &d in &dst {
        let _ = &out[d..d + MICRO];
    }
    dst
}

/// The u16 micro-tile as one 8 × 8 SSE2 transpose (SSE2 is part of x86_64).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub fn micro_tile_u16_sse2(out: &mut [u16], o: usize, os: usize, inp: &[u16], i: isize, is: isize) {
    use std::arch::x86_64::*;
    let src = input_runs(inp, i, is);
    let dst = output_runs(out, o, os);
    // SAFETY: every load reads the 8 u16 (16 bytes) of a checked 8-element array; every store
    // writes 16 bytes at out[d..d + 8], checked by `output_runs`; SSE2 is always available on
    // x86_64; unaligned loads/stores are used.
    unsafe {
        let a: [__m128i; MICRO] = std::array::from_fn(|b| _mm_loadu_si128(src[b].as_ptr() as *const __m128i));
        let t0 = _mm_unpacklo_epi16(a[0], a[1]);
        let t1 = _mm_unpackhi_epi16(a[0], a[1]);
        let t2 = _mm_unpacklo_epi16(a[2], a[3]);
        let t3 = _mm_unpackhi_epi16(a[2], a[3]);
        let t4 = _mm_unpacklo_epi16(a[4], a[5]);
        let t5 = _mm_unpackhi_epi16(a[4], a[5]);
        let t6 = _mm_unpacklo_epi16(a[6], a[7]);
        let t7 = _mm_unpackhi_epi16(a[6], a[7]);
        let u0 = _mm_unpacklo_epi32(t0, t2);
        let u1 = _mm_unpackhi_epi32(t0, t2);
        let u2 = _mm_unpacklo_epi32(t1, t3);
        let u3 = _mm_unpackhi_epi32(t1, t3);
        let u4 = _mm_unpacklo_epi32(t4, t6);
        let u5 = _mm_unpackhi_epi32(t4, t6);
        let u6 = _mm_unpacklo_epi32(t5, t7);
        let u7 = _mm_unpackhi_epi32(t5, t7);
        let c = [
            _mm_unpacklo_epi64(u0, u4),
            _mm_unpackhi_epi64(u0, u4),
            _mm_unpacklo_epi64(u1, u5),
            _mm_unpackhi_epi64(u1, u5),
            _mm_unpacklo_epi64(u2, u6),
            _mm_unpackhi_epi64(u2, u6),
            _mm_unpacklo_epi64(u3, u7),
            _mm_unpackhi_epi64(u3, u7),
        ];
        let base = out.as_mut_ptr();
        for (v, &d) in c.iter().zip(&dst) {
            _mm_storeu_si128(base.add(d) as *mut __m128i, *v);
        }
    }
}

/// Portable micro-tile.
#[inline(always)]
pub fn micro_tile_portable<T: Elem>(out: &mut [T], o: usize, os: usize, inp: &[T], i: isize, is: isize) {
    let mut t = [[T::zeroed(); MICRO]; MICRO];
    for (b, row) in t.iter_mut().enumerate() {
        let s = (i + b as isize * is) as usize;
        row.copy_from_slice(&inp[s..s + MICRO]);
    }
    for a in 0..MICRO {
        let dst = &mut out[o + a * os..o + a * os + MICRO];
        for (b, d) in dst.iter_mut().enumerate() {
            *d = t[b][a];
        }
    }
}

/// The u32 micro-tile as four 4 × 4 SSE2 transposes (SSE2 is part of x86_64).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub fn micro_tile_u32_sse2(out: &mut [u32], o: usize, os: usize, inp: &[u32], i: isize, is: isize) {
    use std::arch::x86_64::*;
    // Bounds-checked views of the 8 input runs and the 8 output runs.
    let src = input_runs(inp, i, is);
    let mut rows = [[0u32; MICRO]; MICRO];
    for h in 0..2 {
        for q in 0..2 {
            // Transpose the 4 × 4 quadrant of input runs 4h.. and elements 4q..
            // SAFETY: each load reads 4 u32 at offset 4q (≤ 4) of a checked 8-element array and each
            // store writes 4 u32 at offset 4h of an 8-element local array; SSE2 is always
            // available on x86_64; unaligned loads/stores are used.
            unsafe {
                let r0 = _mm_loadu_si128(src[4 * h].as_ptr().add(4 * q) as *const __m128i);
                let r1 = _mm_loadu_si128(src[4 * h + 1].as_ptr().add(4 * q) as *const __m128i);
                let r2 = _mm_loadu_si128(src[4 * h + 2].as_ptr().add(4 * q) as *const __m128i);
                let r3 = _mm_loadu_si128(src[4 * h + 3].as_ptr().add(4 * q) as *const __m128i);
                let t0 = _mm_unpacklo_epi32(r0, r1);
                let t1 = _mm_unpacklo_epi32(r2, r3);
                let t2 = _mm_unpackhi_epi32(r0, r1);
                let t3 = _mm_unpackhi_epi32(r2, r3);
                let c = [
                    _mm_unpacklo_epi64(t0, t1),
                    _mm_unpackhi_epi64(t0, t1),
                    _mm_unpacklo_epi64(t2, t3),
                    _mm_unpackhi_epi64(t2, t3),
                ];
                for (j, v) in c.iter().enumerate() {
                    _mm_storeu_si128(rows[4 * q + j].as_mut_ptr().add(4 * h) as *mut __m128i, *v);
                }
            }
        }
    }
    for (a, row) in rows.iter().enumerate() {
        out[o + a * os..o + a * os + MICRO].copy_from_slice(row);
    }
}

/// The element-by-element version of a tile (edges of the blocks).
#[allow(clippy::too_many_arguments)]
#[inline]
fn scalar_tile<T: Copy>(
    out: &mut [T],
    out_off: usize,
    osk: usize,
    inp: &[T],
    in_off: isize,
    sl: isize,
    rows: std::ops::Range<usize>,
    cols: std::ops::Range<usize>,
) {
    if cols.is_empty() {
        return;
    }
    for a in rows {
        let orow = out_off + a * osk;
        let dst = &mut out[orow + cols.start..orow + cols.end];
        let mut p = in_off + a as isize + cols.start as isize * sl;
        for d in dst.iter_mut() {
            *d = inp[p as usize];
            p += sl;
        }
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
    fn fits_rejects_views_outside_the_input() {
        assert!(StridedCopy::new(&[3, 4], &[4, 1], 0, 4).fits(12, 12));
        assert!(!StridedCopy::new(&[3, 4], &[4, 1], 1, 4).fits(12, 12));
        assert!(!StridedCopy::new(&[3, 4], &[4, 1], 0, 4).fits(12, 13));
        assert!(StridedCopy::new(&[3, 4], &[-4, -1], 11, 4).fits(12, 12));
        assert!(!StridedCopy::new(&[3, 4], &[-4, -1], 10, 4).fits(12, 12));
        assert!(StridedCopy::new(&[], &[], 0, 4).fits(1, 1));
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
        // Short last dim (interleave) and short second-to-last dim (deinterleave), with an
        // outer dimension and chunk tails.
        check(2 * 3 * 1000, &[2, 1000, 3], &[3000, 1, 1000], 0);
        check(2 * 3 * 1000, &[2, 3, 1000], &[3000, 1, 3], 0);
        check(5 * 7 * 9, &[5, 9, 7], &[63, 1, 9], 0);
        check(5 * 7 * 9, &[5, 7, 9], &[63, 1, 7], 0);
        check(20 * 600, &[20, 600], &[1, 20], 0);
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
    fn sse2_micro_tile_matches_portable() {
        let inp: Vec<u32> = (0..2000).map(|x| x * 3 + 1).collect();
        for (o, os, i, is) in [(0usize, 8usize, 0isize, 8isize), (5, 13, 7, 100), (3, 21, 50, 211)] {
            let mut a = vec![0u32; 300];
            let mut b = vec![0u32; 300];
            micro_tile_portable(&mut a, o, os, &inp, i, is);
            <u32 as Elem>::micro_tile(&mut b, o, os, &inp, i, is);
            assert_eq!(a, b);
            for x in 0..8 {
                for y in 0..8 {
                    assert_eq!(a[o + x * os + y], inp[(i + x as isize + y as isize * is) as usize]);
                }
            }
        }
    }

    #[test]
    fn sse2_u8_micro_tile_matches_portable() {
        let inp: Vec<u8> = (0..2000).map(|x| (x * 7 + 1) as u8).collect();
        for (o, os, i, is) in [(0usize, 8usize, 0isize, 8isize), (5, 13, 7, 100), (3, 21, 50, 211)] {
            let mut a = vec![0u8; 300];
            let mut b = vec![0u8; 300];
            micro_tile_portable(&mut a, o, os, &inp, i, is);
            <u8 as Elem>::micro_tile(&mut b, o, os, &inp, i, is);
            assert_eq!(a, b);
        }
    }

    #[test]
    fn sse2_u16_micro_tile_matches_portable() {
        let inp: Vec<u16> = (0..2000).map(|x| (x * 3 + 1) as u16).collect();
        for (o, os, i, is) in [(0usize, 8usize, 0isize, 8isize), (5, 13, 7, 100), (3, 21, 50, 211)] {
            let mut a = vec![0u16; 300];
            let mut b = vec![0u16; 300];
            micro_tile_portable(&mut a, o, os, &inp, i, is);
            <u16 as Elem>::micro_tile(&mut b, o, os, &inp, i, is);
            assert_eq!(a, b);
        }
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

//! averagePool2d, l2Pool2d, maxPool2d
//! ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-pool2d)), nchw and nhwc.
//!
//! The output size is read from the output descriptor (it may come from ceil rounding or
//! outputSizes). Only real input elements take part in a window: padded positions, and
//! positions past the padded input that ceil rounding lets a window reach, are skipped, and
//! averagePool2d divides by the number of real elements (decisions.md D15; l2Pool2d likewise
//! ignores padding). A window with no real element gives 0 (average, L2) or the type's
//! lowest value (max). Average and L2 compute in f32 (float16 rounded once); max works on
//! any data type, propagating NaN.

use super::conv::span;
use super::float_elem::FloatElem;
use super::simd::simd;
use super::{In, Kernel, Out};
use half::f16;
use webnn_core::graph::{Attrs, Operation};
use webnn_core::types::InputOperandLayout;
use webnn_core::{DataType, Error, Graph, OpKind, Result};

/// Channels reduced together in the nhwc inner loop (stack accumulators).
const LANES: usize = 64;

/// A window reduction over elements of type `T`.
pub trait Reducer<T>: Sync {
    /// Accumulator.
    type Acc: Copy + Send + Sync;
    /// The empty accumulator.
    fn init() -> Self::Acc;
    /// Adds one element.
    fn add(acc: Self::Acc, x: T) -> Self::Acc;
    /// Merges two partial accumulators.
    fn combine(a: Self::Acc, b: Self::Acc) -> Self::Acc;
    /// The result from the accumulator and the number of real elements.
    fn finish(acc: Self::Acc, count: usize) -> T;
}

/// A sum in f32 over float elements: of the elements themselves (`SQUARES` false, the mean
/// of the real elements when finished) or of their squares (`SQUARES` true, finished with a
/// square root). `SQUARES` is a constant: each kernel is compiled with its own arithmetic.
pub struct SumR<const SQUARES: bool>;
/// Mean of the real elements (float types).
pub type AvgR = SumR<false>;
/// sqrt of the sum of squares (float types).
pub type L2R = SumR<true>;
/// Maximum (any type).
pub struct MaxR;

impl<T: FloatElem, const SQUARES: bool> Reducer<T> for SumR<SQUARES> {
    type Acc = f32;
    #[inline(always)]
    fn init() -> f32 {
        0.0
    }
    #[inline(always)]
    fn add(acc: f32, x: T) -> f32 {
        let v = x.to_f32();
        if SQUARES {
            acc + v * v
        } else {
            acc + v
        }
    }
    #[inline(always)]
    fn combine(a: f32, b: f32) -> f32 {
        a + b
    }
    #[inline(always)]
    fn finish(acc: f32, count: usize) -> T {
        if SQUARES {
            T::from_f32(acc.sqrt())
        } else {
            T::from_f32(if count == 0 { 0.0 } else { acc / count as f32 })
        }
    }
}

/// Ordering for maxPool2d.
pub trait MaxElem: Copy + Send + Sync + bytemuck::Pod {
    /// The lowest value (−∞ for floats).
    const LOWEST: Self;
    /// max(a, b), NaN-propagating for floats.
    fn max_of(a: Self, b: Self) -> Self;
}

macro_rules! int_max {
    ($($t:ty),*) => {$(
        impl MaxElem for $t {
            const LOWEST: $t = <$t>::MIN;
            #[inline(always)]
            fn max_of(a: $t, b: $t) -> $t { if b > a { b } else { a } }
        }
    )*};
}
int_max!(i8, u8, i32, u32, i64, u64);

impl MaxElem for f32 {
    const LOWEST: f32 = f32::NEG_INFINITY;
    #[inline(always)]
    fn max_of(a: f32, b: f32) -> f32 {
        // NaN-propagating and branchless in three instructions: `if a > b { a } else { b }` is
        // x86's `maxps`, which gives `b` when either is NaN, so only a NaN `a` needs a fix;
        // that fix is `a + b` (NaN), never "keep the old value" (which compilers turn into slow
        // masked stores).
        let m = if a > b { a } else { b };
        if a.is_nan() {
            a + b
        } else {
            m
        }
    }
}

impl MaxElem for f16 {
    const LOWEST: f16 = f16::NEG_INFINITY;
    #[inline(always)]
    fn max_of(a: f16, b: f16) -> f16 {
        if a.is_nan() | b.is_nan() {
            f16::NAN
        } else if b > a {
            b
        } else {
            a
        }
    }
}

impl<T: MaxElem> Reducer<T> for MaxR {
    type Acc = T;
    #[inline(always)]
    fn init() -> T {
        T::LOWEST
    }
    #[inline(always)]
    fn add(acc: T, x: T) -> T {
        T::max_of(acc, x)
    }
    #[inline(always)]
    fn combine(a: T, b: T) -> T {
        T::max_of(a, b)
    }
    #[inline(always)]
    fn finish(acc: T, _count: usize) -> T {
        acc
    }
}

/// The pooling geometry, with the window rows/columns that hit real input precomputed per
/// output row/column.
#[derive(Debug, Clone)]
pub struct PoolGeom {
    /// Batch.
    pub n: usize,
    /// Channels.
    pub c: usize,
    /// Input height.
    pub h: usize,
    /// Input width.
    pub w: usize,
    /// Output height.
    pub oh: usize,
    /// Output width.
    pub ow: usize,
    /// Channels-last.
    pub nhwc: bool,
    /// [sH, sW]
    pub strides: [usize; 2],
    /// [dH, dW]
    pub dilations: [usize; 2],
    /// [beginH, beginW]
    pub pad_begin: [usize; 2],
    /// [wH, wW]
    pub window: [usize; 2],
    /// The output columns whose whole window lies inside the input (a range).
    pub interior: (usize, usize),
    /// Per output row: the window rows `kh` whose input row is real.
    pub rows: Vec<(usize, usize)>,
    /// Per output column: the window columns `kw` whose input column is real.
    pub cols: Vec<(usize, usize)>,
}

impl PoolGeom {
    /// Builds the geometry.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        n: usize,
        c: usize,
        h: usize,
        w: usize,
        oh: usize,
        ow: usize,
        window: [usize; 2],
        strides: [usize; 2],
        dilations: [usize; 2],
        pad_begin: [usize; 2],
        nhwc: bool,
    ) -> Self {
        let rows = (0..oh).map(|o| span(window[0], dilations[0], o * strides[0], pad_begin[0], h)).collect();
        let cols: Vec<(usize, usize)> =
            (0..ow).map(|o| span(window[1], dilations[1], o * strides[1], pad_begin[1], w)).collect();
        let full: Vec<usize> = (0..ow).filter(|&o| cols[o].1 - cols[o].0 == window[1]).collect();
        // Full windows form one run of columns (the window start grows with the column).
        let interior = match (full.first(), full.last()) {
            (Some(&a), Some(&b)) if b + 1 - a == full.len() => (a, b + 1),
            _ => (0, 0),
        };
        PoolGeom { n, c, h, w, oh, ow, nhwc, strides, dilations, pad_begin, window, interior, rows, cols }
    }

    /// Whether every window holds at least one real input element (none lies wholly in the
    /// padding or past the input).
    pub fn every_window_real(&self) -> bool {
        self.rows.iter().chain(&self.cols).all(|&(a, b)| a < b)
    }

    /// The input row of window row `kh` of output row `oh` (a real row: `kh` in `rows[oh]`).
    #[inline(always)]
    pub(super) fn ih_of(&self, oh: usize, kh: usize) -> usize {
        oh * self.strides[0] + kh * self.dilations[0] - self.pad_begin[0]
    }

    /// The input column of window column `kw` of output column `ow` (a real column).
    #[inline(always)]
    pub(super) fn iw_of(&self, ow: usize, kw: usize) -> usize {
        ow * self.strides[1] + kw * self.dilations[1] - self.pad_begin[1]
    }
}

/// Scratch of one nchw task: the vertical accumulators of an output row, the horizontal ones
/// of its full windows, and the phases of a strided window.
type PlaneBufs<A> = (Vec<A>, Vec<A>, Vec<A>);

/// One nchw plane. Per output row: the window rows are reduced column-wise into `vbuf`;
/// then the full windows are reduced horizontally (contiguous passes, so they vectorize):
/// with stride 1 (or a dilated window) `hbuf[j]` reduces `vbuf` over a full window starting at
/// column `j` and output columns take `hbuf[first column + j·stride]`; with a larger stride
/// [`horizontal_strided`] reduces only the windows that are outputs. The outputs at the
/// padded edges reduce their real columns.
#[inline(always)]
fn pool_plane_nchw<T: Copy, R: Reducer<T>>(g: &PoolGeom, xp: &[T], o: &mut [T], bufs: &mut PlaneBufs<R::Acc>) {
    let (vbuf, hbuf, phases) = bufs;
    // Sized once per plane, never filled: every element read is written first (filling
    // per row was a scalar loop that took most of the time).
    vbuf.resize(g.w, R::init());
    let kw_n = g.window[1];
    let dw = g.dilations[1];
    let sw = g.strides[1];
    // A stride past the row (a fuzzer's 2^32 − 1) has at most one window per row: the
    // phases would be `sw` long, so the plain path takes it.
    let strided = sw > 1 && dw == 1 && sw <= g.w;
    let reach = (kw_n - 1) * dw;
    let full = g.w.saturating_sub(reach);
    if !strided {
        hbuf.resize(full, R::init());
    }
    for (oh, orow) in o.chunks_exact_mut(g.ow).enumerate() {
        let (h0, h1) = g.rows[oh];
        let row = |kh: usize| &xp[g.ih_of(oh, kh) * g.w..][..g.w];
        // The window rows in one pass per three (one store of vbuf, not one per row).
        let mut kh = h0;
        while kh < h1 {
            let first = kh == h0;
            let acc = |a: R::Acc| if first { R::init() } else { a };
            match h1 - kh {
                1 => {
                    for (a, &v) in vbuf.iter_mut().zip(row(kh)) {
                        *a = R::add(acc(*a), v);
                    }
                    kh += 1;
                }
                2 => {
                    for ((a, &u), &v) in vbuf.iter_mut().zip(row(kh)).zip(row(kh + 1)) {
                        *a = R::add(R::add(acc(*a), u), v);
                    }
                    kh += 2;
                }
                _ => {
                    for (((a, &u), &v), &w) in vbuf.iter_mut().zip(row(kh)).zip(row(kh + 1)).zip(row(kh + 2)) {
                        *a = R::add(R::add(R::add(acc(*a), u), v), w);
                    }
                    kh += 3;
                }
            }
        }
        if h0 == h1 {
            vbuf.fill(R::init());
        }
        let (a, b) = g.interior;
        let count = (h1 - h0) * kw_n;
        if strided {
            horizontal_strided::<T, R>(g, vbuf, phases, hbuf, &mut orow[a..b], count);
        } else {
            hbuf.copy_from_slice(&vbuf[..full]);
            // A window wider than the input (padding makes room for it) has no full
            // position: every output column is an edge column below, and vbuf[kw * dw..] may
            // not exist.
            if full > 0 {
                for kw in 1..kw_n {
                    for (a, &v) in hbuf.iter_mut().zip(&vbuf[kw * dw..kw * dw + full]) {
                        *a = R::combine(*a, v);
                    }
                }
            }
            let first = if a < b { g.iw_of(a, 0) } else { 0 };
            for (j, ov) in orow[a..b].iter_mut().enumerate() {
                *ov = R::finish(hbuf[first + j * sw], count);
            }
        }
        for ow in (0..a).chain(b..g.ow) {
            let (w0, w1) = g.cols[ow];
            let mut acc = R::init();
            for kw in w0..w1 {
                acc = R::combine(acc, vbuf[g.iw_of(ow, kw)]);
            }
            orow[ow] = R::finish(acc, (h1 - h0) * (w1 - w0));
        }
    }
}

/// The full-window outputs of one nchw output row (`out`: the interior columns) for a
/// horizontal stride `s > 1` without dilation. `vbuf` (the row's vertical accumulators) is
/// split into its `s` phases, `phases[r·len + q] = vbuf[q·s + r]`; the tap `kw` of
/// consecutive output columns then reads consecutive elements of one phase, so each tap is
/// one contiguous pass over the outputs. (The stride-1 way, reducing every column and
/// picking every `s`-th, does `s` times the work and reads with a stride: 3×3/2 max pooling of
/// 64×112×112 took 0.243 ms that way, 6× ONNX Runtime.)
#[inline(always)]
fn horizontal_strided<T: Copy, R: Reducer<T>>(
    g: &PoolGeom,
    vbuf: &[R::Acc],
    phases: &mut Vec<R::Acc>,
    hbuf: &mut Vec<R::Acc>,
    out: &mut [T],
    count: usize,
) {
    let n = out.len();
    if n == 0 {
        return;
    }
    let s = g.strides[1];
    let len = g.w.div_ceil(s);
    // Not cleared: every element a tap reads (input columns < w) is written below.
    phases.resize(s * len, R::init());
    if s == 2 {
        let (even, odd) = phases.split_at_mut(len);
        for ((e, o), pair) in even.iter_mut().zip(odd.iter_mut()).zip(vbuf.chunks_exact(2)) {
            *e = pair[0];
            *o = pair[1];
        }
        if g.w % 2 == 1 {
            even[len - 1] = vbuf[g.w - 1];
        }
    } else {
        for (x, &v) in vbuf.iter().enumerate() {
            phases[(x % s) * len + x / s] = v;
        }
    }
    // Output column interior.0 + t reads input column first + kw + t·s: phase r, index q0 + t.
    let first = g.iw_of(g.interior.0, 0);
    let tap = |kw: usize| {
        let pos = first + kw;
        &phases[(pos % s) * len + pos / s..][..n]
    };
    match g.window[1] {
        // The common windows in one pass: no accumulator array.
        2 => {
            for ((ov, &u), &v) in out.iter_mut().zip(tap(0)).zip(tap(1)) {
                *ov = R::finish(R::combine(u, v), count);
            }
        }
        3 => {
            for (((ov, &u), &v), &w) in out.iter_mut().zip(tap(0)).zip(tap(1)).zip(tap(2)) {
                *ov = R::finish(R::combine(R::combine(u, v), w), count);
            }
        }
        kw_n => {
            hbuf.resize(n, R::init());
            hbuf.copy_from_slice(tap(0));
            for kw in 1..kw_n {
                for (h, &v) in hbuf.iter_mut().zip(tap(kw)) {
                    *h = R::combine(*h, v);
                }
            }
            for (ov, &h) in out.iter_mut().zip(hbuf.iter()) {
                *ov = R::finish(h, count);
            }
        }
    }
}

/// One nhwc output row (all its pixels and channels), channels in blocks of `LANES`.
#[inline(always)]
fn pool_row_nhwc<T: Copy, R: Reducer<T>>(g: &PoolGeom, xn: &[T], oh: usize, o: &mut [T]) {
    let c = g.c;
    let (h0, h1) = g.rows[oh];
    for ow in 0..g.ow {
        let (w0, w1) = g.cols[ow];
        let count = (h1 - h0) * (w1 - w0);
        let opx = &mut o[ow * c..][..c];
        let mut c0 = 0;
        while c0 < c {
            let lanes = LANES.min(c - c0);
            let mut acc = [R::init(); LANES];
            for kh in h0..h1 {
                let ih = g.ih_of(oh, kh);
                for kw in w0..w1 {
                    let px = &xn[(ih * g.w + g.iw_of(ow, kw)) * c + c0..][..lanes];
                    for (a, &v) in acc.iter_mut().zip(px) {
                        *a = R::add(*a, v);
                    }
                }
            }
            for (d, &a) in opx[c0..c0 + lanes].iter_mut().zip(&acc) {
                *d = R::finish(a, count);
            }
            c0 += lanes;
        }
    }
}

/// Reduces a whole contiguous plane (global pooling), with independent accumulators.
#[inline(always)]
fn reduce_all<T: Copy, R: Reducer<T>>(xp: &[T]) -> R::Acc {
    const L: usize = 8;
    let mut acc = [R::init(); L];
    let chunks = xp.chunks_exact(L);
    let rem = chunks.remainder();
    for c in chunks {
        for (a, &v) in acc.iter_mut().zip(c) {
            *a = R::add(*a, v);
        }
    }
    let mut total = R::init();
    for a in acc {
        total = R::combine(total, a);
    }
    for &v in rem {
        total = R::add(total, v);
    }
    total
}

/// Pools `x` into `out` with reducer `R`.
pub fn pool<T: Copy + Send + Sync, R: Reducer<T>>(g: &PoolGeom, x: &[T], out: &mut [T]) {
    let plane = g.h * g.w;
    let global = g.oh == 1 && g.ow == 1 && g.rows[0] == (0, g.h) && g.cols[0] == (0, g.w) && g.dilations == [1, 1];
    if global && !g.nhwc && g.window == [g.h, g.w] {
        let per_task = (4096 / plane.max(1)).max(1);
        crate::par::chunks(out, per_task, |t, o| {
            simd(
                #[inline(always)]
                || {
                    for (i, ov) in o.iter_mut().enumerate() {
                        let p = t * per_task + i;
                        *ov = R::finish(reduce_all::<T, R>(&x[p * plane..][..plane]), plane);
                    }
                },
            )
        });
        return;
    }
    if !g.nhwc {
        let bufs = || (Vec::new(), Vec::new(), Vec::new());
        for_each_nchw_plane(g, x, out, bufs, |bufs: &mut PlaneBufs<R::Acc>, xp, op| {
            simd(
                #[inline(always)]
                || pool_plane_nchw::<T, R>(g, xp, op, bufs),
            )
        });
    } else {
        let c = g.c;
        crate::par::chunks(out, g.ow * c, |r, o| {
            let (n, oh) = (r / g.oh, r % g.oh);
            simd(
                #[inline(always)]
                || pool_row_nhwc::<T, R>(g, &x[n * plane * c..][..plane * c], oh, o),
            )
        });
    }
}

/// Runs `plane(scratch, input plane, output plane)` over every nchw plane of `x` and `out`,
/// in parallel, several small planes per task so that per-task overhead stays small; each
/// task's scratch comes from `init`.
fn for_each_nchw_plane<T: Copy + Send + Sync, S>(
    g: &PoolGeom,
    x: &[T],
    out: &mut [T],
    init: impl Fn() -> S + Sync + Send,
    plane: impl Fn(&mut S, &[T], &mut [T]) + Sync + Send,
) {
    let (iplane, oplane) = (g.h * g.w, g.oh * g.ow);
    let per_task = (4096 / iplane.max(1)).max(1);
    crate::par::chunks_init(out, oplane * per_task, init, |scratch: &mut S, t, o| {
        for (i, op) in o.chunks_exact_mut(oplane).enumerate() {
            let p = t * per_task + i;
            plane(scratch, &x[p * iplane..][..iplane], op);
        }
    });
}

/// maxPool2d of float32: the AVX-512 planes of [`super::pool_avx512`] where they apply, else
/// [`pool`].
fn max_pool_f32(g: &PoolGeom, x: &[f32], out: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    if super::pool_avx512::applies(g) && super::unary::has_avx512() {
        for_each_nchw_plane(
            g,
            x,
            out,
            || (),
            |_, xp, op| {
                // SAFETY: AVX-512F was detected; `applies` holds; the slices are one plane.
                unsafe { super::pool_avx512::max_pool_plane(g, xp, op) }
            },
        );
        return;
    }
    pool::<f32, MaxR>(g, x, out)
}

/// maxPool2d of uint8 or int8 (`signed`): the AVX-512BW planes of
/// [`super::pool_bytes_avx512`] where they apply, else [`pool`].
fn max_pool_bytes(g: &PoolGeom, signed: bool, x: &[u8], out: &mut [u8]) {
    #[cfg(target_arch = "x86_64")]
    if super::pool_bytes_avx512::applies(g) && super::pool_bytes_avx512::available() {
        use super::pool_bytes_avx512::{max_pool_plane, PlaneBufs};
        for_each_nchw_plane(
            g,
            x,
            out,
            || PlaneBufs::new(g),
            |bufs, xp, op| {
                // SAFETY: AVX-512F/BW were detected; `applies` holds; the slices are one
                // plane; `bufs` was made for `g`.
                unsafe { max_pool_plane(g, signed, xp, op, bufs) }
            },
        );
        return;
    }
    if signed {
        pool::<i8, MaxR>(g, bytemuck::cast_slice(x), bytemuck::cast_slice_mut(out))
    } else {
        pool::<u8, MaxR>(g, x, out)
    }
}

struct PoolKernel {
    kind: OpKind,
    data_type: DataType,
    g: PoolGeom,
}

/// Lowers averagePool2d, l2Pool2d and maxPool2d.
pub fn lower(op: &Operation, graph: &Graph) -> Result<Box<dyn Kernel>> {
    let g = geometry(op, graph)?;
    let od = graph.descriptor(op.outputs[0]);
    Ok(Box::new(PoolKernel { kind: op.kind, data_type: od.data_type, g }))
}

/// maxPool2d of `op`'s geometry on tensors of `data_type` instead of the operation's own type
/// (the 8-bit values a quantized model's `quantize(maxPool2d(dequantize(x)))` pools:
/// `compile::quantized::elementwise`).
pub fn lower_max_pool_as(op: &Operation, graph: &Graph, data_type: DataType) -> Result<Box<dyn Kernel>> {
    if op.kind != OpKind::MaxPool2d {
        return Err(Error::operation("maxPool2d: another pooling operation"));
    }
    Ok(Box::new(PoolKernel { kind: op.kind, data_type, g: geometry(op, graph)? }))
}

/// The geometry of a pooling operation (its attributes and its operands' shapes).
pub fn geometry(op: &Operation, graph: &Graph) -> Result<PoolGeom> {
    let Attrs::Pool2d { window, padding, strides, dilations, layout } = op.attrs else {
        return Err(Error::operation("pooling: missing attributes"));
    };
    let Some(x) = op.input(0) else {
        return Err(Error::operation("pooling: missing input"));
    };
    let xd = graph.descriptor(x);
    let od = graph.descriptor(op.outputs[0]);
    if xd.shape.len() != 4 || od.shape.len() != 4 {
        return Err(Error::operation("pooling: operands must have rank 4"));
    }
    let s: Vec<usize> = xd.shape.iter().map(|&d| d as usize).collect();
    let o: Vec<usize> = od.shape.iter().map(|&d| d as usize).collect();
    let nhwc = layout == InputOperandLayout::Nhwc;
    let (n, c, h, w) = if nhwc { (s[0], s[3], s[1], s[2]) } else { (s[0], s[1], s[2], s[3]) };
    let (oh, ow) = if nhwc { (o[1], o[2]) } else { (o[2], o[3]) };
    let u = |v: u32| v as usize;
    Ok(PoolGeom::new(
        n,
        c,
        h,
        w,
        oh,
        ow,
        window.map(u),
        strides.map(u),
        dilations.map(u),
        [u(padding[0]), u(padding[2])],
        nhwc,
    ))
}

impl Kernel for PoolKernel {
    fn run(&self, inputs: &[Option<In<'_>>], outputs: &mut [Out<'_>]) -> webnn_core::Result<()> {
        let Some(x) = inputs[0] else { return Ok(()) };
        let out = &mut outputs[0];
        let g = &self.g;
        match (self.kind, self.data_type) {
            (OpKind::AveragePool2d, DataType::Float16) => pool::<f16, AvgR>(g, x.slice(), out.slice_mut()),
            (OpKind::AveragePool2d, _) => pool::<f32, AvgR>(g, x.slice(), out.slice_mut()),
            (OpKind::L2Pool2d, DataType::Float16) => pool::<f16, L2R>(g, x.slice(), out.slice_mut()),
            (OpKind::L2Pool2d, _) => pool::<f32, L2R>(g, x.slice(), out.slice_mut()),
            (OpKind::MaxPool2d, DataType::Float32) => max_pool_f32(g, x.slice(), out.slice_mut()),
            (OpKind::MaxPool2d, DataType::Uint8 | DataType::Int8) => {
                max_pool_bytes(g, self.data_type == DataType::Int8, x.bytes, &mut out.bytes[..])
            }
            _ => crate::with_type!(self.data_type, T => pool::<T, MaxR>(g, x.slice(), out.slice_mut())),
        }
        Ok(())
    }
}

#[cfg(test)]
#[path = "pool_tests.rs"]
mod tests;

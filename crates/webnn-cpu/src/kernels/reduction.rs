//! Reductions ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-reduce)): reduceL1, reduceL2,
//! reduceLogSum, reduceLogSumExp, reduceMax, reduceMean, reduceMin, reduceProduct, reduceSum,
//! reduceSumSquare; argMin / argMax
//! ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-argminmax)); cumulativeSum
//! ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-cumulativesum)).
//!
//! - Floats (float32 and float16) accumulate in f64 and are rounded once at the end, which
//!   keeps every result well inside the WPT tolerances (R ULP for reduceSum over R elements).
//!   reduceLogSumExp is stable: it keeps a running maximum m and Σ exp(x − m) (one pass).
//!   NaN propagates through every float reduction (max/min included).
//! - Integers wrap (two's complement) in sum, product, L1 and sum-of-squares.
//! - An empty `axes` reduces nothing: the reduction function is applied to each element
//!   (reduceL1 → |x|, reduceSumSquare → x², reduceLogSumExp → x, …).
//! - `Attrs::Reduce::axes` is taken as resolved by the validator: absent `options.axes` must
//!   arrive as every axis.
//! - argMin/argMax return the first index among equal values; a NaN counts as the extreme
//!   value (the first NaN wins), as numpy does.
//!
//! Dimensions of size 1 are dropped and adjacent kept/reduced dimensions merged, so nearly every
//! case becomes `[outer, n, inner]` with `n` reduced: contiguous rows (inner = 1) are folded with
//! several independent accumulators, otherwise blocks of up to 64 columns are accumulated in
//! stack arrays (no allocation). Other layouts use a generic odometer walk.

use super::float_elem::FloatElem;
use super::simd::simd;
use super::unary::{with_int_type, IntElem, CHEAP_CHUNK};
use super::{In, Kernel, Out};
use half::f16;
use smallvec::SmallVec;
use webnn_core::graph::{Attrs, Operation};
use webnn_core::{DataType, Error, Graph, OpKind, Result};

/// A reduction: an accumulator, how to add one element or merge two accumulators, and how to
/// produce the result from the accumulator and the element count.
pub trait Reducer<T>: Send + Sync {
    /// The accumulator.
    type Acc: Copy + Send + Sync;
    /// The empty accumulator.
    fn init() -> Self::Acc;
    /// Adds one element.
    fn step(acc: Self::Acc, x: T) -> Self::Acc;
    /// Merges two accumulators.
    fn combine(a: Self::Acc, b: Self::Acc) -> Self::Acc;
    /// The result over `count` elements.
    fn finish(acc: Self::Acc, count: usize) -> T;
    /// Folds a contiguous run (a row of a reduction over the innermost dimensions): `step`
    /// with four independent accumulators unless a reducer has a faster way.
    #[inline(always)]
    fn fold(x: &[T]) -> Self::Acc
    where
        Self: Sized,
        T: Copy,
    {
        fold_row::<T, Self>(x)
    }
}

#[inline(always)]
fn nan_max(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else if b > a {
        b
    } else {
        a
    }
}

#[inline(always)]
fn nan_min(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else if b < a {
        b
    } else {
        a
    }
}

macro_rules! float_reducer {
    ($name:ident, $init:expr, |$a:ident, $x:ident| $step:expr, |$p:ident, $q:ident| $comb:expr, |$r:ident, $n:ident| $fin:expr $(, fold = $fold:ident)?) => {
        /// A float reduction (f64 accumulator).
        pub struct $name;
        impl<T: FloatElem> Reducer<T> for $name {
            type Acc = f64;
            #[inline(always)]
            fn init() -> f64 {
                $init
            }
            #[inline(always)]
            fn step($a: f64, x: T) -> f64 {
                let $x = x.to_f64();
                $step
            }
            #[inline(always)]
            fn combine($p: f64, $q: f64) -> f64 {
                $comb
            }
            #[inline(always)]
            #[allow(unused_variables)]
            fn finish($r: f64, $n: usize) -> T {
                T::from_f64($fin)
            }
            $(
                #[inline(always)]
                fn fold(x: &[T]) -> f64 {
                    $fold::<T, Self>(x)
                }
            )?
        }
    };
}

float_reducer!(FSum, 0.0, |a, x| a + x, |a, b| a + b, |r, n| r, fold = sum_fold);
float_reducer!(FL1, 0.0, |a, x| a + x.abs(), |a, b| a + b, |r, n| r);
float_reducer!(FL2, 0.0, |a, x| a + x * x, |a, b| a + b, |r, n| r.sqrt());
float_reducer!(FSumSquare, 0.0, |a, x| a + x * x, |a, b| a + b, |r, n| r);
float_reducer!(FMean, 0.0, |a, x| a + x, |a, b| a + b, |r, n| r / n as f64, fold = sum_fold);
float_reducer!(FLogSum, 0.0, |a, x| a + x, |a, b| a + b, |r, n| r.ln());
float_reducer!(FProduct, 1.0, |a, x| a * x, |a, b| a * b, |r, n| r);
float_reducer!(FMax, f64::NEG_INFINITY, |a, x| nan_max(a, x), |a, b| nan_max(a, b), |r, n| r);
float_reducer!(FMin, f64::INFINITY, |a, x| nan_min(a, x), |a, b| nan_min(a, b), |r, n| r);

/// reduceLogSumExp: accumulator (m, s) meaning m + ln(s), with m the running maximum.
pub struct FLogSumExp;

impl FLogSumExp {
    #[inline(always)]
    fn merge((m1, s1): (f64, f64), (m2, s2): (f64, f64)) -> (f64, f64) {
        if s1 == 0.0 {
            return (m2, s2);
        }
        if s2 == 0.0 {
            return (m1, s1);
        }
        let m = nan_max(m1, m2);
        // Equal maxima (±Infinity included) scale by exactly 1, never by exp(∞ − ∞).
        let f1 = if m1 == m { s1 } else { s1 * (m1 - m).exp() };
        let f2 = if m2 == m { s2 } else { s2 * (m2 - m).exp() };
        (m, f1 + f2)
    }
}

impl<T: FloatElem> Reducer<T> for FLogSumExp {
    type Acc = (f64, f64);
    #[inline(always)]
    fn init() -> (f64, f64) {
        (f64::NEG_INFINITY, 0.0)
    }
    #[inline(always)]
    fn step(acc: (f64, f64), x: T) -> (f64, f64) {
        Self::merge(acc, (x.to_f64(), 1.0))
    }
    #[inline(always)]
    fn combine(a: (f64, f64), b: (f64, f64)) -> (f64, f64) {
        Self::merge(a, b)
    }
    #[inline(always)]
    fn finish((m, s): (f64, f64), _count: usize) -> T {
        T::from_f64(if s == 0.0 { f64::NEG_INFINITY } else { m + s.ln() })
    }
}

macro_rules! int_reducer {
    ($name:ident, $init:expr, |$a:ident, $x:ident| $step:expr, |$p:ident, $q:ident| $comb:expr) => {
        /// An integer reduction (wrapping, accumulated in the element type).
        pub struct $name;
        impl<T: IntElem> Reducer<T> for $name {
            type Acc = T;
            #[inline(always)]
            fn init() -> T {
                $init
            }
            #[inline(always)]
            fn step($a: T, $x: T) -> T {
                $step
            }
            #[inline(always)]
            fn combine($p: T, $q: T) -> T {
                $comb
            }
            #[inline(always)]
            fn finish(r: T, _count: usize) -> T {
                r
            }
        }
    };
}

int_reducer!(ISum, T::ZERO, |a, x| a.wadd(x), |a, b| a.wadd(b));
int_reducer!(IL1, T::ZERO, |a, x| a.wadd(x.wabs()), |a, b| a.wadd(b));
int_reducer!(ISumSquare, T::ZERO, |a, x| a.wadd(x.wmul(x)), |a, b| a.wadd(b));
int_reducer!(IProduct, T::ONE, |a, x| a.wmul(x), |a, b| a.wmul(b));
int_reducer!(IMax, T::MIN_V, |a, x| if x > a { x } else { a }, |a, b| if b > a { b } else { a });
int_reducer!(IMin, T::MAX_V, |a, x| if x < a { x } else { a }, |a, b| if b < a { b } else { a });

/// The reduction function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReduceOp {
    /// Σ|x|
    L1,
    /// √Σx²
    L2,
    /// ln Σx
    LogSum,
    /// ln Σeˣ
    LogSumExp,
    /// max
    Max,
    /// Σx / n
    Mean,
    /// min
    Min,
    /// Πx
    Product,
    /// Σx
    Sum,
    /// Σx²
    SumSquare,
}

impl ReduceOp {
    /// The reduction of an `OpKind`.
    pub fn of(kind: OpKind) -> Option<ReduceOp> {
        Some(match kind {
            OpKind::ReduceL1 => ReduceOp::L1,
            OpKind::ReduceL2 => ReduceOp::L2,
            OpKind::ReduceLogSum => ReduceOp::LogSum,
            OpKind::ReduceLogSumExp => ReduceOp::LogSumExp,
            OpKind::ReduceMax => ReduceOp::Max,
            OpKind::ReduceMean => ReduceOp::Mean,
            OpKind::ReduceMin => ReduceOp::Min,
            OpKind::ReduceProduct => ReduceOp::Product,
            OpKind::ReduceSum => ReduceOp::Sum,
            OpKind::ReduceSumSquare => ReduceOp::SumSquare,
            _ => return None,
        })
    }
}

/// Where the reduced elements of each output are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReduceGeom {
    /// Input `[outer, n, inner]`, `n` reduced, output `[outer, inner]`.
    Oni {
        /// product of the kept dimensions before the reduced ones
        outer: usize,
        /// number of reduced elements per output
        n: usize,
        /// product of the kept dimensions after the reduced ones
        inner: usize,
    },
    /// Any other layout: kept and reduced groups interleave.
    Generic {
        /// sizes of the kept groups (output row-major order)
        kept: Vec<usize>,
        /// input strides of the kept groups
        kept_strides: Vec<usize>,
        /// sizes of the reduced groups
        reduced: Vec<usize>,
        /// input strides of the reduced groups
        reduced_strides: Vec<usize>,
    },
}

impl ReduceGeom {
    /// The geometry of reducing `axes` of `shape`: size-1 dimensions dropped, adjacent
    /// dimensions of the same kind merged.
    pub fn new(shape: &[u32], axes: &[u32]) -> ReduceGeom {
        let mut groups: Vec<(usize, bool)> = Vec::new();
        for (d, &s) in shape.iter().enumerate() {
            if s == 1 {
                continue;
            }
            let r = axes.contains(&(d as u32));
            match groups.last_mut() {
                Some((n, rr)) if *rr == r => *n *= s as usize,
                _ => groups.push((s as usize, r)),
            }
        }
        let pattern: Vec<bool> = groups.iter().map(|g| g.1).collect();
        let size = |i: usize| groups[i].0;
        match pattern.as_slice() {
            [] => ReduceGeom::Oni { outer: 1, n: 1, inner: 1 },
            [true] => ReduceGeom::Oni { outer: 1, n: size(0), inner: 1 },
            [false] => ReduceGeom::Oni { outer: size(0), n: 1, inner: 1 },
            [false, true] => ReduceGeom::Oni { outer: size(0), n: size(1), inner: 1 },
            [true, false] => ReduceGeom::Oni { outer: 1, n: size(0), inner: size(1) },
            [false, true, false] => ReduceGeom::Oni { outer: size(0), n: size(1), inner: size(2) },
            _ => {
                let mut strides = vec![1usize; groups.len()];
                for i in (0..groups.len().saturating_sub(1)).rev() {
                    strides[i] = strides[i + 1] * groups[i + 1].0;
                }
                let pick = |r: bool| -> (Vec<usize>, Vec<usize>) {
                    groups.iter().zip(&strides).filter(|(g, _)| g.1 == r).map(|(g, &s)| (g.0, s)).unzip()
                };
                let (kept, kept_strides) = pick(false);
                let (reduced, reduced_strides) = pick(true);
                ReduceGeom::Generic { kept, kept_strides, reduced, reduced_strides }
            }
        }
    }

    /// The number of elements reduced into each output.
    pub fn count(&self) -> usize {
        match self {
            ReduceGeom::Oni { n, .. } => *n,
            ReduceGeom::Generic { reduced, .. } => reduced.iter().product(),
        }
    }
}

/// Folds a contiguous run with four independent accumulators (lets the loop pipeline).
#[inline(always)]
fn fold_row<T: Copy, R: Reducer<T>>(x: &[T]) -> R::Acc {
    let mut acc = [R::init(); 4];
    let chunks = x.chunks_exact(4);
    let rem = chunks.remainder();
    for c in chunks {
        for l in 0..4 {
            acc[l] = R::step(acc[l], c[l]);
        }
    }
    let mut a = R::combine(R::combine(acc[0], acc[1]), R::combine(acc[2], acc[3]));
    for &v in rem {
        a = R::step(a, v);
    }
    a
}

/// Column block width for reductions over a non-innermost axis.
const COLS: usize = 64;

/// Reduces the `n × inner` block `x` over its rows into `out` (`inner` values).
#[inline(always)]
fn reduce_block_cols<T: Copy, R: Reducer<T>>(x: &[T], n: usize, inner: usize, out: &mut [T], c0: usize, count: usize) {
    let w = out.len();
    let mut acc = [R::init(); COLS];
    for r in 0..n {
        let row = &x[r * inner + c0..r * inner + c0 + w];
        for (a, &v) in acc.iter_mut().zip(row) {
            *a = R::step(*a, v);
        }
    }
    for (o, &a) in out.iter_mut().zip(acc.iter()) {
        *o = R::finish(a, count);
    }
}

/// Runs reduction `R` on `x` into `out` with geometry `g`.
pub fn reduce<T: Copy + Send + Sync, R: Reducer<T>>(g: &ReduceGeom, x: &[T], out: &mut [T]) {
    let count = g.count();
    match *g {
        ReduceGeom::Oni { outer, n, inner: 1 } => {
            if outer == 1 && n > 2 * CHEAP_CHUNK {
                // One long row: partial folds in parallel, merged in a fixed order.
                let parts: Vec<R::Acc> = crate::par::map_chunks(x, CHEAP_CHUNK, R::fold);
                let acc = parts.into_iter().fold(R::init(), R::combine);
                out[0] = R::finish(acc, count);
                return;
            }
            let rows = (CHEAP_CHUNK / n.max(1)).max(1);
            let body = |(o, xi): (&mut [T], &[T])| {
                for (o, row) in o.iter_mut().zip(xi.chunks_exact(n)) {
                    *o = R::finish(R::fold(row), count);
                }
            };
            if outer > rows {
                crate::par::zip_chunks(out, rows, x, rows * n, |_, o, xs| body((o, xs)));
            } else {
                body((out, x));
            }
        }
        ReduceGeom::Oni { outer: _, n, inner } => {
            let block = n * inner;
            let per_outer = |(o, xb): (&mut [T], &[T])| {
                // `simd`: the column sums vectorize (an nhwc global pool is one of these).
                if block > CHEAP_CHUNK && inner > COLS {
                    crate::par::chunks(o, COLS, |b, oc| {
                        simd(
                            #[inline(always)]
                            || reduce_block_cols::<T, R>(xb, n, inner, oc, b * COLS, count),
                        )
                    });
                } else {
                    for (b, oc) in o.chunks_mut(COLS).enumerate() {
                        simd(
                            #[inline(always)]
                            || reduce_block_cols::<T, R>(xb, n, inner, oc, b * COLS, count),
                        );
                    }
                }
            };
            if out.len() > CHEAP_CHUNK / 8 || x.len() > CHEAP_CHUNK {
                crate::par::zip_chunks(out, inner, x, block, |_, o, xs| per_outer((o, xs)));
            } else {
                out.chunks_mut(inner).zip(x.chunks(block)).for_each(per_outer);
            }
        }
        ReduceGeom::Generic { ref kept, ref kept_strides, ref reduced, ref reduced_strides } => {
            let one = |i: usize| -> T {
                // Offset of output element i.
                let mut rem = i;
                let mut base = 0;
                for d in (0..kept.len()).rev() {
                    base += (rem % kept[d]) * kept_strides[d];
                    rem /= kept[d];
                }
                let mut acc = R::init();
                let mut idx: SmallVec<[usize; 8]> = SmallVec::from_elem(0, reduced.len());
                let last = reduced.len() - 1;
                let mut off = base;
                loop {
                    let (len, st) = (reduced[last], reduced_strides[last]);
                    for j in 0..len {
                        acc = R::step(acc, x[off + j * st]);
                    }
                    let mut d = last;
                    loop {
                        if d == 0 {
                            return R::finish(acc, count);
                        }
                        d -= 1;
                        idx[d] += 1;
                        off += reduced_strides[d];
                        if idx[d] < reduced[d] {
                            break;
                        }
                        off -= reduced_strides[d] * idx[d];
                        idx[d] = 0;
                    }
                }
            };
            if x.len() > CHEAP_CHUNK {
                crate::par::chunks(out, 1, |i, o| o[0] = one(i));
            } else {
                for (i, o) in out.iter_mut().enumerate() {
                    *o = one(i);
                }
            }
        }
    }
}

/// Partial sums of [`sum_row`]: two AVX-512 vectors of f64.
const SUM_LANES: usize = 16;

/// Σ x of a contiguous float32 row, in f64 like [`FSum`], with [`SUM_LANES`] independent
/// partial sums so that the loop vectorizes and pipelines (the four-accumulator fold is one
/// latency-bound f64 add per four elements: EfficientNet-B0's global average pools, reduceMean
/// over 144 × 56², took 96 µs against ORT's 37). Only the order of the f64 additions differs
/// from [`FSum`]'s: each f64 partial sum of f32 values is far inside f32's rounding.
#[inline(always)]
fn sum_row(x: &[f32]) -> f64 {
    let mut acc = [0f64; SUM_LANES];
    let chunks = x.chunks_exact(SUM_LANES);
    let rem = chunks.remainder();
    for c in chunks {
        for l in 0..SUM_LANES {
            acc[l] += f64::from(c[l]);
        }
    }
    let mut s = acc.iter().sum::<f64>();
    for &v in rem {
        s += f64::from(v);
    }
    s
}

/// The row fold of [`FSum`] and [`FMean`]: float32 rows with `sum_row` (16 partial sums),
/// float16 rows with the reducer's own four-accumulator fold.
#[inline(always)]
fn sum_fold<T: FloatElem, R: Reducer<T, Acc = f64>>(x: &[T]) -> f64 {
    match T::as_f32(x) {
        Some(x) => super::simd::simd(
            #[inline(always)]
            || sum_row(x),
        ),
        None => fold_row::<T, R>(x),
    }
}

/// Lanes of [`extreme_row`]: one AVX-512 vector.
const EXTREME_LANES: usize = 16;

/// The maximum (`MAX`) or minimum of a contiguous float32 row, NaN if any element is NaN:
/// [`EXTREME_LANES`] lanes of plain max / min with a separate NaN flag, so that the loop
/// vectorizes (the f64 reducer's NaN branches do not: 1 ns per element on magika's
/// `[1, 512, 508]` reduceMax, 248 µs → 18 µs this way). The value is the f64 reducer's: a max
/// or min of f32 values is exact in either width; only which of +0 and −0 is returned when
/// both occur may differ (they compare equal, and the spec does not order them).
#[inline(always)]
fn extreme_row<const MAX: bool>(x: &[f32]) -> f32 {
    let pick = |acc: f32, v: f32| if (MAX && v > acc) || (!MAX && v < acc) { v } else { acc };
    let init = if MAX { f32::NEG_INFINITY } else { f32::INFINITY };
    let mut acc = [init; EXTREME_LANES];
    let mut nan = [0u32; EXTREME_LANES];
    let chunks = x.chunks_exact(EXTREME_LANES);
    let rem = chunks.remainder();
    for c in chunks {
        for l in 0..EXTREME_LANES {
            nan[l] |= c[l].is_nan() as u32;
            acc[l] = pick(acc[l], c[l]);
        }
    }
    let mut r = acc.iter().fold(init, |a, &v| pick(a, v));
    let mut any_nan = nan.iter().any(|&f| f != 0);
    for &v in rem {
        any_nan |= v.is_nan();
        r = pick(r, v);
    }
    if any_nan {
        f32::NAN
    } else {
        r
    }
}

/// reduceMax (`MAX`) / reduceMin of float32 with an f32 accumulator (exact, NaN-propagating
/// like [`FMax`] / [`FMin`]), whose contiguous rows fold with `extreme_row` (16 lanes).
pub struct F32Extreme<const MAX: bool>;

impl<const MAX: bool> Reducer<f32> for F32Extreme<MAX> {
    type Acc = f32;
    #[inline(always)]
    fn init() -> f32 {
        if MAX {
            f32::NEG_INFINITY
        } else {
            f32::INFINITY
        }
    }
    #[inline(always)]
    fn step(acc: f32, x: f32) -> f32 {
        if acc.is_nan() || x.is_nan() {
            f32::NAN
        } else if (MAX && x > acc) || (!MAX && x < acc) {
            x
        } else {
            acc
        }
    }
    #[inline(always)]
    fn combine(a: f32, b: f32) -> f32 {
        Self::step(a, b)
    }
    #[inline(always)]
    fn finish(acc: f32, _count: usize) -> f32 {
        acc
    }
    #[inline(always)]
    fn fold(x: &[f32]) -> f32 {
        super::simd::simd(
            #[inline(always)]
            || extreme_row::<MAX>(x),
        )
    }
}

struct ReduceKernel {
    op: ReduceOp,
    data_type: DataType,
    geom: ReduceGeom,
}

fn reduce_float<T: FloatElem>(op: ReduceOp, g: &ReduceGeom, x: &[T], out: &mut [T]) {
    match op {
        ReduceOp::L1 => reduce::<T, FL1>(g, x, out),
        ReduceOp::L2 => reduce::<T, FL2>(g, x, out),
        ReduceOp::LogSum => reduce::<T, FLogSum>(g, x, out),
        ReduceOp::LogSumExp => reduce::<T, FLogSumExp>(g, x, out),
        ReduceOp::Max => reduce::<T, FMax>(g, x, out),
        ReduceOp::Mean => reduce::<T, FMean>(g, x, out),
        ReduceOp::Min => reduce::<T, FMin>(g, x, out),
        ReduceOp::Product => reduce::<T, FProduct>(g, x, out),
        ReduceOp::Sum => reduce::<T, FSum>(g, x, out),
        ReduceOp::SumSquare => reduce::<T, FSumSquare>(g, x, out),
    }
}

fn reduce_int<T: IntElem>(op: ReduceOp, g: &ReduceGeom, x: &[T], out: &mut [T]) {
    match op {
        ReduceOp::L1 => reduce::<T, IL1>(g, x, out),
        ReduceOp::Max => reduce::<T, IMax>(g, x, out),
        ReduceOp::Min => reduce::<T, IMin>(g, x, out),
        ReduceOp::Product => reduce::<T, IProduct>(g, x, out),
        ReduceOp::Sum => reduce::<T, ISum>(g, x, out),
        ReduceOp::SumSquare => reduce::<T, ISumSquare>(g, x, out),
        // Float-only (rejected in lower).
        ReduceOp::L2 | ReduceOp::LogSum | ReduceOp::LogSumExp | ReduceOp::Mean => {}
    }
}

impl Kernel for ReduceKernel {
    fn run(&self, inputs: &[Option<In<'_>>], outputs: &mut [Out<'_>]) -> webnn_core::Result<()> {
        let Some(x) = inputs[0] else { return Ok(()) };
        let out = &mut outputs[0];
        match self.data_type {
            DataType::Float32 => match self.op {
                ReduceOp::Max => reduce::<f32, F32Extreme<true>>(&self.geom, x.slice(), out.slice_mut()),
                ReduceOp::Min => reduce::<f32, F32Extreme<false>>(&self.geom, x.slice(), out.slice_mut()),
                _ => reduce_float::<f32>(self.op, &self.geom, x.slice(), out.slice_mut()),
            },
            DataType::Float16 => reduce_float::<f16>(self.op, &self.geom, x.slice(), out.slice_mut()),
            dt => with_int_type!(dt, T => reduce_int::<T>(self.op, &self.geom, x.slice(), out.slice_mut())),
        }
        Ok(())
    }
}

fn input_desc<'g>(op: &Operation, graph: &'g Graph) -> Result<&'g webnn_core::OperandDescriptor> {
    let id = op.input(0).ok_or_else(|| Error::operation(format!("{}: missing input", op.kind)))?;
    Ok(graph.descriptor(id))
}

/// Lowers the ten reductions.
pub fn lower(op: &Operation, graph: &Graph) -> Result<Box<dyn Kernel>> {
    let rop = ReduceOp::of(op.kind).ok_or_else(|| Error::operation(format!("{} is not a reduction", op.kind)))?;
    let Attrs::Reduce { axes, .. } = &op.attrs else {
        return Err(Error::operation(format!("{}: missing axes", op.kind)));
    };
    let input = input_desc(op, graph)?;
    let data_type = input.data_type;
    let float_only = matches!(rop, ReduceOp::L2 | ReduceOp::LogSum | ReduceOp::LogSumExp | ReduceOp::Mean);
    if float_only && !data_type.is_float() {
        return Err(Error::not_supported(format!("{} on {}", op.kind, data_type.as_str())));
    }
    if axes.iter().any(|&a| a as usize >= input.rank()) {
        return Err(Error::operation(format!("{}: axis out of range", op.kind)));
    }
    Ok(Box::new(ReduceKernel { op: rop, data_type, geom: ReduceGeom::new(&input.shape, axes) }))
}

/// `[outer, n, inner]` around one axis.
fn around_axis(shape: &[u32], axis: usize) -> (usize, usize, usize) {
    let prod = |s: &[u32]| s.iter().map(|&d| d as usize).product::<usize>();
    (prod(&shape[..axis]), shape[axis] as usize, prod(&shape[axis + 1..]))
}

/// argMin (`MAX == false`) or argMax along the middle axis of `[outer, n, inner]`, writing
/// indices through `put`.
pub fn arg_min_max<T: PartialOrd + Copy + Send + Sync, I: Copy + Send + Sync, const MAX: bool>(
    x: &[T],
    out: &mut [I],
    (outer, n, inner): (usize, usize, usize),
    put: impl Fn(usize) -> I + Sync + Send,
) {
    // `v` replaces the best so far `b`: strictly better, or the first NaN (`v != v`).
    #[allow(clippy::eq_op)]
    let better = |v: T, b: T| -> bool {
        #[allow(clippy::eq_op)]
        let (v_nan, b_nan) = (v != v, b != b);
        if b_nan {
            false
        } else if v_nan {
            true
        } else if MAX {
            v > b
        } else {
            v < b
        }
    };
    let block = |(o, xb): (&mut [I], &[T])| {
        if inner == 1 {
            let mut best = xb[0];
            let mut bi = 0;
            for (i, &v) in xb.iter().enumerate().skip(1) {
                if better(v, best) {
                    best = v;
                    bi = i;
                }
            }
            o[0] = put(bi);
            return;
        }
        for (b, oc) in o.chunks_mut(COLS).enumerate() {
            let c0 = b * COLS;
            let w = oc.len();
            let mut best: [T; COLS] = [xb[c0]; COLS];
            best[..w].copy_from_slice(&xb[c0..c0 + w]);
            let mut bi = [0usize; COLS];
            for r in 1..n {
                let row = &xb[r * inner + c0..r * inner + c0 + w];
                for c in 0..w {
                    if better(row[c], best[c]) {
                        best[c] = row[c];
                        bi[c] = r;
                    }
                }
            }
            for (o, &i) in oc.iter_mut().zip(bi.iter()) {
                *o = put(i);
            }
        }
    };
    let _ = outer;
    if x.len() > CHEAP_CHUNK {
        crate::par::zip_chunks(out, inner, x, n * inner, |_, o, xs| block((o, xs)));
    } else {
        out.chunks_mut(inner).zip(x.chunks(n * inner)).for_each(block);
    }
}

struct ArgKernel {
    max: bool,
    data_type: DataType,
    out_type: DataType,
    geom: (usize, usize, usize),
}

impl Kernel for ArgKernel {
    fn run(&self, inputs: &[Option<In<'_>>], outputs: &mut [Out<'_>]) -> webnn_core::Result<()> {
        let Some(x) = inputs[0] else { return Ok(()) };
        let out = &mut outputs[0];
        let g = self.geom;
        crate::with_type!(self.data_type, T => {
            let x: &[T] = x.slice();
            match (self.out_type, self.max) {
                (DataType::Int64, true) => arg_min_max::<T, i64, true>(x, out.slice_mut(), g, |i| i as i64),
                (DataType::Int64, false) => arg_min_max::<T, i64, false>(x, out.slice_mut(), g, |i| i as i64),
                (_, true) => arg_min_max::<T, i32, true>(x, out.slice_mut(), g, |i| i as i32),
                (_, false) => arg_min_max::<T, i32, false>(x, out.slice_mut(), g, |i| i as i32),
            }
        });
        Ok(())
    }
}

/// Lowers argMin / argMax.
pub fn lower_arg(op: &Operation, graph: &Graph) -> Result<Box<dyn Kernel>> {
    let Attrs::ArgMinMax { axis, .. } = op.attrs else {
        return Err(Error::operation(format!("{}: missing axis", op.kind)));
    };
    let input = input_desc(op, graph)?;
    let out_type = graph.descriptor(op.outputs[0]).data_type;
    if axis as usize >= input.rank() || !matches!(out_type, DataType::Int32 | DataType::Int64) {
        return Err(Error::operation(format!("{}: bad axis or output type", op.kind)));
    }
    Ok(Box::new(ArgKernel {
        max: op.kind == OpKind::ArgMax,
        data_type: input.data_type,
        out_type,
        geom: around_axis(&input.shape, axis as usize),
    }))
}

/// cumulativeSum along the middle axis of `[outer, n, inner]` with the `Sum` reducer of `T`.
pub fn cumulative_sum<T: Copy + Send + Sync, R: Reducer<T>>(
    x: &[T],
    out: &mut [T],
    (_outer, n, inner): (usize, usize, usize),
    exclusive: bool,
    reversed: bool,
) {
    let block = |(o, xb): (&mut [T], &[T])| {
        let mut c0 = 0;
        while c0 < inner {
            let w = (inner - c0).min(COLS);
            let mut acc = [R::init(); COLS];
            for step in 0..n {
                let r = if reversed { n - 1 - step } else { step };
                let row = &xb[r * inner + c0..r * inner + c0 + w];
                let orow = &mut o[r * inner + c0..r * inner + c0 + w];
                for c in 0..w {
                    let next = R::step(acc[c], row[c]);
                    orow[c] = R::finish(if exclusive { acc[c] } else { next }, 1);
                    acc[c] = next;
                }
            }
            c0 += w;
        }
    };
    let block_len = n * inner;
    if x.len() > CHEAP_CHUNK {
        crate::par::zip_chunks(out, block_len, x, block_len, |_, o, xs| block((o, xs)));
    } else {
        out.chunks_mut(block_len).zip(x.chunks(block_len)).for_each(block);
    }
}

struct CumulativeSumKernel {
    data_type: DataType,
    geom: (usize, usize, usize),
    exclusive: bool,
    reversed: bool,
}

impl Kernel for CumulativeSumKernel {
    fn run(&self, inputs: &[Option<In<'_>>], outputs: &mut [Out<'_>]) -> webnn_core::Result<()> {
        let Some(x) = inputs[0] else { return Ok(()) };
        let out = &mut outputs[0];
        let (g, e, r) = (self.geom, self.exclusive, self.reversed);
        match self.data_type {
            DataType::Float32 => cumulative_sum::<f32, FSum>(x.slice(), out.slice_mut(), g, e, r),
            DataType::Float16 => cumulative_sum::<f16, FSum>(x.slice(), out.slice_mut(), g, e, r),
            dt => with_int_type!(dt, T => cumulative_sum::<T, ISum>(x.slice(), out.slice_mut(), g, e, r)),
        }
        Ok(())
    }
}

/// Lowers cumulativeSum.
pub fn lower_cumulative_sum(op: &Operation, graph: &Graph) -> Result<Box<dyn Kernel>> {
    let Attrs::CumulativeSum { axis, exclusive, reversed } = op.attrs else {
        return Err(Error::operation("cumulativeSum: missing attributes"));
    };
    let input = input_desc(op, graph)?;
    if axis as usize >= input.rank() {
        return Err(Error::operation("cumulativeSum: axis out of range"));
    }
    Ok(Box::new(CumulativeSumKernel {
        data_type: input.data_type,
        geom: around_axis(&input.shape, axis as usize),
        exclusive,
        reversed,
    }))
}

#[cfg(test)]
#[path = "reduction_tests.rs"]
mod tests;

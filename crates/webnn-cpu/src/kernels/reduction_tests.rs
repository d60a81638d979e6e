//! Tests of the reduction, argMin/argMax and cumulativeSum kernels against naive references:
//! every element is put in the bucket of its output (multi-index arithmetic), then the
//! reduction is applied to each bucket in f64 (floats) or i128 with wrapping (integers).

use super::*;
use crate::testing::{assert_close, decode, encode, round_to};
use crate::testing::{bytes_of, from_bytes, run_op};
use webnn_core::testing::Rng;
use webnn_core::OperandDescriptor;

fn count(shape: &[u32]) -> usize {
    shape.iter().map(|&d| d as usize).product()
}

/// Output flat index (keepDimensions layout: reduced coordinates dropped) of each input element.
fn buckets(shape: &[u32], axes: &[u32]) -> (Vec<usize>, usize) {
    let n = count(shape);
    let out_count: usize =
        shape.iter().enumerate().filter(|(d, _)| !axes.contains(&(*d as u32))).map(|(_, &s)| s as usize).product();
    let map = (0..n)
        .map(|i| {
            let mut rem = i;
            let mut idx = vec![0usize; shape.len()];
            for d in (0..shape.len()).rev() {
                idx[d] = rem % shape[d] as usize;
                rem /= shape[d] as usize;
            }
            let mut o = 0;
            for d in 0..shape.len() {
                if !axes.contains(&(d as u32)) {
                    o = o * shape[d] as usize + idx[d];
                }
            }
            o
        })
        .collect();
    (map, out_count)
}

fn group<T: Copy>(x: &[T], shape: &[u32], axes: &[u32]) -> Vec<Vec<T>> {
    let (map, out_count) = buckets(shape, axes);
    let mut g = vec![Vec::new(); out_count];
    for (i, &o) in map.iter().enumerate() {
        g[o].push(x[i]);
    }
    g
}

fn float_ref(op: OpKind, v: &[f64]) -> f64 {
    let sum: f64 = v.iter().sum();
    match op {
        OpKind::ReduceL1 => v.iter().map(|x| x.abs()).sum(),
        OpKind::ReduceL2 => v.iter().map(|x| x * x).sum::<f64>().sqrt(),
        OpKind::ReduceLogSum => sum.ln(),
        OpKind::ReduceLogSumExp => {
            let m = v.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            m + v.iter().map(|x| (x - m).exp()).sum::<f64>().ln()
        }
        OpKind::ReduceMax => v.iter().cloned().fold(f64::NEG_INFINITY, f64::max),
        OpKind::ReduceMean => sum / v.len() as f64,
        OpKind::ReduceMin => v.iter().cloned().fold(f64::INFINITY, f64::min),
        OpKind::ReduceProduct => v.iter().product(),
        OpKind::ReduceSum => sum,
        _ => v.iter().map(|x| x * x).sum(),
    }
}

/// The ten reductions (the ops of the spec's `reduce` section).
fn reductions() -> impl Iterator<Item = OpKind> {
    OpKind::in_spec_section("reduce")
}

const SHAPES: &[&[u32]] = &[&[], &[1], &[5], &[2, 3], &[3, 1, 4], &[2, 3, 4, 5], &[1, 4, 1, 3, 2], &[3, 70, 2]];

/// Every subset of the axes of `rank`.
fn subsets(rank: usize) -> Vec<Vec<u32>> {
    (0..1u32 << rank).map(|m| (0..rank as u32).filter(|a| m & (1 << a) != 0).collect()).collect()
}

fn run_reduce(kind: OpKind, dt: DataType, shape: &[u32], axes: &[u32], bytes: Vec<u8>) -> Vec<u8> {
    let out_shape: Vec<u32> =
        shape.iter().enumerate().filter(|(d, _)| !axes.contains(&(*d as u32))).map(|(_, &s)| s).collect();
    run_op(
        kind,
        &[Some((OperandDescriptor::new(dt, shape.to_vec()), bytes))],
        Attrs::Reduce { axes: axes.to_vec(), keep_dimensions: false },
        &[OperandDescriptor::new(dt, out_shape)],
    )
    .remove(0)
}

#[test]
fn float_reductions_over_every_axis_subset() {
    assert_eq!(reductions().count(), 10);
    let mut rng = Rng::new(13);
    for dt in [DataType::Float32, DataType::Float16] {
        for &shape in SHAPES {
            for axes in subsets(shape.len()) {
                for kind in reductions() {
                    let (lo, hi) = match kind {
                        OpKind::ReduceLogSum => (0.1, 5.0),
                        OpKind::ReduceProduct => (-1.5, 1.5),
                        _ => (-10.0, 10.0),
                    };
                    let x: Vec<f64> = rng.vec(count(shape), lo, hi).iter().map(|&v| round_to(dt, v)).collect();
                    let got = decode(dt, &run_reduce(kind, dt, shape, &axes, encode(dt, &x)));
                    let want: Vec<f64> = group(&x, shape, &axes).iter().map(|v| float_ref(kind, v)).collect();
                    // One rounding of an f64 result (plus the f64 log/exp/sqrt error).
                    assert_close(dt, &got, &want, 1, &format!("{kind} {dt:?} {shape:?} axes {axes:?}"));
                }
            }
        }
    }
}

#[test]
fn empty_axes_apply_the_function_element_wise() {
    let x = [-2.0, 0.5, 3.0, -0.25];
    let dt = DataType::Float32;
    let got = |k| decode(dt, &run_reduce(k, dt, &[2, 2], &[], encode(dt, &x)));
    assert_eq!(got(OpKind::ReduceL1), [2.0, 0.5, 3.0, 0.25]);
    assert_eq!(got(OpKind::ReduceSumSquare), [4.0, 0.25, 9.0, 0.0625]);
    assert_eq!(got(OpKind::ReduceLogSumExp), x);
    assert_eq!(got(OpKind::ReduceMean), x);
    assert_eq!(got(OpKind::ReduceL2), [2.0, 0.5, 3.0, 0.25]);
}

#[test]
fn float_reductions_special_values() {
    let dt = DataType::Float32;
    let r = |k, x: &[f64]| decode(dt, &run_reduce(k, dt, &[x.len() as u32], &[0], encode(dt, x)))[0];
    assert!(r(OpKind::ReduceMax, &[1.0, f64::NAN, 3.0]).is_nan());
    assert!(r(OpKind::ReduceMin, &[1.0, f64::NAN, 3.0]).is_nan());
    assert!(r(OpKind::ReduceSum, &[1.0, f64::NAN]).is_nan());
    assert!(r(OpKind::ReduceLogSumExp, &[1.0, f64::NAN, 2.0]).is_nan());
    // log-sum-exp: stable for huge values, exact with infinities.
    let big = r(OpKind::ReduceLogSumExp, &[1000.0, 1000.0]);
    assert_close(dt, &[big], &[1000.0 + 2f64.ln()], 1, "lse big");
    assert_eq!(r(OpKind::ReduceLogSumExp, &[f64::INFINITY, f64::INFINITY, 1.0]), f64::INFINITY);
    assert_eq!(r(OpKind::ReduceLogSumExp, &[f64::NEG_INFINITY, f64::NEG_INFINITY]), f64::NEG_INFINITY);
    assert_eq!(r(OpKind::ReduceLogSumExp, &[f64::NEG_INFINITY, 0.0]), 0.0);
    assert_eq!(r(OpKind::ReduceMax, &[f64::NEG_INFINITY, -1e30]), -1e30f32 as f64);
    assert_eq!(r(OpKind::ReduceLogSum, &[0.0, 0.0]), f64::NEG_INFINITY);
    // float32 sums beyond f32 range that come back into range stay exact thanks to f64.
    assert_eq!(r(OpKind::ReduceSum, &[3e38, 3e38, -3e38, -3e38, 1.0]), 1.0);
    // reduceSum of 0-D: the value itself.
    let got = decode(dt, &run_reduce(OpKind::ReduceSum, dt, &[], &[], encode(dt, &[4.5])));
    assert_eq!(got, [4.5]);
}

#[test]
fn float32_max_and_min_rows_vectorized_match_naive_and_propagate_nan() {
    // Rows through the 16-lane kernel (whole vectors and remainders), a NaN in a vector lane
    // or in the remainder of the last row only, and one row long enough to be split across
    // tasks.
    let dt = DataType::Float32;
    let mut rng = Rng::new(29);
    let big = 3 * crate::kernels::unary::CHEAP_CHUNK + 7;
    for &(rows, n) in &[(5usize, 1usize), (4, 15), (6, 16), (3, 33), (7, 100), (1, big)] {
        for nan_at in [None, Some(0), Some(n / 2), Some(n - 1)] {
            let mut x: Vec<f64> = rng.vec(rows * n, -100.0, 100.0).iter().map(|&v| round_to(dt, v)).collect();
            if let Some(j) = nan_at {
                x[(rows - 1) * n + j] = f64::NAN;
            }
            for (kind, max) in [(OpKind::ReduceMax, true), (OpKind::ReduceMin, false)] {
                let got = decode(dt, &run_reduce(kind, dt, &[rows as u32, n as u32], &[1], encode(dt, &x)));
                for (r, &g) in got.iter().enumerate() {
                    let row = &x[r * n..][..n];
                    if row.iter().any(|v| v.is_nan()) {
                        assert!(g.is_nan(), "{kind} rows {rows} n {n} row {r}: {g}");
                        continue;
                    }
                    let pick = |a: f64, v: f64| if max { a.max(v) } else { a.min(v) };
                    let want = row.iter().fold(if max { f64::NEG_INFINITY } else { f64::INFINITY }, |a, &v| pick(a, v));
                    assert_eq!(g, want, "{kind} rows {rows} n {n} row {r}");
                }
            }
        }
    }
}

#[test]
fn float32_sum_and_mean_rows_vectorized_match_naive() {
    // Rows through the 16-sum kernel (whole chunks and remainders), infinities and NaN in a
    // chunk or in the remainder, and one row long enough to be split across tasks; the
    // reference is a plain sequential f64 sum, rounded once.
    let dt = DataType::Float32;
    let mut rng = Rng::new(31);
    let big = 3 * crate::kernels::unary::CHEAP_CHUNK + 7;
    for &(rows, n) in &[(5usize, 1usize), (4, 15), (6, 16), (3, 33), (7, 100), (2, 3136), (1, big)] {
        for special in [None, Some((0, f64::INFINITY)), Some((n - 1, f64::NAN)), Some((n / 2, f64::NEG_INFINITY))] {
            let mut x: Vec<f64> = rng.vec(rows * n, -100.0, 100.0).iter().map(|&v| round_to(dt, v)).collect();
            if let Some((j, v)) = special {
                x[(rows - 1) * n + j] = v;
            }
            for (kind, mean) in [(OpKind::ReduceSum, false), (OpKind::ReduceMean, true)] {
                let got = decode(dt, &run_reduce(kind, dt, &[rows as u32, n as u32], &[1], encode(dt, &x)));
                for (r, &g) in got.iter().enumerate() {
                    let sum = x[r * n..][..n].iter().fold(0.0, |a, &v| a + v);
                    let want = (if mean { sum / n as f64 } else { sum }) as f32 as f64;
                    if want.is_nan() {
                        assert!(g.is_nan(), "{kind} rows {rows} n {n} row {r}: {g}");
                    } else {
                        assert_close(dt, &[g], &[want], 1, &format!("{kind} rows {rows} n {n} row {r}"));
                    }
                }
            }
        }
    }
}

/// Typed integer reference helpers.
trait TestInt: bytemuck::Pod + Into<i128> + std::fmt::Debug + PartialEq {
    fn wrap(v: i128) -> Self;
}
macro_rules! test_int {
    ($($t:ty),+) => {$(impl TestInt for $t { fn wrap(v: i128) -> Self { v as $t } })+};
}
test_int!(i8, u8, i32, u32, i64, u64);

fn int_ref<T: TestInt>(op: OpKind, v: &[T]) -> T {
    let w: Vec<i128> = v.iter().map(|&x| x.into()).collect();
    let wrap = T::wrap;
    // Abs before wrapping: |MIN| wraps to MIN in the type, as the kernel does.
    match op {
        OpKind::ReduceL1 => wrap(w.iter().fold(0i128, |a, &x| a.wrapping_add(T::wrap(x.abs()).into()))),
        OpKind::ReduceMax => wrap(*w.iter().max().unwrap()),
        OpKind::ReduceMin => wrap(*w.iter().min().unwrap()),
        OpKind::ReduceProduct => wrap(w.iter().fold(1i128, |a, &x| a.wrapping_mul(x))),
        OpKind::ReduceSum => wrap(w.iter().fold(0i128, |a, &x| a.wrapping_add(x))),
        _ => wrap(w.iter().fold(0i128, |a, &x| a.wrapping_add(x.wrapping_mul(x)))),
    }
}

fn int_case<T: TestInt>(dt: DataType, values: &[T], ops: &[OpKind]) {
    for &shape in SHAPES {
        let n = count(shape);
        let x: Vec<T> = (0..n).map(|i| values[(i * 7 + i / 3) % values.len()]).collect();
        for axes in subsets(shape.len()) {
            for &kind in ops {
                let got: Vec<T> = from_bytes(&run_reduce(kind, dt, shape, &axes, bytes_of(&x)));
                let want: Vec<T> = group(&x, shape, &axes).iter().map(|v| int_ref(kind, v)).collect();
                assert_eq!(got, want, "{kind} {dt:?} {shape:?} axes {axes:?}");
            }
        }
    }
}

const INT_OPS: [OpKind; 6] = [
    OpKind::ReduceL1,
    OpKind::ReduceMax,
    OpKind::ReduceMin,
    OpKind::ReduceProduct,
    OpKind::ReduceSum,
    OpKind::ReduceSumSquare,
];

#[test]
fn integer_reductions_wrap() {
    int_case::<i32>(DataType::Int32, &[i32::MAX, -3, 7, i32::MIN, 0, 65536, -1, 2], &INT_OPS);
    int_case::<u32>(DataType::Uint32, &[u32::MAX, 3, 7, 0, 65536, 1, 2], &INT_OPS);
    int_case::<i64>(DataType::Int64, &[i64::MAX, -3, 7, i64::MIN, 0, 1 << 40, -1, 2], &INT_OPS);
    int_case::<u64>(DataType::Uint64, &[u64::MAX, 3, 7, 0, 1 << 40, 1, 2], &INT_OPS);
    // reduceMax/Min accept every type.
    int_case::<i8>(DataType::Int8, &[i8::MAX, -3, 7, i8::MIN, 0, -1], &[OpKind::ReduceMax, OpKind::ReduceMin]);
    int_case::<u8>(DataType::Uint8, &[u8::MAX, 3, 7, 0, 1], &[OpKind::ReduceMax, OpKind::ReduceMin]);
}

#[test]
fn geometry_merges_dimensions() {
    assert_eq!(ReduceGeom::new(&[2, 3, 4], &[1]), ReduceGeom::Oni { outer: 2, n: 3, inner: 4 });
    assert_eq!(ReduceGeom::new(&[2, 3, 4], &[1, 2]), ReduceGeom::Oni { outer: 2, n: 12, inner: 1 });
    assert_eq!(ReduceGeom::new(&[2, 1, 3, 4], &[0, 1]), ReduceGeom::Oni { outer: 1, n: 2, inner: 12 });
    assert_eq!(ReduceGeom::new(&[2, 3, 4], &[]), ReduceGeom::Oni { outer: 24, n: 1, inner: 1 });
    assert_eq!(ReduceGeom::new(&[1, 1], &[0, 1]), ReduceGeom::Oni { outer: 1, n: 1, inner: 1 });
    assert_eq!(
        ReduceGeom::new(&[2, 3, 1, 4], &[0, 2, 3]),
        ReduceGeom::Generic { kept: vec![3], kept_strides: vec![4], reduced: vec![2, 4], reduced_strides: vec![12, 1] }
    );
    assert_eq!(ReduceGeom::new(&[2, 3, 4], &[0, 2]).count(), 8);
}

#[test]
fn large_reductions_use_the_parallel_paths() {
    let mut rng = Rng::new(17);
    let cases: &[(&[u32], &[u32])] = &[
        (&[70001], &[0]),         // one long row, split in parallel
        (&[1, 3, 70001], &[2]),   // outer 3, long rows
        (&[900, 77], &[1]),       // many short rows
        (&[3, 200, 130], &[1]),   // inner > 64: column blocks
        (&[2, 40000, 3], &[1]),   // large block, small inner
        (&[1, 600, 200], &[1]),   // one large block with wide inner: parallel column blocks
        (&[30, 50, 40], &[0, 2]), // generic walk
    ];
    for &(shape, axes) in cases {
        let x: Vec<f64> = rng.vec(count(shape), -4.0, 4.0).iter().map(|&v| v.round()).collect();
        for dt in [DataType::Float32, DataType::Int32] {
            for kind in [OpKind::ReduceSum, OpKind::ReduceMax, OpKind::ReduceL1] {
                let got = decode(dt, &run_reduce(kind, dt, shape, axes, encode(dt, &x)));
                let want: Vec<f64> = group(&x, shape, axes).iter().map(|v| float_ref(kind, v)).collect();
                assert_eq!(got, want, "{kind} {dt:?} {shape:?} {axes:?}");
            }
        }
        let dt = DataType::Float32;
        let xs: Vec<f64> = x.iter().map(|v| v / 4.0).collect();
        let got = decode(dt, &run_reduce(OpKind::ReduceLogSumExp, dt, shape, axes, encode(dt, &xs)));
        let want: Vec<f64> = group(&xs, shape, axes).iter().map(|v| float_ref(OpKind::ReduceLogSumExp, v)).collect();
        assert_close(dt, &got, &want, 1, &format!("lse {shape:?}"));
    }
}

/// Naive argMin/argMax: first index of the extreme; the first NaN wins.
fn arg_ref(x: &[f64], shape: &[u32], axis: usize, max: bool) -> Vec<i64> {
    let outer: usize = shape[..axis].iter().map(|&d| d as usize).product();
    let n = shape[axis] as usize;
    let inner: usize = shape[axis + 1..].iter().map(|&d| d as usize).product();
    let mut out = Vec::new();
    for o in 0..outer {
        for c in 0..inner {
            let col: Vec<f64> = (0..n).map(|r| x[(o * n + r) * inner + c]).collect();
            let idx = if let Some(p) = col.iter().position(|v| v.is_nan()) {
                p
            } else {
                let best = if max {
                    col.iter().cloned().fold(f64::NEG_INFINITY, f64::max)
                } else {
                    col.iter().cloned().fold(f64::INFINITY, f64::min)
                };
                col.iter().position(|&v| v == best).unwrap()
            };
            out.push(idx as i64);
        }
    }
    out
}

#[test]
fn arg_min_max_every_type_axis_and_output_type() {
    use DataType::*;
    let mut rng = Rng::new(23);
    let shapes: &[&[u32]] = &[&[1], &[6], &[3, 4], &[2, 1, 5], &[2, 3, 70], &[4, 3, 2, 3]];
    for dt in [Float32, Float16, Int32, Uint32, Int64, Uint64, Int8, Uint8] {
        for &shape in shapes {
            for axis in 0..shape.len() {
                // Few distinct values: many ties.
                let x: Vec<f64> = (0..count(shape)).map(|_| (rng.next_u64() % 4) as f64).collect();
                for (kind, max) in [(OpKind::ArgMin, false), (OpKind::ArgMax, true)] {
                    for out_dt in [Int32, Int64] {
                        let out_shape: Vec<u32> =
                            shape.iter().enumerate().filter(|(d, _)| *d != axis).map(|(_, &s)| s).collect();
                        let out = run_op(
                            kind,
                            &[Some((OperandDescriptor::new(dt, shape.to_vec()), encode(dt, &x)))],
                            Attrs::ArgMinMax { axis: axis as u32, keep_dimensions: false },
                            &[OperandDescriptor::new(out_dt, out_shape)],
                        );
                        let got: Vec<i64> = decode(out_dt, &out[0]).iter().map(|&v| v as i64).collect();
                        assert_eq!(
                            got,
                            arg_ref(&x, shape, axis, max),
                            "{kind} {dt:?} {shape:?} axis {axis} -> {out_dt:?}"
                        );
                    }
                }
            }
        }
    }
    // NaN: the first NaN wins for both.
    let x = [1.0, f64::NAN, 5.0, f64::NAN, -1.0];
    for (kind, max) in [(OpKind::ArgMin, false), (OpKind::ArgMax, true)] {
        let out = run_op(
            kind,
            &[Some((OperandDescriptor::new(Float32, vec![5]), encode(Float32, &x)))],
            Attrs::ArgMinMax { axis: 0, keep_dimensions: false },
            &[OperandDescriptor::new(Int32, vec![])],
        );
        assert_eq!(from_bytes::<i32>(&out[0]), [1]);
        assert_eq!(arg_ref(&x, &[5], 0, max), [1]);
    }
    // 64-bit values beyond f64 precision.
    let out = run_op(
        OpKind::ArgMax,
        &[Some((OperandDescriptor::new(Uint64, vec![3]), bytes_of(&[u64::MAX - 1, u64::MAX, u64::MAX - 2])))],
        Attrs::ArgMinMax { axis: 0, keep_dimensions: true },
        &[OperandDescriptor::new(Int64, vec![1])],
    );
    assert_eq!(from_bytes::<i64>(&out[0]), [1]);
}

/// Naive cumulative sum along `axis` in i128 (wrapped by the caller) or f64.
fn cumsum_ref(x: &[f64], shape: &[u32], axis: usize, exclusive: bool, reversed: bool) -> Vec<f64> {
    let n = shape[axis] as usize;
    let inner: usize = shape[axis + 1..].iter().map(|&d| d as usize).product();
    let mut out = vec![0.0; x.len()];
    for (i, o) in out.iter_mut().enumerate() {
        let r = (i / inner) % n;
        let base = i - r * inner;
        let range: Vec<usize> = if reversed {
            if exclusive {
                (r + 1..n).collect()
            } else {
                (r..n).collect()
            }
        } else if exclusive {
            (0..r).collect()
        } else {
            (0..=r).collect()
        };
        *o = range.iter().map(|&k| x[base + k * inner]).sum();
    }
    out
}

#[test]
fn cumulative_sum_every_option_axis_and_type() {
    use DataType::*;
    let mut rng = Rng::new(29);
    let shapes: &[&[u32]] = &[&[1], &[7], &[3, 4], &[2, 1, 5], &[2, 3, 70], &[2, 3, 2, 4]];
    for dt in [Float32, Float16, Int32, Uint32, Int64, Uint64] {
        for &shape in shapes {
            for axis in 0..shape.len() {
                let x: Vec<f64> = (0..count(shape)).map(|_| (rng.next_u64() % 9) as f64).collect();
                for exclusive in [false, true] {
                    for reversed in [false, true] {
                        let out = run_op(
                            OpKind::CumulativeSum,
                            &[Some((OperandDescriptor::new(dt, shape.to_vec()), encode(dt, &x)))],
                            Attrs::CumulativeSum { axis: axis as u32, exclusive, reversed },
                            &[OperandDescriptor::new(dt, shape.to_vec())],
                        );
                        let want = cumsum_ref(&x, shape, axis, exclusive, reversed);
                        assert_close(
                            dt,
                            &decode(dt, &out[0]),
                            &want,
                            0,
                            &format!("{dt:?} {shape:?} axis {axis} ex {exclusive} rev {reversed}"),
                        );
                    }
                }
            }
        }
    }
    // The spec's examples.
    let run = |exclusive, reversed| {
        let out = run_op(
            OpKind::CumulativeSum,
            &[Some((OperandDescriptor::new(Int32, vec![4]), bytes_of(&[1i32, 2, 3, 4])))],
            Attrs::CumulativeSum { axis: 0, exclusive, reversed },
            &[OperandDescriptor::new(Int32, vec![4])],
        );
        from_bytes::<i32>(&out[0])
    };
    assert_eq!(run(false, false), [1, 3, 6, 10]);
    assert_eq!(run(true, false), [0, 1, 3, 6]);
    assert_eq!(run(false, true), [10, 9, 7, 4]);
    assert_eq!(run(true, true), [9, 7, 4, 0]);
    // Integer wrap.
    let out = run_op(
        OpKind::CumulativeSum,
        &[Some((OperandDescriptor::new(Uint32, vec![3]), bytes_of(&[u32::MAX, 2u32, 3])))],
        Attrs::CumulativeSum { axis: 0, exclusive: false, reversed: false },
        &[OperandDescriptor::new(Uint32, vec![3])],
    );
    assert_eq!(from_bytes::<u32>(&out[0]), [u32::MAX, 1, 4]);
    // Float32 prefix sums with cancellation stay exact (f64 running sum).
    let out = run_op(
        OpKind::CumulativeSum,
        &[Some((OperandDescriptor::new(Float32, vec![4]), bytes_of(&[1e8f32, 1.0, -1e8, 0.5])))],
        Attrs::CumulativeSum { axis: 0, exclusive: false, reversed: false },
        &[OperandDescriptor::new(Float32, vec![4])],
    );
    assert_eq!(from_bytes::<f32>(&out[0]), [1e8, 1e8, 1.0, 1.5]);
}

#[test]
fn large_cumulative_sum_and_arg_max() {
    let shape = [40u32, 1000, 3];
    let x: Vec<f64> = (0..count(&shape)).map(|i| ((i * 7919) % 13) as f64 - 6.0).collect();
    for axis in 0..3 {
        let out = run_op(
            OpKind::CumulativeSum,
            &[Some((OperandDescriptor::new(DataType::Int64, shape.to_vec()), encode(DataType::Int64, &x)))],
            Attrs::CumulativeSum { axis, exclusive: axis == 1, reversed: axis == 2 },
            &[OperandDescriptor::new(DataType::Int64, shape.to_vec())],
        );
        assert_eq!(decode(DataType::Int64, &out[0]), cumsum_ref(&x, &shape, axis as usize, axis == 1, axis == 2));
        let out_shape: Vec<u32> =
            shape.iter().enumerate().filter(|(d, _)| *d != axis as usize).map(|(_, &s)| s).collect();
        let out = run_op(
            OpKind::ArgMax,
            &[Some((OperandDescriptor::new(DataType::Float32, shape.to_vec()), encode(DataType::Float32, &x)))],
            Attrs::ArgMinMax { axis, keep_dimensions: false },
            &[OperandDescriptor::new(DataType::Int32, out_shape)],
        );
        let got: Vec<i64> = from_bytes::<i32>(&out[0]).iter().map(|&v| v as i64).collect();
        assert_eq!(got, arg_ref(&x, &shape, axis as usize, true));
    }
}

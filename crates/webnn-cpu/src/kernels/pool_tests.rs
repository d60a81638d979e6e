//! Pooling against a naive reference: every kind, both layouts, ceil-rounded outputs,
//! padding, dilations, every data type of maxPool2d, float16 average/L2.

use super::*;
use crate::testing::constant_operands::{assert_close, pseudo, run_float, run_op_const, via_f16};
use webnn_core::OperandDescriptor;

#[derive(Clone, Copy, Debug)]
struct P {
    n: usize,
    c: usize,
    h: usize,
    w: usize,
    oh: usize,
    ow: usize,
    window: [usize; 2],
    strides: [usize; 2],
    dilations: [usize; 2],
    padding: [usize; 4],
}

/// Two values, along the height and the width.
type Hw = [usize; 2];

impl P {
    /// A case from the input shape `x` = `[n, c, h, w]`, the output's `o` = `[oh, ow]`, the
    /// window, strides `s`, dilations `d` and padding `p` = `[beginH, endH, beginW, endW]`.
    const fn new(x: [usize; 4], o: Hw, window: Hw, s: Hw, d: Hw, p: [usize; 4]) -> P {
        let ([n, c, h, w], [oh, ow]) = (x, o);
        P { n, c, h, w, oh, ow, window, strides: s, dilations: d, padding: p }
    }
}

/// Naive nchw pooling: kind 0 average (real elements only, decisions.md D15), 1 L2, 2 max.
fn pool_ref(p: &P, kind: u8, x: &[f64]) -> Vec<f64> {
    let mut out = Vec::new();
    for plane in 0..p.n * p.c {
        for y in 0..p.oh {
            for xx in 0..p.ow {
                let mut vals = Vec::new();
                for kh in 0..p.window[0] {
                    for kw in 0..p.window[1] {
                        let ih = (y * p.strides[0] + kh * p.dilations[0]) as isize - p.padding[0] as isize;
                        let iw = (xx * p.strides[1] + kw * p.dilations[1]) as isize - p.padding[2] as isize;
                        if ih >= 0 && iw >= 0 && (ih as usize) < p.h && (iw as usize) < p.w {
                            vals.push(x[(plane * p.h + ih as usize) * p.w + iw as usize]);
                        }
                    }
                }
                out.push(match kind {
                    0 => {
                        if vals.is_empty() {
                            0.0
                        } else {
                            vals.iter().sum::<f64>() / vals.len() as f64
                        }
                    }
                    1 => vals.iter().map(|v| v * v).sum::<f64>().sqrt(),
                    _ => vals.iter().copied().fold(f64::NEG_INFINITY, f64::max),
                });
            }
        }
    }
    out
}

fn to_nhwc<T: Copy>(v: &[T], n: usize, c: usize, h: usize, w: usize) -> Vec<T> {
    let mut out = Vec::with_capacity(v.len());
    for a in 0..n {
        for y in 0..h {
            for x in 0..w {
                for ch in 0..c {
                    out.push(v[((a * c + ch) * h + y) * w + x]);
                }
            }
        }
    }
    out
}

/// `P::new(input [n, c, h, w], output [oh, ow], window, strides, dilations, padding)`.
const CASES: &[P] = &[
    P::new([1, 2, 5, 5], [1, 1], [5, 5], [1, 1], [1, 1], [0; 4]),
    P::new([2, 3, 6, 7], [4, 5], [3, 3], [1, 1], [1, 1], [0; 4]),
    // ceil rounding: the last windows run past the padded input
    P::new([1, 2, 5, 5], [3, 3], [3, 3], [2, 2], [1, 1], [1, 0, 0, 1]),
    P::new([1, 3, 4, 4], [2, 2], [3, 3], [2, 2], [1, 1], [0; 4]),
    P::new([1, 2, 9, 8], [3, 4], [3, 2], [2, 2], [2, 3], [1, 1, 2, 0]),
    P::new([2, 70, 4, 5], [2, 3], [2, 2], [2, 2], [1, 1], [0, 0, 0, 1]),
    // padding larger than the window: windows with no real element
    P::new([1, 1, 2, 2], [4, 4], [1, 1], [1, 1], [1, 1], [1, 1, 1, 1]),
    // a window wider than the input (the padding makes room; found by fuzz target onnx_import:
    // the nchw plane sliced its row buffer past its end)
    P::new([1, 1, 5, 5], [3, 3], [3, 7], [2, 2], [1, 1], [1, 1, 3, 3]),
    P::new([1, 2, 4, 3], [3, 2], [2, 3], [1, 1], [1, 2], [0, 0, 2, 1]),
    // strided windows of one row pass over the row's phases: 3 taps (odd width, padded),
    // 4 taps at stride 3, 1 tap
    P::new([1, 2, 11, 35], [6, 18], [3, 3], [2, 2], [1, 1], [1, 1, 1, 1]),
    P::new([1, 2, 10, 20], [3, 6], [4, 4], [3, 3], [1, 1], [0; 4]),
    P::new([1, 1, 7, 9], [4, 5], [1, 1], [2, 2], [1, 1], [0; 4]),
    // strides past the input: one window per row (fuzz target builder_ops: a stride of
    // 2^32 − 1 sized the row's phase buffer by the stride, an out-of-memory abort)
    P::new([1, 2, 5, 5], [1, 1], [3, 3], [u32::MAX as usize; 2], [1, 1], [0; 4]),
    P::new([1, 2, 5, 5], [1, 1], [3, 3], [7, 6], [1, 1], [0; 4]),
];

fn attrs(p: &P, nhwc: bool) -> Attrs {
    Attrs::Pool2d {
        window: p.window.map(|v| v as u32),
        padding: p.padding.map(|v| v as u32),
        strides: p.strides.map(|v| v as u32),
        dilations: p.dilations.map(|v| v as u32),
        layout: if nhwc { InputOperandLayout::Nhwc } else { InputOperandLayout::Nchw },
    }
}

fn shapes(p: &P, nhwc: bool) -> ([u32; 4], [u32; 4]) {
    let s = |v: [usize; 4]| v.map(|d| d as u32);
    if nhwc {
        (s([p.n, p.h, p.w, p.c]), s([p.n, p.oh, p.ow, p.c]))
    } else {
        (s([p.n, p.c, p.h, p.w]), s([p.n, p.c, p.oh, p.ow]))
    }
}

#[test]
fn float_pooling_matches_reference() {
    for (i, p) in CASES.iter().enumerate() {
        for dt in [DataType::Float32, DataType::Float16] {
            let mut x = pseudo(p.n * p.c * p.h * p.w, 40 + i as u32);
            if dt == DataType::Float16 {
                x = via_f16(&x);
            }
            let x64: Vec<f64> = x.iter().map(|&v| v as f64).collect();
            for (kind, op) in [(0u8, OpKind::AveragePool2d), (1, OpKind::L2Pool2d), (2, OpKind::MaxPool2d)] {
                let want: Vec<f32> = pool_ref(p, kind, &x64).iter().map(|&v| v as f32).collect();
                for nhwc in [false, true] {
                    let (xs, os) = shapes(p, nhwc);
                    let xd = if nhwc { to_nhwc(&x, p.n, p.c, p.h, p.w) } else { x.clone() };
                    let wd = if nhwc { to_nhwc(&want, p.n, p.c, p.oh, p.ow) } else { want.clone() };
                    let got = run_float(op, dt, &[Some((&xs, &xd, false))], attrs(p, nhwc), &os);
                    let tol = if dt == DataType::Float16 { 1e-3 } else { 1e-6 };
                    assert_close(&got, &wd, tol, &format!("{op} {p:?} {dt:?} nhwc={nhwc}"));
                }
            }
        }
    }
}

#[test]
fn max_pool_every_integer_type() {
    let p = &CASES[4];
    let count = p.n * p.c * p.h * p.w;
    let raw: Vec<i64> = pseudo(count, 9).iter().map(|v| (v * 120.0) as i64).collect();
    let x64: Vec<f64> = raw.iter().map(|&v| v as f64).collect();
    let want: Vec<i64> = pool_ref(p, 2, &x64).iter().map(|&v| v as i64).collect();
    macro_rules! check {
        ($t:ty, $dt:expr, $map:expr) => {{
            let conv: fn(i64) -> $t = $map;
            let x: Vec<$t> = raw.iter().map(|&v| conv(v)).collect();
            let w: Vec<$t> = want.iter().map(|&v| conv(v)).collect();
            for nhwc in [false, true] {
                let (xs, os) = shapes(p, nhwc);
                let xd = if nhwc { to_nhwc(&x, p.n, p.c, p.h, p.w) } else { x.clone() };
                let wd = if nhwc { to_nhwc(&w, p.n, p.c, p.oh, p.ow) } else { w.clone() };
                let out = run_op_const(
                    OpKind::MaxPool2d,
                    &[Some((OperandDescriptor::new($dt, xs.to_vec()), bytemuck::cast_slice(&xd).to_vec(), false))],
                    attrs(p, nhwc),
                    &[OperandDescriptor::new($dt, os.to_vec())],
                );
                assert_eq!(bytemuck::pod_collect_to_vec::<u8, $t>(&out[0]), wd, "{:?} nhwc={nhwc}", $dt);
            }
        }};
    }
    check!(i8, DataType::Int8, |v| v as i8);
    check!(i32, DataType::Int32, |v| v as i32);
    check!(i64, DataType::Int64, |v| v);
    // Unsigned: shift into range, which keeps the ordering.
    check!(u8, DataType::Uint8, |v| (v + 128) as u8);
    check!(u32, DataType::Uint32, |v| (v + 1000) as u32);
    check!(u64, DataType::Uint64, |v| (v + 1000) as u64);
}

#[test]
fn max_pool_of_bytes_every_case() {
    // uint8 and int8 (the quantized models' pools; AVX-512BW planes where they apply) over
    // every case, and rows of more than 64 outputs and 128 columns at strides 1 and 2; the
    // values span each type's whole range.
    let wide = [
        P::new([1, 2, 5, 150], [3, 75], [3, 3], [2, 2], [1, 1], [1, 1, 1, 1]),
        P::new([1, 1, 3, 140], [3, 137], [2, 5], [1, 1], [1, 2], [0, 1, 3, 2]),
        P::new([1, 1, 4, 130], [4, 66], [1, 4], [1, 2], [1, 1], [0, 0, 2, 2]),
    ];
    for p in CASES.iter().chain(&wide) {
        let count = p.n * p.c * p.h * p.w;
        let bytes: Vec<u8> = pseudo(count, 5).iter().map(|v| ((v + 1.0) * 127.99) as u8).collect();
        for signed in [false, true] {
            let value = |b: u8| if signed { f64::from(b as i8) } else { f64::from(b) };
            let want: Vec<u8> = pool_ref(p, 2, &bytes.iter().map(|&b| value(b)).collect::<Vec<_>>())
                .iter()
                .map(|&v| match (v == f64::NEG_INFINITY, signed) {
                    (true, true) => i8::MIN as u8,
                    (true, false) => 0,
                    (false, true) => v as i8 as u8,
                    (false, false) => v as u8,
                })
                .collect();
            let dt = if signed { DataType::Int8 } else { DataType::Uint8 };
            let (xs, os) = shapes(p, false);
            let out = run_op_const(
                OpKind::MaxPool2d,
                &[Some((OperandDescriptor::new(dt, xs.to_vec()), bytes.clone(), false))],
                attrs(p, false),
                &[OperandDescriptor::new(dt, os.to_vec())],
            );
            assert_eq!(out[0], want, "{p:?} {dt:?}");
        }
    }
}

#[test]
fn max_pool_propagates_nan() {
    let x = [1.0f32, f32::NAN, 3.0, 2.0];
    let p = P::new([1, 1, 2, 2], [1, 1], [2, 2], [1, 1], [1, 1], [0; 4]);
    let got = run_float(
        OpKind::MaxPool2d,
        DataType::Float32,
        &[Some((&[1, 1, 2, 2], &x, false))],
        attrs(&p, false),
        &[1, 1, 1, 1],
    );
    assert!(got[0].is_nan());
}

#[test]
fn strided_max_pool_propagates_nan_from_every_tap() {
    // 3×3 windows at stride 2 over a 3×9 plane: 4 outputs, a NaN at each input in turn.
    let p = P::new([1, 1, 3, 9], [1, 4], [3, 3], [2, 2], [1, 1], [0; 4]);
    for at in 0..27 {
        let mut x: Vec<f32> = (0..27).map(|i| i as f32).collect();
        x[at] = f32::NAN;
        let got = run_float(
            OpKind::MaxPool2d,
            DataType::Float32,
            &[Some((&[1, 1, 3, 9], &x, false))],
            attrs(&p, false),
            &[1, 1, 1, 4],
        );
        for (j, v) in got.iter().enumerate() {
            let column = at % 9;
            let in_window = (2 * j..2 * j + 3).contains(&column);
            assert_eq!(v.is_nan(), in_window, "NaN at {at}, output {j}: {v}");
            if !in_window {
                // The window's bottom-right element is its largest.
                assert_eq!(*v, (20 + 2 * j) as f32);
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[test]
fn byte_pool_buffers_stay_bounded() {
    // The AVX-512BW byte pool's buffers grow with the output height and the padding: a tall
    // plane takes the portable kernel (row-sized buffers) instead.
    use super::super::pool_bytes_avx512::applies;
    let geom = |h: usize| PoolGeom::new(1, 1, h, 100, h, 50, [1, 3], [1, 2], [1, 1], [0, 1], false);
    assert!(applies(&geom(1000)));
    assert!(!applies(&geom(100_000)));
}

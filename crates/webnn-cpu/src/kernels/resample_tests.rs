//! resample2d against a direct transcription of the spec formulas: every pair of axes (both
//! orders), up- and down-sampling, given scales and sizes, every data type.

use super::*;
use crate::testing::constant_operands::{assert_close, pseudo, run_float, run_op_const, via_f16};
use webnn_core::{OpKind, OperandDescriptor};

/// The spec's algorithm, element by element (x = axes[1], y = axes[0]).
fn resample_ref(
    x: &[f64],
    shape: [usize; 4],
    out_shape: [usize; 4],
    axes: [usize; 2],
    scales: [f64; 2],
    linear: bool,
) -> Vec<f64> {
    let st = [shape[1] * shape[2] * shape[3], shape[2] * shape[3], shape[3], 1];
    let coord = |o: usize, i: usize| {
        let c = (o as f64 + 0.5) / scales[i] - 0.5;
        c.max(0.0).min((shape[axes[i]] - 1) as f64)
    };
    let mut out = Vec::new();
    for a in 0..out_shape[0] {
        for b in 0..out_shape[1] {
            for c in 0..out_shape[2] {
                for d in 0..out_shape[3] {
                    let idx = [a, b, c, d];
                    let cy = coord(idx[axes[0]], 0);
                    let cx = coord(idx[axes[1]], 1);
                    let at = |yy: usize, xx: usize| {
                        let mut i = idx;
                        i[axes[0]] = yy;
                        i[axes[1]] = xx;
                        x[i[0] * st[0] + i[1] * st[1] + i[2] * st[2] + i[3] * st[3]]
                    };
                    if !linear {
                        out.push(at((cy - 0.5).ceil() as usize, (cx - 0.5).ceil() as usize));
                    } else {
                        let (x0, x1, y0, y1) =
                            (cx.floor() as usize, cx.ceil() as usize, cy.floor() as usize, cy.ceil() as usize);
                        let (tx, ty) = (cx - x0 as f64, cy - y0 as f64);
                        let vy0 = at(y0, x0) * (1.0 - tx) + at(y0, x1) * tx;
                        let vy1 = at(y1, x0) * (1.0 - tx) + at(y1, x1) * tx;
                        out.push(vy0 * (1.0 - ty) + vy1 * ty);
                    }
                }
            }
        }
    }
    out
}

/// (input shape, axes, scales or sizes)
#[allow(clippy::type_complexity)]
fn cases() -> Vec<([usize; 4], [usize; 2], Result<[f32; 2], [usize; 2]>)> {
    let mut v = Vec::new();
    for a in 0..4 {
        for b in 0..4 {
            if a != b {
                v.push(([2, 3, 4, 5], [a, b], Err([7, 2])));
            }
        }
    }
    v.push(([1, 2, 3, 4], [2, 3], Ok([1.7, 2.5])));
    v.push(([1, 2, 9, 7], [2, 3], Ok([0.5, 0.6])));
    v.push(([1, 1, 5, 6], [2, 3], Err([3, 4])));
    v.push(([3, 2, 1, 1], [1, 0], Err([4, 6])));
    v.push(([1, 1, 1, 1], [2, 3], Ok([3.0, 2.0])));
    v
}

#[test]
fn float_resample_matches_spec_formulas() {
    for (ci, (shape, axes, ss)) in cases().into_iter().enumerate() {
        let mut out_shape = shape;
        let scales: [f64; 2] = match ss {
            Ok(s) => {
                for i in 0..2 {
                    out_shape[axes[i]] = (shape[axes[i]] as f64 * s[i] as f64).floor() as usize;
                }
                [s[0] as f64, s[1] as f64]
            }
            Err(sizes) => {
                for i in 0..2 {
                    out_shape[axes[i]] = sizes[i];
                }
                [sizes[0] as f64 / shape[axes[0]] as f64, sizes[1] as f64 / shape[axes[1]] as f64]
            }
        };
        let count: usize = shape.iter().product();
        for dt in [DataType::Float32, DataType::Float16] {
            let mut x = pseudo(count, 70 + ci as u32);
            if dt == DataType::Float16 {
                x = via_f16(&x);
            }
            let x64: Vec<f64> = x.iter().map(|&v| v as f64).collect();
            for (linear, mode) in [(false, InterpolationMode::NearestNeighbor), (true, InterpolationMode::Linear)] {
                let want: Vec<f32> =
                    resample_ref(&x64, shape, out_shape, axes, scales, linear).iter().map(|&v| v as f32).collect();
                let attrs = Attrs::Resample2d { mode, scales: ss.ok(), axes: axes.map(|a| a as u32) };
                let xs = shape.map(|d| d as u32);
                let os = out_shape.map(|d| d as u32);
                let got = run_float(OpKind::Resample2d, dt, &[Some((&xs, &x, false))], attrs, &os);
                let tol = if dt == DataType::Float16 { 1e-3 } else { 1e-6 };
                let tol = if linear { tol } else { 0.0 };
                assert_close(
                    &got,
                    &want,
                    tol,
                    &format!("resample {shape:?} axes {axes:?} {ss:?} {dt:?} linear={linear}"),
                );
            }
        }
    }
}

#[test]
fn int8_and_uint8_resample() {
    let shape = [1usize, 2, 3, 5];
    let out_shape = [1usize, 2, 5, 8];
    let count: usize = shape.iter().product();
    let scales = [5.0 / 3.0, 8.0 / 5.0];
    let raw: Vec<f64> = pseudo(count, 5).iter().map(|&v| (v as f64 * 127.0).round()).collect();
    for linear in [false, true] {
        let mode = if linear { InterpolationMode::Linear } else { InterpolationMode::NearestNeighbor };
        let attrs = Attrs::Resample2d { mode, scales: None, axes: [2, 3] };
        let want = resample_ref(&raw, shape, out_shape, [2, 3], scales, linear);
        // Round half to even, saturate (decisions.md D17).
        let q = |v: f64, lo: f64, hi: f64| {
            let r = v.round();
            let r = if (v - v.trunc()).abs() == 0.5 { 2.0 * (v / 2.0).round() } else { r };
            r.clamp(lo, hi)
        };
        let xi: Vec<i8> = raw.iter().map(|&v| v as i8).collect();
        let out = run_op_const(
            OpKind::Resample2d,
            &[Some((
                OperandDescriptor::new(DataType::Int8, vec![1, 2, 3, 5]),
                bytemuck::cast_slice(&xi).to_vec(),
                false,
            ))],
            attrs.clone(),
            &[OperandDescriptor::new(DataType::Int8, vec![1, 2, 5, 8])],
        );
        let got: Vec<i8> = bytemuck::cast_slice(&out[0]).to_vec();
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            assert!((*g as f64 - q(*w, -128.0, 127.0)).abs() <= 1.0, "int8 {i}: {g} vs {w}");
        }
        let xu: Vec<u8> = raw.iter().map(|&v| (v + 128.0) as u8).collect();
        let out = run_op_const(
            OpKind::Resample2d,
            &[Some((OperandDescriptor::new(DataType::Uint8, vec![1, 2, 3, 5]), xu.clone(), false))],
            attrs,
            &[OperandDescriptor::new(DataType::Uint8, vec![1, 2, 5, 8])],
        );
        for (i, (g, w)) in out[0].iter().zip(&want).enumerate() {
            assert!((*g as f64 - q(*w + 128.0, 0.0, 255.0)).abs() <= 1.0, "uint8 {i}: {g} vs {w}");
        }
    }
}

#[test]
fn integer_linear_rounds_half_to_even() {
    // Halfway between 1 and 2 → 2; between 2 and 3 → 2.
    let attrs = Attrs::Resample2d { mode: InterpolationMode::Linear, scales: None, axes: [2, 3] };
    let x: Vec<i8> = vec![1, 2, 3];
    let taps = axis_taps(InterpolationMode::Linear, 3, 6, 2.0, 1);
    assert_eq!(taps[1], Tap { lo: 0, hi: 1, t: 0.25 });
    let out = run_op_const(
        OpKind::Resample2d,
        &[Some((OperandDescriptor::new(DataType::Int8, vec![1, 1, 1, 3]), bytemuck::cast_slice(&x).to_vec(), false))],
        attrs,
        &[OperandDescriptor::new(DataType::Int8, vec![1, 1, 1, 6])],
    );
    // Coordinates 0, 0.25, 0.75, 1.25, 1.75, 2 → 1, 1.25, 1.75, 2.25, 2.75, 3.
    assert_eq!(bytemuck::cast_slice::<u8, i8>(&out[0]), &[1, 1, 2, 2, 3, 3]);
    assert_eq!(i8::from_f32(2.5), 2);
    assert_eq!(i8::from_f32(3.5), 4);
    assert_eq!(u8::from_f32(-3.0), 0);
    assert_eq!(u8::from_f32(300.0), 255);
}

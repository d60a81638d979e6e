//! batch/instance/layer normalization against a generic reference: y = scale·(x − mean) /
//! sqrt(var + eps) + bias with the statistics or parameters indexed per the op.

use super::*;
use crate::testing::constant_operands::{assert_close, pseudo, run_float, via_f16};
use webnn_core::OpKind;

fn round(dt: DataType, v: Vec<f32>) -> Vec<f32> {
    if dt == DataType::Float16 {
        via_f16(&v)
    } else {
        v
    }
}

/// Multi-index of linear index `i` in `shape`.
fn unravel(mut i: usize, shape: &[usize]) -> Vec<usize> {
    let mut idx = vec![0; shape.len()];
    for d in (0..shape.len()).rev() {
        idx[d] = i % shape[d];
        i /= shape[d];
    }
    idx
}

/// Generic normalization: statistics over `axes` (per kept index), parameters indexed by
/// the `axes`-order multi-index.
fn layer_ref(
    x: &[f32],
    shape: &[usize],
    axes: &[usize],
    scale: Option<&[f32]>,
    bias: Option<&[f32]>,
    eps: f64,
) -> Vec<f32> {
    let total = x.len();
    let key =
        |idx: &[usize]| -> Vec<usize> { (0..shape.len()).filter(|d| !axes.contains(d)).map(|d| idx[d]).collect() };
    let pidx = |idx: &[usize]| -> usize { axes.iter().fold(0, |acc, &a| acc * shape[a] + idx[a]) };
    let mut out = vec![0f32; total];
    for i in 0..total {
        let idx = unravel(i, shape);
        let k = key(&idx);
        let group: Vec<f64> = (0..total).filter(|&j| key(&unravel(j, shape)) == k).map(|j| x[j] as f64).collect();
        let mean = group.iter().sum::<f64>() / group.len() as f64;
        let var = group.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / group.len() as f64;
        let p = pidx(&idx);
        let s = scale.map_or(1.0, |s| s[p] as f64);
        let b = bias.map_or(0.0, |b| b[p] as f64);
        out[i] = (s * (x[i] as f64 - mean) / (var + eps).sqrt() + b) as f32;
    }
    out
}

/// The optional scale and bias of a normalization and whether they are graph constants.
type Params<'a> = (Option<&'a [f32]>, Option<&'a [f32]>, bool);

/// Runs `kind` on `x` (of `shape`; the output has it too) with the scale and bias present in
/// `params` (of `pshape`), operands 1 and 2.
fn run_scaled(
    kind: OpKind,
    dt: DataType,
    (shape, x): (&[u32], &[f32]),
    (pshape, (scale, bias, constant)): (&[u32], Params<'_>),
    attrs: Attrs,
) -> Vec<f32> {
    let operands = [Some((shape, x, false)), scale.map(|s| (pshape, s, constant)), bias.map(|b| (pshape, b, constant))];
    run_float(kind, dt, &operands, attrs, shape)
}

#[test]
fn layer_normalization_matches_reference_for_any_axes() {
    let cases: &[(&[usize], &[usize])] = &[
        (&[2, 3, 4], &[2]),
        (&[2, 3, 4], &[1, 2]),
        (&[2, 3, 4], &[2, 1]),
        (&[2, 3, 4], &[0]),
        (&[2, 3, 4], &[0, 2]),
        (&[2, 3, 4], &[2, 0]),
        (&[2, 3, 4], &[]),
        (&[2, 3, 4], &[0, 1, 2]),
        (&[5], &[0]),
        (&[], &[]),
        (&[3, 1, 2, 5], &[1, 2, 3]),
        (&[3, 100], &[1]),
    ];
    for (ci, &(shape, axes)) in cases.iter().enumerate() {
        let n: usize = shape.iter().product();
        let pn: usize = axes.iter().map(|&a| shape[a]).product();
        let pshape: Vec<u32> = axes.iter().map(|&a| shape[a] as u32).collect();
        let xshape: Vec<u32> = shape.iter().map(|&d| d as u32).collect();
        for dt in [DataType::Float32, DataType::Float16] {
            for (with_scale, with_bias, constant) in
                [(true, true, true), (true, false, false), (false, true, true), (false, false, false)]
            {
                let x = round(dt, pseudo(n, 30 + ci as u32));
                let s = round(dt, pseudo(pn, 31));
                let b = round(dt, pseudo(pn, 32));
                let eps = 1e-3;
                let want = layer_ref(&x, shape, axes, with_scale.then_some(&s[..]), with_bias.then_some(&b[..]), eps);
                let attrs = Attrs::LayerNormalization { axes: axes.iter().map(|&a| a as u32).collect(), epsilon: eps };
                let params = (with_scale.then_some(&s[..]), with_bias.then_some(&b[..]), constant);
                let got = run_scaled(OpKind::LayerNormalization, dt, (&xshape, &x), (&pshape, params), attrs);
                let tol = if dt == DataType::Float16 { 4e-3 } else { 2e-5 };
                assert_close(
                    &got,
                    &want,
                    tol,
                    &format!("layerNorm {shape:?} axes {axes:?} {dt:?} s={with_scale} b={with_bias}"),
                );
            }
        }
    }
}

/// Batch normalization reference: parameters per index along `axis`.
fn batch_ref(x: &[f32], shape: &[usize], axis: usize, p: [&[f32]; 4], has: [bool; 2], eps: f64) -> Vec<f32> {
    (0..x.len())
        .map(|i| {
            let c = unravel(i, shape)[axis];
            let s = if has[0] { p[2][c] as f64 } else { 1.0 };
            let b = if has[1] { p[3][c] as f64 } else { 0.0 };
            (s * (x[i] as f64 - p[0][c] as f64) / (p[1][c] as f64 + eps).sqrt() + b) as f32
        })
        .collect()
}

#[test]
fn batch_normalization_matches_reference_for_any_axis() {
    let cases: &[(&[usize], usize)] =
        &[(&[2, 3, 4, 5], 1), (&[2, 3, 4, 5], 3), (&[2, 3, 4, 5], 0), (&[7], 0), (&[2, 1, 3, 2, 4], 2), (&[3, 70], 1)];
    for (ci, &(shape, axis)) in cases.iter().enumerate() {
        let n: usize = shape.iter().product();
        let c = shape[axis];
        let xshape: Vec<u32> = shape.iter().map(|&d| d as u32).collect();
        let cshape = [c as u32];
        for dt in [DataType::Float32, DataType::Float16] {
            for (has, constant) in
                [([true, true], true), ([false, false], false), ([true, false], false), ([false, true], true)]
            {
                let x = round(dt, pseudo(n, 50 + ci as u32));
                let mean = round(dt, pseudo(c, 51));
                let var: Vec<f32> = round(dt, pseudo(c, 52).iter().map(|v| v.abs() + 0.1).collect());
                let s = round(dt, pseudo(c, 53));
                let b = round(dt, pseudo(c, 54));
                let eps = 1e-5;
                let want = batch_ref(&x, shape, axis, [&mean, &var, &s, &b], has, eps);
                let got = run_float(
                    OpKind::BatchNormalization,
                    dt,
                    &[
                        Some((&xshape, &x, false)),
                        Some((&cshape, &mean, constant)),
                        Some((&cshape, &var, constant)),
                        has[0].then_some((&cshape[..], &s[..], constant)),
                        has[1].then_some((&cshape[..], &b[..], constant)),
                    ],
                    Attrs::BatchNormalization { axis: axis as u32, epsilon: eps },
                    &xshape,
                );
                let tol = if dt == DataType::Float16 { 4e-3 } else { 1e-5 };
                assert_close(&got, &want, tol, &format!("batchNorm {shape:?} axis {axis} {dt:?} {has:?}"));
            }
        }
    }
}

#[test]
fn instance_normalization_matches_reference_for_both_layouts() {
    let cases: &[[usize; 4]] = &[[1, 2, 3, 4], [2, 3, 5, 5], [2, 70, 3, 2], [1, 1, 1, 1]];
    for (ci, &[n, c, h, w]) in cases.iter().enumerate() {
        for dt in [DataType::Float32, DataType::Float16] {
            for (with_scale, with_bias, constant) in [(true, true, true), (false, false, false), (true, false, false)] {
                let x = round(dt, pseudo(n * c * h * w, 60 + ci as u32));
                let s = round(dt, pseudo(c, 61));
                let b = round(dt, pseudo(c, 62));
                let eps = 1e-5;
                // nchw: statistics over H, W; parameters per channel = per axis 1.
                let nchw_want = {
                    let stats = layer_ref(&x, &[n, c, h, w], &[2, 3], None, None, eps);
                    stats
                        .iter()
                        .enumerate()
                        .map(|(i, &v)| {
                            let ch = (i / (h * w)) % c;
                            let sv = if with_scale { s[ch] } else { 1.0 };
                            let bv = if with_bias { b[ch] } else { 0.0 };
                            (v as f64 * sv as f64 + bv as f64) as f32
                        })
                        .collect::<Vec<_>>()
                };
                for nhwc in [false, true] {
                    let (xd, shape, want) = if nhwc {
                        let t = |v: &[f32]| {
                            let mut o = Vec::new();
                            for a in 0..n {
                                for y in 0..h {
                                    for xx in 0..w {
                                        for ch in 0..c {
                                            o.push(v[((a * c + ch) * h + y) * w + xx]);
                                        }
                                    }
                                }
                            }
                            o
                        };
                        (t(&x), [n, h, w, c], t(&nchw_want))
                    } else {
                        (x.clone(), [n, c, h, w], nchw_want.clone())
                    };
                    let shape32 = shape.map(|d| d as u32);
                    let cshape = [c as u32];
                    let layout = if nhwc { InputOperandLayout::Nhwc } else { InputOperandLayout::Nchw };
                    let params = (with_scale.then_some(&s[..]), with_bias.then_some(&b[..]), constant);
                    let attrs = Attrs::InstanceNormalization { epsilon: eps, layout };
                    let got = run_scaled(OpKind::InstanceNormalization, dt, (&shape32, &xd), (&cshape, params), attrs);
                    let tol = if dt == DataType::Float16 { 4e-3 } else { 2e-5 };
                    assert_close(&got, &want, tol, &format!("instanceNorm {:?} {dt:?} nhwc={nhwc}", [n, c, h, w]));
                }
            }
        }
    }
}

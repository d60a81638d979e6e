//! Convolution and pooling: Conv, ConvTranspose, MaxPool, AveragePool, LpPool (and the
//! quantized convs through [`conv_with`]).
//!
//! 1-D convolutions and pools run as 2-D ones on a trailing size-1 dimension; 3-D ones are
//! decomposed into 2-D ones (ConvTranspose 3-D is unsupported). ONNX `ceil_mode` is mapped by
//! computing ONNX's output size and padding the end so that WebNN's floor rounding gives it
//! (padded positions never count, decisions.md D15).

use super::elementwise::webnn;
use super::shape_ops::SliceParam;
use super::{bld, invalid, unsupported, Const, Ctx, Importer, NResult, Value};
use webnn_core::{Conv2dOptions, ConvTranspose2dOptions, OpKind, Operand, PadOptions, Pool2dOptions};

/// The attributes of Conv and of the quantized convolutions (QLinearConv, ConvInteger).
pub(crate) const CONV_ATTRIBUTES: &[&str] = &["auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"];
/// The attributes of ConvTranspose.
pub(crate) const CONV_TRANSPOSE_ATTRIBUTES: &[&str] =
    &["auto_pad", "dilations", "group", "kernel_shape", "pads", "strides", "output_padding", "output_shape"];

/// Largest kernel size, stride, dilation or pad accepted (WebNN takes them as u32 and
/// dimensions are at most 2^31 - 1).
const MAX_ATTR: i64 = i32::MAX as i64;

/// Spatial parameters of a conv or pool after auto_pad: per spatial axis (begin, end) pads.
struct Spatial {
    kernel: Vec<usize>,
    strides: Vec<usize>,
    dilations: Vec<usize>,
    pads: Vec<(usize, usize)>,
}

/// Reads kernel_shape/strides/dilations/pads/auto_pad for `n` spatial axes of `input`.
fn spatial(c: &Ctx, input: &[usize], kernel: Option<Vec<usize>>) -> NResult<Spatial> {
    let n = input.len();
    let get = |name: &str| -> NResult<Vec<usize>> {
        match c.attrs.ints(name)? {
            None => Ok(vec![1; n]),
            Some(v) if v.len() == n && v.iter().all(|&x| x > 0 && x <= MAX_ATTR) => {
                Ok(v.iter().map(|&x| x as usize).collect())
            }
            Some(v) => Err(invalid(format!("{name} {v:?} must have {n} positive values"))),
        }
    };
    let kernel = match c.attrs.ints("kernel_shape")? {
        Some(k) if k.len() == n && k.iter().all(|&x| x > 0 && x <= MAX_ATTR) => k.iter().map(|&x| x as usize).collect(),
        Some(k) => return Err(invalid(format!("kernel_shape {k:?} must have {n} positive values"))),
        None => match kernel {
            Some(k) if k.iter().all(|&v| v > 0 && v as i64 <= MAX_ATTR) => k,
            Some(k) => return Err(invalid(format!("kernel {k:?}"))),
            None => return Err(invalid("kernel_shape is required")),
        },
    };
    let (strides, dilations) = (get("strides")?, get("dilations")?);
    let auto_pad = c.attrs.string("auto_pad", "NOTSET")?;
    let pads = match auto_pad.as_str() {
        "NOTSET" | "" => match c.attrs.ints("pads")? {
            None => vec![(0, 0); n],
            Some(p) if p.len() == 2 * n && p.iter().all(|&x| (0..=MAX_ATTR).contains(&x)) => {
                (0..n).map(|i| (p[i] as usize, p[i + n] as usize)).collect()
            }
            Some(p) => return Err(invalid(format!("pads {p:?} must have {} non-negative values", 2 * n))),
        },
        "VALID" => vec![(0, 0); n],
        "SAME_UPPER" | "SAME_LOWER" => (0..n)
            .map(|i| {
                let out = input[i].div_ceil(strides[i]);
                let eff = (kernel[i] - 1) * dilations[i] + 1;
                let total = ((out - 1) * strides[i] + eff).saturating_sub(input[i]);
                let small = total / 2;
                if auto_pad == "SAME_UPPER" {
                    (small, total - small)
                } else {
                    (total - small, small)
                }
            })
            .collect(),
        other => return Err(invalid(format!("auto_pad '{other}'"))),
    };
    Ok(Spatial { kernel, strides, dilations, pads })
}

/// 1-D and 2-D only; returns the spatial dims as 2-D (1-D gets a trailing 1).
fn spatial_2d(op: &str, shape: &[usize]) -> NResult<Vec<usize>> {
    match shape.len() {
        3 => Ok(vec![shape[2], 1]),
        4 => Ok(shape[2..].to_vec()),
        r if r > 4 => Err(unsupported(format!("{op} with {} spatial dimensions (WebNN has 2-D only)", r - 2))),
        r => Err(invalid(format!("{op} input of rank {r}"))),
    }
}

fn to_2d(v: Vec<usize>, one_d: bool, fill: usize) -> Vec<u32> {
    let mut v: Vec<u32> = v.into_iter().map(|x| x as u32).collect();
    if one_d {
        v.push(fill as u32);
    }
    v
}

fn pads_2d(p: &[(usize, usize)], one_d: bool) -> Vec<u32> {
    let mut out: Vec<u32> = Vec::new();
    for &(b, e) in p {
        out.push(b as u32);
        out.push(e as u32);
    }
    if one_d {
        out.extend([0, 0]);
    }
    out
}

/// A value made 4-D by appending a size-1 dimension when it is 3-D.
fn as_4d(imp: &mut Importer, v: &Value, label: &str) -> NResult<Operand> {
    let shape = v.shape();
    if shape.len() == 3 {
        let v = imp.reshape_value(v, &[shape[0], shape[1], shape[2], 1], label)?;
        return imp.operand(&v);
    }
    imp.operand(v)
}

pub(crate) fn conv(imp: &mut Importer, c: &Ctx, x: &Value) -> NResult<Operand> {
    let bias = c.input(2).map(|b| imp.operand(b)).transpose()?;
    conv_with(imp, c, x, c.req(1)?, bias)
}

/// Conv of `x` with filter `w` and the node's attributes (also used by the quantized convs).
pub(crate) fn conv_with(imp: &mut Importer, c: &Ctx, x: &Value, w: &Value, bias: Option<Operand>) -> NResult<Operand> {
    let shape = x.shape();
    let w_shape = w.shape();
    if w_shape.len() != shape.len() {
        return Err(invalid(format!("Conv weight rank {} differs from the input's {}", w_shape.len(), shape.len())));
    }
    if shape.len() == 5 {
        let sp = spatial(c, &shape[2..], Some(w_shape[2..].to_vec()))?;
        return conv3d(imp, c, x, w, bias, sp);
    }
    spatial_2d(c.op, &shape)?;
    let one_d = shape.len() == 3;
    let sp = spatial(c, &shape[2..], Some(w_shape[2..].to_vec()))?;
    let options = Conv2dOptions {
        label: c.label.clone(),
        padding: Some(pads_2d(&sp.pads, one_d)),
        strides: Some(to_2d(sp.strides, one_d, 1)),
        dilations: Some(to_2d(sp.dilations, one_d, 1)),
        groups: c.attrs.int("group", 1)?.clamp(0, u32::MAX as i64) as u32,
        bias,
        ..Conv2dOptions::new()
    };
    let input = as_4d(imp, x, &c.label)?;
    let filter = as_4d(imp, w, &c.label)?;
    let y = bld(imp.b.conv2d(&input, &filter, &options))?;
    if one_d {
        let s = y.shape().iter().map(|&d| d as usize).collect::<Vec<_>>();
        return imp.reshape_op(&y, &s[..3], &c.label);
    }
    Ok(y)
}

/// Most filter depth taps of a 3-D convolution (each becomes a few WebNN ops).
const MAX_DEPTH_TAPS: usize = 1 << 12;

/// 3-D convolution as a sum over the filter's depth taps of 2-D convolutions: for tap `kd`,
/// the input depths `kd * dilation + d * stride` (after depth padding) move into the batch and
/// meet the filter slice `w[:, :, kd]`.
fn conv3d(imp: &mut Importer, c: &Ctx, x: &Value, w: &Value, bias: Option<Operand>, sp: Spatial) -> NResult<Operand> {
    let s = x.shape();
    let ws = w.shape();
    let (n, ch, d, h, wd) = (s[0], s[1], s[2], s[3], s[4]);
    let (m, kd) = (ws[0], ws[2]);
    if kd > MAX_DEPTH_TAPS {
        return Err(unsupported(format!(
            "a 3-D Conv is built from one 2-D convolution per filter depth tap: \
             {kd} taps is more than {MAX_DEPTH_TAPS}"
        )));
    }
    let eff = (kd - 1) * sp.dilations[0] + 1;
    let padded = d + sp.pads[0].0 + sp.pads[0].1;
    if padded < eff {
        return Err(unsupported("the convolution output is empty"));
    }
    let d_out = (padded - eff) / sp.strides[0] + 1;
    let label = c.label.clone();
    let o = c.opts();
    let mut input = imp.operand(x)?;
    if sp.pads[0] != (0, 0) {
        let begin = [0, 0, sp.pads[0].0 as u32, 0, 0];
        let end = [0, 0, sp.pads[0].1 as u32, 0, 0];
        let options = PadOptions { label: label.clone(), ..Default::default() };
        input = bld(imp.b.pad(&input, &begin, &end, &options))?;
    }
    let full = |v: usize| SliceParam { start: 0, count: v, step: 1 };
    let mut acc: Option<Operand> = None;
    let mut bias = bias;
    for k in 0..kd {
        let taps = SliceParam { start: (k * sp.dilations[0]) as i64, count: d_out, step: sp.strides[0] as i64 };
        let xk = imp.slice_op(&input, &[full(n), full(ch), taps, full(h), full(wd)], &label)?;
        let xk = imp.transpose_op(&xk, &[0, 2, 1, 3, 4], &label)?;
        let xk = imp.reshape_op(&xk, &[n * d_out, ch, h, wd], &label)?;
        let wk = imp.slice_value(w, 2, k)?;
        let wk = imp.reshape_value(&wk, &[m, ws[1], ws[3], ws[4]], &label)?;
        let wk = imp.operand(&wk)?;
        let options = Conv2dOptions {
            label: label.clone(),
            padding: Some(vec![sp.pads[1].0 as u32, sp.pads[1].1 as u32, sp.pads[2].0 as u32, sp.pads[2].1 as u32]),
            strides: Some(vec![sp.strides[1] as u32, sp.strides[2] as u32]),
            dilations: Some(vec![sp.dilations[1] as u32, sp.dilations[2] as u32]),
            groups: c.attrs.int("group", 1)?.clamp(0, u32::MAX as i64) as u32,
            bias: bias.take(),
            ..Conv2dOptions::new()
        };
        let y = bld(imp.b.conv2d(&xk, &wk, &options))?;
        acc = Some(match acc {
            None => y,
            Some(prev) => bld(imp.b.add(&prev, &y, &o))?,
        });
    }
    let y = acc.ok_or_else(|| invalid("empty filter"))?;
    let ys: Vec<usize> = y.shape().iter().map(|&v| v as usize).collect();
    let y = imp.reshape_op(&y, &[n, d_out, m, ys[2], ys[3]], &label)?;
    imp.transpose_op(&y, &[0, 2, 1, 3, 4], &label)
}

pub(crate) fn conv_transpose(imp: &mut Importer, c: &Ctx, x: &Value) -> NResult<Operand> {
    let shape = x.shape();
    spatial_2d("ConvTranspose", &shape)?;
    let one_d = shape.len() == 3;
    let w = c.req(1)?;
    let w_shape = w.shape();
    if w_shape.len() != shape.len() {
        return Err(invalid("ConvTranspose weight rank differs from the input's"));
    }
    let n = shape.len() - 2;
    // auto_pad is resolved below from the output shape, not as for Conv.
    let kernel: Vec<usize> = match c.attrs.ints("kernel_shape")? {
        Some(k) if k.len() == n && k.iter().all(|&v| v > 0 && v <= MAX_ATTR) => k.iter().map(|&v| v as usize).collect(),
        Some(k) => return Err(invalid(format!("kernel_shape {k:?}"))),
        None if w_shape[2..].iter().all(|&v| v > 0 && v as i64 <= MAX_ATTR) => w_shape[2..].to_vec(),
        None => return Err(invalid(format!("weight shape {w_shape:?}"))),
    };
    let ints = |name: &str, default: usize| -> NResult<Vec<usize>> {
        match c.attrs.ints(name)? {
            None => Ok(vec![default; n]),
            Some(v) if v.len() == n && v.iter().all(|&x| (0..=MAX_ATTR).contains(&x)) => {
                Ok(v.iter().map(|&x| x as usize).collect())
            }
            Some(v) => Err(invalid(format!("{name} {v:?}"))),
        }
    };
    let (strides, dilations, out_pad) = (ints("strides", 1)?, ints("dilations", 1)?, ints("output_padding", 0)?);
    if strides.iter().chain(&dilations).any(|&v| v == 0) {
        return Err(invalid("strides and dilations must be positive"));
    }
    let auto_pad = c.attrs.string("auto_pad", "NOTSET")?;
    let mut output_shape = match c.attrs.ints("output_shape")? {
        Some(s) if s.iter().any(|&v| !(0..=MAX_ATTR).contains(&v)) => {
            return Err(invalid(format!("output_shape {s:?}")))
        }
        Some(s) if s.len() == n => Some(s),
        Some(s) if s.len() == n + 2 => Some(s[2..].to_vec()),
        Some(s) => return Err(invalid(format!("output_shape {s:?}"))),
        None => None,
    };
    if output_shape.is_none() && (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
        output_shape = Some((0..n).map(|i| (shape[2 + i] * strides[i]) as i64).collect());
    }
    let mut pads = Vec::with_capacity(n);
    let mut sizes = Vec::with_capacity(n);
    for i in 0..n {
        let eff = ((kernel[i] - 1) * dilations[i] + 1) as i64;
        let base = (strides[i] * (shape[2 + i] - 1)) as i64 + out_pad[i] as i64 + eff;
        match &output_shape {
            Some(os) => {
                let total = base - os[i];
                let (b, e) = if total <= 0 {
                    (0, 0)
                } else if auto_pad == "SAME_UPPER" {
                    (total / 2, total - total / 2)
                } else {
                    (total - total / 2, total / 2)
                };
                pads.push((b as usize, e as usize));
                sizes.push(os[i].max(0) as usize);
            }
            None => {
                let p = match c.attrs.ints("pads")? {
                    Some(p) if auto_pad != "VALID" => {
                        if p.len() != 2 * n || p.iter().any(|&v| !(0..=MAX_ATTR).contains(&v)) {
                            return Err(invalid(format!("pads {p:?}")));
                        }
                        (p[i] as usize, p[i + n] as usize)
                    }
                    _ => (0, 0),
                };
                let size = base - (p.0 + p.1) as i64;
                if size <= 0 {
                    return Err(invalid("ConvTranspose output size is not positive"));
                }
                pads.push(p);
                sizes.push(size as usize);
            }
        }
    }
    let options = ConvTranspose2dOptions {
        label: c.label.clone(),
        padding: Some(pads_2d(&pads, one_d)),
        strides: Some(to_2d(strides, one_d, 1)),
        dilations: Some(to_2d(dilations, one_d, 1)),
        output_sizes: Some(to_2d(sizes, one_d, 1)),
        groups: c.attrs.int("group", 1)?.clamp(0, u32::MAX as i64) as u32,
        bias: c.input(2).map(|b| imp.operand(b)).transpose()?,
        ..ConvTranspose2dOptions::new()
    };
    let input = as_4d(imp, x, &c.label)?;
    let filter = as_4d(imp, w, &c.label)?;
    let y = bld(imp.b.conv_transpose2d(&input, &filter, &options))?;
    if one_d {
        let s = y.shape().iter().map(|&d| d as usize).collect::<Vec<_>>();
        return imp.reshape_op(&y, &s[..3], &c.label);
    }
    Ok(y)
}

pub(crate) fn pool(imp: &mut Importer, c: &Ctx, x: &Value) -> NResult<Operand> {
    let shape = x.shape();
    let rank = shape.len();
    if !(3..=5).contains(&rank) {
        spatial_2d(c.op, &shape)?;
    }
    let one_d = rank == 3;
    if c.wants(1) {
        return Err(unsupported("MaxPool's Indices output"));
    }
    let mut sp = spatial(c, &shape[2..], None)?;
    let ceil = c.attrs.int("ceil_mode", 0)? != 0;
    let kind = match c.op {
        "MaxPool" => OpKind::MaxPool2d,
        "AveragePool" => OpKind::AveragePool2d,
        _ => match c.attrs.int("p", 2)? {
            2 => OpKind::L2Pool2d,
            p if p >= 1 && rank <= 4 => {
                let out = pool_sizes(&shape[2..], &sp, ceil);
                return lp_pool(imp, c, x, p as f64, sp, out, one_d);
            }
            p if p >= 1 => return Err(unsupported(format!("3-D LpPool with p={p}"))),
            p => return Err(invalid(format!("LpPool p={p}"))),
        },
    };
    let out = pool_sizes(&shape[2..], &sp, ceil);
    let mut input = imp.operand(x)?;
    let mut in_sp = shape[2..].to_vec();
    // count_include_pad: the declared pads become real zeros.
    if kind == OpKind::AveragePool2d
        && c.attrs.int("count_include_pad", 0)? != 0
        && sp.pads.iter().any(|&(b, e)| b + e > 0)
    {
        let begin: Vec<u32> = [0, 0].into_iter().chain(sp.pads.iter().map(|p| p.0 as u32)).collect();
        let end: Vec<u32> = [0, 0].into_iter().chain(sp.pads.iter().map(|p| p.1 as u32)).collect();
        let options = PadOptions { label: c.label.clone(), ..Default::default() };
        input = bld(imp.b.pad(&input, &begin, &end, &options))?;
        in_sp = (0..in_sp.len()).map(|i| in_sp[i] + sp.pads[i].0 + sp.pads[i].1).collect();
        sp.pads = vec![(0, 0); in_sp.len()];
    }
    if rank == 5 {
        return pool3d(imp, c, kind, &input, &in_sp, sp, out);
    }
    if one_d {
        input = imp.reshape_op(&input, &[shape[0], shape[1], in_sp[0], 1], &c.label)?;
    }
    finish_pool(imp, c, kind, &input, &in_sp, sp, out, one_d)
}

/// 3-D pooling as two 2-D poolings: over (H, W) with D folded into the channels, then over D
/// with H×W flattened. Max, L2 and (padding-excluding) average pooling are separable this way:
/// the valid part of every window is a box.
fn pool3d(
    imp: &mut Importer,
    c: &Ctx,
    kind: OpKind,
    input: &Operand,
    in_sp: &[usize],
    sp: Spatial,
    out: Vec<i64>,
) -> NResult<Operand> {
    let pads = pads_for(in_sp, &sp, &out)?;
    let s: Vec<usize> = input.shape().iter().map(|&d| d as usize).collect();
    let (n, ch) = (s[0], s[1]);
    let u = |v: usize| v as u32;
    let x = imp.reshape_op(input, &[n, ch * in_sp[0], in_sp[1], in_sp[2]], &c.label)?;
    let hw = Pool2dOptions {
        label: c.label.clone(),
        window_dimensions: Some(vec![u(sp.kernel[1]), u(sp.kernel[2])]),
        padding: Some(vec![u(pads[1].0), u(pads[1].1), u(pads[2].0), u(pads[2].1)]),
        strides: Some(vec![u(sp.strides[1]), u(sp.strides[2])]),
        dilations: Some(vec![u(sp.dilations[1]), u(sp.dilations[2])]),
        ..Default::default()
    };
    let y = bld(imp.b.pool2d(kind, &x, &hw))?;
    let (h2, w2) = (out[1] as usize, out[2] as usize);
    let y = imp.reshape_op(&y, &[n, ch, in_sp[0], h2 * w2], &c.label)?;
    let d = Pool2dOptions {
        label: c.label.clone(),
        window_dimensions: Some(vec![u(sp.kernel[0]), 1]),
        padding: Some(vec![u(pads[0].0), u(pads[0].1), 0, 0]),
        strides: Some(vec![u(sp.strides[0]), 1]),
        dilations: Some(vec![u(sp.dilations[0]), 1]),
        ..Default::default()
    };
    let z = bld(imp.b.pool2d(kind, &y, &d))?;
    imp.reshape_op(&z, &[n, ch, out[0] as usize, h2, w2], &c.label)
}

/// ONNX pooling output sizes (with ceil_mode's rule that the last window starts inside the
/// input or its begin padding).
fn pool_sizes(input: &[usize], sp: &Spatial, ceil: bool) -> Vec<i64> {
    (0..input.len())
        .map(|i| {
            let eff = ((sp.kernel[i] - 1) * sp.dilations[i] + 1) as i64;
            let span = input[i] as i64 + (sp.pads[i].0 + sp.pads[i].1) as i64 - eff;
            let s = sp.strides[i] as i64;
            if span < 0 {
                return 0;
            }
            let mut out = if ceil { (span + s - 1) / s + 1 } else { span / s + 1 };
            if ceil && (out - 1) * s >= input[i] as i64 + sp.pads[i].0 as i64 {
                out -= 1;
            }
            out
        })
        .collect()
}

/// End pads that make floor rounding give ONNX's output size `out`.
fn pads_for(in_sp: &[usize], sp: &Spatial, out: &[i64]) -> NResult<Vec<(usize, usize)>> {
    if out.iter().any(|&o| o <= 0) {
        return Err(unsupported("the pooling output is empty"));
    }
    let mut pads = sp.pads.clone();
    for i in 0..in_sp.len() {
        let eff = (sp.kernel[i] - 1) * sp.dilations[i] + 1;
        let need = (out[i] as usize - 1) * sp.strides[i] + eff;
        let have = in_sp[i] + pads[i].0 + pads[i].1;
        if need > have {
            pads[i].1 += need - have;
        }
    }
    Ok(pads)
}

/// LpPool for p != 2: (sum of |x|^p over the window)^(1/p), the window sum being a
/// convolution of every channel with a ones filter (padding adds zeros, as in ONNX).
fn lp_pool(
    imp: &mut Importer,
    c: &Ctx,
    x: &Value,
    p: f64,
    sp: Spatial,
    out: Vec<i64>,
    one_d: bool,
) -> NResult<Operand> {
    let shape = x.shape();
    let in_sp: Vec<usize> = if one_d { vec![shape[2], 1] } else { shape[2..].to_vec() };
    let pads = pads_for(&shape[2..], &sp, &out)?;
    let dt = webnn(x.ty())?;
    let o = c.opts();
    let a = imp.operand(x)?;
    let a = bld(imp.b.abs(&a, &o))?;
    let pw = imp.scalar(dt, p)?;
    let a = bld(imp.b.pow(&a, &pw, &o))?;
    let a = imp.reshape_op(&a, &[shape[0] * shape[1], 1, in_sp[0], in_sp[1]], &c.label)?;
    let k = to_2d(sp.kernel.clone(), one_d, 1);
    if (k[0] as u64) * (k[1] as u64) > 1 << 24 {
        return Err(unsupported("LpPool window too large"));
    }
    let ones = Const::from_f64s(x.ty(), vec![1, 1, k[0] as usize, k[1] as usize], &vec![1.0; (k[0] * k[1]) as usize]);
    let filter = imp.operand(&Value::constant(ones))?;
    let options = Conv2dOptions {
        label: c.label.clone(),
        padding: Some(pads_2d(&pads, one_d)),
        strides: Some(to_2d(sp.strides, one_d, 1)),
        dilations: Some(to_2d(sp.dilations, one_d, 1)),
        ..Conv2dOptions::new()
    };
    let sum = bld(imp.b.conv2d(&a, &filter, &options))?;
    let mut out_shape = vec![shape[0], shape[1]];
    out_shape.extend(out.iter().map(|&v| v as usize));
    let sum = imp.reshape_op(&sum, &out_shape, &c.label)?;
    let inv = imp.scalar(dt, 1.0 / p)?;
    bld(imp.b.pow(&sum, &inv, &o))
}

#[allow(clippy::too_many_arguments)]
fn finish_pool(
    imp: &mut Importer,
    c: &Ctx,
    kind: OpKind,
    input: &Operand,
    in_sp: &[usize],
    sp: Spatial,
    out: Vec<i64>,
    one_d: bool,
) -> NResult<Operand> {
    // Extra end padding so that floor rounding yields ONNX's size.
    let pads = pads_for(in_sp, &sp, &out)?;
    let options = Pool2dOptions {
        label: c.label.clone(),
        window_dimensions: Some(to_2d(sp.kernel, one_d, 1)),
        padding: Some(pads_2d(&pads, one_d)),
        strides: Some(to_2d(sp.strides, one_d, 1)),
        dilations: Some(to_2d(sp.dilations, one_d, 1)),
        ..Default::default()
    };
    let y = bld(imp.b.pool2d(kind, input, &options))?;
    if one_d {
        let s = y.shape().iter().map(|&d| d as usize).collect::<Vec<_>>();
        return imp.reshape_op(&y, &s[..3], &c.label);
    }
    Ok(y)
}

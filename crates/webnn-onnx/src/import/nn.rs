//! Global pooling, matrix products and normalizations; convolutions and pools are dispatched
//! to [`super::conv`].

use super::conv::{conv, conv_transpose, pool, CONV_ATTRIBUTES, CONV_TRANSPOSE_ATTRIBUTES};
use super::elementwise::webnn;
use super::support::OnnxOp;
use super::{bld, invalid, norm_axis, to_u32_shape, unsupported, Const, Ctx, Importer, NResult, Value};
use crate::tensor::ElemType;
use webnn_core::{
    BatchNormalizationOptions, Conv2dOptions, GemmOptions, InstanceNormalizationOptions, LayerNormalizationOptions,
    OpKind, Operand, ReduceOptions,
};

/// Convolutions, pools, matrix products and normalizations.
pub(crate) const OPS: &[OnnxOp] = &[
    OnnxOp::new(&["Conv"], import).attributes(CONV_ATTRIBUTES).inputs(2, 3),
    OnnxOp::new(&["ConvTranspose"], import).attributes(CONV_TRANSPOSE_ATTRIBUTES).inputs(2, 3),
    OnnxOp::new(&["MaxPool"], import).attributes(&[
        "auto_pad",
        "ceil_mode",
        "dilations",
        "kernel_shape",
        "pads",
        "storage_order",
        "strides",
    ]),
    OnnxOp::new(&["AveragePool"], import).attributes(&[
        "auto_pad",
        "ceil_mode",
        "count_include_pad",
        "dilations",
        "kernel_shape",
        "pads",
        "strides",
    ]),
    OnnxOp::new(&["LpPool"], import).attributes(&[
        "auto_pad",
        "ceil_mode",
        "dilations",
        "kernel_shape",
        "p",
        "pads",
        "strides",
    ]),
    OnnxOp::new(&["GlobalAveragePool", "GlobalMaxPool"], import),
    OnnxOp::new(&["GlobalLpPool"], import).attributes(&["p"]),
    OnnxOp::new(&["Gemm"], import).attributes(&["alpha", "beta", "transA", "transB"]).inputs(2, 3),
    OnnxOp::new(&["MatMul"], import).inputs(2, 2),
    OnnxOp::new(&["BatchNormalization"], import)
        .attributes(&["epsilon", "momentum", "spatial", "training_mode"])
        .inputs(5, 5),
    OnnxOp::new(&["InstanceNormalization"], import).attributes(&["epsilon"]).inputs(2, 3),
    OnnxOp::new(&["LayerNormalization"], import).attributes(&["axis", "epsilon", "stash_type"]).inputs(2, 3),
    OnnxOp::new(&["RMSNormalization"], import).attributes(&["axis", "epsilon", "stash_type"]).inputs(2, 2),
    OnnxOp::new(&["GroupNormalization"], import).attributes(&["epsilon", "num_groups", "stash_type"]).inputs(2, 3),
    OnnxOp::new(&["LpNormalization"], import).attributes(&["axis", "p"]),
    OnnxOp::new(&["MeanVarianceNormalization"], import).attributes(&["axes"]),
    OnnxOp::new(&["LRN"], import).attributes(&["alpha", "beta", "bias", "size"]),
];

/// Imports one node of this family.
pub(crate) fn import(imp: &mut Importer, c: &Ctx) -> NResult<Vec<Value>> {
    let x = c.req(0)?;
    let out = match c.op {
        "Conv" => conv(imp, c, x)?,
        "ConvTranspose" => conv_transpose(imp, c, x)?,
        "MaxPool" | "AveragePool" | "LpPool" => pool(imp, c, x)?,
        "GlobalAveragePool" | "GlobalMaxPool" | "GlobalLpPool" => {
            let rank = x.rank();
            if rank < 3 {
                return Err(invalid(format!("{} needs an input of rank >= 3", c.op)));
            }
            let kind = match c.op {
                "GlobalAveragePool" => OpKind::ReduceMean,
                "GlobalMaxPool" => OpKind::ReduceMax,
                _ => match c.attrs.int("p", 2)? {
                    2 => OpKind::ReduceL2,
                    1 => OpKind::ReduceL1,
                    p => return Err(unsupported(format!("GlobalLpPool with p={p}"))),
                },
            };
            let options =
                ReduceOptions { label: c.label.clone(), axes: Some((2..rank as u32).collect()), keep_dimensions: true };
            let a = imp.operand(x)?;
            bld(imp.b.reduce(kind, &a, &options))?
        }
        "Gemm" => {
            let (a, b) = (imp.operand(x)?, imp.operand(c.req(1)?)?);
            let beta = c.attrs.float("beta", 1.0)? as f64;
            let cc = match c.input(2) {
                Some(v) if beta != 0.0 => Some(imp.operand(v)?),
                _ => None,
            };
            let options = GemmOptions {
                label: c.label.clone(),
                c: cc,
                alpha: c.attrs.float("alpha", 1.0)? as f64,
                beta,
                a_transpose: c.attrs.int("transA", 0)? != 0,
                b_transpose: c.attrs.int("transB", 0)? != 0,
            };
            bld(imp.b.gemm(&a, &b, &options))?
        }
        "MatMul" => matmul(imp, c, x, c.req(1)?)?,
        "BatchNormalization" => {
            if c.attrs.int("training_mode", 0)? != 0 || (1..5).any(|i| c.wants(i)) {
                return Err(unsupported("BatchNormalization in training mode"));
            }
            if c.attrs.int("spatial", 1)? == 0 {
                return Err(unsupported("BatchNormalization with spatial=0"));
            }
            let ty = webnn(x.ty())?;
            let a = imp.operand(x)?;
            let mut param = |i: usize| -> NResult<Operand> {
                let v = c.req(i)?;
                let op = imp.operand(v)?;
                if op.data_type() != ty {
                    return bld(imp.b.cast(&op, ty, &c.opts()));
                }
                Ok(op)
            };
            let (scale, bias, mean, var) = (param(1)?, param(2)?, param(3)?, param(4)?);
            let options = BatchNormalizationOptions {
                label: c.label.clone(),
                scale: Some(scale),
                bias: Some(bias),
                axis: 1,
                epsilon: c.attrs.float("epsilon", 1e-5)? as f64,
            };
            bld(imp.b.batch_normalization(&a, &mean, &var, &options))?
        }
        "InstanceNormalization" => {
            let shape = x.shape();
            if shape.len() < 2 {
                return Err(invalid("InstanceNormalization needs an input of rank >= 2"));
            }
            let four = vec![shape[0], shape[1], shape[2..].iter().product(), 1];
            let a = imp.operand(x)?;
            let a = imp.reshape_op(&a, &four, &c.label)?;
            let options = InstanceNormalizationOptions {
                label: c.label.clone(),
                scale: Some(imp.operand(c.req(1)?)?),
                bias: Some(imp.operand(c.req(2)?)?),
                epsilon: c.attrs.float("epsilon", 1e-5)? as f64,
                ..Default::default()
            };
            let y = bld(imp.b.instance_normalization(&a, &options))?;
            imp.reshape_op(&y, &shape, &c.label)?
        }
        "LayerNormalization" => return layer_norm(imp, c, x),
        "RMSNormalization" => {
            let rank = x.rank();
            let axis = norm_axis(c.attrs.int("axis", -1)?, rank, "axis")?;
            let eps = c.attrs.float("epsilon", 1e-5)? as f64;
            let a = imp.operand(x)?;
            let o = c.opts();
            let sq = bld(imp.b.mul(&a, &a, &o))?;
            let axes = Some((axis as u32..rank as u32).collect());
            let mean =
                bld(imp.b.reduce_mean(&sq, &ReduceOptions { label: c.label.clone(), axes, keep_dimensions: true }))?;
            let e = imp.scalar(webnn(x.ty())?, eps)?;
            let d = bld(imp.b.add(&mean, &e, &o))?;
            let d = bld(imp.b.sqrt(&d, &o))?;
            let y = bld(imp.b.div(&a, &d, &o))?;
            let s = imp.operand(c.req(1)?)?;
            bld(imp.b.mul(&y, &s, &o))?
        }
        "GroupNormalization" => group_norm(imp, c, x)?,
        "LpNormalization" => {
            let axis = norm_axis(c.attrs.int("axis", -1)?, x.rank(), "axis")?;
            let kind = match c.attrs.int("p", 2)? {
                2 => OpKind::ReduceL2,
                1 => OpKind::ReduceL1,
                p => return Err(invalid(format!("LpNormalization p={p}"))),
            };
            let a = imp.operand(x)?;
            let options =
                ReduceOptions { label: c.label.clone(), axes: Some(vec![axis as u32]), keep_dimensions: true };
            let n = bld(imp.b.reduce(kind, &a, &options))?;
            // A zero norm divides by 1 (the ONNX reference leaves zero vectors at zero).
            let dt = webnn(x.ty())?;
            let (zero, one) = (imp.scalar(dt, 0.0)?, imp.scalar(dt, 1.0)?);
            let is_zero = bld(imp.b.equal(&n, &zero, &c.opts()))?;
            let n = bld(imp.b.where_(&is_zero, &one, &n, &c.opts()))?;
            bld(imp.b.div(&a, &n, &c.opts()))?
        }
        "MeanVarianceNormalization" => {
            let rank = x.rank();
            let axes = c.attrs.ints("axes")?.unwrap_or_else(|| vec![0, 2, 3]);
            let axes = super::norm_axes(&axes, rank, "axes")?;
            let options = ReduceOptions {
                label: c.label.clone(),
                axes: Some(axes.iter().map(|&a| a as u32).collect()),
                keep_dimensions: true,
            };
            let o = c.opts();
            let a = imp.operand(x)?;
            let mean = bld(imp.b.reduce_mean(&a, &options))?;
            let sq = bld(imp.b.mul(&a, &a, &o))?;
            let mean_sq = bld(imp.b.reduce_mean(&sq, &options))?;
            let sq_mean = bld(imp.b.mul(&mean, &mean, &o))?;
            let var = bld(imp.b.sub(&mean_sq, &sq_mean, &o))?;
            let std = bld(imp.b.sqrt(&var, &o))?;
            let eps = imp.scalar(webnn(x.ty())?, 1e-9)?;
            let std = bld(imp.b.add(&std, &eps, &o))?;
            let centered = bld(imp.b.sub(&a, &mean, &o))?;
            bld(imp.b.div(&centered, &std, &o))?
        }
        "LRN" => lrn(imp, c, x)?,
        other => return Err(unsupported(format!("operator {other} has no WebNN mapping"))),
    };
    Ok(vec![Value::dynamic(out, x.ty())])
}

/// MatMul with numpy semantics for 1-D operands.
pub(crate) fn matmul(imp: &mut Importer, c: &Ctx, a: &Value, b: &Value) -> NResult<Operand> {
    let (sa, sb) = (a.shape(), b.shape());
    if sa.is_empty() || sb.is_empty() {
        return Err(invalid("MatMul operands must have rank >= 1"));
    }
    let mut oa = imp.operand(a)?;
    let mut ob = imp.operand(b)?;
    if sa.len() == 1 {
        oa = imp.reshape_op(&oa, &[1, sa[0]], &c.label)?;
    }
    if sb.len() == 1 {
        ob = imp.reshape_op(&ob, &[sb[0], 1], &c.label)?;
    }
    let y = bld(imp.b.matmul(&oa, &ob, &c.opts()))?;
    if sa.len() == 1 || sb.len() == 1 {
        let mut s: Vec<usize> = y.shape().iter().map(|&d| d as usize).collect();
        let r = s.len();
        if sb.len() == 1 {
            s.remove(r - 1);
        }
        if sa.len() == 1 {
            s.remove(r - 2);
        }
        return imp.reshape_op(&y, &s, &c.label);
    }
    Ok(y)
}

fn layer_norm(imp: &mut Importer, c: &Ctx, x: &Value) -> NResult<Vec<Value>> {
    let shape = x.shape();
    let rank = shape.len();
    let axis = norm_axis(c.attrs.int("axis", -1)?, rank, "axis")?;
    let eps = c.attrs.float("epsilon", 1e-5)? as f64;
    let norm_shape = shape[axis..].to_vec();
    let axes: Vec<u32> = (axis as u32..rank as u32).collect();
    let o = c.opts();
    let a = imp.operand(x)?;
    // Scale and bias must have exactly the normalized shape for WebNN; otherwise they are
    // applied after normalizing.
    let fits = |v: &Value| {
        let s = v.shape();
        s.len() <= norm_shape.len() && s.iter().rev().zip(norm_shape.iter().rev()).all(|(&d, &n)| d == n || d == 1)
            || s.iter().product::<usize>() == 1
    };
    let mut late = Vec::new();
    let mut param = |imp: &mut Importer, i: usize| -> NResult<Option<Operand>> {
        let Some(v) = c.input(i) else { return Ok(None) };
        if v.shape() == norm_shape {
            return Ok(Some(imp.operand(v)?));
        }
        if fits(v) {
            let op = imp.operand(v)?;
            let s: Vec<usize> =
                std::iter::repeat_n(1, norm_shape.len() - v.rank().min(norm_shape.len())).chain(v.shape()).collect();
            let s = if s.len() > norm_shape.len() { vec![1; norm_shape.len()] } else { s };
            let r = imp.reshape_op(&op, &s, &c.label)?;
            if s == norm_shape {
                return Ok(Some(r));
            }
            return Ok(Some(bld(imp.b.expand(&r, &to_u32_shape(&norm_shape)?, &o))?));
        }
        late.push((i, imp.operand(v)?));
        Ok(None)
    };
    let scale = param(imp, 1)?;
    let bias = param(imp, 2)?;
    let options =
        LayerNormalizationOptions { label: c.label.clone(), scale, bias, axes: Some(axes.clone()), epsilon: eps };
    let mut y = bld(imp.b.layer_normalization(&a, &options))?;
    for (i, p) in late {
        y = if i == 1 { bld(imp.b.mul(&y, &p, &o))? } else { bld(imp.b.add(&y, &p, &o))? };
    }
    let mut outs = vec![Value::dynamic(y, x.ty())];
    if c.wants(1) || c.wants(2) {
        let r = ReduceOptions { label: c.label.clone(), axes: Some(axes), keep_dimensions: true };
        let mean = bld(imp.b.reduce_mean(&a, &r))?;
        let d = bld(imp.b.sub(&a, &mean, &o))?;
        let d2 = bld(imp.b.mul(&d, &d, &o))?;
        let var = bld(imp.b.reduce_mean(&d2, &r))?;
        let e = imp.scalar(webnn(x.ty())?, eps)?;
        let var = bld(imp.b.add(&var, &e, &o))?;
        let std = bld(imp.b.sqrt(&var, &o))?;
        let inv = bld(imp.b.reciprocal(&std, &o))?;
        outs.push(Value::dynamic(mean, x.ty()));
        outs.push(Value::dynamic(inv, x.ty()));
    }
    Ok(outs)
}

fn group_norm(imp: &mut Importer, c: &Ctx, x: &Value) -> NResult<Operand> {
    let shape = x.shape();
    if shape.len() < 3 {
        return Err(invalid("GroupNormalization needs an input of rank >= 3"));
    }
    let groups = c.attrs.opt_int("num_groups")?.ok_or_else(|| invalid("num_groups is required"))?;
    let (n, ch) = (shape[0], shape[1]);
    if groups <= 0 || ch % groups as usize != 0 {
        return Err(invalid("num_groups must divide the channels"));
    }
    let g = groups as usize;
    let rest: usize = shape[1..].iter().product::<usize>() / g;
    let a = imp.operand(x)?;
    let r = imp.reshape_op(&a, &[n, g, rest], &c.label)?;
    let options = LayerNormalizationOptions {
        label: c.label.clone(),
        axes: Some(vec![2]),
        epsilon: c.attrs.float("epsilon", 1e-5)? as f64,
        ..Default::default()
    };
    let y = bld(imp.b.layer_normalization(&r, &options))?;
    let y = imp.reshape_op(&y, &shape, &c.label)?;
    // Per-channel scale and bias (opset 18 gives them per group: repeat each C/G times).
    let mut bshape = vec![1; shape.len()];
    bshape[1] = ch;
    let per_channel = |imp: &mut Importer, v: &Value| -> NResult<Operand> {
        let s = v.shape();
        let v = if s == [g] && g != ch {
            let k = v.as_const().ok_or_else(|| unsupported("per-group scale computed at run time"))?;
            let vals = k.f64s()?;
            let rep: Vec<f64> = (0..ch).map(|i| vals[i / (ch / g)]).collect();
            Value::constant(Const::from_f64s(k.ty, vec![ch], &rep))
        } else {
            v.clone()
        };
        let v = imp.reshape_value(&v, &bshape, &c.label)?;
        imp.operand(&v)
    };
    let scale = per_channel(imp, c.req(1)?)?;
    let bias = per_channel(imp, c.req(2)?)?;
    let y = bld(imp.b.mul(&y, &scale, &c.opts()))?;
    bld(imp.b.add(&y, &bias, &c.opts()))
}

/// LRN: x / (bias + alpha/size * sum of squares over a channel window)^beta; the window sum is
/// a convolution with a ones filter over the channel axis.
fn lrn(imp: &mut Importer, c: &Ctx, x: &Value) -> NResult<Operand> {
    let shape = x.shape();
    if shape.len() < 3 {
        return Err(invalid("LRN needs an input of rank >= 3"));
    }
    let size = c.attrs.opt_int("size")?.ok_or_else(|| invalid("LRN requires size"))?;
    if size <= 0 {
        return Err(invalid("LRN size must be positive"));
    }
    if size > 1 << 16 {
        return Err(unsupported(format!("LRN size {size}")));
    }
    let size = size as usize;
    let (alpha, beta, bias) =
        (c.attrs.float("alpha", 1e-4)? as f64, c.attrs.float("beta", 0.75)? as f64, c.attrs.float("bias", 1.0)? as f64);
    let ty = x.ty();
    if ty != ElemType::F32 && ty != ElemType::F16 {
        return Err(unsupported(format!("LRN on {ty}")));
    }
    let dt = webnn(ty)?;
    let o = c.opts();
    let a = imp.operand(x)?;
    let sq = bld(imp.b.mul(&a, &a, &o))?;
    let rest: usize = shape[2..].iter().product();
    let sq = imp.reshape_op(&sq, &[shape[0], 1, shape[1], rest], &c.label)?;
    let ones = Const::from_f64s(ty, vec![1, 1, size, 1], &vec![1.0; size]);
    let filter = imp.operand(&Value::constant(ones))?;
    let before = (size - 1) / 2;
    let options = Conv2dOptions {
        label: c.label.clone(),
        padding: Some(vec![before as u32, (size - 1 - before) as u32, 0, 0]),
        ..Conv2dOptions::new()
    };
    let sum = bld(imp.b.conv2d(&sq, &filter, &options))?;
    let sum = imp.reshape_op(&sum, &shape, &c.label)?;
    let k = imp.scalar(dt, alpha / size as f64)?;
    let d = bld(imp.b.mul(&sum, &k, &o))?;
    let bias = imp.scalar(dt, bias)?;
    let d = bld(imp.b.add(&d, &bias, &o))?;
    let beta = imp.scalar(dt, beta)?;
    let d = bld(imp.b.pow(&d, &beta, &o))?;
    bld(imp.b.div(&a, &d, &o))
}

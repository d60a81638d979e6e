//! Quantization: QuantizeLinear / DequantizeLinear (per-tensor, per-axis and blocked scales
//! become WebNN's blockwise scales of the input's rank), DynamicQuantizeLinear, and the
//! QOperator-format ops QLinearMatMul, QLinearConv, MatMulInteger and ConvInteger, which run
//! as dequantize → float op → quantize (the integer ops accumulate in float32: exact while the
//! accumulated magnitudes stay below 2^24).

use super::conv::{conv_with, CONV_ATTRIBUTES};
use super::elementwise::webnn;
use super::fold::elem_type;
use super::nn::matmul;
use super::support::OnnxOp;
use super::{bld, invalid, norm_axis, unsupported, Const, Ctx, Importer, NResult, Value};
use crate::tensor::ElemType;
use webnn_core::{DataType, Operand, ReduceOptions};

/// The quantization operators.
pub(crate) const OPS: &[OnnxOp] = &[
    OnnxOp::new(&["QuantizeLinear"], import)
        .attributes(&["axis", "block_size", "output_dtype", "saturate", "precision"])
        .inputs(2, 3),
    OnnxOp::new(&["DequantizeLinear"], import).attributes(&["axis", "block_size", "output_dtype"]).inputs(2, 3),
    OnnxOp::new(&["DynamicQuantizeLinear"], import),
    OnnxOp::new(&["QLinearMatMul"], import).inputs(8, 8),
    OnnxOp::new(&["QLinearConv"], import).attributes(CONV_ATTRIBUTES).inputs(8, 9),
    OnnxOp::new(&["MatMulInteger"], import).inputs(2, 4),
    OnnxOp::new(&["ConvInteger"], import).attributes(CONV_ATTRIBUTES).inputs(2, 4),
];

/// Imports one quantization node.
pub(crate) fn import(imp: &mut Importer, c: &Ctx) -> NResult<Vec<Value>> {
    match c.op {
        "QuantizeLinear" | "DequantizeLinear" => quantize(imp, c, c.req(0)?),
        "DynamicQuantizeLinear" => dynamic_quantize(imp, c),
        "QLinearMatMul" => {
            let a = dequant(imp, c, 0, 1, Some(2), Axis::Rows)?;
            let b = dequant(imp, c, 3, 4, Some(5), Axis::Columns)?;
            let y = matmul(imp, c, &Value::dynamic(a, ElemType::F32), &Value::dynamic(b, ElemType::F32))?;
            requant(imp, c, y, 6, 7)
        }
        "QLinearConv" => {
            let x = dequant(imp, c, 0, 1, Some(2), Axis::None)?;
            let w = dequant(imp, c, 3, 4, Some(5), Axis::Dim(0))?;
            // The int32 bias has scale x_scale * w_scale and zero point 0.
            let bias = match c.input(8) {
                Some(b) => {
                    let b = imp.operand(b)?;
                    let b = bld(imp.b.cast(&b, DataType::Float32, &c.opts()))?;
                    let xs = imp.operand(c.req(1)?)?;
                    let xs = imp.reshape_op(&xs, &[], &c.label)?;
                    let ws = imp.operand(c.req(4)?)?;
                    let b = bld(imp.b.mul(&b, &xs, &c.opts()))?;
                    Some(bld(imp.b.mul(&b, &ws, &c.opts()))?)
                }
                None => None,
            };
            let y = conv_with(imp, c, &Value::dynamic(x, ElemType::F32), &Value::dynamic(w, ElemType::F32), bias)?;
            requant(imp, c, y, 6, 7)
        }
        "MatMulInteger" | "ConvInteger" => {
            let a = integer_operand(imp, c, 0, 2, if c.op == "MatMulInteger" { Axis::Rows } else { Axis::None })?;
            let b = integer_operand(imp, c, 1, 3, if c.op == "MatMulInteger" { Axis::Columns } else { Axis::Dim(0) })?;
            let (va, vb) = (Value::dynamic(a, ElemType::F32), Value::dynamic(b, ElemType::F32));
            let y =
                if c.op == "MatMulInteger" { matmul(imp, c, &va, &vb)? } else { conv_with(imp, c, &va, &vb, None)? };
            let y = bld(imp.b.cast(&y, DataType::Int32, &c.opts()))?;
            Ok(vec![Value::dynamic(y, ElemType::I32)])
        }
        other => Err(unsupported(format!("operator {other} has no WebNN mapping"))),
    }
}

/// Which axis a 1-D scale or zero point of a QOperator input runs along.
#[derive(Clone, Copy)]
enum Axis {
    /// Scalars only.
    None,
    /// One value per row of a matrix (axis rank-2).
    Rows,
    /// One value per column of a matrix (axis rank-1).
    Columns,
    /// One value per index of this axis.
    Dim(usize),
}

/// The shape a scale of `s_len` elements takes to broadcast blockwise over `shape`.
fn scale_shape(shape: &[usize], s_len: usize, axis: Axis) -> NResult<Vec<usize>> {
    let rank = shape.len();
    let mut t = vec![1; rank];
    if s_len == 1 {
        return Ok(t);
    }
    let a = match axis {
        Axis::Rows if rank >= 2 => rank - 2,
        Axis::Columns if rank >= 1 => rank - 1,
        Axis::Dim(d) if d < rank => d,
        _ => return Err(invalid(format!("a scale of {s_len} values does not fit shape {shape:?}"))),
    };
    if shape[a] != s_len {
        return Err(invalid(format!("a scale of {s_len} values does not fit axis {a} of shape {shape:?}")));
    }
    t[a] = s_len;
    Ok(t)
}

/// dequantizeLinear of input `x` with scale input `s` and zero-point input `z`.
fn dequant(imp: &mut Importer, c: &Ctx, x: usize, s: usize, z: Option<usize>, axis: Axis) -> NResult<Operand> {
    let xv = c.req(x)?;
    let shape = xv.shape();
    let scale = c.req(s)?;
    let target = scale_shape(&shape, scale.shape().iter().product(), axis)?;
    let scale = imp.reshape_value(scale, &target, &c.label)?;
    let zp = match z.and_then(|z| c.input(z)) {
        Some(v) => imp.reshape_value(v, &target, &c.label)?,
        None => Value::constant(Const::from_i64s(xv.ty(), target.clone(), &vec![0; target.iter().product()])),
    };
    let (input, s, z) = (imp.operand(xv)?, imp.operand(&scale)?, imp.operand(&zp)?);
    bld(imp.b.dequantize_linear(&input, &s, &z, &c.opts()))
}

/// quantizeLinear of a float result with scale input `s` and zero-point input `z`.
fn requant(imp: &mut Importer, c: &Ctx, y: Operand, s: usize, z: usize) -> NResult<Vec<Value>> {
    let shape: Vec<usize> = y.shape().iter().map(|&d| d as usize).collect();
    let ones = vec![1; shape.len()];
    let scale = imp.reshape_value(c.req(s)?, &ones, &c.label)?;
    let zv = c.req(z)?;
    let zp = imp.reshape_value(zv, &ones, &c.label)?;
    let (sc, zo) = (imp.operand(&scale)?, imp.operand(&zp)?);
    let out = bld(imp.b.quantize_linear(&y, &sc, &zo, &c.opts()))?;
    Ok(vec![Value::dynamic(out, zv.ty())])
}

/// An integer input minus its zero point, as float32: `dequantizeLinear(x, 1.0, zero point)`,
/// exact (the difference of two 8-bit integers times one). Written as a dequantize rather
/// than cast and subtract so that the CPU's compile pass (`compile::quantized`) can see the
/// integer matmul behind it and run it on integers.
fn integer_operand(imp: &mut Importer, c: &Ctx, x: usize, z: usize, axis: Axis) -> NResult<Operand> {
    let xv = c.req(x)?;
    let shape = xv.shape();
    let target = match c.input(z) {
        Some(zv) => scale_shape(&shape, zv.shape().iter().product(), axis)?,
        None => vec![1; shape.len()],
    };
    let count = target.iter().product();
    let zp = match c.input(z) {
        Some(zv) => imp.reshape_value(zv, &target, &c.label)?,
        None => Value::constant(Const::from_i64s(xv.ty(), target.clone(), &vec![0; count])),
    };
    let one = Value::constant(Const::from_f64s(ElemType::F32, target, &vec![1.0; count]));
    let (input, s, zo) = (imp.operand(xv)?, imp.operand(&one)?, imp.operand(&zp)?);
    bld(imp.b.dequantize_linear(&input, &s, &zo, &c.opts()))
}

/// DynamicQuantizeLinear: uint8 with scale (max(x,0) - min(x,0)) / 255 and the zero point
/// that maps min(x,0) to 0.
fn dynamic_quantize(imp: &mut Importer, c: &Ctx) -> NResult<Vec<Value>> {
    let x = c.req(0)?;
    let rank = x.rank();
    let a = imp.operand(x)?;
    let o = c.opts();
    let all = ReduceOptions { label: c.label.clone(), axes: None, keep_dimensions: false };
    let mx = bld(imp.b.reduce_max(&a, &all))?;
    let mn = bld(imp.b.reduce_min(&a, &all))?;
    let zero = imp.scalar(DataType::Float32, 0.0)?;
    let mx = bld(imp.b.max(&mx, &zero, &o))?;
    let mn = bld(imp.b.min(&mn, &zero, &o))?;
    let range = bld(imp.b.sub(&mx, &mn, &o))?;
    let k = imp.scalar(DataType::Float32, 255.0)?;
    let scale = bld(imp.b.div(&range, &k, &o))?;
    let neg = bld(imp.b.neg(&mn, &o))?;
    let zp = bld(imp.b.div(&neg, &scale, &o))?;
    let zp = bld(imp.b.round_even(&zp, &o))?;
    let options = webnn_core::ClampOptions {
        label: c.label.clone(),
        min_value: Some(webnn_core::MLNumber::Double(0.0)),
        max_value: Some(webnn_core::MLNumber::Double(255.0)),
    };
    let zp = bld(imp.b.clamp(&zp, &options))?;
    let zp = bld(imp.b.cast(&zp, DataType::Uint8, &o))?;
    let ones = vec![1; rank];
    let s4 = imp.reshape_op(&scale, &ones, &c.label)?;
    let z4 = imp.reshape_op(&zp, &ones, &c.label)?;
    let y = bld(imp.b.quantize_linear(&a, &s4, &z4, &o))?;
    Ok(vec![Value::dynamic(y, ElemType::U8), Value::dynamic(scale, ElemType::F32), Value::dynamic(zp, ElemType::U8)])
}

/// QuantizeLinear / DequantizeLinear: per-tensor, per-axis (`axis`) and blocked
/// (`block_size`) scales become WebNN's blockwise-broadcast scale of the input's rank.
fn quantize(imp: &mut Importer, c: &Ctx, x: &Value) -> NResult<Vec<Value>> {
    let quantize = c.op == "QuantizeLinear";
    let shape = x.shape();
    let rank = shape.len();
    let scale = c.req(1)?;
    let s_shape = scale.shape();
    let block = c.attrs.int("block_size", 0)?;
    // The scale's shape as WebNN needs it (the input's rank).
    let target: Vec<usize> = if s_shape.iter().product::<usize>() == 1 && block == 0 {
        vec![1; rank]
    } else if block == 0 {
        if s_shape.len() != 1 {
            return Err(invalid("a per-axis scale must be 1-D"));
        }
        let axis = norm_axis(c.attrs.int("axis", 1)?, rank, "axis")?;
        let mut t = vec![1; rank];
        t[axis] = s_shape[0];
        t
    } else {
        if s_shape.len() != rank {
            return Err(invalid("a blocked scale must have the input's rank"));
        }
        let axis = norm_axis(c.attrs.int("axis", 1)?, rank, "axis")?;
        if (block as usize).checked_mul(s_shape[axis]) != Some(shape[axis]) {
            return Err(unsupported("blocked quantization whose last block is partial"));
        }
        s_shape.clone()
    };
    let label = c.label.clone();
    let scale_v = imp.reshape_value(scale, &target, &label)?;
    let zp_ty = match c.input(2) {
        Some(z) => z.ty(),
        None if quantize => match c.attrs.opt_int("output_dtype")? {
            Some(code) if code != 0 => elem_type(code)?,
            _ => ElemType::U8,
        },
        None => x.ty(),
    };
    let zp_v = match c.input(2) {
        Some(z) => imp.reshape_value(z, &target, &label)?,
        None => Value::constant(Const::from_i64s(zp_ty, target.clone(), &vec![0; target.iter().product()])),
    };
    let input = imp.operand(x)?;
    let (s, z) = (imp.operand(&scale_v)?, imp.operand(&zp_v)?);
    let o = c.opts();
    if quantize {
        if matches!(zp_ty, ElemType::Bool) {
            return Err(unsupported("quantizing to bool"));
        }
        let out = bld(imp.b.quantize_linear(&input, &s, &z, &o))?;
        Ok(vec![Value::dynamic(out, zp_ty)])
    } else {
        let out = bld(imp.b.dequantize_linear(&input, &s, &z, &o))?;
        let out_ty = match c.attrs.opt_int("output_dtype")? {
            Some(code) if code != 0 => elem_type(code)?,
            _ => scale.ty(),
        };
        if out_ty != scale.ty() {
            let cast = bld(imp.b.cast(&out, webnn(out_ty)?, &o))?;
            return Ok(vec![Value::dynamic(cast, out_ty)]);
        }
        Ok(vec![Value::dynamic(out, scale.ty())])
    }
}

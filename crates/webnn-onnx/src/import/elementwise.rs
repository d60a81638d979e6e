//! Element-wise operators and activations: arithmetic, math, comparisons, logic, Cast, Where,
//! Clip, the activation family and Identity/Dropout.

use super::fold::elem_type;
use super::shape_ops::number_of;
use super::support::OnnxOp;
use super::{bld, invalid, unsupported, Const, Ctx, Importer, NResult, Value};
use crate::tensor::ElemType;
use webnn_core::{ClampOptions, DataType, EluOptions, HardSigmoidOptions, LeakyReluOptions, MLNumber, OpKind, Operand};

/// The element-wise operators and activations.
pub(crate) const OPS: &[OnnxOp] = &[
    OnnxOp::new(&["Add", "Sub", "Mul", "Div", "Pow", "PRelu"], import).inputs(2, 2),
    OnnxOp::new(&["Max", "Min", "Sum", "Mean"], import).inputs(1, usize::MAX),
    OnnxOp::new(&["Mod"], import).attributes(&["fmod"]).inputs(2, 2),
    OnnxOp::new(&["And", "Or", "Xor", "Equal", "Greater", "GreaterOrEqual", "Less", "LessOrEqual"], import)
        .inputs(2, 2),
    OnnxOp::new(&["Sqrt", "Exp", "Log", "Abs", "Neg", "Reciprocal", "Floor", "Ceil", "Round", "Sign", "Erf"], import),
    OnnxOp::new(&["Sin", "Cos", "Tan", "Sinh", "Cosh", "Not", "IsNaN", "Identity"], import),
    OnnxOp::new(&["Relu", "Sigmoid", "Tanh", "Softplus", "Softsign", "HardSwish", "Mish"], import),
    OnnxOp::new(&["IsInf"], import).attributes(&["detect_negative", "detect_positive"]),
    OnnxOp::new(&["Where"], import).inputs(3, 3),
    OnnxOp::new(&["Cast"], import).attributes(&["to", "saturate", "round_mode"]),
    OnnxOp::new(&["CastLike"], import).attributes(&["saturate", "round_mode"]).inputs(2, 2),
    OnnxOp::new(&["Dropout"], import).attributes(&["ratio", "seed", "is_test"]).inputs(1, 3),
    OnnxOp::new(&["Clip"], import).attributes(&["min", "max"]).inputs(1, 3),
    OnnxOp::new(&["Gelu"], import).attributes(&["approximate"]),
    OnnxOp::new(&["Elu", "LeakyRelu", "Celu", "ThresholdedRelu", "Swish"], import).attributes(&["alpha"]),
    OnnxOp::new(&["Selu"], import).attributes(&["alpha", "gamma"]),
    OnnxOp::new(&["HardSigmoid"], import).attributes(&["alpha", "beta"]),
    OnnxOp::new(&["Shrink"], import).attributes(&["bias", "lambd"]),
    OnnxOp::new(&["SwiGLU"], import).attributes(&["alpha"]).inputs(2, 2),
];

/// Imports one element-wise node.
pub(crate) fn import(imp: &mut Importer, c: &Ctx) -> NResult<Vec<Value>> {
    let x = c.req(0)?;
    let ty = x.ty();
    let o = c.opts();
    let done = |op: Operand, ty: ElemType| Ok(vec![Value::dynamic(op, ty)]);
    match c.op {
        "Add" | "Sub" | "Mul" | "Div" | "Max" | "Min" | "Sum" | "Mean" | "Pow" => {
            let kind = match c.op {
                "Add" | "Sum" | "Mean" => OpKind::Add,
                "Sub" => OpKind::Sub,
                "Mul" => OpKind::Mul,
                "Div" => OpKind::Div,
                "Max" => OpKind::Max,
                "Min" => OpKind::Min,
                _ => OpKind::Pow,
            };
            let mut acc = imp.operand(x)?;
            let mut n = 1;
            for i in 1..c.n_inputs() {
                let Some(v) = c.input(i) else { continue };
                let mut b = imp.operand(v)?;
                if v.ty() != ty {
                    if c.op != "Pow" {
                        return Err(invalid(format!("{} inputs have different types {ty} and {}", c.op, v.ty())));
                    }
                    b = bld(imp.b.cast(&b, webnn(ty)?, &o))?;
                }
                acc = bld(imp.b.binary(kind, &acc, &b, &o))?;
                n += 1;
            }
            if c.op == "Mean" && n > 1 {
                let k = imp.scalar(webnn(ty)?, n as f64)?;
                acc = bld(imp.b.div(&acc, &k, &o))?;
            }
            done(acc, ty)
        }
        "Mod" => {
            let a = imp.operand(x)?;
            let b = imp.operand(c.req(1)?)?;
            let fmod = c.attrs.int("fmod", 0)? != 0;
            // Truncated remainder r = a - b * trunc(a / b).
            let q = bld(imp.b.div(&a, &b, &o))?;
            let q = if ty.is_float() { imp.trunc(&q, c)? } else { q };
            let mut bq = bld(imp.b.mul(&b, &q, &o))?;
            if ty.is_float() {
                // x mod ±inf is x (before the sign fix-up): b * trunc(x / inf) would be NaN.
                let inf = bld(imp.b.is_infinite(&b, &o))?;
                let zero = imp.scalar(webnn(ty)?, 0.0)?;
                bq = bld(imp.b.where_(&inf, &zero, &bq, &o))?;
            }
            let r = bld(imp.b.sub(&a, &bq, &o))?;
            if fmod {
                return done(r, ty);
            }
            // Python-style: the result takes the divisor's sign.
            let zero = imp.scalar(webnn(ty)?, 0.0)?;
            let r_nonzero = bld(imp.b.not_equal(&r, &zero, &o))?;
            let r_neg = bld(imp.b.lesser(&r, &zero, &o))?;
            let b_neg = bld(imp.b.lesser(&b, &zero, &o))?;
            let signs_differ = bld(imp.b.logical_xor(&r_neg, &b_neg, &o))?;
            let fix = bld(imp.b.logical_and(&r_nonzero, &signs_differ, &o))?;
            let r_plus_b = bld(imp.b.add(&r, &b, &o))?;
            done(bld(imp.b.where_(&fix, &r_plus_b, &r, &o))?, ty)
        }
        "Sqrt" | "Exp" | "Log" | "Abs" | "Neg" | "Reciprocal" | "Floor" | "Ceil" | "Round" | "Sign" | "Sin" | "Cos"
        | "Tan" | "Erf" | "Not" | "IsNaN" => {
            let kind = match c.op {
                "Sqrt" => OpKind::Sqrt,
                "Exp" => OpKind::Exp,
                "Log" => OpKind::Log,
                "Abs" => OpKind::Abs,
                "Neg" => OpKind::Neg,
                "Reciprocal" => OpKind::Reciprocal,
                "Floor" => OpKind::Floor,
                "Ceil" => OpKind::Ceil,
                "Round" => OpKind::RoundEven,
                "Sign" => OpKind::Sign,
                "Sin" => OpKind::Sin,
                "Cos" => OpKind::Cos,
                "Tan" => OpKind::Tan,
                "Erf" => OpKind::Erf,
                "Not" => OpKind::LogicalNot,
                _ => OpKind::IsNaN,
            };
            let a = imp.operand(x)?;
            let out_ty = if c.op == "IsNaN" { ElemType::Bool } else { ty };
            done(bld(imp.b.unary(kind, &a, &o))?, out_ty)
        }
        "Sinh" | "Cosh" => {
            let a = imp.operand(x)?;
            let e = bld(imp.b.exp(&a, &o))?;
            let na = bld(imp.b.neg(&a, &o))?;
            let en = bld(imp.b.exp(&na, &o))?;
            let s = if c.op == "Sinh" { bld(imp.b.sub(&e, &en, &o))? } else { bld(imp.b.add(&e, &en, &o))? };
            let half = imp.scalar(webnn(ty)?, 0.5)?;
            done(bld(imp.b.mul(&s, &half, &o))?, ty)
        }
        "And" | "Or" | "Xor" | "Equal" | "Greater" | "GreaterOrEqual" | "Less" | "LessOrEqual" => {
            let kind = match c.op {
                "And" => OpKind::LogicalAnd,
                "Or" => OpKind::LogicalOr,
                "Xor" => OpKind::LogicalXor,
                "Equal" => OpKind::Equal,
                "Greater" => OpKind::Greater,
                "GreaterOrEqual" => OpKind::GreaterOrEqual,
                "Less" => OpKind::Lesser,
                _ => OpKind::LesserOrEqual,
            };
            let a = imp.operand(x)?;
            let b = imp.operand(c.req(1)?)?;
            done(bld(imp.b.binary(kind, &a, &b, &o))?, ElemType::Bool)
        }
        "IsInf" => {
            let a = imp.operand(x)?;
            let inf = bld(imp.b.is_infinite(&a, &o))?;
            let (neg, pos) = (c.attrs.int("detect_negative", 1)? != 0, c.attrs.int("detect_positive", 1)? != 0);
            let out = match (neg, pos) {
                (true, true) => inf,
                (n, _) => {
                    let zero = imp.scalar(webnn(ty)?, 0.0)?;
                    let side = if n { bld(imp.b.lesser(&a, &zero, &o))? } else { bld(imp.b.greater(&a, &zero, &o))? };
                    let side = if !n && !pos { bld(imp.b.lesser(&side, &side, &o))? } else { side };
                    bld(imp.b.logical_and(&inf, &side, &o))?
                }
            };
            done(out, ElemType::Bool)
        }
        "Where" => {
            let cond = imp.operand(x)?;
            let a = c.req(1)?;
            let b = imp.operand(c.req(2)?)?;
            let a_op = imp.operand(a)?;
            done(bld(imp.b.where_(&cond, &a_op, &b, &o))?, a.ty())
        }
        "Cast" | "CastLike" => {
            let to = if c.op == "Cast" {
                elem_type(c.attrs.opt_int("to")?.ok_or_else(|| invalid("Cast requires 'to'"))?)?
            } else {
                c.req(1)?.ty()
            };
            cast_value(imp, x, to, c).map(|v| vec![v])
        }
        "Identity" => Ok(vec![x.clone()]),
        "Dropout" => {
            if let Some(t) = imp.const_input(c, 2)? {
                if t.len() == 1 && t.i64_at(0) != 0 {
                    return Err(unsupported("Dropout in training mode"));
                }
            }
            let mut outs = vec![x.clone()];
            if c.wants(1) {
                outs.push(Value::constant(Const::splat(ElemType::Bool, x.shape(), vec![1])));
            }
            Ok(outs)
        }
        "Clip" => {
            let a = imp.operand(x)?;
            if c.opset < 11 {
                let options = ClampOptions {
                    label: c.label.clone(),
                    min_value: c.attrs.opt_float("min")?.map(|v| MLNumber::Double(v as f64)),
                    max_value: c.attrs.opt_float("max")?.map(|v| MLNumber::Double(v as f64)),
                };
                return done(bld(imp.b.clamp(&a, &options))?, ty);
            }
            let (lo, hi) = (c.input(1), c.input(2));
            let is_static = |v: Option<&Value>| v.is_none_or(|v| matches!(v, Value::Const(k) if k.len() == 1));
            if is_static(lo) && is_static(hi) {
                let num = |v: Option<&Value>| v.and_then(|v| v.as_const()).map(number_of);
                let options = ClampOptions { label: c.label.clone(), min_value: num(lo), max_value: num(hi) };
                return done(bld(imp.b.clamp(&a, &options))?, ty);
            }
            let mut out = a;
            if let Some(lo) = lo {
                let lo = imp.operand(lo)?;
                out = bld(imp.b.max(&out, &lo, &o))?;
            }
            if let Some(hi) = hi {
                let hi = imp.operand(hi)?;
                out = bld(imp.b.min(&out, &hi, &o))?;
            }
            done(out, ty)
        }
        "Relu" | "Sigmoid" | "Tanh" | "Softplus" | "Softsign" | "HardSwish" => {
            let kind = match c.op {
                "Relu" => OpKind::Relu,
                "Sigmoid" => OpKind::Sigmoid,
                "Tanh" => OpKind::Tanh,
                "Softplus" => OpKind::Softplus,
                "Softsign" => OpKind::Softsign,
                _ => OpKind::HardSwish,
            };
            let a = imp.operand(x)?;
            done(bld(imp.b.activation(kind, &a, &o))?, ty)
        }
        "Gelu" => {
            let a = imp.operand(x)?;
            match c.attrs.string("approximate", "none")?.as_str() {
                "none" => done(bld(imp.b.gelu(&a, &o))?, ty),
                "tanh" => {
                    // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
                    let dt = webnn(ty)?;
                    let x3 = bld(imp.b.mul(&a, &a, &o))?;
                    let x3 = bld(imp.b.mul(&x3, &a, &o))?;
                    let k = imp.scalar(dt, 0.044715)?;
                    let t = bld(imp.b.mul(&x3, &k, &o))?;
                    let t = bld(imp.b.add(&a, &t, &o))?;
                    let s = imp.scalar(dt, (2.0 / std::f64::consts::PI).sqrt())?;
                    let t = bld(imp.b.mul(&t, &s, &o))?;
                    let t = bld(imp.b.tanh(&t, &o))?;
                    let one = imp.scalar(dt, 1.0)?;
                    let t = bld(imp.b.add(&t, &one, &o))?;
                    let half = imp.scalar(dt, 0.5)?;
                    let t = bld(imp.b.mul(&t, &half, &o))?;
                    done(bld(imp.b.mul(&a, &t, &o))?, ty)
                }
                m => Err(unsupported(format!("Gelu approximate='{m}'"))),
            }
        }
        "Elu" => {
            let a = imp.operand(x)?;
            let options = EluOptions { label: c.label.clone(), alpha: c.attrs.float("alpha", 1.0)? as f64 };
            done(bld(imp.b.elu(&a, &options))?, ty)
        }
        "Selu" => {
            let a = imp.operand(x)?;
            let alpha = c.attrs.float("alpha", 1.673_263_2)? as f64;
            let gamma = c.attrs.float("gamma", 1.050_701)? as f64;
            let e = bld(imp.b.elu(&a, &EluOptions { label: c.label.clone(), alpha }))?;
            let g = imp.scalar(webnn(ty)?, gamma)?;
            done(bld(imp.b.mul(&e, &g, &o))?, ty)
        }
        "Celu" => {
            // alpha * elu(x / alpha)
            let a = imp.operand(x)?;
            let alpha = c.attrs.float("alpha", 1.0)? as f64;
            let k = imp.scalar(webnn(ty)?, alpha)?;
            let s = bld(imp.b.div(&a, &k, &o))?;
            let e = bld(imp.b.elu(&s, &EluOptions { label: c.label.clone(), alpha: 1.0 }))?;
            done(bld(imp.b.mul(&e, &k, &o))?, ty)
        }
        "LeakyRelu" => {
            let a = imp.operand(x)?;
            let options = LeakyReluOptions { label: c.label.clone(), alpha: c.attrs.float("alpha", 0.01)? as f64 };
            done(bld(imp.b.leaky_relu(&a, &options))?, ty)
        }
        "HardSigmoid" => {
            let a = imp.operand(x)?;
            let options = HardSigmoidOptions {
                label: c.label.clone(),
                alpha: c.attrs.float("alpha", 0.2)? as f64,
                beta: c.attrs.float("beta", 0.5)? as f64,
            };
            done(bld(imp.b.hard_sigmoid(&a, &options))?, ty)
        }
        "ThresholdedRelu" => {
            let a = imp.operand(x)?;
            let dt = webnn(ty)?;
            let alpha = imp.scalar(dt, c.attrs.float("alpha", 1.0)? as f64)?;
            let zero = imp.scalar(dt, 0.0)?;
            let gt = bld(imp.b.greater(&a, &alpha, &o))?;
            done(bld(imp.b.where_(&gt, &a, &zero, &o))?, ty)
        }
        "Shrink" => {
            let a = imp.operand(x)?;
            let dt = webnn(ty)?;
            let lambd = c.attrs.float("lambd", 0.5)? as f64;
            let bias = imp.scalar(dt, c.attrs.float("bias", 0.0)? as f64)?;
            let (lo, hi, zero) = (imp.scalar(dt, -lambd)?, imp.scalar(dt, lambd)?, imp.scalar(dt, 0.0)?);
            let below = bld(imp.b.lesser(&a, &lo, &o))?;
            let above = bld(imp.b.greater(&a, &hi, &o))?;
            let plus = bld(imp.b.add(&a, &bias, &o))?;
            let minus = bld(imp.b.sub(&a, &bias, &o))?;
            let inner = bld(imp.b.where_(&above, &minus, &zero, &o))?;
            done(bld(imp.b.where_(&below, &plus, &inner, &o))?, ty)
        }
        "Swish" => {
            let a = imp.operand(x)?;
            let alpha = imp.scalar(webnn(ty)?, c.attrs.float("alpha", 1.0)? as f64)?;
            let s = bld(imp.b.mul(&a, &alpha, &o))?;
            let s = bld(imp.b.sigmoid(&s, &o))?;
            done(bld(imp.b.mul(&a, &s, &o))?, ty)
        }
        "SwiGLU" => {
            let a = imp.operand(x)?;
            let b = imp.operand(c.req(1)?)?;
            let alpha = imp.scalar(webnn(ty)?, c.attrs.float("alpha", 1.0)? as f64)?;
            let s = bld(imp.b.mul(&a, &alpha, &o))?;
            let s = bld(imp.b.sigmoid(&s, &o))?;
            let g = bld(imp.b.mul(&a, &s, &o))?;
            done(bld(imp.b.mul(&g, &b, &o))?, ty)
        }
        "Mish" => {
            let a = imp.operand(x)?;
            let s = bld(imp.b.softplus(&a, &o))?;
            let t = bld(imp.b.tanh(&s, &o))?;
            done(bld(imp.b.mul(&a, &t, &o))?, ty)
        }
        "PRelu" => {
            let a = imp.operand(x)?;
            let s = imp.operand(c.req(1)?)?;
            done(bld(imp.b.prelu(&a, &s, &o))?, ty)
        }
        other => Err(unsupported(format!("operator {other} has no WebNN mapping"))),
    }
}

/// The WebNN data type of an ONNX type, or an "unsupported" error.
pub(crate) fn webnn(ty: ElemType) -> NResult<DataType> {
    ty.webnn().ok_or_else(|| unsupported(format!("data type {ty} does not exist in WebNN")))
}

/// ONNX Cast of any value (bool targets compare with zero).
pub(crate) fn cast_value(imp: &mut Importer, x: &Value, to: ElemType, c: &Ctx) -> NResult<Value> {
    if x.ty() == to {
        return Ok(x.clone());
    }
    let o = c.opts();
    let dt = webnn(to)?;
    let a = imp.operand(x)?;
    let out = if to == ElemType::Bool {
        let zero = imp.scalar(webnn(x.ty())?, 0.0)?;
        bld(imp.b.not_equal(&a, &zero, &o))?
    } else if a.data_type() == dt {
        a // uint8 <-> bool: the bytes are already 0/1
    } else {
        bld(imp.b.cast(&a, dt, &o))?
    };
    Ok(Value::dynamic(out, to))
}

impl Importer<'_> {
    /// trunc(x) = sign(x) * floor(|x|) for floats.
    fn trunc(&mut self, x: &Operand, c: &Ctx) -> NResult<Operand> {
        let o = c.opts();
        let a = bld(self.b.abs(x, &o))?;
        let f = bld(self.b.floor(&a, &o))?;
        let s = bld(self.b.sign(x, &o))?;
        bld(self.b.mul(&f, &s, &o))
    }
}

//! Reductions, ArgMax/ArgMin, Softmax/LogSoftmax/Hardmax (with the pre-opset-13 2-D
//! coercion), CumSum and simple Einsum equations.

use super::elementwise::webnn;
use super::nn::matmul;
use super::support::OnnxOp;
use super::{bld, invalid, norm_axes, norm_axis, unsupported, Const, Ctx, Importer, NResult, Value};
use crate::tensor::ElemType;
use std::collections::HashMap;
use webnn_core::{ArgMinMaxOptions, CumulativeSumOptions, DataType, OpKind, Operand, ReduceOptions, ReverseOptions};

/// The attributes of every ReduceXxx operator.
const REDUCE_ATTRIBUTES: &[&str] = &["axes", "keepdims", "noop_with_empty_axes"];

/// Reductions, arg-min/max, the softmax family, CumSum and Einsum.
pub(crate) const OPS: &[OnnxOp] = &[
    OnnxOp::new(&["ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd"], import)
        .attributes(REDUCE_ATTRIBUTES)
        .inputs(1, 2),
    OnnxOp::new(&["ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare"], import)
        .attributes(REDUCE_ATTRIBUTES)
        .inputs(1, 2),
    OnnxOp::new(&["ArgMax", "ArgMin"], import).attributes(&["axis", "keepdims", "select_last_index"]),
    OnnxOp::new(&["Softmax", "LogSoftmax", "Hardmax"], import).attributes(&["axis"]),
    OnnxOp::new(&["CumSum"], import).attributes(&["exclusive", "reverse"]).inputs(2, 2),
    OnnxOp::new(&["Einsum"], import).attributes(&["equation"]).inputs(1, usize::MAX),
];

/// Imports one node of this family.
pub(crate) fn import(imp: &mut Importer, c: &Ctx) -> NResult<Vec<Value>> {
    let x = c.req(0)?;
    let ty = x.ty();
    let rank = x.rank();
    let o = c.opts();
    let done = |op: Operand, ty: ElemType| Ok(vec![Value::dynamic(op, ty)]);
    match c.op {
        "ReduceMean" | "ReduceSum" | "ReduceMax" | "ReduceMin" | "ReduceProd" | "ReduceL1" | "ReduceL2"
        | "ReduceLogSum" | "ReduceLogSumExp" | "ReduceSumSquare" => {
            let kind = match c.op {
                "ReduceMean" => OpKind::ReduceMean,
                "ReduceSum" => OpKind::ReduceSum,
                "ReduceMax" => OpKind::ReduceMax,
                "ReduceMin" => OpKind::ReduceMin,
                "ReduceProd" => OpKind::ReduceProduct,
                "ReduceL1" => OpKind::ReduceL1,
                "ReduceL2" => OpKind::ReduceL2,
                "ReduceLogSum" => OpKind::ReduceLogSum,
                "ReduceLogSumExp" => OpKind::ReduceLogSumExp,
                _ => OpKind::ReduceSumSquare,
            };
            let axes_from_input = c.opset >= 18 || (c.op == "ReduceSum" && c.opset >= 13);
            let axes = if axes_from_input { imp.const_ints(c, 1)? } else { c.attrs.ints("axes")? };
            let keep = c.attrs.int("keepdims", 1)? != 0;
            let axes = match axes {
                Some(a) if a.is_empty() && c.attrs.int("noop_with_empty_axes", 0)? != 0 => return Ok(vec![x.clone()]),
                Some(a) if !a.is_empty() => norm_axes(&a, rank, "axes")?,
                _ => (0..rank).collect(),
            };
            let a = imp.operand(x)?;
            let options = ReduceOptions {
                label: c.label.clone(),
                axes: Some(axes.iter().map(|&a| a as u32).collect()),
                keep_dimensions: keep,
            };
            done(bld(imp.b.reduce(kind, &a, &options))?, ty)
        }
        "ArgMax" | "ArgMin" => {
            let axis = norm_axis(c.attrs.int("axis", 0)?, rank, "axis")?;
            let keep = c.attrs.int("keepdims", 1)? != 0;
            let last = c.attrs.int("select_last_index", 0)? != 0;
            let kind = if c.op == "ArgMax" { OpKind::ArgMax } else { OpKind::ArgMin };
            let mut a = imp.operand(x)?;
            if last {
                let options = ReverseOptions { label: c.label.clone(), axes: Some(vec![axis as u32]) };
                a = bld(imp.b.reverse(&a, &options))?;
            }
            let options =
                ArgMinMaxOptions { label: c.label.clone(), keep_dimensions: keep, output_data_type: DataType::Int64 };
            let mut idx = bld(imp.b.arg_min_max(kind, &a, axis as u32, &options))?;
            if last {
                let top = imp.scalar(DataType::Int64, (x.shape()[axis] - 1) as f64)?;
                idx = bld(imp.b.sub(&top, &idx, &o))?;
            }
            done(idx, ElemType::I64)
        }
        "Softmax" | "LogSoftmax" | "Hardmax" => {
            let default_axis = if c.opset >= 13 { -1 } else { 1 };
            let axis = norm_axis(c.attrs.int("axis", default_axis)?, rank, "axis")?;
            let shape = x.shape();
            let a = imp.operand(x)?;
            // Before opset 13 the input is coerced to 2-D [prod(:axis), prod(axis:)].
            let coerce = c.opset < 13 && axis + 1 != rank;
            let (a, axis) = if coerce {
                let two = [shape[..axis].iter().product(), shape[axis..].iter().product()];
                (imp.reshape_op(&a, &two, &c.label)?, 1)
            } else {
                (a, axis)
            };
            let y = match c.op {
                "Softmax" => bld(imp.b.softmax(&a, axis as u32, &o))?,
                "LogSoftmax" => {
                    let r =
                        ReduceOptions { label: c.label.clone(), axes: Some(vec![axis as u32]), keep_dimensions: true };
                    let m = bld(imp.b.reduce_max(&a, &r))?;
                    let s = bld(imp.b.sub(&a, &m, &o))?;
                    let e = bld(imp.b.exp(&s, &o))?;
                    let sum = bld(imp.b.reduce_sum(&e, &r))?;
                    let l = bld(imp.b.log(&sum, &o))?;
                    bld(imp.b.sub(&s, &l, &o))?
                }
                _ => {
                    let dims: Vec<usize> = a.shape().iter().map(|&d| d as usize).collect();
                    let options = ArgMinMaxOptions {
                        label: c.label.clone(),
                        keep_dimensions: true,
                        output_data_type: DataType::Int64,
                    };
                    let idx = bld(imp.b.arg_max(&a, axis as u32, &options))?;
                    if dims[axis] > imp.fold_limit {
                        return Err(unsupported("Hardmax axis too long"));
                    }
                    let mut iota_shape = vec![1; dims.len()];
                    iota_shape[axis] = dims[axis];
                    let iota = Const::from_i64s(ElemType::I64, iota_shape, &(0..dims[axis] as i64).collect::<Vec<_>>());
                    let iota = imp.operand(&Value::constant(iota))?;
                    let hit = bld(imp.b.equal(&idx, &iota, &o))?;
                    bld(imp.b.cast(&hit, webnn(ty)?, &o))?
                }
            };
            let y = if coerce { imp.reshape_op(&y, &shape, &c.label)? } else { y };
            done(y, ty)
        }
        "CumSum" => {
            let axis = imp.const_ints(c, 1)?.ok_or_else(|| invalid("CumSum requires axis"))?;
            if axis.len() != 1 {
                return Err(invalid("CumSum axis must be a scalar"));
            }
            let axis = norm_axis(axis[0], rank, "axis")?;
            let options = CumulativeSumOptions {
                label: c.label.clone(),
                exclusive: c.attrs.int("exclusive", 0)? != 0,
                reversed: c.attrs.int("reverse", 0)? != 0,
            };
            let a = imp.operand(x)?;
            done(bld(imp.b.cumulative_sum(&a, axis as u32, &options))?, ty)
        }
        "Einsum" => einsum(imp, c).map(|v| vec![v]),
        other => Err(unsupported(format!("operator {other} has no WebNN mapping"))),
    }
}

/// Einsum with one or two operands, distinct letters per operand and no ellipsis: summed
/// letters are reduced, then the contraction is a batched matmul between transposes.
fn einsum(imp: &mut Importer, c: &Ctx) -> NResult<Value> {
    let eq = c.attrs.string("equation", "")?.replace(' ', "");
    let (lhs, out) = eq.split_once("->").ok_or_else(|| unsupported("Einsum without an explicit output ('->')"))?;
    let terms: Vec<&str> = lhs.split(',').collect();
    if eq.contains('.') {
        return Err(unsupported("Einsum with an ellipsis"));
    }
    let n = terms.len();
    if n != c.n_inputs() || !(1..=2).contains(&n) {
        return Err(unsupported(format!("Einsum with {n} operands (1 or 2 supported)")));
    }
    let distinct = |s: &str| s.chars().collect::<std::collections::HashSet<_>>().len() == s.len();
    if !terms.iter().all(|t| distinct(t)) || !distinct(out) {
        return Err(unsupported("Einsum with a repeated letter in one term (diagonals)"));
    }
    let mut dims: HashMap<char, usize> = HashMap::new();
    let mut values = Vec::new();
    for (i, t) in terms.iter().enumerate() {
        let v = c.req(i)?;
        let shape = v.shape();
        if shape.len() != t.len() {
            return Err(invalid(format!("Einsum term '{t}' does not match rank {}", shape.len())));
        }
        for (ch, &d) in t.chars().zip(&shape) {
            if *dims.entry(ch).or_insert(d) != d {
                return Err(unsupported("Einsum with broadcast dimensions"));
            }
        }
        values.push(v.clone());
    }
    if !out.chars().all(|ch| dims.contains_key(&ch)) {
        return Err(invalid("Einsum output letter not in the inputs"));
    }
    let ty = values[0].ty();
    let label = c.label.clone();
    // Reduce letters that appear in only one operand and not in the output.
    let mut ops: Vec<(Operand, String)> = Vec::new();
    for (i, t) in terms.iter().enumerate() {
        let other = if n == 2 { terms[1 - i] } else { "" };
        let summed: Vec<u32> = t
            .chars()
            .enumerate()
            .filter(|(_, ch)| !out.contains(*ch) && !other.contains(*ch))
            .map(|(k, _)| k as u32)
            .collect();
        let mut op = imp.operand(&values[i])?;
        let mut letters: String = t.to_string();
        if !summed.is_empty() {
            let options = ReduceOptions { label: label.clone(), axes: Some(summed.clone()), keep_dimensions: false };
            op = bld(imp.b.reduce_sum(&op, &options))?;
            letters = t.chars().enumerate().filter(|(k, _)| !summed.contains(&(*k as u32))).map(|(_, ch)| ch).collect();
        }
        ops.push((op, letters));
    }
    let (result, letters) = if n == 1 {
        ops.remove(0)
    } else {
        let (a, la) = ops.remove(0);
        let (b, lb) = ops.remove(0);
        let batch: String = la.chars().filter(|ch| lb.contains(*ch) && out.contains(*ch)).collect();
        let contract: String = la.chars().filter(|ch| lb.contains(*ch) && !out.contains(*ch)).collect();
        let free_a: String = la.chars().filter(|ch| !lb.contains(*ch)).collect();
        let free_b: String = lb.chars().filter(|ch| !la.contains(*ch)).collect();
        let size = |s: &str| s.chars().map(|ch| dims[&ch]).product::<usize>();
        let perm = |from: &str, to: &str| -> Vec<usize> { to.chars().filter_map(|ch| from.find(ch)).collect() };
        let order_a = format!("{batch}{free_a}{contract}");
        let order_b = format!("{batch}{contract}{free_b}");
        let ta = imp.transpose_op(&a, &perm(&la, &order_a), &label)?;
        let tb = imp.transpose_op(&b, &perm(&lb, &order_b), &label)?;
        let (bs, m, k, nn) = (size(&batch), size(&free_a), size(&contract), size(&free_b));
        let ra = imp.reshape_op(&ta, &[bs, m, k], &label)?;
        let rb = imp.reshape_op(&tb, &[bs, k, nn], &label)?;
        let va = Value::dynamic(ra, ty);
        let vb = Value::dynamic(rb, ty);
        let y = matmul(imp, c, &va, &vb)?;
        let letters = format!("{batch}{free_a}{free_b}");
        let shape: Vec<usize> = letters.chars().map(|ch| dims[&ch]).collect();
        (imp.reshape_op(&y, &shape, &label)?, letters)
    };
    // Letters left that the output does not keep are summed (single operand case).
    let extra: Vec<u32> =
        letters.chars().enumerate().filter(|(_, ch)| !out.contains(*ch)).map(|(k, _)| k as u32).collect();
    let (result, letters) = if extra.is_empty() {
        (result, letters)
    } else {
        let options = ReduceOptions { label: label.clone(), axes: Some(extra.clone()), keep_dimensions: false };
        let r = bld(imp.b.reduce_sum(&result, &options))?;
        (r, letters.chars().enumerate().filter(|(k, _)| !extra.contains(&(*k as u32))).map(|(_, ch)| ch).collect())
    };
    let perm: Vec<usize> = out.chars().filter_map(|ch| letters.find(ch)).collect();
    let result = imp.transpose_op(&result, &perm, &label)?;
    Ok(Value::dynamic(result, ty))
}

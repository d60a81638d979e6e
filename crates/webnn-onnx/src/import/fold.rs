//! Constant folding: ops whose inputs are all known at import time are computed here (shape
//! computations above all: `Shape`, `Gather` on shapes, `Concat`, `Unsqueeze`, arithmetic on
//! int64 vectors...), so that ops needing static parameters get them. `Shape`, `Size`,
//! `ConstantOfShape`, `Range`, `EyeLike` and `Constant` always produce constants.

use super::constant::{
    broadcast_indices, broadcast_shapes, count, dims_to_shape, for_each_index, strides, Const, Vals,
};
use super::shape_ops::{
    flatten_shape, reshape_shape, slice_params, split_sizes, squeeze_shape, transpose_perm, unsqueeze_shape,
};
use super::support::OnnxOp;
use super::{invalid, norm_axes, norm_axis, unsupported, Ctx, Importer, NResult, Value, FOLD_BUDGET_PER_ELEMENT};
use crate::tensor::{decode_tensor, ElemType};

/// The operators only computed at import time: they need constant inputs (or only their
/// inputs' static shapes), and [`try_fold`] computes them before any importer runs.
pub(crate) const OPS: &[OnnxOp] = &[
    OnnxOp::new(&["Constant"], not_folded)
        .attributes(&[
            "value",
            "value_float",
            "value_floats",
            "value_int",
            "value_ints",
            "sparse_value",
            "value_string",
            "value_strings",
        ])
        .inputs(0, 0),
    OnnxOp::new(&["Shape"], not_folded).attributes(&["start", "end"]),
    OnnxOp::new(&["Size", "NonZero"], not_folded),
    OnnxOp::new(&["ConstantOfShape"], not_folded).attributes(&["value"]).inputs(1, 2),
    OnnxOp::new(&["Range"], not_folded).attributes(&["stash_type"]).inputs(3, 3),
    OnnxOp::new(&["EyeLike"], not_folded).attributes(&["dtype", "k"]),
    OnnxOp::new(&["HannWindow", "HammingWindow", "BlackmanWindow"], not_folded)
        .attributes(&["periodic", "output_datatype"]),
];

/// The importer of [`OPS`], reached only when [`try_fold`] could not compute the node.
fn not_folded(_: &mut Importer, c: &Ctx) -> NResult<Vec<Value>> {
    c.req(0)?;
    Err(match c.op {
        "NonZero" => unsupported("NonZero of a value computed at run time (its output shape is data-dependent)"),
        _ => unsupported(format!("{} needs inputs known at import time", c.op)),
    })
}

/// Folds the node if it is a constant-producing op or all its inputs are constants and the
/// op is one the folder computes. `None`: build it with WebNN ops instead.
pub(crate) fn try_fold(imp: &Importer, c: &Ctx) -> NResult<Option<Vec<Value>>> {
    let single = |k: Const| Ok(Some(vec![Value::constant(k)]));
    // Ops that only make constants cannot fall back to WebNN ops once the budget is spent.
    if imp.fold_budget == 0 && matches!(c.op, "Range" | "EyeLike" | "HannWindow" | "HammingWindow" | "BlackmanWindow") {
        return Err(unsupported(format!(
            "{} would add to the {} bytes of constants already computed at import time \
             (raise ImportOptions::fold_limit)",
            c.op,
            imp.fold_limit.saturating_mul(FOLD_BUDGET_PER_ELEMENT)
        )));
    }
    match c.op {
        "Constant" => return single(constant(c)?),
        "Shape" => {
            let shape = c.req(0)?.shape();
            let r = shape.len() as i64;
            let clamp = |v: i64| (if v < 0 { v + r } else { v }).clamp(0, r) as usize;
            let start = clamp(c.attrs.int("start", 0)?);
            let end = clamp(c.attrs.int("end", r)?);
            let dims: Vec<i64> = shape.get(start..end.max(start)).unwrap_or(&[]).iter().map(|&d| d as i64).collect();
            return single(Const::i64_vec(&dims));
        }
        "Size" => {
            let n: usize = c.req(0)?.shape().iter().product();
            return single(Const::from_i64s(ElemType::I64, vec![], &[n as i64]));
        }
        "ConstantOfShape" => {
            let dims = imp.const_ints(c, 0)?.ok_or_else(|| invalid("ConstantOfShape requires its shape input"))?;
            let shape = dims_to_shape(&dims)?;
            let (ty, elem) = match c.attrs.tensor("value")? {
                Some(t) => {
                    let t = decode_tensor(t, None).map_err(|e| unsupported(e.to_string()))?;
                    if t.element_count() != 1 {
                        return Err(invalid("ConstantOfShape value must have one element"));
                    }
                    (t.elem_type, t.bytes)
                }
                None => (ElemType::F32, 0f32.to_le_bytes().to_vec()),
            };
            return single(Const::splat(ty, shape, elem));
        }
        "Range" => {
            let (start, limit, delta) = (scalar_input(imp, c, 0)?, scalar_input(imp, c, 1)?, scalar_input(imp, c, 2)?);
            let ty = start.ty;
            let out = if ty.is_float() {
                let (s, l, d) = (start.f64_at(0), limit.f64_at(0), delta.f64_at(0));
                let n = range_count(((l - s) / d).ceil(), imp.fold_limit)?;
                Const::from_f64s(ty, vec![n], &(0..n).map(|i| s + i as f64 * d).collect::<Vec<_>>())
            } else {
                let (s, l, d) = (start.i64_at(0), limit.i64_at(0), delta.i64_at(0));
                if d == 0 {
                    return Err(invalid("Range delta is 0"));
                }
                let n = range_count(((l as f64 - s as f64) / d as f64).ceil(), imp.fold_limit)?;
                Const::from_i64s(
                    ty,
                    vec![n],
                    &(0..n as i64).map(|i| s.wrapping_add(i.wrapping_mul(d))).collect::<Vec<_>>(),
                )
            };
            return single(out);
        }
        "EyeLike" => {
            let shape = c.req(0)?.shape();
            if shape.len() != 2 {
                return Err(invalid("EyeLike input must be 2-D"));
            }
            let ty = match c.attrs.opt_int("dtype")? {
                Some(code) => elem_type(code)?,
                None => c.req(0)?.ty(),
            };
            if count(&shape) > imp.fold_limit {
                return Err(unsupported(format!("EyeLike of shape {shape:?} is too large to build at import time")));
            }
            let k = c.attrs.int("k", 0)?;
            let mut vals = vec![0i64; shape[0] * shape[1]];
            for i in 0..shape[0] {
                let j = (i as i64).saturating_add(k);
                if j >= 0 && (j as usize) < shape[1] {
                    vals[i * shape[1] + j as usize] = 1;
                }
            }
            return single(Const::from_i64s(ty, shape, &vals));
        }
        "HannWindow" | "HammingWindow" | "BlackmanWindow" => {
            let size = scalar_input(imp, c, 0)?.i64_at(0);
            if size < 0 {
                return Err(invalid(format!("{} size {size} is negative", c.op)));
            }
            if size as u64 > imp.fold_limit as u64 {
                return Err(unsupported(format!(
                    "{} of size {size} is larger than the fold limit ({})",
                    c.op, imp.fold_limit
                )));
            }
            let n = size as usize;
            let periodic = c.attrs.int("periodic", 1)? != 0;
            let denom = if periodic { n as f64 } else { (n as f64 - 1.0).max(1.0) };
            let ty = elem_type(c.attrs.int("output_datatype", 1)?)?;
            let tau = 2.0 * std::f64::consts::PI;
            let vals: Vec<f64> = (0..n)
                .map(|i| {
                    let x = tau * i as f64 / denom;
                    match c.op {
                        "HannWindow" => 0.5 - 0.5 * x.cos(),
                        "HammingWindow" => 25.0 / 46.0 - (21.0 / 46.0) * x.cos(),
                        _ => 0.42 - 0.5 * x.cos() + 0.08 * (2.0 * x).cos(),
                    }
                })
                .collect();
            return single(Const::from_f64s(ty, vec![n], &vals));
        }
        // Only the type of CastLike's second input matters.
        "CastLike" => {
            if let Some(Value::Const(x)) = c.input(0) {
                if x.len() <= imp.fold_limit {
                    return single(cast(x, c.req(1)?.ty())?);
                }
            }
        }
        _ => {}
    }
    if c.inputs.iter().flatten().next().is_none() || !imp.all_const(c) || imp.fold_budget == 0 {
        return Ok(None);
    }
    let k = |i: usize| -> NResult<&Const> { c.req(i)?.as_const().ok_or_else(|| invalid("internal: not a constant")) };
    let limit = imp.fold_limit;
    let out = match c.op {
        "Identity" => k(0)?.clone(),
        "Cast" => cast(k(0)?, elem_type(c.attrs.opt_int("to")?.ok_or_else(|| invalid("Cast requires 'to'"))?)?)?,
        "CastLike" => cast(k(0)?, k(1)?.ty)?,
        "Reshape" => {
            let x = k(0)?;
            let shape = match c.opset {
                o if o < 5 => return Ok(None),
                _ => k(1)?.i64s()?,
            };
            x.reshaped(reshape_shape(&x.shape, &shape, c.attrs.int("allowzero", 0)? != 0)?)
        }
        "Flatten" => {
            let x = k(0)?;
            x.reshaped(flatten_shape(&x.shape, c.attrs.int("axis", 1)?)?)
        }
        "Squeeze" | "Unsqueeze" => {
            let x = k(0)?;
            let axes = if c.opset >= 13 {
                c.input(1).and_then(|v| v.as_const()).map(|a| a.i64s()).transpose()?
            } else {
                c.attrs.ints("axes")?
            };
            let shape = if c.op == "Squeeze" {
                squeeze_shape(&x.shape, axes.as_deref())?
            } else {
                unsqueeze_shape(&x.shape, &axes.ok_or_else(|| invalid("Unsqueeze requires axes"))?)?
            };
            x.reshaped(shape)
        }
        "Transpose" => {
            let x = k(0)?;
            let perm = transpose_perm(x.shape.len(), c.attrs.ints("perm")?.as_deref())?;
            transpose(x, &perm)
        }
        "Concat" => {
            let parts: Vec<&Const> = (0..c.n_inputs()).filter_map(|i| c.input(i).and_then(|v| v.as_const())).collect();
            if parts.iter().fold(0usize, |n, p| n.saturating_add(p.len())) > limit {
                return Ok(None);
            }
            concat(&parts, c.attrs.opt_int("axis")?.ok_or_else(|| invalid("Concat requires 'axis'"))?)?
        }
        "Gather" => {
            let (x, i) = (k(0)?, k(1)?);
            let axis = norm_axis(c.attrs.int("axis", 0)?, x.shape.len(), "Gather axis")?;
            if (count(&x.shape) / x.shape[axis].max(1)).saturating_mul(i.len()) > limit {
                return Ok(None);
            }
            gather(x, i, c.attrs.int("axis", 0)?)?
        }
        "Slice" => {
            let x = k(0)?;
            let (starts, ends, axes, steps) = if c.opset < 10 {
                let starts = c.attrs.ints("starts")?.ok_or_else(|| invalid("Slice requires starts"))?;
                let ends = c.attrs.ints("ends")?.ok_or_else(|| invalid("Slice requires ends"))?;
                (starts, ends, c.attrs.ints("axes")?, None)
            } else {
                let opt = |i| c.input(i).and_then(|v| v.as_const()).map(|a| a.i64s()).transpose();
                (k(1)?.i64s()?, k(2)?.i64s()?, opt(3)?, opt(4)?)
            };
            let params = slice_params(&x.shape, &starts, &ends, axes.as_deref(), steps.as_deref())?;
            let shape: Vec<usize> = params.iter().map(|p| p.count).collect();
            let st = strides(&x.shape);
            let mut idx = Vec::with_capacity(shape.iter().product());
            for_each_index(&shape, |i| {
                idx.push(
                    i.iter()
                        .enumerate()
                        .map(|(d, &j)| (params[d].start + j as i64 * params[d].step) as usize * st[d])
                        .sum(),
                )
            });
            x.pick(shape, idx.into_iter())
        }
        "Expand" => {
            let x = k(0)?;
            let target = dims_to_shape(&k(1)?.i64s()?)?;
            let shape = broadcast_shapes(&x.shape, &target).ok_or_else(|| invalid("Expand shapes do not broadcast"))?;
            if count(&shape) > limit {
                return Ok(None);
            }
            x.pick(shape.clone(), broadcast_indices(&x.shape, &shape).into_iter())
        }
        "Tile" => {
            let x = k(0)?;
            let reps = k(1)?.i64s()?;
            if reps.len() != x.shape.len() || reps.iter().any(|&r| r < 0) {
                return Err(invalid("Tile repeats must be non-negative, one per dimension"));
            }
            let shape: Vec<usize> = x.shape.iter().zip(&reps).map(|(&d, &r)| d.saturating_mul(r as usize)).collect();
            if count(&shape) > limit {
                return Ok(None);
            }
            let st = strides(&x.shape);
            let mut idx = Vec::new();
            for_each_index(&shape, |i| idx.push(i.iter().enumerate().map(|(d, &j)| (j % x.shape[d]) * st[d]).sum()));
            x.pick(shape, idx.into_iter())
        }
        "Split" => {
            let x = k(0)?;
            let axis = norm_axis(c.attrs.int("axis", 0)?, x.shape.len(), "Split axis")?;
            let split = if c.opset >= 13 {
                c.input(1).and_then(|v| v.as_const()).map(|s| s.i64s()).transpose()?
            } else {
                c.attrs.ints("split")?
            };
            let sizes = split_sizes(x.shape[axis], split.as_deref(), c.wanted.len(), c.attrs.opt_int("num_outputs")?)?;
            let mut outs = Vec::new();
            let mut start = 0;
            let st = strides(&x.shape);
            for size in sizes {
                let mut shape = x.shape.clone();
                shape[axis] = size;
                let mut idx = Vec::new();
                for_each_index(&shape, |i| {
                    idx.push(
                        i.iter()
                            .enumerate()
                            .map(|(d, &j)| if d == axis { (j + start) * st[d] } else { j * st[d] })
                            .sum(),
                    )
                });
                outs.push(Value::constant(x.pick(shape, idx.into_iter())));
                start += size;
            }
            return Ok(Some(outs));
        }
        "Add" | "Sub" | "Mul" | "Div" | "Pow" | "Max" | "Min" | "Sum" | "Mean" | "Mod" | "Equal" | "Less"
        | "LessOrEqual" | "Greater" | "GreaterOrEqual" | "And" | "Or" | "Xor" => {
            let parts: Vec<&Const> = (0..c.n_inputs()).filter_map(|i| c.input(i).and_then(|v| v.as_const())).collect();
            let Some(first) = parts.first() else {
                return Ok(None);
            };
            let op = match c.op {
                "Sum" | "Mean" => "Add",
                o => o,
            };
            let fmod = c.attrs.int("fmod", 0)? != 0;
            let mut acc = (*first).clone();
            for p in &parts[1..] {
                match binary(op, &acc, p, fmod, limit)? {
                    Some(r) => acc = r,
                    None => return Ok(None),
                }
            }
            if c.op == "Mean" {
                let n = Const::from_f64s(acc.ty, vec![], &[parts.len() as f64]);
                match binary("Div", &acc, &n, false, limit)? {
                    Some(r) => acc = r,
                    None => return Ok(None),
                }
            }
            acc
        }
        "Neg" | "Abs" | "Floor" | "Ceil" | "Round" | "Sqrt" | "Reciprocal" | "Sign" | "Not" | "Relu" | "Exp"
        | "Log" | "IsNaN" => unary(c.op, k(0)?)?,
        "Where" => {
            let (cond, a, b) = (k(0)?, k(1)?, k(2)?);
            let shape = broadcast_shapes(&cond.shape, &a.shape)
                .and_then(|s| broadcast_shapes(&s, &b.shape))
                .ok_or_else(|| invalid("Where shapes do not broadcast"))?;
            if count(&shape) > limit {
                return Ok(None);
            }
            let (ci, ai, bi) = (
                broadcast_indices(&cond.shape, &shape),
                broadcast_indices(&a.shape, &shape),
                broadcast_indices(&b.shape, &shape),
            );
            let mut bytes = Vec::new();
            for j in 0..ci.len() {
                let src = if cond.i64_at(ci[j]) != 0 { a.elem_bytes(ai[j]) } else { b.elem_bytes(bi[j]) };
                bytes.extend_from_slice(src);
            }
            Const::dense(a.ty, shape, bytes)
        }
        "ReduceSum" | "ReduceProd" | "ReduceMax" | "ReduceMin" | "ReduceMean" => {
            let x = k(0)?;
            let axes = if c.opset >= 18 || (c.op == "ReduceSum" && c.opset >= 13) {
                c.input(1).and_then(|v| v.as_const()).map(|a| a.i64s()).transpose()?
            } else {
                c.attrs.ints("axes")?
            };
            let keep = c.attrs.int("keepdims", 1)? != 0;
            let noop = c.attrs.int("noop_with_empty_axes", 0)? != 0;
            match axes {
                Some(a) if a.is_empty() && noop => x.clone(),
                a => reduce(
                    c.op,
                    x,
                    &norm_axes(
                        a.as_deref()
                            .filter(|a| !a.is_empty())
                            .unwrap_or(&(0..x.shape.len() as i64).collect::<Vec<_>>()),
                        x.shape.len(),
                        "axes",
                    )?,
                    keep,
                ),
            }
        }
        "NonZero" => {
            let x = k(0)?;
            let mut coords: Vec<Vec<i64>> = vec![Vec::new(); x.shape.len()];
            let mut n = 0;
            let mut flat = 0;
            for_each_index(&x.shape.clone(), |i| {
                if x.f64_at(flat) != 0.0 {
                    for (d, &j) in i.iter().enumerate() {
                        coords[d].push(j as i64);
                    }
                    n += 1;
                }
                flat += 1;
            });
            Const::i64_vec(&coords.concat()).reshaped(vec![x.shape.len(), n])
        }
        _ => return Ok(None),
    };
    Ok(Some(vec![Value::constant(out)]))
}

/// `Constant`: one of its value attributes.
fn constant(c: &Ctx) -> NResult<Const> {
    if let Some(t) = c.attrs.tensor("value")? {
        return Ok(Const::from_tensor(decode_tensor(t, None).map_err(|e| unsupported(e.to_string()))?));
    }
    if let Some(v) = c.attrs.opt_float("value_float")? {
        return Ok(Const::from_f64s(ElemType::F32, vec![], &[v as f64]));
    }
    if let Some(v) = c.attrs.floats("value_floats")? {
        return Ok(Const::from_f64s(ElemType::F32, vec![v.len()], &v.iter().map(|&x| x as f64).collect::<Vec<_>>()));
    }
    if let Some(v) = c.attrs.opt_int("value_int")? {
        return Ok(Const::from_i64s(ElemType::I64, vec![], &[v]));
    }
    if let Some(v) = c.attrs.ints("value_ints")? {
        return Ok(Const::i64_vec(&v));
    }
    if c.attrs.has("sparse_value") || c.attrs.has("value_string") || c.attrs.has("value_strings") {
        return Err(unsupported("sparse and string constants are not supported"));
    }
    Err(invalid("Constant has no value attribute"))
}

/// The element type of an ONNX data type code, if the importer can hold it.
pub(crate) fn elem_type(code: i64) -> NResult<ElemType> {
    i32::try_from(code).ok().and_then(ElemType::from_onnx).ok_or_else(|| {
        unsupported(format!("data type {} is not supported", crate::proto::data_type::name(code as i32)))
    })
}

fn range_count(n: f64, limit: usize) -> NResult<usize> {
    if n.is_nan() || n > limit as f64 {
        return Err(unsupported(format!("Range has {n} elements, more than the fold limit ({limit})")));
    }
    Ok(n.max(0.0) as usize)
}

fn scalar_input<'c>(imp: &Importer, c: &'c Ctx, i: usize) -> NResult<&'c Const> {
    let k = imp.const_input(c, i)?.ok_or_else(|| invalid(format!("{} requires input {i}", c.op)))?;
    if k.len() != 1 {
        return Err(invalid(format!("{} input {i} must be a scalar", c.op)));
    }
    Ok(k)
}

/// ONNX Cast of a constant: floats → ints truncate, → bool is `!= 0`.
pub(crate) fn cast(x: &Const, to: ElemType) -> NResult<Const> {
    if x.ty == to {
        return Ok(x.clone());
    }
    Ok(if x.ty.is_float() {
        Const::from_f64s(to, x.shape.clone(), &x.f64s()?)
    } else if to.is_float() && matches!(x.ty, ElemType::U64) {
        Const::from_f64s(to, x.shape.clone(), &x.i64s()?.iter().map(|&v| v as u64 as f64).collect::<Vec<_>>())
    } else {
        Const::from_i64s(to, x.shape.clone(), &x.i64s()?)
    })
}

fn transpose(x: &Const, perm: &[usize]) -> Const {
    let shape: Vec<usize> = perm.iter().map(|&p| x.shape[p]).collect();
    let st = strides(&x.shape);
    let mut idx = Vec::with_capacity(x.len());
    for_each_index(&shape, |i| idx.push(i.iter().enumerate().map(|(d, &j)| j * st[perm[d]]).sum()));
    x.pick(shape, idx.into_iter())
}

fn concat(parts: &[&Const], axis: i64) -> NResult<Const> {
    let first = parts.first().ok_or_else(|| invalid("Concat has no inputs"))?;
    let rank = first.shape.len();
    let axis = norm_axis(axis, rank, "Concat axis")?;
    let mut shape = first.shape.clone();
    shape[axis] = 0;
    for p in parts {
        if p.ty != first.ty || p.shape.len() != rank || (0..rank).any(|d| d != axis && p.shape[d] != first.shape[d]) {
            return Err(invalid("Concat inputs differ in type or shape"));
        }
        shape[axis] += p.shape[axis];
    }
    let outer: usize = shape[..axis].iter().product();
    let mut bytes = Vec::with_capacity(shape.iter().product::<usize>() * first.ty.size());
    for o in 0..outer {
        for p in parts {
            let chunk: usize = p.shape[axis..].iter().product();
            for j in 0..chunk {
                bytes.extend_from_slice(p.elem_bytes(o * chunk + j));
            }
        }
    }
    Ok(Const::dense(first.ty, shape, bytes))
}

fn gather(x: &Const, indices: &Const, axis: i64) -> NResult<Const> {
    let axis = norm_axis(axis, x.shape.len(), "Gather axis")?;
    let dim = x.shape[axis] as i64;
    let idx: Vec<usize> = indices
        .i64s()?
        .into_iter()
        .map(|i| {
            let j = if i < 0 { i + dim } else { i };
            if (0..dim).contains(&j) {
                Ok(j as usize)
            } else {
                Err(invalid(format!("Gather index {i} is out of range for dimension {dim}")))
            }
        })
        .collect::<NResult<_>>()?;
    let mut shape = x.shape[..axis].to_vec();
    shape.extend_from_slice(&indices.shape);
    shape.extend_from_slice(&x.shape[axis + 1..]);
    let outer: usize = x.shape[..axis].iter().product();
    let inner: usize = x.shape[axis + 1..].iter().product();
    let mut src = Vec::with_capacity(outer * idx.len() * inner);
    for o in 0..outer {
        for &i in &idx {
            for j in 0..inner {
                src.push((o * x.shape[axis] + i) * inner + j);
            }
        }
    }
    Ok(x.pick(shape, src.into_iter()))
}

/// Element-wise binary op with numpy broadcasting; `None` if the output is too large.
pub(crate) fn binary(op: &str, a: &Const, b: &Const, fmod: bool, limit: usize) -> NResult<Option<Const>> {
    let shape = broadcast_shapes(&a.shape, &b.shape)
        .ok_or_else(|| invalid(format!("{op}: shapes {:?} and {:?} do not broadcast", a.shape, b.shape)))?;
    if count(&shape) > limit {
        return Ok(None);
    }
    let (ai, bi) = (broadcast_indices(&a.shape, &shape), broadcast_indices(&b.shape, &shape));
    let compare = matches!(op, "Equal" | "Less" | "LessOrEqual" | "Greater" | "GreaterOrEqual");
    let logical = matches!(op, "And" | "Or" | "Xor");
    let out_ty = if compare || logical { ElemType::Bool } else { a.ty };
    let float = a.ty.is_float() || (op == "Pow" && b.ty.is_float());
    let vals = if float {
        let f = |x: f64, y: f64| -> f64 {
            match op {
                "Add" => x + y,
                "Sub" => x - y,
                "Mul" => x * y,
                "Div" => x / y,
                "Pow" => x.powf(y),
                "Max" => x.max(y),
                "Min" => x.min(y),
                "Mod" => x % y,
                "Equal" => (x == y) as i64 as f64,
                "Less" => (x < y) as i64 as f64,
                "LessOrEqual" => (x <= y) as i64 as f64,
                "Greater" => (x > y) as i64 as f64,
                "GreaterOrEqual" => (x >= y) as i64 as f64,
                _ => f64::NAN,
            }
        };
        Vals::F(ai.iter().zip(&bi).map(|(&i, &j)| f(a.f64_at(i), b.f64_at(j))).collect())
    } else {
        let f = |x: i64, y: i64| -> i64 {
            match op {
                "Add" => x.wrapping_add(y),
                "Sub" => x.wrapping_sub(y),
                "Mul" => x.wrapping_mul(y),
                "Div" => x.checked_div(y).unwrap_or(0),
                "Pow" => (x as f64).powf(y as f64) as i64,
                "Max" => x.max(y),
                "Min" => x.min(y),
                "Mod" => {
                    let r = x.checked_rem(y).unwrap_or(0);
                    if !fmod && r != 0 && ((r < 0) != (y < 0)) {
                        r + y
                    } else {
                        r
                    }
                }
                "Equal" => (x == y) as i64,
                "Less" => (x < y) as i64,
                "LessOrEqual" => (x <= y) as i64,
                "Greater" => (x > y) as i64,
                "GreaterOrEqual" => (x >= y) as i64,
                "And" => (x != 0 && y != 0) as i64,
                "Or" => (x != 0 || y != 0) as i64,
                "Xor" => ((x != 0) != (y != 0)) as i64,
                _ => 0,
            }
        };
        Vals::I(ai.iter().zip(&bi).map(|(&i, &j)| f(a.i64_at(i), b.i64_at(j))).collect())
    };
    Ok(Some(Const::from_vals(out_ty, shape, &vals)))
}

fn unary(op: &str, x: &Const) -> NResult<Const> {
    if op == "IsNaN" {
        return Ok(Const::from_i64s(
            ElemType::Bool,
            x.shape.clone(),
            &x.f64s()?.iter().map(|v| v.is_nan() as i64).collect::<Vec<_>>(),
        ));
    }
    if op == "Not" {
        return Ok(Const::from_i64s(
            x.ty,
            x.shape.clone(),
            &x.i64s()?.iter().map(|&v| (v == 0) as i64).collect::<Vec<_>>(),
        ));
    }
    let vals = match x.vals()? {
        Vals::F(v) => Vals::F(
            v.into_iter()
                .map(|a| match op {
                    "Neg" => -a,
                    "Abs" => a.abs(),
                    "Floor" => a.floor(),
                    "Ceil" => a.ceil(),
                    "Round" => a.round_ties_even(),
                    "Sqrt" => a.sqrt(),
                    "Reciprocal" => 1.0 / a,
                    "Sign" => {
                        if a > 0.0 {
                            1.0
                        } else if a < 0.0 {
                            -1.0
                        } else {
                            a
                        }
                    }
                    "Relu" => a.max(0.0),
                    "Exp" => a.exp(),
                    "Log" => a.ln(),
                    _ => f64::NAN,
                })
                .collect(),
        ),
        Vals::I(v) => Vals::I(
            v.into_iter()
                .map(|a| match op {
                    "Neg" => a.wrapping_neg(),
                    "Abs" => a.wrapping_abs(),
                    "Sign" => a.signum(),
                    "Relu" => a.max(0),
                    "Reciprocal" => {
                        if a == 0 {
                            0
                        } else {
                            1 / a
                        }
                    }
                    "Sqrt" => (a as f64).sqrt() as i64,
                    _ => a,
                })
                .collect(),
        ),
    };
    Ok(Const::from_vals(x.ty, x.shape.clone(), &vals))
}

fn reduce(op: &str, x: &Const, axes: &[usize], keep: bool) -> Const {
    let out_keep: Vec<usize> =
        x.shape.iter().enumerate().map(|(d, &s)| if axes.contains(&d) { 1 } else { s }).collect();
    let n_out: usize = out_keep.iter().product();
    let count: usize = axes.iter().map(|&a| x.shape[a]).product();
    let init = match op {
        "ReduceProd" => 1.0,
        "ReduceMax" => f64::NEG_INFINITY,
        "ReduceMin" => f64::INFINITY,
        _ => 0.0,
    };
    let mut acc = vec![init; n_out];
    let ost = strides(&out_keep);
    let mut flat = 0;
    for_each_index(&x.shape.clone(), |i| {
        let o: usize = i.iter().enumerate().map(|(d, &j)| if axes.contains(&d) { 0 } else { j * ost[d] }).sum();
        let v = x.f64_at(flat);
        acc[o] = match op {
            "ReduceProd" => acc[o] * v,
            "ReduceMax" => acc[o].max(v),
            "ReduceMin" => acc[o].min(v),
            _ => acc[o] + v,
        };
        flat += 1;
    });
    if op == "ReduceMean" && count > 0 {
        acc.iter_mut().for_each(|v| *v /= count as f64);
    }
    let shape = if keep {
        out_keep
    } else {
        x.shape.iter().enumerate().filter(|(d, _)| !axes.contains(d)).map(|(_, &s)| s).collect()
    };
    Const::from_f64s(x.ty, shape, &acc)
}

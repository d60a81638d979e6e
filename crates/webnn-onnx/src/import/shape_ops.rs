//! Shape and data-movement operators: Reshape, Flatten, Squeeze, Unsqueeze, Transpose,
//! Concat, Split, Slice, Gather*, Scatter*, Expand, Tile, Pad, DepthToSpace, SpaceToDepth,
//! Trilu and OneHot — plus the shape arithmetic they share with constant folding.

use super::constant::{broadcast_shapes, dims_to_shape};
use super::support::OnnxOp;
use super::{bld, invalid, norm_axes, norm_axis, to_u32_shape, unsupported, Const, Ctx, Importer, NResult, Value};
use crate::tensor::ElemType;
use webnn_core::{
    GatherOptions, MLNumber, Operand, OperatorOptions, PadOptions, PaddingMode, ReverseOptions, ScatterOptions,
    SliceOptions, SplitOptions, Splits, TransposeOptions, TriangularOptions,
};

/// Reshape's target: `0` copies the input dimension (unless `allowzero`), `-1` is inferred.
pub(crate) fn reshape_shape(input: &[usize], spec: &[i64], allowzero: bool) -> NResult<Vec<usize>> {
    let total: usize = input.iter().product();
    let mut out = Vec::with_capacity(spec.len());
    let mut infer = None;
    for (i, &d) in spec.iter().enumerate() {
        match d {
            -1 if infer.is_none() => {
                infer = Some(i);
                out.push(1);
            }
            0 if !allowzero => out.push(
                *input
                    .get(i)
                    .ok_or_else(|| invalid(format!("Reshape shape {spec:?}: 0 at {i} has no input dimension")))?,
            ),
            d if d >= 0 => out.push(d as usize),
            _ => return Err(invalid(format!("Reshape shape {spec:?} is invalid"))),
        }
    }
    let known: usize = super::constant::count(&out);
    if known > super::constant::MAX_CONST_ELEMENTS {
        return Err(invalid(format!("Reshape shape {spec:?} has too many elements")));
    }
    if let Some(i) = infer {
        if known == 0 || !total.is_multiple_of(known) {
            return Err(invalid(format!("Reshape cannot infer -1 in {spec:?} for input shape {input:?}")));
        }
        out[i] = total / known;
    } else if known != total {
        return Err(invalid(format!("Reshape shape {spec:?} does not match input shape {input:?}")));
    }
    Ok(out)
}

/// Flatten's 2-D shape.
pub(crate) fn flatten_shape(input: &[usize], axis: i64) -> NResult<Vec<usize>> {
    let r = input.len() as i64;
    let a = if axis < 0 { axis + r } else { axis };
    if !(0..=r).contains(&a) {
        return Err(invalid(format!("Flatten axis {axis} is out of range for rank {r}")));
    }
    let a = a as usize;
    Ok(vec![input[..a].iter().product(), input[a..].iter().product()])
}

/// Squeeze's shape: the given axes (each of size 1) or every size-1 axis removed.
pub(crate) fn squeeze_shape(input: &[usize], axes: Option<&[i64]>) -> NResult<Vec<usize>> {
    match axes {
        None => Ok(input.iter().copied().filter(|&d| d != 1).collect()),
        Some(axes) => {
            let axes = norm_axes(axes, input.len(), "Squeeze axes")?;
            if let Some(&a) = axes.iter().find(|&&a| input[a] != 1) {
                return Err(invalid(format!("Squeeze axis {a} of shape {input:?} is not 1")));
            }
            Ok(input.iter().enumerate().filter(|(i, _)| !axes.contains(i)).map(|(_, &d)| d).collect())
        }
    }
}

/// Unsqueeze's shape: size-1 axes inserted at the given output positions.
pub(crate) fn unsqueeze_shape(input: &[usize], axes: &[i64]) -> NResult<Vec<usize>> {
    let rank = input.len() + axes.len();
    let axes = norm_axes(axes, rank, "Unsqueeze axes")?;
    let mut it = input.iter();
    Ok((0..rank).map(|i| if axes.contains(&i) { 1 } else { it.next().copied().unwrap_or(1) }).collect())
}

/// Transpose's permutation (default: reversed dimensions).
pub(crate) fn transpose_perm(rank: usize, perm: Option<&[i64]>) -> NResult<Vec<usize>> {
    match perm {
        None => Ok((0..rank).rev().collect()),
        Some(p) => {
            let p = norm_axes(p, rank, "Transpose perm")?;
            if p.len() != rank {
                return Err(invalid(format!("Transpose perm {p:?} does not have rank {rank} entries")));
            }
            Ok(p)
        }
    }
}

/// One axis of a normalized ONNX slice: first index, element count and step (may be < 0).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct SliceParam {
    pub start: i64,
    pub count: usize,
    pub step: i64,
}

/// Normalizes ONNX Slice starts/ends/axes/steps (negative and out-of-range values clamped as
/// the spec says) into one [`SliceParam`] per dimension.
pub(crate) fn slice_params(
    shape: &[usize],
    starts: &[i64],
    ends: &[i64],
    axes: Option<&[i64]>,
    steps: Option<&[i64]>,
) -> NResult<Vec<SliceParam>> {
    let mut params: Vec<SliceParam> = shape.iter().map(|&d| SliceParam { start: 0, count: d, step: 1 }).collect();
    let axes: Vec<i64> = axes.map(|a| a.to_vec()).unwrap_or_else(|| (0..starts.len() as i64).collect());
    if starts.len() != ends.len() || axes.len() != starts.len() || steps.is_some_and(|s| s.len() != starts.len()) {
        return Err(invalid("Slice starts, ends, axes and steps differ in length"));
    }
    let axes = norm_axes(&axes, shape.len(), "Slice axes")?;
    for (i, &a) in axes.iter().enumerate() {
        let dim = shape[a] as i64;
        let step = steps.map(|s| s[i]).unwrap_or(1);
        if step == 0 {
            return Err(invalid("Slice step is 0"));
        }
        let norm = |v: i64| if v < 0 { v.saturating_add(dim) } else { v };
        let (start, end) = (norm(starts[i]), norm(ends[i]));
        let (start, count) = if step > 0 {
            let s = start.clamp(0, dim);
            let e = end.clamp(0, dim);
            (s, if e > s { ((e - s) as u64).div_ceil(step as u64) as usize } else { 0 })
        } else {
            let s = start.clamp(0, dim - 1);
            let e = end.clamp(-1, dim - 1);
            (s, if s > e { ((s - e) as u64).div_ceil(step.unsigned_abs()) as usize } else { 0 })
        };
        params[a] = SliceParam { start, count, step };
    }
    Ok(params)
}

/// The part sizes of Split.
pub(crate) fn split_sizes(
    dim: usize,
    split: Option<&[i64]>,
    outputs: usize,
    num_outputs: Option<i64>,
) -> NResult<Vec<usize>> {
    if let Some(s) = split {
        let sizes = dims_to_shape(s)?;
        if sizes.iter().try_fold(0usize, |a, &b| a.checked_add(b)) != Some(dim) {
            return Err(invalid(format!("Split sizes {s:?} do not add up to {dim}")));
        }
        return Ok(sizes);
    }
    let n = num_outputs.unwrap_or(outputs as i64);
    if n <= 0 || n as usize > dim.max(1) {
        return Err(invalid(format!("Split into {n} parts of dimension {dim}")));
    }
    let n = n as usize;
    if num_outputs.is_some() {
        let chunk = dim.div_ceil(n);
        let mut sizes = vec![chunk; n];
        let last = dim as i64 - (chunk * (n - 1)) as i64;
        if last < 0 {
            return Err(invalid(format!("Split cannot make {n} parts of dimension {dim}")));
        }
        sizes[n - 1] = last as usize;
        return Ok(sizes);
    }
    if !dim.is_multiple_of(n) {
        return Err(invalid(format!("Split of dimension {dim} into {n} equal parts")));
    }
    Ok(vec![dim / n; n])
}

/// An `MLNumber` holding element 0 of a constant, exact for 64-bit integers.
pub(crate) fn number_of(c: &Const) -> MLNumber {
    if c.ty.is_float() {
        MLNumber::Double(c.f64_at(0))
    } else if c.ty == ElemType::U64 {
        MLNumber::BigInt(c.i64_at(0) as u64 as i128)
    } else {
        MLNumber::BigInt(c.i64_at(0) as i128)
    }
}

impl Importer<'_> {
    /// Reshapes a value (constants stay constants; same shape: unchanged).
    pub fn reshape_value(&mut self, v: &Value, shape: &[usize], label: &str) -> NResult<Value> {
        if v.shape() == shape {
            return Ok(v.clone());
        }
        if let Value::Const(k) = v {
            return Ok(Value::constant(k.reshaped(shape.to_vec())));
        }
        let op = self.operand(v)?;
        let dims = to_u32_shape(shape)?;
        let out = bld(self.b.reshape(&op, &dims, &OperatorOptions::labeled(label)))?;
        Ok(Value::dynamic(out, v.ty()))
    }

    /// Index `i` of `axis` of a value, keeping the axis (size 1); constants stay constants.
    pub fn slice_value(&mut self, v: &Value, axis: usize, i: usize) -> NResult<Value> {
        let shape = v.shape();
        if let Value::Const(k) = v {
            let mut out = shape.clone();
            out[axis] = 1;
            let st = super::constant::strides(&shape);
            let mut idx = Vec::with_capacity(super::constant::count(&out));
            super::constant::for_each_index(&out, |j| {
                idx.push(j.iter().enumerate().map(|(d, &x)| if d == axis { i * st[d] } else { x * st[d] }).sum())
            });
            return Ok(Value::constant(k.pick(out, idx.into_iter())));
        }
        let params: Vec<SliceParam> = shape
            .iter()
            .enumerate()
            .map(|(d, &n)| {
                if d == axis {
                    SliceParam { start: i as i64, count: 1, step: 1 }
                } else {
                    SliceParam { start: 0, count: n, step: 1 }
                }
            })
            .collect();
        let op = self.operand(v)?;
        Ok(Value::dynamic(self.slice_op(&op, &params, "")?, v.ty()))
    }

    /// Reshapes an operand.
    pub fn reshape_op(&mut self, op: &Operand, shape: &[usize], label: &str) -> NResult<Operand> {
        if op.shape().iter().map(|&d| d as usize).eq(shape.iter().copied()) {
            return Ok(op.clone());
        }
        let dims = to_u32_shape(shape)?;
        bld(self.b.reshape(op, &dims, &OperatorOptions::labeled(label)))
    }

    /// Transposes an operand.
    pub fn transpose_op(&mut self, op: &Operand, perm: &[usize], label: &str) -> NResult<Operand> {
        if perm.iter().enumerate().all(|(i, &p)| i == p) {
            return Ok(op.clone());
        }
        let options =
            TransposeOptions { label: label.into(), permutation: Some(perm.iter().map(|&p| p as u32).collect()) };
        bld(self.b.transpose(op, &options))
    }

    /// Slices an operand with ONNX semantics (negative steps through `reverse`).
    pub fn slice_op(&mut self, op: &Operand, params: &[SliceParam], label: &str) -> NResult<Operand> {
        let shape: Vec<i64> = op.shape().iter().map(|&d| d as i64).collect();
        if params.len() != shape.len() {
            return Err(invalid(format!("a slice of {} axes of a rank-{} value", params.len(), shape.len())));
        }
        if params.iter().any(|p| p.count == 0) {
            return Err(unsupported("the slice is empty; WebNN has no empty tensors"));
        }
        let reversed: Vec<u32> = (0..params.len()).filter(|&i| params[i].step < 0).map(|i| i as u32).collect();
        let mut x = op.clone();
        if !reversed.is_empty() {
            let options = ReverseOptions { label: label.into(), axes: Some(reversed.clone()) };
            x = bld(self.b.reverse(&x, &options))?;
        }
        let mut starts = Vec::new();
        let mut sizes = Vec::new();
        let mut strides = Vec::new();
        for (i, p) in params.iter().enumerate() {
            let (start, step) = if p.step < 0 { (shape[i] - 1 - p.start, -p.step) } else { (p.start, p.step) };
            starts.push(start as u32);
            sizes.push(((p.count as i64 - 1) * step + 1) as u32);
            strides.push(step as u32);
        }
        let identity = params.iter().enumerate().all(|(i, p)| p.count as i64 == shape[i] && p.step.abs() == 1);
        if identity {
            return Ok(x);
        }
        let options = SliceOptions { label: label.into(), strides: Some(strides) };
        bld(self.b.slice(&x, &starts, &sizes, &options))
    }

    /// Index operand for gather/scatter: constant indices are wrapped to `[0, dim)` here.
    fn index_operand(&mut self, v: &Value, dim: usize) -> NResult<Operand> {
        if let Value::Const(k) = v {
            let d = dim as i64;
            let vals: Vec<i64> = k.i64s()?.into_iter().map(|i| if i < 0 { i + d } else { i }).collect();
            if vals.iter().any(|&i| i < 0 || i >= d) {
                return Err(invalid(format!("an index is out of range for dimension {dim}")));
            }
            let ty = if k.ty == ElemType::I32 { ElemType::I32 } else { ElemType::I64 };
            return self.operand(&Value::constant(Const::from_i64s(ty, k.shape.clone(), &vals)));
        }
        self.operand(v)
    }
}

/// The shape and data-movement operators.
pub(crate) const OPS: &[OnnxOp] = &[
    OnnxOp::new(&["Reshape"], import).attributes(&["allowzero"]).inputs(1, 2),
    OnnxOp::new(&["Flatten"], import).attributes(&["axis"]),
    OnnxOp::new(&["Squeeze", "Unsqueeze"], import).attributes(&["axes"]).inputs(1, 2),
    OnnxOp::new(&["Transpose"], import).attributes(&["perm"]),
    OnnxOp::new(&["Concat"], import).attributes(&["axis"]).inputs(1, usize::MAX),
    OnnxOp::new(&["Split"], import).attributes(&["axis", "split", "num_outputs"]).inputs(1, 2),
    OnnxOp::new(&["Slice"], import).attributes(&["starts", "ends", "axes"]).inputs(1, 5),
    OnnxOp::new(&["Gather", "GatherElements"], import).attributes(&["axis"]).inputs(2, 2),
    OnnxOp::new(&["GatherND"], import).attributes(&["batch_dims"]).inputs(2, 2),
    OnnxOp::new(&["ScatterElements", "Scatter"], import).attributes(&["axis", "reduction"]).inputs(3, 3),
    OnnxOp::new(&["ScatterND"], import).attributes(&["reduction"]).inputs(3, 3),
    OnnxOp::new(&["Expand", "Tile"], import).inputs(2, 2),
    OnnxOp::new(&["Pad"], import).attributes(&["mode", "pads", "value"]).inputs(1, 4),
    OnnxOp::new(&["DepthToSpace", "SpaceToDepth"], import).attributes(&["blocksize", "mode"]),
    OnnxOp::new(&["Trilu"], import).attributes(&["upper"]).inputs(1, 2),
    OnnxOp::new(&["OneHot"], import).attributes(&["axis"]).inputs(3, 3),
    OnnxOp::new(&["CenterCropPad"], import).attributes(&["axes"]).inputs(2, 2),
    OnnxOp::new(&["Compress"], import).attributes(&["axis"]).inputs(2, 2),
];

/// Imports one shape or data-movement node.
pub(crate) fn import(imp: &mut Importer, c: &Ctx) -> NResult<Vec<Value>> {
    let x = c.req(0)?;
    let label = c.label.as_str();
    let one = |v: Value| Ok(vec![v]);
    let dynamic = |op: Operand, ty: ElemType| Ok(vec![Value::dynamic(op, ty)]);
    let shape = x.shape();
    let rank = shape.len();
    match c.op {
        "Reshape" => {
            let spec = imp.const_ints(c, 1)?.ok_or_else(|| invalid("Reshape requires its shape input"))?;
            let target = reshape_shape(&shape, &spec, c.attrs.int("allowzero", 0)? != 0)?;
            one(imp.reshape_value(x, &target, label)?)
        }
        "Flatten" => one(imp.reshape_value(x, &flatten_shape(&shape, c.attrs.int("axis", 1)?)?, label)?),
        "Squeeze" => {
            let axes = if c.opset >= 13 { imp.const_ints(c, 1)? } else { c.attrs.ints("axes")? };
            one(imp.reshape_value(x, &squeeze_shape(&shape, axes.as_deref())?, label)?)
        }
        "Unsqueeze" => {
            let axes = if c.opset >= 13 { imp.const_ints(c, 1)? } else { c.attrs.ints("axes")? };
            let axes = axes.ok_or_else(|| invalid("Unsqueeze requires axes"))?;
            one(imp.reshape_value(x, &unsqueeze_shape(&shape, &axes)?, label)?)
        }
        "Transpose" => {
            let perm = transpose_perm(rank, c.attrs.ints("perm")?.as_deref())?;
            let op = imp.operand(x)?;
            dynamic(imp.transpose_op(&op, &perm, label)?, x.ty())
        }
        "Concat" => {
            let axis = c.attrs.opt_int("axis")?.ok_or_else(|| invalid("Concat requires 'axis'"))?;
            let axis = norm_axis(axis, rank, "Concat axis")?;
            let mut ops = Vec::new();
            for i in 0..c.n_inputs() {
                if let Some(v) = c.input(i) {
                    if v.shape().iter().product::<usize>() == 0 {
                        continue; // empty inputs add nothing
                    }
                    ops.push(imp.operand(v)?);
                }
            }
            if ops.len() == 1 {
                return one(Value::dynamic(ops.remove(0), x.ty()));
            }
            let refs: Vec<&Operand> = ops.iter().collect();
            dynamic(bld(imp.b.concat(&refs, axis as u32, &c.opts()))?, x.ty())
        }
        "Split" => {
            let axis = norm_axis(c.attrs.int("axis", 0)?, rank, "Split axis")?;
            let split = if c.opset >= 13 { imp.const_ints(c, 1)? } else { c.attrs.ints("split")? };
            let sizes = split_sizes(shape[axis], split.as_deref(), c.wanted.len(), c.attrs.opt_int("num_outputs")?)?;
            let op = imp.operand(x)?;
            if sizes.len() == 1 {
                return one(Value::dynamic(op, x.ty()));
            }
            let sizes: Vec<u32> = to_u32_shape(&sizes)?;
            let outs =
                bld(imp.b.split(&op, &Splits::Sizes(sizes), &SplitOptions { label: label.into(), axis: axis as u32 }))?;
            Ok(outs.into_iter().map(|o| Value::dynamic(o, x.ty())).collect())
        }
        "Slice" => {
            let (starts, ends, axes, steps) = if c.opset < 10 {
                (
                    c.attrs.ints("starts")?.ok_or_else(|| invalid("Slice requires starts"))?,
                    c.attrs.ints("ends")?.ok_or_else(|| invalid("Slice requires ends"))?,
                    c.attrs.ints("axes")?,
                    None,
                )
            } else {
                (
                    imp.const_ints(c, 1)?.ok_or_else(|| invalid("Slice requires starts"))?,
                    imp.const_ints(c, 2)?.ok_or_else(|| invalid("Slice requires ends"))?,
                    imp.const_ints(c, 3)?,
                    imp.const_ints(c, 4)?,
                )
            };
            let params = slice_params(&shape, &starts, &ends, axes.as_deref(), steps.as_deref())?;
            let op = imp.operand(x)?;
            dynamic(imp.slice_op(&op, &params, label)?, x.ty())
        }
        "Gather" | "GatherElements" => {
            let axis = norm_axis(c.attrs.int("axis", 0)?, rank, "axis")?;
            let op = imp.operand(x)?;
            let indices = imp.index_operand(c.req(1)?, shape[axis])?;
            let options = GatherOptions { label: label.into(), axis: axis as u32 };
            let out = if c.op == "Gather" {
                imp.b.gather(&op, &indices, &options)
            } else {
                imp.b.gather_elements(&op, &indices, &options)
            };
            dynamic(bld(out)?, x.ty())
        }
        "GatherND" => {
            if c.attrs.int("batch_dims", 0)? != 0 {
                return Err(unsupported("GatherND with batch_dims != 0"));
            }
            let op = imp.operand(x)?;
            let indices = imp.operand(c.req(1)?)?;
            dynamic(bld(imp.b.gather_nd(&op, &indices, &c.opts()))?, x.ty())
        }
        "ScatterElements" | "Scatter" | "ScatterND" => {
            let reduction = c.attrs.string("reduction", "none")?;
            if reduction != "none" {
                return Err(unsupported(format!("{} with reduction '{reduction}'", c.op)));
            }
            let op = imp.operand(x)?;
            let updates = imp.operand(c.req(2)?)?;
            let out = if c.op == "ScatterND" {
                let indices = imp.operand(c.req(1)?)?;
                imp.b.scatter_nd(&op, &indices, &updates, &c.opts())
            } else {
                let axis = norm_axis(c.attrs.int("axis", 0)?, rank, "axis")?;
                let indices = imp.index_operand(c.req(1)?, shape[axis])?;
                imp.b.scatter_elements(
                    &op,
                    &indices,
                    &updates,
                    &ScatterOptions { label: label.into(), axis: axis as u32 },
                )
            };
            dynamic(bld(out)?, x.ty())
        }
        "Expand" => {
            let target =
                dims_to_shape(&imp.const_ints(c, 1)?.ok_or_else(|| invalid("Expand requires its shape input"))?)?;
            let out = broadcast_shapes(&shape, &target)
                .ok_or_else(|| invalid(format!("Expand: {shape:?} does not broadcast to {target:?}")))?;
            if out == shape {
                return one(x.clone());
            }
            let op = imp.operand(x)?;
            dynamic(bld(imp.b.expand(&op, &to_u32_shape(&out)?, &c.opts()))?, x.ty())
        }
        "Tile" => {
            let reps = imp.const_ints(c, 1)?.ok_or_else(|| invalid("Tile requires repeats"))?;
            if reps.len() != rank {
                return Err(invalid(format!("Tile repeats {reps:?} must have {rank} entries")));
            }
            if reps.iter().all(|&r| r == 1) {
                return one(x.clone());
            }
            let reps = to_u32_shape(&dims_to_shape(&reps)?)?;
            let op = imp.operand(x)?;
            dynamic(bld(imp.b.tile(&op, &reps, &c.opts()))?, x.ty())
        }
        "Pad" => pad(imp, c, x),
        "DepthToSpace" | "SpaceToDepth" => {
            let bs = c.attrs.opt_int("blocksize")?.ok_or_else(|| invalid("blocksize is required"))?;
            if rank != 4 || bs <= 0 || bs > 1 << 16 {
                return Err(invalid("DepthToSpace/SpaceToDepth need a 4-D input and a positive blocksize"));
            }
            let b = bs as usize;
            let (n, ch, h, w) = (shape[0], shape[1], shape[2], shape[3]);
            let op = imp.operand(x)?;
            let (s1, perm, s2) = if c.op == "DepthToSpace" {
                if ch % (b * b) != 0 {
                    return Err(invalid("DepthToSpace channels are not divisible by blocksize^2"));
                }
                let cc = ch / (b * b);
                if c.attrs.string("mode", "DCR")? == "CRD" {
                    (vec![n, cc, b, b, h, w], vec![0, 1, 4, 2, 5, 3], vec![n, cc, h * b, w * b])
                } else {
                    (vec![n, b, b, cc, h, w], vec![0, 3, 4, 1, 5, 2], vec![n, cc, h * b, w * b])
                }
            } else {
                if h % b != 0 || w % b != 0 {
                    return Err(invalid("SpaceToDepth spatial size is not divisible by blocksize"));
                }
                let perm = if c.attrs.string("mode", "DCR")? == "CRD" {
                    vec![0, 1, 3, 5, 2, 4]
                } else {
                    vec![0, 3, 5, 1, 2, 4]
                };
                (vec![n, ch, h / b, b, w / b, b], perm, vec![n, ch * b * b, h / b, w / b])
            };
            let r = imp.reshape_op(&op, &s1, label)?;
            let t = imp.transpose_op(&r, &perm, label)?;
            dynamic(imp.reshape_op(&t, &s2, label)?, x.ty())
        }
        "Trilu" => {
            let k = match imp.const_input(c, 1)? {
                Some(k) if k.len() == 1 => k.i64_at(0),
                Some(_) => return Err(invalid("Trilu k must be a scalar")),
                None => 0,
            };
            let options = TriangularOptions {
                label: label.into(),
                upper: c.attrs.int("upper", 1)? != 0,
                diagonal: k.clamp(i32::MIN as i64, i32::MAX as i64) as i32,
            };
            let op = imp.operand(x)?;
            dynamic(bld(imp.b.triangular(&op, &options))?, x.ty())
        }
        "OneHot" => one_hot(imp, c, x),
        "CenterCropPad" => {
            let target = imp.const_ints(c, 1)?.ok_or_else(|| invalid("CenterCropPad requires shape"))?;
            let axes = norm_axes(&c.attrs.ints("axes")?.unwrap_or_else(|| (0..rank as i64).collect()), rank, "axes")?;
            if target.len() != axes.len() || target.iter().any(|&t| t <= 0) {
                return Err(invalid(format!("CenterCropPad shape {target:?} does not fit axes {axes:?}")));
            }
            let (mut begin, mut end) = (vec![0u32; rank], vec![0u32; rank]);
            let mut params: Vec<SliceParam> =
                shape.iter().map(|&d| SliceParam { start: 0, count: d, step: 1 }).collect();
            for (&a, &t) in axes.iter().zip(&target) {
                let (t, d) = (t as usize, shape[a]);
                if t > d {
                    begin[a] = ((t - d) / 2) as u32;
                    end[a] = (t - d - (t - d) / 2) as u32;
                    params[a].count = t;
                } else {
                    params[a] = SliceParam { start: ((d - t) / 2) as i64, count: t, step: 1 };
                }
            }
            let mut op = imp.operand(x)?;
            if begin.iter().chain(&end).any(|&p| p > 0) {
                op = bld(imp.b.pad(&op, &begin, &end, &PadOptions { label: label.into(), ..Default::default() }))?;
            }
            dynamic(imp.slice_op(&op, &params, label)?, x.ty())
        }
        "Compress" => {
            let cond = imp.const_ints(c, 1)?.ok_or_else(|| invalid("Compress requires condition"))?;
            let (v, axis) = match c.attrs.opt_int("axis")? {
                Some(a) => (x.clone(), norm_axis(a, rank, "axis")?),
                None => (imp.reshape_value(x, &[shape.iter().product()], label)?, 0),
            };
            let dim = v.shape()[axis];
            let picked: Vec<i64> =
                cond.iter().take(dim).enumerate().filter(|(_, &b)| b != 0).map(|(i, _)| i as i64).collect();
            if picked.is_empty() {
                return Err(unsupported("Compress selects nothing; WebNN has no empty tensors"));
            }
            let op = imp.operand(&v)?;
            let idx = imp.operand(&Value::constant(Const::i64_vec(&picked)))?;
            let options = GatherOptions { label: label.into(), axis: axis as u32 };
            dynamic(bld(imp.b.gather(&op, &idx, &options))?, x.ty())
        }
        other => Err(unsupported(format!("operator {other} has no WebNN mapping"))),
    }
}

fn pad(imp: &mut Importer, c: &Ctx, x: &Value) -> NResult<Vec<Value>> {
    let shape = x.shape();
    let rank = shape.len();
    let mode = c.attrs.string("mode", "constant")?;
    let mode = match mode.as_str() {
        "constant" => PaddingMode::Constant,
        "edge" => PaddingMode::Edge,
        "reflect" => PaddingMode::Reflection,
        m => return Err(unsupported(format!("Pad mode '{m}'"))),
    };
    let (pads, value, axes) = if c.opset < 11 {
        let pads = c.attrs.ints("pads")?.ok_or_else(|| invalid("Pad requires pads"))?;
        (pads, MLNumber::Double(c.attrs.float("value", 0.0)? as f64), None)
    } else {
        let pads = imp.const_ints(c, 1)?.ok_or_else(|| invalid("Pad requires pads"))?;
        let value = match imp.const_input(c, 2)? {
            Some(v) if v.len() == 1 => number_of(v),
            Some(_) => return Err(invalid("Pad constant_value must be a scalar")),
            None => MLNumber::Double(0.0),
        };
        (pads, value, imp.const_ints(c, 3)?)
    };
    let axes = norm_axes(&axes.unwrap_or_else(|| (0..rank as i64).collect()), rank, "Pad axes")?;
    if pads.len() != 2 * axes.len() {
        return Err(invalid(format!("Pad pads {pads:?} must have 2 entries per padded axis")));
    }
    let mut begin = vec![0i64; rank];
    let mut end = vec![0i64; rank];
    for (i, &a) in axes.iter().enumerate() {
        begin[a] = pads[i];
        end[a] = pads[i + axes.len()];
    }
    let mut op = imp.operand(x)?;
    if begin.iter().chain(&end).any(|&p| p > 0) {
        let options = PadOptions { label: c.label.clone(), mode, value };
        let b: Vec<u32> = begin.iter().map(|&p| p.clamp(0, i32::MAX as i64) as u32).collect();
        let e: Vec<u32> = end.iter().map(|&p| p.clamp(0, i32::MAX as i64) as u32).collect();
        op = bld(imp.b.pad(&op, &b, &e, &options))?;
    }
    if begin.iter().chain(&end).any(|&p| p < 0) {
        // Negative pads crop.
        let padded: Vec<i64> = op.shape().iter().map(|&d| d as i64).collect();
        let mut params = Vec::with_capacity(rank);
        for d in 0..rank {
            let start = begin[d].saturating_neg().max(0);
            let count = padded[d].saturating_sub(start).saturating_sub(end[d].saturating_neg().max(0));
            if count <= 0 {
                return Err(unsupported("Pad crops a dimension to nothing; WebNN has no empty tensors"));
            }
            params.push(SliceParam { start, count: count as usize, step: 1 });
        }
        op = imp.slice_op(&op, &params, &c.label)?;
    }
    Ok(vec![Value::dynamic(op, x.ty())])
}

fn one_hot(imp: &mut Importer, c: &Ctx, indices: &Value) -> NResult<Vec<Value>> {
    let depth = imp.const_input(c, 1)?.ok_or_else(|| invalid("OneHot requires depth"))?;
    if depth.len() != 1 {
        return Err(invalid("OneHot depth must be a scalar"));
    }
    let depth = depth.f64_at(0) as i64;
    if depth <= 0 || depth as usize > imp.fold_limit {
        return Err(unsupported(format!("OneHot depth {depth}")));
    }
    let values = c.req(2)?;
    if values.shape().iter().product::<usize>() != 2 {
        return Err(invalid("OneHot values must have two elements"));
    }
    let shape = indices.shape();
    let axis = norm_axis(c.attrs.int("axis", -1)?, shape.len() + 1, "OneHot axis")?;
    let label = c.label.as_str();
    // Indices as int64, negative ones wrapped by +depth.
    let mut idx = imp.operand(indices)?;
    if indices.ty() != ElemType::I64 {
        idx = bld(imp.b.cast(&idx, webnn_core::DataType::Int64, &c.opts()))?;
    }
    let zero = imp.scalar(webnn_core::DataType::Int64, 0.0)?;
    let d = imp.scalar(webnn_core::DataType::Int64, depth as f64)?;
    let negative = bld(imp.b.lesser(&idx, &zero, &c.opts()))?;
    let wrapped = bld(imp.b.add(&idx, &d, &c.opts()))?;
    let idx = bld(imp.b.where_(&negative, &wrapped, &idx, &c.opts()))?;
    let mut unsq = shape.clone();
    unsq.insert(axis, 1);
    let idx = imp.reshape_op(&idx, &unsq, label)?;
    let mut iota_shape = vec![1usize; shape.len() + 1];
    iota_shape[axis] = depth as usize;
    let iota = Const::from_i64s(ElemType::I64, iota_shape, &(0..depth).collect::<Vec<_>>());
    let iota = imp.operand(&Value::constant(iota))?;
    let hit = bld(imp.b.equal(&idx, &iota, &c.opts()))?;
    // values = [off, on]
    let vals = imp.reshape_value(values, &[2], label)?;
    let vals = imp.operand(&vals)?;
    let params = |i: i64| vec![SliceParam { start: i, count: 1, step: 1 }];
    let off = imp.slice_op(&vals, &params(0), label)?;
    let on = imp.slice_op(&vals, &params(1), label)?;
    let out = bld(imp.b.where_(&hit, &on, &off, &c.opts()))?;
    Ok(vec![Value::dynamic(out, values.ty())])
}

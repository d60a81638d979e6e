//! Reductions ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-reduce) reduceL1 …
//! reduceSumSquare), argMin / argMax
//! ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-argminmax)), softmax
//! ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-softmax-method)) and cumulativeSum
//! ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-cumulativesum)).
//!
//! Geometry: the input's dimensions are split into kept and reduced ones, size-1 dimensions
//! dropped and adjacent dimensions of the same kind merged (as the CPU engine does), so each
//! output ("group") `g` sits at `kept_off(g)` and its reduced elements at
//! `kept_off(g) + red_off(j)`, `j` row-major over the reduced dimensions.
//!
//! Two kernel shapes, picked per op from the sizes:
//! - one invocation per output, folding its `n` elements in order (small `n`, or many outputs
//!   whose reduced axis is not innermost: neighbouring invocations then read neighbouring
//!   elements);
//! - one workgroup per output (`n` ≥ 64 with contiguous rows, or few outputs): each thread
//!   folds a strided slice, then a tree reduction in workgroup memory.
//!
//! Few outputs over long reductions (≥ 32768 elements, ≤ 64 outputs) are split in two passes:
//! workgroups fold 8192-element parts into partial accumulators (scratch), then one
//! invocation per output folds its parts.
//!
//! softmax (and the normalizations of `normalization.rs`) use the same two shapes with three
//! phases per group (a first statistic, a second one using it, then the element-wise write);
//! a few very long groups still run one workgroup each (no split).
//!
//! Numerics: floats (float32, float16) accumulate in f32 (the CPU engine uses f64); the WPT
//! tolerances (R ULP for a sum of R elements and more) hold: pairwise (tree) or sequential f32
//! summation stays within them on every vector. reduceLogSumExp keeps a running maximum `m`
//! and Σ exp(x − m); softmax subtracts the maximum. Float max/min propagate NaN (bit tests).
//! Integers wrap (sum, product, L1, sum of squares) like the CPU. An empty `axes` reduces
//! nothing: each element goes through the reduction's function (|x|, x², log x, …).
//! argMin/argMax return the first index among equal values, a NaN counting as the extreme
//! (first NaN wins); output int32 only (int64 is not stored on the GPU).
//! cumulativeSum runs one invocation per column (sequential scan, f32 accumulator), or, for
//! fewer than 8192 columns of at least 256 elements, one workgroup per column scanning tiles
//! of 256 (Hillis-Steele in workgroup memory, plus a running carry).

use super::{Kernel, Lowering, Slot, Task, Work};
use crate::wgsl::{self, Binding};
use std::fmt::Write;
use webnn_core::graph::{Attrs, Operation};
use webnn_core::{DataType, OpKind, OperandId, Result};

/// Shared WGSL helpers (NaN tests, NaN-propagating max/min on f32).
pub(super) const FLOAT_HELPERS: &str = r"
fn is_nan_(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u;
}
fn fmax_(a: f32, b: f32) -> f32 {
    if (is_nan_(a) || is_nan_(b)) { return bitcast<f32>(0x7fc00000u); }
    return select(a, b, b > a);
}
fn fmin_(a: f32, b: f32) -> f32 {
    if (is_nan_(a) || is_nan_(b)) { return bitcast<f32>(0x7fc00000u); }
    return select(a, b, b < a);
}
";

/// (size, stride) of each dimension of a walk, outermost first.
pub(super) type Dims = Vec<(u32, u64)>;

/// Drops size-1 dimensions and merges neighbours that are contiguous in memory, keeping the
/// row-major order of the walk.
pub(super) fn merge(dims: &[(u32, u64)]) -> Dims {
    let mut out: Dims = Vec::new();
    for &(size, stride) in dims {
        if size == 1 {
            continue;
        }
        match out.last_mut() {
            Some(last) if last.1 == stride * size as u64 => *last = (last.0 * size, stride),
            _ => out.push((size, stride)),
        }
    }
    out
}

/// Product of the sizes of a walk.
pub(super) fn count(dims: &[(u32, u64)]) -> u64 {
    dims.iter().map(|d| d.0 as u64).product()
}

/// WGSL `fn name(i: u32) -> u32`: the element offset of row-major index `i` of a walk.
pub(super) fn offset_fn(name: &str, dims: &[(u32, u64)]) -> String {
    let mut body = String::from("    var r: u32 = i;\n    var o: u32 = 0u;\n");
    for (k, &(size, stride)) in dims.iter().enumerate().rev() {
        if k == 0 {
            let _ = writeln!(body, "    o += r * {stride}u;");
        } else {
            let _ = writeln!(body, "    o += (r % {size}u) * {stride}u;\n    r = r / {size}u;");
        }
    }
    format!("fn {name}(i: u32) -> u32 {{\n{body}    return o;\n}}\n")
}

/// Kept and reduced walks of `shape` split by `reduced(d)`.
pub(super) fn split(shape: &[u32], reduced: impl Fn(usize) -> bool) -> (Dims, Dims) {
    let st = wgsl::strides(shape);
    let (mut kept, mut red) = (Vec::new(), Vec::new());
    for (d, &s) in shape.iter().enumerate() {
        if reduced(d) {
            red.push((s, st[d]));
        } else {
            kept.push((s, st[d]));
        }
    }
    (merge(&kept), merge(&red))
}

/// Workgroup counts for `groups` workgroups, spread over y past the limit, and the x extent.
pub(super) fn group_grid(groups: u64, max: u32) -> ([u32; 3], u64) {
    let groups = groups.max(1);
    let max = max.max(1) as u64;
    if groups <= max {
        ([groups as u32, 1, 1], groups)
    } else {
        let y = groups.div_ceil(max);
        let x = groups.div_ceil(y);
        ([x as u32, y as u32, 1], x)
    }
}

/// Whether a reduction of `n` elements per group over `groups` groups runs one workgroup per
/// group (else one invocation per group), and that workgroup's size.
pub(super) fn workgroup_mode(n: u64, groups: u64, red: &[(u32, u64)]) -> Option<u32> {
    let contiguous = red.last().is_none_or(|d| d.1 == 1);
    if n >= 64 && (contiguous || groups < 16384 || n >= 4096) {
        Some(if n >= 1024 { 256 } else { 64 })
    } else {
        None
    }
}

/// A fold: WGSL defining `Acc`, `init_() -> Acc`, `step_(a: Acc, v: T, j: u32) -> Acc`,
/// `combine_(a: Acc, b: Acc) -> Acc` and `finish_(a: Acc) -> O` (T the input's compute
/// type, O the output's).
fn fold(acc: &str, init: &str, step: &str, combine: &str, finish: &str, t: &str, o: &str) -> String {
    format!(
        "alias Acc = {acc};\nfn init_() -> Acc {{ return {init}; }}\n\
         fn step_(a: Acc, v: {t}, j: u32) -> Acc {{ return {step}; }}\n\
         fn combine_(a: Acc, b: Acc) -> Acc {{ return {combine}; }}\n\
         fn finish_(a: Acc) -> {o} {{ return {finish}; }}\n"
    )
}

/// The fold of a reduce op over `dt` with `n` elements per output, or None if not executed.
pub(super) fn reduce_fold(kind: OpKind, dt: DataType, n: u64) -> Option<String> {
    let t = wgsl::compute_type(dt);
    let nf = wgsl::f32_literal(n as f32);
    if dt.is_float() {
        let lse = r"
fn lse_(p: vec2<f32>, q: vec2<f32>) -> vec2<f32> {
    if (p.y == 0.0) { return q; }
    if (q.y == 0.0) { return p; }
    let m = fmax_(p.x, q.x);
    let f1 = select(p.y * exp(p.x - m), p.y, p.x == m);
    let f2 = select(q.y * exp(q.x - m), q.y, q.x == m);
    return vec2<f32>(m, f1 + f2);
}
";
        let f =
            |init: &str, step: &str, combine: &str, finish: &str| fold("f32", init, step, combine, finish, t, "f32");
        return Some(match kind {
            OpKind::ReduceSum => f("0.0", "a + v", "a + b", "a"),
            OpKind::ReduceMean => f("0.0", "a + v", "a + b", &format!("a / {nf}")),
            OpKind::ReduceL1 => f("0.0", "a + abs(v)", "a + b", "a"),
            OpKind::ReduceL2 => f("0.0", "a + v * v", "a + b", "sqrt(a)"),
            OpKind::ReduceSumSquare => f("0.0", "a + v * v", "a + b", "a"),
            OpKind::ReduceLogSum => f("0.0", "a + v", "a + b", "log(a)"),
            OpKind::ReduceProduct => f("1.0", "a * v", "a * b", "a"),
            OpKind::ReduceMax => f("bitcast<f32>(0xff800000u)", "fmax_(a, v)", "fmax_(a, b)", "a"),
            OpKind::ReduceMin => f("bitcast<f32>(0x7f800000u)", "fmin_(a, v)", "fmin_(a, b)", "a"),
            OpKind::ReduceLogSumExp => format!(
                "{lse}{}",
                fold(
                    "vec2<f32>",
                    "vec2<f32>(bitcast<f32>(0xff800000u), 0.0)",
                    "lse_(a, vec2<f32>(v, 1.0))",
                    "lse_(a, b)",
                    "select(a.x + log(a.y), bitcast<f32>(0xff800000u), a.y == 0.0)",
                    t,
                    "f32"
                )
            ),
            _ => return None,
        });
    }
    let (min, max) = match dt {
        DataType::Int32 | DataType::Int8 => ("bitcast<i32>(0x80000000u)", "i32(0x7fffffff)"),
        _ => ("0u", "0xffffffffu"),
    };
    let (zero, one) = if t == "i32" { ("0", "1") } else { ("0u", "1u") };
    let wide = matches!(dt, DataType::Int32 | DataType::Uint32);
    let f = |init: &str, step: &str, combine: &str| fold(t, init, step, combine, "a", t, t);
    Some(match kind {
        OpKind::ReduceMax => f(min, "max(a, v)", "max(a, b)"),
        OpKind::ReduceMin => f(max, "min(a, v)", "min(a, b)"),
        OpKind::ReduceSum if wide => f(zero, "a + v", "a + b"),
        OpKind::ReduceL1 if wide => f(zero, "a + abs(v)", "a + b"),
        OpKind::ReduceSumSquare if wide => f(zero, "a + v * v", "a + b"),
        OpKind::ReduceProduct if wide => f(one, "a * v", "a * b"),
        _ => return None,
    })
}

/// The fold of argMin / argMax over input `dt` (output int32).
fn arg_fold(max: bool, dt: DataType) -> String {
    let t = wgsl::compute_type(dt);
    let cmp = if max { ">" } else { "<" };
    let better = if dt.is_float() {
        format!(
            "fn better_(v: f32, b: f32) -> bool {{\n    if (is_nan_(b)) {{ return false; }}\n    \
             if (is_nan_(v)) {{ return true; }}\n    return v {cmp} b;\n}}\n"
        )
    } else {
        format!("fn better_(v: {t}, b: {t}) -> bool {{ return v {cmp} b; }}\n")
    };
    let zero = if t == "i32" {
        "0"
    } else if t == "u32" {
        "0u"
    } else {
        "0.0"
    };
    format!(
        "{better}struct Acc {{ v: {t}, i: u32 }}\n\
         fn init_() -> Acc {{ return Acc({zero}, 0xffffffffu); }}\n\
         fn step_(a: Acc, v: {t}, j: u32) -> Acc {{\n    if (a.i == 0xffffffffu || better_(v, a.v)) {{ return Acc(v, j); }}\n    return a;\n}}\n\
         fn combine_(a: Acc, b: Acc) -> Acc {{\n    if (a.i == 0xffffffffu) {{ return b; }}\n    if (b.i == 0xffffffffu) {{ return a; }}\n    \
         if (better_(b.v, a.v)) {{ return b; }}\n    if (better_(a.v, b.v)) {{ return a; }}\n    if (b.i < a.i) {{ return b; }}\n    return a;\n}}\n\
         fn finish_(a: Acc) -> i32 {{ return i32(a.i); }}\n"
    )
}

/// Reductions of at least this many elements per output over few outputs are split in
/// [`SPLIT_CHUNK`]-element parts folded by separate workgroups (two passes).
const SPLIT_MIN: u64 = 1 << 15;
const SPLIT_CHUNK: u64 = 1 << 13;

/// The work folding, for each of the groups of `kept`, the elements of `red` of `x` into
/// output `y` with `helpers` (a [`fold`]).
pub(super) fn fold_work(
    l: &Lowering,
    label: &str,
    x: OperandId,
    y: OperandId,
    kept: &[(u32, u64)],
    red: &[(u32, u64)],
    helpers: &str,
) -> Work {
    let (in_dt, out_dt) = (l.data_type(x), l.data_type(y));
    let (groups, n) = (count(kept), count(red));
    let helpers = format!("{FLOAT_HELPERS}{helpers}{}{}", offset_fn("kept_off", kept), offset_fn("red_off", red));
    let bindings = [Binding::read("x_", in_dt), Binding::write("y_", out_dt)];
    let slots = vec![Slot::Operand(x), Slot::Operand(y)];
    let load = wgsl::load(in_dt, "x_", "e");
    let wg = if wgsl::is_packed(out_dt) { None } else { workgroup_mode(n, groups, red) };
    let Some(wg) = wg else {
        let body = format!(
            "let base = kept_off(i);\nvar a = init_();\nfor (var j: u32 = 0u; j < {n}u; j++) {{\n    \
             let e = base + red_off(j);\n    a = step_(a, {load}, j);\n}}\nreturn finish_(a);"
        );
        let k = l.per_element(label, &bindings, slots, &helpers, &body, groups);
        return Work { scratch: vec![], tasks: vec![Task::Kernel(k)] };
    };
    // Parts per group: one unless the groups are few and long.
    let parts = if n >= SPLIT_MIN && groups <= 64 { n.div_ceil(SPLIT_CHUNK).min((2048 / groups).max(1)) } else { 1 };
    let chunk = n.div_ceil(parts);
    let (workgroups, gx) = group_grid(groups * parts, l.max_workgroups);
    let half = wg / 2;
    let tree = format!(
        "part[t] = a;\nworkgroupBarrier();\n\
         for (var s: u32 = {half}u; s > 0u; s = s >> 1u) {{\n    \
         if (t < s) {{ part[t] = combine_(part[t], part[t + s]); }}\n    workgroupBarrier();\n}}\n"
    );
    let main = |out: &str| {
        format!(
            "var<workgroup> part: array<Acc, {wg}>;\n\
             @compute @workgroup_size({wg})\n\
             fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) t: u32) {{\n\
             let w = wid.x + wid.y * {gx}u;\n\
             let g = w / {parts}u;\n\
             let first = (w % {parts}u) * {chunk}u;\n\
             let end = min(first + {chunk}u, {n}u);\n\
             let base = kept_off(min(g, {last}u));\n\
             var a = init_();\n\
             for (var j: u32 = first + t; j < end; j += {wg}u) {{\n    let e = base + red_off(j);\n    a = step_(a, {load}, j);\n}}\n\
             {tree}if (t == 0u && g < {groups}u) {{ {out} }}\n}}\n",
            last = groups - 1,
        )
    };
    if parts == 1 {
        let mut code = wgsl::declarations(&bindings);
        code.push_str(&helpers);
        code.push_str(&main(&wgsl::store(out_dt, "y_", "g", "finish_(part[0])")));
        let k = l.custom(label, code, slots, workgroups);
        return Work { scratch: vec![], tasks: vec![Task::Kernel(k)] };
    }
    // Pass 1: partial accumulators (8 bytes each at most) into scratch 0; pass 2 folds them.
    let mut code = wgsl::declarations(&bindings[..1]);
    code.push_str("@group(0) @binding(1) var<storage, read_write> parts_: array<Acc>;\n");
    code.push_str(&helpers);
    code.push_str(&main("parts_[w] = part[0];"));
    let pass1 = l.custom(label, code, vec![Slot::Operand(x), Slot::Scratch(0)], workgroups);
    let mut code = String::new();
    if out_dt == DataType::Float16 || in_dt == DataType::Float16 {
        code.push_str("enable f16;\n");
    }
    let _ = write!(
        code,
        "@group(0) @binding(0) var<storage, read> parts_: array<Acc>;\n\
         @group(0) @binding(1) var<storage, read_write> y_: array<{}>;\n{helpers}\
         @compute @workgroup_size({wgs})\n\
         fn main(@builtin(global_invocation_id) gid: vec3<u32>) {{\n\
         let g = gid.x;\n\
         if (g >= {groups}u) {{ return; }}\n\
         var a = init_();\n\
         for (var p: u32 = 0u; p < {parts}u; p++) {{ a = combine_(a, parts_[g * {parts}u + p]); }}\n\
         {}\n}}\n",
        wgsl::storage_type(out_dt),
        wgsl::store(out_dt, "y_", "g", "finish_(a)"),
        wgs = wgsl::WORKGROUP,
    );
    let pass2 = l.custom(
        label,
        code,
        vec![Slot::Scratch(0), Slot::Operand(y)],
        [groups.div_ceil(wgsl::WORKGROUP as u64) as u32, 1, 1],
    );
    Work { scratch: vec![8 * groups * parts], tasks: vec![Task::Kernel(pass1), Task::Kernel(pass2)] }
}

/// Three-phase group kernels (softmax, instance and layer normalization): for each group
/// (`kept`), fold `map1(v)` with `comb1` from `init1` into `s1`, run `fin1` (defining `a`),
/// fold `map2(v)` (may use `a`) with `comb2` into `s2`, run `fin2` (defining `b`), then write
/// `out` (an f32 expression of `v`, `a`, `b`, `j` and `gg`, the group) for each element.
/// `fin1`, `fin2` and `out` may use `gg` (the group, clamped in range) and the extra
/// bindings; `x_` is the input, the last binding the output (a float type).
pub(super) struct Phases<'a> {
    pub init1: &'a str,
    pub map1: &'a str,
    pub comb1: &'a str,
    pub fin1: &'a str,
    pub init2: &'a str,
    pub map2: &'a str,
    pub comb2: &'a str,
    pub fin2: &'a str,
    pub out: &'a str,
}

/// The kernel of [`Phases`] over `kept` groups of `red` elements.
pub(super) fn phases_kernel(
    l: &Lowering,
    label: &str,
    bindings: &[Binding],
    slots: Vec<Slot>,
    kept: &[(u32, u64)],
    red: &[(u32, u64)],
    p: &Phases,
) -> Kernel {
    let (groups, n) = (count(kept), count(red));
    let in_dt = bindings[0].data_type;
    let out = bindings.last().map(|b| (b.name.clone(), b.data_type)).unwrap_or(("y_".into(), DataType::Float32));
    let load = wgsl::load(in_dt, "x_", "e");
    let store = wgsl::store(out.1, &out.0, "e", &format!("({})", p.out));
    let mut code = wgsl::declarations(bindings);
    code.push_str(FLOAT_HELPERS);
    code.push_str(&offset_fn("kept_off", kept));
    code.push_str(&offset_fn("red_off", red));
    let _ = write!(
        code,
        "fn comb1(p: f32, q: f32) -> f32 {{ return {}; }}\nfn comb2(p: f32, q: f32) -> f32 {{ return {}; }}\n",
        p.comb1, p.comb2
    );
    let (fin1, fin2) = (p.fin1, p.fin2);
    let (init1, init2, map1, map2) = (p.init1, p.init2, p.map1, p.map2);
    if let Some(wg) = workgroup_mode(n, groups, red) {
        let (workgroups, gx) = group_grid(groups, l.max_workgroups);
        let half = wg / 2;
        let tree = |c: &str| {
            format!(
                "part[t] = s;\nworkgroupBarrier();\n\
                 for (var h: u32 = {half}u; h > 0u; h = h >> 1u) {{\n    \
                 if (t < h) {{ part[t] = {c}(part[t], part[t + h]); }}\n    workgroupBarrier();\n}}\n"
            )
        };
        let _ = write!(
            code,
            "var<workgroup> part: array<f32, {wg}>;\n\
             @compute @workgroup_size({wg})\n\
             fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) t: u32) {{\n\
             let g = wid.x + wid.y * {gx}u;\n\
             let gg = min(g, {last}u);\n\
             let base = kept_off(gg);\n\
             var s: f32 = {init1};\n\
             for (var j: u32 = t; j < {n}u; j += {wg}u) {{\n    let e = base + red_off(j);\n    let v = {load};\n    s = comb1(s, {map1});\n}}\n\
             {tree1}let s1 = part[0];\nworkgroupBarrier();\n{fin1}\n\
             s = {init2};\n\
             for (var j: u32 = t; j < {n}u; j += {wg}u) {{\n    let e = base + red_off(j);\n    let v = {load};\n    s = comb2(s, {map2});\n}}\n\
             {tree2}let s2 = part[0];\n{fin2}\n\
             if (g < {groups}u) {{\n    for (var j: u32 = t; j < {n}u; j += {wg}u) {{\n        \
             let e = base + red_off(j);\n        let v = {load};\n        {store}\n    }}\n}}\n}}\n",
            last = groups - 1,
            tree1 = tree("comb1"),
            tree2 = tree("comb2"),
        );
        return l.custom(label, code, slots, workgroups);
    }
    let (workgroups, row) = wgsl::grid(groups, l.max_workgroups);
    let _ = write!(
        code,
        "{}let base = kept_off(gg);\n\
         var s: f32 = {init1};\n\
         for (var j: u32 = 0u; j < {n}u; j++) {{\n    let e = base + red_off(j);\n    let v = {load};\n    s = comb1(s, {map1});\n}}\n\
         let s1 = s;\n{fin1}\n\
         s = {init2};\n\
         for (var j: u32 = 0u; j < {n}u; j++) {{\n    let e = base + red_off(j);\n    let v = {load};\n    s = comb2(s, {map2});\n}}\n\
         let s2 = s;\n{fin2}\n\
         for (var j: u32 = 0u; j < {n}u; j++) {{\n    let e = base + red_off(j);\n    let v = {load};\n    {store}\n}}\n}}\n",
        wgsl::indexed_main("gg", row, groups),
    );
    l.custom(label, code, slots, workgroups)
}

/// The ten reductions: the ops specified in the spec's `reduce` section.
fn is_reduction(op: OpKind) -> bool {
    op.spec_anchor() == "reduce"
}

/// Whether this family executes `member` of `op` with `dt` (a type the GPU stores).
pub(super) fn executes(op: OpKind, member: &str, dt: DataType) -> bool {
    match op {
        _ if is_reduction(op) => reduce_fold(op, dt, 1).is_some(),
        OpKind::ArgMin | OpKind::ArgMax => member == "input" || dt == DataType::Int32,
        OpKind::Softmax => dt.is_float(),
        OpKind::CumulativeSum => {
            matches!(dt, DataType::Float32 | DataType::Float16 | DataType::Int32 | DataType::Uint32)
        }
        _ => false,
    }
}

fn one(k: Kernel) -> Result<Option<Work>> {
    Ok(Some(Work { scratch: vec![], tasks: vec![Task::Kernel(k)] }))
}

/// Lowers an op of this family, or None if `op` is not one.
pub(super) fn lower(op: &Operation, l: &Lowering) -> Result<Option<Work>> {
    let label = op.kind.idl_name();
    match (op.kind, &op.attrs) {
        (kind, Attrs::Reduce { axes, .. }) if is_reduction(kind) => {
            let (x, y) = (l.input(op, 0)?, op.outputs[0]);
            let shape = l.shape(x).to_vec();
            let (kept, red) = split(&shape, |d| axes.contains(&(d as u32)));
            let Some(helpers) = reduce_fold(kind, l.data_type(x), count(&red)) else { return Ok(None) };
            Ok(Some(fold_work(l, label, x, y, &kept, &red, &helpers)))
        }
        (OpKind::ArgMin | OpKind::ArgMax, Attrs::ArgMinMax { axis, .. }) => {
            let (x, y) = (l.input(op, 0)?, op.outputs[0]);
            if l.data_type(y) != DataType::Int32 {
                return Ok(None);
            }
            let shape = l.shape(x).to_vec();
            let st = wgsl::strides(&shape);
            let a = *axis as usize;
            // The reduced axis is kept even at size 1 (argMin over it gives 0 either way).
            let kept: Vec<(u32, u64)> = (0..shape.len()).filter(|&d| d != a).map(|d| (shape[d], st[d])).collect();
            let red = vec![(shape.get(a).copied().unwrap_or(1), st.get(a).copied().unwrap_or(1))];
            let helpers = arg_fold(op.kind == OpKind::ArgMax, l.data_type(x));
            Ok(Some(fold_work(l, label, x, y, &merge(&kept), &red, &helpers)))
        }
        (OpKind::Softmax, Attrs::Axis { axis }) => {
            let (x, y) = (l.input(op, 0)?, op.outputs[0]);
            let shape = l.shape(x).to_vec();
            let (kept, red) = split(&shape, |d| d == *axis as usize);
            let p = Phases {
                init1: "bitcast<f32>(0xff800000u)",
                map1: "v",
                comb1: "fmax_(p, q)",
                fin1: "let a = s1;",
                init2: "0.0",
                map2: "exp(v - a)",
                comb2: "p + q",
                fin2: "let b = s2;",
                out: "exp(v - a) / b",
            };
            let bindings = [Binding::read("x_", l.data_type(x)), Binding::write("y_", l.data_type(y))];
            one(phases_kernel(l, label, &bindings, vec![Slot::Operand(x), Slot::Operand(y)], &kept, &red, &p))
        }
        (OpKind::CumulativeSum, Attrs::CumulativeSum { axis, exclusive, reversed }) => {
            let (x, y) = (l.input(op, 0)?, op.outputs[0]);
            let dt = l.data_type(x);
            let shape = l.shape(x).to_vec();
            let a = *axis as usize;
            let prod = |s: &[u32]| s.iter().map(|&d| d as u64).product::<u64>();
            let (outer, n, inner) = (
                prod(&shape[..a.min(shape.len())]),
                shape.get(a).copied().unwrap_or(1) as u64,
                prod(&shape[(a + 1).min(shape.len())..]),
            );
            let columns = outer * inner;
            let t = wgsl::compute_type(dt);
            let zero = match t {
                "i32" => "0",
                "u32" => "0u",
                _ => "0.0",
            };
            let row = if *reversed { format!("{}u - k", n - 1) } else { "k".to_string() };
            let bindings = [Binding::read("x_", dt), Binding::write("y_", l.data_type(y))];
            let mut code = wgsl::declarations(&bindings);
            let load = wgsl::load(dt, "x_", "e");
            let block = n * inner;
            let workgroups = if n >= 256 && columns < 8192 {
                // Few long columns: one workgroup per column scanning tiles of 256 (a
                // Hillis-Steele scan in workgroup memory plus the running carry).
                let (workgroups, gx) = group_grid(columns, l.max_workgroups);
                let value = if *exclusive { "excl" } else { "carry + sh[t]" };
                let _ = write!(
                    code,
                    "var<workgroup> sh: array<{t}, 256>;\n\
                     @compute @workgroup_size(256)\n\
                     fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) t: u32) {{\n\
                     let c = wid.x + wid.y * {gx}u;\n\
                     let cc = min(c, {last}u);\n\
                     let base = (cc / {inner}u) * {block}u + cc % {inner}u;\n\
                     var carry: {t} = {zero};\n\
                     for (var k0: u32 = 0u; k0 < {n}u; k0 += 256u) {{\n    \
                     let k = k0 + t;\n    let e = base + ({row}) * {inner}u;\n    \
                     var v: {t} = {zero};\n    if (k < {n}u) {{ v = {load}; }}\n    sh[t] = v;\n    workgroupBarrier();\n    \
                     for (var o: u32 = 1u; o < 256u; o = o << 1u) {{\n        \
                     var add: {t} = {zero};\n        if (t >= o) {{ add = sh[t - o]; }}\n        workgroupBarrier();\n        \
                     sh[t] = sh[t] + add;\n        workgroupBarrier();\n    }}\n    \
                     var excl: {t} = carry;\n    if (t > 0u) {{ excl = carry + sh[t - 1u]; }}\n    \
                     if (k < {n}u && c < {columns}u) {{ {store} }}\n    \
                     carry = carry + sh[255];\n    workgroupBarrier();\n}}\n}}\n",
                    last = columns.max(1) - 1,
                    store = wgsl::store(l.data_type(y), "y_", "e", value),
                );
                workgroups
            } else {
                let (workgroups, xr) = wgsl::grid(columns, l.max_workgroups);
                let value = if *exclusive { "acc" } else { "next" };
                let _ = write!(
                    code,
                    "{}let base = (c / {inner}u) * {block}u + c % {inner}u;\n\
                     var acc: {t} = {zero};\n\
                     for (var k: u32 = 0u; k < {n}u; k++) {{\n    \
                     let e = base + ({row}) * {inner}u;\n    let next = acc + {load};\n    {store}\n    acc = next;\n}}\n}}\n",
                    wgsl::indexed_main("c", xr, columns),
                    store = wgsl::store(l.data_type(y), "y_", "e", value),
                );
                workgroups
            };
            one(l.custom(label, code, vec![Slot::Operand(x), Slot::Operand(y)], workgroups))
        }
        _ => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merge_drops_ones_and_joins_contiguous_dims() {
        // [2, 1, 3, 4] keeping all: one run of 24.
        assert_eq!(merge(&[(2, 12), (1, 12), (3, 4), (4, 1)]), vec![(24, 1)]);
        // Reducing axes 0 and 2 of [2, 3, 4]: kept [(3, 4)], reduced [(2, 12), (4, 1)].
        let (kept, red) = split(&[2, 3, 4], |d| d != 1);
        assert_eq!(kept, vec![(3, 4)]);
        assert_eq!(red, vec![(2, 12), (4, 1)]);
    }

    #[test]
    fn offset_fn_of_nothing_is_zero() {
        assert!(offset_fn("f", &[]).contains("return o;"));
        assert!(offset_fn("f", &[(3, 4), (4, 1)]).contains("(r % 4u) * 1u"));
    }
}

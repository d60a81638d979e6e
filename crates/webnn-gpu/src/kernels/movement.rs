//! Data movement ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder) concat, expand, pad,
//! reverse, slice, split, tile, transpose, triangular): elements are moved without arithmetic, so
//! every data type the GPU stores is executed (8-bit outputs are written a word at a time by the
//! per-element skeleton; 8-bit inputs are unpacked by `wgsl::load`).
//!
//! Design: one invocation per output element (per output word for 8-bit types).
//! - transpose, slice, split, expand, reverse and tile are *affine views*: input offset =
//!   base + Σ cᵈ·strideᵈ over the output coordinates (negative strides for reverse, stride 0
//!   for broadcast dimensions; tile is the view [rep₀, in₀, rep₁, in₁, …] with strides
//!   [0, s₀, 0, s₁, …]). Dimensions of size 1 are dropped and dimensions that are contiguous
//!   in the input merged before the shader is written, so e.g. a slice of whole rows costs one
//!   division per element. The view is checked to stay inside the input at build.
//! - concat: one kernel reads up to 15 inputs (16 bindings with the output) and picks the
//!   input by the position in the output row; more inputs are concatenated in groups of 15
//!   into scratch buffers first (a tree, each level moving every element once).
//! - pad: per dimension, constant (the value), edge (clamp) or reflection (mirror without
//!   repeating the edge), as the CPU engine's `pad_map`.
//! - triangular: keeps col − row ≥ diagonal (upper) or ≤ diagonal (lower), zero elsewhere.

use super::{Lowering, Slot, Work};
use crate::wgsl::{self, Binding};
use std::fmt::Write;
use webnn_core::graph::{Attrs, Operation};
use webnn_core::types::PaddingMode;
use webnn_core::view::affine_view;
use webnn_core::{DataType, Error, OpKind, Result, Scalar};

/// The ops of this family.
const OPS: &[OpKind] = &[
    OpKind::Transpose,
    OpKind::Slice,
    OpKind::Concat,
    OpKind::Split,
    OpKind::Expand,
    OpKind::Pad,
    OpKind::Tile,
    OpKind::Reverse,
    OpKind::Triangular,
];

/// Inputs of one concat kernel (one binding is the output).
const CONCAT_GROUP: usize = 15;

/// Whether this family executes `member` of `op` with `dt` (a type the GPU stores): every
/// stored type, since nothing is computed.
pub(super) fn executes(op: OpKind, member: &str, dt: DataType) -> bool {
    let _ = (member, dt);
    OPS.contains(&op)
}

/// An input offset affine in the output coordinates: `base + Σ c[d]·strides[d]` over `shape`
/// (the output's shape, or a finer view of it with the same row-major order).
struct Affine {
    shape: Vec<u64>,
    strides: Vec<i64>,
    base: i64,
}

impl Affine {
    fn new(shape: &[u32], strides: Vec<i64>, base: i64) -> Affine {
        Affine { shape: shape.iter().map(|&d| d as u64).collect(), strides, base }
    }

    /// Drops size-1 dimensions and merges neighbours that are contiguous in the input.
    fn simplified(&self) -> Affine {
        let mut shape: Vec<u64> = Vec::new();
        let mut strides: Vec<i64> = Vec::new();
        for (&n, &s) in self.shape.iter().zip(&self.strides) {
            if n == 1 {
                continue;
            }
            if let (Some(pn), Some(ps)) = (shape.last_mut(), strides.last_mut()) {
                if *ps == s * n as i64 {
                    *pn *= n;
                    *ps = s;
                    continue;
                }
            }
            shape.push(n);
            strides.push(s);
        }
        Affine { shape, strides, base: self.base }
    }

    /// Whether every offset lies in `[0, elements)`.
    fn fits(&self, elements: u64) -> bool {
        let (mut lo, mut hi) = (self.base as i128, self.base as i128);
        for (&n, &s) in self.shape.iter().zip(&self.strides) {
            if n == 0 {
                return true;
            }
            let span = (n as i128 - 1) * s as i128;
            if span < 0 {
                lo += span;
            } else {
                hi += span;
            }
        }
        lo >= 0 && hi < elements as i128
    }

    /// Statements then the u32 offset expression for output element `i` (u32 arithmetic
    /// wraps, so negative strides are written as their two's complement).
    fn wgsl(&self) -> (String, String) {
        let a = self.simplified();
        if a.shape.len() == 1 && a.strides[0] == 1 {
            return (String::new(), if a.base == 0 { "i".into() } else { format!("(i + {}u)", a.base as u32) });
        }
        let mut code = String::from("var rest: u32 = i;\n");
        let mut terms = Vec::new();
        for d in (0..a.shape.len()).rev() {
            let n = a.shape[d];
            if d == 0 {
                let _ = writeln!(code, "let c0: u32 = rest;");
            } else {
                let _ = writeln!(code, "let c{d}: u32 = rest % {n}u; rest = rest / {n}u;");
            }
            match a.strides[d] {
                0 => {}
                1 => terms.push(format!("c{d}")),
                s => terms.push(format!("c{d} * {}u", s as u32)),
            }
        }
        if a.base != 0 || terms.is_empty() {
            terms.push(format!("{}u", a.base as u32));
        }
        (code, format!("({})", terms.join(" + ")))
    }
}

/// A per-element kernel copying the affine view `view` of input `x` into output `y`.
fn view_kernel(l: &Lowering, label: &str, x: Slot, y: Slot, dt: DataType, view: &Affine, n: u64) -> super::Kernel {
    let (code, at) = view.wgsl();
    let body = format!("{code}return {};", wgsl::load(dt, "x_", &at));
    let bindings = [Binding::read("x_", dt), Binding::write("y", dt)];
    l.per_element(label, &bindings, vec![x, y], "", &body, n)
}

fn mismatch(op: &Operation) -> Error {
    Error::unknown(format!("{}: attributes do not match the operand shapes", op.kind))
}

/// The zero of `dt`'s compute type.
fn zero(dt: DataType) -> &'static str {
    match wgsl::compute_type(dt) {
        "i32" => "i32(0)",
        "u32" => "0u",
        _ => "0.0",
    }
}

/// [`wgsl::scalar_literal`], or an error for a 64-bit value.
fn scalar(s: &Scalar) -> Result<String> {
    wgsl::scalar_literal(s).ok_or_else(|| Error::not_supported("pad: a 64-bit value is not executed on the GPU"))
}

/// Lowers an op of this family, or None if `op` is not one.
pub(super) fn lower(op: &Operation, l: &Lowering) -> Result<Option<Work>> {
    if !OPS.contains(&op.kind) {
        return Ok(None);
    }
    let label = op.kind.idl_name();
    let mut work = Work::default();
    match op.kind {
        OpKind::Concat => concat(op, l, &mut work)?,
        OpKind::Split => {
            let Attrs::Split { axis, .. } = op.attrs else { return Err(mismatch(op)) };
            let x = l.input(op, 0)?;
            let dt = l.data_type(x);
            let in_shape = l.shape(x).to_vec();
            let axis = axis as usize;
            if axis >= in_shape.len() {
                return Err(mismatch(op));
            }
            let ist: Vec<i64> = wgsl::strides(&in_shape).iter().map(|&s| s as i64).collect();
            let mut start = 0i64;
            for &y in &op.outputs {
                let out_shape = l.shape(y).to_vec();
                let view = Affine::new(&out_shape, ist.clone(), start * ist[axis]);
                if out_shape.len() != in_shape.len() || !view.fits(l.elements(x)) {
                    return Err(mismatch(op));
                }
                start += out_shape[axis] as i64;
                let k = view_kernel(l, label, Slot::Operand(x), Slot::Operand(y), dt, &view, l.elements(y));
                work.tasks.push(super::Task::Kernel(k));
            }
        }
        OpKind::Pad => pad(op, l, &mut work)?,
        OpKind::Triangular => {
            let Attrs::Triangular { upper, diagonal } = op.attrs else { return Err(mismatch(op)) };
            let (x, y) = (l.input(op, 0)?, op.outputs[0]);
            let dt = l.data_type(x);
            let shape = l.shape(y).to_vec();
            let r = shape.len();
            if r < 2 || l.shape(x) != shape.as_slice() {
                return Err(mismatch(op));
            }
            let (rows, cols) = (shape[r - 2], shape[r - 1]);
            let keep = if upper { ">=" } else { "<=" };
            let body = format!(
                "let col = i32(i % {cols}u);\nlet row = i32((i / {cols}u) % {rows}u);\n\
                 if (col - row {keep} i32({diagonal})) {{ return {}; }}\nreturn {};",
                wgsl::load(dt, "x_", "i"),
                zero(dt)
            );
            let bindings = [Binding::read("x_", dt), Binding::write("y", dt)];
            let k = l.per_element(label, &bindings, vec![Slot::Operand(x), Slot::Operand(y)], "", &body, l.elements(y));
            work.tasks.push(super::Task::Kernel(k));
        }
        _ => {
            let (x, y) = (l.input(op, 0)?, op.outputs[0]);
            let dt = l.data_type(x);
            let view = affine_view(op, l.shape(x), l.shape(y)).ok_or_else(|| mismatch(op))?;
            let view = Affine::new(&view.shape, view.strides, view.offset);
            if !view.fits(l.elements(x)) {
                return Err(mismatch(op));
            }
            let (xs, ys) = (Slot::Operand(x), Slot::Operand(y));
            let k = match tiled_transpose(l, label, dt, &view, xs, ys) {
                Some(k) => k,
                None => view_kernel(l, label, xs, ys, dt, &view, l.elements(y)),
            };
            work.tasks.push(super::Task::Kernel(k));
        }
    }
    Ok(Some(work))
}

/// Side of the square tiles of [`tiled_transpose`].
const TILE: u64 = 32;

/// A view whose input-contiguous dimension `p` is not the output's last dimension `q` (a
/// transpose moving the innermost dimension; also a slice, expand or tile view of that form, the
/// u32 offsets wrapping for negative strides) reads 32 × 32 tiles along p into workgroup
/// memory and writes them along q, so that both the reads and the writes are coalesced
/// (256 threads, 4 elements each). None where the per-element kernel is as good: 8-bit types
/// (written a word at a time), p = q, or small tiles.
fn tiled_transpose(l: &Lowering, label: &str, dt: DataType, view: &Affine, x: Slot, y: Slot) -> Option<super::Kernel> {
    let a = view.simplified();
    let r = a.shape.len();
    if wgsl::is_packed(dt) || r < 2 {
        return None;
    }
    let q = r - 1;
    let p = (0..r).find(|&d| a.strides[d] == 1)?;
    if p == q || a.shape[p] < 16 || a.shape[q] < 16 {
        return None;
    }
    let ost = wgsl::strides(&a.shape.iter().map(|&d| d as u32).collect::<Vec<_>>());
    let (np, nq) = (a.shape[p], a.shape[q]);
    let (tp, tq) = (np.div_ceil(TILE), nq.div_ceil(TILE));
    let batch: u64 = (0..r).filter(|&d| d != p && d != q).map(|d| a.shape[d]).product();
    let groups = tp * tq * batch;
    let max = l.max_workgroups.max(1) as u64;
    let gy = groups.div_ceil(max);
    let gx = groups.div_ceil(gy);
    // Input and output offsets of the batch index b (the other dimensions, row-major).
    let mut bases = format!("var rest: u32 = b;\nvar ib: u32 = {}u;\nvar ob: u32 = 0u;\n", a.base as u32);
    for d in (0..r).rev().filter(|&d| d != p && d != q) {
        let _ = writeln!(
            bases,
            "{{ let c = rest % {n}u; rest = rest / {n}u; ib = ib + c * {si}u; ob = ob + c * {so}u; }}",
            n = a.shape[d],
            si = a.strides[d] as u32,
            so = ost[d]
        );
    }
    let t = wgsl::compute_type(dt);
    let bindings = [Binding::read("x_", dt), Binding::write("y", dt)];
    let code = format!(
        "{decl}var<workgroup> tile: array<array<{t}, 33>, 32>;\n\
         @compute @workgroup_size(32, 8)\n\
         fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {{\n\
         let g: u32 = wid.x + wid.y * {gx}u;\n\
         if (g >= {groups}u) {{ return; }}\n\
         let bq = g % {tq}u;\nlet bp = (g / {tq}u) % {tp}u;\nlet b = g / {tpq}u;\n\
         {bases}\
         for (var k: u32 = 0u; k < 32u; k += 8u) {{\n\
             let cp = bp * 32u + lid.x;\n    let cq = bq * 32u + lid.y + k;\n\
             if (cp < {np}u && cq < {nq}u) {{ tile[lid.y + k][lid.x] = {load}; }}\n\
         }}\n\
         workgroupBarrier();\n\
         for (var k: u32 = 0u; k < 32u; k += 8u) {{\n\
             let cq = bq * 32u + lid.x;\n    let cp = bp * 32u + lid.y + k;\n\
             if (cp < {np}u && cq < {nq}u) {{ {store} }}\n\
         }}\n}}\n",
        decl = wgsl::declarations(&bindings),
        tpq = tp * tq,
        load = wgsl::load(dt, "x_", &format!("ib + cp + cq * {}u", a.strides[q] as u32)),
        store = wgsl::store(dt, "y", &format!("ob + cq + cp * {}u", ost[p]), "tile[lid.x][lid.y + k]"),
    );
    Some(l.custom(label, code, vec![x, y], [gx as u32, gy as u32, 1]))
}

/// concat: a tree of kernels of at most [`CONCAT_GROUP`] inputs each.
fn concat(op: &Operation, l: &Lowering, work: &mut Work) -> Result<()> {
    let Attrs::Axis { axis } = op.attrs else { return Err(mismatch(op)) };
    let y = op.outputs[0];
    let dt = l.data_type(y);
    let out_shape = l.shape(y).to_vec();
    let axis = axis as usize;
    if axis >= out_shape.len() {
        return Err(mismatch(op));
    }
    let outer: u64 = out_shape[..axis].iter().map(|&d| d as u64).product();
    let inner: u64 = out_shape[axis + 1..].iter().map(|&d| d as u64).product();
    // (slot, elements per outer row) of the pieces still to concatenate.
    let mut pieces: Vec<(Slot, u64)> = Vec::with_capacity(op.inputs.len());
    for id in &op.inputs {
        let id = id.ok_or_else(|| Error::unknown("concat: an input is missing"))?;
        let s = l.shape(id);
        if s.len() != out_shape.len() || (0..s.len()).any(|d| d != axis && s[d] != out_shape[d]) {
            return Err(mismatch(op));
        }
        pieces.push((Slot::Operand(id), s[axis] as u64 * inner));
    }
    let row: u64 = pieces.iter().map(|p| p.1).sum();
    if row * outer != l.elements(y) || pieces.is_empty() {
        return Err(mismatch(op));
    }
    if let [(Slot::Operand(x), _)] = pieces[..] {
        // One input: a plain copy.
        let view = Affine::new(&[l.elements(y) as u32], vec![1], 0);
        let k = view_kernel(l, "concat", Slot::Operand(x), Slot::Operand(y), dt, &view, l.elements(y));
        work.tasks.push(super::Task::Kernel(k));
        return Ok(());
    }
    while pieces.len() > 1 {
        let last_level = pieces.len() <= CONCAT_GROUP;
        let mut next = Vec::with_capacity(pieces.len().div_ceil(CONCAT_GROUP));
        for group in pieces.chunks(CONCAT_GROUP) {
            let group_row: u64 = group.iter().map(|p| p.1).sum();
            let to = if last_level {
                Slot::Operand(y)
            } else {
                work.scratch.push(scratch_bytes(dt, group_row * outer));
                Slot::Scratch(work.scratch.len() - 1)
            };
            work.tasks.push(super::Task::Kernel(concat_kernel(l, dt, group, to, group_row, outer)));
            next.push((to, group_row));
        }
        pieces = next;
    }
    Ok(())
}

/// Bytes of `elements` of `dt` in a buffer (8-bit types packed).
fn scratch_bytes(dt: DataType, elements: u64) -> u64 {
    (elements * dt.byte_size() as u64).div_ceil(4) * 4
}

/// One concat kernel: output rows of `row` elements made of the rows of `group`.
fn concat_kernel(l: &Lowering, dt: DataType, group: &[(Slot, u64)], to: Slot, row: u64, outer: u64) -> super::Kernel {
    let mut bindings = Vec::with_capacity(group.len() + 1);
    let mut slots = Vec::with_capacity(group.len() + 1);
    let mut body = if outer == 1 {
        "let o: u32 = 0u;\nlet r: u32 = i;\n".to_string()
    } else {
        format!("let o: u32 = i / {row}u;\nlet r: u32 = i % {row}u;\n")
    };
    let mut start = 0u64;
    for (k, &(slot, len)) in group.iter().enumerate() {
        let name = format!("x{k}");
        bindings.push(Binding::read(&name, dt));
        slots.push(slot);
        let at = match (outer, start) {
            (1, 0) => "r".to_string(),
            (1, s) => format!("r - {s}u"),
            (_, 0) => format!("o * {len}u + r"),
            (_, s) => format!("o * {len}u + r - {s}u"),
        };
        let load = wgsl::load(dt, &name, &at);
        if k + 1 == group.len() {
            let _ = write!(body, "return {load};");
        } else {
            let _ = writeln!(body, "if (r < {}u) {{ return {load}; }}", start + len);
        }
        start += len;
    }
    bindings.push(Binding::write("y", dt));
    slots.push(to);
    l.per_element("concat", &bindings, slots, "", &body, row * outer)
}

/// pad: constant, edge or reflection, dimension by dimension.
fn pad(op: &Operation, l: &Lowering, work: &mut Work) -> Result<()> {
    let Attrs::Pad { beginning, ending, mode, value } = &op.attrs else { return Err(mismatch(op)) };
    let (x, y) = (l.input(op, 0)?, op.outputs[0]);
    let dt = l.data_type(x);
    let in_shape = l.shape(x).to_vec();
    let out_shape = l.shape(y).to_vec();
    let rank = in_shape.len();
    let fits = beginning.len() == rank
        && ending.len() == rank
        && out_shape.len() == rank
        && (0..rank).all(|d| beginning[d] as u64 + in_shape[d] as u64 + ending[d] as u64 == out_shape[d] as u64);
    if !fits {
        return Err(mismatch(op));
    }
    let ist = wgsl::strides(&in_shape);
    let mut body = wgsl::coordinates(&out_shape, "i");
    let mut terms = Vec::new();
    for d in 0..rank {
        let (b, n) = (beginning[d], in_shape[d]);
        let padded = b != 0 || ending[d] != 0;
        if !padded {
            if n != 1 {
                terms.push(format!("c{d} * {}u", ist[d]));
            }
            continue;
        }
        // p: the input coordinate (i32) before the mode's rule.
        let _ = writeln!(body, "var p{d}: i32 = i32(c{d}) - {b};");
        match mode {
            PaddingMode::Constant => {
                let _ = writeln!(body, "if (p{d} < 0 || p{d} >= {n}) {{ return {}; }}", scalar(value)?);
            }
            PaddingMode::Edge => {
                let _ = writeln!(body, "p{d} = clamp(p{d}, 0, {});", n as i64 - 1);
            }
            PaddingMode::Reflection => {
                let _ = writeln!(
                    body,
                    "if (p{d} < 0) {{ p{d} = -p{d}; }} else if (p{d} > {last}) {{ p{d} = {twice} - p{d}; }}\n\
                     p{d} = clamp(p{d}, 0, {last});",
                    last = n as i64 - 1,
                    twice = 2 * (n as i64 - 1)
                );
            }
        }
        if n != 1 {
            terms.push(format!("u32(p{d}) * {}u", ist[d]));
        }
    }
    let at = if terms.is_empty() { "0u".to_string() } else { terms.join(" + ") };
    let _ = write!(body, "return {};", wgsl::load(dt, "x_", &at));
    let bindings = [Binding::read("x_", dt), Binding::write("y", dt)];
    let k = l.per_element("pad", &bindings, vec![Slot::Operand(x), Slot::Operand(y)], "", &body, l.elements(y));
    work.tasks.push(super::Task::Kernel(k));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn views_merge_contiguous_dimensions() {
        // A slice of whole rows of a [4, 5, 6] tensor: rows 1..3, everything else kept.
        let a = Affine::new(&[2, 5, 6], vec![30, 6, 1], 30).simplified();
        assert_eq!((a.shape, a.strides, a.base), (vec![60], vec![1], 30));
        // A transpose of the last two dimensions does not merge.
        let t = Affine::new(&[1, 6, 5], vec![30, 1, 6], 0).simplified();
        assert_eq!((t.shape, t.strides), (vec![6, 5], vec![1, 6]));
    }

    #[test]
    fn views_are_checked_against_the_input() {
        // reverse of 4 elements: offsets 3, 2, 1, 0.
        assert!(Affine::new(&[4], vec![-1], 3).fits(4));
        assert!(!Affine::new(&[4], vec![-1], 2).fits(4));
        assert!(!Affine::new(&[4], vec![2], 0).fits(4));
    }
}

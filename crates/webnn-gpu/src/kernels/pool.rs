//! averagePool2d, l2Pool2d, maxPool2d
//! ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-pool2d)) and resample2d
//! ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-resample2d-method)): one invocation per
//! output element.
//!
//! Pooling follows the CPU engine: the output size comes from the output descriptor; only
//! real input elements take part in a window (padded positions and positions past the input
//! that ceil rounding lets a window reach are skipped); averagePool2d divides by the number
//! of real elements; a window with no real element gives 0 (average, L2) or the type's
//! lowest value (max). Average and L2 compute in f32; max works on every stored type
//! (int8/uint8 packed by the skeleton) and propagates NaN (bit tests). Global pooling (one
//! unpadded window covering the input) runs as the reduction of `reduce.rs` over H, W
//! (reduceMean / reduceL2 / reduceMax: one workgroup per (n, c) with a tree reduction).
//!
//! resample2d: the spec's half-pixel transform `in = clamp((out + 0.5) / scale − 0.5, 0,
//! inSize − 1)`, nearest taking `ceil(in − 0.5)`, linear the two neighbours and weight
//! `in − floor(in)`. The source indices and weights are computed on the host in f64, exactly
//! as the CPU engine does, and written to a scratch table by a one-thread setup kernel
//! (straight-line stores), so that the indices agree with the CPU for every scale. Past
//! [`TABLE_LIMIT`] entries the shader computes them in f32 instead (the indices can then
//! differ from the CPU's where `(out + 0.5) / scale` falls within f32 rounding of a tie).
//! Linear interpolates along `axes[1]` first, then `axes[0]`, in f32 (`a·(1−t) + b·t`);
//! int8/uint8 results round half to even and saturate.

use super::reduce::{fold_work, merge, reduce_fold, FLOAT_HELPERS};
use super::{Lowering, Slot, Task, Work};
use crate::wgsl::{self, Binding};
use std::fmt::Write;
use webnn_core::graph::{Attrs, Operation};
use webnn_core::types::{InputOperandLayout, InterpolationMode};
use webnn_core::{DataType, OpKind, Result};

/// Table entries past which resample2d computes its source coordinates in the shader.
const TABLE_LIMIT: usize = 4096;

/// Whether this family executes `member` of `op` with `dt` (a type the GPU stores).
pub(super) fn executes(op: OpKind, member: &str, dt: DataType) -> bool {
    let _ = member;
    match op {
        OpKind::AveragePool2d | OpKind::L2Pool2d => dt.is_float(),
        OpKind::MaxPool2d => true,
        OpKind::Resample2d => matches!(dt, DataType::Float32 | DataType::Float16 | DataType::Int8 | DataType::Uint8),
        _ => false,
    }
}

/// Lowers an op of this family, or None if `op` is not one.
pub(super) fn lower(op: &Operation, l: &Lowering) -> Result<Option<Work>> {
    match (op.kind, &op.attrs) {
        (OpKind::AveragePool2d | OpKind::L2Pool2d | OpKind::MaxPool2d, Attrs::Pool2d { .. }) => pool(op, l),
        (OpKind::Resample2d, Attrs::Resample2d { .. }) => resample(op, l),
        _ => Ok(None),
    }
}

fn pool(op: &Operation, l: &Lowering) -> Result<Option<Work>> {
    let Attrs::Pool2d { window, padding, strides, dilations, layout } = op.attrs else { return Ok(None) };
    let (x, y) = (l.input(op, 0)?, op.outputs[0]);
    let (s, o) = (l.shape(x).to_vec(), l.shape(y).to_vec());
    if s.len() != 4 || o.len() != 4 {
        return Ok(None);
    }
    let dt = l.data_type(x);
    let nhwc = layout == InputOperandLayout::Nhwc;
    let (c, h, w) = if nhwc { (s[3], s[1], s[2]) } else { (s[1], s[2], s[3]) };
    // Output coordinates c0..c3 → (channel, oh, ow); input strides of a channel and a pixel.
    let (ch, oh, ow) = if nhwc { ("c3", "c1", "c2") } else { ("c1", "c2", "c3") };
    let (cs, hs, ws) = if nhwc { (1u64, w as u64 * c as u64, c as u64) } else { (h as u64 * w as u64, w as u64, 1u64) };
    let ns = c as u64 * h as u64 * w as u64;
    // Global pooling (one window covering the whole unpadded input): a reduction over H, W
    // (every window has H·W real elements, so the average is the mean).
    let global = window == [h, w]
        && padding == [0; 4]
        && dilations == [1, 1]
        && (if nhwc { o[1] == 1 && o[2] == 1 } else { o[2] == 1 && o[3] == 1 });
    let equivalent = match op.kind {
        OpKind::AveragePool2d => OpKind::ReduceMean,
        OpKind::L2Pool2d => OpKind::ReduceL2,
        _ => OpKind::ReduceMax,
    };
    if global {
        let st = wgsl::strides(&s);
        let (kept, red) = if nhwc {
            ([(s[0], st[0]), (c, 1)], [(h, st[1]), (w, st[2])])
        } else {
            ([(s[0], st[0]), (c, st[1])], [(h, st[2]), (w, 1)])
        };
        if let Some(helpers) = reduce_fold(equivalent, dt, h as u64 * w as u64) {
            return Ok(Some(fold_work(l, op.kind.idl_name(), x, y, &merge(&kept), &merge(&red), &helpers)));
        }
    }
    let t = wgsl::compute_type(dt);
    let (init, step, finish) = match op.kind {
        OpKind::AveragePool2d => ("0.0".to_string(), "acc + v", "select(acc / f32(cnt), 0.0, cnt == 0u)"),
        OpKind::L2Pool2d => ("0.0".to_string(), "acc + v * v", "sqrt(acc)"),
        _ => {
            let lowest = match dt {
                DataType::Float32 | DataType::Float16 => "bitcast<f32>(0xff800000u)",
                DataType::Int32 => "bitcast<i32>(0x80000000u)",
                DataType::Int8 => "-128",
                _ => "0u",
            };
            (lowest.to_string(), if dt.is_float() { "pmax_(acc, v)" } else { "max(acc, v)" }, "acc")
        }
    };
    let helpers = format!(
        "{FLOAT_HELPERS}fn pmax_(a: f32, b: f32) -> f32 {{\n    if (is_nan_(a) || is_nan_(b)) {{ return a + b; }}\n    return select(a, b, b > a);\n}}\n"
    );
    let body = format!(
        "{coords}let base = c0 * {ns}u + {ch} * {cs}u;\n\
         var acc: {t} = {init};\nvar cnt: u32 = 0u;\n\
         for (var kh: u32 = 0u; kh < {wh}u; kh++) {{\n    \
         let ih = i32({oh} * {sh}u + kh * {dh}u) - {pt};\n    if (ih < 0 || ih >= {h}) {{ continue; }}\n    \
         for (var kw: u32 = 0u; kw < {ww}u; kw++) {{\n        \
         let iw = i32({ow} * {sw}u + kw * {dw}u) - {pl};\n        if (iw < 0 || iw >= {w}) {{ continue; }}\n        \
         let e = base + u32(ih) * {hs}u + u32(iw) * {ws}u;\n        let v = {load};\n        acc = {step};\n        cnt++;\n    }}\n}}\n\
         return {finish};",
        coords = wgsl::coordinates(&o, "i"),
        wh = window[0],
        ww = window[1],
        sh = strides[0],
        sw = strides[1],
        dh = dilations[0],
        dw = dilations[1],
        pt = padding[0] as i32,
        pl = padding[2] as i32,
        h = h as i32,
        w = w as i32,
        load = wgsl::load(dt, "x_", "e"),
    );
    let bindings = [Binding::read("x_", dt), Binding::write("y_", l.data_type(y))];
    let k = l.per_element(
        op.kind.idl_name(),
        &bindings,
        vec![Slot::Operand(x), Slot::Operand(y)],
        &helpers,
        &body,
        l.elements(y),
    );
    Ok(Some(Work { scratch: vec![], tasks: vec![Task::Kernel(k)] }))
}

/// One output index along a resampled axis: the two source indices and the weight of the
/// second, as the CPU engine computes them (f64).
fn tap(mode: InterpolationMode, o: u32, scale: f64, in_size: u32) -> (u32, u32, f32) {
    let c = ((o as f64 + 0.5) / scale - 0.5).clamp(0.0, (in_size.max(1) - 1) as f64);
    let last = in_size.max(1) - 1;
    match mode {
        InterpolationMode::NearestNeighbor => {
            let i = ((c - 0.5).ceil().max(0.0) as u32).min(last);
            (i, i, 0.0)
        }
        InterpolationMode::Linear => {
            let i0 = (c.floor() as u32).min(last);
            let i1 = (c.ceil() as u32).min(last);
            (i0, i1, (c - i0 as f64) as f32)
        }
    }
}

fn resample(op: &Operation, l: &Lowering) -> Result<Option<Work>> {
    let Attrs::Resample2d { mode, scales, axes } = op.attrs else { return Ok(None) };
    let (x, y) = (l.input(op, 0)?, op.outputs[0]);
    let (s, o) = (l.shape(x).to_vec(), l.shape(y).to_vec());
    let axes = [axes[0] as usize, axes[1] as usize];
    if s.len() != 4 || o.len() != 4 || axes[0] >= 4 || axes[1] >= 4 || axes[0] == axes[1] {
        return Ok(None);
    }
    let dt = l.data_type(x);
    let st = wgsl::strides(&s);
    let linear = mode == InterpolationMode::Linear;
    let scale = |k: usize| match scales {
        Some(sc) => sc[k] as f64,
        None => o[axes[k]] as f64 / s[axes[k]] as f64,
    };
    let width = if linear { 3 } else { 1 };
    let entries = (o[axes[0]] as usize + o[axes[1]] as usize) * width;
    let table = entries <= TABLE_LIMIT;
    let mut tasks = Vec::new();
    let mut scratch = Vec::new();
    // (lo, hi, t) WGSL expressions of resampled axis k at output coordinate `c{d}`.
    let mut taps: Vec<(String, String, String)> = Vec::new();
    if table {
        let mut code = wgsl::declarations(&[Binding::write("tab_", DataType::Uint32)]);
        code.push_str("@compute @workgroup_size(1)\nfn main() {\n");
        let mut at = 0usize;
        for (k, &d) in axes.iter().enumerate() {
            let start = at;
            for oi in 0..o[d] {
                let (lo, hi, t) = tap(mode, oi, scale(k), s[d]);
                let _ = writeln!(code, "tab_[{at}] = {lo}u;");
                if linear {
                    let _ = writeln!(code, "tab_[{}] = {hi}u;\ntab_[{}] = {}u;", at + 1, at + 2, t.to_bits());
                }
                at += width;
            }
            let i = if width == 1 { format!("{start}u + c{d}") } else { format!("{start}u + c{d} * 3u") };
            taps.push((format!("tab_[{i}]"), format!("tab_[{i} + 1u]"), format!("bitcast<f32>(tab_[{i} + 2u])")));
        }
        code.push_str("}\n");
        scratch.push(4 * entries.max(1) as u64);
        tasks.push(Task::Kernel(l.custom("resample2d tables", code, vec![Slot::Scratch(0)], [1, 1, 1])));
    } else {
        for (k, &d) in axes.iter().enumerate() {
            let last = s[d].max(1) - 1;
            let c = format!(
                "clamp((f32(c{d}) + 0.5) / {} - 0.5, 0.0, {})",
                wgsl::f32_literal(scale(k) as f32),
                wgsl::f32_literal(last as f32)
            );
            if linear {
                taps.push((
                    format!("min(u32(floor({c})), {last}u)"),
                    format!("min(u32(ceil({c})), {last}u)"),
                    format!("({c} - floor({c}))"),
                ));
            } else {
                let i = format!("min(u32(max(ceil({c} - 0.5), 0.0)), {last}u)");
                taps.push((i.clone(), i, "0.0".into()));
            }
        }
    }
    // Offset of the dimensions that are not resampled.
    let base: Vec<String> = (0..4).filter(|d| !axes.contains(d)).map(|d| format!("c{d} * {}u", st[d])).collect();
    let (sy, sx) = (st[axes[0]], st[axes[1]]);
    let mut body = wgsl::coordinates(&o, "i");
    let _ = writeln!(body, "let base = {};", base.join(" + "));
    let _ = writeln!(body, "let ylo = {};\nlet xlo = {};", taps[0].0, taps[1].0);
    let load = |e: &str| wgsl::load(dt, "x_", e);
    if !linear {
        let _ = write!(body, "let e = base + ylo * {sy}u + xlo * {sx}u;\nreturn {};", load("e"));
    } else {
        let _ = writeln!(
            body,
            "let yhi = {};\nlet xhi = {};\nlet ty = {};\nlet tx = {};",
            taps[0].1, taps[1].1, taps[0].2, taps[1].2
        );
        let _ = writeln!(
            body,
            "let e00 = base + ylo * {sy}u + xlo * {sx}u;\nlet e01 = base + ylo * {sy}u + xhi * {sx}u;\n\
             let e10 = base + yhi * {sy}u + xlo * {sx}u;\nlet e11 = base + yhi * {sy}u + xhi * {sx}u;\n\
             let v0 = f32({}) * (1.0 - tx) + f32({}) * tx;\nlet v1 = f32({}) * (1.0 - tx) + f32({}) * tx;\n\
             let r = v0 * (1.0 - ty) + v1 * ty;",
            load("e00"),
            load("e01"),
            load("e10"),
            load("e11"),
        );
        body.push_str(match dt {
            DataType::Int8 => "return i32(clamp(round(r), -128.0, 127.0));",
            DataType::Uint8 => "return u32(clamp(round(r), 0.0, 255.0));",
            _ => "return r;",
        });
    }
    let mut bindings = vec![Binding::read("x_", dt)];
    let mut slots = vec![Slot::Operand(x)];
    if table {
        bindings.push(Binding::read("tab_", DataType::Uint32));
        slots.push(Slot::Scratch(0));
    }
    bindings.push(Binding::write("y_", l.data_type(y)));
    slots.push(Slot::Operand(y));
    tasks.push(Task::Kernel(l.per_element(op.kind.idl_name(), &bindings, slots, "", &body, l.elements(y))));
    Ok(Some(Work { scratch, tasks }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn taps_follow_the_half_pixel_transform() {
        // 2x upsampling of 2 elements: 0, 0, 1, 1 for nearest.
        let near: Vec<u32> = (0..4).map(|o| tap(InterpolationMode::NearestNeighbor, o, 2.0, 2).0).collect();
        assert_eq!(near, vec![0, 0, 1, 1]);
        // Linear: c = 0 (clamped), 0.25, 0.75, 1 (clamped).
        let lin: Vec<(u32, u32, f32)> = (0..4).map(|o| tap(InterpolationMode::Linear, o, 2.0, 2)).collect();
        assert_eq!(lin, vec![(0, 0, 0.0), (0, 1, 0.25), (0, 1, 0.75), (1, 1, 0.0)]);
    }
}

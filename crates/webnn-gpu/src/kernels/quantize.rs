//! quantizeLinear ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-quantizelinear)) and
//! dequantizeLinear ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-dequantizelinear)):
//! float32/float16 values with int8/uint8/int32/uint32 quantized values and zero points; `scale`
//! and `zeroPoint` blockwise broadcast to the input (same rank, each dimension dividing the
//! input's: scale element `Σ (cᵈ / blockᵈ)·strideᵈ` covers output element `c`). One invocation per
//! output element.
//!
//! Numerics follow the CPU engine (webnn-cpu kernels/quantize.rs, decisions.md D7) exactly:
//! - quantize: `saturate(roundHalfEven(x / scale) + zeroPoint)`, NaN → 0. The quotient is
//!   computed in f32 and refined by one residual step (`q + fma(−q, s, x) / s`), so that a GPU
//!   whose division is not correctly rounded (WGSL allows 2.5 ULP) still rounds exact ties the
//!   CPU's way. WGSL `round` is ties-to-even. The 8-bit sum is an f32 addition as on the CPU;
//!   the 32-bit sum (the CPU adds in f64) is done exactly on 16-bit halves in i32, then
//!   saturated.
//! - dequantize: `f32(x − zeroPoint) · scale`: the difference is exact (in i32 on 16-bit
//!   halves for the 32-bit types: `f32(hi)·65536 + f32(lo)` rounds once, like the CPU's i64 →
//!   f32 conversion), the product one f32 rounding, then rounded to f16 for float16.

use super::{Lowering, Slot, Task, Work};
use crate::wgsl::{self, Binding};
use std::fmt::Write;
use webnn_core::graph::Operation;
use webnn_core::{DataType, Error, OpKind, Result};

fn is_float(dt: DataType) -> bool {
    matches!(dt, DataType::Float32 | DataType::Float16)
}

fn is_quantized(dt: DataType) -> bool {
    matches!(dt, DataType::Int8 | DataType::Uint8 | DataType::Int32 | DataType::Uint32)
}

/// Whether this family executes `member` of `op` with `dt` (a type the GPU stores).
pub(super) fn executes(op: OpKind, member: &str, dt: DataType) -> bool {
    match (op, member) {
        (OpKind::QuantizeLinear, "input" | "scale") => is_float(dt),
        (OpKind::QuantizeLinear, "zeroPoint" | "output") => is_quantized(dt),
        (OpKind::DequantizeLinear, "input" | "zeroPoint") => is_quantized(dt),
        (OpKind::DequantizeLinear, "scale" | "output") => is_float(dt),
        _ => false,
    }
}

const HELPERS: &str = r"
fn is_nan_(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u;
}
fn div_(x: f32, s: f32) -> f32 {
    let q = x / s;
    if ((bitcast<u32>(q) & 0x7f800000u) == 0x7f800000u) { return q; }
    let r = q + fma(-q, s, x) / s;
    if ((bitcast<u32>(r) & 0x7f800000u) == 0x7f800000u) { return q; }
    return r;
}
";

/// The statements turning `r` (a rounded f32, maybe ±∞ or NaN) and `z` (the zero point in
/// its compute type) into the saturated quantized value of `dt`, ending in `return`.
fn saturate(dt: DataType) -> &'static str {
    match dt {
        DataType::Int8 => "let v = r + f32(z);\nreturn select(i32(clamp(v, -128.0, 127.0)), 0, is_nan_(v));",
        DataType::Uint8 => "let v = r + f32(z);\nreturn select(u32(clamp(v, 0.0, 255.0)), 0u, is_nan_(v));",
        // r + z exactly on 16-bit halves: r = rh·65536 + rl (rl in [0, 65536)), z likewise.
        DataType::Int32 => {
            "if (is_nan_(r)) { return 0; }
let rc = clamp(r, -4294967296.0, 4294967296.0);
let rh = floor(rc * 0.0000152587890625);
let rl = i32(rc - rh * 65536.0);
let sl = rl + (z & 0xffff);
let h = i32(rh) + (z >> 16u) + (sl >> 16u);
if (h > 32767) { return 2147483647; }
if (h < -32768) { return bitcast<i32>(0x80000000u); }
return bitcast<i32>((u32(h) << 16u) | u32(sl & 0xffff));"
        }
        _ => {
            "if (is_nan_(r)) { return 0u; }
let rc = clamp(r, -4294967296.0, 4294967296.0);
let rh = floor(rc * 0.0000152587890625);
let rl = i32(rc - rh * 65536.0);
let sl = rl + i32(z & 0xffffu);
let h = i32(rh) + i32(z >> 16u) + (sl >> 16u);
if (h < 0) { return 0u; }
if (h > 65535) { return 0xffffffffu; }
return (u32(h) << 16u) | u32(sl & 0xffff);"
        }
    }
}

/// An f32 expression of `x − z` (both of `dt`'s compute type), rounded once.
fn difference(dt: DataType) -> &'static str {
    match dt {
        DataType::Int8 => "f32(x - z)",
        DataType::Uint8 => "f32(i32(x) - i32(z))",
        DataType::Int32 => "f32((x >> 16u) - (z >> 16u)) * 65536.0 + f32((x & 0xffff) - (z & 0xffff))",
        _ => "f32(i32(x >> 16u) - i32(z >> 16u)) * 65536.0 + f32(i32(x & 0xffffu) - i32(z & 0xffffu))",
    }
}

/// The scale index (a u32 expression) of output element `i` after `coordinates`, for scale
/// shape `scale` blockwise broadcast to `input`: statements and expression.
fn scale_index(input: &[u32], scale: &[u32]) -> (String, String) {
    if input == scale {
        return (String::new(), "i".into());
    }
    // (input dim, scale dim) without size-1 input dims; neighbours per-element in both merged.
    let mut dims: Vec<(u64, u64)> = Vec::new();
    for (&x, &s) in input.iter().zip(scale) {
        let (x, s) = (x as u64, (s as u64).max(1));
        if x == 1 {
            continue;
        }
        if let Some(p) = dims.last_mut() {
            if (s == 1 && p.1 == 1) || (p.0 == p.1 && x == s) {
                *p = (p.0 * x, p.1 * s);
                continue;
            }
        }
        dims.push((x, s));
    }
    if dims.iter().all(|d| d.1 == 1) {
        return (String::new(), "0u".into());
    }
    let shape: Vec<u32> = dims.iter().map(|d| d.0 as u32).collect();
    let sshape: Vec<u32> = dims.iter().map(|d| d.1 as u32).collect();
    let st = wgsl::strides(&sshape);
    let terms: Vec<String> = dims
        .iter()
        .enumerate()
        .filter(|(_, d)| d.1 > 1)
        .map(|(k, d)| {
            let block = d.0 / d.1;
            let c = if block == 1 { format!("c{k}") } else { format!("(c{k} / {block}u)") };
            if st[k] == 1 {
                c
            } else {
                format!("{c} * {}u", st[k])
            }
        })
        .collect();
    (wgsl::coordinates(&shape, "i"), terms.join(" + "))
}

/// Lowers an op of this family, or None if `op` is not one.
pub(super) fn lower(op: &Operation, l: &Lowering) -> Result<Option<Work>> {
    let dequantize = match op.kind {
        OpKind::QuantizeLinear => false,
        OpKind::DequantizeLinear => true,
        _ => return Ok(None),
    };
    let (x, s, z, y) = (l.input(op, 0)?, l.input(op, 1)?, l.input(op, 2)?, op.outputs[0]);
    let (xt, st, zt, yt) = (l.data_type(x), l.data_type(s), l.data_type(z), l.data_type(y));
    let (input, scale) = (l.shape(x).to_vec(), l.shape(s).to_vec());
    let blockwise = scale.len() == input.len()
        && l.shape(z) == scale.as_slice()
        && input.iter().zip(&scale).all(|(&a, &b)| b > 0 && a % b == 0)
        && l.shape(y) == input.as_slice();
    if !blockwise {
        return Err(Error::unknown(format!("{}: scale/zeroPoint shapes do not match the input", op.kind)));
    }
    let (float_ok, int_t) = if dequantize { (is_float(st) && yt == st, xt) } else { (is_float(xt) && st == xt, yt) };
    if !float_ok || !is_quantized(int_t) || zt != int_t {
        return Err(Error::not_supported(format!("{}: these data types are not executed on the GPU", op.kind)));
    }
    let (coords, at) = scale_index(&input, &scale);
    let mut body = coords;
    let _ = writeln!(
        body,
        "let x = {};\nlet s = {};\nlet z = {};",
        wgsl::load(xt, "x_", "i"),
        wgsl::load(st, "s_", &at),
        wgsl::load(zt, "z_", &at)
    );
    if dequantize {
        let _ = write!(body, "return ({}) * s;", difference(int_t));
    } else {
        let _ = write!(body, "let r = round(div_(x, s));\n{}", saturate(int_t));
    }
    let bindings = [Binding::read("x_", xt), Binding::read("s_", st), Binding::read("z_", zt), Binding::write("y", yt)];
    let slots = vec![Slot::Operand(x), Slot::Operand(s), Slot::Operand(z), Slot::Operand(y)];
    let k = l.per_element(op.kind.idl_name(), &bindings, slots, HELPERS, &body, l.elements(y));
    Ok(Some(Work { scratch: vec![], tasks: vec![Task::Kernel(k)] }))
}

#[cfg(test)]
mod tests {
    use super::scale_index;

    #[test]
    fn scale_indexes_merge_and_drop_dimensions() {
        assert_eq!(scale_index(&[2, 3], &[2, 3]).1, "i");
        assert_eq!(scale_index(&[2, 3], &[1, 1]).1, "0u");
        // Per-channel over [1, 4, 6]: channel c1 of the merged [4, 6].
        assert_eq!(scale_index(&[1, 4, 6], &[1, 4, 1]).1, "c0");
        // Blocks of 2 along the last dimension of [4, 6]: scale [4, 3].
        assert_eq!(scale_index(&[4, 6], &[4, 3]).1, "c0 * 3u + (c1 / 2u)");
    }
}

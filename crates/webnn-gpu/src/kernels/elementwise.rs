//! Element-wise operations ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-binary)
//! element-wise binary, [spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-unary) element-wise
//! unary, the activations of [spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder), cast, clamp,
//! prelu): one invocation per output element, inputs broadcast with numpy's rules by index
//! arithmetic baked into the shader.
//!
//! Floats (float32 and float16) are computed in f32. Functions WGSL lacks are written here:
//! `erf` (|x| < 1: its Taylor series to x^23, truncation error < 1e-10; beyond: 1 − erfc with
//! Numerical Recipes' Chebyshev erfc, relative error < 1.2e-7), `gelu` as `x/2 · erfc(−x/√2)`
//! for x/√2 < −1 (no cancellation where 1 + erf is tiny), `pow` with negative bases and
//! integral exponents, and the stable forms of softplus and sigmoid. `tan` does its own
//! range reduction (Cody–Waite, π/2 in three parts, exact for |x| < 2^15) and evaluates sin
//! and cos on [−π/4, π/4] by their Taylor series (truncation < 3e-10): drivers' `tan` can be
//! far off near its poles (NVIDIA's: 2.4e-3 at tan ≈ −23.7, above the WPT ATOL of 1/1024).

use super::{Lowering, Slot, Task, Work};
use crate::wgsl::{self, Binding};
use webnn_core::graph::{Attrs, Operation};
use webnn_core::{DataType, OpKind, Result};

/// Helper functions a body may call.
pub(super) const HELPERS: &str = r"
fn erfc_big(z: f32) -> f32 {
    let t = 1.0 / (1.0 + 0.5 * z);
    return t * exp(-z * z - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (-0.18628806
        + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))));
}
fn erf_(x: f32) -> f32 {
    if (abs(x) < 1.0) {
        let x2 = x * x;
        var s = -1.2290555301717928e-09;
        s = s * x2 + 1.480719281587922e-08;
        s = s * x2 - 1.6365844691234924e-07;
        s = s * x2 + 1.6462114365889248e-06;
        s = s * x2 - 1.4925650358406252e-05;
        s = s * x2 + 0.00012055332981789665;
        s = s * x2 - 0.0008548327023450853;
        s = s * x2 + 0.005223977625442188;
        s = s * x2 - 0.026866170645131252;
        s = s * x2 + 0.11283791670955128;
        s = s * x2 - 0.37612638903183754;
        s = s * x2 + 1.1283791670955126;
        return s * x;
    }
    let y = 1.0 - erfc_big(abs(x));
    return select(-y, y, x >= 0.0);
}
fn gelu_(x: f32) -> f32 {
    let z = x * 0.7071067811865476;
    if (z < -1.0) { return 0.5 * x * erfc_big(-z); }
    return 0.5 * x * (1.0 + erf_(z));
}
fn tan_(x: f32) -> f32 {
    let k = round(x * 0.6366197723675814);
    var r = x - k * 1.5703125;
    r = r - k * 4.837512969970703e-4;
    r = r - k * 7.549789954891882e-8;
    let r2 = r * r;
    let s = r * (1.0 + r2 * (-0.16666666666666666 + r2 * (8.333333333333333e-3 + r2 * (-1.984126984126984e-4
        + r2 * (2.7557319223985893e-6 - r2 * 2.505210838544172e-8)))));
    let c = 1.0 + r2 * (-0.5 + r2 * (4.1666666666666664e-2 + r2 * (-1.388888888888889e-3 + r2 * (2.48015873015873e-5
        + r2 * (-2.755731922398589e-7 + r2 * 2.08767569878681e-9)))));
    return select(s / c, -c / s, (i32(k) & 1) != 0);
}
fn pow_(x: f32, y: f32) -> f32 {
    if (y == 0.0) { return 1.0; }
    if (x == 0.0) { return select(bitcast<f32>(0x7f800000u), 0.0, y > 0.0); }
    if (x < 0.0) {
        if (y != floor(y)) { return bitcast<f32>(0x7fc00000u); }
        let r = pow(-x, y);
        return select(r, -r, abs(y - 2.0 * floor(y * 0.5)) == 1.0);
    }
    return pow(x, y);
}
fn is_nan_(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u;
}
fn is_inf_(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7fffffffu) == 0x7f800000u;
}
fn sigmoid_(x: f32) -> f32 {
    let e = exp(-abs(x));
    return select(e / (1.0 + e), 1.0 / (1.0 + e), x >= 0.0);
}
";

/// The WGSL expression of a float unary op on `x: f32` (for epilogues), or None.
pub(super) fn unary_expression(op: &Operation, dt: DataType) -> Option<String> {
    unary(op, dt)
}

/// The WGSL expression of a unary op on `x` (of `dt`'s compute type), or None.
fn unary(op: &Operation, dt: DataType) -> Option<String> {
    let float = dt.is_float();
    let signed = matches!(dt, DataType::Int32 | DataType::Int8);
    let lit = |v: f64| wgsl::literal(dt, v);
    Some(match (op.kind, &op.attrs) {
        (OpKind::Identity, _) => "x".into(),
        (OpKind::Abs, _) if float || signed => "abs(x)".into(),
        (OpKind::Neg, _) if float || signed => "-x".into(),
        (OpKind::Relu, _) if float || signed => format!("max(x, {})", lit(0.0)),
        (OpKind::Sign, _) if float || signed => "sign(x)".into(),
        (OpKind::Ceil, _) if float => "ceil(x)".into(),
        (OpKind::Floor, _) if float => "floor(x)".into(),
        (OpKind::RoundEven, _) if float => "round(x)".into(),
        (OpKind::Cos, _) if float => "cos(x)".into(),
        (OpKind::Sin, _) if float => "sin(x)".into(),
        (OpKind::Tan, _) if float => "tan_(x)".into(),
        (OpKind::Exp, _) if float => "exp(x)".into(),
        (OpKind::Log, _) if float => "log(x)".into(),
        (OpKind::Sqrt, _) if float => "sqrt(x)".into(),
        (OpKind::Reciprocal, _) if float => "1.0 / x".into(),
        (OpKind::Erf, _) if float => "erf_(x)".into(),
        (OpKind::Tanh, _) if float => "tanh(clamp(x, -15.0, 15.0))".into(),
        (OpKind::Sigmoid, _) if float => "sigmoid_(x)".into(),
        (OpKind::Softsign, _) if float => "x / (1.0 + abs(x))".into(),
        (OpKind::Softplus, _) if float => "max(x, 0.0) + log(1.0 + exp(-abs(x)))".into(),
        (OpKind::Gelu, _) if float => "gelu_(x)".into(),
        (OpKind::HardSwish, _) if float => "x * clamp(x + 3.0, 0.0, 6.0) / 6.0".into(),
        (OpKind::Elu, Attrs::AlphaBeta { alpha, .. }) if float => {
            format!("select({} * (exp(x) - 1.0), x, x >= 0.0)", lit(*alpha))
        }
        (OpKind::LeakyRelu, Attrs::AlphaBeta { alpha, .. }) if float => {
            format!("select({} * x, x, x >= 0.0)", lit(*alpha))
        }
        (OpKind::HardSigmoid, Attrs::AlphaBeta { alpha, beta }) if float => {
            format!("clamp({} * x + {}, 0.0, 1.0)", lit(*alpha), lit(*beta))
        }
        (OpKind::Linear, Attrs::AlphaBeta { alpha, beta }) if float => format!("{} * x + {}", lit(*alpha), lit(*beta)),
        (OpKind::LogicalNot, _) if dt == DataType::Uint8 => "select(0u, 1u, x == 0u)".into(),
        (OpKind::IsNaN, _) if float => "select(0u, 1u, is_nan_(x))".into(),
        (OpKind::IsInfinite, _) if float => "select(0u, 1u, is_inf_(x))".into(),
        (OpKind::Clamp, Attrs::Clamp { min, max }) => {
            format!("min(max(x, {}), {})", wgsl::scalar_literal(min)?, wgsl::scalar_literal(max)?)
        }
        _ => return None,
    })
}

/// The WGSL expression of a binary op on `a` and `b`, or None.
fn binary(op: OpKind, dt: DataType) -> Option<&'static str> {
    let float = dt.is_float();
    Some(match op {
        OpKind::Add => "a + b",
        OpKind::Sub => "a - b",
        OpKind::Mul => "a * b",
        OpKind::Div => "a / b",
        OpKind::Max => "max(a, b)",
        OpKind::Min => "min(a, b)",
        OpKind::Pow if float => "pow_(a, b)",
        OpKind::Prelu if float || matches!(dt, DataType::Int32 | DataType::Int8) => "select(a * b, a, a >= 0)",
        // IEEE comparisons with NaN spelled out: drivers may fold NaN compares away.
        OpKind::Equal if float => "select(0u, 1u, !is_nan_(a) && !is_nan_(b) && a == b)",
        OpKind::NotEqual if float => "select(0u, 1u, is_nan_(a) || is_nan_(b) || a != b)",
        OpKind::Greater if float => "select(0u, 1u, !is_nan_(a) && !is_nan_(b) && a > b)",
        OpKind::GreaterOrEqual if float => "select(0u, 1u, !is_nan_(a) && !is_nan_(b) && a >= b)",
        OpKind::Lesser if float => "select(0u, 1u, !is_nan_(a) && !is_nan_(b) && a < b)",
        OpKind::LesserOrEqual if float => "select(0u, 1u, !is_nan_(a) && !is_nan_(b) && a <= b)",
        OpKind::Equal => "select(0u, 1u, a == b)",
        OpKind::NotEqual => "select(0u, 1u, a != b)",
        OpKind::Greater => "select(0u, 1u, a > b)",
        OpKind::GreaterOrEqual => "select(0u, 1u, a >= b)",
        OpKind::Lesser => "select(0u, 1u, a < b)",
        OpKind::LesserOrEqual => "select(0u, 1u, a <= b)",
        OpKind::LogicalAnd if dt == DataType::Uint8 => "select(0u, 1u, a != 0u && b != 0u)",
        OpKind::LogicalOr if dt == DataType::Uint8 => "select(0u, 1u, a != 0u || b != 0u)",
        OpKind::LogicalXor if dt == DataType::Uint8 => "select(0u, 1u, (a != 0u) != (b != 0u))",
        _ => return None,
    })
}

/// The ops of this family with two inputs broadcast to the output: the builder's binary
/// family (arithmetic, comparisons, logicalAnd/Or/Xor) and prelu.
fn is_binary(op: OpKind) -> bool {
    op.builder_family() == Some("binary") || op == OpKind::Prelu
}

/// `cast`'s conversion of `x` (in `from`'s compute type) to `to`'s compute type, with the
/// CPU engine's rules (webnn-cpu kernels/cast.rs): float → integer truncates toward zero,
/// saturates to the target's range and maps NaN to 0; integer → integer keeps the low bits.
fn cast(from: DataType, to: DataType) -> String {
    let float_to_int =
        |t: &str, lo: &str, hi: &str, zero: &str| format!("select({t}(clamp(x, {lo}, {hi})), {zero}, is_nan_(x))");
    match (from.is_float(), to) {
        (_, DataType::Float32 | DataType::Float16) => "f32(x)".into(),
        (true, DataType::Int8) => float_to_int("i32", "-128.0", "127.0", "0"),
        (true, DataType::Uint8) => float_to_int("u32", "0.0", "255.0", "0u"),
        (true, DataType::Int32) => "select(i32(x), 0, is_nan_(x))".into(),
        (true, _) => "select(u32(x), 0u, is_nan_(x))".into(),
        (false, t) => format!("{}(x)", wgsl::compute_type(t)),
    }
}

/// Whether this family executes `member` of `op` with `dt` (a type the GPU stores).
pub(super) fn executes(op: OpKind, member: &str, dt: DataType) -> bool {
    match op {
        OpKind::Cast | OpKind::Reshape | OpKind::Clamp => true,
        // Comparisons read any type and write uint8.
        OpKind::Equal
        | OpKind::NotEqual
        | OpKind::Greater
        | OpKind::GreaterOrEqual
        | OpKind::Lesser
        | OpKind::LesserOrEqual => true,
        OpKind::IsNaN | OpKind::IsInfinite if member == "output" => true,
        OpKind::Where => true,
        _ if is_binary(op) => binary(op, dt).is_some(),
        _ => {
            let probe = Operation {
                kind: op,
                inputs: vec![],
                outputs: vec![],
                attrs: Attrs::AlphaBeta { alpha: 1.0, beta: 0.0 },
                label: String::new(),
            };
            unary(&probe, dt).is_some()
        }
    }
}

/// Lowers an element-wise op, or None if `op` is not of this family.
pub(super) fn lower(op: &Operation, l: &Lowering) -> Result<Option<Work>> {
    let y = op.outputs[0];
    let out_dt = l.data_type(y);
    let n = l.elements(y);
    let label = op.kind.idl_name();
    match op.kind {
        OpKind::Reshape => {
            let x = l.input(op, 0)?;
            let bytes = crate::device::padded(l.graph.descriptor(y).byte_length());
            Ok(Some(Work {
                scratch: vec![],
                tasks: vec![Task::Copy { from: Slot::Operand(x), to: Slot::Operand(y), bytes }],
            }))
        }
        OpKind::Cast => {
            let x = l.input(op, 0)?;
            let in_dt = l.data_type(x);
            let body = format!("let x = {};\nreturn {};", wgsl::load(in_dt, "x_", "i"), cast(in_dt, out_dt));
            let bindings = [Binding::read("x_", in_dt), Binding::write("y", out_dt)];
            let k = l.per_element(label, &bindings, vec![Slot::Operand(x), Slot::Operand(y)], HELPERS, &body, n);
            Ok(Some(Work { scratch: vec![], tasks: vec![Task::Kernel(k)] }))
        }
        OpKind::Where => {
            let (c, t, f) = (l.input(op, 0)?, l.input(op, 1)?, l.input(op, 2)?);
            let dt = l.data_type(t);
            let out_shape = l.shape(y).to_vec();
            let coords = wgsl::coordinates(&out_shape, "i");
            let at = |id| wgsl::offset(&wgsl::broadcast_strides(l.shape(id), &out_shape));
            let body = format!(
                "{coords}return select({}, {}, {} != 0u);",
                wgsl::load(dt, "f_", &at(f)),
                wgsl::load(dt, "t_", &at(t)),
                wgsl::load(DataType::Uint8, "c_", &at(c)),
            );
            let bindings = [
                Binding::read("c_", DataType::Uint8),
                Binding::read("t_", dt),
                Binding::read("f_", dt),
                Binding::write("y", out_dt),
            ];
            let slots = vec![Slot::Operand(c), Slot::Operand(t), Slot::Operand(f), Slot::Operand(y)];
            let k = l.per_element(label, &bindings, slots, "", &body, n);
            Ok(Some(Work { scratch: vec![], tasks: vec![Task::Kernel(k)] }))
        }
        kind if is_binary(kind) => {
            let (a, b) = (l.input(op, 0)?, l.input(op, 1)?);
            let dt = l.data_type(a);
            let Some(expr) = binary(op.kind, dt) else { return Ok(None) };
            let out_shape = l.shape(y).to_vec();
            let sa = wgsl::broadcast_strides(l.shape(a), &out_shape);
            let sb = wgsl::broadcast_strides(l.shape(b), &out_shape);
            let same = |s: &[u64]| s == wgsl::strides(&out_shape).as_slice();
            let (ia, ib, coords) = if same(&sa) && same(&sb) {
                ("i".to_string(), "i".to_string(), String::new())
            } else {
                (wgsl::offset(&sa), wgsl::offset(&sb), wgsl::coordinates(&out_shape, "i"))
            };
            let body = format!(
                "{coords}let a = {};\nlet b = {};\nreturn {expr};",
                wgsl::load(dt, "a_", &ia),
                wgsl::load(dt, "b_", &ib),
            );
            let bindings = [Binding::read("a_", dt), Binding::read("b_", dt), Binding::write("y", out_dt)];
            let slots = vec![Slot::Operand(a), Slot::Operand(b), Slot::Operand(y)];
            let k = l.per_element(label, &bindings, slots, HELPERS, &body, n);
            Ok(Some(Work { scratch: vec![], tasks: vec![Task::Kernel(k)] }))
        }
        _ => {
            let x = l.input(op, 0)?;
            let dt = l.data_type(x);
            let Some(expr) = unary(op, dt) else { return Ok(None) };
            let body = format!("let x = {};\nreturn {expr};", wgsl::load(dt, "x_", "i"));
            let bindings = [Binding::read("x_", dt), Binding::write("y", out_dt)];
            let k = l.per_element(label, &bindings, vec![Slot::Operand(x), Slot::Operand(y)], HELPERS, &body, n);
            Ok(Some(Work { scratch: vec![], tasks: vec![Task::Kernel(k)] }))
        }
    }
}

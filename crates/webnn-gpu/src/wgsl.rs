//! WGSL generation helpers shared by every kernel family: how each data type is stored and
//! computed, literals, index arithmetic over shapes, and the module skeleton of a kernel
//! that runs one invocation per output element.
//!
//! Storage: float32, int32 and uint32 as their WGSL types; float16 as `f16` (the adapter's
//! `SHADER_F16`), computed in f32 and rounded to f16 when stored, as the CPU engine does;
//! int8 and uint8 packed four to a `u32` word (computed as i32 / u32). A kernel producing
//! 8-bit elements writes whole words: the skeleton of [`module`] has each invocation compute
//! the four elements of one word. WGSL has no 64-bit integers: int64 and uint64 are left out
//! of the GPU limits.

use std::fmt::Write;
use webnn_core::DataType;

/// Threads per workgroup of the one-invocation-per-element kernels.
pub(crate) const WORKGROUP: u32 = 64;

/// The data types the GPU stores.
pub(crate) fn stores(dt: DataType) -> bool {
    !matches!(dt, DataType::Int64 | DataType::Uint64)
}

/// True for the types packed four to a word.
pub(crate) fn is_packed(dt: DataType) -> bool {
    matches!(dt, DataType::Int8 | DataType::Uint8)
}

/// The WGSL element type of a storage buffer of `dt`.
pub(crate) fn storage_type(dt: DataType) -> &'static str {
    match dt {
        DataType::Float16 => "f16",
        DataType::Int32 => "i32",
        DataType::Uint32 | DataType::Int8 | DataType::Uint8 => "u32",
        _ => "f32",
    }
}

/// The WGSL type values of `dt` are computed in (f32 for both float types).
pub(crate) fn compute_type(dt: DataType) -> &'static str {
    match dt {
        DataType::Int32 | DataType::Int8 => "i32",
        DataType::Uint32 | DataType::Uint8 => "u32",
        _ => "f32",
    }
}

/// Element `index` (a u32 expression) of binding `name` of type `dt`, as its compute type.
pub(crate) fn load(dt: DataType, name: &str, index: &str) -> String {
    match dt {
        DataType::Float16 => format!("f32({name}[{index}])"),
        DataType::Uint8 => format!("(({name}[({index}) >> 2u] >> ((({index}) & 3u) * 8u)) & 0xffu)"),
        DataType::Int8 => format!("extractBits(bitcast<i32>({name}[({index}) >> 2u]), (({index}) & 3u) * 8u, 8u)"),
        _ => format!("{name}[{index}]"),
    }
}

/// A statement storing `value` (of `dt`'s compute type) into element `index` of `name`, for
/// kernels that write elements themselves (not packed types: those go through [`module`]).
pub(crate) fn store(dt: DataType, name: &str, index: &str, value: &str) -> String {
    match dt {
        DataType::Float16 => format!("{name}[{index}] = f16({value});"),
        _ => format!("{name}[{index}] = {value};"),
    }
}

/// A literal of `dt`'s compute type holding `v` (already cast to `dt` by the builder).
pub(crate) fn literal(dt: DataType, v: f64) -> String {
    match dt {
        DataType::Int32 | DataType::Int8 => format!("i32({})", v as i32),
        DataType::Uint32 | DataType::Uint8 => format!("{}u", v as u32),
        _ => f32_literal(v as f32),
    }
}

/// An f32 literal, exact (bit pattern) for non-finite values.
pub(crate) fn f32_literal(v: f32) -> String {
    if v.is_finite() {
        format!("f32({v:?})")
    } else {
        format!("bitcast<f32>({}u)", v.to_bits())
    }
}

/// A literal of the compute type of a scalar already cast to its operand's type; None for
/// 64-bit values (not executed on the GPU).
pub(crate) fn scalar_literal(s: &webnn_core::Scalar) -> Option<String> {
    use webnn_core::Scalar;
    Some(match *s {
        Scalar::F32(v) => f32_literal(v),
        Scalar::F16(v) => f32_literal(v.to_f32()),
        Scalar::I32(v) => format!("i32({v})"),
        Scalar::U32(v) => format!("{v}u"),
        Scalar::I8(v) => format!("i32({v})"),
        Scalar::U8(v) => format!("{v}u"),
        _ => return None,
    })
}

/// Row-major strides of `shape`.
pub(crate) fn strides(shape: &[u32]) -> Vec<u64> {
    let mut s = vec![1u64; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1] * shape[i + 1] as u64;
    }
    s
}

/// Strides of an input of shape `input` broadcast to `output` (numpy rules, aligned right):
/// 0 along broadcast dimensions.
pub(crate) fn broadcast_strides(input: &[u32], output: &[u32]) -> Vec<u64> {
    let own = strides(input);
    let offset = output.len() - input.len();
    (0..output.len()).map(|d| if d < offset || input[d - offset] == 1 { 0 } else { own[d - offset] }).collect()
}

/// Statements declaring `c0..c{rank-1}` (u32), the coordinates of linear index `index` in
/// `shape`.
pub(crate) fn coordinates(shape: &[u32], index: &str) -> String {
    let mut code = format!("var rest: u32 = {index};\n");
    for d in (0..shape.len()).rev() {
        let _ = writeln!(code, "let c{d}: u32 = rest % {}u; rest = rest / {}u;", shape[d], shape[d]);
    }
    code
}

/// `c0 * s0 + c1 * s1 + ...` (u32), skipping zero strides; "0u" if all are zero.
pub(crate) fn offset(strides: &[u64]) -> String {
    let terms: Vec<String> = strides
        .iter()
        .enumerate()
        .filter(|(_, &s)| s != 0)
        .map(|(d, &s)| if s == 1 { format!("c{d}") } else { format!("c{d} * {s}u") })
        .collect();
    if terms.is_empty() {
        "0u".to_string()
    } else {
        terms.join(" + ")
    }
}

/// One storage binding of a kernel module.
#[derive(Debug, Clone)]
pub(crate) struct Binding {
    pub name: String,
    pub data_type: DataType,
    pub writable: bool,
}

impl Binding {
    pub fn read(name: &str, data_type: DataType) -> Binding {
        Binding { name: name.to_string(), data_type, writable: false }
    }
    pub fn write(name: &str, data_type: DataType) -> Binding {
        Binding { name: name.to_string(), data_type, writable: true }
    }
}

/// Workgroup counts covering `invocations` threads of [`WORKGROUP`], spread over x and y
/// when x alone would pass `max_per_dimension`; and the x extent in threads (for the index).
pub(crate) fn grid(invocations: u64, max_per_dimension: u32) -> ([u32; 3], u64) {
    let groups = invocations.div_ceil(WORKGROUP as u64).max(1);
    let max = max_per_dimension.max(1) as u64;
    if groups <= max {
        ([groups as u32, 1, 1], groups * WORKGROUP as u64)
    } else {
        let y = groups.div_ceil(max);
        let x = groups.div_ceil(y);
        ([x as u32, y as u32, 1], x * WORKGROUP as u64)
    }
}

/// The storage declarations of `bindings` (binding i is `@binding(i)`), after `enable f16;`
/// when one of them is float16.
pub(crate) fn declarations(bindings: &[Binding]) -> String {
    let mut code = String::new();
    if bindings.iter().any(|b| b.data_type == DataType::Float16) {
        code.push_str("enable f16;\n");
    }
    for (i, b) in bindings.iter().enumerate() {
        let access = if b.writable { "read_write" } else { "read" };
        let _ = writeln!(
            code,
            "@group(0) @binding({i}) var<storage, {access}> {}: array<{}>;",
            b.name,
            storage_type(b.data_type)
        );
    }
    code
}

/// The invocations a per-element kernel producing `elements` of `dt` needs (one per word
/// for packed types).
pub(crate) fn invocations(dt: DataType, elements: u64) -> u64 {
    if is_packed(dt) {
        elements.div_ceil(4)
    } else {
        elements
    }
}

/// The head of a compute entry point with one invocation per index: `main` at
/// [`WORKGROUP`] threads, binding `index` from a [`grid`] of x extent `row` threads and
/// returning at once from `count` on (the body and the closing brace follow).
pub(crate) fn indexed_main(index: &str, row: u64, count: u64) -> String {
    format!(
        "@compute @workgroup_size({WORKGROUP})\nfn main(@builtin(global_invocation_id) gid: vec3<u32>) {{\n\
         let {index}: u32 = gid.x + gid.y * {row}u;\nif ({index} >= {count}u) {{ return; }}\n"
    )
}

/// A per-element module. `body` is the body of `fn element(i: u32) -> T` (T the compute
/// type of the output, the last binding): statements ending in `return value;`. The
/// skeleton stores `element(i)` for each of the `elements` outputs; `row` is the x extent
/// in threads of the grid (from [`grid`] over [`invocations`]).
pub(crate) fn module(bindings: &[Binding], helpers: &str, body: &str, elements: u64, row: u64) -> String {
    let mut code = declarations(bindings);
    let out = bindings.last().expect("a kernel has an output");
    let t = compute_type(out.data_type);
    code.push_str(helpers);
    let _ = write!(code, "\nfn element(i: u32) -> {t} {{\n{body}\n}}\n");
    let words = elements.div_ceil(4);
    let count = if is_packed(out.data_type) { words } else { elements };
    let _ = write!(code, "\n{}", indexed_main("w", row, count));
    if is_packed(out.data_type) {
        let _ = write!(
            code,
            "var word: u32 = 0u;\n\
             for (var k: u32 = 0u; k < 4u; k++) {{\n    let e = w * 4u + k;\n    \
             if (e < {elements}u) {{ word |= (bitcast<u32>(element(e)) & 0xffu) << (k * 8u); }}\n}}\n{}[w] = word;\n}}\n",
            out.name
        );
    } else {
        let _ = write!(code, "{}\n}}\n", store(out.data_type, &out.name, "w", "element(w)"));
    }
    code
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broadcast_strides_follow_numpy() {
        assert_eq!(broadcast_strides(&[3, 1], &[2, 3, 4]), vec![0, 1, 0]);
        assert_eq!(broadcast_strides(&[2, 3, 4], &[2, 3, 4]), vec![12, 4, 1]);
        assert_eq!(broadcast_strides(&[], &[5]), vec![0]);
    }

    #[test]
    fn grid_spreads_over_y_past_the_limit() {
        assert_eq!(grid(64, 65535), ([1, 1, 1], 64));
        let (g, row) = grid(65536 * 64 * 3, 65535);
        assert!(g[0] <= 65535 && (g[0] as u64 * g[1] as u64) >= 65536 * 3);
        assert_eq!(row, g[0] as u64 * 64);
    }
}

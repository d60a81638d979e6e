//! Helpers shared by the crate's test files: run one operation end to end through a compiled
//! plan, without the builder (kernel tests compare its results with straightforward reference
//! implementations written in the tests themselves), and move values between f64 and the
//! bytes of any data type. Beside it: [`constant_operands`] (one op whose operands may be
//! graph constants, for the conv, matmul, pool, resample and normalization tests),
//! [`element_maps`] (the references of the data-movement tests) and [`graphs`] (small builder
//! graphs run through the backend). Random data and ULP distances: `webnn_core::testing`.

pub mod constant_operands;
pub mod element_maps;
pub mod graphs;

use half::f16;
use webnn_core::graph::Attrs;
use webnn_core::testing::ulp;
use webnn_core::{DataType, OpKind, OperandDescriptor};

/// Bytes of a typed slice.
pub fn bytes_of<T: bytemuck::Pod>(v: &[T]) -> Vec<u8> {
    bytemuck::cast_slice(v).to_vec()
}

/// Typed copy of bytes.
pub fn from_bytes<T: bytemuck::Pod>(b: &[u8]) -> Vec<T> {
    bytemuck::pod_collect_to_vec(b)
}

/// Runs one operation: `inputs` by slot (`None` = absent optional operand) as graph inputs,
/// `outputs` the output descriptors; returns the output bytes. (The runner is
/// [`constant_operands::run_op_const`] with no operand made a constant.)
pub fn run_op(
    kind: OpKind,
    inputs: &[Option<(OperandDescriptor, Vec<u8>)>],
    attrs: Attrs,
    outputs: &[OperandDescriptor],
) -> Vec<Vec<u8>> {
    let operands: Vec<Option<constant_operands::Operand>> =
        inputs.iter().map(|i| i.as_ref().map(|(d, b)| (d.clone(), b.clone(), false))).collect();
    constant_operands::run_op_const(kind, &operands, attrs, outputs)
}

/// Encodes f64 values as the little-endian bytes of `dt` (floats rounded to nearest, integers
/// converted with `as` from their i128 value).
pub fn encode(dt: DataType, v: &[f64]) -> Vec<u8> {
    let mut out = Vec::new();
    for &x in v {
        match dt {
            DataType::Float32 => out.extend_from_slice(&(x as f32).to_le_bytes()),
            DataType::Float16 => out.extend_from_slice(&f16::from_f64(x).to_bits().to_le_bytes()),
            DataType::Int32 => out.extend_from_slice(&(x as i128 as i32).to_le_bytes()),
            DataType::Uint32 => out.extend_from_slice(&(x as i128 as u32).to_le_bytes()),
            DataType::Int64 => out.extend_from_slice(&(x as i128 as i64).to_le_bytes()),
            DataType::Uint64 => out.extend_from_slice(&(x as i128 as u64).to_le_bytes()),
            DataType::Int8 => out.extend_from_slice(&(x as i128 as i8).to_le_bytes()),
            DataType::Uint8 => out.extend_from_slice(&(x as i128 as u8).to_le_bytes()),
        }
    }
    out
}

/// Decodes bytes of `dt` to f64 values.
pub fn decode(dt: DataType, b: &[u8]) -> Vec<f64> {
    match dt {
        DataType::Float32 => from_bytes::<f32>(b).into_iter().map(|x| x as f64).collect(),
        DataType::Float16 => from_bytes::<u16>(b).into_iter().map(|x| f16::from_bits(x).to_f64()).collect(),
        DataType::Int32 => from_bytes::<i32>(b).into_iter().map(|x| x as f64).collect(),
        DataType::Uint32 => from_bytes::<u32>(b).into_iter().map(|x| x as f64).collect(),
        DataType::Int64 => from_bytes::<i64>(b).into_iter().map(|x| x as f64).collect(),
        DataType::Uint64 => from_bytes::<u64>(b).into_iter().map(|x| x as f64).collect(),
        DataType::Int8 => from_bytes::<i8>(b).into_iter().map(|x| x as f64).collect(),
        DataType::Uint8 => b.iter().map(|&x| x as f64).collect(),
    }
}

/// Rounds an f64 to the values representable in `dt` (floats) — what a reference result
/// should be compared as.
pub fn round_to(dt: DataType, x: f64) -> f64 {
    match dt {
        DataType::Float32 => x as f32 as f64,
        DataType::Float16 => f16::from_f64(x).to_f64(),
        _ => x,
    }
}

/// Asserts that `got` matches `want` (reference values, rounded to `dt` here) within `tol`
/// ULP for floats, exactly for integers.
#[track_caller]
pub fn assert_close(dt: DataType, got: &[f64], want: &[f64], tol: u64, what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        if dt.is_float() {
            let w = round_to(dt, w);
            let d = ulp(dt, g, w);
            assert!(d <= tol, "{what}: [{i}] got {g:e}, want {w:e} ({d} ULP > {tol})");
        } else {
            assert_eq!(g, w, "{what}: [{i}]");
        }
    }
}

/// Runs a one-input op through a plan on f64 `values` encoded as `dt`; returns the decoded
/// output (output type `out_dt`, same shape).
pub fn run_unary(
    kind: OpKind,
    dt: DataType,
    out_dt: DataType,
    shape: &[u32],
    values: &[f64],
    attrs: Attrs,
) -> Vec<f64> {
    let inp = OperandDescriptor::new(dt, shape.to_vec());
    let out = OperandDescriptor::new(out_dt, shape.to_vec());
    let r = run_op(kind, &[Some((inp, encode(dt, values)))], attrs, &[out]);
    decode(out_dt, &r[0])
}

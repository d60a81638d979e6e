//! cast ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-cast)) between all 8 data types.
//!
//! - float → float: nearest representable, ties to even; out of range → ±Infinity; NaN → NaN.
//! - integer → float: nearest representable, ties to even (int → float16 goes through f32,
//!   which is exact below 2²⁴; anything at or beyond 65520 becomes ±Infinity either way).
//! - float → integer: truncated toward zero. Out of range is implementation-defined in the
//!   spec; here it **saturates** to the target type's range (−1.5 → uint8 gives 0, 300.0 → int8
//!   gives 127, ±Infinity → the type's min/max), and NaN gives 0 (Rust's `as` semantics, which
//!   also agree with most native runtimes).
//! - integer → integer: same value when in range, else the low N bits reinterpreted
//!   (two's-complement wrap), e.g. int8 −1 → uint8 255, int32 300 → uint8 44.

use super::float_elem::FloatElem;
use super::unary::{map, CHEAP_CHUNK};
use super::{In, Kernel, Out};
use half::f16;
use webnn_core::graph::Operation;
use webnn_core::{DataType, Graph, Result};

/// A cast target type.
pub trait CastDst: bytemuck::Pod + Send + Sync {
    /// From a float value (float16 sources widened to f32 first).
    fn from_f32(x: f32) -> Self;
    /// From a signed integer value.
    fn from_i64(x: i64) -> Self;
    /// From an unsigned integer value.
    fn from_u64(x: u64) -> Self;
}

impl CastDst for f32 {
    #[inline(always)]
    fn from_f32(x: f32) -> Self {
        x
    }
    #[inline(always)]
    fn from_i64(x: i64) -> Self {
        x as f32
    }
    #[inline(always)]
    fn from_u64(x: u64) -> Self {
        x as f32
    }
}

impl CastDst for f16 {
    #[inline(always)]
    fn from_f32(x: f32) -> Self {
        f16::from_f32(x)
    }
    #[inline(always)]
    fn from_i64(x: i64) -> Self {
        f16::from_f32(x as f32)
    }
    #[inline(always)]
    fn from_u64(x: u64) -> Self {
        f16::from_f32(x as f32)
    }
}

macro_rules! int_dst {
    ($($t:ty),+) => {$(
        impl CastDst for $t {
            // `as` from a float truncates toward zero, saturates, and maps NaN to 0.
            #[inline(always)]
            fn from_f32(x: f32) -> Self { x as $t }
            // `as` between integers keeps the low bits (two's-complement wrap).
            #[inline(always)]
            fn from_i64(x: i64) -> Self { x as $t }
            #[inline(always)]
            fn from_u64(x: u64) -> Self { x as $t }
        }
    )+};
}
int_dst!(i8, u8, i32, u32, i64, u64);

/// A cast source type.
pub trait CastSrc: bytemuck::Pod + Send + Sync {
    /// Converts to `D`.
    fn cast<D: CastDst>(self) -> D;
}

impl CastSrc for f32 {
    #[inline(always)]
    fn cast<D: CastDst>(self) -> D {
        D::from_f32(self)
    }
}

impl CastSrc for f16 {
    #[inline(always)]
    fn cast<D: CastDst>(self) -> D {
        D::from_f32(self.to_f32())
    }
}

macro_rules! int_src {
    ($via:ident, $wide:ty: $($t:ty),+) => {$(
        impl CastSrc for $t {
            #[inline(always)]
            fn cast<D: CastDst>(self) -> D { D::$via(self as $wide) }
        }
    )+};
}
int_src!(from_i64, i64: i8, i32, i64);
int_src!(from_u64, u64: u8, u32, u64);

/// Casts every element of `input` into `out`.
pub fn cast<S: CastSrc, D: CastDst>(input: &[S], out: &mut [D]) {
    map(input, out, CHEAP_CHUNK, S::cast::<D>);
}

struct CastKernel {
    from: DataType,
    to: DataType,
}

impl Kernel for CastKernel {
    fn run(&self, inputs: &[Option<In<'_>>], outputs: &mut [Out<'_>]) -> webnn_core::Result<()> {
        let Some(input) = inputs[0] else { return Ok(()) };
        let out = &mut outputs[0];
        if self.from == self.to {
            out.bytes.copy_from_slice(input.bytes);
            return Ok(());
        }
        // float16 ↔ float32 a slice at a time (F16C where the CPU has it; the same values).
        match (self.from, self.to) {
            (DataType::Float16, DataType::Float32) => {
                f16::slice_to_f32(input.slice(), out.slice_mut());
                return Ok(());
            }
            (DataType::Float32, DataType::Float16) => {
                f16::slice_from_f32(input.slice(), out.slice_mut());
                return Ok(());
            }
            _ => {}
        }
        crate::with_type!(self.from, S => crate::with_type!(self.to, D => cast::<S, D>(input.slice(), out.slice_mut())));
        Ok(())
    }
}

/// Lowers cast: the target type is the output descriptor's (decisions.md D3).
pub fn lower(op: &Operation, graph: &Graph) -> Result<Box<dyn Kernel>> {
    let input = op.input(0).ok_or_else(|| webnn_core::Error::operation("cast: missing input"))?;
    Ok(Box::new(CastKernel { from: graph.descriptor(input).data_type, to: graph.descriptor(op.outputs[0]).data_type }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::*;
    use webnn_core::graph::Attrs;
    use webnn_core::{OpKind, OperandDescriptor};

    #[test]
    fn float_to_int_truncates_and_saturates() {
        let x = [1.9f32, -1.9, 300.0, -300.0, f32::NAN, f32::INFINITY, f32::NEG_INFINITY, -0.5];
        let mut o = [0i8; 8];
        cast(&x, &mut o);
        assert_eq!(o, [1, -1, 127, -128, 0, 127, -128, 0]);
        let mut o = [0u8; 8];
        cast(&x, &mut o);
        assert_eq!(o, [1, 0, 255, 0, 0, 255, 0, 0]);
        let mut o = [0u64; 8];
        cast(&x, &mut o);
        assert_eq!(o, [1, 0, 300, 0, 0, u64::MAX, 0, 0]);
        let mut o = [0i64; 8];
        cast(&x, &mut o);
        assert_eq!(o, [1, -1, 300, -300, 0, i64::MAX, i64::MIN, 0]);
        let h: Vec<f16> = [2.5f32, -3.75, 65504.0, f32::NAN].iter().map(|&v| f16::from_f32(v)).collect();
        let mut o = [0i32; 4];
        cast(&h, &mut o);
        assert_eq!(o, [2, -3, 65504, 0]);
        let mut o = [0u32; 4];
        cast(&h, &mut o);
        assert_eq!(o, [2, 0, 65504, 0]);
    }

    #[test]
    fn int_to_int_wraps() {
        let mut o = [0u8; 4];
        cast(&[-1i8, 127, -128, 0], &mut o);
        assert_eq!(o, [255, 127, 128, 0]);
        let mut o = [0u8; 3];
        cast(&[300i32, -1, 256], &mut o);
        assert_eq!(o, [44, 255, 0]);
        let mut o = [0i32; 3];
        cast(&[u64::MAX, 1u64 << 32, (1u64 << 31) + 5], &mut o);
        assert_eq!(o, [-1, 0, i32::MIN + 5]);
        let mut o = [0i64; 2];
        cast(&[u64::MAX, 7], &mut o);
        assert_eq!(o, [-1, 7]);
        let mut o = [0u64; 2];
        cast(&[-2i8, 5], &mut o);
        assert_eq!(o, [u64::MAX - 1, 5]);
        let mut o = [0i8; 2];
        cast(&[200u8, 100], &mut o);
        assert_eq!(o, [-56, 100]);
    }

    #[test]
    fn to_float_is_nearest() {
        let mut o = [0f32; 3];
        cast(&[16777217i32, -16777219, 7], &mut o);
        assert_eq!(o, [16777216.0, -16777220.0, 7.0]);
        let mut o = [f16::ZERO; 5];
        cast(&[2049i32, 2051, 65519, 65520, -70000], &mut o);
        assert_eq!(o.map(f16::to_f32), [2048.0, 2052.0, 65504.0, f32::INFINITY, f32::NEG_INFINITY]);
        let mut o = [f16::ZERO; 4];
        cast(&[1.0f32 + 1.0 / 2048.0, 1e6, -1e-9, f32::NAN], &mut o);
        assert_eq!(o[0].to_f32(), 1.0);
        assert_eq!(o[1].to_f32(), f32::INFINITY);
        assert_eq!(o[2].to_bits(), 0x8000);
        assert!(o[3].is_nan());
        let mut o = [0f32; 2];
        cast(&[u64::MAX, 3], &mut o);
        assert_eq!(o, [18446744073709551616.0, 3.0]);
    }

    /// Every pair of the 8 types through a plan, against a reference that goes through i128/f64.
    #[test]
    fn all_type_pairs_through_a_plan() {
        use DataType::*;
        let all = [Float32, Float16, Int32, Uint32, Int64, Uint64, Int8, Uint8];
        let values: [f64; 8] = [0.0, 1.0, 2.0, 100.0, 127.0, 3.0, 42.0, 7.0];
        let negatives: [f64; 3] = [-1.0, -7.0, -100.0];
        for &from in &all {
            let mut src: Vec<f64> = values.to_vec();
            if from.is_float() || from.is_signed_int() {
                src.extend_from_slice(&negatives);
            }
            if from.is_float() {
                src.extend_from_slice(&[2.75, -2.75, 0.5]);
            }
            let bytes: Vec<u8> = src.iter().flat_map(|&v| to_bytes(from, v)).collect();
            for &to in &all {
                let in_desc = OperandDescriptor::new(from, vec![src.len() as u32]);
                let out_desc = OperandDescriptor::new(to, vec![src.len() as u32]);
                let out = run_op(OpKind::Cast, &[Some((in_desc, bytes.clone()))], Attrs::None, &[out_desc]);
                let expect: Vec<u8> = src.iter().flat_map(|&v| reference_cast(v, from.is_float(), to)).collect();
                assert_eq!(out[0], expect, "{from:?} -> {to:?}");
            }
        }
    }

    fn to_bytes(dt: DataType, v: f64) -> Vec<u8> {
        match dt {
            DataType::Float32 => (v as f32).to_le_bytes().to_vec(),
            DataType::Float16 => f16::from_f64(v).to_bits().to_le_bytes().to_vec(),
            DataType::Int32 => (v as i32).to_le_bytes().to_vec(),
            DataType::Uint32 => (v as u32).to_le_bytes().to_vec(),
            DataType::Int64 => (v as i64).to_le_bytes().to_vec(),
            DataType::Uint64 => (v as u64).to_le_bytes().to_vec(),
            DataType::Int8 => (v as i8).to_le_bytes().to_vec(),
            DataType::Uint8 => (v as u8).to_le_bytes().to_vec(),
        }
    }

    /// Straightforward reference: truncate floats toward zero and saturate; wrap integers modulo 2^bits.
    fn reference_cast(v: f64, from_float: bool, to: DataType) -> Vec<u8> {
        if to.is_float() {
            return to_bytes(to, v);
        }
        let bits = to.byte_size() as u32 * 8;
        let signed = to.is_signed_int();
        let (lo, hi): (i128, i128) =
            if signed { (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1) } else { (0, (1i128 << bits) - 1) };
        let n: i128 = if from_float {
            (v.trunc() as i128).clamp(lo, hi)
        } else {
            let m = (v as i128).rem_euclid(1i128 << bits);
            if signed && m > hi {
                m - (1i128 << bits)
            } else {
                m
            }
        };
        let le = n.to_le_bytes();
        le[..to.byte_size()].to_vec()
    }
}

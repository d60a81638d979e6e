//! Element-wise unary ops ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-unary)): abs,
//! ceil, cos, erf, exp, floor, identity, log, neg, reciprocal, roundEven, sin, sign, sqrt, tan.
//! Also the element-map helpers shared by the activation, logical and cast kernels.
//!
//! float16 is computed in f32 and rounded once. On integers abs and neg wrap (abs(−128i8) is
//! −128), sign gives −1/0/1. sign(NaN) is 0, as in the spec's emulation
//! `where(greater(x, 0), 1, where(lesser(x, 0), −1, 0))`.

use super::fast_math::{erf_f32, exp_f32};
use super::{In, Kernel, Out};
use half::f16;
use webnn_core::graph::Operation;
use webnn_core::{DataType, Error, Graph, OpKind, Result};

/// Elements per parallel chunk for cheap element-wise maps (memory bound).
pub(crate) const CHEAP_CHUNK: usize = 1 << 15;
/// Elements per parallel chunk for maps that call a transcendental function per element.
pub(crate) const COSTLY_CHUNK: usize = 1 << 12;

/// `out[i] = f(inp[i])`, split into parallel chunks of `chunk` elements when there are several.
#[inline]
pub(crate) fn map<T, U, F>(inp: &[T], out: &mut [U], chunk: usize, f: F)
where
    T: Copy + Send + Sync,
    U: Send,
    F: Fn(T) -> U + Sync + Send,
{
    if out.len() > chunk {
        crate::par::zip_chunks(out, chunk, inp, chunk, |_, o, i| map_chunk(i, o, &f));
    } else {
        map_chunk(inp, out, &f);
    }
}

/// The portable element loop (the compiler vectorizes it for the baseline target).
#[inline(always)]
pub(crate) fn map_portable<T: Copy, U, F: Fn(T) -> U>(inp: &[T], out: &mut [U], f: &F) {
    for (o, &x) in out.iter_mut().zip(inp) {
        *o = f(x);
    }
}

/// The same loop compiled for AVX2 (8 f32 lanes). No FMA contraction happens (Rust does not
/// fuse `a * b + c`), so results are bit-identical to `map_portable`.
///
/// # Safety
/// The CPU must support AVX2 and FMA.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
pub unsafe fn map_avx2<T: Copy, U, F: Fn(T) -> U>(inp: &[T], out: &mut [U], f: &F) {
    map_portable(inp, out, f)
}

/// The same loop compiled for AVX-512 (16 f32 lanes; same results as [`map_portable`]).
///
/// # Safety
/// The CPU must support AVX-512F, AVX-512VL, AVX2 and FMA.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vl,avx2,fma")]
pub(crate) unsafe fn map_avx512<T: Copy, U, F: Fn(T) -> U>(inp: &[T], out: &mut [U], f: &F) {
    map_portable(inp, out, f)
}

/// True if the AVX-512 loops may run (detected once, cached by std).
#[cfg(target_arch = "x86_64")]
#[inline]
pub(crate) fn has_avx512() -> bool {
    std::is_x86_feature_detected!("avx512f") && std::is_x86_feature_detected!("avx512vl") && has_avx2()
}

/// True if the AVX2 loops may run (detected once, cached by std).
#[cfg(target_arch = "x86_64")]
#[inline]
pub fn has_avx2() -> bool {
    std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma")
}

/// One chunk of [`map`]: the AVX2 loop where available, else the portable one.
#[inline(always)]
fn map_chunk<T: Copy, U, F: Fn(T) -> U>(inp: &[T], out: &mut [U], f: &F) {
    #[cfg(target_arch = "x86_64")]
    if has_avx512() {
        // SAFETY: has_avx512() checked that the CPU supports AVX-512F/VL, AVX2 and FMA.
        unsafe { map_avx512(inp, out, f) };
        return;
    }
    #[cfg(target_arch = "x86_64")]
    if has_avx2() {
        // SAFETY: has_avx2() checked that the CPU supports AVX2 and FMA.
        unsafe { map_avx2(inp, out, f) };
        return;
    }
    map_portable(inp, out, f)
}

/// Applies an f32 function to a float32 or float16 operand (float16: widened to f32, rounded
/// once). Other types are left untouched (the validators never let them through).
#[inline]
pub(crate) fn map_float<F>(data_type: DataType, input: In<'_>, out: &mut Out<'_>, chunk: usize, f: F)
where
    F: Fn(f32) -> f32 + Sync + Send,
{
    match data_type {
        DataType::Float32 => map::<f32, f32, _>(input.slice(), out.slice_mut(), chunk, f),
        DataType::Float16 => map::<f16, f16, _>(
            input.slice(),
            out.slice_mut(),
            chunk,
            #[inline(always)]
            |x| f16::from_f32(f(x.to_f32())),
        ),
        _ => {}
    }
}

/// Wrapping integer arithmetic shared by the integer paths of the element-wise kernels.
pub trait IntElem: Copy + Send + Sync + bytemuck::Pod + PartialOrd + Default {
    /// 0
    const ZERO: Self;
    /// 1
    const ONE: Self;
    /// |x|, wrapping (|MIN| = MIN).
    fn wabs(self) -> Self;
    /// −x, wrapping.
    fn wneg(self) -> Self;
    /// −1 / 0 / 1 (0 / 1 for unsigned).
    fn sign(self) -> Self;
    /// x × y, wrapping.
    fn wmul(self, y: Self) -> Self;
    /// x + y, wrapping.
    fn wadd(self, y: Self) -> Self;
    /// x < 0
    fn is_negative(self) -> bool;
    /// The smallest value.
    const MIN_V: Self;
    /// The largest value.
    const MAX_V: Self;
}

macro_rules! int_elem {
    ($($t:ty, $abs:expr, $neg:expr);+) => {$(
        impl IntElem for $t {
            const ZERO: Self = 0;
            const ONE: Self = 1;
            #[inline(always)]
            fn wabs(self) -> Self { $abs(self) }
            #[inline(always)]
            fn wneg(self) -> Self { $neg(self) }
            #[inline(always)]
            #[allow(unused_comparisons)]
            fn sign(self) -> Self {
                if self > 0 { 1 } else if self == 0 { 0 } else { (0 as $t).wrapping_sub(1) }
            }
            #[inline(always)]
            fn wmul(self, y: Self) -> Self { self.wrapping_mul(y) }
            #[inline(always)]
            fn wadd(self, y: Self) -> Self { self.wrapping_add(y) }
            #[inline(always)]
            #[allow(unused_comparisons)]
            fn is_negative(self) -> bool { self < 0 }
            const MIN_V: Self = <$t>::MIN;
            const MAX_V: Self = <$t>::MAX;
        }
    )+};
}
int_elem!(
    i8, i8::wrapping_abs, i8::wrapping_neg;
    i32, i32::wrapping_abs, i32::wrapping_neg;
    i64, i64::wrapping_abs, i64::wrapping_neg;
    u8, |x| x, u8::wrapping_neg;
    u32, |x| x, u32::wrapping_neg;
    u64, |x| x, u64::wrapping_neg
);

/// Runs `$body` with `$T` bound to the integer element type of `$dt`; floats do nothing.
macro_rules! with_int_type {
    ($dt:expr, $T:ident => $body:expr) => {
        $crate::match_type!($dt, $T => $body;
            webnn_core::DataType::Int32 => i32,
            webnn_core::DataType::Uint32 => u32,
            webnn_core::DataType::Int64 => i64,
            webnn_core::DataType::Uint64 => u64,
            webnn_core::DataType::Int8 => i8,
            webnn_core::DataType::Uint8 => u8;
            webnn_core::DataType::Float32 | webnn_core::DataType::Float16 => {})
    };
}
pub(crate) use with_int_type;

/// The unary function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnaryOp {
    /// |x|
    Abs,
    /// ⌈x⌉
    Ceil,
    /// cos x
    Cos,
    /// erf x
    Erf,
    /// eˣ
    Exp,
    /// ⌊x⌋
    Floor,
    /// x
    Identity,
    /// ln x
    Log,
    /// −x
    Neg,
    /// 1/x
    Reciprocal,
    /// round half to even
    RoundEven,
    /// sin x
    Sin,
    /// −1, 0, 1 (NaN → 0)
    Sign,
    /// √x
    Sqrt,
    /// tan x
    Tan,
}

impl UnaryOp {
    /// The op of an `OpKind`, if it is a unary element-wise op.
    pub fn of(kind: OpKind) -> Option<UnaryOp> {
        use OpKind as K;
        Some(match kind {
            K::Abs => UnaryOp::Abs,
            K::Ceil => UnaryOp::Ceil,
            K::Cos => UnaryOp::Cos,
            K::Erf => UnaryOp::Erf,
            K::Exp => UnaryOp::Exp,
            K::Floor => UnaryOp::Floor,
            K::Identity => UnaryOp::Identity,
            K::Log => UnaryOp::Log,
            K::Neg => UnaryOp::Neg,
            K::Reciprocal => UnaryOp::Reciprocal,
            K::RoundEven => UnaryOp::RoundEven,
            K::Sin => UnaryOp::Sin,
            K::Sign => UnaryOp::Sign,
            K::Sqrt => UnaryOp::Sqrt,
            K::Tan => UnaryOp::Tan,
            _ => return None,
        })
    }

    /// True if the op is defined on integers here (identity, abs, neg, sign).
    pub fn supports_integers(self) -> bool {
        matches!(self, UnaryOp::Identity | UnaryOp::Abs | UnaryOp::Neg | UnaryOp::Sign)
    }
}

/// sign of a float: −1, 0 (also for ±0 and NaN), 1.
#[inline(always)]
pub fn sign_f32(x: f32) -> f32 {
    if x > 0.0 {
        1.0
    } else if x < 0.0 {
        -1.0
    } else {
        0.0
    }
}

struct UnaryKernel {
    op: UnaryOp,
    data_type: DataType,
}

/// Lowers the unary element-wise ops.
pub fn lower(op: &Operation, graph: &Graph) -> Result<Box<dyn Kernel>> {
    let uop = UnaryOp::of(op.kind).ok_or_else(|| Error::not_supported(format!("{} is not a unary op", op.kind)))?;
    let data_type = graph.descriptor(op.outputs[0]).data_type;
    if !data_type.is_float() && !uop.supports_integers() {
        return Err(Error::not_supported(format!("{} on {}", op.kind, data_type.as_str())));
    }
    Ok(Box::new(UnaryKernel { op: uop, data_type }))
}

/// Runs a float unary op on a float32/float16 operand.
pub fn unary_float(op: UnaryOp, data_type: DataType, input: In<'_>, out: &mut Out<'_>) {
    use UnaryOp::*;
    let (c, e) = (CHEAP_CHUNK, COSTLY_CHUNK);
    // The `#[inline(always)]` closures around plain functions are deliberate: a function item
    // passed as the map can stay an out-of-line call per element (ARCHITECTURE.md, issue 11).
    #[allow(clippy::redundant_closure)]
    match op {
        Abs => map_float(data_type, input, out, c, f32::abs),
        Ceil => map_float(data_type, input, out, c, f32::ceil),
        Cos => map_float(data_type, input, out, e, f32::cos),
        Erf => map_float(
            data_type,
            input,
            out,
            c,
            #[inline(always)]
            |x| erf_f32(x),
        ),
        Exp => map_float(
            data_type,
            input,
            out,
            c,
            #[inline(always)]
            |x| exp_f32(x),
        ),
        Floor => map_float(data_type, input, out, c, f32::floor),
        Identity => out.bytes.copy_from_slice(input.bytes),
        Log => map_float(data_type, input, out, e, f32::ln),
        Neg => map_float(data_type, input, out, c, |x| -x),
        Reciprocal => map_float(data_type, input, out, c, |x| 1.0 / x),
        RoundEven => map_float(data_type, input, out, c, f32::round_ties_even),
        Sin => map_float(data_type, input, out, e, f32::sin),
        Sign => map_float(
            data_type,
            input,
            out,
            c,
            #[inline(always)]
            |x| sign_f32(x),
        ),
        Sqrt => map_float(data_type, input, out, c, f32::sqrt),
        Tan => map_float(data_type, input, out, e, f32::tan),
    }
}

/// Runs an integer unary op (identity, abs, neg, sign).
pub fn unary_int<T: IntElem>(op: UnaryOp, input: &[T], out: &mut [T]) {
    match op {
        UnaryOp::Abs => map(input, out, CHEAP_CHUNK, T::wabs),
        UnaryOp::Neg => map(input, out, CHEAP_CHUNK, T::wneg),
        UnaryOp::Sign => map(input, out, CHEAP_CHUNK, T::sign),
        _ => out.copy_from_slice(input),
    }
}

impl Kernel for UnaryKernel {
    fn run(&self, inputs: &[Option<In<'_>>], outputs: &mut [Out<'_>]) -> webnn_core::Result<()> {
        let Some(input) = inputs[0] else { return Ok(()) };
        let out = &mut outputs[0];
        if self.op == UnaryOp::Identity {
            out.bytes.copy_from_slice(input.bytes);
        } else if self.data_type.is_float() {
            unary_float(self.op, self.data_type, input, out);
        } else {
            with_int_type!(self.data_type, T => unary_int::<T>(self.op, input.slice(), out.slice_mut()));
        }
        Ok(())
    }
}

#[cfg(test)]
#[path = "unary_tests.rs"]
mod tests;

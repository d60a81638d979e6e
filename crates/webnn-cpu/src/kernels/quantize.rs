//! quantizeLinear ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-quantizelinear)) and
//! dequantizeLinear ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-dequantizelinear)),
//! with `scale` and `zeroPoint` blockwise broadcast to the input (same rank; each scale element
//! covers a block of `input.shape[d] / scale.shape[d]` consecutive elements along every dimension
//! d).
//!
//! - quantize: `q = saturate(roundHalfEven(x / scale) + zeroPoint)` to the zeroPoint type's range
//!   (decisions.md D7), computed in f32 (float16 inputs widened), the addition in f64 (exact for
//!   every zero point). NaN quantizes to 0 (like the spec's emulation, whose final cast maps NaN
//!   to 0).
//! - dequantize: `(x − zeroPoint) · scale`, the difference exact in i64, the product in f32,
//!   rounded once to float16 for float16 scales.

use super::float_elem::FloatElem;
use super::strided::par_rows;
use super::util::input_descs;
use super::{In, Kernel, Out};
use half::f16;
use webnn_core::graph::Operation;
use webnn_core::{DataType, Error, Graph, OpKind, Result};

/// uint8, int8, uint32, int32 (quantized values and zero points).
pub trait QInt: bytemuck::Pod + Send + Sync {
    /// The value as i64.
    fn to_i64(self) -> i64;
    /// `saturate(r + zero_point)` for an integral (already rounded) `r`; NaN gives 0.
    fn add_saturate(r: f32, zero_point: Self) -> Self;
}

macro_rules! qint {
    ($wide:ty => $($t:ty),+) => {$(
        impl QInt for $t {
            #[inline(always)]
            fn to_i64(self) -> i64 { self as i64 }
            // The sum is exact in $wide wherever it is in range (f32 for the 8-bit types: any
            // |r| ≥ 2^24 saturates anyway); `as` saturates to the type's range and maps NaN to 0
            // (decisions.md D7).
            #[inline(always)]
            fn add_saturate(r: f32, zero_point: $t) -> $t { (r as $wide + zero_point as $wide) as $t }
        }
    )+};
}
qint!(f64 => u32, i32);

qint!(f32 => u8, i8);

/// Round half to even of an f32 without a libm call (vectorisable with SSE2): below 2^23, adding
/// and subtracting 2^23 rounds to an integer in the default (ties-to-even) mode; from 2^23 on
/// every f32 is an integer. NaN stays NaN, the sign is kept.
#[inline(always)]
pub fn round_half_even(v: f32) -> f32 {
    const TWO23: f32 = 8_388_608.0;
    let a = v.abs();
    let r = if a < TWO23 { (a + TWO23) - TWO23 } else { a };
    r.copysign(v)
}

/// quantizeLinear of one element (decisions.md D7).
#[inline(always)]
pub fn quantize_one<F: FloatElem, Q: QInt>(x: F, scale: F, zero_point: Q) -> Q {
    Q::add_saturate(round_half_even(x.to_f32() / scale.to_f32()), zero_point)
}

/// dequantizeLinear of one element.
#[inline(always)]
pub fn dequantize_one<Q: QInt, F: FloatElem>(x: Q, scale: F, zero_point: Q) -> F {
    F::from_f32((x.to_i64() - zero_point.to_i64()) as f32 * scale.to_f32())
}

/// Runs `$body` with `$F` bound to f16 for float16, f32 otherwise.
macro_rules! with_qfloat {
    ($dt:expr, $F:ident => $body:expr) => {
        $crate::match_type!($dt, $F => $body; DataType::Float16 => f16, _ => f32)
    };
}

/// Runs `$body` with `$Q` bound to u8, i8, u32, or i32 (any other type).
macro_rules! with_qint {
    ($dt:expr, $Q:ident => $body:expr) => {
        $crate::match_type!($dt, $Q => $body; DataType::Uint8 => u8, DataType::Int8 => i8, DataType::Uint32 => u32, _ => i32)
    };
}

/// The blockwise broadcast, merged: input dims `x`, block sizes `b` (x / scale dim) and the
/// scale's row-major strides `s`. Never empty (a scalar is `[1]`).
#[derive(Debug, Clone, PartialEq)]
pub struct Blockwise {
    /// Input dimensions.
    pub x: Vec<usize>,
    /// Block size along every dimension.
    pub b: Vec<usize>,
    /// Scale strides.
    pub s: Vec<usize>,
}

impl Blockwise {
    /// Merges the dimensions of `input` with the blockwise-broadcastable `scale` shape.
    pub fn new(input: &[u32], scale: &[u32]) -> Self {
        // (x, scale dim) pairs without the size-1 input dims.
        let mut dims: Vec<(usize, usize)> = Vec::new();
        for (&x, &s) in input.iter().zip(scale) {
            let (x, s) = (x as usize, (s as usize).max(1));
            if x == 1 {
                continue;
            }
            if let Some(p) = dims.last_mut() {
                let pb = p.0 / p.1;
                // Inner dim fully broadcast: (p·x + q) / (pb·x) = p / pb, so the merged dim keeps
                // the outer scale count and its blocks grow by x.
                if s == 1 {
                    *p = (p.0 * x, p.1);
                    continue;
                }
                // Both per-element: one per-element dim.
                if pb == 1 && x == s {
                    *p = (p.0 * x, p.1 * s);
                    continue;
                }
            }
            dims.push((x, s));
        }
        if dims.is_empty() {
            dims.push((1, 1));
        }
        let x: Vec<usize> = dims.iter().map(|d| d.0).collect();
        let b = dims.iter().map(|d| d.0 / d.1).collect();
        let sc: Vec<u32> = dims.iter().map(|d| d.1 as u32).collect();
        Blockwise { x, b, s: super::util::strides(&sc) }
    }

    /// Calls `f(range, scale_index, per_element)` for the consecutive elements from `start` to
    /// `start + len`: either a run sharing scale element `scale_index` (`per_element` false), or,
    /// where the last dimension has one scale element per input element, a whole row whose
    /// element `range.start + i` uses scale element `scale_index + i` (`per_element` true).
    #[inline]
    pub fn for_each_run(&self, start: usize, len: usize, mut f: impl FnMut(std::ops::Range<usize>, usize, bool)) {
        let n = self.x.len();
        let (xl, bl) = (self.x[n - 1], self.b[n - 1]);
        let end = start + len;
        let mut e = start;
        while e < end {
            // Scale offset of the row holding e (all dimensions but the last).
            let mut rest = e / xl;
            let mut soff = 0;
            for d in (0..n - 1).rev() {
                let p = rest % self.x[d];
                rest /= self.x[d];
                soff += (p / self.b[d]) * self.s[d];
            }
            // Blocks of the last dimension up to the end of the row (or of the range).
            let p = e % xl;
            let row_end = (e - p + xl).min(end);
            if bl == 1 {
                f(e..row_end, soff + p, true);
                e = row_end;
                continue;
            }
            let (mut q, mut r) = (p / bl, p % bl);
            while e < row_end {
                let run = (bl - r).min(row_end - e);
                f(e..e + run, soff + q, false);
                e += run;
                q += 1;
                r = 0;
            }
        }
    }
}

/// Elements per task on the pool.
const CHUNK: usize = 1 << 13;

struct QuantizeKernel {
    dequantize: bool,
    float_type: DataType,
    int_type: DataType,
    blocks: Blockwise,
}

/// Lowers quantizeLinear and dequantizeLinear.
pub fn lower(op: &Operation, graph: &Graph) -> Result<Box<dyn Kernel>> {
    let [input, scale, zero_point] = input_descs(op, graph)?;
    let blockwise = scale.shape.len() == input.shape.len()
        && zero_point.shape == scale.shape
        && input.shape.iter().zip(&scale.shape).all(|(&x, &s)| s > 0 && x % s == 0)
        && graph.descriptor(op.outputs[0]).shape == input.shape;
    if !blockwise {
        return Err(Error::operation(format!("{}: scale/zeroPoint shapes do not match the input", op.kind)));
    }
    Ok(Box::new(QuantizeKernel {
        dequantize: op.kind == OpKind::DequantizeLinear,
        float_type: scale.data_type,
        int_type: zero_point.data_type,
        blocks: Blockwise::new(&input.shape, &scale.shape),
    }))
}

impl QuantizeKernel {
    fn go<A: bytemuck::Pod + Send + Sync, F: FloatElem, Q: QInt, B: bytemuck::Pod + Send + Sync>(
        &self,
        x: &[A],
        scale: &[F],
        zp: &[Q],
        out: &mut [B],
        f: impl Fn(A, F, Q) -> B + Sync,
    ) {
        par_rows(out, CHUNK, |first, chunk| {
            let start = first * CHUNK;
            self.blocks.for_each_run(start, chunk.len(), |r, s, per_element| {
                let dst = chunk[r.start - start..r.end - start].iter_mut();
                if per_element {
                    let n = r.len();
                    for (((o, &v), &sc), &z) in dst.zip(&x[r]).zip(&scale[s..s + n]).zip(&zp[s..s + n]) {
                        *o = f(v, sc, z);
                    }
                } else {
                    let (sc, z) = (scale[s], zp[s]);
                    for (o, &v) in dst.zip(&x[r]) {
                        *o = f(v, sc, z);
                    }
                }
            });
        });
    }
}

impl Kernel for QuantizeKernel {
    fn run(&self, inputs: &[Option<In<'_>>], outputs: &mut [Out<'_>]) -> webnn_core::Result<()> {
        let (Some(Some(x)), Some(Some(s)), Some(Some(z))) = (inputs.first(), inputs.get(1), inputs.get(2)) else {
            return Ok(());
        };
        let out = &mut outputs[0];
        #[cfg(target_arch = "x86_64")]
        if !self.dequantize
            && self.float_type == DataType::Float32
            && matches!(self.int_type, DataType::Uint8 | DataType::Int8)
            && self.blocks.b == self.blocks.x
            && super::unary::has_avx512()
            && std::is_x86_feature_detected!("avx512bw")
        {
            // One scale and zero point (the activations of a QDQ model), 16 lanes at a time.
            let (scale, x) = (s.slice::<f32>()[0], x.slice::<f32>());
            let (zero_point, lo, hi) = match self.int_type {
                DataType::Uint8 => (z.bytes[0] as f32, 0.0, 255.0),
                _ => (z.bytes[0] as i8 as f32, -128.0, 127.0),
            };
            par_rows(out.bytes, CHUNK, |first, chunk| {
                let start = first * CHUNK;
                // SAFETY: AVX-512F, BW and VL were just detected; `chunk` and its input have the
                // same length.
                unsafe { quantize_8bit_avx512(&x[start..start + chunk.len()], scale, zero_point, lo, hi, chunk) }
            });
            return Ok(());
        }
        with_qfloat!(self.float_type, F => with_qint!(self.int_type, Q => {
            if self.dequantize {
                self.go::<Q, F, Q, F>(x.slice(), s.slice(), z.slice(), out.slice_mut(), dequantize_one::<Q, F>)
            } else {
                self.go::<F, F, Q, Q>(x.slice(), s.slice(), z.slice(), out.slice_mut(), quantize_one::<F, Q>)
            }
        }));
        Ok(())
    }
}

/// quantizeLinear of float32 by one scale and zero point to an 8-bit type whose range is
/// `lo..=hi`, 16 elements at a time ([`quantize_lanes_avx512`], [`store_low_bytes_avx512`]):
/// the arithmetic of [`quantize_one`], so the same bytes.
///
/// # Safety
/// The CPU must support AVX-512F, BW and VL; `x.len() == out.len()`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vl")]
unsafe fn quantize_8bit_avx512(x: &[f32], scale: f32, zero_point: f32, lo: f32, hi: f32, out: &mut [u8]) {
    use std::arch::x86_64::*;
    debug_assert_eq!(x.len(), out.len());
    let (s, z, l, h) = (_mm512_set1_ps(scale), _mm512_set1_ps(zero_point), _mm512_set1_ps(lo), _mm512_set1_ps(hi));
    let mut i = 0;
    while i < out.len() {
        let n = (out.len() - i).min(16);
        let mask: __mmask16 = if n == 16 { 0xffff } else { (1u16 << n) - 1 };
        // SAFETY: the mask covers only elements i..i + n of both slices; the CPU features are
        // this function's.
        unsafe {
            let v = _mm512_maskz_loadu_ps(mask, x.as_ptr().add(i));
            let q = quantize_lanes_avx512(v, s, z, l, h, true);
            store_low_bytes_avx512(out.as_mut_ptr().add(i), 1, n, mask, q);
        }
        i += 16;
    }
}

/// [`quantize_one`] on 16 float32 lanes to an 8-bit type whose range is `min..=max`: divide
/// by `scale`, round half to even, add `zero_point`, saturate; NaN lanes give 0 (tested only
/// when `may_be_nan`: a caller that knows no lane can be NaN skips it). The i32 lanes hold the
/// quantized values, for [`store_low_bytes_avx512`]. Also the int8 GEMM's epilogue.
///
/// # Safety
/// The CPU must support AVX-512F.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
#[inline]
pub(crate) unsafe fn quantize_lanes_avx512(
    v: std::arch::x86_64::__m512,
    scale: std::arch::x86_64::__m512,
    zero_point: std::arch::x86_64::__m512,
    min: std::arch::x86_64::__m512,
    max: std::arch::x86_64::__m512,
    may_be_nan: bool,
) -> std::arch::x86_64::__m512i {
    use std::arch::x86_64::*;
    // Round to nearest even: imm 0x08, exceptions suppressed.
    let q = _mm512_add_ps(_mm512_roundscale_ps::<0x08>(_mm512_div_ps(v, scale)), zero_point);
    let clamped = _mm512_min_ps(_mm512_max_ps(q, min), max);
    if may_be_nan {
        let nan = _mm512_cmp_ps_mask::<_CMP_UNORD_Q>(q, q);
        _mm512_maskz_cvttps_epi32(!nan, clamped)
    } else {
        _mm512_cvttps_epi32(clamped)
    }
}

/// [`quantize_lanes_avx512`] in 8 lanes (AVX2) for lanes that are not NaN: divide, round
/// half to even (`vroundps`), add the zero point, saturate to `min..=max`, convert.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
pub(crate) fn quantize_lanes_avx2(
    v: std::arch::x86_64::__m256,
    scale: std::arch::x86_64::__m256,
    zero_point: std::arch::x86_64::__m256,
    min: std::arch::x86_64::__m256,
    max: std::arch::x86_64::__m256,
) -> std::arch::x86_64::__m256i {
    use std::arch::x86_64::*;
    let rounded = _mm256_round_ps::<{ _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC }>(_mm256_div_ps(v, scale));
    let q = _mm256_add_ps(rounded, zero_point);
    _mm256_cvttps_epi32(_mm256_min_ps(_mm256_max_ps(q, min), max))
}

/// The low bytes of the 8 i32 lanes of `v`, in lane order, in the low 8 bytes (AVX2; the
/// 8-lane form of [`store_low_bytes_avx512`]'s narrowing).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
pub(crate) fn low_bytes_avx2(v: std::arch::x86_64::__m256i) -> std::arch::x86_64::__m128i {
    use std::arch::x86_64::*;
    // Per 128-bit half, bytes 0, 4, 8, 12 to the half's first dword; then dwords 0 and 4.
    let bytes = _mm256_shuffle_epi8(v, _mm256_set_epi32(-1, -1, -1, 0x0c08_0400, -1, -1, -1, 0x0c08_0400));
    _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(bytes, _mm256_setr_epi32(0, 4, 0, 0, 0, 0, 0, 0)))
}

/// Stores the low bytes of the first `n` i32 lanes of `q` (as `mask` selects them) at `out`,
/// `cs` bytes apart. The bytes are gathered with two shuffles rather than `vpmovdb`, whose
/// memory forms are microcoded on Zen 4 (a masked one took 60 % of a k = 64 int8 GEMM).
///
/// # Safety
/// The `n` bytes are writable, and the CPU has AVX-512F, BW and VL.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vl")]
#[inline]
pub(crate) unsafe fn store_low_bytes_avx512(
    out: *mut u8,
    cs: usize,
    n: usize,
    mask: std::arch::x86_64::__mmask16,
    q: std::arch::x86_64::__m512i,
) {
    use std::arch::x86_64::*;
    // Byte 0 of each i32 lane to the first 4 bytes of its 128-bit lane, then dword 0 of each
    // 128-bit lane to the low 128 bits.
    let bytes = _mm512_shuffle_epi8(q, _mm512_set4_epi32(-1, -1, -1, 0x0c08_0400));
    let bytes = _mm512_castsi512_si128(_mm512_permutexvar_epi32(
        _mm512_setr_epi32(0, 4, 8, 12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0),
        bytes,
    ));
    if cs == 1 {
        // SAFETY: the caller guarantees the n bytes that `mask` selects.
        unsafe {
            if n == 16 {
                _mm_storeu_si128(out.cast(), bytes);
            } else {
                _mm_mask_storeu_epi8(out.cast(), mask, bytes);
            }
        }
    } else {
        let mut v = [0u8; 16];
        // SAFETY: 16 bytes into a 16-byte array.
        unsafe { _mm_storeu_si128(v.as_mut_ptr().cast(), bytes) };
        for (t, &x) in v[..n].iter().enumerate() {
            // SAFETY: the caller guarantees the n bytes, `cs` apart.
            unsafe { *out.add(t * cs) = x };
        }
    }
}

#[cfg(test)]
#[path = "quantize_tests.rs"]
mod tests;

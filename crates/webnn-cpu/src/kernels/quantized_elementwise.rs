//! The 8-bit kernels of `compile::quantized::elementwise`: a 256-byte table lookup, the
//! quantized add / multiply of two 8-bit tensors, and max pooling of 8-bit values (the pooling
//! kernel on bytes, then the table in place where there is one).
//!
//! The table: with AVX-512 VBMI, 64 bytes at a time by two 128-byte permutes
//! (`vpermi2b`) and a blend on the index's top bit; else one byte at a time.
//!
//! The binary step computes, per element, exactly the float chain it replaces:
//! `quantize(clamp(dequantize(a) op dequantize(b)))` with the spec's dequantize
//! (`(x − zero point) · scale`, the difference exact in integers, one float32 rounding), one
//! float32 add or multiply, the clamp, and quantize's divide / round half to even / add the
//! zero point / saturate ([`super::quantize`]) — so the same bytes as the unfused steps.
//! AVX-512 computes 16 elements at a time with the same operations.

use super::activation::clamp_value;
use super::quantize::{dequantize_one, quantize_one};
use super::strided::par_rows;
use super::{In, Kernel, Out};
use crate::compile::quantized::elementwise::{broadcasts_trailing, BinaryStep, Elementwise, QuantizedBinary};
use crate::compile::quantized::QuantParams;
use webnn_core::{DataType, Error, Graph, OperandId, Result};

/// Elements per parallel chunk (the steps are a few cycles per element).
const CHUNK: usize = 1 << 14;

/// Lowers a node of `compile::quantized::elementwise` (`inputs`: the 8-bit sources).
pub fn lower(
    graph: &Graph,
    inputs: &[Option<OperandId>],
    outputs: &[OperandId],
    e: &Elementwise,
) -> Result<Box<dyn Kernel>> {
    let fail = |what: &str| Error::operation(format!("quantized element-wise step: {what}"));
    let out = graph.descriptor(*outputs.first().ok_or_else(|| fail("missing output"))?);
    let operand = |i: usize| inputs.get(i).copied().flatten().map(|id| graph.descriptor(id));
    let eight_bit = |t: DataType| matches!(t, DataType::Uint8 | DataType::Int8);
    match e {
        Elementwise::Table(table) => {
            let x = operand(0).ok_or_else(|| fail("missing input"))?;
            if x.len() != out.len() || !eight_bit(x.data_type) || !eight_bit(out.data_type) {
                return Err(fail("the input and the result must be 8-bit tensors of one size"));
            }
            Ok(Box::new(TableKernel { table: table.clone(), vbmi: has_vbmi() }))
        }
        Elementwise::Binary(q) => {
            let (Some(a), Some(b)) = (operand(0), operand(1)) else { return Err(fail("missing input")) };
            let types_match =
                a.data_type == q.a.data_type && b.data_type == q.b.data_type && out.data_type == q.output.data_type;
            if a.shape != out.shape || !broadcasts_trailing(&b.shape, &out.shape) || !types_match || b.is_empty() {
                return Err(fail("the operands do not match the result"));
            }
            Ok(Box::new(BinaryKernel { q: *q, inner: out.len() / b.len(), avx512: has_avx512bw(), avx2: has_avx2() }))
        }
        Elementwise::MaxPool { pool, table } => {
            let x = operand(0).ok_or_else(|| fail("missing input"))?;
            let op = graph.operations.get(*pool).ok_or_else(|| fail("missing maxPool2d"))?;
            let pooled = graph.descriptor(op.outputs[0]);
            if !eight_bit(x.data_type) || !eight_bit(out.data_type) || pooled.shape != out.shape {
                return Err(fail("max pooling: the input and the result must be 8-bit tensors of the pool's shapes"));
            }
            if table.is_none() && x.data_type != out.data_type {
                return Err(fail("max pooling: the input and the result types differ and there is no table"));
            }
            let pool = super::pool::lower_max_pool_as(op, graph, x.data_type)?;
            let table = table.as_ref().map(|t| TableKernel { table: t.clone(), vbmi: has_vbmi() });
            Ok(Box::new(MaxPoolKernel { pool, table }))
        }
    }
}

/// Max pooling of bytes (signed for int8), then the table in place.
struct MaxPoolKernel {
    pool: Box<dyn Kernel>,
    table: Option<TableKernel>,
}

impl Kernel for MaxPoolKernel {
    fn run(&self, inputs: &[Option<In<'_>>], outputs: &mut [Out<'_>]) -> Result<()> {
        self.pool.run(inputs, outputs)?;
        if let Some(table) = &self.table {
            table.apply_in_place(&mut outputs[0].bytes[..]);
        }
        Ok(())
    }
}

#[cfg(target_arch = "x86_64")]
fn has_vbmi() -> bool {
    has_avx512bw() && std::is_x86_feature_detected!("avx512vbmi")
}

#[cfg(not(target_arch = "x86_64"))]
fn has_vbmi() -> bool {
    false
}

#[cfg(target_arch = "x86_64")]
fn has_avx512bw() -> bool {
    super::unary::has_avx512() && std::is_x86_feature_detected!("avx512bw")
}

#[cfg(not(target_arch = "x86_64"))]
fn has_avx512bw() -> bool {
    false
}

struct TableKernel {
    table: Box<[u8; 256]>,
    /// The CPU has AVX-512F, BW, VL and VBMI.
    vbmi: bool,
}

impl Kernel for TableKernel {
    fn run(&self, inputs: &[Option<In<'_>>], outputs: &mut [Out<'_>]) -> Result<()> {
        let x = inputs[0].as_ref().ok_or_else(|| Error::operation("quantized table: missing input"))?.bytes;
        let out = &mut *outputs[0].bytes;
        if x.len() != out.len() {
            return Err(Error::operation("quantized table: the input and the result differ in size"));
        }
        par_rows(out, CHUNK, |first, chunk| {
            let x = &x[first * CHUNK..][..chunk.len()];
            #[cfg(target_arch = "x86_64")]
            if self.vbmi {
                // SAFETY: AVX-512F/BW/VL and VBMI were detected at lowering; `x` and `chunk`
                // each hold `chunk.len()` bytes and do not overlap.
                return unsafe { lookup_vbmi(&self.table, x.as_ptr(), chunk.as_mut_ptr(), chunk.len()) };
            }
            for (o, &v) in chunk.iter_mut().zip(x) {
                *o = self.table[v as usize];
            }
        });
        Ok(())
    }
}

impl TableKernel {
    /// `bytes[i] = table[bytes[i]]`.
    fn apply_in_place(&self, bytes: &mut [u8]) {
        par_rows(bytes, CHUNK, |_, chunk| {
            #[cfg(target_arch = "x86_64")]
            if self.vbmi {
                // SAFETY: AVX-512F/BW/VL and VBMI were detected at lowering; each 64-byte
                // block is loaded before it is stored, so source and destination may be one.
                return unsafe { lookup_vbmi(&self.table, chunk.as_ptr(), chunk.as_mut_ptr(), chunk.len()) };
            }
            for v in chunk.iter_mut() {
                *v = self.table[*v as usize];
            }
        });
    }
}

/// `out[i] = table[x[i]]` for `i < len`, 64 bytes at a time (`x` may be `out`).
///
/// # Safety
/// The CPU has AVX-512F, BW, VL and VBMI; `x` and `out` are valid for `len` bytes, and either
/// the same or not overlapping.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi")]
unsafe fn lookup_vbmi(table: &[u8; 256], x: *const u8, out: *mut u8, len: usize) {
    use std::arch::x86_64::*;
    // SAFETY: four 64-byte loads inside the 256-byte table.
    let t: [__m512i; 4] = unsafe { std::array::from_fn(|i| _mm512_loadu_si512(table.as_ptr().add(64 * i).cast())) };
    let mut i = 0;
    while i < len {
        let n = (len - i).min(64);
        let mask: __mmask64 = if n == 64 { u64::MAX } else { (1u64 << n) - 1 };
        // SAFETY: the mask selects bytes i..i + n of both buffers, inside them (the caller's
        // contract); the block is read before it is written.
        unsafe {
            let idx = _mm512_maskz_loadu_epi8(mask, x.add(i).cast());
            // Bits 0-6 pick a byte of the 128 bytes of each half; bit 7 picks the half.
            let low = _mm512_permutex2var_epi8(t[0], idx, t[1]);
            let high = _mm512_permutex2var_epi8(t[2], idx, t[3]);
            let v = _mm512_mask_blend_epi8(_mm512_movepi8_mask(idx), low, high);
            _mm512_mask_storeu_epi8(out.add(i).cast(), mask, v);
        }
        i += 64;
    }
}

struct BinaryKernel {
    q: QuantizedBinary,
    /// Consecutive result elements that read one element of b (1: b has the result's shape).
    inner: usize,
    /// The CPU has AVX-512F, BW and VL.
    avx512: bool,
    /// The CPU has AVX2.
    avx2: bool,
}

#[cfg(target_arch = "x86_64")]
fn has_avx2() -> bool {
    std::is_x86_feature_detected!("avx2")
}

#[cfg(not(target_arch = "x86_64"))]
fn has_avx2() -> bool {
    false
}

/// `(lo, hi)` of an 8-bit type.
fn range_of(t: DataType) -> (f32, f32) {
    if t == DataType::Int8 {
        (-128.0, 127.0)
    } else {
        (0.0, 255.0)
    }
}

/// The integer a byte of an 8-bit type stands for.
#[inline(always)]
pub(crate) fn integer(byte: u8, t: DataType) -> i32 {
    if t == DataType::Int8 {
        i32::from(byte as i8)
    } else {
        i32::from(byte)
    }
}

impl BinaryKernel {
    /// The element function on two bytes (the scalar form of the SIMD code).
    #[inline(always)]
    fn element(&self, a: u8, b: u8) -> u8 {
        let q = &self.q;
        let dq = |v: u8, p: &QuantParams| dequantize_one::<i32, f32>(integer(v, p.data_type), p.scale, p.zero_point);
        let (x, y) = (dq(a, &q.a), dq(b, &q.b));
        let mut r = match q.op {
            BinaryStep::Add => x + y,
            BinaryStep::Mul => x * y,
        };
        if let Some((lo, hi)) = q.clamp {
            r = clamp_value(r, lo, hi);
        }
        match q.output.data_type {
            DataType::Int8 => quantize_one::<f32, i8>(r, q.output.scale, q.output.zero_point as i8) as u8,
            _ => quantize_one::<f32, u8>(r, q.output.scale, q.output.zero_point as u8),
        }
    }
}

impl Kernel for BinaryKernel {
    fn run(&self, inputs: &[Option<In<'_>>], outputs: &mut [Out<'_>]) -> Result<()> {
        let input = |i: usize| {
            inputs
                .get(i)
                .and_then(Option::as_ref)
                .map(|v| v.bytes)
                .ok_or_else(|| Error::operation("quantized binary: missing input"))
        };
        let (a, b) = (input(0)?, input(1)?);
        let out = &mut *outputs[0].bytes;
        let inner = self.inner;
        par_rows(out, CHUNK, |first, chunk| {
            let start = first * CHUNK;
            let a = &a[start..][..chunk.len()];
            #[cfg(target_arch = "x86_64")]
            if self.avx512 {
                // SAFETY: AVX-512F/BW/VL were detected at lowering; `a` and `chunk` have one
                // length and b holds an element for every `inner` of them.
                return unsafe { binary_avx512(self, a, b, start, chunk) };
            }
            #[cfg(target_arch = "x86_64")]
            if self.avx2 {
                // SAFETY: AVX2 was detected at lowering; as for AVX-512.
                return unsafe { binary_avx2(self, a, b, start, chunk) };
            }
            for (j, (o, &x)) in chunk.iter_mut().zip(a).enumerate() {
                *o = self.element(x, b[(start + j) / inner]);
            }
        });
        Ok(())
    }
}

/// The binary step on `out = result[start..start + out.len()]`, 16 elements at a time: where
/// b has the result's shape both operands are vectors, else each run of `inner` elements
/// reads one b value.
///
/// # Safety
/// The CPU has AVX-512F, BW and VL; `a.len() == out.len()`; `b` covers the elements
/// `start / inner ..= (start + out.len() − 1) / inner`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vl")]
unsafe fn binary_avx512(k: &BinaryKernel, a: &[u8], b: &[u8], start: usize, out: &mut [u8]) {
    use super::quantize::{quantize_lanes_avx512, store_low_bytes_avx512};
    use std::arch::x86_64::*;
    let q = &k.q;
    let (lo, hi) = q.clamp.unwrap_or((f32::NEG_INFINITY, f32::INFINITY));
    let (lo, hi) = (_mm512_set1_ps(lo), _mm512_set1_ps(hi));
    let (min, max) = range_of(q.output.data_type);
    let (min, max) = (_mm512_set1_ps(min), _mm512_set1_ps(max));
    let (out_scale, out_zero) = (_mm512_set1_ps(q.output.scale), _mm512_set1_ps(q.output.zero_point as f32));
    // dequantize of 16 bytes at p (as `mask` selects them): (x − zero point) · scale.
    let dequantize = |p: *const u8, mask: __mmask16, params: &QuantParams| {
        // SAFETY: the caller's mask selects bytes inside the operand.
        let bytes = unsafe { _mm_maskz_loadu_epi8(mask, p.cast()) };
        let wide =
            if params.data_type == DataType::Int8 { _mm512_cvtepi8_epi32(bytes) } else { _mm512_cvtepu8_epi32(bytes) };
        let centred = _mm512_sub_epi32(wide, _mm512_set1_epi32(params.zero_point));
        _mm512_mul_ps(_mm512_cvtepi32_ps(centred), _mm512_set1_ps(params.scale))
    };
    let finish = |x: __m512, y: __m512, dst: *mut u8, n: usize, mask: __mmask16| {
        let r = match q.op {
            BinaryStep::Add => _mm512_add_ps(x, y),
            BinaryStep::Mul => _mm512_mul_ps(x, y),
        };
        // clamp_value's two selects: max then min (no NaN: every parameter is finite).
        let r = _mm512_min_ps(_mm512_max_ps(r, lo), hi);
        // SAFETY: AVX-512F (this function's); `dst` has the n bytes `mask` selects.
        unsafe {
            let v = quantize_lanes_avx512(r, out_scale, out_zero, min, max, false);
            store_low_bytes_avx512(dst, 1, n, mask, v);
        }
    };
    let mut i = 0;
    while i < out.len() {
        // A run of elements that read one b value (or 16 when b is as large as the result).
        let run_end = if k.inner == 1 { out.len() } else { ((start + i) / k.inner + 1) * k.inner - start };
        let run_end = run_end.min(out.len());
        let broadcast = (k.inner > 1).then(|| {
            let v =
                dequantize_one::<i32, f32>(integer(b[(start + i) / k.inner], q.b.data_type), q.b.scale, q.b.zero_point);
            _mm512_set1_ps(v)
        });
        while i < run_end {
            let n = (run_end - i).min(16);
            let mask: __mmask16 = if n == 16 { 0xffff } else { (1u16 << n) - 1 };
            let x = dequantize(a.as_ptr().wrapping_add(i), mask, &q.a);
            let y = match broadcast {
                Some(v) => v,
                None => dequantize(b.as_ptr().wrapping_add(start + i), mask, &q.b),
            };
            finish(x, y, out.as_mut_ptr().wrapping_add(i), n, mask);
            i += n;
        }
    }
}

/// [`binary_avx512`] in 8 lanes (AVX2): whole groups of 8 elements in vectors (the same f32
/// operations), the rest of a run element by element (`BinaryKernel::element`).
///
/// # Safety
/// As [`binary_avx512`], with AVX2 instead of AVX-512.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn binary_avx2(k: &BinaryKernel, a: &[u8], b: &[u8], start: usize, out: &mut [u8]) {
    use super::quantize::{low_bytes_avx2, quantize_lanes_avx2};
    use std::arch::x86_64::*;
    let q = &k.q;
    let (lo, hi) = q.clamp.unwrap_or((f32::NEG_INFINITY, f32::INFINITY));
    let (lo, hi) = (_mm256_set1_ps(lo), _mm256_set1_ps(hi));
    let (min, max) = range_of(q.output.data_type);
    let (min, max) = (_mm256_set1_ps(min), _mm256_set1_ps(max));
    let (out_scale, out_zero) = (_mm256_set1_ps(q.output.scale), _mm256_set1_ps(q.output.zero_point as f32));
    // dequantize of the 8 bytes at `bytes`: (x − zero point) · scale.
    let dequantize = |bytes: &[u8], params: &QuantParams| {
        // SAFETY: `bytes` holds 8 bytes; AVX2 is enabled here.
        let bytes = unsafe { _mm_loadl_epi64(bytes.as_ptr().cast()) };
        let wide =
            if params.data_type == DataType::Int8 { _mm256_cvtepi8_epi32(bytes) } else { _mm256_cvtepu8_epi32(bytes) };
        let centred = _mm256_sub_epi32(wide, _mm256_set1_epi32(params.zero_point));
        _mm256_mul_ps(_mm256_cvtepi32_ps(centred), _mm256_set1_ps(params.scale))
    };
    let mut i = 0;
    while i < out.len() {
        let run_end = if k.inner == 1 { out.len() } else { ((start + i) / k.inner + 1) * k.inner - start };
        let run_end = run_end.min(out.len());
        let b_index = (start + i) / k.inner;
        let broadcast = (k.inner > 1).then(|| {
            _mm256_set1_ps(dequantize_one::<i32, f32>(integer(b[b_index], q.b.data_type), q.b.scale, q.b.zero_point))
        });
        while i + 8 <= run_end {
            let x = dequantize(&a[i..i + 8], &q.a);
            let y = match broadcast {
                Some(v) => v,
                None => dequantize(&b[start + i..start + i + 8], &q.b),
            };
            let r = match q.op {
                BinaryStep::Add => _mm256_add_ps(x, y),
                BinaryStep::Mul => _mm256_mul_ps(x, y),
            };
            // clamp_value's two selects: max then min (no NaN: every parameter is finite).
            let r = _mm256_min_ps(_mm256_max_ps(r, lo), hi);
            let v = low_bytes_avx2(quantize_lanes_avx2(r, out_scale, out_zero, min, max));
            // SAFETY: 8 bytes of `out` from i (i + 8 ≤ run_end ≤ out.len()).
            unsafe { _mm_storel_epi64(out.as_mut_ptr().add(i).cast(), v) };
            i += 8;
        }
        while i < run_end {
            out[i] = k.element(a[i], b[(start + i) / k.inner]);
            i += 1;
        }
    }
}

#[cfg(test)]
#[path = "quantized_elementwise_tests.rs"]
mod tests;

//! The quantized depthwise conv2d (nchw, groups = channels, one filter plane per channel)
//! that `compile::quantized` makes of the QDQ form: uint8 input, int8 weights, and the
//! requantization of [`super::quantized`], without the float round trip
//! (dequantize the whole input, float depthwise, quantize the whole output).
//!
//! Each channel plane is copied into a zero-padded float32 plane as `x − x_zero` (the padding
//! is the real 0, as the float conv pads), the taps are summed in float32 with the weights as
//! float32 integers, and each output row is requantized straight into the uint8 / int8
//! output. The products and sums are integers below 2^24 in magnitude (255 · 128 · at most
//! [`MAX_TAPS`] taps), so float32 holds every one exactly: the sums are the exact integer sums
//! of the GEMM path, whatever the order, and the result is the same requantization of them.
//!
//! AVX-512 computes 16 outputs of a row at once, a horizontal stride of 2 picking the even
//! lanes of two loads with one permute; AVX2 CPUs keep the sums of up to 32 outputs of a row
//! in registers over the whole window and requantize them there
//! (`quantized_depthwise_avx2`); other CPUs run the same arithmetic in scalar code. Where the CPU also has VBMI
//! (Ice Lake, Zen 4 and later) and 16 outputs' window row fits one 64-byte load, the sums are
//! computed on integers instead (`quantized_depthwise_vnni`): the same sums, the same
//! bytes, several times faster. Planes with rows of at most 8 outputs (14 at stride 2) take a third path
//! (`quantized_depthwise_small`): 16 outputs across rows at a time, gathered from the
//! unpadded plane.

use super::conv::{conv_geom, Geom};
use super::quantize::quantize_one;
use super::quantized_depthwise_vnni::{self as vnni, VnniTaps};
use super::requantize::Requantizer;
use super::scratch::grow;
use super::{constants::constant_bytes, In, Kernel, Out};
use crate::compile::quantized::{QuantForm, QuantParams, QuantizedOp};
use webnn_core::graph::Operation;
use webnn_core::{DataType, Error, Graph, OperandId, Result};

/// The most taps (kh · kw) whose sums float32 holds exactly: 255 · 128 · 512 = 2^24 − 2^16.
pub const MAX_TAPS: usize = 512;

/// Whether the depthwise kernel takes this geometry: strides 1 or 2.
pub fn supports(g: &Geom) -> bool {
    g.groups == g.cin && g.cin == g.cout && g.kh * g.kw <= MAX_TAPS && g.strides.iter().all(|&s| s == 1 || s == 2)
}

/// Lowers a depthwise node of `compile::quantized` (`inputs`: quantized input, int8 weights
/// `[c, 1, kh, kw]`, float32 bias or none).
pub fn lower(op: &Operation, graph: &Graph, inputs: &[Option<OperandId>], q: &QuantizedOp) -> Result<Box<dyn Kernel>> {
    let fail = |what: &str| Error::operation(format!("{} (int8 depthwise): {what}", op.kind));
    let QuantForm::Static { input, output } = q.form.clone() else { return Err(fail("only the static form")) };
    let (Some(Some(w)), Some(_)) = (inputs.get(1), inputs.first()) else { return Err(fail("missing operand")) };
    let (_, g) = conv_geom(graph, op, |f| (f[2], f[3]))?;
    if !supports(&g) || g.nhwc {
        return Err(fail("not a depthwise conv this kernel takes"));
    }
    let weights = constant_bytes(graph, *w).ok_or_else(|| fail("the weights must be a constant"))?;
    let kk = g.kh * g.kw;
    if weights.len() != g.cout * kk || graph.descriptor(*w).data_type != DataType::Int8 {
        return Err(fail("the weights do not match the shapes"));
    }
    let weights: Vec<i8> = weights.iter().map(|&b| b as i8).collect();
    let bias = match inputs.get(2).copied().flatten() {
        Some(b) => super::constants::constant_f32(graph, b).ok_or_else(|| fail("the bias must be a constant"))?,
        None => vec![0.0; g.cout],
    };
    let ws = &q.weight_scales;
    if bias.len() != g.cout || !(ws.len() == 1 || ws.len() == g.cout) {
        return Err(fail("bias or scales do not match the channels"));
    }
    let scales: Vec<f32> = (0..g.cout).map(|c| input.scale * ws[if ws.len() == 1 { 0 } else { c }]).collect();
    let (lo, hi) = q.clamp.unwrap_or((f32::NEG_INFINITY, f32::INFINITY));
    let folded: Option<Vec<Requantizer>> = (0..g.cout)
        .map(|c| Requantizer::fold(scales[c], bias[c], (lo, hi), output.scale, output.zero_point, output.data_type))
        .collect();
    // The integer path needs uint8 input and the folded requantization.
    let zero = u8::try_from(input.zero_point).ok().filter(|_| input.data_type == DataType::Uint8 && folded.is_some());
    let vnni = match zero {
        Some(zero) if vnni::available() => VnniTaps::new(g.kh, g.kw, [g.strides[1], g.dilations[1]], &weights, zero),
        _ => None,
    };
    #[cfg(target_arch = "x86_64")]
    let small = match zero {
        Some(zero) if vnni::available() => super::quantized_depthwise_small::SmallPlanes::new(&g, &weights, zero),
        _ => None,
    };
    let weights = weights.iter().map(|&w| w as f32).collect();
    #[cfg(target_arch = "x86_64")]
    let avx512bw = super::unary::has_avx512() && std::is_x86_feature_detected!("avx512bw");
    #[cfg(not(target_arch = "x86_64"))]
    let avx512bw = false;
    #[cfg(target_arch = "x86_64")]
    let avx2 = std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma");
    #[cfg(not(target_arch = "x86_64"))]
    let avx2 = false;
    #[cfg(target_arch = "x86_64")]
    let avx2_plane = avx2 && !avx512bw && folded.is_some() && {
        let (pw, len) = padded_dims(&g);
        super::quantized_depthwise_avx2::fits(&g, pw, len)
    };
    #[cfg(not(target_arch = "x86_64"))]
    let avx2_plane = false;
    Ok(Box::new(QuantizedDepthwise {
        g,
        weights,
        scales,
        bias,
        lo,
        hi,
        input,
        output,
        avx512bw,
        avx2,
        avx2_plane,
        vnni,
        #[cfg(target_arch = "x86_64")]
        small,
        folded,
    }))
}

/// Padded width and the padded plane's length (with slack for the last row's vector reads
/// past its end: up to 32 · stride + the window's width).
fn padded_dims(g: &Geom) -> (usize, usize) {
    let pw = g.w + g.padding[2] + g.padding[3];
    let ph = g.h + g.padding[0] + g.padding[1];
    (pw, ph * pw + 64 + g.kw * g.dilations[1] + pw)
}

struct QuantizedDepthwise {
    g: Geom,
    /// kh · kw weights per channel, as float32 integers.
    weights: Vec<f32>,
    /// Input scale × weight scale, per channel.
    scales: Vec<f32>,
    bias: Vec<f32>,
    lo: f32,
    hi: f32,
    input: QuantParams,
    output: QuantParams,
    /// The CPU has AVX-512F, BW and VL.
    avx512bw: bool,
    /// The CPU has AVX2 and FMA (the portable loops compiled for them, where AVX-512 is
    /// missing).
    avx2: bool,
    /// AVX2 without AVX-512, the folded requantization, and a geometry whose reads fit the
    /// padded plane: the planes go to `quantized_depthwise_avx2` (its layout of the padded
    /// rows: split by parity at width stride 2).
    avx2_plane: bool,
    /// The weights packed for the integer path, where the CPU and the geometry allow it.
    vnni: Option<VnniTaps>,
    /// The small-plane integer path's runs and weights, where the CPU and the geometry allow
    /// it (rows of at most 8 outputs, 14 at stride 2): taken before `vnni`.
    #[cfg(target_arch = "x86_64")]
    small: Option<super::quantized_depthwise_small::SmallPlanes>,
    /// Per channel, the folded requantization (`requantize`), where the parameters fold;
    /// else the spec's division.
    folded: Option<Vec<Requantizer>>,
}

thread_local! {
    /// Per thread, the padded planes and the plane of sums.
    static SCRATCH: std::cell::RefCell<Scratch> = const {
        std::cell::RefCell::new(Scratch { floats: Vec::new(), bytes: Vec::new(), sums: Vec::new(), padded_for: None })
    };
}

/// A thread's scratch: see `SCRATCH`.
struct Scratch {
    /// The padded float32 plane (the float path).
    floats: Vec<f32>,
    /// The padded uint8 plane (the integer path).
    bytes: Vec<u8>,
    /// The plane of sums (the float path).
    sums: Vec<f32>,
    /// The geometry and padding byte whose padding the padded plane holds.
    padded_for: Option<[usize; 8]>,
}

impl QuantizedDepthwise {
    /// [`padded_dims`] of this conv's geometry.
    fn padded_dims(&self) -> (usize, usize) {
        padded_dims(&self.g)
    }

    /// One channel plane: `x` its input bytes, `y` its output bytes.
    fn plane(&self, c: usize, x: &[u8], y: &mut [u8], scratch: &mut Scratch) {
        let g = &self.g;
        let (pw, padded_len) = self.padded_dims();
        let [pt, _, pl, _] = g.padding;
        let first = pt * pw + pl;
        #[cfg(target_arch = "x86_64")]
        if let (Some(small), Some(folded)) = (&self.small, &self.folded) {
            // SAFETY: `small` is set only where the CPU has the instructions (lower) and was
            // made for this geometry; `x` is the channel's input plane, `y` its output plane.
            unsafe { super::quantized_depthwise_small::plane(small, c, x, &folded[c], y) };
            return;
        }
        #[cfg(target_arch = "x86_64")]
        if let (Some(taps), Some(folded)) = (&self.vnni, &self.folded) {
            let padded = &mut scratch.bytes[..padded_len];
            for (r, row) in x.chunks_exact(g.w).enumerate() {
                padded[first + r * pw..][..g.w].copy_from_slice(row);
            }
            // SAFETY: `vnni` is set only where the CPU has the instructions (lower); the taps
            // were packed for this geometry; the padded plane has ph rows of pw bytes and
            // 64 + more bytes of slack (padded_dims); `y` is the oh × ow plane.
            unsafe { vnni::plane(g, taps, c, padded, pw, &folded[c], y) };
            return;
        }
        let (padded, sums) = (&mut scratch.floats[..padded_len], &mut scratch.sums);
        let zero = self.input.zero_point as f32;
        let taps: &[f32] = &self.weights[c * g.kk()..][..g.kk()];
        #[cfg(target_arch = "x86_64")]
        if let (true, Some(folded)) = (self.avx2_plane, &self.folded) {
            use super::quantized_depthwise_avx2 as avx2;
            for (r, row) in x.chunks_exact(g.w).enumerate() {
                let row_start = (pt + r) * pw;
                // SAFETY: AVX2 was detected (lower); the padded row is pw floats.
                unsafe { avx2::widen_row(g.strides[1], pl, row, zero, &mut padded[row_start..row_start + pw]) };
            }
            // SAFETY: AVX2 and FMA were detected, the reads fit the plane (lower: `avx2_plane`);
            // the rows are in its layout (above); `y` is the oh × ow plane, `taps` the
            // channel's kh · kw weights.
            unsafe { avx2::plane(g, padded, pw, taps, &folded[c], y) };
            return;
        }
        // The rows; the padding around them stays zero (see run).
        for (r, row) in x.chunks_exact(g.w).enumerate() {
            let to = &mut padded[first + r * pw..][..g.w];
            #[cfg(target_arch = "x86_64")]
            if self.avx512bw {
                // SAFETY: AVX-512F, BW and VL were detected (lower); `row` and `to` have the
                // same length.
                unsafe { avx512::widen(row, zero, to) };
                continue;
            }
            for (d, &v) in to.iter_mut().zip(row) {
                *d = v as f32 - zero;
            }
        }
        // The plane of sums, then the plane requantized in one loop.
        self.sums(padded, pw, taps, &mut sums[..g.oh * g.ow]);
        self.requantize(&sums[..g.oh * g.ow], c, y);
    }

    /// `sums[oy·ow + ox] = Σ_{u,v} w[u][v] · padded[(oy·sh + u·dh)·pw + ox·sw + v·dw]`, taps
    /// in window order.
    fn sums(&self, padded: &[f32], pw: usize, taps: &[f32], sums: &mut [f32]) {
        let g = &self.g;
        #[cfg(target_arch = "x86_64")]
        if self.avx512bw {
            // SAFETY: AVX-512F was detected (lower); `sums` is the oh × ow plane and the
            // padded plane's slack covers the vector reads past the last row (padded_dims).
            unsafe { avx512::sums(g, padded, pw, taps, sums) };
            return;
        }
        #[cfg(target_arch = "x86_64")]
        if self.avx2 {
            // SAFETY: AVX2 and FMA were detected (lower).
            unsafe { sums_avx2(g, padded, pw, taps, sums) };
            return;
        }
        let sw = g.strides[1];
        sums_rows(g, padded, pw, taps, sums, |row, src, w| strided_tap_plain(sw, row, src, w));
    }

    /// Channel c's outputs from their exact sums: `sum · scale + bias`, clamped, quantized
    /// (folded where the parameters allow).
    fn requantize(&self, sums: &[f32], c: usize, out: &mut [u8]) {
        #[cfg(target_arch = "x86_64")]
        if self.avx2 && !self.avx512bw {
            if let Some(folded) = &self.folded {
                // SAFETY: AVX2 and FMA were detected (lower).
                unsafe { requantize_folded_avx2(&folded[c], sums, out) };
                return;
            }
        }
        let (scale, bias) = (self.scales[c], self.bias[c]);
        if let Some(folded) = &self.folded {
            let rq = &folded[c];
            #[cfg(target_arch = "x86_64")]
            if self.avx512bw {
                // SAFETY: AVX-512F, BW and VL were detected (lower); `out` and `sums` have the
                // same length.
                unsafe { avx512::requantize_folded(sums, rq, out) };
                return;
            }
            // The sums are integers below 2^24 (MAX_TAPS): exact as i32.
            out.iter_mut().zip(sums).for_each(|(o, &s)| *o = rq.apply(s as i32));
            return;
        }
        #[cfg(target_arch = "x86_64")]
        if self.avx512bw {
            let (min, max) = if self.output.data_type == DataType::Int8 { (-128.0, 127.0) } else { (0.0, 255.0) };
            // SAFETY: AVX-512F, BW and VL were detected (lower); `out` and `sums` have the
            // same length.
            unsafe { avx512::requantize(sums, scale, bias, (self.lo, self.hi), &self.output, (min, max), out) };
            return;
        }
        let (out_scale, zero_point) = (self.output.scale, self.output.zero_point);
        for (o, &s) in out.iter_mut().zip(sums) {
            let v = super::activation::clamp_value(s * scale + bias, self.lo, self.hi);
            *o = match self.output.data_type {
                DataType::Int8 => quantize_one(v, out_scale, zero_point as i8) as u8,
                _ => quantize_one(v, out_scale, zero_point as u8),
            };
        }
    }
}

/// The sums of `QuantizedDepthwise::sums` without explicit SIMD, a row at a time: for each
/// tap, the row's outputs gain the tap times their inputs (a loop the compiler vectorises at
/// width stride 1; other strides go to `strided_tap(row, src, w)`, which adds `w · src[sw·i]`
/// to `row[i]`). The products and sums are integers below 2^24 (MAX_TAPS), exact in float32
/// in any order, so this gives the same sums as the window-order loops of the AVX-512 kernel.
#[inline(always)]
fn sums_rows(
    g: &Geom,
    padded: &[f32],
    pw: usize,
    taps: &[f32],
    sums: &mut [f32],
    mut strided_tap: impl FnMut(&mut [f32], &[f32], f32),
) {
    let ([sh, sw], [dh, dw]) = (g.strides, g.dilations);
    let ow = g.ow;
    for (oy, row) in sums.chunks_exact_mut(ow).enumerate() {
        row.fill(0.0);
        for u in 0..g.kh {
            let base = (oy * sh + u * dh) * pw;
            for v in 0..g.kw {
                let w = taps[u * g.kw + v];
                let src = &padded[base + v * dw..];
                if sw == 1 {
                    for (s, &x) in row.iter_mut().zip(&src[..ow]) {
                        *s += w * x;
                    }
                } else {
                    strided_tap(row, src, w);
                }
            }
        }
    }
}

/// `row[i] += w · src[sw·i]`, the strided tap of [`sums_rows`] in plain code.
#[inline(always)]
fn strided_tap_plain(sw: usize, row: &mut [f32], src: &[f32], w: f32) {
    for (s, x) in row.iter_mut().zip(src.iter().step_by(sw)) {
        *s += w * x;
    }
}

/// [`sums_rows`] compiled for AVX2 and FMA; at width stride 2, each tap's 8 inputs are
/// the even lanes of two loads (`vshufps` + `vpermpd`) instead of a gather the compiler
/// leaves scalar. The same exact sums.
///
/// # Safety
/// The CPU has AVX2 and FMA.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn sums_avx2(g: &Geom, padded: &[f32], pw: usize, taps: &[f32], sums: &mut [f32]) {
    use std::arch::x86_64::*;
    let sw = g.strides[1];
    sums_rows(g, padded, pw, taps, sums, |row: &mut [f32], src: &[f32], w: f32| {
        if sw != 2 {
            strided_tap_plain(sw, row, src, w);
            return;
        }
        let wv = _mm256_set1_ps(w);
        let mut ox = 0;
        // Each step reads src[2·ox..2·ox + 16].
        while ox + 8 <= row.len() && 2 * ox + 16 <= src.len() {
            // SAFETY: the 16 floats from 2·ox lie inside `src` (checked), the 8 sums from ox
            // inside the row; AVX2 is enabled here.
            unsafe {
                let a = _mm256_loadu_ps(src.as_ptr().add(2 * ox));
                let b = _mm256_loadu_ps(src.as_ptr().add(2 * ox + 8));
                // Per 128-bit half a0 a2 b0 b2 | a4 a6 b4 b6, then a0 a2 a4 a6 b0 b2 b4 b6.
                let even =
                    _mm256_castpd_ps(_mm256_permute4x64_pd::<0xd8>(_mm256_castps_pd(_mm256_shuffle_ps::<0x88>(a, b))));
                let at = row.as_mut_ptr().add(ox);
                _mm256_storeu_ps(at, _mm256_add_ps(_mm256_loadu_ps(at), _mm256_mul_ps(wv, even)));
            }
            ox += 8;
        }
        strided_tap_plain(2, &mut row[ox..], &src[2 * ox..], w);
    });
}

/// The folded requantization of a plane of exact sums (integers below 2^24, so exact as
/// i32) in 8 lanes (`requantize::RequantizerLanes8`), the same bytes as `Requantizer::apply`.
///
/// # Safety
/// The CPU has AVX2 and FMA.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn requantize_folded_avx2(rq: &Requantizer, sums: &[f32], out: &mut [u8]) {
    use std::arch::x86_64::*;
    let lanes = super::requantize::RequantizerLanes8::new(rq);
    let whole = sums.len() / 8 * 8;
    for (o, s) in out[..whole].chunks_exact_mut(8).zip(sums.chunks_exact(8)) {
        // SAFETY: 8 floats read, 8 bytes written; AVX2 is enabled here. The sums are exact
        // integers, so they are their own `s as i32 as f32`.
        unsafe {
            let q = lanes.apply_f32(_mm256_loadu_ps(s.as_ptr()));
            _mm_storel_epi64(o.as_mut_ptr().cast(), super::quantize::low_bytes_avx2(q));
        }
    }
    out[whole..].iter_mut().zip(&sums[whole..]).for_each(|(o, &s)| *o = rq.apply(s as i32));
}

impl Kernel for QuantizedDepthwise {
    fn run(&self, inputs: &[Option<In<'_>>], outputs: &mut [Out<'_>]) -> Result<()> {
        let g = &self.g;
        let x = inputs[0].as_ref().ok_or_else(|| Error::operation("conv2d (int8 depthwise): missing input"))?.bytes;
        let (iplane, oplane) = (g.h * g.w, g.oh * g.ow);
        let (_, padded_len) = self.padded_dims();
        // A few planes to a task when they are small.
        let per_task = ((1 << 15) / (oplane * g.kk()).max(1)).max(1);
        crate::par::try_chunks(outputs[0].bytes, per_task * oplane, |t, planes| {
            SCRATCH.with(|cell| {
                let scratch = &mut *cell.borrow_mut();
                // The small-plane path (set only with the folded requantization) reads the
                // planes as they are: no padded copy.
                #[cfg(target_arch = "x86_64")]
                let padded = self.small.is_none();
                #[cfg(not(target_arch = "x86_64"))]
                let padded = true;
                if padded {
                    // Each plane's copy writes every element but the padding: fill the padding
                    // only when the previous task on this thread had another geometry or
                    // padding byte.
                    let zero = self.vnni.as_ref().map(|taps| taps.zero as usize + 1).unwrap_or(0);
                    // (The AVX2 plane's split rows put the padding elsewhere.)
                    let split = usize::from(self.avx2_plane && g.strides[1] == 2);
                    let key = [g.h, g.w, g.padding[0], g.padding[1], g.padding[2], g.padding[3], zero, split];
                    if let Some(taps) = &self.vnni {
                        grow(&mut scratch.bytes, padded_len)?;
                        if scratch.padded_for != Some(key) {
                            scratch.bytes[..padded_len].fill(taps.zero);
                        }
                    } else {
                        grow(&mut scratch.floats, padded_len)?;
                        grow(&mut scratch.sums, oplane)?;
                        if scratch.padded_for != Some(key) {
                            scratch.floats[..padded_len].fill(0.0);
                        }
                    }
                    scratch.padded_for = Some(key);
                }
                for (i, y) in planes.chunks_exact_mut(oplane).enumerate() {
                    let p = t * per_task + i;
                    self.plane(p % g.cout, &x[p * iplane..][..iplane], y, scratch);
                }
                Ok(())
            })
        })
    }
}

#[cfg(target_arch = "x86_64")]
mod avx512 {
    use super::super::conv::Geom;
    use super::QuantParams;
    use crate::kernels::quantize::{quantize_lanes_avx512, store_low_bytes_avx512};
    use crate::kernels::requantize::{Requantizer, RequantizerLanes};
    use std::arch::x86_64::*;

    /// [`super::QuantizedDepthwise::sums`]: 16 outputs of up to 8 rows at a time (8
    /// independent chains of fused multiply-adds, enough to keep both FMA pipes busy).
    ///
    /// # Safety
    /// AVX-512F; `sums` is the oh × ow plane; every read below lies inside `padded` (its
    /// slack covers a row's last vector: up to 32·stride floats past the row).
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn sums(g: &Geom, padded: &[f32], pw: usize, taps: &[f32], sums: &mut [f32]) {
        let mut oy = 0;
        // SAFETY: forwarded from the caller, for rows oy.. of the plane.
        unsafe {
            while oy + 8 <= g.oh {
                rows::<8>(g, padded, pw, taps, sums, oy);
                oy += 8;
            }
            match g.oh - oy {
                1 => rows::<1>(g, padded, pw, taps, sums, oy),
                2 => rows::<2>(g, padded, pw, taps, sums, oy),
                3 => rows::<3>(g, padded, pw, taps, sums, oy),
                4 => rows::<4>(g, padded, pw, taps, sums, oy),
                5 => rows::<5>(g, padded, pw, taps, sums, oy),
                6 => rows::<6>(g, padded, pw, taps, sums, oy),
                7 => rows::<7>(g, padded, pw, taps, sums, oy),
                _ => {}
            }
        }
    }

    /// Output rows `oy..oy + R` of [`sums`].
    ///
    /// # Safety
    /// As [`sums`], with `oy + R ≤ oh`.
    #[inline]
    #[target_feature(enable = "avx512f")]
    unsafe fn rows<const R: usize>(g: &Geom, padded: &[f32], pw: usize, taps: &[f32], sums: &mut [f32], oy: usize) {
        let ([sh, sw], [dh, dw]) = (g.strides, g.dilations);
        let even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
        let base = padded.as_ptr();
        for ox in (0..g.ow).step_by(16) {
            let n = (g.ow - ox).min(16);
            let mask: __mmask16 = if n == 16 { 0xffff } else { (1 << n) - 1 };
            let mut acc = [_mm512_setzero_ps(); R];
            for u in 0..g.kh {
                for v in 0..g.kw {
                    let w = _mm512_set1_ps(taps[u * g.kw + v]);
                    for (r, a) in acc.iter_mut().enumerate() {
                        let at = ((oy + r) * sh + u * dh) * pw + ox * sw + v * dw;
                        debug_assert!(at + 16 * sw <= padded.len());
                        // SAFETY: inside the padded plane with its slack (the caller).
                        let x = unsafe {
                            if sw == 1 {
                                _mm512_loadu_ps(base.add(at))
                            } else {
                                let (a, b) = (_mm512_loadu_ps(base.add(at)), _mm512_loadu_ps(base.add(at + 16)));
                                _mm512_permutex2var_ps(a, even, b)
                            }
                        };
                        *a = _mm512_fmadd_ps(w, x, *a);
                    }
                }
            }
            for (r, a) in acc.iter().enumerate() {
                // SAFETY: the n sums of row oy + r from ox, inside the plane.
                unsafe { _mm512_mask_storeu_ps(sums.as_mut_ptr().add((oy + r) * g.ow + ox), mask, *a) };
            }
        }
    }

    /// `to[i] = x[i] as f32 − zero`, 16 at a time.
    ///
    /// # Safety
    /// AVX-512F, BW and VL; `x.len() == to.len()`.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl")]
    pub(super) unsafe fn widen(x: &[u8], zero: f32, to: &mut [f32]) {
        let z = _mm512_set1_ps(zero);
        for c0 in (0..x.len()).step_by(16) {
            let n = (x.len() - c0).min(16);
            let mask: __mmask16 = if n == 16 { 0xffff } else { (1 << n) - 1 };
            // SAFETY: n bytes and n floats from c0, inside both slices.
            unsafe {
                let b = _mm_maskz_loadu_epi8(mask, x.as_ptr().add(c0).cast());
                let v = _mm512_sub_ps(_mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(b)), z);
                _mm512_mask_storeu_ps(to.as_mut_ptr().add(c0), mask, v);
            }
        }
    }

    /// [`super::QuantizedDepthwise::requantize`] with folded constants, 16 at a time.
    ///
    /// # Safety
    /// AVX-512F, BW and VL; `out.len() == sums.len()`.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl")]
    pub(super) unsafe fn requantize_folded(sums: &[f32], rq: &Requantizer, out: &mut [u8]) {
        let rq = RequantizerLanes::new(rq);
        for c0 in (0..sums.len()).step_by(16) {
            let n = (sums.len() - c0).min(16);
            let mask: __mmask16 = if n == 16 { 0xffff } else { (1 << n) - 1 };
            // SAFETY: n floats from c0 inside `sums`, n bytes inside `out`; the sums are
            // integers below 2^24, converted exactly.
            unsafe {
                let s = _mm512_cvtps_epi32(_mm512_maskz_loadu_ps(mask, sums.as_ptr().add(c0)));
                store_low_bytes_avx512(out.as_mut_ptr().add(c0), 1, n, mask, rq.apply(s));
            }
        }
    }

    /// [`super::QuantizedDepthwise::requantize`], 16 at a time, with the quantization of
    /// `quantize_lanes_avx512` and the clamp's selects of `activation::clamp_value`.
    ///
    /// # Safety
    /// AVX-512F, BW and VL; `out.len() == sums.len()`.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl")]
    pub(super) unsafe fn requantize(
        sums: &[f32],
        scale: f32,
        bias: f32,
        (lo, hi): (f32, f32),
        output: &QuantParams,
        (min, max): (f32, f32),
        out: &mut [u8],
    ) {
        let (scale, bias) = (_mm512_set1_ps(scale), _mm512_set1_ps(bias));
        let (lo, hi) = (_mm512_set1_ps(lo), _mm512_set1_ps(hi));
        let (oscale, ozero) = (_mm512_set1_ps(output.scale), _mm512_set1_ps(output.zero_point as f32));
        let (min, max) = (_mm512_set1_ps(min), _mm512_set1_ps(max));
        for c0 in (0..sums.len()).step_by(16) {
            let n = (sums.len() - c0).min(16);
            let mask: __mmask16 = if n == 16 { 0xffff } else { (1 << n) - 1 };
            // SAFETY: n floats from c0 inside `sums`.
            let s = unsafe {
                if n == 16 {
                    _mm512_loadu_ps(sums.as_ptr().add(c0))
                } else {
                    _mm512_maskz_loadu_ps(mask, sums.as_ptr().add(c0))
                }
            };
            let y = _mm512_min_ps(hi, _mm512_max_ps(lo, _mm512_add_ps(_mm512_mul_ps(s, scale), bias)));
            // SAFETY: AVX-512F (this function's features); NaN is possible only from
            // parameters, tested for every lane.
            let q = unsafe { quantize_lanes_avx512(y, oscale, ozero, min, max, true) };
            // SAFETY: the n bytes from c0 inside `out`; AVX-512F, BW and VL.
            unsafe { store_low_bytes_avx512(out.as_mut_ptr().add(c0), 1, n, mask, q) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "x86_64")]
    use crate::kernels::quantized_depthwise_small::SmallPlanes;

    /// The scalar code (CPUs without AVX-512), the AVX-512 float code and the VNNI integer
    /// code give the same bytes (with the spec's division, and folded: within one step of
    /// it), on strides 1 and 2, dilations, odd widths and heights, padding and a clamp (the
    /// input is uint8: `compile::quantized` takes only that); the scalar code is checked
    /// against the integer reference through graphs in compile/quantized_tests.rs.
    #[test]
    fn scalar_and_vector_code_agree() {
        let cases = [
            // (stride, dilation, pad, k, h, w)
            (1, 1, 1, 3, 11, 37),
            (2, 1, 1, 3, 11, 33),
            (2, 1, 2, 5, 9, 9),
            (1, 1, 0, 3, 3, 3),
            (1, 2, 2, 3, 13, 40),
            (2, 1, 1, 3, 16, 70),
            (1, 1, 3, 7, 10, 17),
            (1, 1, 2, 5, 12, 50),
            (1, 1, 1, 3, 4, 16),
            // Rows of at most 8 outputs, 14 at stride 2 (`quantized_depthwise_small`):
            // MobileNet's 7 × 7 and 14 × 14 stages (14 × 14 at stride 1 stays on the row
            // kernel), 5 × 5, a 7 × 7 window (13 tap groups), dilation, and a plane whose runs'
            // windows exceed 128 bytes (12 × 27, 5 × 5 at stride 2: the row kernel).
            (1, 1, 1, 3, 7, 7),
            (1, 1, 1, 3, 14, 14),
            (2, 1, 1, 3, 14, 14),
            (2, 1, 2, 5, 9, 13),
            (1, 1, 3, 7, 10, 8),
            (1, 2, 2, 3, 10, 8),
            (2, 1, 2, 5, 12, 27),
            (1, 1, 1, 3, 30, 6),
        ];
        let mut small_planes = 0;
        for (stride, dilation, pad, k, h, w) in cases {
            let c = 3;
            let oh = (h + 2 * pad - dilation * (k - 1) - 1) / stride + 1;
            let ow = (w + 2 * pad - dilation * (k - 1) - 1) / stride + 1;
            let g = Geom {
                n: 1,
                cin: c,
                h,
                w,
                cout: c,
                oh,
                ow,
                kh: k,
                kw: k,
                groups: c,
                strides: [stride, stride],
                dilations: [dilation, dilation],
                padding: [pad; 4],
                nhwc: false,
            };
            let mut rng = webnn_core::testing::Rng::new(5);
            let weights: Vec<i8> = (0..c * k * k).map(|_| rng.int(-128, 127) as i8).collect();
            let x: Vec<u8> = (0..c * h * w).map(|_| rng.int(0, 255) as u8).collect();
            let input = QuantParams { scale: 0.02, zero_point: 100, data_type: DataType::Uint8 };
            let (scales, bias) = (vec![0.001, 0.002, 0.0005], vec![0.5, -1.0, 0.0]);
            let output = QuantParams { scale: 0.03, zero_point: 5, data_type: DataType::Uint8 };
            let fold = |c: usize| Requantizer::fold(scales[c], bias[c], (0.0, 6.0), 0.03, 5, DataType::Uint8).unwrap();
            let small = |on: bool| if on { SmallPlanes::new(&g, &weights, 100) } else { None };
            let kernel = |avx512bw: bool, avx2: bool, integer: bool, folded: bool| QuantizedDepthwise {
                g,
                weights: weights.iter().map(|&w| w as f32).collect(),
                scales: scales.clone(),
                bias: bias.clone(),
                lo: 0.0,
                hi: 6.0,
                input,
                output,
                avx512bw,
                avx2,
                avx2_plane: false,
                vnni: integer.then(|| VnniTaps::new(k, k, [stride, dilation], &weights, 100).unwrap()),
                #[cfg(target_arch = "x86_64")]
                small: None,
                folded: folded.then(|| (0..c).map(fold).collect()),
            };
            let run = |k: QuantizedDepthwise| {
                let (_, padded_len) = k.padded_dims();
                let fill = k.vnni.as_ref().map_or(0, |t| t.zero);
                let mut scratch = Scratch {
                    floats: vec![0.0; padded_len],
                    bytes: vec![fill; padded_len],
                    sums: vec![0.0; oh * ow],
                    padded_for: None,
                };
                let mut y = vec![0u8; c * oh * ow];
                for (ch, yc) in y.chunks_exact_mut(oh * ow).enumerate() {
                    k.plane(ch, &x[ch * h * w..][..h * w], yc, &mut scratch);
                }
                y
            };
            let what = format!("stride {stride} dilation {dilation} pad {pad} k {k} {h}x{w}");
            // The reference: the integer sums by a straightforward loop (exact), then the
            // spec's requantization in f32 (`sum · scale + bias`, clamped, quantizeLinear).
            let mut reference = vec![0u8; c * oh * ow];
            for ch in 0..c {
                for (oy, ox) in (0..oh).flat_map(|oy| (0..ow).map(move |ox| (oy, ox))) {
                    let mut sum = 0i64;
                    for (u, v) in (0..k).flat_map(|u| (0..k).map(move |v| (u, v))) {
                        let (y, x0) = (
                            (oy * stride + u * dilation) as isize - pad as isize,
                            (ox * stride + v * dilation) as isize - pad as isize,
                        );
                        if (0..h as isize).contains(&y) && (0..w as isize).contains(&x0) {
                            let xv = x[ch * h * w + y as usize * w + x0 as usize] as i64 - 100;
                            sum += xv * weights[ch * k * k + u * k + v] as i64;
                        }
                    }
                    let v = crate::kernels::activation::clamp_value(sum as f32 * scales[ch] + bias[ch], 0.0, 6.0);
                    reference[ch * oh * ow + oy * ow + ox] = quantize_one(v, 0.03f32, 5u8);
                }
            }
            // The spec's division, and the folded requantization.
            let (divided, folded) = (run(kernel(false, false, false, false)), run(kernel(false, false, false, true)));
            assert!(divided.iter().any(|&v| v != divided[0]), "a degenerate case");
            assert_eq!(divided, reference, "scalar, {what}");
            assert!(divided.iter().zip(&folded).all(|(&a, &b)| a.abs_diff(b) <= 1), "folded, {what}");
            #[cfg(target_arch = "x86_64")]
            if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma") {
                assert_eq!(run(kernel(false, true, false, false)), divided, "AVX2, {what}");
                assert_eq!(run(kernel(false, true, false, true)), folded, "AVX2 folded, {what}");
                let (pw, padded_len) = kernel(false, true, false, true).padded_dims();
                assert!(super::super::quantized_depthwise_avx2::fits(&g, pw, padded_len), "{what}");
                let plane = QuantizedDepthwise { avx2_plane: true, ..kernel(false, true, false, true) };
                assert_eq!(run(plane), folded, "AVX2 register plane, {what}");
            }
            #[cfg(target_arch = "x86_64")]
            if crate::kernels::unary::has_avx512() && std::is_x86_feature_detected!("avx512bw") {
                assert_eq!(run(kernel(true, false, false, false)), divided, "AVX-512 float, {what}");
                assert_eq!(run(kernel(true, false, false, true)), folded, "AVX-512 float folded, {what}");
            }
            if vnni::available() {
                assert_eq!(run(kernel(true, false, true, true)), folded, "VNNI, {what}");
                #[cfg(target_arch = "x86_64")]
                let too_wide = (stride, h, w) == (2, 12, 27);
                let wide = ow > if stride == 1 { 8 } else { 14 };
                assert_eq!(small(true).is_none(), wide || too_wide, "small planes taken, {what}");
                if let Some(s) = small(true) {
                    small_planes += 1;
                    let with_small = QuantizedDepthwise { small: Some(s), ..kernel(true, false, true, true) };
                    assert_eq!(run(with_small), folded, "VNNI small planes, {what}");
                }
            }
        }
        if vnni::available() {
            assert_eq!(small_planes, 8, "the cases the small-plane path takes");
        }
    }
}

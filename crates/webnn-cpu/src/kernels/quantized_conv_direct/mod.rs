//! The quantized conv2d with a window (or a stride), computed directly: no im2col matrix and
//! no packed copy of it. The integer twin of [`super::conv_direct`], in AVX-512 VNNI or, on
//! CPUs without it, AVX2 (`avx2.rs`).
//!
//! im2col + the int8 GEMM ([`super::quantized`]) writes a `cin·kh·kw × pixels` byte matrix,
//! then packs it again into the GEMM's panels; on ResNet-50 int8 those two passes took 19 %
//! of the model (perf, Zen 5), the GEMM's tiles 55 %. Here:
//!
//! - The input is copied once per image into a padded, channel-interleaved buffer of 32-bit
//!   words (`[cin/4 or cin/2][h + pads][w + pads]`): with VNNI a word holds four consecutive input
//!   channels of one padded pixel as bytes, with AVX2 two as 16-bit values (the operands of
//!   `vpmaddwd`, widened once here rather than per product). The padding is the input's zero
//!   point (the real value 0, as the float conv pads), channels past cin in the last word too
//!   (their weights are 0).
//! - A tap is (channel word, kh, kw): for output pixel (oh, ow) it reads the word at
//!   `tap + (oh·sH)·pitch + ow·sW`, any stride and dilation.
//! - The sums are pixel-major, as [`super::conv_direct`] keeps them: 16 output channels of one
//!   pixel in one zmm (two ymm halves on AVX2). VNNI: per tap, CB weight vectors (16 channels ×
//!   4 input channels of int8) and P input words (broadcast) feed CB·P `vpdpbusd` (u8 input ×
//!   s8 weight, four products added into each i32 lane): 4 × 6 sums in registers, 10 loads per
//!   24 `vpdpbusd`. AVX2 (`avx2.rs`): one block × 6 pixels, 12 ymm sums; per tap 2 weight
//!   vectors (8 channels × 2 input channels of i16 each) and 6 broadcast words feed 12
//!   `vpmaddwd` + 12 `vpaddd` (the shape of the AVX2 float kernel). The P pixels of a tile run
//!   on across output rows (each through its own pointer), so 7×7 outputs waste no lanes (the
//!   GEMM's 48-column panels computed 64 columns for 49 pixels; on AVX2, 96).
//! - The taps come [`CHUNK_TAPS`] at a time (a chunk's weights, 16 KiB, stay in L1 while a
//!   run of pixels is computed); between chunks the sums wait in the run's buffer. On VNNI the
//!   first tile of a chunk prefetches the next chunk's weights, a tap ahead per tap (ResNet-50
//!   int8, 1 thread: 512→512 on 7² 0.42 → 0.38–0.39 ms, on 14² stride 2 0.46–0.48 →
//!   0.40–0.41, the model 15.6 → 14.3–14.9 ms).
//! - After the last chunk, register transposes (16×16, or 8×8 on AVX2) turn pixels × channels
//!   of sums into channel rows; each row gets the GEMM path's folded requantization
//!   ([`Requantizer`], per channel) of `sum − x_zero · Σw` and its low bytes are stored into
//!   the nchw plane.
//!
//! The sums are the same integers as the GEMM's (exact, no saturation: |w| ≤ 128, x ≤ 255,
//! cin·kh·kw ≤ [`super::int8_gemm::MAX_DEPTH`]; on AVX2 a `vpmaddwd` pair is at most
//! 2 · 255 · 128, inside its i32 lane), the requantization the same operations, so the output
//! bytes are the GEMM path's. Only the folded requantization is taken (parameters that do not
//! fold keep the GEMM path).

mod avx2;

use super::conv::Geom;
use super::conv_direct::{balanced_runs, OutPlanes, RunTask, GROUP, GROUP_BLOCKS};
use super::depthwise_blocked::avx512::transpose16;
use super::int8_gemm::{Isa, MAX_DEPTH};
use super::quantize::store_low_bytes_avx512;
use super::requantize::{Requantizer, RequantizerLanes};
use super::scratch::grow;
use crate::memory::AlignedBuf;
use std::arch::x86_64::*;
use webnn_core::{Error, Result};

/// Output channels per register.
const LANES: usize = 16;
/// Bytes of one tap of one block of weights: 16 channels × 4 input channels of int8 (VNNI) or
/// × 2 of i16 (AVX2).
const TAP_BYTES: usize = LANES * 4;
/// Taps per chunk: 4 blocks × 64 taps of weights are 16 KiB.
const CHUNK_TAPS: usize = 64;

/// Fewest taps (channel words × window) taken. VNNI: a first conv with 3 input channels and a
/// 3×3 window (9 taps, a quarter of each wasted on the missing fourth channel) ran slower here
/// than on im2col + the GEMM (MobileNetV2's 3→32 stride 2 on 224²: 0.11 → 0.16 ms; YOLOv8n's
/// 3→16 on 320²: 0.18 → 0.20), ResNet's 7×7 stem (49 taps) faster (0.79 → 0.63). AVX2 (two
/// channels a word, so 18 taps for those first convs): all three faster here (Zen 3, 1 thread:
/// 0.77–1.12 → 0.55–0.65 ms, 0.91–1.39 → 0.77, the stem 5.75 → 3.76).
const MIN_TAPS: usize = 16;

/// The instruction set this kernel runs `g` with on this CPU — AVX-512 VNNI where the CPU has
/// it, else AVX2 — or None where it does not take `g`: it needs groups 1, nchw, a window (not
/// 1×1) and [`MIN_TAPS`] taps.
///
/// 1×1 convs stay on the GEMM: unstrided it reads the input as it is; strided, the padded
/// buffer here would interleave every input pixel where the GEMM's im2col copies a quarter of
/// them (ResNet-50's 1024→2048 1×1 stride 2 on 14²: 0.50 ms on the GEMM, 0.54–0.60 here).
/// On 7×7 planes, where the GEMM's 48-column panels compute 64 columns for 49 pixels, the
/// unstrided 1×1 convs measured no faster here either (512→2048: 0.24–0.27 ms against
/// 0.27–0.28).
pub(super) fn isa_for(g: &Geom) -> Option<Isa> {
    Some(Isa::best()).filter(|&isa| takes(g, isa))
}

/// Input channels per 32-bit word of the padded buffer (and per lane of a weight vector).
fn per_word(isa: Isa) -> usize {
    if isa.wide() {
        2
    } else {
        4
    }
}

/// Whether `g` fits the kernel on `isa` (whether or not this CPU has it).
fn takes(g: &Geom, isa: Isa) -> bool {
    let taps = g.cin.div_ceil(per_word(isa)) * g.kk();
    isa != Isa::Portable
        && !g.nhwc
        && g.groups == 1
        && g.kk() > 1
        && (MIN_TAPS..=MAX_DEPTH / per_word(isa)).contains(&taps)
        && g.oh > 0
        && g.ow > 0
}

/// The padded input's shape: (rows, pitch) of one channel word's plane, in words.
fn padded_dims(g: &Geom) -> (usize, usize) {
    (g.h + g.padding[0] + g.padding[1], g.w + g.padding[2] + g.padding[3])
}

/// The filter regrouped for this kernel: block b (output channels 16b..16b + 16) as
/// `[tap][16 channels][4 input channels]` int8 (VNNI) or `[tap][16 channels][2 input
/// channels]` i16 (AVX2), zero past cout and cin; the sum of each output channel's weights (for
/// the zero-point correction); the requantization of each channel.
pub(super) struct DirectFilterI8 {
    /// The instruction set whose layout `data` holds.
    isa: Isa,
    data: AlignedBuf,
    /// Taps (channel word, kh, kw) in all.
    taps: usize,
    /// `Σ w` of each output channel.
    sums: Vec<i32>,
    /// The folded requantization of each output channel.
    requant: Vec<Requantizer>,
}

impl DirectFilterI8 {
    /// Regroups `w` (`[cout][cin][kh][kw]` int8) for `g` in the layout of `isa` (AVX-512 VNNI
    /// or AVX2), with each channel's folded requantization.
    pub(super) fn new(g: &Geom, w: &[i8], requant: Vec<Requantizer>, isa: Isa) -> Result<DirectFilterI8> {
        let depth = g.cin * g.kk();
        if w.len() != g.cout * depth || requant.len() != g.cout {
            return Err(Error::operation("conv2d (int8): weights or requantization do not match the shapes"));
        }
        if !takes(g, isa) {
            return Err(Error::operation(format!("conv2d (int8): the direct kernel does not take {g:?} on {isa:?}")));
        }
        let per = per_word(isa);
        let taps = g.cin.div_ceil(per) * g.kk();
        let blocks = g.cout.div_ceil(LANES);
        let len = blocks
            .checked_mul(taps)
            .and_then(|n| n.checked_mul(TAP_BYTES))
            .ok_or_else(|| Error::operation("conv2d (int8): the filter is too large"))?;
        let mut data = AlignedBuf::try_zeroed(len, "conv2d (int8): the regrouped filter")?;
        let bytes = data.as_bytes_mut();
        // Each weight's bytes: one int8, or the two of its i16 (little-endian, sign-extended).
        let elem = 4 / per;
        for (co, row) in w.chunks_exact(depth).enumerate() {
            let (b, lane) = (co / LANES, co % LANES);
            for ci in 0..g.cin {
                for k in 0..g.kk() {
                    let tap = (ci / per) * g.kk() + k;
                    let at = (b * taps + tap) * TAP_BYTES + lane * 4 + (ci % per) * elem;
                    let v = i16::from(row[ci * g.kk() + k]).to_le_bytes();
                    bytes[at..at + elem].copy_from_slice(&v[..elem]);
                }
            }
        }
        let sums = w.chunks_exact(depth).map(|row| row.iter().map(|&v| i32::from(v)).sum()).collect();
        Ok(DirectFilterI8 { isa, data, taps, sums, requant })
    }
}

/// The conv2d of a geometry [`isa_for`] takes: input `x` (uint8 nchw, zero point `x_zero`),
/// `out` the uint8 or int8 nchw output bytes. `padded` is this kernel's scratch.
pub(super) fn conv(
    g: &Geom,
    x: &[u8],
    x_zero: u8,
    filter: &DirectFilterI8,
    padded: &mut Vec<u32>,
    out: &mut [u8],
) -> Result<()> {
    let isa = filter.isa;
    if !takes(g, isa) || !isa.available() {
        return Err(Error::unknown(format!("conv2d (int8): the direct kernel cannot run {g:?} on {isa:?} here")));
    }
    let (plane, oplane) = (g.h * g.w, g.oh * g.ow);
    if x.len() < g.n * g.cin * plane || out.len() < g.n * g.cout * oplane {
        return Err(Error::operation("conv2d (int8): input or output shorter than the shapes"));
    }
    let words = g.cin.div_ceil(per_word(isa));
    let (rows, pitch) = padded_dims(g);
    let qplane = rows * pitch;
    grow(padded, words * qplane)?;
    // Where tap (word, kh, kw) reads, relative to an output pixel's base.
    let mut taps: Vec<usize> = Vec::new();
    grow(&mut taps, filter.taps)?;
    for (t, tap) in taps.iter_mut().enumerate() {
        let (q, k) = (t / g.kk(), t % g.kk());
        *tap = q * qplane + (k / g.kw) * g.dilations[0] * pitch + (k % g.kw) * g.dilations[1];
    }
    let k = filter.taps;
    let blocks = g.cout.div_ceil(LANES);
    let groups = blocks.div_ceil(GROUP_BLOCKS);
    // About two tasks per thread; a run's sums (4 blocks) under 128 KiB.
    let threads = crate::par::threads_for_macs(g.n * g.cout * oplane * k);
    let max_run = 128 * 1024 / (4 * GROUP) - 2 * LANES;
    let fewest = (2 * threads).div_ceil(groups).max(oplane.div_ceil(max_run)).clamp(1, oplane);
    let (runs, run_len) = balanced_runs(oplane, fewest, groups, threads);
    for n in 0..g.n {
        let image = &x[n * g.cin * plane..][..g.cin * plane];
        crate::par::chunks_on(threads, &mut padded[..words * qplane], qplane, |q, words| {
            // SAFETY: `isa` is available (checked above): AVX-512F and BW with VNNI, else AVX2.
            unsafe {
                match isa {
                    Isa::Avx512Vnni => fill_quad(g, image, q, x_zero, words),
                    _ => avx2::fill_pair(g, image, q, x_zero, words),
                }
            }
        });
        let padded = &padded[..words * qplane];
        let planes_out = OutPlanes(out[n * g.cout * oplane..][..g.cout * oplane].as_mut_ptr());
        crate::par::try_range_on(threads, groups * runs, |task| -> Result<()> {
            let task = RunTask::of(task, runs, run_len, oplane, g.cout);
            let RunTask { co0, channels, blocks: cb, stride, .. } = task;
            let pixels = task.pixels.clone();
            let (mut sums_buf, skip) = task.sums_buffer::<i32>()?;
            let sums = &mut sums_buf[skip..][..cb * stride * LANES];
            let bases = task.bases(|p| (p / g.ow) * g.strides[0] * pitch + (p % g.ow) * g.strides[1])?;
            let tiles = Tiles {
                x: padded.as_ptr(),
                w: filter.data.as_bytes()[co0 / LANES * k * TAP_BYTES..].as_ptr(),
                k,
                stride,
            };
            for t0 in (0..k).step_by(CHUNK_TAPS) {
                let chunk = &taps[t0..(t0 + CHUNK_TAPS).min(k)];
                // SAFETY: `isa` is available (checked above); every tap of every output pixel
                // (and of the overrun, which repeats the last pixel) reads inside the padded
                // buffer (the output size fits the padded input); the weights of the group's
                // cb blocks; the run's sums (the overrun inside `bases` and `stride`).
                unsafe {
                    let s = sums.as_mut_ptr();
                    match (isa, cb) {
                        (Isa::Avx512Vnni, 4) => tiles.run::<4, 6>(&bases, pixels.len(), t0, chunk, s),
                        (Isa::Avx512Vnni, 3) => tiles.run::<3, 8>(&bases, pixels.len(), t0, chunk, s),
                        (Isa::Avx512Vnni, 2) => tiles.run::<2, 12>(&bases, pixels.len(), t0, chunk, s),
                        (Isa::Avx512Vnni, _) => tiles.run::<1, 12>(&bases, pixels.len(), t0, chunk, s),
                        _ => avx2::run(&tiles, cb, &bases, pixels.len(), t0, chunk, s),
                    }
                }
            }
            let channels = co0..co0 + channels;
            // SAFETY: `isa` is available; pixels `pixels` of planes `channels` belong to this
            // task; the sums hold whole 16-pixel vectors.
            unsafe {
                match isa {
                    Isa::Avx512Vnni => store(sums, stride, filter, x_zero, channels, planes_out, oplane, pixels),
                    _ => avx2::store(sums, stride, filter, x_zero, channels, planes_out, oplane, pixels),
                }
            }
            Ok(())
        })?;
    }
    Ok(())
}

/// Fills channel quad `q`'s padded plane `words` (`rows × pitch`): word (r, c) holds input
/// channels 4q..4q + 4 at pixel (r − top, c − left), or the zero point in the padding and
/// for channels past cin.
///
/// # Safety
/// The CPU has AVX-512F, BW and VL.
#[target_feature(enable = "avx512f,avx512bw,avx512vl")]
unsafe fn fill_quad(g: &Geom, image: &[u8], q: usize, x_zero: u8, words: &mut [u32]) {
    let zero_word = u32::from_ne_bytes([x_zero; 4]);
    let (rows, pitch) = padded_dims(g);
    let (top, left) = (g.padding[0], g.padding[2]);
    let plane = g.h * g.w;
    let zero = _mm_set1_epi8(x_zero as i8);
    for (r, row) in words[..rows * pitch].chunks_exact_mut(pitch).enumerate() {
        let Some(ih) = r.checked_sub(top).filter(|&ih| ih < g.h) else {
            row.fill(zero_word);
            continue;
        };
        row[..left].fill(zero_word);
        row[left + g.w..].fill(zero_word);
        // The four channels' input rows (the zero point's row past cin).
        let src: [Option<&[u8]>; 4] = std::array::from_fn(|j| {
            let c = 4 * q + j;
            (c < g.cin).then(|| &image[c * plane + ih * g.w..][..g.w])
        });
        let dst = &mut row[left..left + g.w];
        for c0 in (0..g.w).step_by(16) {
            let n = (g.w - c0).min(16);
            let mask = ((1u32 << n) - 1) as u16;
            let mut v = _mm512_setzero_si512();
            for (j, s) in src.iter().enumerate() {
                let bytes = match s {
                    // SAFETY: the masked load reads bytes c0..c0 + n of the row only.
                    Some(s) => unsafe { _mm_maskz_loadu_epi8(mask, s.as_ptr().add(c0).cast()) },
                    None => zero,
                };
                let wide = _mm512_cvtepu8_epi32(bytes);
                v = _mm512_or_si512(
                    v,
                    match j {
                        0 => wide,
                        1 => _mm512_slli_epi32::<8>(wide),
                        2 => _mm512_slli_epi32::<16>(wide),
                        _ => _mm512_slli_epi32::<24>(wide),
                    },
                );
            }
            // SAFETY: the masked store writes words c0..c0 + n of the row's interior only.
            unsafe { _mm512_mask_storeu_epi32(dst.as_mut_ptr().add(c0).cast(), mask, v) };
        }
    }
}

/// A run's sums `[block][pixel][16]` (blocks `stride` vectors apart), transposed into channel
/// rows, zero-point corrected, requantized, into pixels `pixels` of planes `channels`.
///
/// # Safety
/// AVX-512F, BW and VL; those pixels of those planes belong to the caller; `sums` holds
/// whole 16-pixel vectors past `pixels.len()`.
#[allow(clippy::too_many_arguments)]
#[target_feature(enable = "avx512f,avx512bw,avx512vl")]
unsafe fn store(
    sums: &[i32],
    stride: usize,
    filter: &DirectFilterI8,
    x_zero: u8,
    channels: std::ops::Range<usize>,
    y: OutPlanes<u8>,
    oplane: usize,
    pixels: std::ops::Range<usize>,
) {
    let x_zero = i32::from(x_zero);
    for c in 0..channels.len().div_ceil(LANES) {
        let co0 = channels.start + c * LANES;
        let n = (channels.end - co0).min(LANES);
        // Each channel's requantization and zero-point correction (the block's last channel
        // again past n, never used).
        let lanes: [(RequantizerLanes, __m512i); LANES] = std::array::from_fn(|j| {
            let co = co0 + j.min(n - 1);
            // No overflow: |Σw| ≤ 128 · MAX_DEPTH and x_zero ≤ 255 (int8_gemm, Limits).
            (RequantizerLanes::new(&filter.requant[co]), _mm512_set1_epi32(x_zero * filter.sums[co]))
        });
        for q0 in (0..pixels.len()).step_by(LANES) {
            let count = (pixels.len() - q0).min(LANES);
            let mask = ((1u32 << count) - 1) as u16;
            let v = &sums[(c * stride + q0) * LANES..][..LANES * LANES];
            // SAFETY: 16 vectors inside the run's sums.
            let cols: [__m512; 16] = std::array::from_fn(|i| unsafe {
                _mm512_castsi512_ps(_mm512_loadu_si512(v.as_ptr().add(i * LANES).cast()))
            });
            let rows = transpose16(cols);
            for (j, (rq, corr)) in lanes.iter().enumerate().take(n) {
                let q = rq.apply(_mm512_sub_epi32(_mm512_castps_si512(rows[j]), *corr));
                // SAFETY (caller): pixels pixels.start + q0.. (count of them) of plane co0 + j.
                unsafe { store_low_bytes_avx512(y.at((co0 + j) * oplane + pixels.start + q0), 1, count, mask, q) };
            }
        }
    }
}

/// What the tiles of a channel group read.
struct Tiles {
    /// The padded buffer, one word per padded pixel and channel quad.
    x: *const u32,
    /// The group's weights: block c at `c·k·64` bytes, as [tap][16][4].
    w: *const u8,
    /// Taps in all.
    k: usize,
    /// Vectors per block of the run's sums.
    stride: usize,
}

impl Tiles {
    /// Adds taps `t0..t0 + taps.len()` of a run's `n` output pixels, whose taps read from
    /// `bases`, to their sums (`[block][pixel][16]`; zero first when `t0 == 0`), P pixels at
    /// a time (the last tile's overrun reads `bases` past `n`; its sums are never stored).
    ///
    /// # Safety
    /// AVX-512F, BW and VNNI; `bases` holds `n + P - 1` offsets; every `taps[t] + bases[i]`
    /// lies inside `x`; `w` holds CB blocks of `k` taps; `sums` holds CB blocks of
    /// `stride ≥ n + P - 1` vectors.
    #[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
    unsafe fn run<const CB: usize, const P: usize>(
        &self,
        bases: &[usize],
        n: usize,
        t0: usize,
        taps: &[usize],
        sums: *mut i32,
    ) {
        // The first tile also fetches the next chunk's weights into L1 (a tap ahead per tap),
        // so that the chunk's later tiles, and the next chunk, find them there.
        let next_chunk = t0 + taps.len() < self.k;
        for p0 in (0..n).step_by(P) {
            let base: [usize; P] = bases[p0..p0 + P].try_into().expect("P bases");
            // SAFETY (caller): as documented.
            unsafe {
                if p0 == 0 && next_chunk {
                    self.tile::<CB, P, true>(base, t0, taps, sums.add(p0 * LANES))
                } else {
                    self.tile::<CB, P, false>(base, t0, taps, sums.add(p0 * LANES))
                }
            }
        }
    }

    /// The sums of the P pixels whose taps read from `base`, CB blocks, taps `t0..`.
    ///
    /// # Safety
    /// As [`Tiles::run`].
    #[inline(always)]
    #[allow(clippy::needless_range_loop)] // (block, pixel) index the register tile
    unsafe fn tile<const CB: usize, const P: usize, const PREFETCH: bool>(
        &self,
        base: [usize; P],
        t0: usize,
        taps: &[usize],
        sums: *mut i32,
    ) {
        // SAFETY (caller): AVX-512F, here and in the `vpdpbusd`s below (this is inlined into
        // the target-feature function `run`).
        let mut acc = [[unsafe { _mm512_setzero_si512() }; P]; CB];
        if t0 > 0 {
            for c in 0..CB {
                for p in 0..P {
                    // SAFETY (caller): inside the run's sums.
                    acc[c][p] = unsafe { _mm512_load_si512(sums.add((c * self.stride + p) * LANES).cast()) };
                }
            }
        }
        let xs: [*const u32; P] = base.map(|b| self.x.wrapping_add(b));
        // SAFETY (caller): the weights of tap t0.. of each block.
        let mut w = unsafe { self.w.add(t0 * TAP_BYTES) };
        for &tap in taps {
            // SAFETY (caller): the weights inside the group's blocks (64-byte aligned: the
            // buffer is, and every tap is 64 bytes).
            let wv: [__m512i; CB] =
                std::array::from_fn(|c| unsafe { _mm512_load_si512(w.add(c * self.k * TAP_BYTES).cast()) });
            if PREFETCH {
                for c in 0..CB {
                    let ahead = w.wrapping_add(c * self.k * TAP_BYTES + CHUNK_TAPS * TAP_BYTES);
                    // SAFETY: a hint, which never faults whatever the address (SSE, which
                    // AVX-512F implies).
                    unsafe { _mm_prefetch::<_MM_HINT_T0>(ahead.cast()) };
                }
            }
            for p in 0..P {
                // SAFETY (caller): the input word inside the padded buffer.
                let xv = unsafe { _mm512_set1_epi32(xs[p].add(tap).read() as i32) };
                for c in 0..CB {
                    // u8 input × s8 weights, four products per lane into the i32 sum (exact:
                    // see the module documentation).
                    acc[c][p] = unsafe { _mm512_dpbusd_epi32(acc[c][p], xv, wv[c]) };
                }
            }
            w = w.wrapping_add(TAP_BYTES);
        }
        for c in 0..CB {
            for p in 0..P {
                // SAFETY (caller): inside the run's sums.
                unsafe { _mm512_store_si512(sums.add((c * self.stride + p) * LANES).cast(), acc[c][p]) };
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use webnn_core::DataType;

    /// A small deterministic generator (xorshift).
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn byte(&mut self) -> u8 {
            (self.next() >> 32) as u8
        }
        fn unit(&mut self) -> f32 {
            (self.next() >> 40) as f32 / (1u64 << 24) as f32
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn geom(
        n: usize,
        (cin, h, w): (usize, usize, usize),
        cout: usize,
        (kh, kw): (usize, usize),
        strides: [usize; 2],
        dilations: [usize; 2],
        padding: [usize; 4],
    ) -> Geom {
        let out =
            |len: usize, k: usize, s: usize, d: usize, pb: usize, pe: usize| (len + pb + pe - d * (k - 1) - 1) / s + 1;
        Geom {
            n,
            cin,
            h,
            w,
            cout,
            oh: out(h, kh, strides[0], dilations[0], padding[0], padding[1]),
            ow: out(w, kw, strides[1], dilations[1], padding[2], padding[3]),
            kh,
            kw,
            groups: 1,
            strides,
            dilations,
            padding,
            nhwc: false,
        }
    }

    /// The straightforward conv: for each output, Σ (x − x_zero)·w over the window in i64
    /// (the padding reads x_zero), then the scalar requantization.
    fn reference(g: &Geom, x: &[u8], x_zero: u8, w: &[i8], rq: &[Requantizer]) -> Vec<u8> {
        let mut y = vec![0u8; g.n * g.cout * g.oh * g.ow];
        for n in 0..g.n {
            for co in 0..g.cout {
                for oh in 0..g.oh {
                    for ow in 0..g.ow {
                        let mut s = 0i64;
                        for ci in 0..g.cin {
                            for kh in 0..g.kh {
                                for kw in 0..g.kw {
                                    let ih = (oh * g.strides[0] + kh * g.dilations[0]) as isize - g.padding[0] as isize;
                                    let iw = (ow * g.strides[1] + kw * g.dilations[1]) as isize - g.padding[2] as isize;
                                    let inside = (0..g.h as isize).contains(&ih) && (0..g.w as isize).contains(&iw);
                                    let v = if inside {
                                        x[((n * g.cin + ci) * g.h + ih as usize) * g.w + iw as usize]
                                    } else {
                                        x_zero
                                    };
                                    let wv = w[((co * g.cin + ci) * g.kh + kh) * g.kw + kw];
                                    s += (i64::from(v) - i64::from(x_zero)) * i64::from(wv);
                                }
                            }
                        }
                        y[((n * g.cout + co) * g.oh + oh) * g.ow + ow] = rq[co].apply(s as i32);
                    }
                }
            }
        }
        y
    }

    #[test]
    fn matches_the_straightforward_conv() {
        let isas: Vec<Isa> = [Isa::Avx512Vnni, Isa::Avx2].into_iter().filter(|isa| isa.available()).collect();
        if isas.is_empty() {
            eprintln!("skipped: neither AVX-512 VNNI nor AVX2 on this CPU");
            return;
        }
        let cases = [
            // 3×3 stride 1 pad 1, cin not a multiple of 4, cout of 1 + 1/4 blocks.
            geom(1, (7, 9, 7), 20, (3, 3), [1, 1], [1, 1], [1, 1, 1, 1]),
            // ResNet's 3×3 stride 2, a full group.
            geom(1, (64, 14, 14), 64, (3, 3), [2, 2], [1, 1], [1, 1, 1, 1]),
            // A 7×7 stem, 3 input channels.
            geom(1, (3, 23, 21), 64, (7, 7), [2, 2], [1, 1], [3, 3, 3, 3]),
            // 1×2 stride 2, 3 blocks.
            geom(1, (32, 13, 13), 48, (1, 2), [2, 2], [1, 1], [0; 4]),
            // Dilated, asymmetric padding, two blocks, two images.
            geom(2, (6, 11, 12), 32, (3, 3), [1, 1], [2, 2], [2, 0, 1, 3]),
            // Many taps (several chunks), 5 groups (the last of 1 block), 7×7 output.
            geom(1, (40, 7, 7), 272, (3, 3), [1, 1], [1, 1], [1, 1, 1, 1]),
            // A long run of pixels (several runs), unequal strides.
            geom(1, (8, 40, 70), 16, (3, 3), [1, 2], [1, 1], [1, 1, 1, 1]),
        ];
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for (i, (g, &isa)) in cases.iter().flat_map(|g| isas.iter().map(move |isa| (g, isa))).enumerate() {
            assert!(takes(g, isa), "case {i} ({g:?}) does not take the kernel on {isa:?}");
            let x: Vec<u8> = (0..g.n * g.cin * g.h * g.w).map(|_| rng.byte()).collect();
            let w: Vec<i8> = (0..g.cout * g.cin * g.kk()).map(|_| rng.byte() as i8).collect();
            let x_zero = rng.byte();
            let out_type = if i % 2 == 0 { DataType::Uint8 } else { DataType::Int8 };
            let zp = if out_type == DataType::Uint8 { i32::from(rng.byte()) } else { i32::from(rng.byte() as i8) };
            let depth = (g.cin * g.kk()) as f32;
            let rq: Vec<Requantizer> = (0..g.cout)
                .map(|_| {
                    let scale = (0.5 + rng.unit()) / (depth * 128.0 * 64.0);
                    let bias = rng.unit() - 0.5;
                    let clamp = if rng.byte().is_multiple_of(2) {
                        (0.0, f32::INFINITY)
                    } else {
                        (f32::NEG_INFINITY, f32::INFINITY)
                    };
                    Requantizer::fold(scale, bias, clamp, 1.0 / 128.0, zp, out_type).expect("folds")
                })
                .collect();
            let filter = DirectFilterI8::new(g, &w, rq.clone(), isa).expect("filter");
            let mut padded = Vec::new();
            let mut y = vec![0u8; g.n * g.cout * g.oh * g.ow];
            conv(g, &x, x_zero, &filter, &mut padded, &mut y).expect("conv");
            let want = reference(g, &x, x_zero, &w, &rq);
            let diff = y.iter().zip(&want).position(|(a, b)| a != b);
            assert!(diff.is_none(), "case {i} ({g:?}, {isa:?}): first difference at {diff:?}");
            // The outputs are not trivially constant.
            assert!(want.iter().any(|&v| v != want[0]), "case {i}: a constant output tests little");
            // A second dispatch on the same scratch gives the same bytes.
            let mut again = vec![0u8; y.len()];
            conv(g, &x, x_zero, &filter, &mut padded, &mut again).expect("conv");
            assert_eq!(again, y, "case {i}: second dispatch");
        }
    }
}

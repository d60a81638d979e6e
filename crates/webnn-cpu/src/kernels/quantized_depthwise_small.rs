//! The quantized depthwise conv of [`super::quantized_depthwise`] on small planes (MobileNet's
//! 14 × 14 and 7 × 7 stages), with AVX-512 VBMI and VNNI: 16 outputs at a time taken in
//! plane order (across rows), not along one row. The row kernel
//! (`quantized_depthwise_vnni`) fills its 16 lanes with one output row: 7 of them on a 7-wide
//! plane, with the padded copy of the plane and the per-row overhead paid per channel
//! (MobileNetV2 int8's 960-channel 7 × 7 convs took 42–46 µs against ONNX Runtime's 18).
//!
//! For each run of 16 outputs, the input bytes their windows touch lie in one window of at
//! most 128 bytes of the (unpadded) plane: two 64-byte loads. Per group of four taps (in
//! window order, over the whole kh × kw window), one `vpermt2b` gathers each output's four
//! input bytes into its dword lane, positions in the padding take the input's zero point (a
//! blend), and one `vpdpbusd` with the channel's weight dword adds them: `Σ w · x` over the
//! window, exactly, and `zero · Σ w` is removed after. The indices and the padding masks of
//! every run depend only on the geometry, so they are computed once, at lowering. The sums
//! are those of the other two paths, requantized with the same folded constants, so the
//! bytes are the same.

use super::conv::Geom;
use super::requantize::{Requantizer, RequantizerLanes};
use std::arch::x86_64::*;

/// The widest output rows this path takes, at column stride 1 and 2: wider rows fill the row
/// kernel's lanes, which also shares each gathered input row among 4 output rows (at stride
/// 1 on 14 × 14 planes the row kernel was faster: 0.045 against 0.048 ms for 576 channels;
/// at stride 2 this path: 0.024 → 0.017 ms for 192 channels of 28 × 28 → 14 × 14).
const MAX_OW: [usize; 2] = [8, 14];

/// The most outputs per plane this path takes: its runs' indices (64 bytes per run and tap
/// group) are built at lowering, so a tall plane of narrow rows would size them by the
/// caller's shapes.
const MAX_OUTPUTS: usize = 4096;

/// One run of 16 outputs: where its window starts in the plane and, per tap group, the
/// `vpermt2b` indices into the window and the lanes that read a real input byte.
struct Run {
    start: usize,
    /// Per tap group: byte `4i + j` of lane i is tap `4·group + j` of output `16·run + i`.
    indices: Vec<[u8; 64]>,
    /// Per tap group: the bytes whose tap is a real input position (others: the zero point).
    real: Vec<u64>,
}

/// The geometry's runs and every channel's weights packed for `vpdpbusd`.
pub(super) struct SmallPlanes {
    runs: Vec<Run>,
    /// Tap groups: ⌈kh · kw / 4⌉.
    groups: usize,
    /// Per channel, `groups` dwords of four weights (zero past the last tap).
    words: Vec<i32>,
    /// Per channel, `zero · Σ w`.
    corrections: Vec<i32>,
    /// The input's zero point.
    zero: u8,
    /// Input plane bytes (h · w).
    plane: usize,
}

impl SmallPlanes {
    /// The packed operands for `g` (depthwise, nchw), `weights` `[c, kh, kw]` and uint8 input
    /// with zero point `zero`; `None` where the rows are wide ([`MAX_OW`]) or a run's
    /// window would exceed 128 bytes.
    pub(super) fn new(g: &Geom, weights: &[i8], zero: u8) -> Option<Self> {
        let kk = g.kh * g.kw;
        let widest = if g.strides[1] == 1 { MAX_OW[0] } else { MAX_OW[1] };
        let outputs = g.oh.saturating_mul(g.ow);
        if g.ow > widest || outputs == 0 || outputs > MAX_OUTPUTS || kk == 0 || kk > 64 || weights.len() != g.cout * kk
        {
            return None;
        }
        let groups = kk.div_ceil(4);
        let [pt, _, pl, _] = g.padding;
        // The plane offset of tap t of output o, if it is a real input position.
        let at = |o: usize, t: usize| -> Option<usize> {
            let (oy, ox) = (o / g.ow, o % g.ow);
            let (ky, kx) = (t / g.kw, t % g.kw);
            let iy = (oy * g.strides[0] + ky * g.dilations[0]).checked_sub(pt)?;
            let ix = (ox * g.strides[1] + kx * g.dilations[1]).checked_sub(pl)?;
            (iy < g.h && ix < g.w).then_some(iy * g.w + ix)
        };
        let mut runs = Vec::with_capacity(outputs.div_ceil(16));
        for first in (0..outputs).step_by(16) {
            let lanes = (outputs - first).min(16);
            let offsets = (0..lanes).flat_map(|i| (0..kk).filter_map(move |t| at(first + i, t)));
            let (lo, hi) = offsets.fold((usize::MAX, 0), |(lo, hi), p| (lo.min(p), hi.max(p)));
            let start = if lo == usize::MAX { 0 } else { lo };
            if hi >= start + 128 {
                return None;
            }
            let mut indices = vec![[0u8; 64]; groups];
            let mut real = vec![0u64; groups];
            for q in 0..groups {
                for i in 0..lanes {
                    for j in 0..4 {
                        if let Some(p) = (4 * q + j < kk).then(|| at(first + i, 4 * q + j)).flatten() {
                            indices[q][4 * i + j] = (p - start) as u8;
                            real[q] |= 1 << (4 * i + j);
                        }
                    }
                }
            }
            runs.push(Run { start, indices, real });
        }
        let mut words = Vec::with_capacity(g.cout * groups);
        let mut corrections = Vec::with_capacity(g.cout);
        for channel in weights.chunks_exact(kk) {
            for q in 0..groups {
                let tap = |j: usize| channel.get(4 * q + j).map_or(0, |&w| w as u8);
                words.push(i32::from_le_bytes([tap(0), tap(1), tap(2), tap(3)]));
            }
            corrections.push(super::quantized_depthwise_vnni::zero_correction(channel, zero));
        }
        Some(SmallPlanes { runs, groups, words, corrections, zero, plane: g.h * g.w })
    }
}

/// One channel plane: `x` its `h · w` input bytes, `y` its `oh · ow` output bytes.
///
/// # Safety
/// AVX-512F, BW, VL, VBMI and VNNI (`quantized_depthwise_vnni::available`); `s` was made for
/// this geometry; `c` is a channel of it; `x.len() == s.plane` and `y` holds every output.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vnni")]
pub(super) unsafe fn plane(s: &SmallPlanes, c: usize, x: &[u8], rq: &Requantizer, y: &mut [u8]) {
    debug_assert_eq!(x.len(), s.plane);
    let zero = _mm512_set1_epi8(s.zero as i8);
    let correction = _mm512_set1_epi32(s.corrections[c]);
    let requantize = RequantizerLanes::new(rq);
    let words = &s.words[c * s.groups..][..s.groups];
    let load = |from: usize| {
        let n = s.plane.saturating_sub(from).min(64);
        let mask = if n == 64 { u64::MAX } else { (1u64 << n) - 1 };
        // SAFETY: the mask selects bytes from .. from + n of the plane, inside `x`.
        unsafe { _mm512_maskz_loadu_epi8(mask, x.as_ptr().wrapping_add(from).cast()) }
    };
    for (r, run) in s.runs.iter().enumerate() {
        let (lo, hi) = (load(run.start), load(run.start + 64));
        let mut acc = _mm512_setzero_si512();
        for (q, &word) in words.iter().enumerate() {
            // SAFETY: 64-byte reads of the run's own index array.
            let idx = unsafe { _mm512_loadu_si512(run.indices[q].as_ptr().cast()) };
            let bytes = _mm512_mask_blend_epi8(run.real[q], zero, _mm512_permutex2var_epi8(lo, idx, hi));
            acc = _mm512_dpbusd_epi32(acc, bytes, _mm512_set1_epi32(word));
        }
        let first = 16 * r;
        let n = (y.len() - first).min(16);
        let mask: __mmask16 = if n == 16 { u16::MAX } else { (1u16 << n) - 1 };
        let q = requantize.apply(_mm512_sub_epi32(acc, correction));
        // SAFETY: outputs first .. first + n of the plane, inside `y`.
        unsafe { super::quantize::store_low_bytes_avx512(y.as_mut_ptr().add(first), 1, n, mask, q) };
    }
}

//! The VNNI path of [`super::quantized_depthwise`]: the depthwise taps summed on integers with
//! `vpdpbusd`, four taps of a filter row per instruction, and each output row requantized
//! in registers.
//!
//! The plane is copied into a uint8 plane padded with the input's zero point, so a padded
//! tap contributes
//! `w · zero`, which the per-channel correction `zero · Σw` removes: the sums are the exact
//! integer sums `Σ w · (x − zero)` of the float32 plane path, requantized with the same
//! folded constants (`requantize`), so both paths give the same bytes.
//!
//! For 16 outputs of a row, the window bytes of one filter row are gathered from one
//! 64-byte load with `vpermb` (AVX512_VBMI): lane `4i + j` takes byte `i·sw + (4g + j)·dw`
//! for tap group `g` (taps `4g .. 4g + 4` of the row). The weights' dword for that row and
//! group has zeros past the row's last tap, so the bytes gathered there do not matter. One
//! gathered input row serves every output row of a block of 4 whose window covers it.

#[cfg(target_arch = "x86_64")]
use super::conv::Geom;
#[cfg(target_arch = "x86_64")]
use super::requantize::{Requantizer, RequantizerLanes};

/// Output rows per block: the accumulators one gathered input row is added to.
#[cfg(target_arch = "x86_64")]
const ROWS: usize = 4;

/// The weights of every channel packed for `vpdpbusd`, and the gather indices.
#[derive(Clone)]
pub(super) struct VnniTaps {
    /// Per channel, kh × `groups` dwords: the bytes `w[u][4g .. 4g + 4]`, zero past kw.
    words: Vec<i32>,
    /// Tap groups per filter row: ⌈kw / 4⌉.
    groups: usize,
    /// Per channel, `zero · Σ w`.
    corrections: Vec<i32>,
    /// Per tap group, the `vpermb` indices of 16 outputs' window bytes.
    indices: Vec<[u8; 64]>,
    /// The byte that stands for the real 0 in the uint8 plane (the padding).
    pub(super) zero: u8,
}

/// Whether the CPU has the instructions: AVX-512F, BW, VL, VBMI and VNNI.
pub(super) fn available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        super::unary::has_avx512()
            && std::is_x86_feature_detected!("avx512bw")
            && std::is_x86_feature_detected!("avx512vbmi")
            && std::is_x86_feature_detected!("avx512vnni")
    }
    #[cfg(not(target_arch = "x86_64"))]
    false
}

impl VnniTaps {
    /// Packs `weights` (`[c, kh, kw]` as int8 integers) for uint8 input with zero point
    /// `zero` and a geometry whose 16 outputs' window row lies in one 64-byte load, or gives
    /// `None`.
    pub(super) fn new(kh: usize, kw: usize, [sw, dw]: [usize; 2], weights: &[i8], zero: u8) -> Option<Self> {
        if kw == 0 || 15 * sw + (kw - 1) * dw > 63 {
            return None;
        }
        let groups = kw.div_ceil(4);
        let mut words = Vec::with_capacity(weights.len() / kw * groups);
        let mut corrections = Vec::with_capacity(weights.len() / (kh * kw));
        for channel in weights.chunks_exact(kh * kw) {
            for row in channel.chunks_exact(kw) {
                for g in 0..groups {
                    let tap = |j: usize| row.get(4 * g + j).map_or(0, |&w| w as u8);
                    words.push(i32::from_le_bytes([tap(0), tap(1), tap(2), tap(3)]));
                }
            }
            corrections.push(zero_correction(channel, zero));
        }
        let indices = (0..groups)
            .map(|g| std::array::from_fn(|lane| ((lane / 4) * sw + (4 * g + lane % 4) * dw).min(63) as u8))
            .collect();
        Some(VnniTaps { words, groups, corrections, indices, zero })
    }
}

/// `zero · Σ w` of one channel's weights: what the padded positions (the zero point) and the
/// input's zero point add to `Σ w · x`, removed from the sums.
pub(super) fn zero_correction(weights: &[i8], zero: u8) -> i32 {
    i32::from(zero) * weights.iter().map(|&w| i32::from(w)).sum::<i32>()
}

/// One channel plane: `padded` is the uint8 plane (row length `pw`, padding and all, with at
/// least 64 bytes of slack after the last row), `y` the channel's `oh × ow` output bytes.
///
/// The common filters (3×3 and 5×5, no dilation, strides 1 and 2) run a block of 4 output
/// rows with every loop bound a constant, so the compiler unrolls them into straight code;
/// the last block overlaps the one before it when `oh` is not a multiple of 4 (its rows are
/// written twice, with the same bytes). Other filters run [`rows`].
///
/// # Safety
/// AVX-512F, BW, VL, VBMI and VNNI ([`available`]); `taps` was made for `g`'s kh, kw, strides
/// and dilations; `padded` holds `(oh − 1)·sh + (kh − 1)·dh + 1` rows of `pw ≥ (ow − 1)·sw +
/// (kw − 1)·dw + 1` bytes and 64 more; `y.len() == oh · ow`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vnni")]
pub(super) unsafe fn plane(
    g: &Geom,
    taps: &VnniTaps,
    c: usize,
    padded: &[u8],
    pw: usize,
    rq: &Requantizer,
    y: &mut [u8],
) {
    let fixed: Option<RowBlock> = match (g.kh, taps.groups, g.strides[0], g.dilations[0]) {
        _ if g.oh < ROWS => None,
        (3, 1, 1, 1) => Some(fixed_rows::<1, 3, 1>),
        (3, 1, 2, 1) => Some(fixed_rows::<2, 3, 1>),
        (5, 2, 1, 1) => Some(fixed_rows::<1, 5, 2>),
        (5, 2, 2, 1) => Some(fixed_rows::<2, 5, 2>),
        _ => None,
    };
    let p = Plane { g, taps, c, padded, pw, epilogue: Epilogue::new(taps, c, rq) };
    // SAFETY: forwarded from the caller, for rows oy.. of the plane (oy + 4 ≤ oh).
    unsafe {
        if let Some(block) = fixed {
            let mut oy = 0;
            while oy < g.oh {
                block(&p, y, oy.min(g.oh - ROWS));
                oy += ROWS;
            }
            return;
        }
        let mut oy = 0;
        while oy + ROWS <= g.oh {
            rows::<ROWS>(&p, y, oy);
            oy += ROWS;
        }
        match g.oh - oy {
            1 => rows::<1>(&p, y, oy),
            2 => rows::<2>(&p, y, oy),
            3 => rows::<3>(&p, y, oy),
            _ => {}
        }
    }
}

/// A block of output rows: [`fixed_rows`] for one filter shape.
#[cfg(target_arch = "x86_64")]
type RowBlock = unsafe fn(&Plane, &mut [u8], usize);

/// One channel plane's operands (see [`plane`]).
#[cfg(target_arch = "x86_64")]
struct Plane<'a> {
    g: &'a Geom,
    taps: &'a VnniTaps,
    c: usize,
    padded: &'a [u8],
    pw: usize,
    epilogue: Epilogue,
}

/// The requantization of [`plane`]'s sums: the channel's correction and folded constants in
/// registers.
#[cfg(target_arch = "x86_64")]
struct Epilogue {
    correction: std::arch::x86_64::__m512i,
    requantize: RequantizerLanes,
}

#[cfg(target_arch = "x86_64")]
impl Epilogue {
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn new(taps: &VnniTaps, c: usize, rq: &Requantizer) -> Self {
        Epilogue {
            correction: std::arch::x86_64::_mm512_set1_epi32(taps.corrections[c]),
            requantize: RequantizerLanes::new(rq),
        }
    }

    /// 16 sums requantized, the first `n` bytes stored to `out`.
    ///
    /// # Safety
    /// AVX-512F, BW and VL; `out` is valid for `n ≤ 16` bytes, `mask` has the low `n` bits.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl")]
    unsafe fn store(
        &self,
        acc: std::arch::x86_64::__m512i,
        out: *mut u8,
        n: usize,
        mask: std::arch::x86_64::__mmask16,
    ) {
        use std::arch::x86_64::*;
        let q = self.requantize.apply(_mm512_sub_epi32(acc, self.correction));
        // SAFETY: AVX-512F, BW, VL; `out` from the caller.
        unsafe { super::quantize::store_low_bytes_avx512(out, 1, n, mask, q) };
    }
}

/// Output rows `oy .. oy + 4` of [`plane`] for a `KH`-row filter of `G` tap groups, height
/// stride `SH`, no dilation.
///
/// # Safety
/// As [`plane`], with `oy + 4 ≤ oh`, `g.kh == KH`, `taps.groups == G`, `g.strides[0] == SH`
/// and `g.dilations[0] == 1`.
#[cfg(target_arch = "x86_64")]
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vnni")]
unsafe fn fixed_rows<const SH: usize, const KH: usize, const G: usize>(p: &Plane, y: &mut [u8], oy: usize) {
    use std::arch::x86_64::*;
    let Plane { g, taps, c, padded, pw, epilogue } = p;
    let (c, pw) = (*c, *pw);
    let sw = g.strides[1];
    let words = &taps.words[c * KH * G..][..KH * G];
    let w: [[__m512i; G]; KH] = std::array::from_fn(|u| std::array::from_fn(|gi| _mm512_set1_epi32(words[u * G + gi])));
    // SAFETY: G index vectors of 64 bytes.
    let index: [__m512i; G] = std::array::from_fn(|gi| unsafe { _mm512_loadu_si512(taps.indices[gi].as_ptr().cast()) });
    let base = padded.as_ptr();
    debug_assert!((oy * SH + (ROWS - 1) * SH + KH - 1) * pw + (g.ow - 1) * sw + 64 <= padded.len());
    for ox in (0..g.ow).step_by(16) {
        let n = (g.ow - ox).min(16);
        let mask: __mmask16 = if n == 16 { 0xffff } else { (1 << n) - 1 };
        let mut acc = [_mm512_setzero_si512(); ROWS];
        for t in 0..(ROWS - 1) * SH + KH {
            // SAFETY: row oy·SH + t of the plane from output ox's first window byte: inside
            // the plane with its slack (the caller).
            let v = unsafe { _mm512_loadu_si512(base.add((oy * SH + t) * pw + ox * sw).cast()) };
            for gi in 0..G {
                let x = _mm512_permutexvar_epi8(index[gi], v);
                for (r, a) in acc.iter_mut().enumerate() {
                    // Input row t is filter row t − r·SH of output row oy + r.
                    if t >= r * SH && t - r * SH < KH {
                        *a = _mm512_dpbusd_epi32(*a, x, w[t - r * SH][gi]);
                    }
                }
            }
        }
        for (r, a) in acc.iter().enumerate() {
            // SAFETY: the n outputs of row oy + r from ox, inside `y` (oy + r < oh).
            unsafe { epilogue.store(*a, y.as_mut_ptr().add((oy + r) * g.ow + ox), n, mask) };
        }
    }
}

/// Output rows `oy .. oy + R` of [`plane`], 16 outputs at a time, for any filter.
///
/// # Safety
/// As [`plane`], with `oy + R ≤ oh`.
#[cfg(target_arch = "x86_64")]
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vnni")]
unsafe fn rows<const R: usize>(p: &Plane, y: &mut [u8], oy: usize) {
    use std::arch::x86_64::*;
    let Plane { g, taps, c, padded, pw, epilogue } = p;
    let (c, pw) = (*c, *pw);
    let ([sh, sw], [dh, _]) = (g.strides, g.dilations);
    let groups = taps.groups;
    let words = &taps.words[c * g.kh * groups..][..g.kh * groups];
    // The input rows the block's windows cover, and the span of one window's rows.
    let (inputs, span) = ((R - 1) * sh + (g.kh - 1) * dh + 1, (g.kh - 1) * dh + 1);
    let base = padded.as_ptr();
    for ox in (0..g.ow).step_by(16) {
        let n = (g.ow - ox).min(16);
        let mask: __mmask16 = if n == 16 { 0xffff } else { (1 << n) - 1 };
        let mut acc = [_mm512_setzero_si512(); R];
        for t in 0..inputs {
            let at = (oy * sh + t) * pw + ox * sw;
            debug_assert!(at + 64 <= padded.len());
            // SAFETY: row oy·sh + t of the plane, from the first window byte of output ox;
            // the 64 bytes lie inside the plane with its slack (the caller).
            let v = unsafe { _mm512_loadu_si512(base.add(at).cast()) };
            for (gi, index) in taps.indices.iter().enumerate() {
                // SAFETY: 64 bytes.
                let x = _mm512_permutexvar_epi8(unsafe { _mm512_loadu_si512(index.as_ptr().cast()) }, v);
                for (r, a) in acc.iter_mut().enumerate() {
                    // Input row t is filter row k / dh of output row oy + r when it lies in
                    // that row's window.
                    let Some(k) = t.checked_sub(r * sh) else { continue };
                    if k >= span || (dh != 1 && k % dh != 0) {
                        continue;
                    }
                    let u = if dh == 1 { k } else { k / dh };
                    let w = _mm512_set1_epi32(words[u * groups + gi]);
                    *a = _mm512_dpbusd_epi32(*a, x, w);
                }
            }
        }
        for (r, a) in acc.iter().enumerate() {
            debug_assert!((oy + r) * g.ow + ox + n <= y.len());
            // SAFETY: the n outputs of row oy + r from ox, inside the plane; AVX-512F, BW, VL.
            unsafe { epilogue.store(*a, y.as_mut_ptr().add((oy + r) * g.ow + ox), n, mask) };
        }
    }
}

//! Direct nchw conv2d for few input channels (a CNN's first conv: 3 → 32 channels, 3×3,
//! stride 2), in AVX-512. im2col + GEMM has K = cin·kh·kw = 27 there: the column buffer is
//! written and read once per output pixel for little arithmetic, and the GEMM's packing costs
//! as much as its products.
//!
//! Each input channel is copied once per image into the zero-padded, phase-split plane of
//! [`super::depthwise`] (every tap of output `(oh, ow)` reads `plane[tap + oh·pitch + ow]`,
//! any stride and dilation). The sums are kept pixel-major, as the blocked-channel (NCHW16c)
//! kernels of ONNX Runtime and oneDNN keep them: one register holds 16 output channels of one
//! pixel. Per tap, CB weight vectors (16 output channels each, aligned) and P input values
//! (broadcast) feed CB·P FMAs: 4 × 6, 3 × 8, 2 × 12 or 1 × 24 sums in registers, CB + P
//! loads per 24 FMAs. A row's sums go to a small buffer and reach the nchw output planes
//! through 16×16 register transposes.
//!
//! With fewer taps ([`PIXEL_MAJOR_MIN_TAPS`]) the transposes cost too large a share, and the
//! sums stay pixel vectors (16 pixels of one output channel), as this kernel computed every
//! conv until 2026-11-29: per tap one unaligned input load and one broadcast weight per
//! output channel of a block of 16 (or 8). That form measured 183 GFLOP/s on Zen 4 (3→32 3×3
//! on 224²), 50–58 on Ice Lake-SP, where its input loads mostly split across cache lines.
//!
//! Either way each output is Σ over (ci, kh, kw) in that order with FMAs, then + bias, then
//! the fused epilogue per 8 finished rows.

use super::conv::Geom;
use super::depthwise::{fill_padded, plane_fits, PhaseLayout};
use super::depthwise_blocked::avx512::transpose16;
use super::epilogue::BoundEpilogue;
use super::scratch::Scratch;
use std::arch::x86_64::*;

/// The most taps (cin·kh·kw) taken: ResNet's first conv has 147 (3 × 7×7). A group's
/// weights, 4 × 16 × 160 floats (40 KiB), stay in L1 while a row is computed.
const MAX_TAPS: usize = 160;

/// Output channels per register.
const LANES: usize = 16;

/// Pixels of a row computed per pass: a multiple of 16 (the transposes) and of every P.
const CHUNK: usize = 48;

/// Taps from which the sums are pixel-major; below, pixel vectors (when cout is a multiple of
/// 8). With 27 taps (3→32 3×3, 3→16 3×3) the transposes are ~15 % of the arithmetic: the
/// first convs of EfficientNet-B0 and YOLOv8n took 0.84 → 1.03 and 0.87 → 1.10 ms pixel-major
/// at 1 thread on Ice Lake-SP (medians of 4 alternating runs), ResNet's 147-tap stem 4.57 →
/// 3.28 ms.
const PIXEL_MAJOR_MIN_TAPS: usize = 64;

/// Whether `g` takes this kernel on this CPU.
pub fn applies(g: &Geom) -> bool {
    super::unary::has_avx512()
        && !g.nhwc
        && g.groups == 1
        && g.cin <= 4
        && g.cout >= 8
        && g.cin * g.kk() <= MAX_TAPS
        && g.ow > 0
        && g.oh > 0
        && plane_fits(g)
}

/// The output planes, shared by the tasks that write disjoint (channel, row) parts of them.
#[derive(Clone, Copy)]
struct OutPlanes(*mut f32);

// SAFETY: each task writes only the planes of its channel group and the rows of its band
// (see `conv`), so no element is accessed by two threads.
unsafe impl Send for OutPlanes {}
// SAFETY: as for Send.
unsafe impl Sync for OutPlanes {}

impl OutPlanes {
    /// Element `i` of the image's planes (a method, so that closures capture the whole
    /// `Send` value rather than its raw pointer field).
    fn at(self, i: usize) -> *mut f32 {
        self.0.wrapping_add(i)
    }
}

/// The conv2d of an [`applies`] geometry: `wts` as `[cout][cin·kh·kw]`, `out` nchw.
/// `planes` is this kernel's own scratch: the padded planes, `CHUNK` floats of slack, then
/// the regrouped filter. The planes' padding positions and the slack are written only here,
/// as zeros when the buffer grows, and never by the copies (the geometry is the kernel's), so
/// they stay zero from one dispatch to the next.
pub fn conv(
    g: &Geom,
    x: &[f32],
    wts: &[f32],
    bias: Option<&[f32]>,
    planes: &Scratch,
    out: &mut [f32],
    ep: &BoundEpilogue<'_>,
) -> webnn_core::Result<()> {
    let layout = PhaseLayout::of(g);
    let taps: Vec<usize> = (0..g.cin * g.kk())
        .map(|t| {
            let (ci, k) = (t / g.kk(), t % g.kk());
            ci * layout.len + layout.at(g, k / g.kw * g.dilations[0], k % g.kw * g.dilations[1])
        })
        .collect();
    let k = taps.len();
    let blocks = g.cout.div_ceil(LANES);
    // The last pass of a row computes up to CHUNK - 1 pixels past its end (never stored):
    // their reads stay inside the planes and the slack after them.
    let padded_len = g.cin * layout.len + CHUNK;
    let mut scratch = planes.get(padded_len + LANES + blocks * k * LANES)?;
    let (padded, rest) = scratch.split_at_mut(padded_len);
    // The weights start on a 64-byte boundary: each tap's vectors are then whole cache lines.
    let skip = rest.as_ptr().align_offset(64).min(LANES);
    let blocked = &mut rest[skip..][..blocks * k * LANES];
    // Block b's weights as [tap][16 output channels], zero past cout.
    blocked.fill(0.0);
    for (co, row) in wts[..g.cout * k].chunks_exact(k).enumerate() {
        let (b, c) = (co / LANES, co % LANES);
        for (t, &w) in row.iter().enumerate() {
            blocked[(b * k + t) * LANES + c] = w;
        }
    }
    let blocked = &*blocked;
    let (plane, oplane) = (g.h * g.w, g.oh * g.ow);
    // Channel groups: up to 4 blocks pixel-major (4 × 6 sums in registers need the fewest
    // loads), 16 (or 8) channels as pixel vectors; then bands of rows, so that every thread
    // has about two tasks.
    let vectors = k < PIXEL_MAJOR_MIN_TAPS && g.cout.is_multiple_of(8);
    let group_channels = match (vectors, g.cout.is_multiple_of(LANES)) {
        (true, true) => LANES,
        (true, false) => 8,
        (false, _) => blocks.min(4) * LANES,
    };
    let groups = g.cout.div_ceil(group_channels);
    let threads = crate::par::threads();
    let bands = (2 * threads).div_ceil(groups).clamp(1, g.oh.div_ceil(8));
    let band_rows = g.oh.div_ceil(bands);
    for n in 0..g.n {
        crate::par::chunks(&mut padded[..g.cin * layout.len], layout.len, |ci, plane_out| {
            fill_padded(g, &layout, &x[(n * g.cin + ci) * plane..][..plane], plane_out)
        });
        let padded = &*padded;
        let image = &mut out[n * g.cout * oplane..][..g.cout * oplane];
        let planes_out = OutPlanes(image.as_mut_ptr());
        crate::par::try_range(groups * bands, |task| -> webnn_core::Result<()> {
            let (group, band) = (task / bands, task % bands);
            let rows = band * band_rows..((band + 1) * band_rows).min(g.oh);
            let co0 = group * group_channels;
            let channels = group_channels.min(g.cout - co0);
            let group_blocks = channels.div_ceil(LANES);
            let bias = bias.map(|b| &b[co0..co0 + channels]);
            // Block co0 / 16 from channel co0 % 16 (8 for the second half of a block).
            let w = blocked[(co0 / LANES * k) * LANES + co0 % LANES..].as_ptr();
            let y = planes_out.at(co0 * oplane);
            let row = Row { x: padded.as_ptr(), pitch: layout.pitch, taps: &taps, w, bias, y, oplane };
            // Rows 8 at a time, the epilogue applied to each plane's 8 finished rows while
            // they are in cache.
            for oh0 in rows.clone().step_by(8) {
                let n_rows = (rows.end - oh0).min(8);
                for oh in oh0..oh0 + n_rows {
                    // SAFETY: `applies` checked AVX-512F; the taps read inside the padded
                    // planes and their slack; `w` holds the group's blocks (pixel vectors:
                    // its channels of each tap's 16); the row written is row `oh` of this
                    // group's planes.
                    unsafe {
                        match (vectors, group_blocks) {
                            (true, _) if channels == LANES => row.vectors::<16>(oh, g.ow),
                            (true, _) => row.vectors::<8>(oh, g.ow),
                            (false, 4) => row.compute::<4, 6>(oh, g.ow, channels),
                            (false, 3) => row.compute::<3, 8>(oh, g.ow, channels),
                            (false, 2) => row.compute::<2, 12>(oh, g.ow, channels),
                            (false, _) => row.compute::<1, 24>(oh, g.ow, channels),
                        }
                    }
                }
                for co in co0..co0 + channels {
                    let first = co * oplane + oh0 * g.ow;
                    // SAFETY: rows oh0.. of plane co belong to this task (see OutPlanes).
                    let values = unsafe { std::slice::from_raw_parts_mut(planes_out.at(first), n_rows * g.ow) };
                    ep.apply(n * g.cout * oplane + first, values);
                }
            }
            Ok(())
        })?;
    }
    Ok(())
}

/// What one output row of a channel group reads and writes.
struct Row<'a> {
    /// The padded planes (with their slack).
    x: *const f32,
    pitch: usize,
    taps: &'a [usize],
    /// The group's weights: block c at `c·taps.len()·16`, as [tap][16].
    w: *const f32,
    /// The group's biases (one per channel written).
    bias: Option<&'a [f32]>,
    /// The group's first output plane; planes `oplane` apart.
    y: *mut f32,
    oplane: usize,
}

impl Row<'_> {
    /// Output row `oh` (`ow_n` pixels) of the group's B planes as pixel vectors: for every 16
    /// pixels, Σ_t w[t][co]·padded[taps[t] + oh·pitch + ow] then + bias, one input load per
    /// tap feeding B FMAs.
    ///
    /// # Safety
    /// AVX-512F; every `taps[t] + oh·pitch + ow` for `ow < ow_n` lies inside `x`; `w` holds
    /// B weights at `t·16` for every tap t; B planes of `oplane ≥ (oh + 1)·ow_n` at `y`.
    #[target_feature(enable = "avx512f,avx512vl,avx2,fma")]
    unsafe fn vectors<const B: usize>(&self, oh: usize, ow_n: usize) {
        let mut ow0 = 0;
        while ow0 < ow_n {
            let m: __mmask16 = ((1u32 << (ow_n - ow0).min(16)) - 1) as u16;
            let base = oh * self.pitch + ow0;
            let mut acc = [_mm512_setzero_ps(); B];
            for (t, &tap) in self.taps.iter().enumerate() {
                // SAFETY (caller): inside the padded planes for the lanes under the mask; the
                // tap's B weights.
                let (v, wt) = unsafe { (_mm512_maskz_loadu_ps(m, self.x.add(tap + base)), self.w.add(t * LANES)) };
                for (co, a) in acc.iter_mut().enumerate() {
                    // SAFETY (caller): as above.
                    let wv = _mm512_set1_ps(unsafe { *wt.add(co) });
                    *a = _mm512_fmadd_ps(wv, v, *a);
                }
            }
            for (co, a) in acc.iter().enumerate() {
                let a = match self.bias {
                    Some(b) => _mm512_add_ps(*a, _mm512_set1_ps(b[co])),
                    None => *a,
                };
                // SAFETY (caller): row oh of plane co, lanes under the mask.
                unsafe { _mm512_mask_storeu_ps(self.y.add(co * self.oplane + oh * ow_n + ow0), m, a) };
            }
            ow0 += 16;
        }
    }

    /// Output row `oh` (`ow_n` pixels) of the group's first `channels` planes: for every
    /// pixel, Σ_t w[t]·padded[taps[t] + oh·pitch + ow] then + bias, with CB blocks of 16
    /// channels and P pixels in registers.
    ///
    /// # Safety
    /// AVX-512F; every `taps[t] + oh·pitch + ow` for `ow < ow_n + CHUNK - 1` lies inside `x`;
    /// `w` holds CB blocks; `channels ≤ 16·CB` planes of `oplane ≥ (oh + 1)·ow_n` at `y`.
    #[target_feature(enable = "avx512f,avx512vl,avx2,fma")]
    #[allow(clippy::needless_range_loop)] // (block, pixel) index the register tile
    unsafe fn compute<const CB: usize, const P: usize>(&self, oh: usize, ow_n: usize, channels: usize) {
        let k = self.taps.len();
        let bias: [__m512; CB] = std::array::from_fn(|c| match self.bias {
            Some(b) => {
                let n = channels.saturating_sub(c * LANES).min(LANES);
                // SAFETY: the first n of the 16 biases of block c exist.
                unsafe { _mm512_maskz_loadu_ps(((1u32 << n) - 1) as u16, b.as_ptr().add((c * LANES).min(b.len()))) }
            }
            None => _mm512_setzero_ps(),
        });
        // The chunk's sums, pixel-major per block: [block][pixel][16].
        let mut sums = [_mm512_setzero_ps(); 4 * CHUNK];
        let mut ow0 = 0;
        while ow0 < ow_n {
            let width = (ow_n - ow0).min(CHUNK);
            let mut p0 = 0;
            while p0 < width {
                let base = oh * self.pitch + ow0 + p0;
                let mut acc = [[_mm512_setzero_ps(); P]; CB];
                for (t, &tap) in self.taps.iter().enumerate() {
                    // SAFETY (caller): the P inputs lie inside the planes and their slack; the
                    // weights inside the group's blocks.
                    let xs = unsafe { self.x.add(tap + base) };
                    let wv: [__m512; CB] =
                        std::array::from_fn(|c| unsafe { _mm512_loadu_ps(self.w.add((c * k + t) * LANES)) });
                    for p in 0..P {
                        let xv = _mm512_set1_ps(unsafe { *xs.add(p) });
                        for c in 0..CB {
                            acc[c][p] = _mm512_fmadd_ps(wv[c], xv, acc[c][p]);
                        }
                    }
                }
                for c in 0..CB {
                    for p in 0..P {
                        sums[c * CHUNK + p0 + p] = _mm512_add_ps(acc[c][p], bias[c]);
                    }
                }
                p0 += P;
            }
            // Transposed into the planes: 16 pixels of one channel per store.
            for c in 0..CB {
                for q0 in (0..width).step_by(LANES) {
                    let m = ((1u32 << (width - q0).min(LANES)) - 1) as u16;
                    let cols: [__m512; 16] = std::array::from_fn(|i| sums[c * CHUNK + q0 + i]);
                    let rows = transpose16(cols);
                    for (j, v) in rows.iter().enumerate().take(channels.saturating_sub(c * LANES).min(LANES)) {
                        let co = c * LANES + j;
                        // SAFETY (caller): pixels ow0 + q0.. of row oh of plane co, under the mask.
                        unsafe { _mm512_mask_storeu_ps(self.y.add(co * self.oplane + oh * ow_n + ow0 + q0), m, *v) };
                    }
                }
            }
            ow0 += CHUNK;
        }
    }
}

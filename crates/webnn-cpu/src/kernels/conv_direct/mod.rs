//! Direct nchw conv2d with pixel-major sums, in AVX-512 or AVX2 (`avx2.rs`): the convs with a window that are
//! neither depthwise nor taken by Winograd (3×3 stride 2 in ResNet and YOLO, 3×3 on planes
//! too small for Winograd, ResNet's 7×7 stem). im2col + GEMM writes a column buffer of
//! cin·kh·kw × pixels and packs it again for the GEMM; here the products read the input where
//! it lies.
//!
//! Each input channel is copied once per image into the zero-padded, phase-split plane of
//! [`super::depthwise`] (every tap of output `(oh, ow)` reads `plane[tap + oh·pitch + ow]`,
//! any stride and dilation). The sums are kept pixel-major, as the blocked-channel (NCHW16c)
//! kernels of ONNX Runtime and oneDNN keep them: one register holds 16 output channels of one
//! pixel. Per tap, CB weight vectors (16 output channels each, aligned) and P input values
//! (broadcast) feed CB·P FMAs: 4 × 6 sums in registers (10 loads per 24 FMAs), fewer blocks
//! in a conv's last channel group. The P pixels of a tile run on across output rows (each
//! reads through its own pointer), so that narrow outputs (7×7) waste no lanes.
//!
//! The taps (ci, kh, kw) are taken [`CHUNK_TAPS`] at a time, so that a chunk's weights stay
//! in L1 while every row of a band of rows is computed; between chunks a tile's sums wait in a
//! pixel-major buffer of the band. After the last chunk they reach the nchw output planes
//! through 16×16 register transposes, + bias (and a relu, clamp or SiLU, in the same registers); any
//! other fused epilogue is applied to the band.
//!
//! Each output is Σ over (ci, kh, kw) in that order with FMAs, then + bias (on either
//! instruction set: the same bits).

mod avx2;

use super::conv::Geom;
use super::depthwise::{fill_padded, plane_fits, PhaseLayout};
use super::depthwise_blocked::avx512::transpose16;
use super::epilogue::{BoundEpilogue, StoreActivation};
use super::scratch::{grow, Scratch};
use std::arch::x86_64::*;

/// Output channels per register.
const LANES: usize = 16;

/// Blocks of 16 output channels computed together (their sums in registers; here and in
/// [`super::quantized_conv_direct`]).
pub(super) const GROUP_BLOCKS: usize = 4;

/// Output channels of a full group.
pub(super) const GROUP: usize = GROUP_BLOCKS * LANES;

/// Taps per chunk: 4 blocks × 64 taps of weights are 16 KiB, a third of L1. (32 and 128
/// measured within the noise of 64 on ResNet's 3×3 stride-2 convs.)
const CHUNK_TAPS: usize = 64;

/// Fewest taps taken: below, the pixel vectors of [`super::conv_few_channels`] (27-tap first
/// convs) or im2col.
pub(super) const MIN_TAPS: usize = 64;

/// Whether `g` takes this kernel on this CPU.
///
/// 1×1 convs are left to the GEMM: strided, their padded planes would copy 4× the input
/// read (ResNet-50's 256→512 1×1 stride 2 took 2.96 → 4.24 ms here).
pub fn applies(g: &Geom) -> bool {
    Width::best().is_some()
        && !g.nhwc
        && g.groups == 1
        && g.kk() > 1
        && g.cin * g.kk() >= MIN_TAPS
        && g.ow > 0
        && g.oh > 0
        && plane_fits(g)
}

/// The vector width the tiles and the store run with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Width {
    /// AVX-512F: a register is a block of 16 output channels.
    Avx512,
    /// AVX2 + FMA: two registers per block.
    Avx2,
}

impl Width {
    /// The widest this CPU runs; None without AVX2 + FMA.
    pub(super) fn best() -> Option<Width> {
        if super::unary::has_avx512() {
            Some(Width::Avx512)
        } else if super::unary::has_avx2() {
            Some(Width::Avx2)
        } else {
            None
        }
    }

    /// Whether this CPU runs it.
    pub(super) fn available(self) -> bool {
        match self {
            Width::Avx512 => super::unary::has_avx512(),
            Width::Avx2 => super::unary::has_avx2(),
        }
    }
}

/// The filter regrouped for this kernel and [`super::conv_few_channels`]: block b (output
/// channels 16b..16b + 16) as [tap][16], zero past cout, starting on a 64-byte boundary.
/// (Measured against [tap][block][16] per group of 4 blocks: as fast on 28² outputs, 20 %
/// slower on 512→512 7×7, where the weights stream from L3.)
pub struct DirectFilter {
    data: Vec<f32>,
    start: usize,
    taps: usize,
}

impl DirectFilter {
    /// Regroups `wts` (`[cout][cin·kh·kw]`); None if the allocation fails.
    pub fn new(g: &Geom, wts: &[f32]) -> Option<DirectFilter> {
        let taps = g.cin * g.kk();
        let blocks = g.cout.div_ceil(LANES);
        let len = blocks * taps * LANES;
        let mut data = Vec::new();
        data.try_reserve_exact(len + LANES).ok()?;
        data.resize(len + LANES, 0.0);
        let start = data.as_ptr().align_offset(64).min(LANES);
        let blocked = &mut data[start..][..len];
        for (co, row) in wts[..g.cout * taps].chunks_exact(taps).enumerate() {
            let (b, c) = (co / LANES, co % LANES);
            for (t, &w) in row.iter().enumerate() {
                blocked[(b * taps + t) * LANES + c] = w;
            }
        }
        Some(DirectFilter { data, start, taps })
    }

    /// Block b's weights at `b·taps·16`.
    pub(super) fn blocks(&self) -> &[f32] {
        &self.data[self.start..]
    }
}

/// The output planes (elements `T`: f32 here and in [`super::conv_few_channels`], bytes in
/// [`super::quantized_conv_direct`]), shared by the tasks that write disjoint (channel,
/// pixel) parts of them.
pub(super) struct OutPlanes<T>(pub(super) *mut T);

impl<T> Clone for OutPlanes<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for OutPlanes<T> {}

// SAFETY: each task writes only the planes of its channel group and the pixels of its run or
// band of rows (see the `conv`s), so no element is accessed by two threads.
unsafe impl<T> Send for OutPlanes<T> {}
// SAFETY: as for Send.
unsafe impl<T> Sync for OutPlanes<T> {}

impl<T> OutPlanes<T> {
    /// Element `i` of the image's planes (a method, so that closures capture the whole
    /// `Send` value rather than its raw pointer field).
    pub(super) fn at(self, i: usize) -> *mut T {
        self.0.wrapping_add(i)
    }
}

/// Splits `pixels` into runs of a multiple of 16 pixels (the last one shorter), at least
/// `fewest` of them where the pixels allow it, and, if some count up to 2·`fewest` does, as
/// many that the `groups × runs` tasks share equally among `threads`: 7 tasks on 2 threads
/// leave one thread idle for a seventh of the conv. Returns (runs, pixels per run).
pub(super) fn balanced_runs(pixels: usize, fewest: usize, groups: usize, threads: usize) -> (usize, usize) {
    let split = |runs: usize| {
        let len = pixels.div_ceil(runs).next_multiple_of(LANES);
        (pixels.div_ceil(len), len)
    };
    (fewest..=2 * fewest)
        .map(split)
        .find(|&(runs, _)| (groups * runs).is_multiple_of(threads.max(1)))
        .unwrap_or_else(|| split(fewest))
}

/// One task of a direct conv (here and in [`super::quantized_conv_direct`]): a run of output
/// pixels (flat, across rows) of one group of up to [`GROUP_BLOCKS`] blocks of output
/// channels, with the buffer its pixel-major sums wait in between tap chunks.
pub(super) struct RunTask {
    /// The output pixels.
    pub pixels: std::ops::Range<usize>,
    /// The group's first output channel.
    pub co0: usize,
    /// The group's output channels.
    pub channels: usize,
    /// The group's blocks of 16 channels.
    pub blocks: usize,
    /// Vectors per block of the sums: every pixel, a tile's overrun past the last (under 16
    /// pixels) and whole 16-pixel transposes.
    pub stride: usize,
}

impl RunTask {
    /// Task `task` of `runs` runs of `run_len` pixels per channel group, of `oplane` pixels
    /// and `cout` channels.
    pub(super) fn of(task: usize, runs: usize, run_len: usize, oplane: usize, cout: usize) -> RunTask {
        let (group, run) = (task / runs, task % runs);
        let pixels = run * run_len..((run + 1) * run_len).min(oplane);
        let co0 = group * GROUP;
        let channels = GROUP.min(cout - co0);
        let stride = (pixels.len() + 2 * LANES).next_multiple_of(LANES);
        RunTask { pixels, co0, channels, blocks: channels.div_ceil(LANES), stride }
    }

    /// The run's sums, `[block][pixel][16]`: a buffer and the offset where they start, on a
    /// 64-byte boundary.
    pub(super) fn sums_buffer<T: Clone + Default>(&self) -> webnn_core::Result<(Vec<T>, usize)> {
        let mut buf: Vec<T> = Vec::new();
        grow(&mut buf, (self.blocks * self.stride + 1) * LANES)?;
        let skip = buf.as_ptr().align_offset(64).min(LANES);
        Ok((buf, skip))
    }

    /// Where each pixel's taps read (`base(p)` of output pixel p), then the last pixel's again
    /// for the last tile's overrun.
    pub(super) fn bases(&self, base: impl Fn(usize) -> usize) -> webnn_core::Result<Vec<usize>> {
        let mut bases: Vec<usize> = Vec::new();
        grow(&mut bases, self.pixels.len() + 2 * LANES)?;
        let last = self.pixels.end - 1;
        for (b, p) in bases.iter_mut().zip(self.pixels.clone().chain(std::iter::repeat(last))) {
            *b = base(p);
        }
        Ok(bases)
    }
}

/// The conv2d of an [`applies`] geometry with its [`DirectFilter`], `out` nchw. `planes` is
/// this kernel's own scratch: the padded planes. Their padding positions are written only
/// here, as zeros when the buffer grows, and never by the copies (the geometry is the
/// kernel's), so they stay zero from one dispatch to the next.
pub fn conv(
    g: &Geom,
    x: &[f32],
    filter: &DirectFilter,
    bias: Option<&[f32]>,
    planes: &Scratch,
    out: &mut [f32],
    ep: &BoundEpilogue<'_>,
) -> webnn_core::Result<()> {
    let width = Width::best().ok_or_else(|| webnn_core::Error::unknown("conv2d: the direct kernel needs AVX2"))?;
    conv_with(width, g, x, filter, bias, planes, out, ep)
}

/// [`conv`] with the given vector width (one this CPU runs: the tests run each).
#[allow(clippy::too_many_arguments)]
pub(super) fn conv_with(
    width: Width,
    g: &Geom,
    x: &[f32],
    filter: &DirectFilter,
    bias: Option<&[f32]>,
    planes: &Scratch,
    out: &mut [f32],
    ep: &BoundEpilogue<'_>,
) -> webnn_core::Result<()> {
    let layout = PhaseLayout::of(g);
    let taps = layout.taps(g, g.cin);
    let k = filter.taps;
    let mut padded = planes.get(g.cin * layout.len)?;
    let blocked = filter.blocks();
    let (plane, oplane) = (g.h * g.w, g.oh * g.ow);
    let blocks = g.cout.div_ceil(LANES);
    let groups = blocks.div_ceil(GROUP_BLOCKS);
    // Each task computes a run of output pixels (flat, across rows) of one channel group:
    // about two tasks per thread, and a run's sums (at most 4 blocks) under 128 KiB.
    // A small conv (a speech model's) stays on the dispatching thread: waking the pool would
    // cost more than it saves.
    let threads = crate::par::threads_for_macs(g.n * g.cout * oplane * k);
    let max_run = 128 * 1024 / (4 * GROUP) - 2 * LANES;
    let fewest = (2 * threads).div_ceil(groups).max(oplane.div_ceil(max_run)).clamp(1, oplane);
    let (runs, run_len) = balanced_runs(oplane, fewest, groups, threads);
    // A relu, clamp or SiLU (or nothing) after the bias is applied by `store`; other
    // epilogues run over each channel's pixels afterwards.
    // (The SiLU offered is the AVX-512 form on AVX-512 CPUs: the AVX2 store runs it only
    // where that is not the activations' form.)
    let (in_store, act) = match ep.as_store_activation() {
        Some(Some(StoreActivation::Swish)) if width == Width::Avx2 && super::unary::has_avx512() => (false, None),
        Some(act) => (true, act),
        None => (false, None),
    };
    if !width.available() {
        return Err(webnn_core::Error::unknown(format!(
            "conv2d: this CPU cannot run the direct kernel's {width:?} form"
        )));
    }
    for n in 0..g.n {
        crate::par::chunks_on(threads, &mut padded[..g.cin * layout.len], layout.len, |ci, plane_out| {
            fill_padded(g, &layout, &x[(n * g.cin + ci) * plane..][..plane], plane_out)
        });
        let padded = &*padded;
        let image = &mut out[n * g.cout * oplane..][..g.cout * oplane];
        let planes_out = OutPlanes(image.as_mut_ptr());
        crate::par::try_range_on(threads, groups * runs, |task| -> webnn_core::Result<()> {
            let task = RunTask::of(task, runs, run_len, oplane, g.cout);
            let RunTask { co0, channels, blocks: cb, stride, .. } = task;
            let pixels = task.pixels.clone();
            let (mut sums_buf, skip) = task.sums_buffer::<f32>()?;
            let sums = &mut sums_buf[skip..][..cb * stride * LANES];
            let bases = task.bases(|p| p / g.ow * layout.pitch + p % g.ow)?;
            let tiles = Tiles { x: padded.as_ptr(), w: blocked[co0 * k..].as_ptr(), k, stride };
            for t0 in (0..k).step_by(CHUNK_TAPS) {
                let taps = &taps[t0..(t0 + CHUNK_TAPS).min(k)];
                // SAFETY: `width` is available (checked above); the taps of output pixels read
                // inside the padded planes; the weights of the group's cb blocks; the run's
                // sums (the overrun of either tile shape inside `bases` and `stride`).
                unsafe {
                    match (width, cb) {
                        (Width::Avx2, _) => avx2::run(&tiles, cb, &bases, pixels.len(), t0, taps, sums.as_mut_ptr()),
                        (_, 4) => tiles.run::<4, 6>(&bases, pixels.len(), t0, taps, sums.as_mut_ptr()),
                        (_, 3) => tiles.run::<3, 6>(&bases, pixels.len(), t0, taps, sums.as_mut_ptr()),
                        (_, 2) => tiles.run::<2, 6>(&bases, pixels.len(), t0, taps, sums.as_mut_ptr()),
                        _ => tiles.run::<1, 8>(&bases, pixels.len(), t0, taps, sums.as_mut_ptr()),
                    }
                }
            }
            let bias = bias.map(|b| &b[co0..co0 + channels]);
            let y = planes_out.at(co0 * oplane);
            // SAFETY: `width` is available; pixels `pixels` of planes co0.. belong to this
            // task; the sums hold whole 16-pixel vectors.
            unsafe {
                match width {
                    Width::Avx512 => store(sums, stride, bias, act, channels, y, oplane, pixels.clone()),
                    Width::Avx2 => avx2::store(sums, stride, bias, act, channels, y, oplane, pixels.clone()),
                }
            }
            if in_store {
                return Ok(());
            }
            for co in co0..co0 + channels {
                let first = co * oplane + pixels.start;
                // SAFETY: these pixels of plane co belong to this task (see OutPlanes).
                let values = unsafe { std::slice::from_raw_parts_mut(planes_out.at(first), pixels.len()) };
                ep.apply(n * g.cout * oplane + first, values);
            }
            Ok(())
        })?;
    }
    Ok(())
}

/// A run's sums `[block][pixel][16]` (blocks `stride` vectors apart) + bias, then `act` (a
/// clamp with `Activation::Clamp`'s selects, or the AVX-512 SiLU), transposed into pixels
/// `pixels` of the first `channels` planes at `y` (`oplane` apart).
///
/// # Safety
/// AVX-512F; those pixels of those planes belong to the caller.
#[allow(clippy::too_many_arguments)]
#[target_feature(enable = "avx512f,avx512vl,avx2,fma")]
unsafe fn store(
    sums: &[f32],
    stride: usize,
    bias: Option<&[f32]>,
    act: Option<StoreActivation>,
    channels: usize,
    y: *mut f32,
    oplane: usize,
    pixels: std::ops::Range<usize>,
) {
    for c in 0..channels.div_ceil(LANES) {
        let n = (channels - c * LANES).min(LANES);
        let b = match bias {
            // SAFETY: the first n of the block's 16 biases exist.
            Some(b) => unsafe { _mm512_maskz_loadu_ps(((1u32 << n) - 1) as u16, b.as_ptr().add(c * LANES)) },
            None => _mm512_setzero_ps(),
        };
        for q0 in (0..pixels.len()).step_by(LANES) {
            let m = ((1u32 << (pixels.len() - q0).min(LANES)) - 1) as u16;
            let v = &sums[(c * stride + q0) * LANES..][..LANES * LANES];
            // SAFETY: 16 vectors inside the run's sums.
            let cols: [__m512; 16] =
                std::array::from_fn(|i| _mm512_add_ps(unsafe { _mm512_loadu_ps(v.as_ptr().add(i * LANES)) }, b));
            let rows = transpose16(cols);
            for (j, v) in rows.iter().enumerate().take(n) {
                let v = match act {
                    // SAFETY: AVX-512F (this function's features).
                    Some(act) => unsafe { act.apply_avx512(*v) },
                    None => *v,
                };
                // SAFETY (caller): pixels.start + q0.. of plane c·16 + j, under the mask.
                unsafe { _mm512_mask_storeu_ps(y.add((c * LANES + j) * oplane + pixels.start + q0), m, v) };
            }
        }
    }
}

/// What the tiles of a channel group read.
struct Tiles {
    /// The padded planes.
    x: *const f32,
    /// The group's weights: block c at `c·k·16`, as [tap][16].
    w: *const f32,
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
    /// AVX-512F; `bases` holds `n + P - 1` offsets; every `taps[t] + bases[i]` lies inside
    /// `x`; `w` holds CB blocks of `k` taps; `sums` holds CB blocks of `stride ≥ n + P - 1`.
    #[target_feature(enable = "avx512f,avx512vl,avx2,fma")]
    unsafe fn run<const CB: usize, const P: usize>(
        &self,
        bases: &[usize],
        n: usize,
        t0: usize,
        taps: &[usize],
        sums: *mut f32,
    ) {
        for p0 in (0..n).step_by(P) {
            let base: [usize; P] = bases[p0..p0 + P].try_into().expect("P bases");
            // SAFETY (caller): as documented.
            unsafe { self.tile::<CB, P>(base, t0, taps, sums.add(p0 * LANES)) };
        }
    }

    /// The sums of the P pixels whose taps read from `base`, CB blocks, taps `t0..`.
    ///
    /// # Safety
    /// As [`Tiles::run`].
    #[inline(always)]
    #[allow(clippy::needless_range_loop)] // (block, pixel) index the register tile
    unsafe fn tile<const CB: usize, const P: usize>(
        &self,
        base: [usize; P],
        t0: usize,
        taps: &[usize],
        sums: *mut f32,
    ) {
        // SAFETY (caller): AVX-512F, here and in the FMAs below (this is inlined into the
        // target-feature function `run`).
        let mut acc = [[unsafe { _mm512_setzero_ps() }; P]; CB];
        if t0 > 0 {
            for c in 0..CB {
                for p in 0..P {
                    // SAFETY (caller): inside the run's sums.
                    acc[c][p] = unsafe { _mm512_load_ps(sums.add((c * self.stride + p) * LANES)) };
                }
            }
        }
        let xs: [*const f32; P] = base.map(|b| self.x.wrapping_add(b));
        // SAFETY (caller): the weights of tap t0.. of each block.
        let mut w = unsafe { self.w.add(t0 * LANES) };
        for &tap in taps {
            // SAFETY (caller): the weights inside the group's blocks.
            let wv: [__m512; CB] = std::array::from_fn(|c| unsafe { _mm512_load_ps(w.add(c * self.k * LANES)) });
            for p in 0..P {
                // SAFETY (caller): the input inside the planes.
                let xv = unsafe { _mm512_set1_ps(*xs[p].add(tap)) };
                for c in 0..CB {
                    // SAFETY (caller): AVX-512F.
                    acc[c][p] = unsafe { _mm512_fmadd_ps(wv[c], xv, acc[c][p]) };
                }
            }
            w = w.wrapping_add(LANES);
        }
        for c in 0..CB {
            for p in 0..P {
                // SAFETY (caller): inside the run's sums.
                unsafe { _mm512_store_ps(sums.add((c * self.stride + p) * LANES), acc[c][p]) };
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_share_equally_among_threads() {
        // 64→64 on 56²: at least 7 runs, 448 pixels each; on 2 threads, 8 runs of 400.
        assert_eq!(balanced_runs(3136, 7, 1, 1), (7, 448));
        assert_eq!(balanced_runs(3136, 7, 1, 2), (8, 400));
        // Already equal: 2 groups × 2 runs on 2 threads.
        assert_eq!(balanced_runs(196, 2, 2, 2), (2, 112));
        // Every pixel in exactly one run, whole vectors, at least `fewest` runs where the
        // pixels allow it.
        for (pixels, fewest, groups, threads) in [(49, 1, 8, 2), (3136, 7, 1, 3), (17, 2, 1, 2), (9, 4, 1, 2)] {
            let (runs, len) = balanced_runs(pixels, fewest, groups, threads);
            assert!(len % LANES == 0 && runs * len >= pixels && (runs - 1) * len < pixels, "{pixels} {fewest}");
        }
    }
}

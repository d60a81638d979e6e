//! Direct nchw conv2d for few input channels (a CNN's first conv: 3 → 32 channels, 3×3,
//! stride 2), in AVX-512 or AVX2 (`avx2.rs`). im2col + GEMM has K = cin·kh·kw = 27 there: the column buffer is
//! written and read once per output pixel for little arithmetic, and the GEMM's packing costs
//! as much as its products.
//!
//! Each input channel is copied once per image into the zero-padded, phase-split plane of
//! [`super::depthwise`] (every tap of output `(oh, ow)` reads `plane[tap + oh·pitch + ow]`,
//! any stride and dilation). The sums are pixel vectors (16 pixels of one output channel):
//! per tap [`PIXEL_VECTORS`] unaligned input loads and one broadcast weight per output channel
//! of a group of [`GROUP`]. With one pixel vector and 16 channels this measured 183 GFLOP/s
//! on Zen 4 (3→32 3×3 on 224²) and 50–58 on Ice Lake-SP, load-bound there; 8 channels × 3
//! pixel vectors is 33 % faster on Ice Lake-SP (see [`GROUP`]). With 64 taps or more (ResNet's
//! 147-tap 7×7 stem) the pixel-major sums of [`super::conv_direct`] are faster; with 27 taps
//! its transposes cost too large a share (the first convs of EfficientNet-B0 and YOLOv8n
//! took 0.84 → 1.03 and 0.87 → 1.10 ms pixel-major at 1 thread on Ice Lake-SP, medians of 4
//! alternating runs).
//!
//! Each output is Σ over (ci, kh, kw) in that order with FMAs, then + bias (on either
//! instruction set: the same bits), then the fused epilogue per 8 finished rows.

mod avx2;

use super::conv::Geom;
use super::conv_direct::{DirectFilter, OutPlanes, Width};
use super::depthwise::{fill_padded, plane_fits, PhaseLayout};
use super::epilogue::BoundEpilogue;
use super::scratch::Scratch;
use std::arch::x86_64::*;

/// Output channels per register of the weights' [tap][16] blocks.
const LANES: usize = 16;
/// Output channels of a task, and pixel vectors (16 pixels each) summed together: per tap
/// `PIXEL_VECTORS` input loads and `GROUP` weight broadcasts feed `GROUP · PIXEL_VECTORS` = 24
/// FMAs (with 16 channels of one pixel vector, 17 loads fed 16 FMAs: load-bound). Kernel bench,
/// 1 thread, medians of 7 alternating rounds (Ice Lake-SP): 3→32 3×3 on 224² 1.48 → 1.00 ms,
/// 3→64 3×3/2 on 224² 0.69 → 0.61; 2 threads 1.01 → 0.76 and 0.72 → 0.55.
const GROUP: usize = 8;
const PIXEL_VECTORS: usize = 3;

/// Whether `g` takes this kernel on this CPU.
pub fn applies(g: &Geom) -> bool {
    Width::best().is_some()
        && !g.nhwc
        && g.groups == 1
        && g.cin <= 4
        && g.cout.is_multiple_of(8)
        && g.cin * g.kk() < super::conv_direct::MIN_TAPS
        && g.ow > 0
        && g.oh > 0
        && plane_fits(g)
}

/// The conv2d of an [`applies`] geometry with its regrouped filter, `out` nchw. `planes` is
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
    let width = Width::best().ok_or_else(|| webnn_core::Error::unknown("conv2d: the few-channel kernel needs AVX2"))?;
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
    if !width.available() {
        return Err(webnn_core::Error::unknown(format!(
            "conv2d: this CPU does not run the {width:?} few-channel kernel"
        )));
    }
    let layout = PhaseLayout::of(g);
    let taps = layout.taps(g, g.cin);
    let k = taps.len();
    let mut padded = planes.get(g.cin * layout.len)?;
    let blocked = filter.blocks();
    let (plane, oplane) = (g.h * g.w, g.oh * g.ow);
    // Channel groups of GROUP channels, then bands of rows, so that every thread has
    // about two tasks.
    let groups = g.cout / GROUP;
    // A small conv stays on the dispatching thread (see `conv_direct`).
    let threads = crate::par::threads_for_macs(g.n * g.cout * oplane * k);
    let bands = (2 * threads).div_ceil(groups).clamp(1, g.oh.div_ceil(8));
    let band_rows = g.oh.div_ceil(bands);
    for n in 0..g.n {
        crate::par::chunks_on(threads, &mut padded[..], layout.len, |ci, plane_out| {
            fill_padded(g, &layout, &x[(n * g.cin + ci) * plane..][..plane], plane_out)
        });
        let padded = &*padded;
        let image = &mut out[n * g.cout * oplane..][..g.cout * oplane];
        let planes_out = OutPlanes(image.as_mut_ptr());
        crate::par::try_range_on(threads, groups * bands, |task| -> webnn_core::Result<()> {
            let (group, band) = (task / bands, task % bands);
            let rows = band * band_rows..((band + 1) * band_rows).min(g.oh);
            let co0 = group * GROUP;
            let bias = bias.map(|b| &b[co0..co0 + GROUP]);
            // Block co0 / 16 from channel co0 % 16 (8 for the second half of a block).
            let w = blocked[(co0 / LANES * k) * LANES + co0 % LANES..].as_ptr();
            let y = planes_out.at(co0 * oplane);
            let row = Row { x: padded.as_ptr(), pitch: layout.pitch, taps: &taps, w, bias, y, oplane };
            // Rows 8 at a time, the epilogue applied to each plane's 8 finished rows while
            // they are in cache.
            for oh0 in rows.clone().step_by(8) {
                let n_rows = (rows.end - oh0).min(8);
                for oh in oh0..oh0 + n_rows {
                    // SAFETY: the CPU runs `width` (checked above); the taps read inside the
                    // padded planes; `w` holds the group's channels of each tap's 16; the
                    // row written is row `oh` of this group's planes.
                    match width {
                        Width::Avx512 => unsafe { row.vectors::<GROUP, PIXEL_VECTORS>(oh, g.ow) },
                        Width::Avx2 => unsafe { avx2::row::<GROUP>(&row, oh, g.ow) },
                    }
                }
                for co in co0..co0 + GROUP {
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
    /// The padded planes.
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
    /// Output row `oh` (`ow_n` pixels) of the group's B planes as pixel vectors: for every
    /// 16·P pixels, Σ_t w[t][co]·padded[taps[t] + oh·pitch + ow] then + bias, P input loads
    /// and B weight broadcasts per tap feeding B·P FMAs (vectors past the row load and store
    /// nothing).
    ///
    /// # Safety
    /// AVX-512F; every `taps[t] + oh·pitch + ow` for `ow < ow_n` lies inside `x`; `w` holds
    /// B weights at `t·16` for every tap t; B planes of `oplane ≥ (oh + 1)·ow_n` at `y`.
    #[target_feature(enable = "avx512f,avx512vl,avx2,fma")]
    unsafe fn vectors<const B: usize, const P: usize>(&self, oh: usize, ow_n: usize) {
        let mut ow0 = 0;
        while ow0 < ow_n {
            let m: [__mmask16; P] = std::array::from_fn(|p| {
                let lanes = ow_n.saturating_sub(ow0 + 16 * p).min(16);
                ((1u32 << lanes) - 1) as u16
            });
            let base = oh * self.pitch + ow0;
            let mut acc = [[_mm512_setzero_ps(); P]; B];
            for (t, &tap) in self.taps.iter().enumerate() {
                // SAFETY (caller): the lanes under the masks lie inside the padded planes. A
                // vector wholly past the row (mask 0) reads nothing; its address may lie past
                // the planes, hence `wrapping_add`.
                let v: [__m512; P] = std::array::from_fn(|p| unsafe {
                    _mm512_maskz_loadu_ps(m[p], self.x.wrapping_add(tap + base + 16 * p))
                });
                // SAFETY (caller): the tap's B weights.
                let wt = unsafe { self.w.add(t * LANES) };
                for (co, a) in acc.iter_mut().enumerate() {
                    // SAFETY (caller): as above.
                    let wv = _mm512_set1_ps(unsafe { *wt.add(co) });
                    for p in 0..P {
                        a[p] = _mm512_fmadd_ps(wv, v[p], a[p]);
                    }
                }
            }
            for (co, a) in acc.iter().enumerate() {
                for p in 0..P {
                    let a = match self.bias {
                        Some(b) => _mm512_add_ps(a[p], _mm512_set1_ps(b[co])),
                        None => a[p],
                    };
                    // SAFETY (caller): row oh of plane co, lanes under the mask (none for a
                    // vector past the row, whose address may lie past the planes).
                    let at = self.y.wrapping_add(co * self.oplane + oh * ow_n + ow0 + 16 * p);
                    unsafe { _mm512_mask_storeu_ps(at, m[p], a) };
                }
            }
            ow0 += 16 * P;
        }
    }
}

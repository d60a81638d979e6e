//! Direct nchw conv2d for few input channels (a CNN's first conv: 3 → 32 channels, 3×3,
//! stride 2), in AVX-512. im2col + GEMM has K = cin·kh·kw = 27 there: the column buffer is
//! written and read once per output pixel for little arithmetic, and the GEMM's packing costs
//! as much as its products.
//!
//! Each input channel is copied once per image into the zero-padded, phase-split plane of
//! [`super::depthwise`] (every tap of output `(oh, ow)` reads `plane[tap + oh·pitch + ow]`,
//! any stride and dilation). Then, per block of 16 (or 8) output channels, output row and
//! vector of 16 pixels: every (ci, kh, kw) tap is one load feeding one FMA per output channel
//! of the block, the sums held in registers. Each output is Σ over (ci, kh, kw) in that order
//! with FMAs, then + bias, then the fused epilogue per finished row.
//!
//! Measured (EfficientNet-B0's first conv, 3→32 3×3 stride 2 on 224², with SiLU, 1 thread):
//! see ARCHITECTURE.md. ResNet's first conv (3→64 7×7 stride 2 on 224², 147 taps) runs here
//! too: 2.90 → 2.09 ms against im2col + GEMM (kernel bench, 1 thread, Zen 4, 4 alternating
//! runs), ~113 effective GFLOP/s.

use super::conv::Geom;
use super::depthwise::{fill_padded, plane_fits, PhaseLayout};
use super::epilogue::BoundEpilogue;
use super::scratch::Scratch;
use std::arch::x86_64::*;

/// The most taps (cin·kh·kw) taken: ResNet's first conv has 147 (3 × 7×7). A block's
/// weights, 16 × 160 floats (10 KiB), stay in L1 while a row is computed.
const MAX_TAPS: usize = 160;

/// Whether `g` takes this kernel on this CPU.
pub fn applies(g: &Geom) -> bool {
    super::unary::has_avx512()
        && !g.nhwc
        && g.groups == 1
        && g.cin <= 4
        && g.cout.is_multiple_of(8)
        && g.cin * g.kk() <= MAX_TAPS
        && g.ow > 0
        && g.oh > 0
        && plane_fits(g)
}

/// The conv2d of an [`applies`] geometry: `wts` as `[cout][cin·kh·kw]`, `out` nchw.
/// `planes` is this kernel's own scratch: its padding positions are written only here, as
/// zeros when the buffer grows, and never by the copies (the geometry is the kernel's), so
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
    let mut padded = planes.get(g.cin * layout.len)?;
    let (plane, oplane) = (g.h * g.w, g.oh * g.ow);
    // Blocks of 16 output channels (one tap load feeds 16 FMAs) unless that leaves fewer
    // than two tasks per thread, and the input planes copied in parallel. Kernel bench, 2
    // threads, 5 alternating runs: 3->32 on 224² 0.60 -> 0.51 ms (two blocks of 16 were one
    // task per thread), 7×7 stride 2 3->64 1.22 -> 1.15 ms (the copies); 1 thread unchanged.
    let block = if g.cout.is_multiple_of(16) && g.cout / 16 >= 2 * crate::par::threads() { 16 } else { 8 };
    for n in 0..g.n {
        crate::par::chunks(&mut padded[..g.cin * layout.len], layout.len, |ci, plane_out| {
            fill_padded(g, &layout, &x[(n * g.cin + ci) * plane..][..plane], plane_out)
        });
        let padded = &*padded;
        let image = &mut out[n * g.cout * oplane..][..g.cout * oplane];
        crate::par::chunks(image, block * oplane, |b, planes_out| {
            let co0 = b * block;
            let (wts, bias) = (&wts[co0 * taps.len()..], bias.map(|b| &b[co0..]));
            // Rows in groups of 8, the epilogue applied to each plane's 8 finished rows at once.
            for oh0 in (0..g.oh).step_by(8) {
                let rows = (g.oh - oh0).min(8);
                for oh in oh0..oh0 + rows {
                    // SAFETY: `applies` checked AVX-512F; the taps read inside the padded
                    // planes (as the depthwise plane kernels do) and the rows written are row
                    // `oh` of the block's planes (`block` divides cout).
                    unsafe {
                        if block == 16 {
                            row::<16>(padded, layout.pitch, &taps, wts, bias, planes_out, oh, g.ow, oplane)
                        } else {
                            row::<8>(padded, layout.pitch, &taps, wts, bias, planes_out, oh, g.ow, oplane)
                        }
                    }
                }
                for co in 0..block {
                    let first = co * oplane + oh0 * g.ow;
                    ep.apply((n * g.cout + co0) * oplane + first, &mut planes_out[first..][..rows * g.ow]);
                }
            }
        });
    }
    Ok(())
}

/// Output row `oh` of B output planes (`out` holds them, `oplane` apart): for every
/// vector of 16 pixels, Σ_t w[co][t]·padded[taps[t] + oh·pitch + ow] then + bias.
///
/// # Safety
/// AVX-512F; every `taps[t] + oh·pitch + ow` for ow < ow_n lies inside `padded`; `w` holds
/// B rows of `taps.len()` weights; `out` holds B planes of `oplane ≥ (oh + 1)·ow_n`.
#[target_feature(enable = "avx512f,avx512vl,avx2,fma")]
#[allow(clippy::too_many_arguments)]
unsafe fn row<const B: usize>(
    padded: &[f32],
    pitch: usize,
    taps: &[usize],
    w: &[f32],
    bias: Option<&[f32]>,
    out: &mut [f32],
    oh: usize,
    ow_n: usize,
    oplane: usize,
) {
    let k = taps.len();
    assert!(
        w.len() >= B * k && out.len() >= B * oplane && bias.is_none_or(|b| b.len() >= B),
        "conv few channels: block bounds"
    );
    let (x, wp, y) = (padded.as_ptr(), w.as_ptr(), out.as_mut_ptr());
    let mut ow0 = 0;
    while ow0 < ow_n {
        let m: __mmask16 = ((1u32 << (ow_n - ow0).min(16)) - 1) as u16;
        let base = oh * pitch + ow0;
        let mut acc = [_mm512_setzero_ps(); B];
        for (t, &tap) in taps.iter().enumerate() {
            // SAFETY (caller): inside the padded planes for the lanes under the mask.
            let v = unsafe { _mm512_maskz_loadu_ps(m, x.add(tap + base)) };
            for (co, a) in acc.iter_mut().enumerate() {
                // SAFETY (caller): `w` holds B rows of k weights.
                let wv = _mm512_set1_ps(unsafe { *wp.add(co * k + t) });
                *a = _mm512_fmadd_ps(wv, v, *a);
            }
        }
        for (co, a) in acc.iter().enumerate() {
            let a = match bias {
                Some(b) => _mm512_add_ps(*a, _mm512_set1_ps(b[co])),
                None => *a,
            };
            // SAFETY (caller): row oh of plane co, lanes under the mask.
            unsafe { _mm512_mask_storeu_ps(y.add(co * oplane + oh * ow_n + ow0), m, a) };
        }
        ow0 += 16;
    }
}

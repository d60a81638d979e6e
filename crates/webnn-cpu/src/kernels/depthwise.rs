//! Depthwise conv2d (groups = input channels = output channels), direct: nchw one plane at a
//! time (a zero-padded, phase-split copy of the input plane, then every tap as one vector
//! loop over the whole "wide" output plane), nhwc one output row at a time, vectorised over
//! channels. Planes of at most 10×10 go to [`super::depthwise_blocked`] instead.

use super::conv::{span, Geom};
use super::depthwise_blocked;
use super::epilogue::BoundEpilogue;
use super::scratch::grow;
use super::simd::simd;

/// Whether the nchw depthwise kernel's zero-padded (and, with a horizontal stride,
/// phase-split) input plane stays near the size of the work: its length follows padding and
/// strides, which may be huge (up to 2^32-1, all valid) around a tiny input and output. Such
/// convolutions take the im2col path, whose buffers follow the output.
pub fn plane_fits(g: &Geom) -> bool {
    let ph = g.h as u64 + g.padding[0] as u64 + g.padding[1] as u64;
    let pw = g.w as u64 + g.padding[2] as u64 + g.padding[3] as u64;
    let (st_h, st_w) = (g.strides[0].max(1) as u64, g.strides[1].max(1) as u64);
    let plane = ph.div_ceil(st_h).saturating_mul(st_h).saturating_mul(pw.div_ceil(st_w).saturating_mul(st_w));
    let work = (g.h as u64 * g.w as u64).saturating_add((g.oh * g.ow * g.kh * g.kw) as u64);
    plane <= work.saturating_mul(4).saturating_add(4096)
}

/// The streamed plane kernels' signature (padded plane, pitch, phase, k, stride, weights,
/// bias, output plane, oh, ow; see `depthwise_avx2::plane_streamed`).
#[cfg(target_arch = "x86_64")]
type StreamedPlane = unsafe fn(&[f32], usize, usize, usize, usize, &[f32], f32, &mut [f32], usize, usize);

/// Whether a plane takes the streamed kernels (`depthwise_avx512::plane_streamed`,
/// `depthwise_avx2::plane_streamed`): strides 1 or 2 (both the same), no dilation, a square
/// 3×3 or 5×5 window (nearly every depthwise conv of MobileNet/EfficientNet-style nets).
pub(super) fn streamed(kh: usize, kw: usize, strides: [usize; 2], dilations: [usize; 2]) -> bool {
    kh == kw && (kh == 3 || kh == 5) && (strides == [1, 1] || strides == [2, 2]) && dilations == [1, 1]
}

/// `orow[j] += Σ_k w[k]·xs[k][j]` for `K` taps over contiguous inputs, summed in order `k`: the
/// tap loop is unrolled so the loop over `j` vectorizes.
#[inline(always)]
fn taps_row<const K: usize>(orow: &mut [f32], xs: [&[f32]; K], w: [f32; K]) {
    let n = orow.len();
    let xs: [&[f32]; K] = xs.map(|x| &x[..n]);
    for j in 0..n {
        let mut s = orow[j];
        for k in 0..K {
            s = w[k].mul_add(xs[k][j], s);
        }
        orow[j] = s;
    }
}

thread_local! {
    /// Per-thread scratch of the nchw depthwise kernel: the zero-padded input plane and the
    /// wide output plane. Grown on first use, then reused by every dispatch.
    static DEPTHWISE_SCRATCH: std::cell::RefCell<PlaneScratch> = const { std::cell::RefCell::new((Vec::new(), Vec::new(), None)) };
}

/// A thread's scratch for [`depthwise_plane`]: the padded plane, the wide output plane, and
/// the geometry whose padding the padded plane holds as zeros ([`PhaseLayout::zeros_key`]).
type PlaneScratch = (Vec<f32>, Vec<f32>, Option<[usize; 8]>);

/// The layout of the nchw depthwise kernel's padded input plane: the zero-padded plane split
/// by phase, so that every tap of every output reads at `tap_offset + oh·pitch + ow`.
///
/// Padded row `r`, column `c` lives in phase plane `(r % st_h, c % st_w)` at row `r / st_h`,
/// column `c / st_w`; each phase plane has `rows` rows of `pitch` columns. With unit strides
/// this is just the padded plane.
pub(super) struct PhaseLayout {
    /// Columns per phase-plane row (the padded width, rounded up to the stride, / stride).
    pub(super) pitch: usize,
    /// Elements per phase plane.
    pub(super) phase: usize,
    /// Elements of the whole padded buffer (plus one row of slack: the wide loop's unused
    /// columns may read up to a row past the last phase plane).
    pub(super) len: usize,
    /// Elements of the wide output plane: output `(oh, ow)` at `oh·pitch + ow`.
    wide: usize,
}

impl PhaseLayout {
    pub(super) fn of(g: &Geom) -> PhaseLayout {
        let [pt, pb, pl, pr] = g.padding;
        let [st_h, st_w] = g.strides;
        let pitch = (g.w + pl + pr).div_ceil(st_w);
        let rows = (g.h + pt + pb).div_ceil(st_h);
        let phase = rows * pitch;
        PhaseLayout { pitch, phase, len: st_h * st_w * phase + pitch, wide: g.oh.saturating_sub(1) * pitch + g.ow }
    }

    /// What decides which elements of the padded plane are padding (never written by the
    /// copy of an input plane): they stay zero from one plane to the next of this geometry.
    fn zeros_key(g: &Geom) -> [usize; 8] {
        let [pt, pb, pl, pr] = g.padding;
        [g.h, g.w, pt, pb, pl, pr, g.strides[0], g.strides[1]]
    }

    /// Where each tap (ci, kh, kw) of a conv over `cin` such planes laid end to end reads,
    /// relative to output `(oh, ow)`'s `oh·pitch + ow`, taps in that order.
    pub(super) fn taps(&self, g: &Geom, cin: usize) -> Vec<usize> {
        (0..cin * g.kk())
            .map(|t| {
                let (ci, k) = (t / g.kk(), t % g.kk());
                ci * self.len + self.at(g, k / g.kw * g.dilations[0], k % g.kw * g.dilations[1])
            })
            .collect()
    }

    /// Where padded row `r`, column `c` lives.
    #[inline(always)]
    pub(super) fn at(&self, g: &Geom, r: usize, c: usize) -> usize {
        let [st_h, st_w] = g.strides;
        ((r % st_h) * st_w + c % st_w) * self.phase + (r / st_h) * self.pitch + c / st_w
    }
}

/// Copies an input plane into the zero-padded, phase-split plane `padded` ([`PhaseLayout`]):
/// every element but the padding is written. With AVX-512, unit strides and width stride 2
/// take [`fill_padded_avx512`].
#[inline(always)]
pub(super) fn fill_padded(g: &Geom, layout: &PhaseLayout, xp: &[f32], padded: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    if g.w > 0 && (g.strides == [1, 1] || g.strides[1] == 2) && super::unary::has_avx512() {
        // SAFETY: AVX-512F was just detected, on one of the strides it takes.
        unsafe { fill_padded_avx512(g, layout, xp, padded) };
        return;
    }
    let [pt, _, pl, _] = g.padding;
    for (r, xrow) in xp.chunks_exact(g.w).enumerate() {
        let row = pt + r;
        match g.strides[1] {
            1 => {
                let at = layout.at(g, row, pl);
                padded[at..at + g.w].copy_from_slice(xrow);
            }
            2 => {
                // Columns pl, pl + 2, … to one phase plane, pl + 1, pl + 3, … to the other.
                let (a, b) = (layout.at(g, row, pl), layout.at(g, row, pl + 1));
                let (lo, hi) = padded.split_at_mut(a.max(b));
                let (first, second) = if a < b { (&mut lo[a..], &mut hi[..]) } else { (&mut hi[..], &mut lo[b..]) };
                for (pair, (x0, x1)) in xrow.chunks_exact(2).zip(first.iter_mut().zip(second.iter_mut())) {
                    *x0 = pair[0];
                    *x1 = pair[1];
                }
                if g.w % 2 == 1 {
                    first[g.w / 2] = xrow[g.w - 1];
                }
            }
            _ => {
                for (i, &v) in xrow.iter().enumerate() {
                    padded[layout.at(g, row, pl + i)] = v;
                }
            }
        }
    }
}

/// [`fill_padded`] with AVX-512: rows as vector copies (`depthwise_avx512::copy_rows`), or
/// split by column phase with permutes at a width stride of 2
/// (`depthwise_avx512::split_rows`), instead of a `memcpy` call per row and a scalar pair
/// loop.
///
/// # Safety
/// The CPU must support AVX-512F; `g.w > 0`; the strides are `[1, 1]` or `[_, 2]`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn fill_padded_avx512(g: &Geom, layout: &PhaseLayout, xp: &[f32], padded: &mut [f32]) {
    let [pt, _, pl, _] = g.padding;
    if g.strides == [1, 1] {
        let first = layout.at(g, pt, pl);
        // SAFETY (caller): AVX-512F; with unit strides padded row pt + r, column pl starts at
        // `first + r·pitch`, and the plane holds every row.
        unsafe { super::depthwise_avx512::copy_rows(xp, g.w, padded, first, layout.pitch) };
    } else {
        let at = |r: usize| (layout.at(g, pt + r, pl), layout.at(g, pt + r, pl + 1));
        // SAFETY (caller): AVX-512F, width stride 2; the columns pl, pl + 2, … and pl + 1,
        // pl + 3, … of padded row pt + r are consecutive in their phase planes, inside the
        // padded plane.
        unsafe { super::depthwise_avx512::split_rows(xp, g.w, padded, at) };
    }
}

/// Two nchw output planes of the same geometry, one vector wide, with the AVX-512 streamed
/// kernel (`depthwise_avx512::pair_streamed`); `padded` holds two padded planes, zero wherever
/// the padding lies.
///
/// # Safety
/// The CPU must support AVX-512F; the geometry is `depthwise_avx512::streamed` with
/// `g.ow ≤ 16`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn depthwise_plane_pair(
    g: &Geom,
    layout: &PhaseLayout,
    xp: [&[f32]; 2],
    wk: [&[f32]; 2],
    bias: [f32; 2],
    o: [&mut [f32]; 2],
    padded: &mut [f32],
) {
    let (pa, pb) = padded[..2 * layout.len].split_at_mut(layout.len);
    fill_padded(g, layout, xp[0], pa);
    fill_padded(g, layout, xp[1], pb);
    // SAFETY (caller): AVX-512F, a streamed geometry one vector wide; both padded planes
    // have this layout and both outputs are oh × ow.
    unsafe {
        super::depthwise_avx512::pair_streamed(
            [pa, pb],
            layout.pitch,
            layout.phase,
            g.kh,
            g.strides[0],
            wk,
            bias,
            o,
            g.oh,
            g.ow,
        )
    };
}

/// One nchw output plane `o` of a depthwise conv2d: `bias` plus the taps.
///
/// The input plane is first copied into a zero-padded plane (the spec's padding made explicit),
/// so that every window lies inside it and no edge needs special handling, split by phase
/// ([`PhaseLayout`]) so that with any stride every tap reads consecutive elements. The output
/// is computed as one flat "wide" plane of the phase pitch — output `(oh, ow)` at
/// `oh·pitch + ow` — so the vector loop runs over the whole plane rather than one short row at
/// a time; the extra columns are dropped when copying out. Every output element adds its taps
/// to the bias in window order (row, then column), with fused multiply-adds.
///
/// `padded` holds `layout.len` elements, zero wherever the padding of this geometry lies (the
/// copy overwrites every other element); `wide` at least `layout.wide`. Inlined into its
/// caller's `simd` context (so it is compiled for AVX2/AVX-512 there).
#[inline(always)]
#[allow(clippy::too_many_arguments)] // one plane's geometry, taps and three buffers
fn depthwise_plane(
    g: &Geom,
    layout: &PhaseLayout,
    taps: &[usize],
    xp: &[f32],
    wk: &[f32],
    bias: f32,
    o: &mut [f32],
    padded: &mut [f32],
    wide: &mut [f32],
) {
    let [dl_h, dl_w] = g.dilations;
    let tap_offset = |kh: usize, kw: usize| layout.at(g, kh * dl_h, kw * dl_w);
    fill_padded(g, layout, xp, padded);
    let padded = &*padded;
    #[cfg(target_arch = "x86_64")]
    {
        let avx512 = super::unary::has_avx512();
        if streamed(g.kh, g.kw, g.strides, g.dilations) && (avx512 || super::unary::has_avx2()) {
            // The AVX-512 and AVX2 forms take the same arguments.
            let kernel: StreamedPlane =
                if avx512 { super::depthwise_avx512::plane_streamed } else { super::depthwise_avx2::plane_streamed };
            // SAFETY: the CPU runs the kernel chosen (just detected); a streamed geometry,
            // `padded` its phase-split plane, `o` the oh × ow output plane and `wk` one
            // weight per tap.
            unsafe { kernel(padded, layout.pitch, layout.phase, g.kh, g.strides[0], wk, bias, o, g.oh, g.ow) };
            return;
        }
        if avx512 {
            // SAFETY: AVX-512F was just detected; the taps read what the wide loop below
            // reads (up to `tap + wide − 1`, inside the padded plane), `o` is the oh × ow
            // output plane and `taps` has one offset per weight.
            unsafe { super::depthwise_avx512::plane(padded, layout.pitch, taps, wk, bias, o, g.oh, g.ow) };
            return;
        }
    }
    let wide = &mut wide[..layout.wide];
    wide.fill(bias); // every element of the plane starts from it
    window_taps(wide, padded, wk, g.kh, g.kw, tap_offset);
    for (oh, orow) in o.chunks_exact_mut(g.ow).enumerate() {
        orow.copy_from_slice(&wide[oh * layout.pitch..][..g.ow]);
    }
}

/// `out[j] += Σ_{kh,kw} w[kh·kw_n + kw] · x[j + offset(kh, kw)]`, taps in window order; a 3×3
/// window in one pass, others one window row per pass.
#[inline(always)]
fn window_taps(
    out: &mut [f32],
    x: &[f32],
    w: &[f32],
    kh_n: usize,
    kw_n: usize,
    offset: impl Fn(usize, usize) -> usize,
) {
    if kh_n == 3 && kw_n == 3 {
        let xs: [&[f32]; 9] = std::array::from_fn(|t| &x[offset(t / 3, t % 3)..]);
        taps_row::<9>(out, xs, std::array::from_fn(|t| w[t]));
        return;
    }
    for kh in 0..kh_n {
        let w = &w[kh * kw_n..][..kw_n];
        match kw_n {
            3 => taps_row::<3>(out, std::array::from_fn(|k| &x[offset(kh, k)..]), std::array::from_fn(|k| w[k])),
            5 => taps_row::<5>(out, std::array::from_fn(|k| &x[offset(kh, k)..]), std::array::from_fn(|k| w[k])),
            7 => taps_row::<7>(out, std::array::from_fn(|k| &x[offset(kh, k)..]), std::array::from_fn(|k| w[k])),
            _ => {
                for (k, &wv) in w.iter().enumerate() {
                    for (ov, xv) in out.iter_mut().zip(&x[offset(kh, k)..]) {
                        *ov += wv * xv;
                    }
                }
            }
        }
    }
}

/// One nhwc output row (image `xn`, row `oh`) of a depthwise conv2d (`o` pre-filled).
#[inline(always)]
fn depthwise_row(g: &Geom, xn: &[f32], wts: &[f32], spans: &[(usize, usize)], oh: usize, o: &mut [f32]) {
    let [st_h, st_w] = g.strides;
    let [dl_h, dl_w] = g.dilations;
    let [pt, _, pl, _] = g.padding;
    let c = g.cout;
    for kh in 0..g.kh {
        let Some(ih) = (oh * st_h + kh * dl_h).checked_sub(pt).filter(|&i| i < g.h) else { continue };
        for kw in 0..g.kw {
            let wv = &wts[(kh * g.kw + kw) * c..][..c];
            let (lo, hi) = spans[kw];
            for ow in lo..hi {
                let iw = ow * st_w + kw * dl_w - pl;
                let xv = &xn[(ih * g.w + iw) * c..][..c];
                let ov = &mut o[ow * c..][..c];
                for ((a, &b), &wgt) in ov.iter_mut().zip(xv).zip(wv) {
                    *a += b * wgt;
                }
            }
        }
    }
}

/// Whether this CPU runs `g`'s planes with the streamed AVX-512 kernel.
fn streamed_here(g: &Geom) -> bool {
    #[cfg(target_arch = "x86_64")]
    if super::unary::has_avx512() && !g.nhwc {
        return streamed(g.kh, g.kw, g.strides, g.dilations);
    }
    false
}

/// Direct depthwise conv2d (`bias` per channel, none: zeros); `ep` applied to each task's
/// output planes (nchw) or each row (nhwc) as they are finished, or each band of rows of a
/// plane ([`depthwise_blocked`]).
pub fn depthwise(
    g: &Geom,
    x: &[f32],
    wts: &[f32],
    bias: Option<&[f32]>,
    out: &mut [f32],
    ep: &BoundEpilogue<'_>,
) -> webnn_core::Result<()> {
    if depthwise_blocked::fits(g) && (depthwise_blocked::preferred(g) || !plane_fits(g)) {
        return depthwise_blocked::depthwise_blocked(g, x, wts, bias, out, ep);
    }
    planes(g, x, wts, bias, out, ep)
}

/// [`depthwise`] one nchw plane (or nhwc row) at a time, for shapes that [`plane_fits`].
pub(super) fn planes(
    g: &Geom,
    x: &[f32],
    wts: &[f32],
    bias: Option<&[f32]>,
    out: &mut [f32],
    ep: &BoundEpilogue<'_>,
) -> webnn_core::Result<()> {
    let kk = g.kk();
    let bias_of = |ch: usize| bias.map_or(0.0, |b| b[ch]);
    let c = g.cout;
    let plane = g.h * g.w;
    if !g.nhwc {
        let layout = PhaseLayout::of(g);
        let taps: smallvec::SmallVec<[usize; 64]> =
            (0..kk).map(|t| layout.at(g, t / g.kw * g.dilations[0], t % g.kw * g.dilations[1])).collect();
        // Small planes go several to a task (a task costs about a microsecond).
        let oplane = g.oh * g.ow;
        // Planes one vector wide go two at a time through the streamed AVX-512 kernel.
        #[cfg(target_arch = "x86_64")]
        let pairs = streamed_here(g) && g.ow <= 16;
        let planes_per_task = ((1 << 14) / (oplane * kk).max(1)).max(1);
        crate::par::try_chunks(out, planes_per_task * oplane, |t, planes| {
            // The scratch is borrowed outside `simd`: `LocalKey::with` is not inlined, so code
            // inside its closure would not get the AVX2 features.
            DEPTHWISE_SCRATCH.with(|cell| {
                let (padded, wide, zeroed_for) = &mut *cell.borrow_mut();
                // Room for two padded planes (pairs of planes one vector wide).
                grow(padded, 2 * layout.len)?;
                grow(wide, layout.wide)?;
                let padded = &mut padded[..2 * layout.len];
                // The copy of each plane overwrites every element but the padding: zero the
                // planes only when the previous task on this thread had another geometry.
                let key = PhaseLayout::zeros_key(g);
                if *zeroed_for != Some(key) {
                    padded.fill(0.0);
                    *zeroed_for = Some(key);
                }
                let mut each = planes.chunks_exact_mut(oplane).enumerate();
                while let Some((i, o)) = each.next() {
                    let p = t * planes_per_task + i;
                    #[cfg(target_arch = "x86_64")]
                    if pairs {
                        if let Some((_, o2)) = each.next() {
                            let (c1, c2) = (p % c, (p + 1) % c);
                            // SAFETY: `pairs` holds only with AVX-512F on a streamed geometry
                            // one vector wide.
                            simd(
                                #[inline(always)]
                                || unsafe {
                                    depthwise_plane_pair(
                                        g,
                                        &layout,
                                        [&x[p * plane..][..plane], &x[(p + 1) * plane..][..plane]],
                                        [&wts[c1 * kk..][..kk], &wts[c2 * kk..][..kk]],
                                        [bias_of(c1), bias_of(c2)],
                                        [&mut *o, &mut *o2],
                                        padded,
                                    )
                                },
                            );
                            continue;
                        }
                    }
                    let ch = p % c;
                    simd(
                        #[inline(always)]
                        || {
                            depthwise_plane(
                                g,
                                &layout,
                                &taps,
                                &x[p * plane..][..plane],
                                &wts[ch * kk..][..kk],
                                bias_of(ch),
                                o,
                                &mut padded[..layout.len],
                                wide,
                            )
                        },
                    );
                }
                // The epilogue once for the task's planes (still in cache): one call instead
                // of one per plane, which cost as much as a small plane's taps.
                ep.apply(t * planes_per_task * oplane, planes);
                Ok(())
            })
        })
    } else {
        #[cfg(target_arch = "x86_64")]
        if super::unary::has_avx512() {
            return nhwc_avx512(g, x, wts, bias, out, ep);
        }
        let spans: smallvec::SmallVec<[(usize, usize); 8]> =
            (0..g.kw).map(|k| span(g.ow, g.strides[1], k * g.dilations[1], g.padding[2], g.w)).collect();
        crate::par::chunks(out, g.ow * c, |row, o| {
            let (n, oh) = (row / g.oh, row % g.oh);
            super::conv::fill_bias_nhwc(bias, c, o);
            simd(
                #[inline(always)]
                || depthwise_row(g, &x[n * plane * c..][..plane * c], wts, &spans, oh, o),
            );
            ep.apply(row * g.ow * c, o);
        });
        Ok(())
    }
}

/// [`planes`] for nhwc with AVX-512: rows of output pixels (several to a task when they are
/// small) through [`depthwise_nhwc_avx512::row`].
///
/// Measured (`cargo bench -p webnn-cpu --bench kernels -- "nhwc depthwise"`, 1 thread, Zen 4,
/// medians of 3 alternating runs, ms; the portable nhwc row kernel → this, and the same conv
/// in nchw for comparison): 3×3 32 ch 112² 0.62 → 0.15 (nchw 0.12), 144 ch 56² 0.51 → 0.18
/// (0.15), 384 ch 14² 0.071 → 0.027 (0.042), 960 ch 7² 0.033 → 0.017 (0.051), stride 2 96 ch
/// 112² 0.35 → 0.15 (0.30), stride 2 144 ch 56² 0.13 → 0.076 (0.12), stride 2 576 ch 14²
/// 0.027 → 0.018 (0.064), 5×5 1152 ch 7² 0.107 → 0.035 (0.137), 672 ch 14² 0.29 → 0.10
/// (0.14).
#[cfg(target_arch = "x86_64")]
fn nhwc_avx512(
    g: &Geom,
    x: &[f32],
    wts: &[f32],
    bias: Option<&[f32]>,
    out: &mut [f32],
    ep: &BoundEpilogue<'_>,
) -> webnn_core::Result<()> {
    let (c, kk, plane) = (g.cout, g.kk(), g.h * g.w);
    let row_len = g.ow * c;
    let rows_per_task = ((1 << 15) / (row_len * kk).max(1)).max(1);
    // Padding taps read this row of zeros.
    let mut zeros = Vec::new();
    grow(&mut zeros, c)?;
    crate::par::chunks(out, rows_per_task * row_len, |t, rows| {
        for (i, o) in rows.chunks_exact_mut(row_len).enumerate() {
            let row = t * rows_per_task + i;
            let (n, oh) = (row / g.oh, row % g.oh);
            // SAFETY: `planes` runs this only after detecting AVX-512F; the image, row, weights
            // (kk·c), bias (c, validated) and zeros (c) have the lengths `row` asks for.
            unsafe { super::depthwise_nhwc_avx512::row(g, &x[n * plane * c..][..plane * c], &zeros, oh, wts, bias, o) };
        }
        ep.apply(t * rows_per_task * row_len, rows);
    });
    Ok(())
}

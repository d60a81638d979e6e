//! conv2d ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-conv2d)), float32 and float16
//! (computed in f32, rounded once); the geometry and float I/O shared with convTranspose2d
//! (`conv_transpose.rs`).
//!
//! conv2d: filters are repacked once in `lower` (when constant) into the GEMM operand of the
//! input layout; 1×1 stride-1 unpadded convolutions are a plain GEMM on the input, depthwise
//! convolutions (groups = input channels = output channels) run a direct kernel, everything
//! else is im2col (tiled over output pixels) + GEMM, bias pre-filled into the output; float32
//! 3×3 stride-1 nchw convolutions with a constant filter and enough channels run Winograd
//! F(4×4, 3×3) (`winograd.rs`); on AVX-512 or AVX2, other nchw convs with a window and 64+
//! taps run directly (`conv_direct/`), on AVX-512 also those with fewer
//! (`conv_few_channels/`).

use super::constants::constant_f32;
use super::epilogue::{BoundEpilogue, Epilogue, GemmEpilogue, TileBias};
use super::float_elem::{widen, FloatElem};
use super::packed_gemm::{gemm, Lhs, PackedLhs, PackedRhs, Rhs};
use super::scratch::{try_zeroed, Scratch};
use super::sgemm::Mat;
use super::simd::simd;
use super::winograd::{self, WinogradFilter};
use super::{depthwise, depthwise_blocked, In, Kernel, Out};
use half::f16;
use webnn_core::graph::{Attrs, Operation};
use webnn_core::types::{Conv2dFilterOperandLayout, InputOperandLayout};
use webnn_core::{DataType, Error, Graph, Result};

/// Largest im2col tile, in f32 elements (8 MiB).
const COL_BUDGET: usize = 1 << 21;

/// Shapes and options of one convolution, all as usize.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Geom {
    /// Batch size.
    pub n: usize,
    /// Input channels.
    pub cin: usize,
    /// Input height, width.
    pub h: usize,
    /// Input width.
    pub w: usize,
    /// Output channels.
    pub cout: usize,
    /// Output height.
    pub oh: usize,
    /// Output width.
    pub ow: usize,
    /// Filter height.
    pub kh: usize,
    /// Filter width.
    pub kw: usize,
    /// Groups.
    pub groups: usize,
    /// [sH, sW]
    pub strides: [usize; 2],
    /// [dH, dW]
    pub dilations: [usize; 2],
    /// [beginH, endH, beginW, endW]
    pub padding: [usize; 4],
    /// Channels-last input and output.
    pub nhwc: bool,
}

impl Geom {
    pub(super) fn cig(&self) -> usize {
        self.cin / self.groups
    }
    pub(super) fn cog(&self) -> usize {
        self.cout / self.groups
    }
    pub(super) fn kk(&self) -> usize {
        self.kh * self.kw
    }

    /// A convolution along the height of a one-pixel-wide image with a one-wide window (a 1-D
    /// convolution as TensorFlow and JAX export it, e.g. `[1, C, L, 1]`) as the same
    /// convolution along the width of a one-pixel-high image: every input, filter and output
    /// element keeps its flat index (the swapped axis has size 1 in all of them), but the
    /// im2col and depthwise loops then run along the long axis instead of one pixel at a
    /// time. Needs `ow == 1` and no left padding (else the only output column reads padding);
    /// the right padding, width stride and dilation then never reach the input.
    fn along_width(self) -> Geom {
        if !(self.w == 1 && self.kw == 1 && self.ow == 1 && self.padding[2] == 0 && self.h > 1) {
            return self;
        }
        Geom {
            h: 1,
            w: self.h,
            oh: 1,
            ow: self.oh,
            kh: 1,
            kw: self.kh,
            strides: [1, self.strides[0]],
            dilations: [1, self.dilations[0]],
            padding: [0, 0, self.padding[0], self.padding[1]],
            ..self
        }
    }

    /// A 1×1 unpadded convolution of a one-pixel image (the squeeze-and-excitation convs of
    /// EfficientNet-style nets, `[n, C, 1, 1]`) as its channels-last twin: with one pixel
    /// the nchw and nhwc tensors are the same bytes, and the GEMM is then one row of pixels
    /// against the packed filter instead of `cout` rows against a one-column operand (which
    /// the 8 × 48 AVX-512 tile computed 48 times over: EfficientNet-B0's 16 such convs
    /// 0.29 → 0.07 ms per dispatch, `WEBNN_PROFILE=1`, 1 thread).
    fn single_pixel_channels_last(self) -> Geom {
        if self.nhwc || (self.h, self.w, self.kh, self.kw) != (1, 1, 1, 1) || self.padding != [0; 4] {
            return self;
        }
        Geom { nhwc: true, strides: [1, 1], dilations: [1, 1], ..self }
    }
}

/// The indices `i` in `0..n` with `0 <= i*stride + offset - pad < limit`, as a range.
#[inline]
pub fn span(n: usize, stride: usize, offset: usize, pad: usize, limit: usize) -> (usize, usize) {
    let lo = if offset >= pad { 0 } else { (pad - offset).div_ceil(stride) };
    let hi = if limit + pad <= offset { 0 } else { ((limit + pad - offset - 1) / stride + 1).min(n) };
    (lo.min(hi), hi)
}

/// The data type and geometry of a conv2d or convTranspose2d from its operands' shapes and
/// attributes; `filter_hw` gives (kh, kw) from the filter's shape in its layout. Fails unless
/// every operand has rank 4 and the groups divide both channel counts.
pub(super) fn conv_geom(
    graph: &Graph,
    op: &Operation,
    filter_hw: impl FnOnce(&[usize]) -> (usize, usize),
) -> Result<(DataType, Geom)> {
    let (Attrs::Conv2d { padding, strides, dilations, groups, input_layout, .. }
    | Attrs::ConvTranspose2d { padding, strides, dilations, groups, input_layout, .. }) = op.attrs
    else {
        return Err(Error::operation(format!("{}: missing attributes", op.kind)));
    };
    let (Some(x), Some(f)) = (op.input(0), op.input(1)) else {
        return Err(Error::operation("convolution: missing operand"));
    };
    let xd = graph.descriptor(x);
    let fd = graph.descriptor(f);
    let od = graph.descriptor(op.outputs[0]);
    if xd.shape.len() != 4 || fd.shape.len() != 4 || od.shape.len() != 4 {
        return Err(Error::operation("convolution: operands must have rank 4"));
    }
    let s = |v: &[u32]| v.iter().map(|&d| d as usize).collect::<Vec<_>>();
    let (x, f, o) = (s(&xd.shape), s(&fd.shape), s(&od.shape));
    let nhwc = input_layout == InputOperandLayout::Nhwc;
    let (n, cin, h, w) = if nhwc { (x[0], x[3], x[1], x[2]) } else { (x[0], x[1], x[2], x[3]) };
    let (cout, oh, ow) = if nhwc { (o[3], o[1], o[2]) } else { (o[1], o[2], o[3]) };
    let (kh, kw) = filter_hw(&f);
    let u = |v: u32| v as usize;
    let (groups, strides, dilations, padding) = (u(groups), strides.map(u), dilations.map(u), padding.map(u));
    let g = Geom { n, cin, h, w, cout, oh, ow, kh, kw, groups, strides, dilations, padding, nhwc };
    if g.groups == 0 || cin % g.groups != 0 || cout % g.groups != 0 {
        return Err(Error::operation(format!("{}: channels not divisible by groups", op.kind)));
    }
    Ok((od.data_type, g))
}

/// Rejects (instead of indexing out of bounds later) a graph whose filter or bias sizes do
/// not match the geometry; the builder's validation guarantees they do.
pub(super) fn check_sizes(graph: &Graph, op: &Operation, filter_len: usize, cout: usize) -> Result<()> {
    let len = |slot: usize| op.input(slot).map(|id| graph.descriptor(id).len());
    if len(1) != Some(filter_len) || len(2).is_some_and(|b| b != cout) {
        return Err(Error::operation("convolution: filter or bias size does not match the shapes"));
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// conv2d

/// How a conv2d is computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ConvPath {
    /// groups = cin = cout: direct per-channel kernel.
    Depthwise,
    /// 1×1, stride 1, no padding: a GEMM on the input itself.
    Pointwise,
    /// im2col + GEMM.
    Im2col,
    /// Winograd F(4×4, 3×3) with the filter transformed at build (`winograd.rs`).
    Winograd,
    /// Few input channels, direct (`conv_few_channels/`, AVX-512 or AVX2).
    FewChannels,
    /// Direct with pixel-major sums (`conv_direct/`, AVX-512 or AVX2).
    Direct,
}

/// Index of filter element (output channel `o`, group-input channel `i`, `h`, `w`) in a
/// conv2d filter of `layout`.
fn conv_filter_index(layout: Conv2dFilterOperandLayout, g: &Geom, o: usize, i: usize, h: usize, w: usize) -> usize {
    let (cig, kh, kw, cout) = (g.cig(), g.kh, g.kw, g.cout);
    match layout {
        Conv2dFilterOperandLayout::Oihw => ((o * cig + i) * kh + h) * kw + w,
        Conv2dFilterOperandLayout::Hwio => ((h * kw + w) * cig + i) * cout + o,
        Conv2dFilterOperandLayout::Ohwi => ((o * kh + h) * kw + w) * cig + i,
        Conv2dFilterOperandLayout::Ihwo => ((i * kh + h) * kw + w) * cout + o,
    }
}

/// Repacks a conv2d filter into the operand `path` uses:
/// depthwise nchw `[C][kh·kw]`, depthwise nhwc `[kh·kw][C]`, nchw `[cout][cig·kh·kw]`
/// (GEMM lhs per group), nhwc `[groups][kh·kw·cig][cog]` (GEMM rhs per group).
pub fn pack_conv_filter(layout: Conv2dFilterOperandLayout, g: &Geom, depthwise: bool, src: &[f32], dst: &mut [f32]) {
    let (cig, cog, kk) = (g.cig(), g.cog(), g.kk());
    for o in 0..g.cout {
        let (grp, ol) = (o / cog, o % cog);
        for i in 0..cig {
            for h in 0..g.kh {
                for w in 0..g.kw {
                    let v = src[conv_filter_index(layout, g, o, i, h, w)];
                    let k = h * g.kw + w;
                    let d = match (depthwise, g.nhwc) {
                        (true, false) => o * kk + k,
                        (true, true) => k * g.cout + o,
                        (false, false) => (o * cig + i) * kk + k,
                        (false, true) => grp * kk * cig * cog + (k * cig + i) * cog + ol,
                    };
                    dst[d] = v;
                }
            }
        }
    }
}

struct Conv2dKernel {
    operands: ConvOperands,
    g: Geom,
    layout: Conv2dFilterOperandLayout,
    path: ConvPath,
    /// Output pixels per im2col tile.
    tile: usize,
    /// Applied to each output tile (float32 only; empty unless the compile passes fused one).
    epilogue: Epilogue,
    /// The constant filter packed for the GEMM (GEMM paths; None if it could not be allocated).
    packed: Option<PackedFilter>,
    /// The constant filter transformed for the Winograd path (`path` is Winograd iff Some).
    winograd: Option<WinogradFilter>,
    /// The constant filter regrouped for the direct and few-channel paths (None: regrouped
    /// at each dispatch).
    #[cfg(target_arch = "x86_64")]
    direct: Option<super::conv_direct::DirectFilter>,
}

/// Lowers conv2d.
pub fn lower_conv2d(op: &Operation, graph: &Graph) -> Result<Box<dyn Kernel>> {
    lower_conv2d_with(op, graph, Epilogue::default())
}

/// Lowers conv2d followed by a fused epilogue.
pub fn lower_conv2d_with(op: &Operation, graph: &Graph, epilogue: Epilogue) -> Result<Box<dyn Kernel>> {
    let Attrs::Conv2d { filter_layout, .. } = op.attrs else {
        return Err(Error::operation("conv2d: missing attributes"));
    };
    let (data_type, g) = conv_geom(graph, op, |f| match filter_layout {
        Conv2dFilterOperandLayout::Oihw => (f[2], f[3]),
        Conv2dFilterOperandLayout::Hwio => (f[0], f[1]),
        Conv2dFilterOperandLayout::Ohwi | Conv2dFilterOperandLayout::Ihwo => (f[1], f[2]),
    })?;
    let (cin, cout, kh, kw, oh, ow) = (g.cin, g.cout, g.kh, g.kw, g.oh, g.ow);
    let g = g.along_width().single_pixel_channels_last();
    let path = if g.groups == cin && g.groups == cout && (depthwise_blocked::fits(&g) || depthwise::plane_fits(&g)) {
        ConvPath::Depthwise
    } else if kh == 1 && kw == 1 && g.strides == [1, 1] && g.padding == [0; 4] {
        ConvPath::Pointwise
    } else if cfg!(target_arch = "x86_64") && few_channels_applies(&g) {
        ConvPath::FewChannels
    } else {
        ConvPath::Im2col
    };
    check_sizes(graph, op, cout * g.cig() * g.kk(), cout)?;
    let kdim = g.cig() * g.kk();
    let pixels = oh * ow;
    let tile = if kdim * pixels <= COL_BUDGET { pixels } else { (COL_BUDGET / kdim).max(64).min(pixels) };
    let weights = op.input(1).and_then(|id| constant_f32(graph, id)).and_then(|raw| {
        let mut packed = try_zeroed(raw.len())?;
        pack_conv_filter(filter_layout, &g, path == ConvPath::Depthwise, &raw, &mut packed);
        Some(packed)
    });
    let bias = op.input(2).and_then(|id| constant_f32(graph, id));
    // Winograd needs the filter transformed at build: a constant one (else im2col).
    let winograd = weights
        .as_ref()
        .filter(|_| {
            path == ConvPath::Im2col && data_type == DataType::Float32 && winograd::applies(&g) && winograd::pays(&g)
        })
        .and_then(|w| WinogradFilter::new(&g, w));
    let path = if winograd.is_some() {
        ConvPath::Winograd
    } else if path == ConvPath::Im2col && direct_applies(&g) {
        ConvPath::Direct
    } else {
        path
    };
    #[cfg(target_arch = "x86_64")]
    let direct = weights
        .as_ref()
        .filter(|_| matches!(path, ConvPath::Direct | ConvPath::FewChannels))
        .and_then(|w| super::conv_direct::DirectFilter::new(&g, w));
    let packed = weights
        .as_ref()
        .filter(|_| {
            !matches!(path, ConvPath::Depthwise | ConvPath::Winograd | ConvPath::FewChannels | ConvPath::Direct)
        })
        .and_then(|w| PackedFilter::new(&g, w));
    // Packed for the GEMM, the filter is not needed in the other layout too: an empty vector
    // still marks it as constant (so `run` does not repack the operand).
    #[cfg(target_arch = "x86_64")]
    let regrouped = direct.is_some();
    #[cfg(not(target_arch = "x86_64"))]
    let regrouped = false;
    let weights = if packed.is_some() || winograd.is_some() || regrouped { Some(Vec::new()) } else { weights };
    Ok(Box::new(Conv2dKernel {
        operands: ConvOperands::new(data_type, weights, bias),
        g,
        layout: filter_layout,
        path,
        tile,
        epilogue,
        packed,
        winograd,
        #[cfg(target_arch = "x86_64")]
        direct,
    }))
}

/// Whether the direct pixel-major kernel takes `g` on this CPU.
fn direct_applies(g: &Geom) -> bool {
    #[cfg(target_arch = "x86_64")]
    return super::conv_direct::applies(g);
    #[cfg(not(target_arch = "x86_64"))]
    return {
        let _ = g;
        false
    };
}

/// Whether the direct few-input-channel kernel takes `g` on this CPU.
fn few_channels_applies(g: &Geom) -> bool {
    #[cfg(target_arch = "x86_64")]
    return super::conv_few_channels::applies(g);
    #[cfg(not(target_arch = "x86_64"))]
    return {
        let _ = g;
        false
    };
}

/// Fills every output pixel's channels with the bias (or zeros).
pub(super) fn fill_bias(g: &Geom, bias: Option<&[f32]>, out: &mut [f32]) {
    let plane = g.oh * g.ow;
    match bias {
        None => out.fill(0.0),
        Some(b) if g.nhwc => {
            crate::par::chunks(out, g.cout * g.ow.max(1), |_, row| fill_bias_nhwc(Some(b), g.cout, row))
        }
        Some(b) => crate::par::chunks(out, plane, |i, p| p.fill(b[i % g.cout])),
    }
}

/// Fills each pixel of the nhwc run `pixels` (`c` channels each) with the bias (or zeros).
pub(super) fn fill_bias_nhwc(bias: Option<&[f32]>, c: usize, pixels: &mut [f32]) {
    match bias {
        None => pixels.fill(0.0),
        Some(b) => {
            for px in pixels.chunks_exact_mut(c) {
                px.copy_from_slice(&b[..c]);
            }
        }
    }
}

/// An element im2col copies: f32 for the float convs, u8 for the quantized ones
/// (`kernels::quantized`), whose padding is the input's zero point.
pub(super) trait ColElement: Copy + Send + Sync {
    /// `dst.copy_from_slice(src)`, as fast as this type allows for short runs.
    fn copy_run(dst: &mut [Self], src: &[Self]);
}

impl ColElement for f32 {
    #[inline(always)]
    fn copy_run(dst: &mut [f32], src: &[f32]) {
        super::simd::copy_short(dst, src)
    }
}

impl ColElement for u8 {
    #[inline(always)]
    fn copy_run(dst: &mut [u8], src: &[u8]) {
        dst.copy_from_slice(src)
    }
}

/// Row `r` = (ci, kh, kw) of an nchw im2col tile: output pixels `p0..p0 + dst.len()`;
/// padding reads `pad`.
#[inline(always)]
fn im2col_row_nchw<T: ColElement>(g: &Geom, xg: &[T], p0: usize, r: usize, dst: &mut [T], pad: T) {
    let [st_h, st_w] = g.strides;
    let [dl_h, dl_w] = g.dilations;
    let [pt, _, pl, _] = g.padding;
    let hw = g.h * g.w;
    let pcount = dst.len();
    let (ci, k) = (r / g.kk(), r % g.kk());
    let (kh, kw) = (k / g.kw, k % g.kw);
    let xp = &xg[ci * hw..][..hw];
    let (lo, hi) = span(g.ow, st_w, kw * dl_w, pl, g.w);
    let mut p = 0;
    while p < pcount {
        let pixel = p0 + p;
        let (oh, ow0) = (pixel / g.ow, pixel % g.ow);
        let seg = (g.ow - ow0).min(pcount - p);
        let d = &mut dst[p..p + seg];
        match (oh * st_h + kh * dl_h).checked_sub(pt).filter(|&i| i < g.h) {
            None => d.fill(pad),
            Some(ih) => {
                let xrow = &xp[ih * g.w..][..g.w];
                // Output columns ow0..ow0+seg: zeros, then the real input, then zeros.
                let a = lo.clamp(ow0, ow0 + seg);
                let b = hi.clamp(a, ow0 + seg);
                d[..a - ow0].fill(pad);
                d[b - ow0..].fill(pad);
                if a < b {
                    let first = a * st_w + kw * dl_w - pl;
                    let real = &mut d[a - ow0..b - ow0];
                    let n = b - a;
                    let src = &xrow[first..first + (n - 1) * st_w + 1];
                    match st_w {
                        1 => T::copy_run(real, src),
                        // Every other element: pairs, so the loop vectorises (loads and a
                        // permute) instead of gathering one element at a time.
                        2 => {
                            for (v, pair) in real[..n - 1].iter_mut().zip(src.chunks_exact(2)) {
                                *v = pair[0];
                            }
                            real[n - 1] = src[2 * (n - 1)];
                        }
                        _ => {
                            for (j, v) in real.iter_mut().enumerate() {
                                *v = src[j * st_w];
                            }
                        }
                    }
                }
            }
        }
        p += seg;
    }
}

/// Fills the im2col tile for image channels `xg` (nchw: the group's `cig` input planes of
/// one image) and output pixels `p0..p0 + pcount`: row (ci, kh, kw), column pixel.
/// Padding reads `pad` (0 for float; the zero point for quantized inputs).
pub(super) fn im2col_nchw<T: ColElement>(g: &Geom, xg: &[T], p0: usize, pcount: usize, col: &mut [T], pad: T) {
    if col.len() >= 1 << 15 {
        crate::par::chunks(col, pcount, |r, dst| {
            simd(
                #[inline(always)]
                || im2col_row_nchw(g, xg, p0, r, dst, pad),
            )
        });
    } else {
        simd(
            #[inline(always)]
            || {
                for (r, dst) in col.chunks_mut(pcount).enumerate() {
                    im2col_row_nchw(g, xg, p0, r, dst, pad);
                }
            },
        );
    }
}

/// Output pixels per GEMM below which nchw im2col is filled pixel by pixel
/// ([`im2col_nchw_by_pixel`]): a row of the (ci, kh, kw) layout then holds so few values that
/// its set-up (index arithmetic, the window's valid span) costs more than its copies.
const BY_PIXEL_MAX: usize = 16;

/// The transposed im2col tile of [`im2col_nchw`]: row = output pixel `p0 + p`, column
/// (ci, kh, kw), so `col` is the same matrix read column-major (`Mat { rs: 1, cs: kdim }`).
/// Per pixel, each (ci, kh) window row is one copy of its valid span.
fn im2col_nchw_by_pixel(g: &Geom, xg: &[f32], p0: usize, pcount: usize, col: &mut [f32]) {
    let [st_h, st_w] = g.strides;
    let [dl_h, dl_w] = g.dilations;
    let [pt, _, pl, _] = g.padding;
    let (hw, kk) = (g.h * g.w, g.kk());
    let kdim = g.cig() * kk;
    for (p, dst) in col[..pcount * kdim].chunks_exact_mut(kdim).enumerate() {
        let pixel = p0 + p;
        let (oh, ow) = (pixel / g.ow, pixel % g.ow);
        let (lo, hi) = span(g.kw, dl_w, ow * st_w, pl, g.w);
        let iw0 = (ow * st_w + lo * dl_w).saturating_sub(pl);
        for (ci, dci) in dst.chunks_exact_mut(kk).enumerate() {
            let xp = &xg[ci * hw..][..hw];
            for (kh, d) in dci.chunks_exact_mut(g.kw).enumerate() {
                let Some(ih) = (oh * st_h + kh * dl_h).checked_sub(pt).filter(|&i| i < g.h) else {
                    d.fill(0.0);
                    continue;
                };
                d[..lo].fill(0.0);
                d[hi..].fill(0.0);
                if lo >= hi {
                    continue; // the window lies in the padding (iw0 may be past the row)
                }
                let xrow = &xp[ih * g.w..][..g.w];
                if dl_w == 1 {
                    super::simd::copy_short(&mut d[lo..hi], &xrow[iw0..iw0 + (hi - lo)]);
                } else {
                    for (j, v) in d[lo..hi].iter_mut().enumerate() {
                        *v = xrow[iw0 + j * dl_w];
                    }
                }
            }
        }
    }
}

/// im2col for nhwc: row = output pixel, column (kh, kw, ci) over the group's channels.
fn im2col_nhwc(g: &Geom, xn: &[f32], grp: usize, p0: usize, col: &mut [f32]) {
    let [st_h, st_w] = g.strides;
    let [dl_h, dl_w] = g.dilations;
    let [pt, _, pl, _] = g.padding;
    let cig = g.cig();
    let kdim = cig * g.kk();
    let fill = |p: usize, dst: &mut [f32]| {
        let pixel = p0 + p;
        let (oh, ow) = (pixel / g.ow, pixel % g.ow);
        let (lo, hi) = span(g.kw, dl_w, ow * st_w, pl, g.w);
        for kh in 0..g.kh {
            let d = &mut dst[kh * g.kw * cig..][..g.kw * cig];
            let Some(ih) = (oh * st_h + kh * dl_h).checked_sub(pt).filter(|&i| i < g.h) else {
                d.fill(0.0);
                continue;
            };
            d[..lo * cig].fill(0.0);
            d[hi * cig..].fill(0.0);
            if lo >= hi {
                continue;
            }
            let iw0 = ow * st_w + lo * dl_w - pl;
            let src = (ih * g.w + iw0) * g.cin + grp * cig;
            if dl_w == 1 && cig == g.cin {
                // The window's real columns are contiguous in the input row.
                d[lo * cig..hi * cig].copy_from_slice(&xn[src..src + (hi - lo) * cig]);
            } else {
                for k in 0..hi - lo {
                    let s = src + k * dl_w * g.cin;
                    d[(lo + k) * cig..][..cig].copy_from_slice(&xn[s..s + cig]);
                }
            }
        }
    };
    if col.len() >= 1 << 15 {
        // Tasks of 16 pixels.
        crate::par::chunks(col, 16 * kdim, |t, rows| {
            for (j, dst) in rows.chunks_mut(kdim).enumerate() {
                fill(16 * t + j, dst);
            }
        });
    } else {
        col.chunks_mut(kdim).enumerate().for_each(|(p, dst)| fill(p, dst));
    }
}

/// The filter of a GEMM-path conv2d packed once at build, one operand per group: the GEMM's
/// left operand for nchw (`[cog][cig·kh·kw]`), its right operand for nhwc (`[kh·kw·cig][cog]`).
enum PackedFilter {
    Nchw(Vec<PackedLhs>),
    Nhwc(Vec<PackedRhs>),
}

impl PackedFilter {
    /// Packs `wts` (as [`pack_conv_filter`] lays it out); None if an allocation fails (the
    /// kernel then packs at run time).
    fn new(g: &Geom, wts: &[f32]) -> Option<PackedFilter> {
        let (cog, kdim) = (g.cog(), g.cig() * g.kk());
        if g.nhwc {
            (0..g.groups)
                .map(|grp| PackedRhs::new(kdim, cog, Mat::rows(&wts[grp * kdim * cog..], cog)))
                .collect::<Option<_>>()
                .map(PackedFilter::Nhwc)
        } else {
            (0..g.groups)
                .map(|grp| PackedLhs::new(cog, kdim, Mat::rows(&wts[grp * cog * kdim..], kdim)))
                .collect::<Option<_>>()
                .map(PackedFilter::Nchw)
        }
    }
}

/// conv2d on f32 data through GEMM (pointwise or im2col): the bias and then `ep` are applied
/// to each output tile as the GEMM finishes it. `packed` is the filter packed at build, else
/// `wts` is read as [`pack_conv_filter`] lays it out.
#[allow(clippy::too_many_arguments)]
fn conv_gemm(
    g: &Geom,
    path: ConvPath,
    tile: usize,
    x: &[f32],
    wts: &[f32],
    packed: Option<&PackedFilter>,
    bias: Option<&[f32]>,
    col_scratch: &Scratch,
    out: &mut [f32],
    ep: &BoundEpilogue<'_>,
) -> webnn_core::Result<()> {
    let (cig, cog, kk) = (g.cig(), g.cog(), g.kk());
    let kdim = cig * kk;
    let hw = g.h * g.w;
    let pixels = g.oh * g.ow;
    let mut col = col_scratch.get(if path == ConvPath::Im2col { kdim * tile } else { 0 })?;
    for n in 0..g.n {
        for grp in 0..g.groups {
            let bias = bias.map(|b| &b[grp * cog..][..cog]);
            if !g.nhwc {
                let a = match packed {
                    Some(PackedFilter::Nchw(p)) => Lhs::Packed(&p[grp]),
                    _ => Lhs::Strided(Mat::rows(&wts[grp * cog * kdim..], kdim)),
                };
                let xg = &x[(n * g.cin + grp * cig) * hw..][..cig * hw];
                let obase = (n * g.cout + grp * cog) * pixels;
                // Row i of a tile is output channel i of the group.
                let tile_epilogue = |p0: usize| GemmEpilogue {
                    ep,
                    bias: bias.map_or(TileBias::None, TileBias::Rows),
                    base: obase + p0,
                    rs: pixels,
                };
                if path == ConvPath::Pointwise {
                    gemm(
                        cog,
                        pixels,
                        cig,
                        a,
                        Rhs::Strided(Mat::rows(xg, hw)),
                        &mut out[obase..],
                        pixels,
                        true,
                        &tile_epilogue(0),
                    )?;
                    continue;
                }
                let mut p0 = 0;
                while p0 < pixels {
                    let pc = tile.min(pixels - p0);
                    let c = &mut col[..kdim * pc];
                    let b = if pc < BY_PIXEL_MAX {
                        im2col_nchw_by_pixel(g, xg, p0, pc, c);
                        Mat { data: c, rs: 1, cs: kdim }
                    } else {
                        im2col_nchw(g, xg, p0, pc, c, 0.0);
                        Mat::rows(c, pc)
                    };
                    gemm(cog, pc, kdim, a, Rhs::Strided(b), &mut out[obase + p0..], pixels, true, &tile_epilogue(p0))?;
                    p0 += pc;
                }
            } else {
                let b = match packed {
                    Some(PackedFilter::Nhwc(p)) => Rhs::Packed(&p[grp]),
                    _ => Rhs::Strided(Mat::rows(&wts[grp * kdim * cog..], cog)),
                };
                let xn = &x[n * hw * g.cin..][..hw * g.cin];
                let obase = n * pixels * g.cout + grp * cog;
                // Row i of a tile is output pixel p0 + i; column j output channel j of the group.
                let tile_epilogue = |p0: usize| GemmEpilogue {
                    ep,
                    bias: bias.map_or(TileBias::None, TileBias::Cols),
                    base: obase + p0 * g.cout,
                    rs: g.cout,
                };
                if path == ConvPath::Pointwise {
                    let a = Mat { data: &xn[grp * cig..], rs: g.cin, cs: 1 };
                    gemm(pixels, cog, cig, Lhs::Strided(a), b, &mut out[obase..], g.cout, true, &tile_epilogue(0))?;
                    continue;
                }
                let mut p0 = 0;
                while p0 < pixels {
                    let pc = tile.min(pixels - p0);
                    let c = &mut col[..kdim * pc];
                    im2col_nhwc(g, xn, grp, p0, c);
                    gemm(
                        pc,
                        cog,
                        kdim,
                        Lhs::Strided(Mat::rows(c, kdim)),
                        b,
                        &mut out[obase + p0 * g.cout..],
                        g.cout,
                        true,
                        &tile_epilogue(p0),
                    )?;
                    p0 += pc;
                }
            }
        }
    }
    Ok(())
}

/// conv2d on f32 data by im2col + GEMM whatever the shape (`wts` as [`pack_conv_filter`]
/// lays it out, packed at run time), for the tests and benchmarks that compare another path
/// with it.
pub fn im2col_conv(
    g: &Geom,
    x: &[f32],
    wts: &[f32],
    bias: Option<&[f32]>,
    col_scratch: &Scratch,
    out: &mut [f32],
    ep: &BoundEpilogue<'_>,
) -> webnn_core::Result<()> {
    let (kdim, pixels) = (g.cig() * g.kk(), g.oh * g.ow);
    let tile = if kdim * pixels <= COL_BUDGET { pixels } else { (COL_BUDGET / kdim).max(64).min(pixels) };
    conv_gemm(g, ConvPath::Im2col, tile, x, wts, None, bias, col_scratch, out, ep)
}

impl Conv2dKernel {
    fn compute(
        &self,
        x: &[f32],
        wts: &[f32],
        bias: Option<&[f32]>,
        out: &mut [f32],
        ep: &BoundEpilogue<'_>,
    ) -> webnn_core::Result<()> {
        let g = &self.g;
        match self.path {
            ConvPath::Depthwise => depthwise::depthwise(g, x, wts, bias, out, ep),
            #[cfg(target_arch = "x86_64")]
            ConvPath::FewChannels | ConvPath::Direct => {
                let regrouped;
                let f = match &self.direct {
                    Some(f) if self.operands.weights.is_some() => f,
                    _ => {
                        regrouped = super::conv_direct::DirectFilter::new(g, wts).ok_or_else(|| {
                            Error::unknown("conv2d: cannot allocate the regrouped filter of the direct kernel")
                        })?;
                        &regrouped
                    }
                };
                let planes = &self.operands.col_scratch;
                if self.path == ConvPath::FewChannels {
                    super::conv_few_channels::conv(g, x, f, bias, planes, out, ep)
                } else {
                    super::conv_direct::conv(g, x, f, bias, planes, out, ep)
                }
            }
            ConvPath::Winograd => match &self.winograd {
                Some(f) => winograd::conv(g, x, f, bias, out, ep),
                None => Err(Error::unknown("conv2d: the Winograd filter is missing")),
            },
            _ => {
                // The filter packed at build serves only when it is the operand being used.
                let packed = if self.operands.weights.is_some() { self.packed.as_ref() } else { None };
                conv_gemm(g, self.path, self.tile, x, wts, packed, bias, &self.operands.col_scratch, out, ep)
            }
        }
    }
}

/// What conv2d and convTranspose2d run with alike: the output's data type, the filter (packed)
/// and bias widened at build when they are constants, and the scratch of everything else.
pub(super) struct ConvOperands {
    data_type: DataType,
    /// The constant filter, packed (empty when only a kernel's own packing of it is used).
    pub(super) weights: Option<Vec<f32>>,
    bias: Option<Vec<f32>>,
    in_scratch: Scratch,
    out_scratch: Scratch,
    filter_scratch: Scratch,
    weight_scratch: Scratch,
    bias_scratch: Scratch,
    /// The kernel's column (or padded plane) buffer.
    pub(super) col_scratch: Scratch,
}

impl ConvOperands {
    /// Operands of `data_type` with the constant filter (packed) and bias, if any.
    pub(super) fn new(data_type: DataType, weights: Option<Vec<f32>>, bias: Option<Vec<f32>>) -> ConvOperands {
        ConvOperands {
            data_type,
            weights,
            bias,
            in_scratch: Scratch::default(),
            out_scratch: Scratch::default(),
            filter_scratch: Scratch::default(),
            weight_scratch: Scratch::default(),
            bias_scratch: Scratch::default(),
            col_scratch: Scratch::default(),
        }
    }

    /// Runs `compute(x, weights, bias, out)` in f32 on the input, filter and bias operands of
    /// `inputs` ([`with_weights`], `pack` packing a non-constant filter) into `outputs[0]`
    /// ([`with_f32_io`]); nothing without input or filter.
    pub(super) fn run(
        &self,
        inputs: &[Option<In<'_>>],
        outputs: &mut [Out<'_>],
        pack: impl Fn(&[f32], &mut [f32]),
        compute: impl FnOnce(&[f32], &[f32], Option<&[f32]>, &mut [f32]) -> webnn_core::Result<()>,
    ) -> webnn_core::Result<()> {
        let (Some(x), Some(filter)) = (inputs[0], inputs[1]) else { return Ok(()) };
        let bias = inputs.get(2).copied().flatten();
        let scratches = [&self.filter_scratch, &self.weight_scratch, &self.bias_scratch];
        with_weights(self.data_type, filter, bias, &self.weights, &self.bias, scratches, pack, |wts, b| {
            with_f32_io(self.data_type, x, &mut outputs[0], &self.in_scratch, &self.out_scratch, |xs, os| {
                compute(xs, wts, b, os)
            })
        })
    }
}

/// Widens the filter and bias operands of a convolution to f32 and packs the filter with
/// `pack` when they are not constants, then calls `f(weights, bias)`.
#[allow(clippy::too_many_arguments)]
pub(super) fn with_weights<R>(
    data_type: DataType,
    filter: In<'_>,
    bias: Option<In<'_>>,
    const_w: &Option<Vec<f32>>,
    const_b: &Option<Vec<f32>>,
    scratches: [&Scratch; 3],
    pack: impl Fn(&[f32], &mut [f32]),
    f: impl FnOnce(&[f32], Option<&[f32]>) -> webnn_core::Result<R>,
) -> webnn_core::Result<R> {
    let [filter_s, weight_s, bias_s] = scratches;
    let mut ws = weight_s.get(if const_w.is_some() { 0 } else { filter.desc.len() })?;
    let wts: &[f32] = match const_w {
        Some(w) => w,
        None => {
            let mut fs = filter_s.get(if data_type == DataType::Float16 { filter.desc.len() } else { 0 })?;
            let raw = widen(data_type, filter.bytes, &mut fs);
            pack(raw, &mut ws);
            &ws
        }
    };
    let mut bs = bias_s.get(match (const_b, bias) {
        (None, Some(b)) if data_type == DataType::Float16 => b.desc.len(),
        _ => 0,
    })?;
    let b: Option<&[f32]> = match (const_b, bias) {
        (Some(b), _) => Some(b),
        (None, Some(b)) => Some(widen(data_type, b.bytes, &mut bs)),
        (None, None) => None,
    };
    f(wts, b)
}

/// Runs `compute` on f32 views of input and output: float32 directly, float16 through
/// scratch buffers (rounded once at the end).
pub(super) fn with_f32_io(
    data_type: DataType,
    input: In<'_>,
    out: &mut Out<'_>,
    in_s: &Scratch,
    out_s: &Scratch,
    compute: impl FnOnce(&[f32], &mut [f32]) -> webnn_core::Result<()>,
) -> webnn_core::Result<()> {
    if data_type == DataType::Float16 {
        let mut xs = in_s.get(input.desc.len())?;
        f16::slice_to_f32(input.slice(), &mut xs);
        let mut os = out_s.get(out.desc.len())?;
        compute(&xs, &mut os)?;
        f16::slice_from_f32(&os, out.slice_mut());
        Ok(())
    } else {
        compute(input.slice(), out.slice_mut())
    }
}

impl Kernel for Conv2dKernel {
    fn run(&self, inputs: &[Option<In<'_>>], outputs: &mut [Out<'_>]) -> webnn_core::Result<()> {
        let depthwise = self.path == ConvPath::Depthwise;
        let ep = self.epilogue.bind(inputs);
        self.operands.run(
            inputs,
            outputs,
            |raw, dst| pack_conv_filter(self.layout, &self.g, depthwise, raw, dst),
            |xs, wts, b, os| self.compute(xs, wts, b, os, &ep),
        )
    }
}

#[cfg(test)]
#[path = "conv_tests.rs"]
pub(crate) mod tests;

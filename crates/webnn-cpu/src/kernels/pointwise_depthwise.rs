//! A 1×1 conv2d whose result only a depthwise conv2d reads (the expansion and depthwise
//! convs of an inverted-residual block: MobileNetV2, EfficientNet), run as one step by
//! bands of the depthwise conv's output rows, so that the expanded tensor is never written
//! out whole (at 96 channels on 112², 4.8 MB: written by the pointwise conv and read back by
//! the depthwise one, from L3 or DRAM).
//!
//! For each band of output rows, and each group of [`CHUNK`] channels, the pointwise conv
//! computes the input rows the band reads (its window's reach: a few rows more than the band
//! times the stride) into a thread's scratch, the GEMM's tile epilogue adding its bias and
//! activations, and the depthwise plane kernel (`depthwise::planes_on_thread`) runs on that
//! band as on a plane whose top and bottom padding are the band's edges. Every value is the
//! same f32 operations in the same order as the two steps apart (the same GEMM, the same taps),
//! so the result is the unfused one bit for bit (tested); the rows at a band's edge are
//! computed by the pointwise conv for both bands that read them (with 3×3 stride 2 and
//! 13-row bands, one row in 27).
//!
//! Channels split across threads in contiguous ranges (each thread reads all of the input:
//! `cin` is small in these blocks).
//!
//! Which pairs fuse: [`fuses`], asked by the compile pass `compile::pointwise_depthwise`.

use super::constants::constant_f32;
use super::conv::{check_sizes, conv2d_geom, pack_conv_filter, Geom};
use super::depthwise;
use super::epilogue::{Epilogue, EpilogueStep, TileBias};
use super::packed_gemm::{gemm, Lhs, PerTile, Rhs, TileOut};
use super::scratch::grow;
use super::sgemm::Mat;
use super::{In, Kernel, Out};
use std::cell::RefCell;
use webnn_core::graph::{Attrs, Operation};
use webnn_core::types::InputOperandLayout;
use webnn_core::{DataType, Error, Graph, Result};

/// Channels whose pointwise rows are computed together (two AVX-512 micro-panels of rows).
const CHUNK: usize = 16;

/// Bytes of pointwise output per band and chunk (the band's input rows, `max(CHUNK, cin)`
/// channels): the scratch and the input rows it is computed from stay in L2 while the
/// depthwise planes read them.
const BAND_BYTES: usize = 192 << 10;

/// Expanded tensors smaller than this stay in cache between two separate steps: those pairs
/// run apart.
const MIN_EXPANDED_BYTES: usize = 1 << 20;

thread_local! {
    /// A thread's pointwise rows of one band and chunk.
    static BAND: RefCell<Vec<f32>> = const { RefCell::new(Vec::new()) };
}

/// Whether `pointwise` (a conv2d whose result only `depthwise` reads) and `depthwise` run as
/// one step: both float32 nchw with constant filters and biases; `pointwise` 1×1, stride 1,
/// unpadded, one group; `depthwise` groups = channels, its padding within its window's reach
/// (every band of output rows then reads at least one input row), on planes that
/// `depthwise` runs one at a time; and an expanded tensor of at least 1 MiB.
pub fn fuses(graph: &Graph, pointwise: &Operation, depthwise: &Operation) -> bool {
    let (Ok((DataType::Float32, p, _)), Ok((DataType::Float32, d, _))) =
        (conv2d_geom(graph, pointwise), conv2d_geom(graph, depthwise))
    else {
        return false;
    };
    let nchw = |op: &Operation| matches!(op.attrs, Attrs::Conv2d { input_layout: InputOperandLayout::Nchw, .. });
    let constants = |op: &Operation| {
        op.input(1).is_some_and(|f| constant_f32(graph, f).is_some())
            && op.input(2).is_none_or(|b| constant_f32(graph, b).is_some())
    };
    let reach = |k: usize, dl: usize| (k - 1) * dl;
    nchw(pointwise)
        && nchw(depthwise)
        && constants(pointwise)
        && constants(depthwise)
        && (p.kh, p.kw, p.strides, p.padding, p.groups) == (1, 1, [1, 1], [0; 4], 1)
        && d.groups == d.cin
        && d.cout == d.cin
        && d.cin == p.cout
        && (d.n, d.h, d.w) == (p.n, p.h, p.w)
        && d.h >= 2
        && d.w >= 2
        && d.padding[0].max(d.padding[1]) <= reach(d.kh, d.dilations[0])
        && d.padding[2].max(d.padding[3]) <= reach(d.kw, d.dilations[1])
        && depthwise::plane_fits(&d)
        && depthwise::runs_planes(&d)
        && d.cin * d.h * d.w * 4 >= MIN_EXPANDED_BYTES
}

/// The fused step: `x → conv2d 1×1 (+ bias, activations) → depthwise conv2d (+ bias,
/// epilogue)`.
struct PointwiseDepthwise {
    /// The pointwise conv's input channels.
    cin: usize,
    /// Its filter, `[channels][cin]`, and bias.
    pw_filter: Vec<f32>,
    pw_bias: Option<Vec<f32>>,
    /// The activations applied to its result.
    pw_epilogue: Epilogue,
    /// The depthwise conv (its input: the pointwise result).
    dw: Geom,
    /// Its filter, `[channels][kh·kw]`, and bias.
    dw_filter: Vec<f32>,
    dw_bias: Option<Vec<f32>>,
    /// Its epilogue (binary steps read the fused step's inputs from slot 5 on).
    dw_epilogue: Epilogue,
    /// Output rows per band.
    band_rows: usize,
}

/// Lowers the fused pair (which [`fuses`] accepted): `pw_epilogue` holds only activations;
/// the fused step's inputs are the pointwise conv's three slots, then the depthwise conv's
/// filter and bias, then what `dw_epilogue`'s binary steps read.
pub fn lower(
    graph: &Graph,
    pointwise: &Operation,
    depthwise: &Operation,
    pw_epilogue: Epilogue,
    dw_epilogue: Epilogue,
) -> Result<Box<dyn Kernel>> {
    if !fuses(graph, pointwise, depthwise) || !activations_only(&pw_epilogue) {
        return Err(Error::operation("conv2d: this pointwise and depthwise pair does not fuse"));
    }
    let (_, p, pw_layout) = conv2d_geom(graph, pointwise)?;
    let (_, d, dw_layout) = conv2d_geom(graph, depthwise)?;
    check_sizes(graph, pointwise, p.cout * p.cin, p.cout)?;
    check_sizes(graph, depthwise, d.cout * d.kk(), d.cout)?;
    let constant = |op: &Operation, slot: usize| op.input(slot).and_then(|id| constant_f32(graph, id));
    let packed = |op: &Operation, g: &Geom, layout, depthwise: bool| -> Result<Vec<f32>> {
        let raw = constant(op, 1).ok_or_else(|| Error::operation("conv2d: the filter is not a constant"))?;
        let mut dst = super::scratch::try_zeroed(raw.len())
            .ok_or_else(|| Error::unknown("conv2d: out of memory packing a filter"))?;
        pack_conv_filter(layout, g, depthwise, &raw, &mut dst);
        Ok(dst)
    };
    let reach = (d.kh - 1) * d.dilations[0] + 1;
    let max_rows = (BAND_BYTES / 4 / (d.w * p.cin.max(CHUNK))).max(reach);
    let band_rows = ((max_rows - reach) / d.strides[0] + 1).min(d.oh);
    Ok(Box::new(PointwiseDepthwise {
        cin: p.cin,
        pw_filter: packed(pointwise, &p, pw_layout, false)?,
        pw_bias: constant(pointwise, 2),
        pw_epilogue,
        dw: d,
        dw_filter: packed(depthwise, &d, dw_layout, true)?,
        dw_bias: constant(depthwise, 2),
        dw_epilogue,
        band_rows,
    }))
}

/// The geometry of output rows `or0..or1` of `g`, computed from the input rows they read
/// (returned: the first), the rows outside the plane as padding.
fn band(g: &Geom, or0: usize, or1: usize) -> (Geom, usize) {
    let (s, pt) = (g.strides[0], g.padding[0]);
    let reach = (g.kh - 1) * g.dilations[0] + 1;
    // Input rows i0..i1 (padded coordinates: row r of the plane is pt + r).
    let (i0, i1) = (or0 * s, (or1 - 1) * s + reach);
    let (r0, r1) = (i0.saturating_sub(pt).min(g.h), i1.saturating_sub(pt).min(g.h));
    let padding = [(pt + r0) - i0, i1 - (pt + r1), g.padding[2], g.padding[3]];
    (Geom { n: 1, h: r1 - r0, oh: or1 - or0, padding, ..*g }, r0)
}

impl PointwiseDepthwise {
    /// Output channels `c0..` of one image (`out`: their planes), from its input `x`.
    fn channels(
        &self,
        x: &[f32],
        c0: usize,
        out: &mut [f32],
        first: usize,
        ep: &super::epilogue::BoundEpilogue<'_>,
    ) -> Result<()> {
        let g = &self.dw;
        let (hw, oplane, kk) = (g.h * g.w, g.oh * g.ow, g.kk());
        let channels = out.len() / oplane;
        let pw_ep = self.pw_epilogue.bind(&[]);
        BAND.with(|cell| {
            let mid = &mut *cell.borrow_mut();
            let rows_max = (self.band_rows - 1) * g.strides[0] + (g.kh - 1) * g.dilations[0] + 1;
            grow(mid, CHUNK * rows_max.min(g.h) * g.w)?;
            let mut or0 = 0;
            while or0 < g.oh {
                let or1 = (or0 + self.band_rows).min(g.oh);
                let (bg, r0) = band(g, or0, or1);
                let px = bg.h * g.w;
                let xb = Mat { data: &x[r0 * g.w..], rs: hw, cs: 1 };
                for j0 in (0..channels).step_by(CHUNK) {
                    let (m, ch0) = (CHUNK.min(channels - j0), c0 + j0);
                    let rows = &mut mid[..m * px];
                    let bias = self.pw_bias.as_deref().map(|b| &b[ch0..ch0 + m]);
                    let tile_epilogue = PerTile(|i: usize, _: usize, tile: &mut TileOut<'_>| {
                        pw_ep.apply_tile(tile, bias.map_or(TileBias::None, |b| TileBias::Rows(&b[i..])), |_| 0)
                    });
                    let a = Mat::rows(&self.pw_filter[ch0 * self.cin..][..m * self.cin], self.cin);
                    gemm(m, px, self.cin, Lhs::Strided(a), Rhs::Strided(xb), rows, px, false, &tile_epilogue)?;
                    let dw_bias = |j: usize| self.dw_bias.as_ref().map_or(0.0, |b| b[ch0 + j]);
                    let at = |j: usize| (j0 + j) * oplane + or0 * g.ow;
                    depthwise::planes_on_thread(
                        &bg,
                        rows,
                        &self.dw_filter[ch0 * kk..][..m * kk],
                        dw_bias,
                        out,
                        at(0),
                        oplane,
                        |j, o| ep.apply(first + at(j), o),
                    )?;
                }
                or0 = or1;
            }
            Ok(())
        })
    }
}

impl Kernel for PointwiseDepthwise {
    fn run(&self, inputs: &[Option<In<'_>>], outputs: &mut [Out<'_>]) -> Result<()> {
        let Some(x) = inputs[0] else { return Ok(()) };
        let x = x.slice::<f32>();
        let out = outputs[0].slice_mut::<f32>();
        let ep = self.dw_epilogue.bind(inputs);
        let g = &self.dw;
        let (c, hw, oplane) = (g.cin, g.h * g.w, g.oh * g.ow);
        // Contiguous channel ranges, one per thread, whole micro-panels of rows.
        let per_task = c.div_ceil(crate::par::threads()).next_multiple_of(8).min(c);
        for (n, on) in out.chunks_exact_mut(c * oplane).enumerate() {
            let xn = &x[n * self.cin * hw..][..self.cin * hw];
            crate::par::try_chunks(on, per_task * oplane, |t, o| {
                self.channels(xn, t * per_task, o, (n * c + t * per_task) * oplane, &ep)
            })?;
        }
        Ok(())
    }
}

/// Whether a pointwise conv's epilogue holds only activations (what the fused step applies
/// to the pointwise rows: they are not the graph's operands, so no binary step can read at
/// their offsets).
pub fn activations_only(epilogue: &Epilogue) -> bool {
    epilogue.steps.iter().all(|s| matches!(s, EpilogueStep::Activation(_)))
}

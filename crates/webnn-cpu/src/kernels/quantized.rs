//! The quantized conv2d and matmul that `compile::quantized` makes of the QDQ form: uint8
//! input, int8 weights packed once, exact i32 sums ([`int8_gemm`]), and the requantization
//! `quantizeLinear(clamp((sum − x_zero · Σw) · x_scale · w_scale + bias))` in float, with the
//! spec's rounding (quantizeLinear: divide, round half to even, add the zero point, saturate).
//! The dynamic form (matmul only) reads the input's zero point and the multiplier at run time
//! and writes float32 `(sum − x_zero · Σw) · multiplier + bias`.
//!
//! conv2d (groups 1, nchw, oihw) is a GEMM of the packed filter (cout × cin·kh·kw) by the
//! input itself (1×1, stride 1, unpadded) or by its im2col matrix, whose padding is the input's
//! zero point (the real value 0, as the float conv pads). matmul `[.., t, k] × [k, n]` is the
//! same GEMM transposed: the packed filter is the weights' transpose (n × k), the input is read
//! as k × (rows) with a row stride of 1, and the result is written transposed; gemm is that
//! matmul (its c the bias), its packed filter the weights as they are when it transposes them.
//! Depthwise convs go to [`super::quantized_depthwise`].

use super::conv::{conv_geom, Geom};
use super::int8_gemm::{self, Output, PackedI8, Requant, U8View};
#[cfg(target_arch = "x86_64")]
use super::quantized_conv_direct::{self, DirectFilterI8};
use super::quantized_im2col::im2col_nchw_u8;
use super::requantize::Requantizer;
use super::{constants::constant_bytes, In, Kernel, Out};
use crate::compile::quantized::{QuantForm, QuantizedOp};
use std::sync::Mutex;
use webnn_core::graph::Operation;
use webnn_core::{DataType, Error, Graph, OpKind, OperandId, Result};

/// Largest im2col tile, in bytes (4 MiB).
const COL_BUDGET: usize = 1 << 22;

/// Lowers a node of `compile::quantized`: `op` is the float conv2d or matmul (its attributes
/// and shapes), `inputs` the node's (quantized input, int8 weights, float32 bias).
pub fn lower(op: &Operation, graph: &Graph, inputs: &[Option<OperandId>], q: &QuantizedOp) -> Result<Box<dyn Kernel>> {
    let fail = |what: &str| Error::operation(format!("{} (int8): {what}", op.kind));
    let (Some(Some(x)), Some(Some(w))) = (inputs.first(), inputs.get(1)) else {
        return Err(fail("missing operand"));
    };
    if graph.descriptor(*x).data_type != DataType::Uint8 || graph.descriptor(*w).data_type != DataType::Int8 {
        return Err(fail("the input must be uint8 and the weights int8"));
    }
    let weights = constant_bytes(graph, *w).ok_or_else(|| fail("the weights must be a constant"))?;
    let weights: &[i8] = bytemuck::cast_slice(weights);
    let bias = match inputs.get(2).copied().flatten() {
        Some(b) => Some(super::constants::constant_f32(graph, b).ok_or_else(|| fail("the bias must be a constant"))?),
        None => None,
    };
    if matches!(op.attrs, webnn_core::graph::Attrs::Conv2d { groups, .. } if groups > 1) {
        return super::quantized_depthwise::lower(op, graph, inputs, q);
    }
    let wd = graph.descriptor(*w);
    let dims: Vec<usize> = wd.shape.iter().map(|&d| d as usize).collect();
    // Whether the weights hold one row per output channel (conv2d, a gemm of wᵀ); else they
    // are `[depth, channels]` (matmul, gemm).
    let rows_are_channels = match op.attrs {
        webnn_core::graph::Attrs::Gemm { b_transpose, .. } => b_transpose,
        _ => op.kind == OpKind::Conv2d,
    };
    let (channels, depth) = match op.kind {
        OpKind::Conv2d => (dims[0], dims[1..].iter().product()),
        OpKind::Gemm if dims.len() == 2 && rows_are_channels => (dims[0], dims[1]),
        OpKind::Matmul | OpKind::Gemm if dims.len() == 2 => (dims[1], dims[0]),
        _ => return Err(fail("not a conv2d, a gemm or a rank-2 matmul")),
    };
    if weights.len() != channels * depth || bias.as_ref().is_some_and(|b| b.len() != channels) {
        return Err(fail("weights or bias do not match the shapes"));
    }
    if !(q.weight_scales.len() == 1 || q.weight_scales.len() == channels) {
        return Err(fail("one weight scale, or one per output channel"));
    }
    // Static: input scale × weight scale, per output channel (dynamic: at run time).
    let scales: Vec<f32> = match &q.form {
        QuantForm::Static { input, .. } => (0..channels)
            .map(|c| input.scale * q.weight_scales[if q.weight_scales.len() == 1 { 0 } else { c }])
            .collect(),
        QuantForm::Dynamic if op.kind == OpKind::Matmul => Vec::new(),
        QuantForm::Dynamic => return Err(fail("the dynamic form is a matmul's")),
    };
    let packed = match rows_are_channels {
        true => PackedI8::pack(weights, channels, depth, depth)?,
        false => {
            // A row of the packed operand is a column of the weights.
            let mut transposed = super::scratch::try_zeroed::<i8>(weights.len())
                .ok_or_else(|| Error::unknown(format!("{} (int8): cannot allocate the weights", op.kind)))?;
            for (p, row) in weights.chunks_exact(channels).enumerate() {
                for (c, &v) in row.iter().enumerate() {
                    transposed[c * depth + p] = v;
                }
            }
            PackedI8::pack(&transposed, channels, depth, depth)?
        }
    };
    // The static form's requantization, folded once here rather than on every GEMM call.
    let folded = match &q.form {
        QuantForm::Static { input, output } => {
            let (lo, hi) = q.clamp.unwrap_or((f32::NEG_INFINITY, f32::INFINITY));
            let requant =
                Requant { b_zero_point: input.zero_point, scale: &scales, bias: bias.as_deref(), lo, hi, folded: None };
            int8_gemm::fold_rows(&requant, output.data_type, output.scale, output.zero_point, channels)?
        }
        QuantForm::Dynamic => None,
    };
    let common = Common { packed, scales, bias, folded, q: q.clone() };
    match op.kind {
        OpKind::Conv2d => {
            let (_, g) = conv_geom(graph, op, |f| (f[2], f[3]))?;
            let pointwise = g.kh == 1 && g.kw == 1 && g.strides == [1, 1] && g.padding == [0; 4];
            let pixels = g.oh * g.ow;
            let tile = if depth * pixels <= COL_BUDGET { pixels } else { (COL_BUDGET / depth).max(64).min(pixels) };
            let direct = direct_filter(&g, weights, &common)?;
            Ok(Box::new(QuantizedConv {
                common,
                g,
                pointwise,
                tile,
                col: Mutex::default(),
                direct,
                padded: Mutex::default(),
            }))
        }
        _ => {
            let xd = graph.descriptor(*x);
            let rows = xd.len() / depth.max(1);
            Ok(Box::new(QuantizedMatmul { common, rows, depth }))
        }
    }
}

/// The regrouped filter of the direct kernel, where it takes this conv
/// (`quantized_conv_direct::isa_for`: AVX-512 VNNI or AVX2, a window of at least 16 taps)
/// and the static form's requantization folds.
#[cfg(target_arch = "x86_64")]
fn direct_filter(g: &Geom, weights: &[i8], common: &Common) -> Result<Option<DirectFilterI8>> {
    match (&common.folded, quantized_conv_direct::isa_for(g)) {
        (Some(folded), Some(isa)) => Ok(Some(DirectFilterI8::new(g, weights, folded.clone(), isa)?)),
        _ => Ok(None),
    }
}

/// No direct kernel off x86-64.
#[cfg(not(target_arch = "x86_64"))]
enum DirectFilterI8 {}

/// No direct kernel off x86-64.
#[cfg(not(target_arch = "x86_64"))]
fn direct_filter(_: &Geom, _: &[i8], _: &Common) -> Result<Option<DirectFilterI8>> {
    Ok(None)
}

/// What both ops hold.
struct Common {
    /// The weights, one row per output channel.
    packed: PackedI8,
    /// Static form: input scale × weight scale, per output channel.
    scales: Vec<f32>,
    bias: Option<Vec<f32>>,
    /// Static form: each output channel's folded requantization, where the parameters fold.
    folded: Option<Vec<Requantizer>>,
    q: QuantizedOp,
}

impl Common {
    /// The GEMM into `out` (the static form's uint8 or int8 bytes, the dynamic form's float32
    /// values), element (i, j) at `i·rs + j·cs`; `inputs` are the node's (the dynamic form's
    /// zero point and multiplier are read from them).
    fn gemm(&self, inputs: &[Option<In<'_>>], b: U8View<'_>, out: &mut [u8], rs: usize, cs: usize) -> Result<()> {
        let (lo, hi) = self.q.clamp.unwrap_or((f32::NEG_INFINITY, f32::INFINITY));
        let bias = self.bias.as_deref();
        match &self.q.form {
            QuantForm::Static { input, output } => {
                let folded = self.folded.as_deref();
                let requant = Requant { b_zero_point: input.zero_point, scale: &self.scales, bias, lo, hi, folded };
                let (scale, zero_point) = (output.scale, output.zero_point);
                let out = match output.data_type {
                    DataType::Int8 => Output::I8 { data: bytemuck::cast_slice_mut(out), rs, cs, scale, zero_point },
                    _ => Output::U8 { data: out, rs, cs, scale, zero_point },
                };
                int8_gemm::gemm(&self.packed, b, &requant, out)
            }
            QuantForm::Dynamic => {
                let fail = |what: &str| Error::operation(format!("matmul (int8, dynamic): {what}"));
                let operand = |i: usize| inputs.get(i).and_then(Option::as_ref).map(|v| v.bytes);
                let zero_point = operand(3).and_then(|z| z.first()).ok_or_else(|| fail("missing zero point"))?;
                let multiplier = operand(4).ok_or_else(|| fail("missing multiplier"))?;
                let scale: &[f32] = bytemuck::try_cast_slice(multiplier).map_err(|_| fail("misaligned multiplier"))?;
                let requant = Requant { b_zero_point: i32::from(*zero_point), scale, bias, lo, hi, folded: None };
                let data = bytemuck::try_cast_slice_mut(out).map_err(|_| fail("misaligned output"))?;
                int8_gemm::gemm(&self.packed, b, &requant, Output::F32 { data, rs, cs })
            }
        }
    }
}

struct QuantizedConv {
    common: Common,
    g: Geom,
    /// 1×1, stride 1, unpadded: the input is the GEMM's operand as it is.
    pointwise: bool,
    /// Output pixels per im2col tile.
    tile: usize,
    col: Mutex<Vec<u8>>,
    /// The direct kernel's filter, where it takes this conv (then `col` holds nothing and
    /// `padded` is its scratch).
    direct: Option<DirectFilterI8>,
    padded: Mutex<Vec<u32>>,
}

impl Kernel for QuantizedConv {
    fn run(&self, inputs: &[Option<In<'_>>], outputs: &mut [Out<'_>]) -> Result<()> {
        let g = &self.g;
        let x = inputs[0].as_ref().ok_or_else(|| Error::operation("conv2d (int8): missing input"))?.bytes;
        let y = &mut *outputs[0].bytes;
        let (plane, pixels) = (g.cin * g.h * g.w, g.oh * g.ow);
        let depth = self.common.packed.depth();
        let pad = match &self.common.q.form {
            QuantForm::Static { input, .. } => input.zero_point as u8,
            QuantForm::Dynamic => return Err(Error::operation("conv2d (int8): no dynamic form")),
        };
        #[cfg(target_arch = "x86_64")]
        if let Some(filter) = &self.direct {
            let mut padded = self.padded.lock().unwrap_or_else(|e| e.into_inner());
            return quantized_conv_direct::conv(g, x, pad, filter, &mut padded, y);
        }
        let mut col = self.col.lock().unwrap_or_else(|e| e.into_inner());
        for (xi, yi) in x.chunks_exact(plane).zip(y.chunks_exact_mut(g.cout * pixels)).take(g.n) {
            if self.pointwise {
                let b = U8View { data: xi, k: g.cin, n: pixels, rs: pixels, cs: 1 };
                self.common.gemm(inputs, b, yi, pixels, 1)?;
                continue;
            }
            super::scratch::grow(&mut col, depth * self.tile)?;
            for p0 in (0..pixels).step_by(self.tile) {
                let pc = self.tile.min(pixels - p0);
                let c = &mut col[..depth * pc];
                im2col_nchw_u8(g, xi, p0, pc, c, pad);
                let b = U8View { data: c, k: depth, n: pc, rs: pc, cs: 1 };
                self.common.gemm(inputs, b, &mut yi[p0..], pixels, 1)?;
            }
        }
        Ok(())
    }
}

struct QuantizedMatmul {
    common: Common,
    /// Rows of the input (every dimension but the last, multiplied).
    rows: usize,
    depth: usize,
}

impl Kernel for QuantizedMatmul {
    fn run(&self, inputs: &[Option<In<'_>>], outputs: &mut [Out<'_>]) -> Result<()> {
        let x = inputs[0].as_ref().ok_or_else(|| Error::operation("matmul (int8): missing input"))?.bytes;
        let channels = self.common.packed.rows();
        // B = xᵀ (depth × rows), C = yᵀ (channels × rows).
        let b = U8View { data: x, k: self.depth, n: self.rows, rs: 1, cs: self.depth };
        self.common.gemm(inputs, b, outputs[0].bytes, 1, channels)
    }
}

// Tested through graphs with the compile pass: compile/quantized_tests.rs.

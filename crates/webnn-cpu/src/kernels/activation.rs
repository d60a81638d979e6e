//! Activations: clamp ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-clamp)), elu
//! ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-elu)), gelu
//! ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-gelu-method)), hardSigmoid
//! ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-hard-sigmoid)), hardSwish
//! ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-hard-swish)), leakyRelu
//! ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-leakyrelu)), linear
//! ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-linear)), prelu
//! ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-prelu)), relu
//! ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-relu-method)), sigmoid
//! ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-sigmoid-method)), softmax
//! ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-softmax-method)), softplus
//! ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-softplus-method)), softsign
//! ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-softsign-method)), tanh
//! ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-tanh-method)).
//!
//! float16 is computed in f32 (or f64 where noted) and rounded once. Formulas are arranged for
//! accuracy: elu uses expm1, gelu uses `0.5·x·erfc(−x/√2)` for x ≪ 0 (no cancellation; see
//! `fast_math`, which also provides the vectorizable exp/expm1/tanh/sigmoid/erf), softplus
//! uses `max(x, 0) + log1p(exp(−|x|))` (no overflow), and the affine activations
//! (linear, hardSigmoid, hardSwish, leakyRelu, prelu) are evaluated in f64 so that the result is
//! rounded once. softmax subtracts the maximum along the axis before exponentiating.
//!
//! NaN inputs give NaN for every float activation (clamp and relu pass NaN through).

use super::epilogue::{EpilogueBinary, TileBias};
use super::fast_math::{exp_f32, expm1_f32, gelu_f32, sigmoid_f32, tanh_f32};
use super::logical::Broadcast;
use super::packed_gemm::TileOut;
use super::simd::simd;
use super::unary::{map, map_float, with_int_type, IntElem, CHEAP_CHUNK, COSTLY_CHUNK};
use super::vector_activation::VectorActivation;
use super::{In, Kernel, Out};
use half::f16;
use webnn_core::graph::{Attrs, Operation};
use webnn_core::types::Scalar;
use webnn_core::{DataType, Error, Graph, OpKind, Result};

/// An element-wise float activation with its resolved parameters: the standalone activation
/// ops, and what the compile passes fuse into one (swish from `mul(x, sigmoid(x))`, gelu from
/// its erf formula) or into a convolution's or matmul's epilogue (clamp included).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Activation {
    /// clamp(min, max) on float data (the bounds already cast to the data type).
    Clamp(f32, f32),
    /// elu(alpha)
    Elu(f32),
    /// gelu
    Gelu,
    /// hardSigmoid(alpha, beta)
    HardSigmoid(f64, f64),
    /// hardSwish
    HardSwish,
    /// leakyRelu(alpha)
    LeakyRelu(f64),
    /// linear(alpha, beta)
    Linear(f64, f64),
    /// relu
    Relu,
    /// sigmoid
    Sigmoid,
    /// softplus
    Softplus,
    /// softsign
    Softsign,
    /// `x · x`, no op of its own: `pow(x, 2)` rewritten (one correctly rounded product, where
    /// `powf` is within 1 ULP; on float16 inputs the product is exact in f32, so the result
    /// rounds to float16 as pow's does).
    Square,
    /// `x · sigmoid(x)` (SiLU), no op of its own: `mul(x, sigmoid(x))` fused. On float16 the
    /// sigmoid is rounded to float16 before the product, as the two unfused steps do.
    Swish,
    /// tanh
    Tanh,
    /// `dequantizeLinear(quantizeLinear(x))` with one scale and zero point to an 8-bit type
    /// whose range is `lo..=hi`, no op of its own: a quantize whose only reader is a dequantize
    /// with the same parameters, fused (`compile::quantized`). The same arithmetic as the two
    /// steps (`kernels::quantize`), so the same bits.
    QuantizeRoundTrip {
        /// The scale.
        scale: f32,
        /// The zero point.
        zero_point: f32,
        /// The quantized type's smallest value.
        lo: f32,
        /// The quantized type's largest value.
        hi: f32,
    },
}

/// Binds `$f` to the element function of activation `$act` (an `#[inline(always)]` closure
/// `f32 -> f32`) and `$chunk` to its parallel chunk size, then evaluates `$body`: the one
/// place that maps an [`Activation`] to its formula, shared by the standalone kernels and the
/// fused epilogues.
macro_rules! with_activation_fn {
    ($act:expr, $f16:expr, |$f:ident, $chunk:ident| $body:expr) => {
        with_activation_fn!(@arms $act, |$f, $chunk| $body;
            Activation::Clamp(lo, hi) => (CHEAP_CHUNK, move |x: f32| clamp_value(x, lo, hi)),
            Activation::Elu(a) => (CHEAP_CHUNK, move |x: f32| elu(x, a)),
            Activation::Gelu => (CHEAP_CHUNK, |x: f32| gelu_f32(x)),
            Activation::HardSigmoid(a, b) => (CHEAP_CHUNK, move |x: f32| (a * x as f64 + b).clamp(0.0, 1.0) as f32),
            Activation::HardSwish => (CHEAP_CHUNK, |x: f32| hard_swish(x)),
            Activation::LeakyRelu(a) => (CHEAP_CHUNK, move |x: f32| if x >= 0.0 { x } else { (a * x as f64) as f32 }),
            Activation::Linear(a, b) => (CHEAP_CHUNK, move |x: f32| (a * x as f64 + b) as f32),
            Activation::Relu => (CHEAP_CHUNK, |x: f32| if x < 0.0 { 0.0 } else { x }),
            Activation::Sigmoid => (CHEAP_CHUNK, |x: f32| sigmoid_f32(x)),
            Activation::Softplus => (COSTLY_CHUNK, |x: f32| softplus(x)),
            Activation::Softsign => (CHEAP_CHUNK, |x: f32| softsign(x)),
            Activation::Square => (CHEAP_CHUNK, |x: f32| x * x),
            Activation::Swish if $f16 => (COSTLY_CHUNK, |x: f32| x * f16::from_f32(sigmoid_f32(x)).to_f32()),
            Activation::Swish => (COSTLY_CHUNK, |x: f32| x * sigmoid_f32(x)),
            Activation::Tanh => (CHEAP_CHUNK, |x: f32| tanh_f32(x)),
            Activation::QuantizeRoundTrip { scale, zero_point, lo, hi } =>
                (CHEAP_CHUNK, move |x: f32| quantize_round_trip(x, scale, zero_point, lo, hi)),
        )
    };
    // One match arm per activation: its pattern (and guard), chunk size and closure.
    (@arms $act:expr, |$f:ident, $chunk:ident| $body:expr;
        $($p:pat $(if $g:expr)? => ($cost:expr, $($closure:tt)+)),+ $(,)?) => {{
        match $act {
            $($p $(if $g)? => {
                #[allow(unused_variables)]
                let $chunk = $cost;
                let $f = inline_fn(
                    #[inline(always)]
                    $($closure)+
                );
                $body
            })+
        }
    }};
}

/// Returns `f`: lets the closures of [`with_activation_fn`] carry `#[inline(always)]` (an
/// attribute on a closure is allowed as a call argument, not as a `let` initializer).
#[inline(always)]
fn inline_fn<F: Fn(f32) -> f32>(f: F) -> F {
    f
}

/// `(saturate(round_half_even(x / scale) + zero_point) − zero_point) · scale`, NaN quantizing
/// to 0: quantizeLinear then dequantizeLinear, as `quantize::quantize_one` and
/// `quantize::dequantize_one` compute them (the sum and the difference exact in f32).
#[inline(always)]
pub fn quantize_round_trip(x: f32, scale: f32, zero_point: f32, lo: f32, hi: f32) -> f32 {
    let q = super::quantize::round_half_even(x / scale) + zero_point;
    let q = if q.is_nan() { 0.0 } else { clamp_value(q, lo, hi) };
    (q - zero_point) * scale
}

/// elu: x for x > 0, alpha·(eˣ − 1) otherwise.
#[inline(always)]
pub fn elu(x: f32, alpha: f32) -> f32 {
    if x > 0.0 {
        x
    } else {
        alpha * expm1_f32(x)
    }
}

/// softplus: ln(1 + eˣ) = max(x, 0) + ln(1 + e^−|x|).
#[inline(always)]
pub fn softplus(x: f32) -> f32 {
    x.max(0.0) + exp_f32(-x.abs()).ln_1p()
}

/// hardSwish: x·max(0, min(6, x + 3))/6, evaluated in f64.
#[inline(always)]
pub fn hard_swish(x: f32) -> f32 {
    // The same formula split by branch (so that −∞ gives 0, not −∞ × 0).
    if x <= -3.0 {
        0.0
    } else if x >= 3.0 {
        x
    } else {
        let x = x as f64;
        (x * (x + 3.0) / 6.0) as f32
    }
}

/// softsign: x / (1 + |x|), with the limits ±1 at ±∞.
#[inline(always)]
pub fn softsign(x: f32) -> f32 {
    if x.is_infinite() {
        x.signum()
    } else {
        x / (1.0 + x.abs())
    }
}

/// e^(x − m) for f32 x and m, correcting for the rounding of x − m in f32 (which for
/// |x − m| ≫ 1 would otherwise cost many ULP): exp(d + r) ≈ exp(d)·(1 + r).
#[inline(always)]
pub fn exp_diff(x: f32, m: f32) -> f32 {
    let d = x - m;
    let r = ((x as f64 - m as f64) - d as f64) as f32;
    let e = exp_f32(d);
    if !r.is_finite() {
        // x = -inf (masked logits): the correction term is NaN; exp(-inf) is exactly 0.
        return e;
    }
    e + e * r
}

impl Activation {
    /// The activation of `op` with its attributes, if it is one of these (clamp only with
    /// float32 bounds; swish is never an op of its own).
    pub fn of(op: &Operation) -> Option<Activation> {
        let (alpha, beta) = match op.attrs {
            Attrs::AlphaBeta { alpha, beta } => (alpha, beta),
            _ => (f64::NAN, f64::NAN),
        };
        let has_ab = matches!(op.attrs, Attrs::AlphaBeta { .. });
        Some(match op.kind {
            // Only float32 bounds: float16 and integer clamps keep their own kernel.
            OpKind::Clamp => match op.attrs {
                Attrs::Clamp { min: Scalar::F32(lo), max: Scalar::F32(hi) } => Activation::Clamp(lo, hi),
                _ => return None,
            },
            OpKind::Elu if has_ab => Activation::Elu(alpha as f32),
            OpKind::Gelu => Activation::Gelu,
            OpKind::HardSigmoid if has_ab => Activation::HardSigmoid(alpha, beta),
            OpKind::HardSwish => Activation::HardSwish,
            OpKind::LeakyRelu if has_ab => Activation::LeakyRelu(alpha),
            OpKind::Linear if has_ab => Activation::Linear(alpha, beta),
            OpKind::Relu => Activation::Relu,
            OpKind::Sigmoid => Activation::Sigmoid,
            OpKind::Softplus => Activation::Softplus,
            OpKind::Softsign => Activation::Softsign,
            OpKind::Tanh => Activation::Tanh,
            _ => return None,
        })
    }

    /// Applies the activation to a float32/float16 operand.
    pub fn run_float(self, data_type: DataType, input: In<'_>, out: &mut Out<'_>) {
        if data_type == DataType::Float32 {
            if let Some(v) = VectorActivation::of(self) {
                let (inp, out) = (input.slice::<f32>(), out.slice_mut::<f32>());
                return if out.len() > COSTLY_CHUNK {
                    crate::par::zip_chunks(out, COSTLY_CHUNK, inp, COSTLY_CHUNK, |_, o, i| v.map(i, o));
                } else {
                    v.map(inp, out)
                };
            }
        }
        let f16 = data_type == DataType::Float16;
        with_activation_fn!(self, f16, |f, chunk| map_float(data_type, input, out, chunk, f))
    }

    /// Applies the activation in place to float32 values (a fused epilogue's tile), with the
    /// same formulas as [`Activation::run_float`] and so the same results.
    pub fn apply_in_place(self, values: &mut [f32]) {
        if let Some(v) = VectorActivation::of(self) {
            return v.apply_in_place(values);
        }
        with_activation_fn!(self, false, |f, _chunk| simd(
            #[inline(always)]
            || {
                for v in values.iter_mut() {
                    *v = f(*v);
                }
            }
        ))
    }
}

/// `v = act(v + bias)` over a GEMM tile in one pass (`act` None: the bias alone), compiled
/// for the CPU's widest vectors: the fused conv epilogue's common case (see
/// [`super::epilogue::BoundEpilogue::apply_tile`]).
pub fn bias_tile(act: Option<Activation>, tile: &mut TileOut<'_>, bias: TileBias<'_>) {
    // Plain loops, not iterator adapters: an adapter's `fold` is a function of its own that
    // the compiler may leave out of line, compiled without the caller's target features
    // (BERT-base's matmul+gelu epilogue ran in 4-lane SSE that way: 16 % of the model).
    #[inline(always)]
    fn rows<F: Fn(f32) -> f32>(tile: &mut TileOut<'_>, bias: TileBias<'_>, f: F) {
        for r in 0..tile.rows() {
            let row = tile.row(r);
            let n = row.len();
            match bias {
                TileBias::None => {
                    for v in row.iter_mut() {
                        *v = f(*v);
                    }
                }
                TileBias::Rows(b) => {
                    let b = b[r];
                    for v in row.iter_mut() {
                        *v = f(*v + b);
                    }
                }
                TileBias::Cols(b) => {
                    let b = &b[..n];
                    for i in 0..n {
                        row[i] = f(row[i] + b[i]);
                    }
                }
            }
        }
    }
    match act {
        None if matches!(bias, TileBias::None) => {}
        None => simd(
            #[inline(always)]
            || rows(tile, bias, |x| x),
        ),
        Some(act) => match VectorActivation::of(act) {
            Some(v) => v.bias_tile(tile, bias),
            None => with_activation_fn!(act, false, |f, _chunk| simd(
                #[inline(always)]
                || rows(tile, bias, f)
            )),
        },
    }
}

/// `v = act((v + bias) ∘ others[r])` over a GEMM tile in one pass (`act` None: no
/// activation), `others[r]` the element-wise operand's run for row r (at least as long as the
/// row): the fused conv epilogue with a residual. The same f32 operations in the same order as
/// [`bias_tile`] without an activation, then the binary op, then the activation.
pub fn bias_binary_tile(
    act: Option<Activation>,
    tile: &mut TileOut<'_>,
    bias: TileBias<'_>,
    op: EpilogueBinary,
    others: &[&[f32]],
) {
    #[inline(always)]
    fn rows<O: Fn(f32, f32) -> f32, F: Fn(f32) -> f32>(
        tile: &mut TileOut<'_>,
        bias: TileBias<'_>,
        others: &[&[f32]],
        op: O,
        f: F,
    ) {
        // Plain loops, as in `bias_tile`.
        for r in 0..tile.rows().min(others.len()) {
            let row = tile.row(r);
            let n = row.len();
            let other = &others[r][..n];
            match bias {
                TileBias::None => {
                    for i in 0..n {
                        row[i] = f(op(row[i], other[i]));
                    }
                }
                TileBias::Rows(b) => {
                    let b = b[r];
                    for i in 0..n {
                        row[i] = f(op(row[i] + b, other[i]));
                    }
                }
                TileBias::Cols(b) => {
                    let b = &b[..n];
                    for i in 0..n {
                        row[i] = f(op(row[i] + b[i], other[i]));
                    }
                }
            }
        }
    }
    #[inline(always)]
    fn with_op<F: Fn(f32) -> f32>(
        tile: &mut TileOut<'_>,
        bias: TileBias<'_>,
        others: &[&[f32]],
        op: EpilogueBinary,
        f: F,
    ) {
        match op {
            EpilogueBinary::Add => rows(tile, bias, others, |v, o| v + o, f),
            EpilogueBinary::Mul => rows(tile, bias, others, |v, o| v * o, f),
        }
    }
    match act.map(|a| (a, VectorActivation::of(a))) {
        None => simd(
            #[inline(always)]
            || with_op(tile, bias, others, op, |x| x),
        ),
        Some((_, Some(v))) => {
            simd(
                #[inline(always)]
                || with_op(tile, bias, others, op, |x| x),
            );
            v.bias_tile(tile, TileBias::None);
        }
        Some((act, None)) => with_activation_fn!(act, false, |f, _chunk| simd(
            #[inline(always)]
            || with_op(tile, bias, others, op, f)
        )),
    }
}

struct ActivationKernel {
    act: Activation,
    data_type: DataType,
}

impl Kernel for ActivationKernel {
    fn run(&self, inputs: &[Option<In<'_>>], outputs: &mut [Out<'_>]) -> webnn_core::Result<()> {
        let Some(input) = inputs[0] else { return Ok(()) };
        let out = &mut outputs[0];
        if self.data_type.is_float() {
            self.act.run_float(self.data_type, input, out);
        } else {
            // Only relu is defined on integers.
            with_int_type!(self.data_type, T => map::<T, T, _>(
                input.slice(), out.slice_mut(), CHEAP_CHUNK, |x| if x.is_negative() { T::ZERO } else { x },
            ));
        }
        Ok(())
    }
}

/// Reads a scalar attribute as the element type `T` (its data type must be `T`'s).
fn scalar_as<T: bytemuck::Pod>(s: Scalar) -> T {
    bytemuck::pod_read_unaligned(&s.to_le_bytes())
}

struct ClampKernel {
    data_type: DataType,
    min: Scalar,
    max: Scalar,
}

/// `out = min(max(x, lo), hi)`; NaN passes through.
pub fn clamp<T: PartialOrd + Copy + Send + Sync>(input: &[T], out: &mut [T], lo: T, hi: T) {
    map(input, out, CHEAP_CHUNK, |x| clamp_value(x, lo, hi));
}

/// clamp of one value, the formula every clamp (and relu, as the clamp to `[0, ∞]`) of the
/// CPU backend computes: two independent selects (not an if/else-if chain) so that loops
/// compile to max/min vector instructions (the builder guarantees lo <= hi, so this is the
/// same result); NaN passes through, −0 stays −0.
#[inline(always)]
pub(crate) fn clamp_value<T: PartialOrd + Copy>(x: T, lo: T, hi: T) -> T {
    let y = if x < lo { lo } else { x };
    if y > hi {
        hi
    } else {
        y
    }
}

impl Kernel for ClampKernel {
    fn run(&self, inputs: &[Option<In<'_>>], outputs: &mut [Out<'_>]) -> webnn_core::Result<()> {
        let Some(input) = inputs[0] else { return Ok(()) };
        let out = &mut outputs[0];
        crate::with_type!(self.data_type, T => clamp::<T>(
            input.slice(), out.slice_mut(), scalar_as::<T>(self.min), scalar_as::<T>(self.max),
        ));
        Ok(())
    }
}

struct PreluKernel {
    data_type: DataType,
    geom: Broadcast<2>,
}

/// prelu: x for x ≥ 0, slope·x otherwise (input and slope broadcast to the output).
pub fn prelu_float<T: Copy + Send + Sync>(
    x: &[T],
    slope: &[T],
    out: &mut [T],
    geom: &Broadcast<2>,
    to: impl Fn(T) -> f64 + Sync + Send,
    from: impl Fn(f64) -> T + Sync + Send,
) {
    geom.map(out, |[i, j]| {
        let v = x[i];
        let xv = to(v);
        if xv >= 0.0 {
            v
        } else {
            from(xv * to(slope[j]))
        }
    });
}

/// prelu on integers (wrapping multiplication).
pub fn prelu_int<T: IntElem>(x: &[T], slope: &[T], out: &mut [T], geom: &Broadcast<2>) {
    geom.map(out, |[i, j]| {
        let v = x[i];
        if v.is_negative() {
            v.wmul(slope[j])
        } else {
            v
        }
    });
}

impl Kernel for PreluKernel {
    fn run(&self, inputs: &[Option<In<'_>>], outputs: &mut [Out<'_>]) -> webnn_core::Result<()> {
        let (Some(x), Some(s)) = (inputs[0], inputs[1]) else { return Ok(()) };
        let out = &mut outputs[0];
        match self.data_type {
            // The product of two f32 (or f16) values is exact in f64: one rounding.
            DataType::Float32 => {
                prelu_float::<f32>(x.slice(), s.slice(), out.slice_mut(), &self.geom, |v| v as f64, |v| v as f32)
            }
            DataType::Float16 => {
                prelu_float::<f16>(x.slice(), s.slice(), out.slice_mut(), &self.geom, |v| v.to_f64(), f16::from_f64)
            }
            dt => with_int_type!(dt, T => prelu_int::<T>(x.slice(), s.slice(), out.slice_mut(), &self.geom)),
        }
        Ok(())
    }
}

/// softmax geometry: `outer` blocks of `n` (the axis) × `inner` elements.
#[derive(Debug, Clone, Copy)]
struct SoftmaxGeom {
    outer: usize,
    n: usize,
    inner: usize,
}

struct SoftmaxKernel {
    data_type: DataType,
    geom: SoftmaxGeom,
}

/// Columns of one softmax block processed together when the axis is not innermost.
const SOFTMAX_COLS: usize = 64;

/// Numerically stable softmax of one `n × inner` block (`x`, `out` row-major), using
/// `scratch` (at least `n × min(inner, SOFTMAX_COLS)` f32).
#[inline(always)]
fn softmax_block<T: Copy>(
    x: &[T],
    out: &mut [T],
    n: usize,
    inner: usize,
    scratch: &mut [f32],
    to: &impl Fn(T) -> f32,
    from: &impl Fn(f32) -> T,
) {
    if inner == 1 {
        softmax_row(x, out, &mut scratch[..n], to, from);
        return;
    }
    let mut c0 = 0;
    while c0 < inner {
        let w = (inner - c0).min(SOFTMAX_COLS);
        let mut max = [f32::NEG_INFINITY; SOFTMAX_COLS];
        for r in 0..n {
            let row = &x[r * inner + c0..r * inner + c0 + w];
            for (m, &v) in max.iter_mut().zip(row) {
                let v = to(v);
                if v > *m || v.is_nan() {
                    *m = v;
                }
            }
        }
        let mut sum = [0.0f64; SOFTMAX_COLS];
        for r in 0..n {
            let row = &x[r * inner + c0..r * inner + c0 + w];
            let srow = &mut scratch[r * w..r * w + w];
            for c in 0..w {
                let e = exp_diff(to(row[c]), max[c]);
                srow[c] = e;
                sum[c] += e as f64;
            }
        }
        let sum: [f32; SOFTMAX_COLS] = std::array::from_fn(|c| sum[c] as f32);
        for r in 0..n {
            let orow = &mut out[r * inner + c0..r * inner + c0 + w];
            let srow = &scratch[r * w..r * w + w];
            for c in 0..w {
                orow[c] = from(srow[c] / sum[c]);
            }
        }
        c0 += w;
    }
}

/// Softmax of one contiguous row (the axis innermost), in vectorizable passes: widen into
/// `scratch`, maximum in 8 lanes (a NaN anywhere makes it NaN, as a sequential scan would),
/// exponentials with their sum in 8 f64 lanes, then the division.
#[inline(always)]
fn softmax_row<T: Copy>(x: &[T], out: &mut [T], scratch: &mut [f32], to: &impl Fn(T) -> f32, from: &impl Fn(f32) -> T) {
    for (s, &v) in scratch.iter_mut().zip(x) {
        *s = to(v);
    }
    let mut lanes = [f32::NEG_INFINITY; 8];
    let mut nan = [false; 8];
    let mut chunks = scratch.chunks_exact(8);
    for c in &mut chunks {
        for l in 0..8 {
            lanes[l] = if c[l] > lanes[l] { c[l] } else { lanes[l] };
            nan[l] |= c[l].is_nan();
        }
    }
    for &v in chunks.remainder() {
        lanes[0] = if v > lanes[0] { v } else { lanes[0] };
        nan[0] |= v.is_nan();
    }
    let max = if nan.iter().any(|&b| b) {
        f32::NAN
    } else {
        lanes.iter().fold(f32::NEG_INFINITY, |m, &v| if v > m { v } else { m })
    };
    let mut sums = [0.0f64; 8];
    let mut chunks = scratch.chunks_exact_mut(8);
    for c in &mut chunks {
        for l in 0..8 {
            let e = exp_diff(c[l], max);
            c[l] = e;
            sums[l] += e as f64;
        }
    }
    for v in chunks.into_remainder() {
        let e = exp_diff(*v, max);
        *v = e;
        sums[0] += e as f64;
    }
    let sum = sums.iter().sum::<f64>() as f32;
    for (o, &e) in out.iter_mut().zip(scratch.iter()) {
        *o = from(e / sum);
    }
}

thread_local! {
    /// Per-thread softmax scratch: grown on first use, then reused by every dispatch.
    static SOFTMAX_SCRATCH: std::cell::RefCell<Vec<f32>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// softmax over `g`'s blocks; rows (`inner == 1`) go to `fast_row` when there is one.
fn softmax<T: Copy + Send + Sync>(
    x: &[T],
    out: &mut [T],
    g: SoftmaxGeom,
    fast_row: Option<super::vector_activation::SoftmaxRow<T>>,
    to: impl Fn(T) -> f32 + Sync,
    from: impl Fn(f32) -> T + Sync,
) -> webnn_core::Result<()> {
    let block = g.n * g.inner;
    let scratch_len = g.n * g.inner.min(SOFTMAX_COLS);
    let blocks = |o: &mut [T], xi: &[T]| {
        if let (Some(row), 1) = (fast_row, g.inner) {
            for (ob, xb) in o.chunks_mut(block).zip(xi.chunks(block)) {
                row(xb, ob);
            }
            return Ok(());
        }
        SOFTMAX_SCRATCH.with(|cell| {
            let mut scratch = cell.borrow_mut();
            super::scratch::grow(&mut scratch, scratch_len)?;
            for (ob, xb) in o.chunks_mut(block).zip(xi.chunks(block)) {
                simd(
                    #[inline(always)]
                    || softmax_block(xb, ob, g.n, g.inner, &mut scratch[..scratch_len], &to, &from),
                );
            }
            Ok(())
        })
    };
    // Blocks per parallel task: enough work per task to amortize the task.
    let per_task = (CHEAP_CHUNK / 4 / block.max(1)).max(1);
    if g.outer > per_task {
        crate::par::try_zip_chunks(out, block * per_task, x, block * per_task, |_, o, xi| blocks(o, xi))
    } else {
        blocks(out, x)
    }
}

impl Kernel for SoftmaxKernel {
    fn run(&self, inputs: &[Option<In<'_>>], outputs: &mut [Out<'_>]) -> webnn_core::Result<()> {
        let Some(x) = inputs[0] else { return Ok(()) };
        let out = &mut outputs[0];
        match self.data_type {
            DataType::Float32 => {
                let fast_row = super::vector_activation::softmax_row_f32();
                softmax::<f32>(x.slice(), out.slice_mut(), self.geom, fast_row, |v| v, |v| v)
            }
            DataType::Float16 => {
                softmax::<f16>(x.slice(), out.slice_mut(), self.geom, None, f16::to_f32, f16::from_f32)
            }
            _ => Ok(()),
        }
    }
}

/// The kernel of an activation the compile passes made (swish, gelu from its formula).
pub fn lower_fused(act: Activation, data_type: DataType) -> Box<dyn Kernel> {
    Box::new(ActivationKernel { act, data_type })
}

/// Lowers the activations (clamp, elu, gelu, hardSigmoid, hardSwish, leakyRelu, linear, prelu,
/// relu, sigmoid, softmax, softplus, softsign, tanh).
pub fn lower(op: &Operation, graph: &Graph) -> Result<Box<dyn Kernel>> {
    let out = graph.descriptor(op.outputs[0]);
    let data_type = out.data_type;
    let unsupported = || Error::not_supported(format!("{} on {}", op.kind, data_type.as_str()));
    match op.kind {
        OpKind::Clamp => {
            let Attrs::Clamp { min, max } = op.attrs else {
                return Err(Error::operation("clamp: missing bounds"));
            };
            if min.data_type() != data_type || max.data_type() != data_type {
                return Err(Error::operation("clamp: bounds not cast to the input type"));
            }
            Ok(Box::new(ClampKernel { data_type, min, max }))
        }
        // (On unsigned types, which the limits exclude, prelu_int is the identity.)
        OpKind::Prelu => Ok(Box::new(PreluKernel { data_type, geom: Broadcast::of(op, graph)? })),
        OpKind::Softmax => {
            let Attrs::Axis { axis } = op.attrs else {
                return Err(Error::operation("softmax: missing axis"));
            };
            let axis = axis as usize;
            if axis >= out.shape.len() || !data_type.is_float() {
                return Err(unsupported());
            }
            let prod = |s: &[u32]| s.iter().map(|&d| d as usize).product::<usize>();
            let geom = SoftmaxGeom {
                outer: prod(&out.shape[..axis]),
                n: out.shape[axis] as usize,
                inner: prod(&out.shape[axis + 1..]),
            };
            Ok(Box::new(SoftmaxKernel { data_type, geom }))
        }
        _ => {
            let act = Activation::of(op)
                .ok_or_else(|| Error::operation(format!("{}: not an activation or missing attributes", op.kind)))?;
            if !data_type.is_float() && act != Activation::Relu {
                return Err(unsupported());
            }
            Ok(Box::new(ActivationKernel { act, data_type }))
        }
    }
}

#[cfg(test)]
#[path = "activation_tests.rs"]
mod tests;

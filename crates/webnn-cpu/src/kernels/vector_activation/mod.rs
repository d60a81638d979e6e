//! Explicit AVX-512 and AVX2 forms (`avx512.rs`, `avx2.rs`) of the costly float32
//! activations (sigmoid, SiLU/swish, tanh) and of the softmax row, used by the activation
//! kernels and the fused GEMM/conv epilogues whenever the CPU has AVX-512F, else AVX2 + FMA.
//! Without either, callers fall back to the auto-vectorised loops over [`super::fast_math`].
//!
//! The compiler's vectorisation of `fast_math::sigmoid_f32` (two power-of-two factors, a
//! division, clamps with NaN semantics) ran at 0.34 ns per element; written with
//! `vscalefps` (2ᵏ with one rounding, subnormals included), `vrcp14ps` plus one Newton step
//! instead of the division, and a degree-6 polynomial it runs several times faster.
//!
//! Method, for sigmoid(x) with a = |x|: e = e⁻ᵃ = 2ᵏ·eʳ with k = round(−a·log₂e) (rounded
//! by adding and subtracting 1.5·2²³) and r = −a − k·ln2 (two-part Cody–Waite reduction,
//! |r| ≤ ln2/2), eʳ by a degree-6 minimax polynomial (relative error 0.05·2⁻²⁴); d = 1 + e;
//! y ≈ 1/d from `vrcp14ps` (2⁻¹⁴) refined by one Newton step; sigmoid = y for x ≥ 0 and e·y
//! for x < 0 (no overflow, subnormal results kept); the AVX2 form divides instead (one
//! correctly rounded quotient, 1/d or e/d: see `avx2.rs`). swish(x) = x·sigmoid(x), the same two
//! steps as the unfused graph. NaN needs no test of its own: it propagates through every step.
//! SiLU in 21 vector instructions per 16 values (was 26 with Taylor's degree 7, a rounding
//! instruction, a mask for the underflow and a NaN select): kernel bench silu 1×96×112×112,
//! 1 thread, Ice Lake, 3 alternating runs: 0.37 → 0.29–0.33 ns per value (sigmoid 0.35 → 0.27).
//!
//! Measured error (the `sweep` tests below, every 97th f32 bit pattern against f64):
//! sigmoid ≤ 3 ULP; swish ≤ 4 ULP where sigmoid is a normal number, and bit for bit x times
//! this sigmoid (the unfused graph's two steps) (WPT tolerance for sigmoid: 34 ULP in float32).
//! NaN propagates; sigmoid(±∞) = 1 / 0.
//!
//! tanh, with a = min(|x|, 9.5) (tanh is ±1 in f32 beyond 9.01): m = e²ᵃ − 1 as
//! 2ᵏ·(q + 1 − 2⁻ᵏ) with q = eʳ − 1 = r + r²·(1/2 + r/6 + … + r⁶/40320) (so m keeps its
//! relative accuracy near 0, where 1 − e⁻²ᵃ would cancel), then tanh a = m / (m + 2) with
//! the reciprocal as for sigmoid (AVX2: a division), and the sign of x. The scalar `fast_math::tanh_f32` is the
//! same formula with a division; this form replaced its auto-vectorised loop (magika's two
//! tanh steps, Zen 4, 1 thread: 245 → 156 µs together; ONNX Runtime 110). Measured
//! (`tanh_is_within_4_ulp` below, the same sweep): 3 ULP at worst (at x ≈ 9.4e-4), relative,
//! over the whole range (WPT tolerance for tanh: an absolute 1/1024).

use super::activation::Activation;
use super::epilogue::TileBias;
use super::packed_gemm::TileOut;

/// An activation that has an explicit vector form (AVX-512 or AVX2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum VectorActivation {
    /// 1 / (1 + e⁻ˣ)
    Sigmoid,
    /// x · sigmoid(x)
    Swish,
    /// tanh x
    Tanh,
}

/// The instruction set of a vector form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Form {
    /// AVX-512F/VL (with AVX2, FMA): `avx512.rs`.
    #[cfg(target_arch = "x86_64")]
    Avx512,
    /// AVX2 + FMA: `avx2.rs`.
    #[cfg(target_arch = "x86_64")]
    Avx2,
}

impl Form {
    /// The form this CPU runs: AVX-512, else AVX2; None without either.
    fn best() -> Option<Form> {
        #[cfg(target_arch = "x86_64")]
        {
            if super::unary::has_avx512() {
                return Some(Form::Avx512);
            }
            if super::unary::has_avx2() {
                return Some(Form::Avx2);
            }
        }
        None
    }

    /// Every form this CPU runs (the tests check each).
    #[cfg(test)]
    fn available() -> Vec<Form> {
        #[cfg(target_arch = "x86_64")]
        {
            let all = [(Form::Avx512, super::unary::has_avx512()), (Form::Avx2, super::unary::has_avx2())];
            all.into_iter().filter(|f| f.1).map(|f| f.0).collect()
        }
        #[cfg(not(target_arch = "x86_64"))]
        Vec::new()
    }

    /// The CPU's best form (a `VectorActivation` exists only where there is one).
    fn of_cpu() -> Form {
        Form::best().expect("a VectorActivation exists only where the CPU runs a vector form")
    }
}

impl VectorActivation {
    /// The explicit form of `act`, when it has one and this CPU runs it.
    #[inline]
    pub(crate) fn of(act: Activation) -> Option<Self> {
        Form::best()?;
        match act {
            Activation::Sigmoid => Some(Self::Sigmoid),
            Activation::Swish => Some(Self::Swish),
            Activation::Tanh => Some(Self::Tanh),
            _ => None,
        }
    }

    /// `values[i] = act(values[i])`.
    pub(crate) fn apply_in_place(self, values: &mut [f32]) {
        self.map_in_place_with(Form::of_cpu(), values, Bias::None)
    }

    /// `out[i] = act(inp[i])` (`out.len() == inp.len()`).
    pub(crate) fn map(self, inp: &[f32], out: &mut [f32]) {
        self.map_with(Form::of_cpu(), inp, out)
    }

    /// `v = act(v + bias)` over a GEMM tile (the fused conv epilogue's common case).
    pub(crate) fn bias_tile(self, tile: &mut TileOut<'_>, bias: TileBias<'_>) {
        let form = Form::of_cpu();
        for r in 0..tile.rows() {
            let row = tile.row(r);
            let bias = match bias {
                TileBias::None => Bias::None,
                TileBias::Rows(b) => Bias::Scalar(b[r]),
                TileBias::Cols(b) => Bias::Cols(&b[..row.len()]),
            };
            self.map_in_place_with(form, row, bias);
        }
    }

    /// [`VectorActivation::map`] in the given form (one this CPU runs).
    fn map_with(self, form: Form, inp: &[f32], out: &mut [f32]) {
        assert_eq!(inp.len(), out.len(), "vector activation: input and output lengths differ");
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `form` is one this CPU runs (`Form::best`, `Form::available`); the lengths
        // were just checked.
        unsafe {
            match form {
                Form::Avx512 => avx512::map(self, inp, out),
                Form::Avx2 => avx2::map(self, inp, out),
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        match form {}
    }

    /// `v = act(v + bias)` in the given form (one this CPU runs); a `Cols` bias is as long
    /// as the values.
    fn map_in_place_with(self, form: Form, values: &mut [f32], bias: Bias<'_>) {
        if let Bias::Cols(b) = bias {
            assert_eq!(b.len(), values.len(), "vector activation: bias and values lengths differ");
        }
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as in `map_with`; the bias length was just checked.
        unsafe {
            match form {
                Form::Avx512 => avx512::map_in_place(self, values, bias),
                Form::Avx2 => avx2::map_in_place(self, values, bias),
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        match form {}
    }
}

/// A softmax of one row: `(x, out)`.
pub(crate) type SoftmaxRow<T> = fn(&[T], &mut [T]);

/// softmax of one contiguous float32 row (the axis innermost) with the explicit AVX-512 or
/// AVX2 exponential, when this CPU has AVX-512F/VL or AVX2 + FMA (`None` otherwise: the
/// caller keeps its auto-vectorised loop). [spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-softmax-method)
///
/// Three passes over the row while it is in L1: the maximum m (a NaN anywhere makes the row
/// NaN); eˣ⁻ᵐ written to `out`, with d = m − x split exactly into its rounded value and the
/// rounding error (TwoSum) and eˣ⁻ᵐ = e⁻ᵈ·(1 − err), so a large spread costs no accuracy
/// (without the correction the rounding of d alone costs up to 64 ULP where 64 ≤ d < 104;
/// 63 measured), summed in f64; then the products with 1/Σ. Measured
/// (`softmax_row_is_within_4_ulp` below, rows of 1 to 300 values spread over up to 120):
/// 2 ULP at worst against an f64 reference (WPT tolerance: 3·n + 3 ULP for a row of n).
/// Kernel bench, rows of 128, Ice Lake, 1 thread: 0.75–0.87 ns per value against the
/// generic loop's 2.4–3.2.
pub(crate) fn softmax_row_f32() -> Option<SoftmaxRow<f32>> {
    softmax_row_in(Form::best()?)
}

/// [`softmax_row_f32`] in the given form (one this CPU runs).
fn softmax_row_in(form: Form) -> Option<SoftmaxRow<f32>> {
    match form {
        #[cfg(target_arch = "x86_64")]
        Form::Avx512 => Some(|x, out| {
            assert_eq!(x.len(), out.len(), "softmax row: input and output lengths differ");
            // SAFETY: only returned for a form this CPU runs; the lengths were just checked.
            unsafe { avx512::softmax_row(x, out) }
        }),
        #[cfg(target_arch = "x86_64")]
        Form::Avx2 => Some(|x, out| {
            assert_eq!(x.len(), out.len(), "softmax row: input and output lengths differ");
            // SAFETY: as above.
            unsafe { avx2::softmax_row(x, out) }
        }),
    }
}

/// What is added to each value before the activation.
#[derive(Clone, Copy, Debug)]
enum Bias<'a> {
    None,
    Scalar(f32),
    /// One per value (as long as the values).
    Cols(&'a [f32]),
}

/// The AVX-512 SiLU ([`VectorActivation::Swish`]'s vector form), for kernels that apply it in
/// registers (the GEMM's store).
#[cfg(target_arch = "x86_64")]
pub(crate) use avx512::swish as swish_avx512;

/// The AVX2 SiLU's vector form (the same role on CPUs without AVX-512: the stores of the AVX2
/// GEMM microkernel and of `conv_direct`).
#[cfg(target_arch = "x86_64")]
pub(crate) use avx2::swish as swish_avx2;

/// x·sigmoid(x) of one value in the CPU's vector form (the lanes of a partial tile).
pub(crate) fn swish_one(x: f32) -> f32 {
    match Form::of_cpu() {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the CPU runs this form (`Form::best`).
        Form::Avx512 => unsafe { avx512::swish_one(x) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as above.
        Form::Avx2 => unsafe { avx2::swish_one(x) },
    }
}

/// log₂e (the exponent of eᵗ = 2^(t·log₂e)).
#[cfg(target_arch = "x86_64")]
const LOG2E: f32 = std::f32::consts::LOG2_E;
/// C2..C6 of eʳ ≈ 1 + r + C2·r² + … + C6·r⁶ on |r| ≤ ln2/2: a minimax fit of the
/// relative error (0.05·2⁻²⁴ at worst in exact arithmetic; Taylor's degree 6 leaves 2⁻²³).
#[cfg(target_arch = "x86_64")]
const EXP_C: [f32; 5] = [0.499_999_94, 0.166_665_21, 0.041_668_39, 0.008_368_71, 0.001_381_461_3];

#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "x86_64")]
mod avx512;

#[cfg(test)]
mod tests {
    use super::*;
    use webnn_core::testing::ulp_f32;

    fn sigmoid64(x: f64) -> f64 {
        1.0 / (1.0 + (-x).exp())
    }

    /// The worst ULP error of `act` over every `step`th f32 bit pattern (both signs, the
    /// specials included), evaluated through `map` in batches, odd-length tails included.
    fn sweep(act: VectorActivation, form: Form, exact: impl Fn(f64) -> f64, step: u64) -> (u64, f32) {
        let mut worst = (0u64, 0.0f32);
        let mut batch = Vec::with_capacity(4099);
        let mut out = vec![0.0f32; 4099];
        let mut b: u64 = 0;
        let mut flush = |batch: &mut Vec<f32>, worst: &mut (u64, f32)| {
            let out = &mut out[..batch.len()];
            act.map_with(form, batch, out);
            for (&x, &y) in batch.iter().zip(out.iter()) {
                let want = exact(x as f64);
                if want.is_nan() && !x.is_nan() {
                    continue; // outside the checked range
                }
                let d = ulp_f32(y, want);
                if d > worst.0 {
                    *worst = (d, x);
                }
            }
            batch.clear();
        };
        while b <= u32::MAX as u64 {
            batch.push(f32::from_bits(b as u32));
            if batch.len() == 4099 {
                flush(&mut batch, &mut worst);
            }
            b += step;
        }
        flush(&mut batch, &mut worst);
        worst
    }

    fn step() -> u64 {
        if cfg!(debug_assertions) {
            4099
        } else {
            97
        }
    }

    #[test]
    fn sigmoid_is_within_3_ulp() {
        for form in Form::available() {
            let (d, x) = sweep(VectorActivation::Sigmoid, form, sigmoid64, step());
            assert!(d <= 3, "sigmoid {form:?}: {d} ULP at {x:e}");
        }
    }

    #[test]
    fn tanh_is_within_4_ulp() {
        for form in Form::available() {
            tanh_form_is_within_4_ulp(form);
        }
    }

    fn tanh_form_is_within_4_ulp(form: Form) {
        let act = VectorActivation::Tanh;
        let (d, x) = sweep(act, form, f64::tanh, step());
        assert!(d <= 4, "tanh {form:?}: {d} ULP at {x:e}");
        let x = [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 0.0, -0.0, 9.0, -9.5, 20.0, 1e-30, -1e-40];
        let mut y = [7.0f32; 10];
        act.map_with(form, &x, &mut y);
        assert!(y[0].is_nan());
        assert_eq!(&y[1..3], &[1.0, -1.0]);
        assert_eq!((y[3].to_bits(), y[4].to_bits()), (0.0f32.to_bits(), (-0.0f32).to_bits()));
        assert_eq!(&y[6..8], &[-1.0, 1.0]);
        assert!(ulp_f32(y[5], 9f64.tanh()) <= 1);
        assert_eq!((y[8], y[9]), (1e-30, -1e-40), "tanh x = x for tiny x, subnormals included");
    }

    #[test]
    fn swish_is_the_two_steps_and_within_4_ulp() {
        for form in Form::available() {
            swish_form_is_the_two_steps_and_within_4_ulp(form);
        }
    }

    fn swish_form_is_the_two_steps_and_within_4_ulp(form: Form) {
        let (swish, sigmoid) = (VectorActivation::Swish, VectorActivation::Sigmoid);
        // Bit for bit the unfused graph's steps: this sigmoid, then the product.
        let x: Vec<f32> = (0..1u32 << 20).map(|i| f32::from_bits(i.wrapping_mul(4099))).collect();
        let (mut y, mut s) = (vec![0.0f32; x.len()], vec![0.0f32; x.len()]);
        swish.map_with(form, &x, &mut y);
        sigmoid.map_with(form, &x, &mut s);
        for ((&x, &y), &s) in x.iter().zip(&y).zip(&s) {
            assert_eq!(y.to_bits(), (x * s).to_bits(), "swish {form:?}({x:e})");
        }
        // Against the exact function where sigmoid is a normal number (below x ≈ −87.3 it is
        // subnormal, a few bits wide, and its error of ≤ 3 of those ULP is scaled by |x| in
        // the product, as in the unfused graph).
        let exact = |x| if sigmoid64(x) < f32::MIN_POSITIVE as f64 { f64::NAN } else { x * sigmoid64(x) };
        let (d, x) = sweep(swish, form, exact, step());
        assert!(d <= 4, "swish {form:?}: {d} ULP at {x:e}");
    }

    /// softmax of `x` in f64 (max-subtracted).
    fn softmax64(x: &[f32]) -> Vec<f64> {
        let m = x.iter().fold(f64::NEG_INFINITY, |m, &v| m.max(v as f64));
        let e: Vec<f64> = x.iter().map(|&v| (v as f64 - m).exp()).collect();
        let s: f64 = e.iter().sum();
        e.iter().map(|v| v / s).collect()
    }

    #[test]
    fn softmax_row_is_within_4_ulp() {
        for form in Form::available() {
            softmax_row_form_is_within_4_ulp(softmax_row_in(form).expect("a form this CPU runs"));
        }
    }

    fn softmax_row_form_is_within_4_ulp(row: SoftmaxRow<f32>) {
        let mut rng = webnn_core::testing::Rng::new(37);
        let mut worst = (0u64, 0usize, 0.0f32);
        for n in (1..=40).chain([127, 128, 197, 300]) {
            for spread in [1.0, 10.0, 60.0, 120.0] {
                let x: Vec<f32> = (0..n).map(|_| rng.uniform(3.0 - spread / 2.0, 3.0 + spread / 2.0) as f32).collect();
                let mut y = vec![f32::NAN; n];
                row(&x, &mut y);
                for (i, (&y, want)) in y.iter().zip(softmax64(&x)).enumerate() {
                    let d = ulp_f32(y, want);
                    if d > worst.0 {
                        worst = (d, n, x[i]);
                    }
                }
            }
        }
        assert!(worst.0 <= 4, "softmax row: {} ULP (row of {}, at x = {:e})", worst.0, worst.1, worst.2);
        // Two values far apart: the rounding of x − m alone would cost ~40 ULP here.
        let mut y = [0.0f32; 2];
        row(&[0.0, -80.3], &mut y);
        assert!(ulp_f32(y[1], softmax64(&[0.0, -80.3])[1]) <= 2, "{:e}", y[1]);
        // A NaN anywhere makes the row NaN; −∞ logits give +0; a row of −∞ is NaN (0/0).
        let mut x: Vec<f32> = (0..37).map(|i| (i % 5) as f32).collect();
        x[33] = f32::NAN;
        let mut y = vec![0.0f32; 37];
        row(&x, &mut y);
        assert!(y.iter().all(|v| v.is_nan()));
        x[33] = f32::NEG_INFINITY;
        x[3] = f32::NEG_INFINITY;
        row(&x, &mut y);
        assert_eq!((y[3], y[33]), (0.0, 0.0));
        let want = softmax64(&x);
        assert!(y.iter().zip(&want).all(|(&y, &w)| ulp_f32(y, w) <= 2));
        row(&[f32::NEG_INFINITY; 3], &mut y[..3]);
        assert!(y[..3].iter().all(|v| v.is_nan()));
        row(&[f32::INFINITY, 1.0], &mut y[..2]);
        assert!(y[..2].iter().all(|v| v.is_nan()));
        row(&[7.5], &mut y[..1]);
        assert_eq!(y[0], 1.0);
    }

    #[test]
    fn specials_and_every_tail_length() {
        for form in Form::available() {
            specials_and_every_tail_length_in(form);
        }
        // The tile form (the CPU's best) over rows with a column bias.
        let Some(swish) = VectorActivation::of(Activation::Swish) else { return };
        let x: Vec<f32> = (0..37).map(|i| i as f32 * 0.37 - 5.0).collect();
        let bias: Vec<f32> = (0..37).map(|i| i as f32 * 0.01).collect();
        let mut z = x.clone();
        let mut tile = TileOut::new(&mut z, 37, 1, 37).unwrap();
        swish.bias_tile(&mut tile, TileBias::Cols(&bias));
        for i in 0..37 {
            let xb = x[i] + bias[i];
            assert!(ulp_f32(z[i], xb as f64 * sigmoid64(xb as f64) as f32 as f64) <= 3, "bias tile {i}");
        }
    }

    fn specials_and_every_tail_length_in(form: Form) {
        let act = VectorActivation::Sigmoid;
        let x = [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 0.0, -0.0, 88.0, -88.0, -103.0, -120.0];
        let mut y = [1.0f32; 9];
        act.map_with(form, &x, &mut y);
        assert!(y[0].is_nan());
        assert_eq!(&y[1..5], &[1.0, 0.0, 0.5, 0.5]);
        assert_eq!(y[5], 1.0);
        assert!(ulp_f32(y[6], sigmoid64(-88.0)) <= 2 && y[6] > 0.0, "subnormal result kept: {:e}", y[6]);
        assert_eq!(y[8], 0.0);
        let swish = VectorActivation::Swish;
        for n in 0..40 {
            let x: Vec<f32> = (0..n).map(|i| i as f32 * 0.37 - 5.0).collect();
            let bias: Vec<f32> = (0..n).map(|i| i as f32 * 0.01).collect();
            let mut y = x.clone();
            swish.map_in_place_with(form, &mut y, Bias::None);
            let mut z = x.clone();
            swish.map_in_place_with(form, &mut z, Bias::Cols(&bias));
            for i in 0..n {
                let want = x[i] as f64 * sigmoid64(x[i] as f64) as f32 as f64;
                assert!(ulp_f32(y[i], want) <= 3, "n {n} i {i}: {} vs {want}", y[i]);
                let xb = x[i] + bias[i];
                assert!(ulp_f32(z[i], xb as f64 * sigmoid64(xb as f64) as f32 as f64) <= 3, "bias n {n} i {i}");
            }
        }
    }
}

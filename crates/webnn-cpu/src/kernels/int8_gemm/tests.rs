//! Tests against a straightforward reference: the sums in i64 by a triple loop, then the
//! requantization as the module documents it (`(sum − b_zero_point·Σa) as f32 · scale + bias`,
//! `activation::clamp_value`, and the spec's quantizeLinear, `quantize::quantize_one`). Every
//! output must match it bit for bit, on every kernel the CPU has, for shapes around the tile
//! and block edges, every view form of B and of C, every output type, 1 and several threads.
//! (The 8-bit outputs use the folded requantization of `requantize`, which may differ by one
//! step next to a rounding tie; none of these seeded cases lands there.)

use super::driver::{Blocking, Split};
use super::*;
use crate::kernels::activation::clamp_value;
use crate::kernels::quantize::quantize_one;
use webnn_core::testing::Rng;

/// The kernels this CPU can run (AVX2 and, on the Zen 4 / Ice Lake hosts, VNNI).
fn isas() -> Vec<Isa> {
    [Isa::Portable, Isa::Avx512Vnni, Isa::Avx2].into_iter().filter(|i| i.available()).collect()
}

/// How B reaches the GEMM.
#[derive(Clone, Copy, Debug)]
enum BForm {
    /// Row-major k × n, gapped rows (`cs == 1`).
    Rows,
    /// Row-major n × k read transposed (`rs == 1`).
    Cols,
    /// Both strides > 1.
    Strided,
}

/// How C is laid out.
#[derive(Clone, Copy, Debug)]
enum CForm {
    Rows,
    /// Transposed (`rs == 1`).
    Cols,
    Strided,
}

#[derive(Clone, Copy, Debug)]
enum CType {
    F32,
    U8,
    I8,
}

/// One problem: A (m × k, row-major with gaps), B (k × n logical), and the requantization.
#[derive(Clone, Debug)]
struct Problem {
    m: usize,
    n: usize,
    k: usize,
    a: Vec<i8>,
    a_rs: usize,
    b: Vec<u8>,
    b_zero_point: i32,
    scale: Vec<f32>,
    bias: Option<Vec<f32>>,
    lo: f32,
    hi: f32,
    out_scale: f32,
    out_zero_point: i32,
}

impl Problem {
    /// Random operands; `variant` picks the requantization (scales per row or not, bias,
    /// clamp, zero points, integer scales that make exact ties for the rounding).
    fn random(m: usize, n: usize, k: usize, variant: usize, rng: &mut Rng) -> Problem {
        let a_rs = k + variant % 3;
        let a: Vec<i8> = (0..m * a_rs).map(|_| rng.int(-128, 127) as i8).collect();
        let b: Vec<u8> = (0..k * n).map(|_| rng.int(0, 255) as u8).collect();
        let b_zero_point = [0, 128, 255, 37, rng.int(0, 255) as i32][variant % 5];
        let ties = variant % 7 == 3;
        let per_row = variant.is_multiple_of(2);
        let scale: Vec<f32> = if ties {
            vec![1.0]
        } else {
            (0..if per_row { m } else { 1 }).map(|_| rng.uniform_f32(1e-4, 4e-3)).collect()
        };
        let bias = (variant % 4 >= 2).then(|| (0..m).map(|_| rng.uniform_f32(-20.0, 20.0)).collect());
        let (lo, hi) = match variant % 6 {
            0 | 1 => (f32::NEG_INFINITY, f32::INFINITY),
            2 => (0.0, f32::INFINITY),
            3 => (0.0, 6.0),
            4 => (-3.5, 12.25),
            _ => (f32::NEG_INFINITY, 7.0),
        };
        let (lo, hi) = if ties { (f32::NEG_INFINITY, f32::INFINITY) } else { (lo, hi) };
        // Integer values divided by 2 or 4: exact halves, rounded to even.
        let out_scale = if ties { [2.0, 4.0][variant % 2] } else { rng.uniform_f32(0.02, 0.5) };
        let out_zero_point = rng.int(-20, 20) as i32;
        Problem { m, n, k, a, a_rs, b, b_zero_point, scale, bias, lo, hi, out_scale, out_zero_point }
    }

    fn packed(&self, isa: Isa) -> PackedI8 {
        PackedI8::pack_for(isa, &self.a, self.m, self.k, self.a_rs).expect("pack")
    }

    fn requant(&self) -> Requant<'_> {
        Requant {
            b_zero_point: self.b_zero_point,
            scale: &self.scale,
            bias: self.bias.as_deref(),
            lo: self.lo,
            hi: self.hi,
            folded: None,
        }
    }

    /// The f32 values v, row-major, from exact i64 sums.
    fn reference(&self) -> Vec<f32> {
        let mut v = Vec::with_capacity(self.m * self.n);
        for i in 0..self.m {
            let row = &self.a[i * self.a_rs..][..self.k];
            let row_sum: i64 = row.iter().map(|&x| x as i64).sum();
            for j in 0..self.n {
                let sum: i64 = (0..self.k).map(|p| row[p] as i64 * self.b[p * self.n + j] as i64).sum();
                let exact = sum - self.b_zero_point as i64 * row_sum;
                let scale = if self.scale.len() == 1 { self.scale[0] } else { self.scale[i] };
                let y = exact as f32 * scale;
                let y = match &self.bias {
                    Some(b) => y + b[i],
                    None => y,
                };
                v.push(clamp_value(y, self.lo, self.hi));
            }
        }
        v
    }

    /// The expected outputs as bits (f32 bits, or the byte), row-major.
    fn expected(&self, ty: CType) -> Vec<u32> {
        let (s, z) = (self.out_scale, self.out_zero_point);
        self.reference()
            .into_iter()
            .map(|v| match ty {
                CType::F32 => v.to_bits(),
                CType::U8 => quantize_one::<f32, u8>(v, s, z.clamp(0, 255) as u8) as u32,
                CType::I8 => quantize_one::<f32, i8>(v, s, z as i8) as u8 as u32,
            })
            .collect()
    }

    /// B laid out as `form` (0xA5 in the gaps): the data and its strides.
    fn b_view(&self, form: BForm) -> (Vec<u8>, usize, usize) {
        let (k, n) = (self.k, self.n);
        let (rs, cs) = match form {
            BForm::Rows => (n + 3, 1),
            BForm::Cols => (1, k + 5),
            BForm::Strided => (3 * n + 2, 3),
        };
        let len = if k == 0 || n == 0 { 0 } else { (k - 1) * rs + (n - 1) * cs + 1 };
        let mut data = vec![0xA5u8; len + 7];
        for p in 0..k {
            for j in 0..n {
                data[p * rs + j * cs] = self.b[p * n + j];
            }
        }
        (data, rs, cs)
    }

    /// Runs the GEMM: the outputs as bits, row-major (after checking that nothing outside the
    /// output view was written).
    fn run(
        &self,
        isa: Isa,
        bf: BForm,
        cf: CForm,
        ty: CType,
        blocking: Option<Blocking>,
        split: Option<Split>,
    ) -> Vec<u32> {
        let (m, n) = (self.m, self.n);
        let (bdata, brs, bcs) = self.b_view(bf);
        let b = U8View { data: &bdata, k: self.k, n, rs: brs, cs: bcs };
        let (rs, cs) = match cf {
            CForm::Rows => (n + 1, 1),
            CForm::Cols => (1, m + 2),
            CForm::Strided => (2 * n + 1, 2),
        };
        let len = (m - 1) * rs + (n - 1) * cs + 1 + 5;
        let mut inside = vec![false; len];
        for i in 0..m {
            for j in 0..n {
                inside[i * rs + j * cs] = true;
            }
        }
        let a = self.packed(isa);
        let req = self.requant();
        let (s, z) = (self.out_scale, self.out_zero_point);
        let get = |bits: &dyn Fn(usize) -> u32, sentinel: u32| -> Vec<u32> {
            for (at, &inside) in inside.iter().enumerate() {
                if !inside {
                    assert_eq!(bits(at), sentinel, "wrote outside the view at {at}");
                }
            }
            (0..m).flat_map(|i| (0..n).map(move |j| (i, j))).map(|(i, j)| bits(i * rs + j * cs)).collect()
        };
        match ty {
            CType::F32 => {
                let mut c = vec![f32::from_bits(0x7fc0_1234); len];
                let out = Output::F32 { data: &mut c, rs, cs };
                gemm_tuned(isa, blocking, split, &a, b, &req, out).expect("gemm");
                get(&|at| c[at].to_bits(), 0x7fc0_1234)
            }
            CType::U8 => {
                let mut c = vec![0xEEu8; len];
                let out = Output::U8 { data: &mut c, rs, cs, scale: s, zero_point: z.clamp(0, 255) };
                gemm_tuned(isa, blocking, split, &a, b, &req, out).expect("gemm");
                get(&|at| c[at] as u32, 0xEE)
            }
            CType::I8 => {
                let mut c = vec![0x5Ai8; len];
                let out = Output::I8 { data: &mut c, rs, cs, scale: s, zero_point: z };
                gemm_tuned(isa, blocking, split, &a, b, &req, out).expect("gemm");
                get(&|at| c[at] as u8 as u32, 0x5A)
            }
        }
    }
}

const BFORMS: [BForm; 3] = [BForm::Rows, BForm::Cols, BForm::Strided];
const CFORMS: [CForm; 3] = [CForm::Rows, CForm::Cols, CForm::Strided];
const CTYPES: [CType; 3] = [CType::F32, CType::U8, CType::I8];

/// Compares `got` with `want`, reporting the first difference.
fn check(got: &[u32], want: &[u32], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}");
    if let Some(at) = got.iter().zip(want).position(|(g, w)| g != w) {
        panic!("{what}: element {at}: got {:#x}, want {:#x}", got[at], want[at]);
    }
}

#[test]
fn every_shape_and_form_matches_the_reference() {
    const DIMS: [usize; 12] = [1, 3, 4, 5, 15, 16, 17, 47, 48, 49, 67, 300];
    let mut rng = Rng::new(7);
    let mut variant = 0;
    for &m in &DIMS {
        for &n in &DIMS {
            for &k in &DIMS {
                if m * n * k > 1 << 21 {
                    continue;
                }
                variant += 1;
                let p = Problem::random(m, n, k, variant, &mut rng);
                let (bf, cf, ty) = (BFORMS[variant % 3], CFORMS[variant / 3 % 3], CTYPES[variant / 9 % 3]);
                let want = p.expected(ty);
                for isa in isas() {
                    let got = p.run(isa, bf, cf, ty, None, None);
                    check(&got, &want, &format!("{m}x{n}x{k} {isa:?} {bf:?} {cf:?} {ty:?} variant {variant}"));
                }
            }
        }
    }
}

#[test]
fn every_view_and_output_form_on_one_shape() {
    let mut rng = Rng::new(11);
    for (variant, (m, n, k)) in [(17, 50, 37), (64, 97, 130)].into_iter().enumerate() {
        let p = Problem::random(m, n, k, variant + 2, &mut rng);
        for ty in CTYPES {
            let want = p.expected(ty);
            for bf in BFORMS {
                for cf in CFORMS {
                    for isa in isas() {
                        let got = p.run(isa, bf, cf, ty, None, None);
                        check(&got, &want, &format!("{m}x{n}x{k} {isa:?} {bf:?} {cf:?} {ty:?}"));
                    }
                }
            }
        }
    }
}

/// Tiny cache blocks reach every block edge: several depth blocks (the sums kept between
/// them), row and column blocks, with small matrices; and a depth of 1100 in 3 default blocks.
#[test]
fn depth_row_and_column_blocks() {
    let mut rng = Rng::new(3);
    let blockings =
        [Blocking { kc: 4, mc: 8, nc: 48 }, Blocking { kc: 8, mc: 16, nc: 96 }, Blocking { kc: 12, mc: 24, nc: 48 }];
    let mut variant = 0;
    for (m, n, k) in [(1, 1, 1), (9, 49, 13), (17, 97, 33), (33, 150, 67), (8, 48, 0), (5, 7, 0)] {
        for blocking in blockings {
            variant += 1;
            let p = Problem::random(m, n, k, variant, &mut rng);
            let ty = CTYPES[variant % 3];
            let want = p.expected(ty);
            for isa in isas() {
                let got = p.run(isa, BFORMS[variant % 3], CFORMS[variant / 3 % 3], ty, Some(blocking), None);
                check(&got, &want, &format!("{m}x{n}x{k} {isa:?} {blocking:?} {ty:?}"));
            }
        }
    }
    let p = Problem::random(17, 50, 1100, 4, &mut rng);
    for ty in CTYPES {
        let want = p.expected(ty);
        for isa in isas() {
            check(&p.run(isa, BForm::Rows, CForm::Rows, ty, None, None), &want, &format!("k 1100 {isa:?} {ty:?}"));
        }
    }
}

/// Several threads (the automatic split on a 3-thread pool, and forced splits of small
/// problems into more parts than threads, some empty) give the 1-thread results.
#[test]
fn threads_give_the_same_results() {
    let mut rng = Rng::new(5);
    let pool = |t| rayon::ThreadPoolBuilder::new().num_threads(t).build().expect("pool");
    let (one, three) = (pool(1), pool(3));
    for (m, n, k) in [(64, 200, 300), (300, 64, 200), (1, 3000, 160), (3000, 1, 160)] {
        let p = Problem::random(m, n, k, 2, &mut rng);
        let want = p.expected(CType::U8);
        for isa in isas() {
            let single = one.install(|| p.run(isa, BForm::Rows, CForm::Rows, CType::U8, None, None));
            let multi = three.install(|| p.run(isa, BForm::Rows, CForm::Rows, CType::U8, None, None));
            check(&single, &want, &format!("{m}x{n}x{k} {isa:?} 1 thread"));
            check(&multi, &want, &format!("{m}x{n}x{k} {isa:?} 3 threads"));
        }
    }
    let p = Problem::random(41, 130, 21, 3, &mut rng);
    for ty in CTYPES {
        let want = p.expected(ty);
        for split in
            [Split { parts: 2, by_rows: true }, Split { parts: 7, by_rows: true }, Split { parts: 5, by_rows: false }]
        {
            for isa in isas() {
                let got = three.install(|| p.run(isa, BForm::Cols, CForm::Cols, ty, None, Some(split)));
                check(&got, &want, &format!("{split:?} {isa:?} {ty:?}"));
            }
        }
    }
}

/// The extreme operands (a = −128 or 127, b = 255 or 0, b_zero_point 0 or 255) up to the
/// deepest k: the sums neither wrap nor saturate.
#[test]
fn extreme_operands_do_not_overflow() {
    for (m, n, k) in [(9, 49, 4096), (8, 16, MAX_DEPTH), (3, 50, MAX_DEPTH - 3)] {
        for (av, bv, bzp) in [(-128i8, 255u8, 0), (127, 255, 0), (-128, 0, 255), (-128, 255, 255), (127, 0, 255)] {
            let a = vec![av; m * k];
            let b = vec![bv; k * n];
            let exact = av as i64 * (bv as i64 - bzp as i64) * k as i64;
            assert!(exact.unsigned_abs() < 1 << 31);
            for isa in isas() {
                let packed = PackedI8::pack_for(isa, &a, m, k, k).expect("pack");
                assert!(packed.row_sums().iter().all(|&s| s as i64 == av as i64 * k as i64));
                let mut c = vec![0f32; m * n];
                let req = Requant::new(bzp, &[1.0]);
                let view = U8View { data: &b, k, n, rs: n, cs: 1 };
                gemm_with(isa, &packed, view, &req, Output::F32 { data: &mut c, rs: n, cs: 1 }).expect("gemm");
                assert!(c.iter().all(|&v| v == exact as f32), "{m}x{n}x{k} {isa:?} a {av} b {bv} zp {bzp}: {}", c[0]);
                // Quantized, it saturates (or is 0).
                let mut q = vec![0u8; m * n];
                let out = Output::U8 { data: &mut q, rs: n, cs: 1, scale: 1.0, zero_point: 0 };
                gemm_with(isa, &packed, view, &req, out).expect("gemm");
                let want = if exact > 0 { 255 } else { 0 };
                assert!(q.iter().all(|&v| v == want), "{m}x{n}x{k} {isa:?} a {av} b {bv} zp {bzp}: {}", q[0]);
            }
        }
    }
}

fn f32_out(c: &mut [f32], rs: usize, cs: usize) -> Output<'_> {
    Output::F32 { data: c, rs, cs }
}

/// Sizes that cannot be allocated or do not fit are errors, not panics or aborts; so are
/// mismatched operands and out-of-range parameters.
#[test]
fn bad_sizes_and_parameters_are_errors() {
    let a = vec![1i8; 64];
    // m · k overflows usize.
    assert!(PackedI8::pack(&a[..8], usize::MAX / 2, 8, 0).is_err());
    // 4 EiB: a valid view (every row the same one), too large to allocate.
    assert!(PackedI8::pack(&a[..4], usize::MAX / 16, 4, 0).is_err());
    // Deeper than MAX_DEPTH, or a view larger than its data.
    assert!(PackedI8::pack(&a, 1, MAX_DEPTH + 1, 0).is_err());
    assert!(PackedI8::pack(&a, 9, 8, 8).is_err());
    let packed = PackedI8::pack(&a, 8, 8, 8).expect("pack");
    assert_eq!(packed.row_sums(), &[8; 8]);
    let b = vec![1u8; 64];
    let view = U8View { data: &b, k: 8, n: 8, rs: 8, cs: 1 };
    let scale = [1.0f32];
    let req = Requant::new(0, &scale);
    let mut c = vec![0f32; 64];
    assert!(gemm(&packed, view, &req, f32_out(&mut c, 8, 1)).is_ok());
    assert!(c.iter().all(|&v| v == 8.0));
    // A packed for a kernel of the other layout.
    for (packed_for, run_on) in [(Isa::Portable, Isa::Avx2), (Isa::Avx2, Isa::Portable)] {
        if run_on.available() {
            let other = PackedI8::pack_for(packed_for, &a, 8, 8, 8).expect("pack");
            assert!(gemm_with(run_on, &other, view, &req, f32_out(&mut c, 8, 1)).is_err());
        }
    }
    // B's depth differs from A's; B's view is larger than its data.
    assert!(gemm(&packed, U8View { k: 7, ..view }, &req, f32_out(&mut c, 8, 1)).is_err());
    assert!(gemm(&packed, U8View { n: 9, ..view }, &req, f32_out(&mut c, 8, 1)).is_err());
    // A huge n on a stride-0 view needs an output as large: it does not fit.
    let wide = U8View { n: usize::MAX / 2, cs: 0, ..view };
    assert!(gemm(&packed, wide, &req, f32_out(&mut c, 0, 1)).is_err());
    // An output view that repeats elements, or runs past its data.
    assert!(gemm(&packed, view, &req, f32_out(&mut c, 0, 1)).is_err());
    assert!(gemm(&packed, view, &req, f32_out(&mut c, 4, 1)).is_err());
    assert!(gemm(&packed, view, &req, f32_out(&mut c, 9, 1)).is_err());
    // Zero points out of range, scales or bias of the wrong length.
    assert!(gemm(&packed, view, &Requant::new(256, &scale), f32_out(&mut c, 8, 1)).is_err());
    assert!(gemm(&packed, view, &Requant::new(-1, &scale), f32_out(&mut c, 8, 1)).is_err());
    assert!(gemm(&packed, view, &Requant::new(0, &[1.0, 2.0]), f32_out(&mut c, 8, 1)).is_err());
    let short_bias = [0.0f32; 7];
    assert!(gemm(&packed, view, &Requant { bias: Some(&short_bias), ..req }, f32_out(&mut c, 8, 1)).is_err());
    let mut q = vec![0u8; 64];
    assert!(gemm(&packed, view, &req, Output::U8 { data: &mut q, rs: 8, cs: 1, scale: 1.0, zero_point: 256 }).is_err());
    // Precomputed folded rows: one per row, else an error.
    let folded = fold_rows(&req, webnn_core::DataType::Uint8, 1.0, 0, 8).unwrap().unwrap();
    let short = Requant { folded: Some(&folded[..7]), ..req };
    assert!(gemm(&packed, view, &short, Output::U8 { data: &mut q, rs: 8, cs: 1, scale: 1.0, zero_point: 0 }).is_err());
    let full = Requant { folded: Some(&folded), ..req };
    assert!(gemm(&packed, view, &full, Output::U8 { data: &mut q, rs: 8, cs: 1, scale: 1.0, zero_point: 0 }).is_ok());
    let mut q = vec![0i8; 64];
    assert!(gemm(&packed, view, &req, Output::I8 { data: &mut q, rs: 8, cs: 1, scale: 1.0, zero_point: 128 }).is_err());
    assert!(gemm(&packed, view, &req, Output::I8 { data: &mut q, rs: 8, cs: 1, scale: 1.0, zero_point: -128 }).is_ok());
}

/// NaN scales or biases: the f32 output is NaN, the quantized ones 0, on every kernel (the
/// `as` casts of quantizeLinear).
#[test]
fn nan_requantizes_as_quantize_linear() {
    let p = Problem { scale: vec![f32::NAN], ..Problem::random(9, 20, 8, 1, &mut Rng::new(1)) };
    for ty in CTYPES {
        let want = p.expected(ty);
        for isa in isas() {
            check(&p.run(isa, BForm::Rows, CForm::Rows, ty, None, None), &want, &format!("{isa:?} {ty:?}"));
        }
    }
}

/// The clamp keeps a −0 sum (a zero times a negative scale) as −0, as `clamp_value` does.
#[test]
fn clamp_keeps_negative_zero() {
    let base = Problem::random(9, 20, 8, 1, &mut Rng::new(2));
    let p =
        Problem { b: vec![base.b_zero_point as u8; 8 * 20], scale: vec![-1e-3], bias: None, lo: 0.0, hi: 6.0, ..base };
    let want = p.expected(CType::F32);
    assert!(want.iter().all(|&v| v == (-0.0f32).to_bits()));
    for isa in isas() {
        check(&p.run(isa, BForm::Rows, CForm::Rows, CType::F32, None, None), &want, &format!("{isa:?}"));
    }
}

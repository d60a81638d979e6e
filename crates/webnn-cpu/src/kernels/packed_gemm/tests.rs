//! Tests against the naive f64 reference (`sgemm::sgemm_reference`): every operand
//! form (packed, row-major, column-major, gapped views), sizes around the tile and block edges
//! of each instruction set the CPU has, 1 and 2 threads, and the epilogue's contract.
//!
//! Tolerance: every kernel sums each product in f32 with fused or separate multiply-adds, in
//! depth blocks and (column kernel) in up to four interleaved partial sums, so each element's
//! error is at most about k·u·Σ|a||b| with u = 2^-24 (the classic bound γ_k for any summation
//! order). We allow k·2^-22·Σ|a||b| (4× that) and nothing more: a zero Σ|a||b| must be exact
//! (up to the rounding of the test epilogue's `2x + 1`).

use super::super::activation::Activation;
use super::super::epilogue::StoreActivation::{self, Clamp};
use super::super::epilogue::{EpilogueBinary, TileBias};
use super::super::vector_activation::VectorActivation;
use super::kernel::{Blocking, Kernel};
use super::*;
use crate::kernels::sgemm::sgemm_reference;
use std::sync::atomic::{AtomicU32, Ordering};

/// Deterministic values in [-1, 1).
fn pseudo(n: usize, seed: u32) -> Vec<f32> {
    let mut rng = webnn_core::testing::Rng::new(seed as u64);
    (0..n).map(|_| rng.below(2048) as f32 / 1024.0 - 1.0).collect()
}

/// How an operand reaches the GEMM.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Form {
    /// Packed once ([`PackedLhs`] / [`PackedRhs`], from a gapped view).
    Packed,
    /// Row-major (column stride 1).
    Rows,
    /// Column-major (row stride 1).
    Cols,
    /// Both strides > 1, NaN in the gaps (reading one poisons the result).
    Gapped,
}

const FORMS: [Form; 4] = [Form::Packed, Form::Rows, Form::Cols, Form::Gapped];

/// Storage and strides of a `rows × cols` matrix with values `v` (row-major) in `form`.
fn layout(v: &[f32], rows: usize, cols: usize, form: Form) -> (Vec<f32>, usize, usize) {
    let (rs, cs) = match form {
        Form::Rows => (cols, 1),
        Form::Cols => (1, rows),
        Form::Packed | Form::Gapped => (2 * cols + 3, 2),
    };
    let len = if rows == 0 || cols == 0 { 0 } else { (rows - 1) * rs + (cols - 1) * cs + 1 };
    let mut data = vec![f32::NAN; len];
    for i in 0..rows {
        for j in 0..cols {
            data[i * rs + j * cs] = v[i * cols + j];
        }
    }
    (data, rs, cs)
}

/// The ISAs this CPU can run.
fn isas() -> Vec<Isa> {
    [Isa::Portable, Isa::Avx2, Isa::Avx512].into_iter().filter(|i| i.available()).collect()
}

/// One GEMM checked against the reference: values (with the epilogue `2x + 1` applied after
/// the full sum), untouched gaps of C, exactly one epilogue call per element, and the same
/// bits as the serial run when parallel.
#[derive(Clone, Copy, Debug)]
struct Case {
    isa: Isa,
    blocking: Option<Blocking>,
    m: usize,
    n: usize,
    k: usize,
    a: Form,
    b: Form,
    c_gap: usize,
}

impl Case {
    fn run(&self, parallel: bool) -> Vec<f32> {
        let Case { isa, blocking, m, n, k, a, b, c_gap } = *self;
        let av = pseudo(m * k, (m * 31 + k) as u32);
        let bv = pseudo(k * n, (n * 17 + k + 1) as u32);
        let (ad, ars, acs) = layout(&av, m, k, a);
        let (bd, brs, bcs) = layout(&bv, k, n, b);
        let am = Mat { data: &ad, rs: ars, cs: acs };
        let bm = Mat { data: &bd, rs: brs, cs: bcs };
        let pa = PackedLhs::with_isa(isa, m, k, am).expect("pack A");
        let pb = PackedRhs::with_isa(isa, k, n, bm).expect("pack B");
        let lhs = if a == Form::Packed { Lhs::Packed(&pa) } else { Lhs::Strided(am) };
        let rhs = if b == Form::Packed { Rhs::Packed(&pb) } else { Rhs::Strided(bm) };
        let c_rs = n + c_gap;
        let c_len = if m == 0 { 3 } else { (m - 1) * c_rs + n + 3 };
        let mut c = vec![f32::NAN; c_len];
        let calls: Vec<AtomicU32> = (0..m * n).map(|_| AtomicU32::new(0)).collect();
        let epilogue = |i: usize, j0: usize, seg: &mut [f32]| {
            assert!(i < m && j0 + seg.len() <= n, "{self:?}: epilogue segment ({i}, {j0}, {}) outside C", seg.len());
            for (j, x) in seg.iter_mut().enumerate() {
                calls[i * n + j0 + j].fetch_add(1, Ordering::Relaxed);
                *x = 2.0 * *x + 1.0;
            }
        };
        gemm_blocked(isa, blocking, m, n, k, lhs, rhs, &mut c, c_rs, parallel, &epilogue).expect("gemm");

        let (rows_a, rows_b) = (Mat::rows(&av, k), Mat::rows(&bv, n));
        let mut want = vec![0f32; m * n];
        sgemm_reference(m, n, k, rows_a, rows_b, &mut want, n, 1, 1.0, None);
        let abs_a: Vec<f32> = av.iter().map(|x| x.abs()).collect();
        let abs_b: Vec<f32> = bv.iter().map(|x| x.abs()).collect();
        let mut bound = vec![0f32; m * n];
        sgemm_reference(m, n, k, Mat::rows(&abs_a, k), Mat::rows(&abs_b, n), &mut bound, n, 1, 1.0, None);
        for i in 0..m {
            for j in 0..n {
                let got = c[i * c_rs + j];
                // The bound of the module doc, doubled by the epilogue's 2x, plus one rounding
                // of its + 1 on each side (at most 2^-24 of the result each).
                let expect = 2.0 * want[i * n + j] + 1.0;
                let tol = 2.0 * k as f32 * (-22f32).exp2() * bound[i * n + j] + f32::EPSILON * expect.abs();
                assert!(
                    (got - expect).abs() <= tol,
                    "{self:?} parallel={parallel}: C[{i}][{j}] = {got}, want {expect} ± {tol}"
                );
                assert_eq!(calls[i * n + j].load(Ordering::Relaxed), 1, "{self:?}: epilogue calls for C[{i}][{j}]");
            }
            for g in 0..c_gap.min(c_len - i * c_rs - n) {
                assert!(c[i * c_rs + n + g].is_nan(), "{self:?}: gap of C row {i} written");
            }
        }
        assert!(c[c_len - 3..].iter().all(|x| x.is_nan()), "{self:?}: C written past its end");
        c
    }

    /// Serial, then parallel on 1 and 2 threads; parallel results are the same bits.
    fn check(&self) {
        let serial = self.run(false);
        for threads in [1, 2] {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            let par = pool.install(|| self.run(true));
            let same = serial.iter().zip(&par).all(|(x, y)| x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()));
            assert!(same, "{self:?}: {threads} threads differ from serial");
        }
    }
}

/// Sizes around the tile edges and the real blocks of `kernel`.
fn edge_shapes(kernel: &Kernel) -> Vec<(usize, usize, usize)> {
    let (mr, nr, kc) = (kernel.mr, kernel.nr, kernel.kc_max);
    let mut v = vec![
        (1, 1, 1),
        (mr - 1, nr - 1, 3),
        (mr, nr, 4),
        (mr + 1, nr + 1, 17),
        (2 * mr + 3, 2 * nr + 3, 33),
        (3, nr + 5, kc + 1),
        (mr + 1, 7, 2 * kc + 3),
        (5, 16 + 1, 9),
        (67, 300, 70),
        (300, 67, 70),
    ];
    // Last panels of each width the AVX-512 tiles tell apart (1, 2 or 3 vectors, full or masked).
    for w in [8, 9, 16, 17, 20, 24, 25, 32, 33, 40, 41] {
        v.push((mr + 2, nr + w, 13));
        v.push((1, w, 6));
        v.push((3, w, 5));
    }
    for narrow in 1..=kernel.narrow {
        v.push((mr + 2, nr + narrow, 13));
        v.push((2, narrow, 5));
    }
    v
}

#[test]
fn every_form_and_edge_size_matches_reference() {
    for isa in isas() {
        let kernel = isa.kernel().unwrap();
        for (m, n, k) in edge_shapes(kernel) {
            for a in FORMS {
                for b in FORMS {
                    for c_gap in [0, 3] {
                        Case { isa, blocking: None, m, n, k, a, b, c_gap }.check();
                    }
                }
            }
            // A row-major B the other way than this CPU's default (in place or packed).
            let mut blocking = kernel.blocking(m, n, k);
            blocking.b_in_place = !blocking.b_in_place;
            for a in FORMS {
                Case { isa, blocking: Some(blocking), m, n, k, a, b: Form::Rows, c_gap: 3 }.check();
            }
        }
    }
}

#[test]
fn every_block_edge_matches_reference() {
    // Tiny blocks: several depth, row and column blocks, each with a partial last one.
    for isa in isas() {
        let kernel = isa.kernel().unwrap();
        let (mr, nr) = (kernel.mr, kernel.nr);
        for (kc, mc, nc) in [(4, 2 * mr, 2 * nr), (1, mr, nr), (5, 3 * mr, nr)] {
            for (b_in_place, a_in_place_block) in [(true, 0), (false, 0), (true, 1 << 20)] {
                let blocking = Some(Blocking { kc, mc, nc, b_in_place, a_in_place_block });
                for (m, n, k) in [
                    (2 * mr + 3, 3 * nr + 5, 11),
                    (1, 5 * nr + 1, 9),
                    (5 * mr + 1, 1, 9),
                    (3 * mr, 2 * nr, 8),
                    (mr + 1, 2 * nr + 3, 1),
                ] {
                    for a in FORMS {
                        for b in FORMS {
                            Case { isa, blocking, m, n, k, a, b, c_gap: 2 }.check();
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn default_isa_runs_large_parallel_shapes() {
    // Large enough to split across threads along either dimension.
    for (m, n, k, a, b) in [
        (64, 3136, 80, Form::Packed, Form::Rows),
        (256, 96, 200, Form::Rows, Form::Packed),
        (130, 200, 600, Form::Rows, Form::Rows),
    ] {
        Case { isa: Isa::best(), blocking: None, m, n, k, a, b, c_gap: 0 }.check();
    }
}

#[test]
fn old_contents_of_c_are_never_read() {
    for isa in isas() {
        let (m, n, k) = (13, 53, 600);
        let a = pseudo(m * k, 1);
        let b = pseudo(k * n, 2);
        let run = |fill: f32| {
            let mut c = vec![fill; m * n];
            gemm_blocked(
                isa,
                None,
                m,
                n,
                k,
                Lhs::Strided(Mat::rows(&a, k)),
                Rhs::Strided(Mat::rows(&b, n)),
                &mut c,
                n,
                false,
                &no_epilogue,
            )
            .unwrap();
            c
        };
        let (x, y) = (run(f32::NAN), run(1e30));
        assert!(x.iter().zip(&y).all(|(p, q)| p.to_bits() == q.to_bits()), "{isa:?}");
        assert!(x.iter().all(|v| v.is_finite()));
    }
}

#[test]
fn zero_depth_gives_epilogue_of_zero() {
    for isa in isas() {
        let mut c = vec![f32::NAN; 3 * 5];
        let a = PackedLhs::with_isa(isa, 3, 0, Mat::rows(&[], 0)).unwrap();
        let calls = AtomicU32::new(0);
        let epilogue = |i: usize, j0: usize, seg: &mut [f32]| {
            calls.fetch_add(seg.len() as u32, Ordering::Relaxed);
            seg.iter_mut().enumerate().for_each(|(j, x)| *x += (i * 10 + j0 + j) as f32);
        };
        gemm_blocked(isa, None, 3, 5, 0, Lhs::Packed(&a), Rhs::Strided(Mat::rows(&[], 5)), &mut c, 5, true, &epilogue)
            .unwrap();
        assert_eq!(calls.load(Ordering::Relaxed), 15);
        for i in 0..3 {
            for j in 0..5 {
                assert_eq!(c[i * 5 + j], (i * 10 + j) as f32);
            }
        }
    }
}

#[test]
fn empty_outputs_call_nothing() {
    let epilogue = |_: usize, _: usize, _: &mut [f32]| panic!("no elements, no epilogue");
    let a = [1.0f32; 6];
    let mut c: [f32; 0] = [];
    gemm(0, 3, 2, Lhs::Strided(Mat::rows(&[], 2)), Rhs::Strided(Mat::rows(&a, 3)), &mut c, 3, true, &epilogue).unwrap();
    gemm(3, 0, 2, Lhs::Strided(Mat::rows(&a, 2)), Rhs::Strided(Mat::rows(&[], 0)), &mut c, 0, true, &epilogue).unwrap();
}

#[test]
fn mismatched_operands_are_errors() {
    let a = pseudo(4 * 6, 1);
    let b = pseudo(6 * 5, 2);
    let mut c = vec![0f32; 4 * 5];
    let (am, bm) = (Mat::rows(&a, 6), Mat::rows(&b, 5));
    let pa = PackedLhs::new(4, 6, am).unwrap();
    let pb = PackedRhs::new(6, 5, bm).unwrap();
    // Packed for other sizes.
    assert!(gemm(4, 5, 5, Lhs::Packed(&pa), Rhs::Strided(bm), &mut c, 5, false, &no_epilogue).is_err());
    assert!(gemm(4, 4, 6, Lhs::Strided(am), Rhs::Packed(&pb), &mut c, 5, false, &no_epilogue).is_err());
    // Views or output too short, or overlapping output rows.
    assert!(gemm(5, 5, 6, Lhs::Strided(am), Rhs::Strided(bm), &mut c, 5, false, &no_epilogue).is_err());
    assert!(gemm(4, 5, 7, Lhs::Strided(Mat::rows(&a, 7)), Rhs::Strided(bm), &mut c, 5, false, &no_epilogue).is_err());
    assert!(gemm(4, 5, 6, Lhs::Strided(am), Rhs::Strided(bm), &mut c[1..], 5, false, &no_epilogue).is_err());
    assert!(gemm(4, 5, 6, Lhs::Strided(am), Rhs::Strided(bm), &mut c, 4, false, &no_epilogue).is_err());
    assert!(PackedLhs::new(5, 6, am).is_none());
    // Packed for another ISA than the one forced.
    if Isa::best() != Isa::Portable {
        assert!(gemm_blocked(
            Isa::Portable,
            None,
            4,
            5,
            6,
            Lhs::Packed(&pa),
            Rhs::Strided(bm),
            &mut c,
            5,
            false,
            &no_epilogue
        )
        .is_err());
    }
    assert!(gemm(4, 5, 6, Lhs::Packed(&pa), Rhs::Packed(&pb), &mut c, 5, false, &no_epilogue).is_ok());
}

#[test]
fn nested_gemm_in_an_epilogue_gets_its_own_scratch() {
    let (m, n, k) = (9, 50, 20);
    let a = pseudo(m * k, 3);
    let b = pseudo(k * n, 4);
    let mut plain = vec![0f32; m * n];
    gemm(m, n, k, Lhs::Strided(Mat::rows(&a, k)), Rhs::Strided(Mat::rows(&b, n)), &mut plain, n, false, &no_epilogue)
        .unwrap();
    let epilogue = |_: usize, _: usize, seg: &mut [f32]| {
        let mut inner = vec![0f32; 4];
        gemm(
            2,
            2,
            3,
            Lhs::Strided(Mat::rows(&a, 3)),
            Rhs::Strided(Mat::rows(&b, 2)),
            &mut inner,
            2,
            false,
            &no_epilogue,
        )
        .unwrap();
        seg.iter_mut().for_each(|x| *x += inner[0] - inner[0]);
    };
    let mut nested = vec![0f32; m * n];
    gemm(m, n, k, Lhs::Strided(Mat::rows(&a, k)), Rhs::Strided(Mat::rows(&b, n)), &mut nested, n, false, &epilogue)
        .unwrap();
    assert_eq!(plain, nested);
}

/// An epilogue that is all [`StoreOps`] (its `tile` must never run), or none at all.
struct InKernel<'a>(Option<StoreOps<'a>>);

impl TileEpilogue for InKernel<'_> {
    fn tile(&self, i: usize, j: usize, _tile: &mut TileOut<'_>) {
        assert!(self.0.is_none(), "tile ({i}, {j}) went through the epilogue pass, not the microkernel");
    }

    fn store_ops(&self, _m: usize, _n: usize) -> Option<StoreOps<'_>> {
        self.0
    }
}

#[test]
fn store_ops_are_the_scalar_steps_bit_for_bit() {
    // y = sum + bias, y = y ∘ other, y = clamp(y) with `Activation::Clamp`'s selects, written
    // out here, on the sums of the same GEMM without an epilogue; NaN and −0 among the bias
    // and operand values, bounds that cut both ways.
    let clamp = |y: f32, (lo, hi): (f32, f32)| {
        let y = if y < lo { lo } else { y };
        if y > hi {
            hi
        } else {
            y
        }
    };
    let special = |v: &mut [f32]| {
        for (x, s) in v.iter_mut().step_by(7).zip([f32::NAN, -0.0, 0.0, f32::INFINITY].iter().cycle()) {
            *x = *s;
        }
    };
    for isa in isas() {
        let kernel = isa.kernel().unwrap();
        let (mr, nr) = (kernel.mr, kernel.nr);
        let tiny = Blocking { kc: 4, mc: 2 * mr, nc: 2 * nr, b_in_place: true, a_in_place_block: 0 };
        for (m, n, k, blocking) in [
            (2 * mr + 3, 2 * nr + 5, 13, None),
            (mr, nr, 40, None),
            (3, 7, 9, None),
            (1, nr + 3, 11, None),
            (2 * mr + 1, 3 * nr + 2, 11, Some(tiny)),
        ] {
            let a = pseudo(m * k, 5);
            let b = pseudo(k * n, 6);
            let (am, bm) = (Mat::rows(&a, k), Mat::rows(&b, n));
            let pb = PackedRhs::with_isa(isa, k, n, bm).unwrap();
            let c_rs = n + 2;
            // C (NaN-filled, rows c_rs apart) from a run on 2 threads.
            let run = |parallel: bool, ops: Option<StoreOps<'_>>| {
                let mut c = vec![f32::NAN; m * c_rs];
                let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
                let (lhs, rhs) = (Lhs::Strided(am), Rhs::Packed(&pb));
                pool.install(|| gemm_blocked(isa, blocking, m, n, k, lhs, rhs, &mut c, c_rs, parallel, &InKernel(ops)))
                    .unwrap();
                c
            };
            let plain = run(false, None);
            let mut rows_bias = pseudo(m, 7);
            let mut cols_bias = pseudo(n, 8);
            let other_rs = n + 1;
            let mut other = pseudo(m * other_rs, 9);
            special(&mut rows_bias);
            special(&mut cols_bias);
            special(&mut other);
            for bias in [TileBias::None, TileBias::Rows(&rows_bias), TileBias::Cols(&cols_bias)] {
                for op in [None, Some(EpilogueBinary::Add), Some(EpilogueBinary::Mul)] {
                    // SiLU only where the kernel applies it (others leave such ops to the
                    // epilogue pass, which `InKernel` does not have).
                    let clamps = [None, Some(Clamp(0.0, f32::INFINITY)), Some(Clamp(-0.25, 0.5))];
                    let silu = (kernel.swish)().then_some(Some(StoreActivation::Swish));
                    for act in clamps.into_iter().chain(silu) {
                        let ops =
                            StoreOps { bias, other: op.map(|op| StoreOperand { op, data: &other, rs: other_rs }), act };
                        for parallel in [false, true] {
                            let c = run(parallel, Some(ops));
                            for i in 0..m {
                                for j in 0..n {
                                    let mut y = plain[i * c_rs + j];
                                    y = match bias {
                                        TileBias::None => y,
                                        TileBias::Rows(b) => y + b[i],
                                        TileBias::Cols(b) => y + b[j],
                                    };
                                    y = match op {
                                        None => y,
                                        Some(EpilogueBinary::Add) => y + other[i * other_rs + j],
                                        Some(EpilogueBinary::Mul) => y * other[i * other_rs + j],
                                    };
                                    let mut want = [y];
                                    match act {
                                        None => {}
                                        Some(Clamp(lo, hi)) => want[0] = clamp(y, (lo, hi)),
                                        // The unfused activation step (`Activation::Swish`).
                                        Some(StoreActivation::Swish) => {
                                            VectorActivation::of(Activation::Swish).unwrap().apply_in_place(&mut want)
                                        }
                                    }
                                    let (got, want) = (c[i * c_rs + j], want[0]);
                                    assert!(
                                        got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
                                        "{isa:?} {m}x{n}x{k} {bias:?} {op:?} {act:?}: C[{i}][{j}] = {got}, want {want}"
                                    );
                                }
                                assert!(c[i * c_rs + n..(i + 1) * c_rs].iter().all(|x| x.is_nan()), "gap written");
                            }
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn store_ops_that_do_not_cover_c_are_errors() {
    let (m, n, k) = (4, 5, 3);
    let a = pseudo(m * k, 1);
    let b = pseudo(k * n, 2);
    let mut c = vec![0f32; m * n];
    let short = [0f32; 3];
    let other = [0f32; 4 * 5];
    let run = |ops: StoreOps<'_>, c: &mut [f32]| {
        gemm(m, n, k, Lhs::Strided(Mat::rows(&a, k)), Rhs::Strided(Mat::rows(&b, n)), c, n, false, &InKernel(Some(ops)))
    };
    let none = StoreOps { bias: TileBias::None, other: None, act: None };
    assert!(run(StoreOps { bias: TileBias::Rows(&short), ..none }, &mut c).is_err());
    assert!(run(StoreOps { bias: TileBias::Cols(&short), ..none }, &mut c).is_err());
    let operand = |data, rs| Some(StoreOperand { op: EpilogueBinary::Add, data, rs });
    assert!(run(StoreOps { other: operand(&other[1..], 5), ..none }, &mut c).is_err());
    assert!(run(StoreOps { other: operand(&other, 4), ..none }, &mut c).is_err());
    assert!(run(StoreOps { other: operand(&other, 5), ..none }, &mut c).is_ok());
}

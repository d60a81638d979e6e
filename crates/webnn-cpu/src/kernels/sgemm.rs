//! `sgemm`: the f32 GEMM of the `gemm` crate behind a safe, bounds-checked interface (runtime
//! CPU feature detection: AVX2/FMA, AVX-512 with the `x86-v4` feature, NEON) over strided
//! matrix views ([`Mat`]), and its naive reference for tests.

/// A read-only strided f32 matrix: element (i, j) is `data[i * rs + j * cs]`.
#[derive(Clone, Copy)]
pub struct Mat<'a> {
    /// The elements (the first element is (0, 0)).
    pub data: &'a [f32],
    /// Row stride, in elements.
    pub rs: usize,
    /// Column stride, in elements.
    pub cs: usize,
}

impl<'a> Mat<'a> {
    /// A row-major matrix with `cols` columns.
    pub fn rows(data: &'a [f32], cols: usize) -> Self {
        Mat { data, rs: cols, cs: 1 }
    }
}

/// One past the largest offset of a `rows` × `cols` view with strides `rs`, `cs`.
fn extent(rows: usize, cols: usize, rs: usize, cs: usize) -> usize {
    if rows == 0 || cols == 0 {
        return 0;
    }
    (rows - 1)
        .checked_mul(rs)
        .and_then(|a| (cols - 1).checked_mul(cs).and_then(|b| a.checked_add(b)))
        .and_then(|e| e.checked_add(1))
        .expect("matrix extent overflows")
}

/// `c = acc·c + alpha·(a × b)` with `a` m×k, `b` k×n and `c` m×n (row stride `c_rs`, column
/// stride `c_cs`); `acc = None` overwrites `c` (its old contents are never read, NaN
/// included). `parallel` lets the `gemm` crate split the work on the current rayon pool (it
/// only does so above its own size threshold); pass false inside an outer parallel loop.
///
/// Panics (an internal bug, never a data-dependent condition) if a view runs past its slice
/// or if the output view has overlapping elements.
#[allow(clippy::too_many_arguments)]
pub fn sgemm(
    m: usize,
    n: usize,
    k: usize,
    a: Mat<'_>,
    b: Mat<'_>,
    c: &mut [f32],
    c_rs: usize,
    c_cs: usize,
    alpha: f32,
    acc: Option<f32>,
    parallel: bool,
) {
    if m == 0 || n == 0 {
        return;
    }
    assert!(extent(m, n, c_rs, c_cs) <= c.len(), "gemm output view out of bounds");
    // Distinct (i, j) must address distinct elements: one stride must be 1 and the other
    // at least the extent of the first dimension.
    assert!(
        (c_cs == 1 && (m == 1 || c_rs >= n)) || (c_rs == 1 && (n == 1 || c_cs >= m)),
        "gemm output view overlaps itself"
    );
    if k == 0 {
        for i in 0..m {
            for j in 0..n {
                let e = &mut c[i * c_rs + j * c_cs];
                *e = match acc {
                    Some(s) => s * *e,
                    None => 0.0,
                };
            }
        }
        return;
    }
    assert!(extent(m, k, a.rs, a.cs) <= a.data.len(), "gemm lhs view out of bounds");
    assert!(extent(k, n, b.rs, b.cs) <= b.data.len(), "gemm rhs view out of bounds");
    // Below 2^18 multiply-adds a split costs more than it saves (the packed GEMM's rule).
    let macs = m * n * k;
    let threads = if parallel && macs >= 1 << 18 { crate::par::threads_for_macs(macs) } else { 1 };
    if m == 1 && b.cs == 1 && c_cs == 1 && gemv_chunk(n, threads) <= GEMV_MAX_COLS {
        return gemv(k, n, a, b, &mut c[..n], alpha, acc, threads);
    }
    let parallelism = if threads > 1 { gemm::Parallelism::Rayon(threads) } else { gemm::Parallelism::None };
    // SAFETY: the asserts above check that every element addressed through the three views
    // lies inside its slice (strides fit in isize because the extents fit in slice lengths)
    // and that the destination view addresses each element once. `c` is borrowed mutably, so
    // it cannot alias `a` or `b`. `gemm` reads `c` only when `read_dst` is true.
    let mut run = move || unsafe {
        gemm::gemm(
            m,
            n,
            k,
            c.as_mut_ptr(),
            c_cs as isize,
            c_rs as isize,
            acc.is_some(),
            a.data.as_ptr(),
            a.cs as isize,
            a.rs as isize,
            b.data.as_ptr(),
            b.cs as isize,
            b.rs as isize,
            acc.unwrap_or(0.0),
            alpha,
            false,
            false,
            false,
            parallelism,
        )
    };
    // The gemm crate splits with rayon itself: its loops must run in the dispatch's pool.
    if threads > 1 {
        crate::par::in_pool(run)
    } else {
        run()
    }
}

/// Rows of B that one pass of [`gemv`] adds into the output (one sequential stream each).
const GEMV_ROWS: usize = 4;

/// Most output columns of one [`gemv`] task (its sums live on the stack: 16 KiB).
const GEMV_MAX_COLS: usize = 4096;

/// Output columns of one [`gemv`] task: whole 64-byte lines, one task per thread.
fn gemv_chunk(n: usize, threads: usize) -> usize {
    n.div_ceil(threads.max(1)).next_multiple_of(16)
}

/// [`sgemm`] for one row of A and row-major B: `c = acc·c + alpha·Σ_p a[p]·B[p, ·]`, B's rows
/// streamed [`GEMV_ROWS`] at a time into the output row (which stays in L1), the columns split
/// across `threads`. A classifier's `1×1280 · 1280×1000` is bound by reading B (5 MB) once;
/// the `gemm` crate took 149 µs on it against ONNX Runtime's 112 (MobileNetV2, 1 thread).
#[allow(clippy::too_many_arguments)]
fn gemv(k: usize, n: usize, a: Mat<'_>, b: Mat<'_>, c: &mut [f32], alpha: f32, acc: Option<f32>, threads: usize) {
    let chunk = gemv_chunk(n, threads);
    let run = |j0: usize, out: &mut [f32]| {
        super::simd::simd(
            #[inline(always)]
            || {
                let cols = out.len();
                let mut sums = [0f32; GEMV_MAX_COLS];
                let sums = &mut sums[..cols];
                let row = |p: usize| &b.data[p * b.rs + j0..][..cols];
                let mut p = 0;
                while p + GEMV_ROWS <= k {
                    let w = [0, 1, 2, 3].map(|i| a.data[(p + i) * a.cs]);
                    let (r0, r1, r2, r3) = (row(p), row(p + 1), row(p + 2), row(p + 3));
                    for j in 0..cols {
                        let s = w[0].mul_add(r0[j], sums[j]);
                        let s = w[1].mul_add(r1[j], s);
                        let s = w[2].mul_add(r2[j], s);
                        sums[j] = w[3].mul_add(r3[j], s);
                    }
                    p += GEMV_ROWS;
                }
                while p < k {
                    let (w, r) = (a.data[p * a.cs], row(p));
                    for j in 0..cols {
                        sums[j] = w.mul_add(r[j], sums[j]);
                    }
                    p += 1;
                }
                match acc {
                    Some(s) => {
                        for (o, &x) in out.iter_mut().zip(sums.iter()) {
                            *o = s * *o + alpha * x;
                        }
                    }
                    None => {
                        for (o, &x) in out.iter_mut().zip(sums.iter()) {
                            *o = alpha * x;
                        }
                    }
                }
            },
        )
    };
    if threads > 1 && chunk < n {
        crate::par::chunks(c, chunk, |t, out| run(t * chunk, out));
    } else {
        run(0, c);
    }
}

/// The portable reference of [`sgemm`] (naive triple loop, f64 accumulation), for tests.
#[cfg(test)]
#[allow(clippy::too_many_arguments)]
pub fn sgemm_reference(
    m: usize,
    n: usize,
    k: usize,
    a: Mat<'_>,
    b: Mat<'_>,
    c: &mut [f32],
    c_rs: usize,
    c_cs: usize,
    alpha: f32,
    acc: Option<f32>,
) {
    for i in 0..m {
        for j in 0..n {
            let mut s = 0f64;
            for p in 0..k {
                s += a.data[i * a.rs + p * a.cs] as f64 * b.data[p * b.rs + j * b.cs] as f64;
            }
            let e = &mut c[i * c_rs + j * c_cs];
            *e = match acc {
                Some(t) => (t as f64 * *e as f64 + alpha as f64 * s) as f32,
                None => (alpha as f64 * s) as f32,
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pseudo(n: usize, seed: u32) -> Vec<f32> {
        let mut rng = webnn_core::testing::Rng::new(seed as u64);
        (0..n).map(|_| rng.below(2000) as f32 / 1000.0 - 1.0).collect()
    }

    #[test]
    fn sgemm_matches_reference_for_strides_and_accumulation() {
        // m = 1 with row-major B takes `gemv` (k with and without a remainder of GEMV_ROWS,
        // a classifier's shape, and columns past GEMV_MAX_COLS that go to the gemm crate).
        for &(m, n, k) in &[
            (1, 1, 1),
            (3, 5, 7),
            (17, 1, 9),
            (1, 33, 4),
            (1, 37, 7),
            (1, 1000, 1280),
            (1, 5000, 3),
            (65, 70, 130),
            (8, 8, 0),
        ] {
            for &(ta, tb, tc) in &[(false, false, false), (true, false, false), (false, true, true), (true, true, true)]
            {
                let a = pseudo(m * k, 1);
                let b = pseudo(k * n, 2);
                let am = if ta { Mat { data: &a, rs: 1, cs: m } } else { Mat::rows(&a, k) };
                let bm = if tb { Mat { data: &b, rs: 1, cs: k } } else { Mat::rows(&b, n) };
                let (c_rs, c_cs) = if tc { (1, m) } else { (n, 1) };
                for acc in [None, Some(0.5f32)] {
                    let init = pseudo(m * n, 3);
                    let mut c1 = init.clone();
                    let mut c2 = init.clone();
                    sgemm(m, n, k, am, bm, &mut c1, c_rs, c_cs, 1.5, acc, true);
                    sgemm_reference(m, n, k, am, bm, &mut c2, c_rs, c_cs, 1.5, acc);
                    for (x, y) in c1.iter().zip(&c2) {
                        assert!((x - y).abs() <= 1e-4 * (1.0 + y.abs()), "{m}x{n}x{k}: {x} vs {y}");
                    }
                }
            }
        }
    }

    #[test]
    fn overwrite_ignores_nan_in_destination() {
        let a = [1.0f32, 2.0];
        let b = [3.0f32, 4.0];
        let mut c = [f32::NAN];
        sgemm(1, 1, 2, Mat::rows(&a, 2), Mat::rows(&b, 1), &mut c, 1, 1, 1.0, None, false);
        assert_eq!(c, [11.0]);
    }
}

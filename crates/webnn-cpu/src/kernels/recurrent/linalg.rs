//! Dense f32 products for the recurrent kernels, in "dot" form: weights stay in their spec
//! orientation (one row of `k` values per gate output), so every product is a dot product of
//! two contiguous rows.
//!
//! Summation order of one dot product depends only on `k` (never on how rows are grouped or
//! split between threads): sequential for `k < 16`, eight interleaved partial sums otherwise.

/// Multiply-adds above which a product is split across the thread pool.
pub const PAR_THRESHOLD: usize = 1 << 17;

/// Computes blocks of dot products `out[a][b] = ws[a] · xs[b]` over the first `k` values of
/// each row. Every implementation gives bitwise the same results as [`Portable`].
pub trait Dots: Sync {
    /// One block of `A × B` dot products.
    fn block<const A: usize, const B: usize>(&self, ws: [&[f32]; A], xs: [&[f32]; B], k: usize) -> [[f32; B]; A];
}

/// Plain Rust: sequential sums for `k < 16`, else eight interleaved partial sums (lane `l`
/// accumulates the products at positions `≡ l mod 8`) combined as `((0+4)+(1+5))+((2+6)+(3+7))`,
/// then the tail of `k mod 8` products added sequentially.
pub struct Portable;

#[inline(always)]
fn short_block<const A: usize, const B: usize>(ws: [&[f32]; A], xs: [&[f32]; B], k: usize) -> [[f32; B]; A] {
    let mut out = [[0.0f32; B]; A];
    for a in 0..A {
        for b in 0..B {
            let (w, x) = (&ws[a][..k], &xs[b][..k]);
            let mut s = 0.0f32;
            for p in 0..k {
                s += x[p] * w[p];
            }
            out[a][b] = s;
        }
    }
    out
}

#[inline(always)]
fn finish(acc: &[f32; 8], w: &[f32], x: &[f32], body: usize, k: usize) -> f32 {
    let mut tail = 0.0f32;
    for q in body..k {
        tail += x[q] * w[q];
    }
    (((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7]))) + tail
}

impl Dots for Portable {
    #[inline(always)]
    fn block<const A: usize, const B: usize>(&self, ws: [&[f32]; A], xs: [&[f32]; B], k: usize) -> [[f32; B]; A] {
        let ws = ws.map(|w| &w[..k]);
        let xs = xs.map(|x| &x[..k]);
        if k < 16 {
            return short_block(ws, xs, k);
        }
        let body = k - k % 8;
        let mut acc = [[[0.0f32; 8]; B]; A];
        for p in (0..body).step_by(8) {
            for a in 0..A {
                for b in 0..B {
                    for l in 0..8 {
                        acc[a][b][l] += xs[b][p + l] * ws[a][p + l];
                    }
                }
            }
        }
        let mut out = [[0.0f32; B]; A];
        for a in 0..A {
            for b in 0..B {
                out[a][b] = finish(&acc[a][b], ws[a], xs[b], body, k);
            }
        }
        out
    }
}

/// AVX2 (x86-64): the eight partial sums of one dot product are one 256-bit register; a
/// separate multiply and add per step (no FMA), so results are bitwise [`Portable`]'s. Only
/// constructible on a CPU that has AVX2.
#[cfg(target_arch = "x86_64")]
pub struct Avx2(());

#[cfg(target_arch = "x86_64")]
impl Avx2 {
    /// `Some` if the CPU supports AVX2.
    pub fn detect() -> Option<Avx2> {
        std::arch::is_x86_feature_detected!("avx2").then_some(Avx2(()))
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn block_avx2<const A: usize, const B: usize>(ws: [&[f32]; A], xs: [&[f32]; B], k: usize) -> [[f32; B]; A] {
    use std::arch::x86_64::*;
    let ws = ws.map(|w| &w[..k]);
    let xs = xs.map(|x| &x[..k]);
    if k < 16 {
        return short_block(ws, xs, k);
    }
    let body = k - k % 8;
    let mut acc = [[_mm256_setzero_ps(); B]; A];
    let mut p = 0;
    while p < body {
        let mut wv = [_mm256_setzero_ps(); A];
        for a in 0..A {
            // SAFETY: every row of `ws` has exactly `k` elements and p + 8 <= body <= k.
            wv[a] = unsafe { _mm256_loadu_ps(ws[a].as_ptr().add(p)) };
        }
        for b in 0..B {
            // SAFETY: as above, for the rows of `xs`.
            let xv = unsafe { _mm256_loadu_ps(xs[b].as_ptr().add(p)) };
            for a in 0..A {
                acc[a][b] = _mm256_add_ps(acc[a][b], _mm256_mul_ps(xv, wv[a]));
            }
        }
        p += 8;
    }
    let mut out = [[0.0f32; B]; A];
    for a in 0..A {
        for b in 0..B {
            let mut lanes = [0.0f32; 8];
            // SAFETY: `lanes` holds 8 f32 values.
            unsafe { _mm256_storeu_ps(lanes.as_mut_ptr(), acc[a][b]) };
            out[a][b] = finish(&lanes, ws[a], xs[b], body, k);
        }
    }
    out
}

#[cfg(target_arch = "x86_64")]
impl Dots for Avx2 {
    #[inline(always)]
    fn block<const A: usize, const B: usize>(&self, ws: [&[f32]; A], xs: [&[f32]; B], k: usize) -> [[f32; B]; A] {
        // SAFETY: an `Avx2` value exists only if `detect` found AVX2 on this CPU, the only
        // requirement of the `#[target_feature(enable = "avx2")]` function.
        unsafe { block_avx2(ws, xs, k) }
    }
}

/// Calls `put(j, r, w[j] · x[r])` for every row `j < n` of `w` and `r < m` of `x` (rows of `k`
/// values), in blocks of 4 weight rows × 2 x rows. For each `j` block, `r` runs over all rows.
#[inline(always)]
pub fn grid<D: Dots>(
    d: &D,
    w: &[f32],
    n: usize,
    x: &[f32],
    m: usize,
    k: usize,
    mut put: impl FnMut(usize, usize, f32),
) {
    let wr = |j: usize| &w[j * k..j * k + k];
    let xr = |r: usize| &x[r * k..r * k + k];
    let mut j = 0;
    while j + 4 <= n {
        let ws = [wr(j), wr(j + 1), wr(j + 2), wr(j + 3)];
        let mut r = 0;
        while r + 2 <= m {
            let v = d.block::<4, 2>(ws, [xr(r), xr(r + 1)], k);
            for (a, row) in v.iter().enumerate() {
                put(j + a, r, row[0]);
                put(j + a, r + 1, row[1]);
            }
            r += 2;
        }
        if r < m {
            let v = d.block::<4, 1>(ws, [xr(r)], k);
            for (a, row) in v.iter().enumerate() {
                put(j + a, r, row[0]);
            }
        }
        j += 4;
    }
    while j < n {
        let mut r = 0;
        while r + 2 <= m {
            let [[v0, v1]] = d.block::<1, 2>([wr(j)], [xr(r), xr(r + 1)], k);
            put(j, r, v0);
            put(j, r + 1, v1);
            r += 2;
        }
        if r < m {
            put(j, r, d.block::<1, 1>([wr(j)], [xr(r)], k)[0][0]);
        }
        j += 1;
    }
}

/// [`grid`] with the best [`Dots`] of this CPU.
#[inline]
pub fn grid_best(w: &[f32], n: usize, x: &[f32], m: usize, k: usize, put: impl FnMut(usize, usize, f32)) {
    #[cfg(target_arch = "x86_64")]
    if k >= 16 {
        if let Some(avx) = Avx2::detect() {
            return grid(&avx, w, n, x, m, k, put);
        }
    }
    grid(&Portable, w, n, x, m, k, put)
}

/// `w · x` for one pair of rows of equal length.
#[cfg(test)]
pub fn dot(w: &[f32], x: &[f32]) -> f32 {
    Portable.block::<1, 1>([w], [x], w.len())[0][0]
}

/// `out[r][j] = bias[j] + x[r] · w[j]` for `m` rows of `x` (`m × k`) and `n` rows of `w`
/// (`n × k`); `out` is `m × n`. Split across threads by blocks of rows (or of columns when
/// `m == 1`) when large.
pub fn project(x: &[f32], m: usize, k: usize, w: &[f32], n: usize, bias: &[f32], out: &mut [f32]) {
    if m == 0 || n == 0 {
        return;
    }
    const RB: usize = 16;
    // Rows in blocks of RB keep the output block and the x rows in cache while w streams.
    let block = |row0: usize, chunk: &mut [f32]| {
        let rows = chunk.len() / n;
        grid_best(w, n, &x[row0 * k..(row0 + rows) * k], rows, k, |j, r, v| chunk[r * n + j] = v + bias[j]);
    };
    let out = &mut out[..m * n];
    let threads = crate::par::threads().max(1);
    if m * n * k.max(1) < PAR_THRESHOLD || threads == 1 {
        for (i, chunk) in out.chunks_mut(RB * n).enumerate() {
            block(i * RB, chunk);
        }
    } else if m == 1 {
        let per = n.div_ceil(threads * 2).max(8);
        crate::par::chunks(out, per, |i, chunk| {
            let j0 = i * per;
            let cols = chunk.len();
            grid_best(&w[j0 * k..(j0 + cols) * k], cols, x, 1, k, |j, _, v| chunk[j] = v + bias[j0 + j]);
        });
    } else {
        let rows_per = m.div_ceil(threads * 4).clamp(2, 64);
        crate::par::chunks(out, rows_per * n, |i, chunk| {
            for (q, sub) in chunk.chunks_mut(RB * n).enumerate() {
                block(i * rows_per + q * RB, sub);
            }
        });
    }
}

/// `out[j][b] = w[j] · h[b]` for `n` rows of `w` (`n × k`) and `batch` rows of `h`
/// (`batch × k`); `out` is `n × batch` (gate-major, so threads split it by gate rows).
pub fn gate_products(w: &[f32], n: usize, k: usize, h: &[f32], batch: usize, out: &mut [f32]) {
    if n == 0 || batch == 0 {
        return;
    }
    let out = &mut out[..n * batch];
    let rows = |j0: usize, chunk: &mut [f32]| {
        let count = chunk.len() / batch;
        grid_best(&w[j0 * k..(j0 + count) * k], count, h, batch, k, |j, b, v| chunk[j * batch + b] = v);
    };
    let threads = crate::par::threads().max(1);
    if n * batch * k.max(1) < PAR_THRESHOLD || threads == 1 {
        rows(0, out);
        return;
    }
    let per = n.div_ceil(threads * 2).max(8);
    crate::par::chunks(out, per * batch, |i, chunk| rows(i * per, chunk));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive_dot(a: &[f32], b: &[f32]) -> f64 {
        a.iter().zip(b).map(|(&x, &y)| x as f64 * y as f64).sum()
    }

    fn data(n: usize, seed: u32) -> Vec<f32> {
        let mut rng = webnn_core::testing::Rng::new(seed as u64);
        (0..n).map(|_| rng.below(2001) as f32 / 1000.0 - 1.0).collect()
    }

    #[test]
    fn dot_is_sequential_for_short_rows() {
        let a = [0.1f32, 0.2, 0.3, 1e8, -1e8];
        let b = [1.0f32; 5];
        let mut s = 0.0f32;
        for (x, y) in a.iter().zip(&b) {
            s += x * y;
        }
        assert_eq!(dot(&a, &b).to_bits(), s.to_bits());
    }

    #[test]
    fn avx2_path_matches_portable_bitwise() {
        for k in [16usize, 17, 24, 31, 64, 129] {
            for rows in [1usize, 3, 4, 9] {
                let xs = data(k * rows, 12);
                let w = data(k * 6, 13);
                let mut fast = vec![0u32; rows * 6];
                let mut portable = vec![0u32; rows * 6];
                grid_best(&w, 6, &xs, rows, k, |j, r, v| fast[j * rows + r] = v.to_bits());
                grid(&Portable, &w, 6, &xs, rows, k, |j, r, v| portable[j * rows + r] = v.to_bits());
                assert_eq!(fast, portable, "k={k} rows={rows}");
            }
        }
    }

    #[test]
    fn grouped_rows_match_single_rows_bitwise() {
        for k in [1usize, 3, 8, 15, 16, 17, 33, 100] {
            let w = data(k, 1);
            let xs = data(k * 7, 2);
            let mut got = [0.0f32; 7];
            grid_best(&w, 1, &xs, 7, k, |_, r, v| got[r] = v);
            for r in 0..7 {
                let single = dot(&w, &xs[r * k..r * k + k]);
                assert_eq!(got[r].to_bits(), single.to_bits(), "k={k} r={r}");
                assert!((single as f64 - naive_dot(&w, &xs[r * k..r * k + k])).abs() < 1e-4);
            }
        }
    }

    #[test]
    fn project_matches_naive_sequential_and_parallel() {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        for &(m, k, n) in &[(1usize, 1usize, 1usize), (5, 3, 7), (37, 20, 9), (300, 40, 24), (1, 300, 400)] {
            let x = data(m * k, 3);
            let w = data(n * k, 4);
            let bias = data(n, 5);
            let mut out = vec![0.0f32; m * n];
            pool.install(|| project(&x, m, k, &w, n, &bias, &mut out));
            for r in 0..m {
                for j in 0..n {
                    let e = bias[j] as f64 + naive_dot(&x[r * k..r * k + k], &w[j * k..j * k + k]);
                    assert!((out[r * n + j] as f64 - e).abs() < 1e-4, "m={m} k={k} n={n}");
                    let exact = dot(&w[j * k..j * k + k], &x[r * k..r * k + k]) + bias[j];
                    assert_eq!(out[r * n + j].to_bits(), exact.to_bits());
                }
            }
        }
    }

    #[test]
    fn gate_products_match_naive_sequential_and_parallel() {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        for &(n, k, batch) in &[(1usize, 1usize, 1usize), (6, 2, 3), (512, 128, 1), (96, 64, 13)] {
            let w = data(n * k, 6);
            let h = data(batch * k, 7);
            let mut out = vec![0.0f32; n * batch];
            pool.install(|| gate_products(&w, n, k, &h, batch, &mut out));
            for j in 0..n {
                for b in 0..batch {
                    let exact = dot(&w[j * k..j * k + k], &h[b * k..b * k + k]);
                    assert_eq!(out[j * batch + b].to_bits(), exact.to_bits());
                    assert!((exact as f64 - naive_dot(&w[j * k..j * k + k], &h[b * k..b * k + k])).abs() < 1e-4);
                }
            }
        }
    }
}

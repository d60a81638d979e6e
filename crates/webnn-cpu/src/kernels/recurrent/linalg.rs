//! Dense f32 products for the recurrent kernels, in "dot" form: weights stay in their spec
//! orientation (one row of `k` values per gate output), so every product is a dot product of
//! two contiguous rows.
//!
//! Summation order of one dot product depends only on `k` (never on how rows are grouped or
//! split between threads): sequential for `k < 16`, eight interleaved partial sums otherwise.

use rayon::prelude::*;

/// Multiply-adds above which a product is split across the thread pool.
pub const PAR_THRESHOLD: usize = 1 << 16;

/// Dot products of one weight row `w` with `R` rows `xs` (all of length `w.len()`).
#[inline]
fn dot_rows<const R: usize>(w: &[f32], xs: [&[f32]; R]) -> [f32; R] {
    let k = w.len();
    if k < 16 {
        let mut s = [0.0f32; R];
        for p in 0..k {
            let wp = w[p];
            for r in 0..R {
                s[r] += xs[r][p] * wp;
            }
        }
        return s;
    }
    let mut acc = [[0.0f32; 8]; R];
    let body = k - k % 8;
    let mut p = 0;
    while p < body {
        let wc: &[f32; 8] = w[p..p + 8].try_into().unwrap_or(&[0.0; 8]);
        for r in 0..R {
            let xc: &[f32; 8] = xs[r][p..p + 8].try_into().unwrap_or(&[0.0; 8]);
            for l in 0..8 {
                acc[r][l] += xc[l] * wc[l];
            }
        }
        p += 8;
    }
    let mut out = [0.0f32; R];
    for r in 0..R {
        let a = &acc[r];
        let mut tail = 0.0f32;
        for q in body..k {
            tail += xs[r][q] * w[q];
        }
        out[r] = (((a[0] + a[4]) + (a[1] + a[5])) + ((a[2] + a[6]) + (a[3] + a[7]))) + tail;
    }
    out
}

/// `w · x` for one pair of rows of equal length.
#[cfg(test)]
#[inline]
pub fn dot(w: &[f32], x: &[f32]) -> f32 {
    dot_rows::<1>(w, [x])[0]
}

/// Calls `put(r, w · xs[r])` for every row `r` of `xs` (`rows` rows of `k` values), four rows
/// at a time so each load of `w` serves several rows.
#[inline]
fn dots_into(w: &[f32], xs: &[f32], k: usize, rows: usize, mut put: impl FnMut(usize, f32)) {
    let row = |r: usize| &xs[r * k..r * k + k];
    let mut r = 0;
    while r + 4 <= rows {
        let v = dot_rows::<4>(w, [row(r), row(r + 1), row(r + 2), row(r + 3)]);
        for (q, v) in v.into_iter().enumerate() {
            put(r + q, v);
        }
        r += 4;
    }
    while r < rows {
        put(r, dot_rows::<1>(w, [row(r)])[0]);
        r += 1;
    }
}

/// `out[r][j] = bias[j] + x[r] · w[j]` for `m` rows of `x` (`m × k`) and `n` rows of `w`
/// (`n × k`); `out` is `m × n`. Split across threads by blocks of rows when large.
pub fn project(x: &[f32], m: usize, k: usize, w: &[f32], n: usize, bias: &[f32], out: &mut [f32]) {
    if m == 0 || n == 0 {
        return;
    }
    let block = |row0: usize, chunk: &mut [f32]| {
        let rows = chunk.len() / n;
        let xs = &x[row0 * k..(row0 + rows) * k];
        for j in 0..n {
            let b = bias[j];
            dots_into(&w[j * k..j * k + k], xs, k, rows, |r, v| chunk[r * n + j] = v + b);
        }
    };
    let out = &mut out[..m * n];
    if m * n * k.max(1) < PAR_THRESHOLD || m == 1 {
        // Rows in blocks of 16 keep the output block and the x rows in cache while w streams.
        for (i, chunk) in out.chunks_mut(16 * n).enumerate() {
            block(i * 16, chunk);
        }
        return;
    }
    let threads = rayon::current_num_threads().max(1);
    let rows_per = m.div_ceil(threads * 4).clamp(4, 64);
    out.par_chunks_mut(rows_per * n).enumerate().for_each(|(i, chunk)| {
        for (q, sub) in chunk.chunks_mut(16 * n).enumerate() {
            block(i * rows_per + q * 16, sub);
        }
    });
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
        for q in 0..count {
            let j = j0 + q;
            let dst = &mut chunk[q * batch..(q + 1) * batch];
            dots_into(&w[j * k..j * k + k], h, k, batch, |b, v| dst[b] = v);
        }
    };
    if n * batch * k.max(1) < PAR_THRESHOLD {
        rows(0, out);
        return;
    }
    let threads = rayon::current_num_threads().max(1);
    let per = n.div_ceil(threads * 2).max(8);
    out.par_chunks_mut(per * batch).enumerate().for_each(|(i, chunk)| rows(i * per, chunk));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive_dot(a: &[f32], b: &[f32]) -> f64 {
        a.iter().zip(b).map(|(&x, &y)| x as f64 * y as f64).sum()
    }

    fn data(n: usize, seed: u32) -> Vec<f32> {
        let mut s = seed.wrapping_mul(2654435761).wrapping_add(12345);
        (0..n)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 17;
                s ^= s << 5;
                (s % 2001) as f32 / 1000.0 - 1.0
            })
            .collect()
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
    fn grouped_rows_match_single_rows_bitwise() {
        for k in [1usize, 3, 8, 15, 16, 17, 33, 100] {
            let w = data(k, 1);
            let xs = data(k * 7, 2);
            let mut got = [0.0f32; 7];
            dots_into(&w, &xs, k, 7, |r, v| got[r] = v);
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

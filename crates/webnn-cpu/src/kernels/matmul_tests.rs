//! matmul and gemm against naive references, through whole plans, f32 and f16, constant and
//! non-constant operands.

use crate::testing::constant_operands::{assert_close, pseudo, run_float, via_f16};
use webnn_core::graph::Attrs;
use webnn_core::{DataType, OpKind};

/// Naive batched matmul with numpy broadcasting of the batch dimensions.
fn matmul_ref(a: &[f32], sa: &[u32], b: &[f32], sb: &[u32]) -> (Vec<f32>, Vec<u32>) {
    let (ra, rb) = (sa.len(), sb.len());
    let (m, k, n) = (sa[ra - 2] as usize, sa[ra - 1] as usize, sb[rb - 1] as usize);
    let ba = &sa[..ra - 2];
    let bb = &sb[..rb - 2];
    let r = ba.len().max(bb.len());
    let pad = |s: &[u32]| -> Vec<u32> { std::iter::repeat_n(1, r - s.len()).chain(s.iter().copied()).collect() };
    let (pa, pb) = (pad(ba), pad(bb));
    let bo: Vec<u32> = (0..r).map(|i| pa[i].max(pb[i])).collect();
    let count: usize = bo.iter().map(|&d| d as usize).product();
    let mut out = Vec::new();
    for t in 0..count {
        let mut rem = t;
        let mut idx = vec![0usize; r];
        for d in (0..r).rev() {
            idx[d] = rem % bo[d] as usize;
            rem /= bo[d] as usize;
        }
        let lin =
            |p: &[u32]| idx.iter().zip(p).fold(0usize, |acc, (&i, &d)| acc * d as usize + if d == 1 { 0 } else { i });
        let (oa, ob) = (lin(&pa) * m * k, lin(&pb) * k * n);
        for i in 0..m {
            for j in 0..n {
                let mut s = 0f64;
                for p in 0..k {
                    s += a[oa + i * k + p] as f64 * b[ob + p * n + j] as f64;
                }
                out.push(s as f32);
            }
        }
    }
    let mut shape = bo;
    shape.extend([m as u32, n as u32]);
    (out, shape)
}

#[test]
fn matmul_matches_reference_for_broadcast_shapes() {
    let cases: &[(&[u32], &[u32])] = &[
        (&[1, 1], &[1, 1]),
        (&[3, 4], &[4, 5]),
        (&[2, 3, 4], &[4, 5]),          // folded: b shared
        (&[3, 4], &[2, 4, 5]),          // a broadcast over b's batch
        (&[2, 1, 3, 4], &[1, 3, 4, 2]), // both broadcast
        (&[2, 3, 4], &[2, 4, 1]),
        (&[5, 1, 7], &[5, 7, 9]),
        (&[1, 2, 3, 4], &[4, 6]),
        (&[2, 2, 2, 3, 2], &[2, 1, 2, 3]),
        (&[70, 33], &[33, 65]),
        (&[9, 5, 17], &[1, 17, 3]),
    ];
    for (ci, &(sa, sb)) in cases.iter().enumerate() {
        let na: usize = sa.iter().map(|&d| d as usize).product();
        let nb: usize = sb.iter().map(|&d| d as usize).product();
        for dt in [DataType::Float32, DataType::Float16] {
            for (ca, cb) in [(false, false), (false, true), (true, true)] {
                let mut a = pseudo(na, 10 + ci as u32);
                let mut b = pseudo(nb, 20 + ci as u32);
                if dt == DataType::Float16 {
                    a = via_f16(&a);
                    b = via_f16(&b);
                }
                let (want, shape) = matmul_ref(&a, sa, &b, sb);
                let got = run_float(OpKind::Matmul, dt, &[Some((sa, &a, ca)), Some((sb, &b, cb))], Attrs::None, &shape);
                let tol = if dt == DataType::Float16 { 1e-3 } else { 1e-5 };
                assert_close(&got, &want, tol, &format!("matmul {sa:?}x{sb:?} {dt:?} const {ca}/{cb}"));
            }
        }
    }
}

#[test]
fn matmul_batched_small_matrices_run_in_parallel_correctly() {
    // Many small matrices take the parallel-over-batches path.
    let (sa, sb): (&[u32], &[u32]) = (&[64, 8, 16], &[64, 16, 8]);
    let a = pseudo(64 * 8 * 16, 1);
    let b = pseudo(64 * 16 * 8, 2);
    let (want, shape) = matmul_ref(&a, sa, &b, sb);
    let got = run_float(
        OpKind::Matmul,
        DataType::Float32,
        &[Some((sa, &a, false)), Some((sb, &b, false))],
        Attrs::None,
        &shape,
    );
    assert_close(&got, &want, 1e-5, "batched");
}

#[test]
fn matmul_f16_rounds_once() {
    // 2048 terms of 1/2048·1: exact in f32, would lose precision if accumulated in f16.
    let k = 2048u32;
    let a = vec![1.0f32 / 2048.0; k as usize];
    let b = vec![1.0f32; k as usize];
    let got = run_float(
        OpKind::Matmul,
        DataType::Float16,
        &[Some((&[1, k], &a, false)), Some((&[k, 1], &b, false))],
        Attrs::None,
        &[1, 1],
    );
    assert_eq!(got, vec![1.0]);
}

#[allow(clippy::too_many_arguments)]
fn gemm_ref(
    a: &[f32],
    sa: [usize; 2],
    b: &[f32],
    sb: [usize; 2],
    c: Option<(&[f32], &[u32])>,
    alpha: f32,
    beta: f32,
    at: bool,
    bt: bool,
) -> Vec<f32> {
    let (m, k) = if at { (sa[1], sa[0]) } else { (sa[0], sa[1]) };
    let n = if bt { sb[0] } else { sb[1] };
    let av = |i: usize, p: usize| if at { a[p * m + i] } else { a[i * k + p] };
    let bv = |p: usize, j: usize| if bt { b[j * k + p] } else { b[p * n + j] };
    let mut out = vec![0f32; m * n];
    for i in 0..m {
        for j in 0..n {
            let mut s = 0f64;
            for p in 0..k {
                s += av(i, p) as f64 * bv(p, j) as f64;
            }
            let mut v = alpha as f64 * s;
            if let Some((cv, cs)) = c {
                let ci = match cs.len() {
                    0 => 0,
                    1 => {
                        if cs[0] == 1 {
                            0
                        } else {
                            j
                        }
                    }
                    _ => (if cs[0] == 1 { 0 } else { i }) * cs[1] as usize + if cs[1] == 1 { 0 } else { j },
                };
                v += beta as f64 * cv[ci] as f64;
            }
            out[i * n + j] = v as f32;
        }
    }
    out
}

#[test]
fn gemm_matches_reference_for_every_option() {
    let (m, k, n) = (7usize, 5usize, 6usize);
    let c_shapes: &[&[u32]] = &[&[], &[1], &[6], &[7, 1], &[1, 6], &[7, 6], &[1, 1]];
    let mut count = 0;
    for dt in [DataType::Float32, DataType::Float16] {
        for at in [false, true] {
            for bt in [false, true] {
                for c_shape in std::iter::once(None).chain(c_shapes.iter().map(Some)) {
                    for &(alpha, beta) in &[(1.0f32, 1.0f32), (0.5, 2.0), (-1.25, 0.0)] {
                        for (ca, cb) in [(false, false), (true, true), (false, true)] {
                            let sa = if at { [k, m] } else { [m, k] };
                            let sb = if bt { [n, k] } else { [k, n] };
                            let round = |v: Vec<f32>| if dt == DataType::Float16 { via_f16(&v) } else { v };
                            let a = round(pseudo(m * k, 3));
                            let b = round(pseudo(k * n, 4));
                            let cn: usize = c_shape.map_or(0, |s| s.iter().map(|&d| d as usize).product());
                            let c = round(pseudo(cn.max(1), 5));
                            let want = gemm_ref(&a, sa, &b, sb, c_shape.map(|s| (&c[..], *s)), alpha, beta, at, bt);
                            let attrs = Attrs::Gemm {
                                alpha: alpha as f64,
                                beta: beta as f64,
                                a_transpose: at,
                                b_transpose: bt,
                            };
                            let sa32 = [sa[0] as u32, sa[1] as u32];
                            let sb32 = [sb[0] as u32, sb[1] as u32];
                            let c_in = c_shape.map(|s| (*s, &c[..cn.max(1)], false));
                            let got = run_float(
                                OpKind::Gemm,
                                dt,
                                &[Some((&sa32, &a, ca)), Some((&sb32, &b, cb)), c_in],
                                attrs,
                                &[m as u32, n as u32],
                            );
                            let tol = if dt == DataType::Float16 { 2e-3 } else { 1e-5 };
                            assert_close(
                                &got,
                                &want,
                                tol,
                                &format!("gemm {dt:?} at={at} bt={bt} c={c_shape:?} a={alpha} b={beta}"),
                            );
                            count += 1;
                        }
                    }
                }
            }
        }
    }
    assert_eq!(count, 2 * 2 * 2 * 8 * 3 * 3);
}

#[test]
fn gemm_large_parallel_path() {
    let (m, k, n) = (300usize, 200usize, 260usize);
    let a = pseudo(m * k, 7);
    let b = pseudo(n * k, 8);
    let c = pseudo(n, 9);
    let want = gemm_ref(&a, [m, k], &b, [n, k], Some((&c, &[n as u32])), 1.0, 1.0, false, true);
    let got = run_float(
        OpKind::Gemm,
        DataType::Float32,
        &[
            Some((&[m as u32, k as u32], &a, false)),
            Some((&[n as u32, k as u32], &b, true)),
            Some((&[n as u32], &c, true)),
        ],
        Attrs::Gemm { alpha: 1.0, beta: 1.0, a_transpose: false, b_transpose: true },
        &[m as u32, n as u32],
    );
    assert_close(&got, &want, 1e-4, "large gemm");
}

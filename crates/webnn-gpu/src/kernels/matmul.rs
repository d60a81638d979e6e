//! Matrix products: `gemm` ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-gemm)) and
//! `matmul` ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-matmul)), float32 and float16
//! (computed in f32, rounded to f16 once when stored), and the tiled GEMM kernel generator that
//! `conv.rs` reuses for its implicit-GEMM convolutions.
//!
//! Design: one workgroup of 16×16 threads computes a TM×TN output tile (TM, TN ∈ {16, 32,
//! 64}, each thread a (TM/16)×(TN/16) block of outputs at rows `ty + 16i`, columns `tx +
//! 16j`, so that the workgroup-memory reads and the output writes are contiguous across
//! threads). K is walked in steps of 16: the threads stage a TM×16 slice of A and a 16×TN
//! slice of B in workgroup memory (at most 8 KiB), zero outside the matrices, then each
//! accumulates its block with `fma` in registers. Tiles shrink (down to 16×16) while the
//! grid would have fewer than 256 workgroups, so that small products still fill a large
//! GPU. The batch (matmul's broadcast batch dimensions, or conv's groups) and the tiles are
//! one linear workgroup index spread over x and y.
//!
//! Numerics: each output is one f32 `fma` chain over k in increasing order (the
//! straightforward definition, with fused multiply-adds), then `alpha·acc + beta·c` for gemm.

use super::{Kernel, Lowering, Slot, Task, Work};
use crate::wgsl::{self, Binding};
use std::fmt::Write;
use webnn_core::graph::{Attrs, Operation};
use webnn_core::{DataType, Error, OpKind, Result};

/// Threads along each side of a workgroup and the K step of the tiled kernel.
const SIDE: u32 = 16;
/// Workgroups below which tiles are made smaller (about two per SM of a large GPU).
const TARGET_WORKGROUPS: u64 = 256;

/// A batched product `C[z] = A[z]·B[z]` (M×K by K×N) described by WGSL snippets, for
/// [`tiled`]. In every snippet `z` (the batch) and the prologue's names are in scope.
pub(super) struct Tiled {
    pub label: String,
    pub bindings: Vec<Binding>,
    pub slots: Vec<Slot>,
    /// Module-scope functions the snippets call.
    pub helpers: String,
    pub batches: u64,
    pub m: u32,
    pub n: u32,
    pub k: u32,
    /// Statements run once per workgroup after `z` is known.
    pub prologue: String,
    /// Statements setting `v: f32` to A[z][gm][gk] (called with gm < M, gk < K only).
    pub load_a: String,
    /// Statements setting `v: f32` to B[z][gk][gn] (called with gk < K, gn < N only).
    pub load_b: String,
    /// Statements storing the result `v: f32` of C[z][gm][gn] (gm < M, gn < N only).
    pub store: String,
    /// Whether consecutive k of a row of A are the adjacent ones in memory (else consecutive m).
    pub a_k_fast: bool,
    /// Whether consecutive n of a row of B are the adjacent ones in memory (else consecutive k).
    pub b_n_fast: bool,
}

/// The tile sides (TM, TN) for a product.
fn tiles(batches: u64, m: u32, n: u32) -> (u32, u32) {
    let side = |d: u32| d.next_power_of_two().clamp(16, 64);
    let (mut tm, mut tn) = (side(m), side(n));
    let count = |tm: u32, tn: u32| batches * m.div_ceil(tm) as u64 * n.div_ceil(tn) as u64;
    while count(tm, tn) < TARGET_WORKGROUPS && (tm > 16 || tn > 16) {
        if tm >= tn {
            tm /= 2;
        } else {
            tn /= 2;
        }
    }
    (tm, tn)
}

/// One step of staging a tile of A (`x` = 'm') or B ('n') into workgroup memory `tile`: the
/// thread's element `e = lid + first` sits at `{x}{x}` across the tile's `width` and at `kk`
/// along its depth (consecutive e run across when `x_fast`, else along the depth); it holds
/// `load`'s `v` when `g{x} = {x}0 + {x}{x} < limit` and `gk = k0 + kk < k`, else zero.
fn stage(
    c: &mut String,
    (tile, x): (&str, char),
    (width, x_fast): (u32, bool),
    (limit, k): (u32, u32),
    first: u32,
    load: &str,
) {
    let (xx, kk) = if x_fast {
        (format!("e % {width}u"), format!("e / {width}u"))
    } else {
        (format!("e / {SIDE}u"), format!("e % {SIDE}u"))
    };
    let _ = writeln!(
        c,
        "{{\n  let e = lid + {first}u;\n  let {x}{x} = {xx};\n  let kk = {kk};\n  let g{x} = {x}0 + {x}{x};\n  let gk = k0 + kk;\n  \
         var v: f32 = 0.0;\n  if (g{x} < {limit}u && gk < {k}u) {{\n{load}\n  }}\n  {tile}[kk * {width}u + {x}{x}] = v;\n}}"
    );
}

/// The kernel of a tiled product.
pub(super) fn tiled(l: &Lowering, t: Tiled) -> Result<Kernel> {
    let (tm, tn) = tiles(t.batches, t.m, t.n);
    let (tiles_m, tiles_n) = (t.m.div_ceil(tm) as u64, t.n.div_ceil(tn) as u64);
    let total = t.batches * tiles_m * tiles_n;
    let max = l.max_workgroups.max(1) as u64;
    let y = total.div_ceil(max);
    let x = total.div_ceil(y);
    if total > u32::MAX as u64 || y > max {
        return Err(Error::not_supported(format!("{}: too many workgroups ({total})", t.label)));
    }
    let (rm, rn) = (tm / SIDE, tn / SIDE);
    let (m, n, k) = (t.m, t.n, t.k);
    let threads = SIDE * SIDE;
    let mut c = wgsl::declarations(&t.bindings);
    c.push_str(&t.helpers);
    let _ = write!(
        c,
        "\nvar<workgroup> tile_a: array<f32, {}>;\nvar<workgroup> tile_b: array<f32, {}>;\n\n\
         @compute @workgroup_size({threads})\n\
         fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {{\n\
         let wg = wid.x + wid.y * {x}u;\n\
         if (wg >= {total}u) {{ return; }}\n\
         let n0 = (wg % {tiles_n}u) * {tn}u;\n\
         let tr = wg / {tiles_n}u;\n\
         let m0 = (tr % {tiles_m}u) * {tm}u;\n\
         let z = tr / {tiles_m}u;\n\
         let tx = lid % {SIDE}u;\n\
         let ty = lid / {SIDE}u;\n{}\n",
        SIDE * tm,
        SIDE * tn,
        t.prologue
    );
    for i in 0..rm {
        for j in 0..rn {
            let _ = writeln!(c, "var acc_{i}_{j}: f32 = 0.0;");
        }
    }
    let _ = writeln!(c, "for (var k0: u32 = 0u; k0 < {k}u; k0 += {SIDE}u) {{");
    // Stage A (tm × SIDE) and B (SIDE × tn): each thread loads tm/SIDE and tn/SIDE elements.
    for s in 0..rm {
        stage(&mut c, ("tile_a", 'm'), (tm, !t.a_k_fast), (m, k), s * threads, &t.load_a);
    }
    for s in 0..rn {
        stage(&mut c, ("tile_b", 'n'), (tn, t.b_n_fast), (n, k), s * threads, &t.load_b);
    }
    let _ = writeln!(c, "workgroupBarrier();\nfor (var kk: u32 = 0u; kk < {SIDE}u; kk++) {{");
    for i in 0..rm {
        let _ = writeln!(c, "  let a{i} = tile_a[kk * {tm}u + ty + {}u];", i * SIDE);
    }
    for j in 0..rn {
        let _ = writeln!(c, "  let b{j} = tile_b[kk * {tn}u + tx + {}u];", j * SIDE);
    }
    for i in 0..rm {
        for j in 0..rn {
            let _ = writeln!(c, "  acc_{i}_{j} = fma(a{i}, b{j}, acc_{i}_{j});");
        }
    }
    let _ = writeln!(c, "}}\nworkgroupBarrier();\n}}");
    for i in 0..rm {
        for j in 0..rn {
            let _ = writeln!(
                c,
                "{{\n  let gm = m0 + ty + {}u;\n  let gn = n0 + tx + {}u;\n  if (gm < {m}u && gn < {n}u) {{\n    \
                 let v = acc_{i}_{j};\n{}\n  }}\n}}",
                i * SIDE,
                j * SIDE,
                t.store
            );
        }
    }
    c.push_str("}\n");
    Ok(l.custom(&t.label, c, t.slots, [x as u32, y as u32, 1]))
}

/// Whether this family executes `member` of `op` with `dt` (a type the GPU stores).
pub(super) fn executes(op: OpKind, member: &str, dt: DataType) -> bool {
    let _ = member;
    matches!(op, OpKind::Matmul | OpKind::Gemm) && matches!(dt, DataType::Float32 | DataType::Float16)
}

/// Lowers an op of this family, or None if `op` is not one.
pub(super) fn lower(op: &Operation, l: &Lowering) -> Result<Option<Work>> {
    let kernel = match op.kind {
        OpKind::Matmul => matmul(op, l)?,
        OpKind::Gemm => gemm(op, l)?,
        _ => return Ok(None),
    };
    Ok(Some(Work { scratch: vec![], tasks: vec![Task::Kernel(kernel)] }))
}

fn matmul(op: &Operation, l: &Lowering) -> Result<Kernel> {
    let (a, b, y) = (l.input(op, 0)?, l.input(op, 1)?, op.outputs[0]);
    let dt = l.data_type(y);
    let (sa, sb, sy) = (l.shape(a).to_vec(), l.shape(b).to_vec(), l.shape(y).to_vec());
    let (ra, rb, ry) = (sa.len(), sb.len(), sy.len());
    if ra < 2 || rb < 2 || ry < 2 {
        return Err(Error::unknown("matmul: operands must have rank 2 or more"));
    }
    let (m, n, k) = (sy[ry - 2], sy[ry - 1], sa[ra - 1]);
    if sa[ra - 2] != m || sb[rb - 2] != k || sb[rb - 1] != n {
        return Err(Error::unknown("matmul: operand shapes do not match"));
    }
    let batch = &sy[..ry - 2];
    let batches: u64 = batch.iter().map(|&d| d as u64).product();
    let scaled = |s: Vec<u64>, by: u64| s.into_iter().map(|v| v * by).collect::<Vec<_>>();
    let stride_a = scaled(wgsl::broadcast_strides(&sa[..ra - 2], batch), m as u64 * k as u64);
    let stride_b = scaled(wgsl::broadcast_strides(&sb[..rb - 2], batch), k as u64 * n as u64);
    let prologue = format!(
        "{}let a_base: u32 = {};\nlet b_base: u32 = {};\nlet y_base: u32 = z * {}u;",
        wgsl::coordinates(batch, "z"),
        wgsl::offset(&stride_a),
        wgsl::offset(&stride_b),
        m as u64 * n as u64
    );
    let t = Tiled {
        label: "matmul".into(),
        bindings: vec![Binding::read("a_", dt), Binding::read("b_", dt), Binding::write("y_", dt)],
        slots: vec![Slot::Operand(a), Slot::Operand(b), Slot::Operand(y)],
        helpers: l.epilogue_helpers(),
        batches,
        m,
        n,
        k,
        prologue,
        load_a: format!("v = {};", wgsl::load(dt, "a_", &format!("a_base + gm * {k}u + gk"))),
        load_b: format!("v = {};", wgsl::load(dt, "b_", &format!("b_base + gk * {n}u + gn"))),
        store: wgsl::store(dt, "y_", &format!("y_base + gm * {n}u + gn"), &l.activated("v")),
        a_k_fast: true,
        b_n_fast: true,
    };
    tiled(l, t)
}

fn gemm(op: &Operation, l: &Lowering) -> Result<Kernel> {
    let Attrs::Gemm { alpha, beta, a_transpose, b_transpose } = op.attrs else {
        return Err(Error::unknown("gemm: missing attributes"));
    };
    let (a, b, y) = (l.input(op, 0)?, l.input(op, 1)?, op.outputs[0]);
    let dt = l.data_type(y);
    let (sa, sb, sy) = (l.shape(a), l.shape(b), l.shape(y).to_vec());
    if sa.len() != 2 || sb.len() != 2 || sy.len() != 2 {
        return Err(Error::unknown("gemm: operands must have rank 2"));
    }
    let (m, n) = (sy[0], sy[1]);
    let k = if a_transpose { sa[0] } else { sa[1] };
    let am = if a_transpose { sa[1] } else { sa[0] };
    let (bk, bn) = if b_transpose { (sb[1], sb[0]) } else { (sb[0], sb[1]) };
    if am != m || bk != k || bn != n {
        return Err(Error::unknown("gemm: operand shapes do not match"));
    }
    let a_at = if a_transpose { format!("gk * {m}u + gm") } else { format!("gm * {k}u + gk") };
    let b_at = if b_transpose { format!("gn * {k}u + gk") } else { format!("gk * {n}u + gn") };
    let mut bindings = vec![Binding::read("a_", dt), Binding::read("b_", dt)];
    let mut slots = vec![Slot::Operand(a), Slot::Operand(b)];
    let mut value = if alpha == 1.0 { "v".to_string() } else { format!("{} * v", wgsl::literal(dt, alpha)) };
    // As the spec's emulation: beta·c is added only where beta is not 0.
    if let Some(c) = op.input(2).filter(|_| beta != 0.0) {
        let s = wgsl::broadcast_strides(l.shape(c), &sy);
        let at = wgsl::offset(&s).replace("c0", "gm").replace("c1", "gn");
        let cv = wgsl::load(dt, "c_", &at);
        value = if beta == 1.0 {
            format!("{value} + {cv}")
        } else {
            format!("{value} + {} * {cv}", wgsl::literal(dt, beta))
        };
        bindings.push(Binding::read("c_", dt));
        slots.push(Slot::Operand(c));
    }
    bindings.push(Binding::write("y_", dt));
    slots.push(Slot::Operand(y));
    let t = Tiled {
        label: "gemm".into(),
        bindings,
        slots,
        helpers: l.epilogue_helpers(),
        batches: 1,
        m,
        n,
        k,
        prologue: String::new(),
        load_a: format!("v = {};", wgsl::load(dt, "a_", &a_at)),
        load_b: format!("v = {};", wgsl::load(dt, "b_", &b_at)),
        store: wgsl::store(dt, "y_", &format!("gm * {n}u + gn"), &l.activated(&value)),
        a_k_fast: !a_transpose,
        b_n_fast: !b_transpose,
    };
    tiled(l, t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{backend, check, data, run, time};
    use crate::GpuBackend;
    use webnn_core::{GemmOptions, OperatorOptions};

    #[test]
    fn tiles_shrink_for_small_products() {
        assert_eq!(tiles(1, 4096, 4096), (64, 64));
        assert_eq!(tiles(1, 1, 1), (16, 16));
        assert_eq!(tiles(1, 3, 1000), (16, 16));
        assert_eq!(tiles(64, 512, 512), (64, 64));
        assert_eq!(tiles(1, 520, 520), (32, 32));
    }

    #[test]
    #[ignore]
    fn timing_matmul() {
        let Some(gpu) = backend() else { return };
        for s in [256u32, 512, 1024] {
            let t = time(gpu, &[&[s, s], &[s, s]], |g, o| g.matmul(&o[0], &o[1], &OperatorOptions::default()).unwrap());
            let flops = 2.0 * (s as f64).powi(3);
            eprintln!("matmul {s}x{s}x{s}: {:.2} ms, {:.2} GFLOP/s ({})", t * 1e3, flops / t / 1e9, gpu.adapter_name());
        }
    }

    fn matmul_case(gpu: &GpuBackend, sa: &[u32], sb: &[u32]) {
        let (ra, rb) = (sa.len(), sb.len());
        let (m, k, n) = (sa[ra - 2] as usize, sa[ra - 1] as usize, sb[rb - 1] as usize);
        let a = data(sa.iter().map(|&d| d as usize).product(), 1);
        let bv = data(sb.iter().map(|&d| d as usize).product(), 2);
        let got = run(gpu, &[sa, sb], &[a.clone(), bv.clone()], |g, o| {
            g.matmul(&o[0], &o[1], &OperatorOptions::default()).unwrap()
        });
        // Reference with the broadcast batch dimensions.
        let rank = ra.max(rb);
        let pad = |s: &[u32]| {
            let mut v = vec![1u32; rank - s.len()];
            v.extend_from_slice(&s[..s.len() - 2]);
            v
        };
        let (ba, bb) = (pad(sa), pad(sb));
        let batch: Vec<u32> = ba.iter().zip(&bb).map(|(&x, &y)| x.max(y)).collect();
        let batches: usize = batch.iter().map(|&d| d as usize).product();
        let mut want = Vec::new();
        for z in 0..batches {
            let (mut rest, mut oa, mut ob, mut sta, mut stb) = (z, 0, 0, 1, 1);
            for d in (0..batch.len()).rev() {
                let c = rest % batch[d] as usize;
                rest /= batch[d] as usize;
                if ba[d] != 1 {
                    oa += c * sta;
                }
                if bb[d] != 1 {
                    ob += c * stb;
                }
                sta *= ba[d] as usize;
                stb *= bb[d] as usize;
            }
            for i in 0..m {
                for j in 0..n {
                    let (mut s, mut t) = (0f64, 0f64);
                    for p in 0..k {
                        let v = a[oa * m * k + i * k + p] as f64 * bv[ob * k * n + p * n + j] as f64;
                        s += v;
                        t += v.abs();
                    }
                    want.push((s, t));
                }
            }
        }
        check(&format!("matmul {sa:?} x {sb:?}"), &got, &want);
    }

    #[test]
    fn matmul_matches_reference_on_odd_sizes() {
        let Some(gpu) = backend() else { return };
        for (sa, sb) in [
            (&[1u32, 1][..], &[1u32, 1][..]),
            (&[3, 17], &[17, 65]),
            (&[2, 1, 3, 17], &[4, 17, 5]),
            (&[5, 1, 2, 33], &[1, 3, 33, 2]),
            (&[520, 70], &[70, 519]),
            (&[1030, 33], &[33, 1029]),
        ] {
            matmul_case(gpu, sa, sb);
        }
    }

    #[test]
    fn gemm_matches_reference() {
        let Some(gpu) = backend() else { return };
        for (m, k, n, at, bt, c_shape, alpha, beta) in [
            (1usize, 1usize, 1usize, false, false, None, 1.0, 1.0),
            (17, 65, 3, true, false, Some(vec![3u32]), 0.5, 2.0),
            (65, 17, 33, false, true, Some(vec![65, 1]), 1.0, 1.0),
            (300, 19, 260, true, true, Some(vec![]), -1.5, 0.25),
            (40, 40, 40, false, false, Some(vec![40, 40]), 1.0, 0.0),
        ] {
            let sa = if at { [k as u32, m as u32] } else { [m as u32, k as u32] };
            let sb = if bt { [n as u32, k as u32] } else { [k as u32, n as u32] };
            let a = data(m * k, 3);
            let bv = data(k * n, 4);
            let mut shapes: Vec<&[u32]> = vec![&sa, &sb];
            let mut inputs = vec![a.clone(), bv.clone()];
            let cv = c_shape.as_ref().map(|s: &Vec<u32>| data(s.iter().map(|&d| d as usize).product(), 5));
            if let (Some(s), Some(v)) = (&c_shape, &cv) {
                shapes.push(s);
                inputs.push(v.clone());
            }
            let got = run(gpu, &shapes, &inputs, |g, o| {
                let options = GemmOptions {
                    c: o.get(2).cloned(),
                    alpha,
                    beta,
                    a_transpose: at,
                    b_transpose: bt,
                    ..Default::default()
                };
                g.gemm(&o[0], &o[1], &options).unwrap()
            });
            let mut want = Vec::new();
            for i in 0..m {
                for j in 0..n {
                    let (mut s, mut t) = (0f64, 0f64);
                    for p in 0..k {
                        let x = if at { a[p * m + i] } else { a[i * k + p] } as f64;
                        let y = if bt { bv[j * k + p] } else { bv[p * n + j] } as f64;
                        s += x * y;
                        t += (x * y).abs();
                    }
                    let (mut s, mut t) = (s * alpha, t * alpha.abs());
                    if let (Some(shape), Some(c)) = (&c_shape, &cv) {
                        if beta != 0.0 {
                            let ci = match shape.len() {
                                0 => 0,
                                1 => j,
                                _ => {
                                    (if shape[0] == 1 { 0 } else { i }) * shape[1] as usize
                                        + if shape[1] == 1 { 0 } else { j }
                                }
                            };
                            s += beta * c[ci] as f64;
                            t += (beta * c[ci] as f64).abs();
                        }
                    }
                    want.push((s, t));
                }
            }
            check(&format!("gemm {m}x{k}x{n} {at} {bt} {c_shape:?}"), &got, &want);
        }
    }
}

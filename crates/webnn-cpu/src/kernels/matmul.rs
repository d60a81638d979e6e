//! matmul ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-matmul): batched, batch
//! dimensions broadcast; on [`super::packed_gemm`], a shared float32 constant `b` packed once at
//! build) and gemm ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-gemm): `alpha·A'·B' +
//! beta·C`, on the `gemm` crate through [`sgemm`]). Constant operands are widened to f32 (and for
//! gemm transposed to row-major) once in `lower`; float16 is computed in f32 and rounded once.

use super::constants::constant_f32;
use super::epilogue::{BoundEpilogue, Epilogue, GemmEpilogue, TileBias};
use super::float_elem::FloatElem;
use super::packed_gemm::{gemm, Lhs, PackedRhs, Rhs};
use super::scratch::{try_zeroed, Scratch};
use super::sgemm::{sgemm, Mat};
use super::util::{broadcast_strides, strides};
use super::{In, Kernel, Out};
use half::f16;
use webnn_core::graph::{Attrs, Operation};
use webnn_core::{DataType, Error, Graph, Result};

/// Up to this many multiply-adds per matrix, batches (when there are at least as many as
/// threads) run in parallel with single-threaded GEMMs instead of one parallel GEMM after
/// another (attention-style batched products).
const BATCH_PARALLEL_MAX: usize = 256 * 256 * 256;

struct MatmulKernel {
    data_type: DataType,
    m: usize,
    k: usize,
    n: usize,
    /// (a offset, b offset) in elements for each output matrix; empty when `fold` is set.
    batches: Vec<(usize, usize)>,
    /// All output matrices share one `b`: run one GEMM of `batch·m` rows.
    fold: Option<usize>,
    /// Constant float16 operands widened, and the float16 scratch.
    widened: Widened,
    /// A float32 constant `b` shared by every output matrix, packed once for the GEMM.
    b_packed: Option<PackedRhs>,
    /// Applied to each output matrix (float32 only; empty unless the compile passes fused one).
    epilogue: Epilogue,
}

/// Lowers matmul.
pub fn lower_matmul(op: &Operation, graph: &Graph) -> Result<Box<dyn Kernel>> {
    lower_matmul_with(op, graph, Epilogue::default())
}

/// Lowers matmul followed by a fused epilogue.
pub fn lower_matmul_with(op: &Operation, graph: &Graph, epilogue: Epilogue) -> Result<Box<dyn Kernel>> {
    let (Some(a_id), Some(b_id)) = (op.input(0), op.input(1)) else {
        return Err(Error::operation("matmul: missing operand"));
    };
    let a = graph.descriptor(a_id);
    let b = graph.descriptor(b_id);
    let out = graph.descriptor(op.outputs[0]);
    let (ra, rb, ro) = (a.shape.len(), b.shape.len(), out.shape.len());
    if ra < 2 || rb < 2 || ro < 2 {
        return Err(Error::operation("matmul: operands must have rank 2 or more"));
    }
    let m = a.shape[ra - 2] as usize;
    let k = a.shape[ra - 1] as usize;
    let n = b.shape[rb - 1] as usize;
    if b.shape[rb - 2] as usize != k || out.shape[ro - 2] as usize != m || out.shape[ro - 1] as usize != n {
        return Err(Error::operation("matmul: operand shapes do not match"));
    }
    let batch_shape = &out.shape[..ro - 2];
    let a_batch = &a.shape[..ra - 2];
    let b_batch = &b.shape[..rb - 2];
    let batch_count: usize = batch_shape.iter().map(|&d| d as usize).product();
    let a_count: usize = a_batch.iter().map(|&d| d as usize).product();
    let b_count: usize = b_batch.iter().map(|&d| d as usize).product();
    let fold = (b_count == 1 && a_count == batch_count).then_some(batch_count);
    let mut batches = Vec::new();
    if fold.is_none() {
        let sa = broadcast_strides(a_batch, batch_shape);
        let sb = broadcast_strides(b_batch, batch_shape);
        let so = strides(batch_shape);
        batches.reserve(batch_count);
        for t in 0..batch_count {
            let (mut oa, mut ob) = (0, 0);
            for d in 0..batch_shape.len() {
                let i = (t / so[d]) % batch_shape[d] as usize;
                oa += i * sa[d];
                ob += i * sb[d];
            }
            batches.push((oa * m * k, ob * k * n));
        }
    }
    Ok(Box::new(MatmulKernel {
        data_type: out.data_type,
        m,
        k,
        n,
        batches,
        fold,
        widened: Widened::new(
            if out.data_type == DataType::Float16 { constant_f32(graph, a_id) } else { None },
            if out.data_type == DataType::Float16 { constant_f32(graph, b_id) } else { None },
        ),
        b_packed: if out.data_type == DataType::Float32 && fold.is_some() {
            constant_f32(graph, b_id).and_then(|b| PackedRhs::new(k, n, Mat::rows(&b, n)))
        } else {
            None
        },
        epilogue,
    }))
}

impl MatmulKernel {
    fn compute(&self, a: &[f32], b: &[f32], out: &mut [f32], ep: &BoundEpilogue<'_>) -> webnn_core::Result<()> {
        let (m, k, n) = (self.m, self.k, self.n);
        // Row i of matrix t of the output starts at element (t·m + i)·n.
        let tile_epilogue = |t: usize| GemmEpilogue { ep, bias: TileBias::None, base: t * m * n, rs: n };
        if let Some(batch) = self.fold {
            let rhs = match &self.b_packed {
                Some(p) => Rhs::Packed(p),
                None => Rhs::Strided(Mat::rows(b, n)),
            };
            return gemm(batch * m, n, k, Lhs::Strided(Mat::rows(a, k)), rhs, out, n, true, &tile_epilogue(0));
        }
        let batches = self.batches.len();
        let small = batches > 1 && m * n * k <= BATCH_PARALLEL_MAX && batches >= crate::par::threads();
        if small {
            crate::par::try_chunks(out, m * n, |t, o| {
                let (oa, ob) = self.batches[t];
                gemm(
                    m,
                    n,
                    k,
                    Lhs::Strided(Mat::rows(&a[oa..], k)),
                    Rhs::Strided(Mat::rows(&b[ob..], n)),
                    o,
                    n,
                    false,
                    &tile_epilogue(t),
                )
            })
        } else {
            for (t, &(oa, ob)) in self.batches.iter().enumerate() {
                let (a, b) = (Mat::rows(&a[oa..], k), Mat::rows(&b[ob..], n));
                gemm(m, n, k, Lhs::Strided(a), Rhs::Strided(b), &mut out[t * m * n..], n, true, &tile_epilogue(t))?;
            }
            Ok(())
        }
    }
}

/// The constant operands `a` and `b` of matmul or gemm widened to f32 at build (if they are
/// constants and widened), and the scratch of their float16 path.
struct Widened {
    a_const: Option<Vec<f32>>,
    b_const: Option<Vec<f32>>,
    a_scratch: Scratch,
    b_scratch: Scratch,
    out_scratch: Scratch,
}

impl Widened {
    fn new(a_const: Option<Vec<f32>>, b_const: Option<Vec<f32>>) -> Widened {
        let (a_scratch, b_scratch, out_scratch) = Default::default();
        Widened { a_const, b_const, a_scratch, b_scratch, out_scratch }
    }

    /// Runs `compute(a, b, out)` in f32 for float16 operands (the constants where there are,
    /// the others widened into scratch) and rounds its output once into `out`.
    fn run_f16(
        &self,
        a: In<'_>,
        b: In<'_>,
        out: &mut Out<'_>,
        compute: impl FnOnce(&[f32], &[f32], &mut [f32]) -> webnn_core::Result<()>,
    ) -> webnn_core::Result<()> {
        let mut sa = self.a_scratch.get(if self.a_const.is_some() { 0 } else { a.desc.len() })?;
        let mut sb = self.b_scratch.get(if self.b_const.is_some() { 0 } else { b.desc.len() })?;
        let a32 = f16_as_f32(&self.a_const, a, &mut sa);
        let b32 = f16_as_f32(&self.b_const, b, &mut sb);
        let mut o32 = self.out_scratch.get(out.desc.len())?;
        compute(a32, b32, &mut o32)?;
        f16::slice_from_f32(&o32, out.slice_mut());
        Ok(())
    }
}

/// The f32 values of a float16 operand: its constant (widened at build) if it has one, else
/// the operand widened into `scratch` (of its length).
fn f16_as_f32<'a>(constant: &'a Option<Vec<f32>>, x: In<'_>, scratch: &'a mut [f32]) -> &'a [f32] {
    match constant {
        Some(c) => c,
        None => {
            f16::slice_to_f32(x.slice(), scratch);
            scratch
        }
    }
}

impl Kernel for MatmulKernel {
    fn run(&self, inputs: &[Option<In<'_>>], outputs: &mut [Out<'_>]) -> webnn_core::Result<()> {
        let (Some(a), Some(b)) = (inputs[0], inputs[1]) else { return Ok(()) };
        let ep = self.epilogue.bind(inputs);
        let out = &mut outputs[0];
        match self.data_type {
            DataType::Float16 => self.widened.run_f16(a, b, out, |a32, b32, o32| self.compute(a32, b32, o32, &ep))?,
            _ => self.compute(a.slice(), b.slice(), out.slice_mut(), &ep)?,
        }
        Ok(())
    }
}

struct GemmKernel {
    data_type: DataType,
    m: usize,
    k: usize,
    n: usize,
    alpha: f32,
    beta: f32,
    /// A' = (a or aᵀ) as (row stride, column stride) over a's elements.
    a_view: (usize, usize),
    b_view: (usize, usize),
    /// Constant `a`/`b` widened to f32 (`b` transposed to row-major k×n), and the float16
    /// scratch.
    widened: Widened,
    /// Strides of `c` broadcast to [m, n]; None when c is absent or beta is 0.
    c_strides: Option<(usize, usize)>,
    /// Applied to the output (float32 only; empty unless the compile passes fused one).
    epilogue: Epilogue,
}

/// Lowers gemm.
pub fn lower_gemm(op: &Operation, graph: &Graph) -> Result<Box<dyn Kernel>> {
    lower_gemm_with(op, graph, Epilogue::default())
}

/// Lowers gemm followed by a fused epilogue.
pub fn lower_gemm_with(op: &Operation, graph: &Graph, epilogue: Epilogue) -> Result<Box<dyn Kernel>> {
    let Attrs::Gemm { alpha, beta, a_transpose, b_transpose } = op.attrs else {
        return Err(Error::operation("gemm: missing attributes"));
    };
    let (Some(a_id), Some(b_id)) = (op.input(0), op.input(1)) else {
        return Err(Error::operation("gemm: missing operand"));
    };
    let a = graph.descriptor(a_id);
    let b = graph.descriptor(b_id);
    let out = graph.descriptor(op.outputs[0]);
    if a.shape.len() != 2 || b.shape.len() != 2 || out.shape.len() != 2 {
        return Err(Error::operation("gemm: operands must have rank 2"));
    }
    let (m, n) = (out.shape[0] as usize, out.shape[1] as usize);
    let k = if a_transpose { a.shape[0] } else { a.shape[1] } as usize;
    let am = if a_transpose { a.shape[1] } else { a.shape[0] } as usize;
    let (bk, bn) = if b_transpose { (b.shape[1], b.shape[0]) } else { (b.shape[0], b.shape[1]) };
    if am != m || bk as usize != k || bn as usize != n {
        return Err(Error::operation("gemm: operand shapes do not match"));
    }
    let a_view = if a_transpose { (1, m) } else { (k, 1) };
    let b_view = if b_transpose { (1, k) } else { (n, 1) };
    // Constant b (weights): f32, row-major k×n, once.
    // (A float32 constant already in row-major order is read in place from the plan.)
    let widen_b = b_transpose || out.data_type == DataType::Float16;
    let b_const = widen_b.then(|| constant_f32(graph, b_id)).flatten().and_then(|w| {
        Some(if b_transpose {
            let mut t = try_zeroed(k * n)?;
            for (j, row) in w.chunks_exact(k).enumerate() {
                for (p, &v) in row.iter().enumerate() {
                    t[p * n + j] = v;
                }
            }
            t
        } else {
            w
        })
    });
    let a_const = if out.data_type == DataType::Float16 { constant_f32(graph, a_id) } else { None };
    // The spec's emulation adds mul(beta, c); beta = 0 leaves the product alone.
    let c_strides = match op.input(2) {
        Some(c_id) if beta != 0.0 => {
            let s = broadcast_strides(&graph.descriptor(c_id).shape, &out.shape);
            Some((s[0], s[1]))
        }
        _ => None,
    };
    Ok(Box::new(GemmKernel {
        data_type: out.data_type,
        m,
        k,
        n,
        alpha: alpha as f32,
        beta: beta as f32,
        a_view,
        b_view: if b_const.is_some() { (n, 1) } else { b_view },
        widened: Widened::new(a_const, b_const),
        c_strides,
        epilogue,
    }))
}

impl GemmKernel {
    fn compute<C: FloatElem>(&self, a: &[f32], b: &[f32], c: Option<&[C]>, out: &mut [f32]) {
        let (m, n, k) = (self.m, self.n, self.k);
        let acc = match (c, self.c_strides) {
            (Some(c), Some((rs, cs))) => {
                for (i, row) in out.chunks_exact_mut(n).enumerate() {
                    for (j, o) in row.iter_mut().enumerate() {
                        *o = c[i * rs + j * cs].to_f32();
                    }
                }
                Some(self.beta)
            }
            _ => None,
        };
        let av = Mat { data: a, rs: self.a_view.0, cs: self.a_view.1 };
        let bv = Mat { data: b, rs: self.b_view.0, cs: self.b_view.1 };
        sgemm(m, n, k, av, bv, out, n, 1, self.alpha, acc, true);
    }
}

impl Kernel for GemmKernel {
    fn run(&self, inputs: &[Option<In<'_>>], outputs: &mut [Out<'_>]) -> webnn_core::Result<()> {
        let (Some(a), Some(b)) = (inputs[0], inputs[1]) else { return Ok(()) };
        let c = inputs.get(2).copied().flatten();
        let out = &mut outputs[0];
        match self.data_type {
            DataType::Float16 => self.widened.run_f16(a, b, out, |a32, b32, o32| {
                self.compute::<f16>(a32, b32, c.map(|c| c.slice::<f16>()), o32);
                Ok(())
            })?,
            _ => {
                let b32: &[f32] = match &self.widened.b_const {
                    Some(v) => v,
                    None => b.slice(),
                };
                let out = out.slice_mut();
                self.compute::<f32>(a.slice(), b32, c.map(|c| c.slice::<f32>()), out);
                self.epilogue.bind(inputs).apply_all(out);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
#[path = "matmul_tests.rs"]
mod tests;

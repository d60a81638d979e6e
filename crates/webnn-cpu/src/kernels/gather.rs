//! gather ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-gather)), gatherElements
//! ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-gatherelements)) and gatherND
//! ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-gathernd)) for every data type, with
//! int32/uint32/int64 indices. Indices in [−N, −1] wrap by +N; anything still outside [0, N) is
//! clamped to [0, N−1] (decisions.md D10): no index value reads out of bounds.

use super::strided::par_rows;
use super::util::input_desc;
use super::{In, Kernel, Out};
use webnn_core::graph::{Attrs, Operation};
use webnn_core::{DataType, Error, Graph, OpKind, Result};

/// An index element type (int32, uint32, int64).
pub trait IndexValue: bytemuck::Pod + Send + Sync {
    /// The value as i64 (exact for the three index types).
    fn to_i64(self) -> i64;
}

impl IndexValue for i32 {
    #[inline(always)]
    fn to_i64(self) -> i64 {
        self as i64
    }
}
impl IndexValue for u32 {
    #[inline(always)]
    fn to_i64(self) -> i64 {
        self as i64
    }
}
impl IndexValue for i64 {
    #[inline(always)]
    fn to_i64(self) -> i64 {
        self
    }
}

/// Runs `$body` with `$I` bound to the index type of `$dt` (int32, uint32, else int64).
#[macro_export]
macro_rules! with_index {
    ($dt:expr, $I:ident => $body:expr) => {{
        match $dt {
            webnn_core::DataType::Int32 => {
                type $I = i32;
                $body
            }
            webnn_core::DataType::Uint32 => {
                type $I = u32;
                $body
            }
            _ => {
                type $I = i64;
                $body
            }
        }
    }};
}

/// Resolves an index into `[0, n)` (`n ≥ 1`): negative values wrap by +n, then clamp
/// (decisions.md D10).
#[inline(always)]
pub fn resolve<I: IndexValue>(v: I, n: usize) -> usize {
    let n = n as i64;
    let v = v.to_i64();
    // v + n cannot overflow for v < 0.
    let v = if v < 0 { v + n } else { v };
    v.clamp(0, n - 1) as usize
}

/// The shape `[outer, n, inner]` around `axis`.
fn around(shape: &[u32], axis: usize) -> (usize, usize, usize) {
    let p = |s: &[u32]| s.iter().map(|&d| d as usize).product::<usize>();
    let axis = axis.min(shape.len().saturating_sub(1));
    (p(&shape[..axis]), shape.get(axis).copied().unwrap_or(1) as usize, p(&shape[(axis + 1).min(shape.len())..]))
}

/// What is gathered.
enum Mode {
    /// gather: out[o, m, i] = in[o, idx[m], i]; `m` counts all indices.
    Gather { m: usize },
    /// gatherElements: out[o, j, i] = in[o, idx[o, j, i], i]; `ni` = indices.shape[axis].
    Elements { ni: usize },
    /// gatherND: each of the `c`-tuples of indices selects a slice of `inner` elements at
    /// Σ resolve(idx[t, k], dims[k]) · strides[k].
    Nd { dims: Vec<usize>, strides: Vec<usize> },
}

struct GatherKernel {
    elem: usize,
    index_type: DataType,
    n: usize,
    inner: usize,
    mode: Mode,
}

/// Lowers gather, gatherElements and gatherND.
pub fn lower(op: &Operation, graph: &Graph) -> Result<Box<dyn Kernel>> {
    let input = input_desc(op, graph, 0)?;
    let indices = input_desc(op, graph, 1)?;
    let elem = input.data_type.byte_size();
    let index_type = indices.data_type;
    let out_count = graph.descriptor(op.outputs[0]).element_count();
    let idx_count = indices.element_count();
    let mismatch = || Error::operation(format!("{}: attributes do not match the operand shapes", op.kind));
    let rank = input.shape.len();
    let kernel = match (op.kind, &op.attrs) {
        (OpKind::Gather, Attrs::Axis { axis }) if (*axis as usize) < rank => {
            let (outer, n, inner) = around(&input.shape, *axis as usize);
            let m = idx_count as usize;
            if (outer * m * inner) as u64 != out_count {
                return Err(mismatch());
            }
            GatherKernel { elem, index_type, n, inner, mode: Mode::Gather { m } }
        }
        (OpKind::GatherElements, Attrs::Axis { axis }) if (*axis as usize) < rank => {
            let axis = *axis as usize;
            let (_, n, inner) = around(&input.shape, axis);
            let (_, ni, _) = around(&indices.shape, axis);
            let same_but_axis =
                indices.shape.len() == rank && (0..rank).all(|d| d == axis || indices.shape[d] == input.shape[d]);
            if !same_but_axis || idx_count != out_count {
                return Err(mismatch());
            }
            GatherKernel { elem, index_type, n, inner, mode: Mode::Elements { ni } }
        }
        (OpKind::GatherNd, _) => {
            let c = indices.shape.last().copied().unwrap_or(0) as usize;
            if c == 0 || c > rank {
                return Err(Error::operation("gatherND: coordinate size not in [1, input rank]"));
            }
            let inner: u64 = input.shape[c..].iter().map(|&d| d as u64).product();
            if idx_count / c as u64 * inner != out_count {
                return Err(mismatch());
            }
            let all = super::util::strides(&input.shape);
            let dims = input.shape[..c].iter().map(|&d| d as usize).collect();
            let inner = input.shape[c..].iter().map(|&d| d as usize).product();
            GatherKernel { elem, index_type, n: 1, inner, mode: Mode::Nd { dims, strides: all[..c].to_vec() } }
        }
        _ => return Err(Error::operation(format!("{}: unexpected attributes {:?}", op.kind, op.attrs))),
    };
    Ok(Box::new(kernel))
}

impl GatherKernel {
    fn go<T: bytemuck::Pod + Send + Sync, I: IndexValue>(&self, src: &[T], idx: &[I], out: &mut [T]) {
        let (n, inner) = (self.n, self.inner);
        match &self.mode {
            Mode::Gather { m } => {
                let m = *m;
                par_rows(out, inner, |first, rows| {
                    let (mut o, mut j) = (first / m, first % m);
                    for dst in rows.chunks_exact_mut(inner) {
                        let s = (o * n + resolve(idx[j], n)) * inner;
                        dst.copy_from_slice(&src[s..s + inner]);
                        j += 1;
                        if j == m {
                            j = 0;
                            o += 1;
                        }
                    }
                });
            }
            Mode::Elements { ni } => {
                let ni = *ni;
                par_rows(out, inner, |first, rows| {
                    for (r, dst) in rows.chunks_exact_mut(inner).enumerate() {
                        let g = first + r;
                        let o = g / ni;
                        let irow = &idx[g * inner..(g + 1) * inner];
                        let base = o * n * inner;
                        for (i, (d, &v)) in dst.iter_mut().zip(irow).enumerate() {
                            *d = src[base + resolve(v, n) * inner + i];
                        }
                    }
                });
            }
            Mode::Nd { dims, strides } => {
                let c = dims.len();
                par_rows(out, inner, |first, rows| {
                    for (r, dst) in rows.chunks_exact_mut(inner).enumerate() {
                        let t = first + r;
                        let coord = &idx[t * c..(t + 1) * c];
                        let s: usize =
                            coord.iter().zip(dims).zip(strides).map(|((&v, &d), &st)| resolve(v, d) * st).sum();
                        dst.copy_from_slice(&src[s..s + inner]);
                    }
                });
            }
        }
    }
}

impl Kernel for GatherKernel {
    fn run(&self, inputs: &[Option<In<'_>>], outputs: &mut [Out<'_>]) -> webnn_core::Result<()> {
        let (Some(Some(a)), Some(Some(ix))) = (inputs.first(), inputs.get(1)) else { return Ok(()) };
        let out = &mut outputs[0];
        crate::with_elem!(self.elem, T => crate::with_index!(self.index_type, I =>
            self.go::<T, I>(a.slice(), ix.slice(), out.slice_mut())));
        Ok(())
    }
}

#[cfg(test)]
#[path = "gather_tests.rs"]
mod tests;

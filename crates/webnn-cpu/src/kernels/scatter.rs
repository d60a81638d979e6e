//! scatterElements ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-scatterelements)) and
//! scatterND ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-scatternd)) for every data
//! type, with int32/uint32/int64 indices: the output is a copy of the input with the updates
//! written at the indexed places. Indices wrap/clamp as in gather (decisions.md D10); when several
//! updates hit the same place, the last one in row-major order of the indices wins (decisions.md
//! D19).

use super::gather::{resolve, IndexValue};
use super::strided::par_memcpy;
use super::util::input_descs;
use super::{In, Kernel, Out};
use webnn_core::graph::{Attrs, Operation};
use webnn_core::{DataType, Error, Graph, OpKind, Result};

enum Mode {
    /// scatterElements: input `[outer, n, inner]`, indices/updates `[outer, ni, inner]`.
    Elements { n: usize, ni: usize },
    /// scatterND: each `c`-tuple of indices selects a slice of `inner` elements.
    Nd { dims: Vec<usize>, strides: Vec<usize> },
}

struct ScatterKernel {
    elem: usize,
    index_type: DataType,
    inner: usize,
    mode: Mode,
}

/// Lowers scatterElements and scatterND.
pub fn lower(op: &Operation, graph: &Graph) -> Result<Box<dyn Kernel>> {
    let [input, indices, updates] = input_descs(op, graph)?;
    let mismatch = || Error::operation(format!("{}: attributes do not match the operand shapes", op.kind));
    if graph.descriptor(op.outputs[0]).shape != input.shape {
        return Err(mismatch());
    }
    let rank = input.shape.len();
    let elem = input.data_type.byte_size();
    let index_type = indices.data_type;
    let dims = |s: &[u32]| s.iter().map(|&d| d as usize).collect::<Vec<_>>();
    let kernel = match (op.kind, &op.attrs) {
        (OpKind::ScatterElements, Attrs::Axis { axis }) => {
            let axis = *axis as usize;
            let same_but_axis =
                indices.shape.len() == rank && (0..rank).all(|d| d == axis || indices.shape[d] == input.shape[d]);
            if axis >= rank || !same_but_axis || updates.shape != indices.shape {
                return Err(mismatch());
            }
            let inner = input.shape[axis + 1..].iter().map(|&d| d as usize).product();
            let mode = Mode::Elements { n: input.shape[axis] as usize, ni: indices.shape[axis] as usize };
            ScatterKernel { elem, index_type, inner, mode }
        }
        (OpKind::ScatterNd, _) => {
            let c = indices.shape.last().copied().unwrap_or(0) as usize;
            if c == 0 || c > rank {
                return Err(Error::operation("scatterND: coordinate size not in [1, input rank]"));
            }
            let inner: u64 = input.shape[c..].iter().map(|&d| d as u64).product();
            if indices.element_count() / c as u64 * inner != updates.element_count() {
                return Err(mismatch());
            }
            let all = super::util::strides(&input.shape);
            let inner = input.shape[c..].iter().map(|&d| d as usize).product();
            ScatterKernel {
                elem,
                index_type,
                inner,
                mode: Mode::Nd { dims: dims(&input.shape[..c]), strides: all[..c].to_vec() },
            }
        }
        _ => return Err(Error::operation(format!("{}: unexpected attributes {:?}", op.kind, op.attrs))),
    };
    Ok(Box::new(kernel))
}

impl ScatterKernel {
    fn go<T: bytemuck::Pod + Send + Sync, I: IndexValue>(&self, src: &[T], idx: &[I], upd: &[T], out: &mut [T]) {
        let inner = self.inner;
        match &self.mode {
            Mode::Elements { n, ni } => {
                let (n, ni) = (*n, *ni);
                // Each [n, inner] block of the output only receives updates of the same outer
                // index, so blocks are independent; inside a block the order is row-major.
                let block = n * inner;
                let ublock = ni * inner;
                let work = |o: usize, dst: &mut [T]| {
                    dst.copy_from_slice(&src[o * block..(o + 1) * block]);
                    let iu = &idx[o * ublock..(o + 1) * ublock];
                    let uu = &upd[o * ublock..(o + 1) * ublock];
                    for (irow, urow) in iu.chunks_exact(inner).zip(uu.chunks_exact(inner)) {
                        for (i, (&v, &u)) in irow.iter().zip(urow).enumerate() {
                            dst[resolve(v, n) * inner + i] = u;
                        }
                    }
                };
                if std::mem::size_of_val(out) >= super::strided::PAR_MIN_BYTES && out.len() > block {
                    crate::par::chunks(out, block, work);
                } else {
                    for (o, dst) in out.chunks_exact_mut(block).enumerate() {
                        work(o, dst);
                    }
                }
            }
            Mode::Nd { dims, strides } => {
                par_memcpy(out, src);
                let c = dims.len();
                // Serial, in row-major order of the index tuples (decisions.md D19).
                for (coord, u) in idx.chunks_exact(c).zip(upd.chunks_exact(inner)) {
                    let s: usize = coord.iter().zip(dims).zip(strides).map(|((&v, &d), &st)| resolve(v, d) * st).sum();
                    out[s..s + inner].copy_from_slice(u);
                }
            }
        }
    }
}

impl Kernel for ScatterKernel {
    fn run(&self, inputs: &[Option<In<'_>>], outputs: &mut [Out<'_>]) -> webnn_core::Result<()> {
        let (Some(Some(a)), Some(Some(ix)), Some(Some(u))) = (inputs.first(), inputs.get(1), inputs.get(2)) else {
            return Ok(());
        };
        let out = &mut outputs[0];
        crate::with_elem!(self.elem, T => crate::with_index!(self.index_type, I =>
            self.go::<T, I>(a.slice(), ix.slice(), u.slice(), out.slice_mut())));
        Ok(())
    }
}

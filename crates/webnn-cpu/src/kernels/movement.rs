//! Data movement ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-concat) concat,
//! [spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-expand) expand,
//! [spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-reshape-method) reshape,
//! [spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-reverse-method) reverse,
//! [spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-slice) slice,
//! [spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-split) split,
//! [spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-tile) tile,
//! [spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-transpose) transpose,
//! [spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-triangular) triangular). All are
//! independent of the element type except for its size. Transpose, slice, reverse, expand, tile and
//! reshape are affine views run by [`StridedCopy`]; concat and split copy contiguous runs;
//! triangular copies row prefixes/suffixes and zero-fills the rest. pad is in `pad.rs`.

use super::strided::{par_memcpy, par_rows, StridedCopy, PAR_MIN_BYTES};
use super::{In, Kernel, Out};
use smallvec::SmallVec;
use webnn_core::graph::{Attrs, Operation};
use webnn_core::view::affine_view;
use webnn_core::{Error, Graph, OpKind, Result};

fn shape_of(s: &[u32]) -> Vec<usize> {
    s.iter().map(|&d| d as usize).collect()
}

fn mismatch(op: &Operation) -> Error {
    Error::operation(format!("{}: attributes do not match the operand shapes", op.kind))
}

/// Every operand of a concat/split has `outer` rows of `chunks[k]` elements.
fn rows_fit(
    op: &Operation,
    graph: &Graph,
    ids: &[webnn_core::OperandId],
    chunks: &[usize],
    whole: u64,
    row: usize,
) -> Result<()> {
    let outer = (whole as usize).checked_div(row).unwrap_or(0);
    let ok = outer * row == whole as usize
        && ids.iter().zip(chunks).all(|(&id, &c)| graph.descriptor(id).element_count() as usize == outer * c);
    if ok {
        Ok(())
    } else {
        Err(mismatch(op))
    }
}

fn bad_attrs(op: &Operation) -> Error {
    Error::operation(format!("{}: unexpected attributes {:?}", op.kind, op.attrs))
}

/// A kernel that runs one [`StridedCopy`] from input 0 to output 0.
struct ViewKernel(StridedCopy);

impl Kernel for ViewKernel {
    fn run(&self, inputs: &[Option<In<'_>>], outputs: &mut [Out<'_>]) -> webnn_core::Result<()> {
        let Some(Some(a)) = inputs.first() else { return Ok(()) };
        self.0.run(a.bytes, outputs[0].bytes);
        Ok(())
    }
}

/// Lowers transpose, slice, reverse, expand, tile and reshape to an affine view.
pub fn lower_view(op: &Operation, graph: &Graph) -> Result<Box<dyn Kernel>> {
    let input = graph.descriptor(op.input(0).ok_or_else(|| Error::operation("missing input"))?);
    let output = graph.descriptor(op.outputs[0]);
    let elem = input.data_type.byte_size();
    let copy = if op.kind == OpKind::Reshape {
        StridedCopy::new(&[output.element_count() as usize], &[1], 0, elem)
    } else {
        let view = affine_view(op, &input.shape, &output.shape).ok_or_else(|| bad_attrs(op))?;
        let strides: Vec<isize> = view.strides.iter().map(|&s| s as isize).collect();
        StridedCopy::new(&shape_of(&view.shape), &strides, view.offset as isize, elem)
    };
    // The view must stay inside the input and fill the output exactly: never index out of
    // bounds in `run`, whatever the attributes.
    if !copy.fits(input.element_count() as usize, output.element_count() as usize) {
        return Err(mismatch(op));
    }
    Ok(Box::new(ViewKernel(copy)))
}

/// concat: every input contributes a contiguous run of `chunks[k]` elements to each of the
/// `outer` output rows (outer = product of the dimensions before the axis).
struct ConcatKernel {
    elem: usize,
    /// Elements each input contributes per outer row.
    chunks: Vec<usize>,
    /// Elements of one output row (sum of `chunks`).
    row: usize,
}

/// Lowers concat (any number of inputs, all entries of `op.inputs`).
pub fn lower_concat(op: &Operation, graph: &Graph) -> Result<Box<dyn Kernel>> {
    let Attrs::Axis { axis } = op.attrs else { return Err(bad_attrs(op)) };
    let output = graph.descriptor(op.outputs[0]);
    let axis = axis as usize;
    let inner: usize = output.shape.iter().skip(axis + 1).map(|&d| d as usize).product();
    let mut chunks = Vec::with_capacity(op.inputs.len());
    for id in &op.inputs {
        let d = graph.descriptor(id.ok_or_else(|| Error::operation("concat: missing input"))?);
        chunks.push(d.shape.get(axis).copied().unwrap_or(1) as usize * inner);
    }
    let row = chunks.iter().sum();
    let ids: Vec<_> = op.inputs.iter().flatten().copied().collect();
    rows_fit(op, graph, &ids, &chunks, output.element_count(), row)?;
    Ok(Box::new(ConcatKernel { elem: output.data_type.byte_size(), chunks, row }))
}

impl ConcatKernel {
    fn go<T: bytemuck::Pod + Send + Sync>(&self, inputs: &[Option<In<'_>>], out: &mut [T]) {
        let ins: SmallVec<[&[T]; 8]> = inputs.iter().map(|i| i.map_or(&[][..], |i| i.slice::<T>())).collect();
        let outer = out.len() / self.row.max(1);
        if outer < crate::par::threads() * 2 && std::mem::size_of_val(out) >= PAR_MIN_BYTES {
            // Few long rows (e.g. concat along axis 0): split every run instead.
            for (g, row) in out.chunks_exact_mut(self.row).enumerate() {
                let mut off = 0;
                for (src, &c) in ins.iter().zip(&self.chunks) {
                    par_memcpy(&mut row[off..off + c], &src[g * c..(g + 1) * c]);
                    off += c;
                }
            }
            return;
        }
        par_rows(out, self.row, |first, rows| {
            for (r, row) in rows.chunks_exact_mut(self.row).enumerate() {
                let g = first + r;
                let mut off = 0;
                for (src, &c) in ins.iter().zip(&self.chunks) {
                    row[off..off + c].copy_from_slice(&src[g * c..(g + 1) * c]);
                    off += c;
                }
            }
        });
    }
}

impl Kernel for ConcatKernel {
    fn run(&self, inputs: &[Option<In<'_>>], outputs: &mut [Out<'_>]) -> webnn_core::Result<()> {
        let out = &mut outputs[0];
        crate::with_elem!(self.elem, T => self.go::<T>(inputs, out.slice_mut()));
        Ok(())
    }
}

/// split: output k takes a contiguous run of `chunks[k]` elements from each input row.
struct SplitKernel {
    elem: usize,
    chunks: Vec<usize>,
    row: usize,
}

/// Lowers split (one output per piece).
pub fn lower_split(op: &Operation, graph: &Graph) -> Result<Box<dyn Kernel>> {
    let Attrs::Split { axis, .. } = op.attrs else { return Err(bad_attrs(op)) };
    let input = graph.descriptor(op.input(0).ok_or_else(|| Error::operation("split: missing input"))?);
    let axis = axis as usize;
    let inner: usize = input.shape.iter().skip(axis + 1).map(|&d| d as usize).product();
    // The output descriptors are authoritative for the piece sizes.
    let chunks: Vec<usize> = op
        .outputs
        .iter()
        .map(|&o| graph.descriptor(o).shape.get(axis).copied().unwrap_or(1) as usize * inner)
        .collect();
    let row = chunks.iter().sum();
    rows_fit(op, graph, &op.outputs, &chunks, input.element_count(), row)?;
    Ok(Box::new(SplitKernel { elem: input.data_type.byte_size(), chunks, row }))
}

impl SplitKernel {
    fn go<T: bytemuck::Pod + Send + Sync>(&self, src: &[T], outputs: &mut [Out<'_>]) {
        let mut off = 0;
        let outer = src.len() / self.row.max(1);
        if outer < crate::par::threads() * 2 && std::mem::size_of_val(src) >= PAR_MIN_BYTES {
            // Few long rows (e.g. split along axis 0): split every run instead.
            for (out, &c) in outputs.iter_mut().zip(&self.chunks) {
                for (g, dst) in out.slice_mut::<T>().chunks_exact_mut(c).enumerate() {
                    let s = g * self.row + off;
                    par_memcpy(dst, &src[s..s + c]);
                }
                off += c;
            }
            return;
        }
        for (out, &c) in outputs.iter_mut().zip(&self.chunks) {
            par_rows(out.slice_mut::<T>(), c, |first, rows| {
                for (r, dst) in rows.chunks_exact_mut(c).enumerate() {
                    let s = (first + r) * self.row + off;
                    dst.copy_from_slice(&src[s..s + c]);
                }
            });
            off += c;
        }
    }
}

impl Kernel for SplitKernel {
    fn run(&self, inputs: &[Option<In<'_>>], outputs: &mut [Out<'_>]) -> webnn_core::Result<()> {
        let Some(Some(a)) = inputs.first() else { return Ok(()) };
        crate::with_elem!(self.elem, T => self.go::<T>(a.slice(), outputs));
        Ok(())
    }
}

/// triangular: over the last two dimensions [rows, cols], keeps `col − row ≥ diagonal`
/// (upper) or `col − row ≤ diagonal` (lower); the rest is zero (all-zero bits in every type).
struct TriangularKernel {
    elem: usize,
    rows: usize,
    cols: usize,
    upper: bool,
    diagonal: i64,
}

/// Lowers triangular.
pub fn lower_triangular(op: &Operation, graph: &Graph) -> Result<Box<dyn Kernel>> {
    let Attrs::Triangular { upper, diagonal } = op.attrs else { return Err(bad_attrs(op)) };
    let output = graph.descriptor(op.outputs[0]);
    let input = graph.descriptor(op.input(0).ok_or_else(|| Error::operation("triangular: missing input"))?);
    let r = output.shape.len();
    if r < 2 || input.shape != output.shape {
        return Err(mismatch(op));
    }
    Ok(Box::new(TriangularKernel {
        elem: output.data_type.byte_size(),
        rows: output.shape[r - 2] as usize,
        cols: output.shape[r - 1] as usize,
        upper,
        diagonal: diagonal as i64,
    }))
}

impl TriangularKernel {
    /// The kept column range `[lo, hi)` of row `row`.
    fn kept(&self, row: usize) -> (usize, usize) {
        let cols = self.cols as i64;
        let edge = row as i64 + self.diagonal;
        if self.upper {
            (edge.clamp(0, cols) as usize, self.cols)
        } else {
            (0, (edge + 1).clamp(0, cols) as usize)
        }
    }

    fn go<T: bytemuck::Pod + Send + Sync>(&self, src: &[T], out: &mut [T]) {
        let cols = self.cols;
        par_rows(out, cols, |first, rows| {
            for (r, dst) in rows.chunks_exact_mut(cols).enumerate() {
                let g = first + r;
                let (lo, hi) = self.kept(g % self.rows);
                let s = &src[g * cols..(g + 1) * cols];
                dst[..lo].fill(T::zeroed());
                dst[lo..hi].copy_from_slice(&s[lo..hi]);
                dst[hi..].fill(T::zeroed());
            }
        });
    }
}

impl Kernel for TriangularKernel {
    fn run(&self, inputs: &[Option<In<'_>>], outputs: &mut [Out<'_>]) -> webnn_core::Result<()> {
        let Some(Some(a)) = inputs.first() else { return Ok(()) };
        let out = &mut outputs[0];
        crate::with_elem!(self.elem, T => self.go::<T>(a.slice(), out.slice_mut()));
        Ok(())
    }
}

#[cfg(test)]
#[path = "movement_tests.rs"]
mod tests;

//! pad ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-pad)): constant, edge and reflection
//! modes, for every data type (data movement on the element size; the constant is already cast to
//! the input type in the attributes).
//!
//! Per dimension, a table maps every output coordinate to its input coordinate (or to "the
//! constant"); the table of the last dimension is only used for the borders, the interior of
//! each row being one contiguous copy.

use super::strided::{par_rows, MAX_DIMS};
use super::{In, Kernel, Out};
use webnn_core::graph::{Attrs, Operation};
use webnn_core::types::PaddingMode;
use webnn_core::{Error, Graph, Result};

/// Output coordinate → input coordinate along one dimension; `-1` is the padding constant.
pub fn pad_map(in_size: usize, begin: usize, out_size: usize, mode: PaddingMode) -> Vec<isize> {
    let n = in_size as isize;
    (0..out_size)
        .map(|o| {
            let i = o as isize - begin as isize;
            if (0..n).contains(&i) {
                return i;
            }
            match mode {
                PaddingMode::Constant => -1,
                PaddingMode::Edge => i.clamp(0, n - 1),
                // Mirror without repeating the edge; validation keeps the padding below the size,
                // the clamp only guards against anything else.
                PaddingMode::Reflection => {
                    let r = if i < 0 { -i } else { 2 * (n - 1) - i };
                    r.clamp(0, n - 1)
                }
            }
        })
        .collect()
}

struct PadKernel {
    elem: usize,
    /// Per dimension: output → input coordinate (−1 = constant).
    maps: Vec<Vec<isize>>,
    in_strides: Vec<usize>,
    out_shape: Vec<usize>,
    /// Beginning padding and input size of the last dimension.
    begin_last: usize,
    in_last: usize,
    /// The constant's little-endian bytes.
    value: [u8; 8],
}

/// Lowers pad.
pub fn lower(op: &Operation, graph: &Graph) -> Result<Box<dyn Kernel>> {
    let Attrs::Pad { beginning, ending, mode, value } = &op.attrs else {
        return Err(Error::operation(format!("pad: unexpected attributes {:?}", op.attrs)));
    };
    let input = graph.descriptor(op.input(0).ok_or_else(|| Error::operation("pad: missing input"))?);
    let output = graph.descriptor(op.outputs[0]);
    let rank = input.shape.len();
    let fits = rank <= MAX_DIMS
        && beginning.len() == rank
        && ending.len() == rank
        && output.shape.len() == rank
        && (0..rank).all(|d| beginning[d] as u64 + input.shape[d] as u64 + ending[d] as u64 == output.shape[d] as u64);
    if !fits {
        return Err(Error::operation("pad: padding does not match the operand shapes"));
    }
    let in_shape: Vec<usize> = input.shape.iter().map(|&d| d as usize).collect();
    let out_shape: Vec<usize> = output.shape.iter().map(|&d| d as usize).collect();
    let maps = (0..rank).map(|d| pad_map(in_shape[d], beginning[d] as usize, out_shape[d], *mode)).collect();
    let mut bytes = [0u8; 8];
    let v = value.to_le_bytes();
    if v.len() == input.data_type.byte_size() {
        bytes[..v.len()].copy_from_slice(&v);
    }
    Ok(Box::new(PadKernel {
        elem: input.data_type.byte_size(),
        maps,
        in_strides: super::util::strides(&input.shape),
        begin_last: beginning.last().copied().unwrap_or(0) as usize,
        in_last: in_shape.last().copied().unwrap_or(1),
        out_shape,
        value: bytes,
    }))
}

impl PadKernel {
    fn go<T: bytemuck::Pod + Send + Sync>(&self, src: &[T], out: &mut [T]) {
        let value: T = bytemuck::pod_read_unaligned(&self.value[..std::mem::size_of::<T>()]);
        let n = self.out_shape.len();
        if n == 0 {
            out[0] = src[0];
            return;
        }
        let last = n - 1;
        let len = self.out_shape[last];
        let (b, w) = (self.begin_last, self.in_last);
        let lmap = &self.maps[last];
        par_rows(out, len, |first, rows| {
            // Multi-index of the first row over the outer dimensions.
            let mut idx = [0usize; MAX_DIMS];
            let mut r = first;
            for d in (0..last).rev() {
                idx[d] = r % self.out_shape[d];
                r /= self.out_shape[d];
            }
            for dst in rows.chunks_exact_mut(len) {
                let mut off = Some(0usize);
                for ((map, &i), &st) in self.maps.iter().zip(&idx[..last]).zip(&self.in_strides) {
                    let m = map[i];
                    off = if m < 0 { None } else { off.map(|o| o + m as usize * st) };
                }
                match off {
                    None => dst.fill(value),
                    Some(o) => {
                        let row = &src[o..o + w];
                        for (j, x) in dst[..b].iter_mut().enumerate() {
                            let m = lmap[j];
                            *x = if m < 0 { value } else { row[m as usize] };
                        }
                        dst[b..b + w].copy_from_slice(row);
                        for (j, x) in dst[b + w..].iter_mut().enumerate() {
                            let m = lmap[b + w + j];
                            *x = if m < 0 { value } else { row[m as usize] };
                        }
                    }
                }
                for d in (0..last).rev() {
                    idx[d] += 1;
                    if idx[d] < self.out_shape[d] {
                        break;
                    }
                    idx[d] = 0;
                }
            }
        });
    }
}

impl Kernel for PadKernel {
    fn run(&self, inputs: &[Option<In<'_>>], outputs: &mut [Out<'_>]) -> webnn_core::Result<()> {
        let Some(Some(a)) = inputs.first() else { return Ok(()) };
        let out = &mut outputs[0];
        crate::with_elem!(self.elem, T => self.go::<T>(a.slice(), out.slice_mut()));
        Ok(())
    }
}

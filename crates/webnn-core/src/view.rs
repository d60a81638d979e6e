//! The data-movement operations that only rearrange their input — transpose, slice, reverse,
//! expand and tile — as affine views of it: every output element reads the input element at
//! `offset + Σ index[d] · strides[d]`. One definition for every backend (the CPU's strided
//! copy, the GPU's index shader).

use crate::graph::{Attrs, Operation};
use crate::ops::OpKind;

/// An affine view of an input: `shape` (the output's, or for tile a finer shape with the same
/// element order) and, per dimension, the step in input elements (negative for reverse, 0
/// along broadcast or repeated dimensions), from `offset`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AffineView {
    /// The dimensions walked, outermost first.
    pub shape: Vec<u32>,
    /// Input elements per step along each dimension of `shape`.
    pub strides: Vec<i64>,
    /// The input element of index 0.
    pub offset: i64,
}

/// Row-major element strides of `shape`.
fn row_major_strides(shape: &[u32]) -> Vec<i64> {
    let mut s = vec![1i64; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1] * shape[i + 1] as i64;
    }
    s
}

/// The view of `op` (transpose, slice, reverse, expand or tile) over an input of `in_shape`
/// giving an output of `out_shape`; None for other ops, or attributes that do not match the
/// shapes (which validation rules out).
pub fn affine_view(op: &Operation, in_shape: &[u32], out_shape: &[u32]) -> Option<AffineView> {
    let rank = in_shape.len();
    let ist = row_major_strides(in_shape);
    let view = |shape: &[u32], strides: Vec<i64>, offset: i64| AffineView { shape: shape.to_vec(), strides, offset };
    Some(match (op.kind, &op.attrs) {
        // outShape[i] = inShape[perm[i]] (decisions.md D21): output dim i walks input dim perm[i].
        (OpKind::Transpose, Attrs::Transpose { permutation }) if permutation.len() == rank => {
            let strides = permutation.iter().map(|&p| ist.get(p as usize).copied()).collect::<Option<_>>()?;
            view(out_shape, strides, 0)
        }
        // output[j] = input[start + j·stride] per dimension.
        (OpKind::Slice, Attrs::Slice { starts, strides, .. }) if starts.len() == rank && strides.len() == rank => {
            let st = (0..rank).map(|d| ist[d] * strides[d] as i64).collect();
            view(out_shape, st, (0..rank).map(|d| ist[d] * starts[d] as i64).sum())
        }
        (OpKind::Reverse, Attrs::Reverse { axes }) => {
            let mut st = ist.clone();
            let mut offset = 0i64;
            for &a in axes {
                let a = a as usize;
                if a < rank && st[a] > 0 {
                    offset += (in_shape[a] as i64 - 1) * ist[a];
                    st[a] = -ist[a];
                }
            }
            view(out_shape, st, offset)
        }
        // Numpy broadcasting (aligned right): stride 0 along broadcast dimensions.
        (OpKind::Expand, _) if out_shape.len() >= rank => {
            let pad = out_shape.len() - rank;
            let st = (0..out_shape.len()).map(|i| if i < pad || in_shape[i - pad] == 1 { 0 } else { ist[i - pad] });
            view(out_shape, st.collect(), 0)
        }
        // out dim i = rep × in_i: the view [rep₀, in₀, rep₁, in₁, …] with strides [0, s₀, 0, s₁, …].
        (OpKind::Tile, Attrs::Tile { repetitions }) if repetitions.len() == rank && out_shape.len() == rank => {
            let mut shape = Vec::with_capacity(2 * rank);
            let mut st = Vec::with_capacity(2 * rank);
            for d in 0..rank {
                if repetitions[d] as u64 * in_shape[d] as u64 != out_shape[d] as u64 {
                    return None;
                }
                shape.extend([repetitions[d], in_shape[d]]);
                st.extend([0, ist[d]]);
            }
            view(&shape, st, 0)
        }
        _ => return None,
    })
}

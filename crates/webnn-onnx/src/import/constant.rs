//! [`Const`]: a tensor known at import time (initializers, `Constant` nodes, folded shape
//! computations), with the data-movement and arithmetic primitives of constant folding.

use super::{invalid, unsupported, NResult};
use crate::tensor::{push_f64, push_i64, read_f64, read_i64, ElemType, TensorData};
use std::cell::OnceCell;
use std::sync::Arc;
use webnn_core::Operand;

/// The element data of a constant.
#[derive(Debug, Clone)]
pub(crate) enum ConstData {
    /// Every element, little-endian.
    Dense(Arc<[u8]>),
    /// One element repeated (ConstantOfShape, Expand of a scalar): kept small even for huge
    /// shapes; materialized as a scalar constant plus `expand`.
    Splat(Arc<[u8]>),
}

/// A tensor known at import time.
#[derive(Debug)]
pub(crate) struct Const {
    pub ty: ElemType,
    pub shape: Vec<usize>,
    pub data: ConstData,
    /// The WebNN constant operand made from this tensor, once one was needed.
    pub operand: OnceCell<Operand>,
}

impl Clone for Const {
    fn clone(&self) -> Self {
        Const { ty: self.ty, shape: self.shape.clone(), data: self.data.clone(), operand: OnceCell::new() }
    }
}

/// Values of a constant widened for arithmetic.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Vals {
    F(Vec<f64>),
    I(Vec<i64>),
}

impl Const {
    pub fn dense(ty: ElemType, shape: Vec<usize>, bytes: Vec<u8>) -> Const {
        Const { ty, shape, data: ConstData::Dense(bytes.into()), operand: OnceCell::new() }
    }

    pub fn splat(ty: ElemType, shape: Vec<usize>, element: Vec<u8>) -> Const {
        Const { ty, shape, data: ConstData::Splat(element.into()), operand: OnceCell::new() }
    }

    pub fn from_tensor(t: TensorData) -> Const {
        Const::dense(t.elem_type, t.shape, t.bytes)
    }

    /// A constant from f64 values converted to `ty` (ONNX Cast rules).
    pub fn from_f64s(ty: ElemType, shape: Vec<usize>, vals: &[f64]) -> Const {
        let mut bytes = Vec::with_capacity(vals.len() * ty.size());
        vals.iter().for_each(|&v| push_f64(ty, v, &mut bytes));
        Const::dense(ty, shape, bytes)
    }

    /// A constant from i64 values converted to `ty`.
    pub fn from_i64s(ty: ElemType, shape: Vec<usize>, vals: &[i64]) -> Const {
        let mut bytes = Vec::with_capacity(vals.len() * ty.size());
        vals.iter().for_each(|&v| push_i64(ty, v, &mut bytes));
        Const::dense(ty, shape, bytes)
    }

    /// A constant from widened values.
    pub fn from_vals(ty: ElemType, shape: Vec<usize>, vals: &Vals) -> Const {
        match vals {
            Vals::F(v) => Const::from_f64s(ty, shape, v),
            Vals::I(v) => Const::from_i64s(ty, shape, v),
        }
    }

    /// A 1-D int64 constant.
    pub fn i64_vec(vals: &[i64]) -> Const {
        Const::from_i64s(ElemType::I64, vec![vals.len()], vals)
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.shape.iter().product()
    }

    /// True if both hold the same element data (one was made from the other without a copy).
    pub fn shares_data(&self, other: &Const) -> bool {
        match (&self.data, &other.data) {
            (ConstData::Dense(a), ConstData::Dense(b)) | (ConstData::Splat(a), ConstData::Splat(b)) => {
                Arc::ptr_eq(a, b)
            }
            _ => false,
        }
    }

    /// Bytes of element data held (one element for a splat).
    pub fn data_bytes(&self) -> usize {
        match &self.data {
            ConstData::Dense(b) | ConstData::Splat(b) => b.len(),
        }
    }

    /// The bytes of element `i`.
    pub fn elem_bytes(&self, i: usize) -> &[u8] {
        let s = self.ty.size();
        match &self.data {
            ConstData::Dense(b) => &b[i * s..(i + 1) * s],
            ConstData::Splat(b) => &b[..s],
        }
    }

    fn bytes_and_index(&self, i: usize) -> (&[u8], usize) {
        match &self.data {
            ConstData::Dense(b) => (b, i),
            ConstData::Splat(b) => (b, 0),
        }
    }

    pub fn f64_at(&self, i: usize) -> f64 {
        let (b, j) = self.bytes_and_index(i);
        read_f64(self.ty, b, j)
    }

    pub fn i64_at(&self, i: usize) -> i64 {
        let (b, j) = self.bytes_and_index(i);
        read_i64(self.ty, b, j)
    }

    /// Every element as f64. Fails (instead of aborting) when the values cannot be held: a
    /// splat can describe far more elements than the file holds, so reading one is bounded.
    pub fn f64s(&self) -> NResult<Vec<f64>> {
        let mut out = self.value_buffer()?;
        out.extend((0..self.len()).map(|i| self.f64_at(i)));
        Ok(out)
    }

    /// Every element as i64 (bounded as [`Const::f64s`]).
    pub fn i64s(&self) -> NResult<Vec<i64>> {
        let mut out = self.value_buffer()?;
        out.extend((0..self.len()).map(|i| self.i64_at(i)));
        Ok(out)
    }

    /// Widened values: f64 for float types, i64 for the others.
    pub fn vals(&self) -> NResult<Vals> {
        Ok(if self.ty.is_float() { Vals::F(self.f64s()?) } else { Vals::I(self.i64s()?) })
    }

    /// An empty vector with room for every element, or why there is none.
    fn value_buffer<T>(&self) -> NResult<Vec<T>> {
        let n = self.len();
        if matches!(self.data, ConstData::Splat(_)) && n > MAX_SPLAT_READ {
            return Err(unsupported(format!(
                "a constant of shape {:?} (one value repeated) is too large to read at import time (more than {MAX_SPLAT_READ} elements)",
                self.shape
            )));
        }
        try_vec(n)
    }

    /// All element bytes (splats expanded).
    pub fn dense_bytes(&self) -> std::borrow::Cow<'_, [u8]> {
        match &self.data {
            ConstData::Dense(b) => std::borrow::Cow::Borrowed(b),
            ConstData::Splat(b) => std::borrow::Cow::Owned(b.repeat(self.len())),
        }
    }

    /// The same data with another shape of the same element count.
    pub fn reshaped(&self, shape: Vec<usize>) -> Const {
        Const { ty: self.ty, shape, data: self.data.clone(), operand: OnceCell::new() }
    }

    /// A constant made of the elements at `indices` (row-major over `shape`).
    pub fn pick(&self, shape: Vec<usize>, indices: impl Iterator<Item = usize>) -> Const {
        if let ConstData::Splat(b) = &self.data {
            return Const { ty: self.ty, shape, data: ConstData::Splat(b.clone()), operand: OnceCell::new() };
        }
        let mut bytes = Vec::with_capacity(shape.iter().product::<usize>() * self.ty.size());
        for i in indices {
            bytes.extend_from_slice(self.elem_bytes(i));
        }
        Const::dense(self.ty, shape, bytes)
    }
}

/// Element count of a shape, saturating instead of overflowing (shapes computed from
/// untrusted values are compared with limits through this).
pub(crate) fn count(shape: &[usize]) -> usize {
    shape.iter().fold(1usize, |acc, &d| acc.saturating_mul(d))
}

/// Largest element count of a constant the importer creates (as for decoded tensors).
pub(crate) const MAX_CONST_ELEMENTS: usize = 1 << 40;

/// A constant shape: every dimension non-negative.
pub(crate) fn dims_to_shape(dims: &[i64]) -> NResult<Vec<usize>> {
    let shape = dims
        .iter()
        .map(|&d| usize::try_from(d).map_err(|_| invalid(format!("shape {dims:?} has a negative dimension"))))
        .collect::<NResult<Vec<usize>>>()?;
    if count(&shape) > MAX_CONST_ELEMENTS {
        return Err(unsupported(format!("shape {dims:?} has too many elements")));
    }
    Ok(shape)
}

/// Largest element count of a splat (one value repeated) whose values are read at import
/// time: a splat's size comes from a few bytes of the file, not from data the file holds.
pub(crate) const MAX_SPLAT_READ: usize = 1 << 24;

/// An empty vector with room for `n` elements, or an error (never an abort) when the memory
/// cannot be had.
pub(crate) fn try_vec<T>(n: usize) -> NResult<Vec<T>> {
    let mut v = Vec::new();
    v.try_reserve_exact(n)
        .map_err(|e| unsupported(format!("cannot allocate {n} elements for a constant at import time ({e})")))?;
    Ok(v)
}

/// Row-major strides of `shape`.
pub(crate) fn strides(shape: &[usize]) -> Vec<usize> {
    let mut s = vec![1; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1] * shape[i + 1];
    }
    s
}

/// Numpy (multidirectional) broadcast of two shapes.
pub(crate) fn broadcast_shapes(a: &[usize], b: &[usize]) -> Option<Vec<usize>> {
    let rank = a.len().max(b.len());
    let mut out = vec![0; rank];
    for i in 0..rank {
        let da = if i + a.len() >= rank { a[i + a.len() - rank] } else { 1 };
        let db = if i + b.len() >= rank { b[i + b.len() - rank] } else { 1 };
        out[i] = if da == db || db == 1 {
            da
        } else if da == 1 {
            db
        } else {
            return None;
        };
    }
    Some(out)
}

/// For every element of `out_shape` (row-major), the index of the element of a tensor of
/// shape `in_shape` that broadcasts to it.
pub(crate) fn broadcast_indices(in_shape: &[usize], out_shape: &[usize]) -> Vec<usize> {
    let n: usize = out_shape.iter().product();
    let rank = out_shape.len();
    let offset = rank - in_shape.len();
    let in_strides = strides(in_shape);
    let mut idx = vec![0usize; rank];
    let mut result = Vec::with_capacity(n);
    for _ in 0..n {
        let mut src = 0;
        for d in 0..in_shape.len() {
            if in_shape[d] != 1 {
                src += idx[d + offset] * in_strides[d];
            }
        }
        result.push(src);
        for d in (0..rank).rev() {
            idx[d] += 1;
            if idx[d] < out_shape[d] {
                break;
            }
            idx[d] = 0;
        }
    }
    result
}

/// Iterates over the multi-indices of `shape` in row-major order, calling `f` with each.
pub(crate) fn for_each_index(shape: &[usize], mut f: impl FnMut(&[usize])) {
    let n: usize = shape.iter().product();
    let mut idx = vec![0usize; shape.len()];
    for _ in 0..n {
        f(&idx);
        for d in (0..shape.len()).rev() {
            idx[d] += 1;
            if idx[d] < shape[d] {
                break;
            }
            idx[d] = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broadcasting() {
        assert_eq!(broadcast_shapes(&[2, 1, 3], &[4, 1]), Some(vec![2, 4, 3]));
        assert_eq!(broadcast_shapes(&[2], &[3]), None);
        assert_eq!(broadcast_indices(&[2, 1], &[2, 3]), vec![0, 0, 0, 1, 1, 1]);
        assert_eq!(broadcast_indices(&[3], &[2, 3]), vec![0, 1, 2, 0, 1, 2]);
        assert_eq!(broadcast_indices(&[], &[2]), vec![0, 0]);
    }

    #[test]
    fn values_round_trip() {
        let c = Const::from_i64s(ElemType::I32, vec![3], &[-1, 2, 300]);
        assert_eq!(c.i64s().unwrap(), vec![-1, 2, 300]);
        let c = Const::from_f64s(ElemType::F16, vec![2], &[0.5, -2.0]);
        assert_eq!(c.f64s().unwrap(), vec![0.5, -2.0]);
        let s = Const::splat(ElemType::F32, vec![2, 2], 1.5f32.to_le_bytes().to_vec());
        assert_eq!(s.f64s().unwrap(), vec![1.5; 4]);
        assert_eq!(s.dense_bytes().len(), 16);
    }
}

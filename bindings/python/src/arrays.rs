//! numpy arrays ↔ the little-endian element bytes the engine takes and gives.
//!
//! Writes borrow the array's own memory (no copy before the engine's one); reads fill a new
//! array that owns its buffer. The Python layer (`webnn/_arrays.py`) has already turned lists,
//! scalars and non-contiguous or byte-swapped arrays into C-contiguous native arrays; anything
//! else reaching here is a TypeError.

use crate::errors::type_error;
use numpy::{Element, PyArrayDyn, PyArrayMethods, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::prelude::*;
use webnn::DataType;

/// Evaluates `$body` with the type alias `$T` naming the numpy element type of `$dt`.
macro_rules! with_element {
    ($dt:expr, $T:ident => $body:expr) => {{
        match $dt {
            DataType::Float32 => {
                type $T = f32;
                $body
            }
            DataType::Float16 => {
                type $T = half::f16;
                $body
            }
            DataType::Int32 => {
                type $T = i32;
                $body
            }
            DataType::Uint32 => {
                type $T = u32;
                $body
            }
            DataType::Int64 => {
                type $T = i64;
                $body
            }
            DataType::Uint64 => {
                type $T = u64;
                $body
            }
            DataType::Int8 => {
                type $T = i8;
                $body
            }
            DataType::Uint8 => {
                type $T = u8;
                $body
            }
        }
    }};
}

/// What an argument is, for messages: `a numpy array of dtype <f8`, `list`...
fn describe(value: &Bound<'_, PyAny>) -> String {
    match value.cast::<PyUntypedArray>() {
        Ok(a) => format!("a numpy array of dtype {}", a.dtype().str().map(|s| s.to_string()).unwrap_or_default()),
        Err(_) => value.get_type().name().map(|n| n.to_string()).unwrap_or_default(),
    }
}

/// The result of the first access that applies to `value`: `typed` (an array of `data_type`'s
/// dtype), else `raw()` (uint8 bytes, tried for the other data types only). Anything else is a
/// TypeError naming `what` and the array expected (`a` or `a writable` numpy array).
fn typed_or_raw<R>(
    typed: Option<PyResult<R>>,
    raw: impl FnOnce() -> Option<PyResult<R>>,
    value: &Bound<'_, PyAny>,
    data_type: DataType,
    what: &str,
    a: &str,
) -> PyResult<R> {
    if let Some(result) = typed {
        return result;
    }
    if data_type != DataType::Uint8 {
        if let Some(result) = raw() {
            return result;
        }
    }
    Err(type_error(format!(
        "{what}: expected {a} numpy array of dtype {} (or uint8 bytes), got {}",
        data_type.as_str(),
        describe(value)
    )))
}

/// The bytes of a C-contiguous array of `T`, if `value` is one; `f` runs while it is borrowed.
fn typed_bytes<T: Element + bytemuck::Pod, R>(
    value: &Bound<'_, PyAny>,
    what: &str,
    f: impl FnOnce(&[u8]) -> R,
) -> Option<PyResult<R>> {
    let array = value.cast::<PyArrayDyn<T>>().ok()?;
    Some((|| {
        let view = array.try_readonly().map_err(|e| type_error(format!("{what}: {e}")))?;
        let slice = view.as_slice().map_err(|_| type_error(format!("{what}: the array is not C-contiguous")))?;
        Ok(f(bytemuck::cast_slice(slice)))
    })())
}

/// Calls `f` with the element bytes of `value` for `data_type`: a C-contiguous numpy array of
/// that data type's dtype, or of uint8 (raw bytes, as the spec lets a Uint8Array hold any
/// data type). `what` names the argument in the TypeError for anything else.
pub fn with_bytes<R>(
    value: &Bound<'_, PyAny>,
    data_type: DataType,
    what: &str,
    f: impl FnOnce(&[u8]) -> R,
) -> PyResult<R> {
    let mut f = Some(f);
    let mut call = |bytes: &[u8]| (f.take().expect("called once"))(bytes);
    let typed = with_element!(data_type, T => typed_bytes::<T, R>(value, what, &mut call));
    typed_or_raw(typed, || typed_bytes::<u8, R>(value, what, &mut call), value, data_type, what, "a")
}

/// The mutable bytes of a C-contiguous writable array of `T`, if `value` is one.
fn typed_bytes_mut<T: Element + bytemuck::Pod, R>(
    value: &Bound<'_, PyAny>,
    what: &str,
    f: impl FnOnce(&mut [u8]) -> R,
) -> Option<PyResult<R>> {
    let array = value.cast::<PyArrayDyn<T>>().ok()?;
    Some((|| {
        let mut view =
            array.try_readwrite().map_err(|e| type_error(format!("{what}: the array is not writable ({e})")))?;
        let slice = view.as_slice_mut().map_err(|_| type_error(format!("{what}: the array is not C-contiguous")))?;
        Ok(f(bytemuck::cast_slice_mut(slice)))
    })())
}

/// Calls `f` with the writable element bytes of `value` (the BYOB form of `readTensor`): a
/// writable C-contiguous array of `data_type`'s dtype or of uint8.
pub fn with_bytes_mut<R>(
    value: &Bound<'_, PyAny>,
    data_type: DataType,
    what: &str,
    f: impl FnOnce(&mut [u8]) -> R,
) -> PyResult<R> {
    let mut f = Some(f);
    let mut call = |bytes: &mut [u8]| (f.take().expect("called once"))(bytes);
    let typed = with_element!(data_type, T => typed_bytes_mut::<T, R>(value, what, &mut call));
    typed_or_raw(typed, || typed_bytes_mut::<u8, R>(value, what, &mut call), value, data_type, what, "a writable")
}

/// A new zero-filled C-contiguous array of `data_type` and `shape`, owning its buffer.
pub fn zeros<'py>(py: Python<'py>, data_type: DataType, shape: &[u32]) -> Bound<'py, PyUntypedArray> {
    let dims: Vec<usize> = shape.iter().map(|&d| d as usize).collect();
    with_element!(data_type, T => PyArrayDyn::<T>::zeros(py, dims, false).into_any().cast_into::<PyUntypedArray>().expect("an ndarray"))
}

/// A new array of `data_type` and `shape` holding `bytes` (one copy).
pub fn from_bytes<'py>(
    py: Python<'py>,
    data_type: DataType,
    shape: &[u32],
    bytes: &[u8],
) -> PyResult<Bound<'py, PyUntypedArray>> {
    let array = zeros(py, data_type, shape);
    with_bytes_mut(array.as_any(), data_type, "readTensor", |out| {
        if out.len() == bytes.len() {
            out.copy_from_slice(bytes);
            Ok(())
        } else {
            Err(crate::errors::UnknownError::new_err(format!(
                "readTensor: the tensor gave {} bytes for {} expected",
                bytes.len(),
                out.len()
            )))
        }
    })??;
    Ok(array)
}

/// An `MLOperandDataType` string as a `DataType` (a TypeError otherwise).
pub fn parse_data_type(name: &str) -> PyResult<DataType> {
    name.parse::<DataType>().map_err(crate::errors::to_py)
}

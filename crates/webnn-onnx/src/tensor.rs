//! ONNX element types and the decoding of `TensorProto` (typed fields, `raw_data` and external
//! data files) into little-endian bytes.

use crate::error::{OnnxError, Result};
use crate::proto::{data_type as dt, TensorProto, DATA_LOCATION_EXTERNAL};
use half::f16;
use std::path::Path;
use webnn_core::DataType;

/// The ONNX element types the importer can hold. `Bool` is stored as one byte (0 or 1) and
/// becomes WebNN `uint8`; `F64`, `I16` and `U16` exist for constant folding and test data only
/// (WebNN has no such types).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ElemType {
    /// FLOAT
    F32,
    /// FLOAT16
    F16,
    /// DOUBLE
    F64,
    /// INT8
    I8,
    /// UINT8
    U8,
    /// INT16
    I16,
    /// UINT16
    U16,
    /// INT32
    I32,
    /// UINT32
    U32,
    /// INT64
    I64,
    /// UINT64
    U64,
    /// BOOL
    Bool,
}

impl ElemType {
    /// The element type of an ONNX `TensorProto.DataType` code, or `None` for types the
    /// importer cannot hold (strings, complex, bfloat16, 8/4-bit floats, 4-bit ints).
    pub fn from_onnx(code: i32) -> Option<ElemType> {
        Some(match code {
            dt::FLOAT => ElemType::F32,
            dt::FLOAT16 => ElemType::F16,
            dt::DOUBLE => ElemType::F64,
            dt::INT8 => ElemType::I8,
            dt::UINT8 => ElemType::U8,
            dt::INT16 => ElemType::I16,
            dt::UINT16 => ElemType::U16,
            dt::INT32 => ElemType::I32,
            dt::UINT32 => ElemType::U32,
            dt::INT64 => ElemType::I64,
            dt::UINT64 => ElemType::U64,
            dt::BOOL => ElemType::Bool,
            _ => return None,
        })
    }

    /// The ONNX `TensorProto.DataType` code.
    pub fn onnx_code(self) -> i32 {
        match self {
            ElemType::F32 => dt::FLOAT,
            ElemType::F16 => dt::FLOAT16,
            ElemType::F64 => dt::DOUBLE,
            ElemType::I8 => dt::INT8,
            ElemType::U8 => dt::UINT8,
            ElemType::I16 => dt::INT16,
            ElemType::U16 => dt::UINT16,
            ElemType::I32 => dt::INT32,
            ElemType::U32 => dt::UINT32,
            ElemType::I64 => dt::INT64,
            ElemType::U64 => dt::UINT64,
            ElemType::Bool => dt::BOOL,
        }
    }

    /// The ONNX name (`FLOAT`, `INT64`...).
    pub fn name(self) -> &'static str {
        dt::name(self.onnx_code())
    }

    /// Bytes per element.
    pub fn size(self) -> usize {
        match self {
            ElemType::F64 | ElemType::I64 | ElemType::U64 => 8,
            ElemType::F32 | ElemType::I32 | ElemType::U32 => 4,
            ElemType::F16 | ElemType::I16 | ElemType::U16 => 2,
            ElemType::I8 | ElemType::U8 | ElemType::Bool => 1,
        }
    }

    /// The WebNN data type holding this ONNX type (bool → uint8), if any.
    pub fn webnn(self) -> Option<DataType> {
        Some(match self {
            ElemType::F32 => DataType::Float32,
            ElemType::F16 => DataType::Float16,
            ElemType::I8 => DataType::Int8,
            ElemType::U8 | ElemType::Bool => DataType::Uint8,
            ElemType::I32 => DataType::Int32,
            ElemType::U32 => DataType::Uint32,
            ElemType::I64 => DataType::Int64,
            ElemType::U64 => DataType::Uint64,
            ElemType::F64 | ElemType::I16 | ElemType::U16 => return None,
        })
    }

    /// The ONNX type a WebNN data type stands for (uint8 → UINT8).
    pub fn from_webnn(t: DataType) -> ElemType {
        match t {
            DataType::Float32 => ElemType::F32,
            DataType::Float16 => ElemType::F16,
            DataType::Int8 => ElemType::I8,
            DataType::Uint8 => ElemType::U8,
            DataType::Int32 => ElemType::I32,
            DataType::Uint32 => ElemType::U32,
            DataType::Int64 => ElemType::I64,
            DataType::Uint64 => ElemType::U64,
        }
    }

    /// True for the floating-point types.
    pub fn is_float(self) -> bool {
        matches!(self, ElemType::F32 | ElemType::F16 | ElemType::F64)
    }

    /// True for the signed integer types.
    pub fn is_signed_int(self) -> bool {
        matches!(self, ElemType::I8 | ElemType::I16 | ElemType::I32 | ElemType::I64)
    }
}

impl std::fmt::Display for ElemType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A decoded tensor: element type, shape and little-endian element bytes (bool as 0/1 bytes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TensorData {
    /// Element type.
    pub elem_type: ElemType,
    /// Dimensions (may contain zeros: empty tensors exist in ONNX).
    pub shape: Vec<usize>,
    /// `product(shape) * elem_type.size()` bytes.
    pub bytes: Vec<u8>,
    /// The tensor's name in the proto.
    pub name: String,
}

impl TensorData {
    /// Number of elements.
    pub fn element_count(&self) -> usize {
        self.shape.iter().product()
    }

    /// Decodes a serialized `TensorProto` (e.g. the `input_0.pb` files of the ONNX backend
    /// tests). External data is rejected: there is no base directory.
    pub fn decode(bytes: &[u8]) -> Result<TensorData> {
        let proto: TensorProto =
            prost::Message::decode(bytes).map_err(|e| OnnxError::Malformed(format!("TensorProto: {e}")))?;
        decode_tensor(&proto, None)
    }
}

/// Largest element count the importer accepts for one tensor (2^40): far above any real model,
/// small enough that byte sizes never overflow.
const MAX_ELEMENTS: u64 = 1 << 40;

/// Validates ONNX dims and returns them as `usize`.
pub(crate) fn checked_shape(dims: &[i64], what: &str) -> Result<Vec<usize>> {
    let mut count: u64 = 1;
    let mut shape = Vec::with_capacity(dims.len());
    for &d in dims {
        if d < 0 {
            return Err(OnnxError::Malformed(format!("{what}: negative dimension {d} in {dims:?}")));
        }
        count = count.saturating_mul(d as u64);
        if count > MAX_ELEMENTS {
            return Err(OnnxError::Malformed(format!("{what}: shape {dims:?} has too many elements")));
        }
        shape.push(d as usize);
    }
    Ok(shape)
}

/// Decodes a `TensorProto` into bytes. `base_dir` is where external data files are looked
/// up (relative paths only, never outside `base_dir`).
pub(crate) fn decode_tensor(t: &TensorProto, base_dir: Option<&Path>) -> Result<TensorData> {
    let name = t.name.clone().unwrap_or_default();
    let what = format!("tensor '{name}'");
    let code = t.data_type.unwrap_or(dt::UNDEFINED);
    let elem_type = ElemType::from_onnx(code).ok_or_else(|| {
        OnnxError::Unsupported(format!("{what} has data type {} which the importer cannot hold", dt::name(code)))
    })?;
    if t.segment.is_some() {
        return Err(OnnxError::Unsupported(format!("{what} is segmented (TensorProto.segment)")));
    }
    let shape = checked_shape(&t.dims, &what)?;
    // checked_shape bounds the count by MAX_ELEMENTS, so these cannot overflow; stay checked
    // all the same.
    let count = shape.iter().try_fold(1usize, |n, &d| n.checked_mul(d)).ok_or_else(|| too_large(&what, &shape))?;
    let byte_len = count.checked_mul(elem_type.size()).ok_or_else(|| too_large(&what, &shape))?;
    let bytes = if t.data_location == Some(DATA_LOCATION_EXTERNAL) {
        crate::external::read_external(t, base_dir, byte_len, &what)?
    } else if let Some(raw) = &t.raw_data {
        if raw.len() != byte_len {
            return Err(OnnxError::Malformed(format!(
                "{what}: raw_data has {} bytes but shape {:?} of {elem_type} needs {byte_len}",
                raw.len(),
                shape
            )));
        }
        let mut bytes = alloc_bytes(byte_len, &what)?;
        if elem_type == ElemType::Bool {
            bytes.extend(raw.iter().map(|&b| (b != 0) as u8));
        } else {
            bytes.extend_from_slice(raw);
        }
        bytes
    } else {
        typed_field_bytes(t, elem_type, count, &what)?
    };
    Ok(TensorData { elem_type, shape, bytes, name })
}

fn too_large(what: &str, shape: &[usize]) -> OnnxError {
    OnnxError::Malformed(format!("{what}: shape {shape:?} is too large"))
}

/// An empty buffer with room for `len` bytes, or an error naming the tensor when the memory
/// cannot be had. Every buffer sized by a file is made here, after the size was checked
/// against the data the file really holds.
pub(crate) fn alloc_bytes(len: usize, what: &str) -> Result<Vec<u8>> {
    let mut v = Vec::new();
    v.try_reserve_exact(len)
        .map_err(|e| OnnxError::Unsupported(format!("{what}: cannot allocate {len} bytes ({e})")))?;
    Ok(v)
}

fn count_mismatch(what: &str, field: &str, got: usize, count: usize) -> OnnxError {
    OnnxError::Malformed(format!("{what}: {field} has {got} values but the shape needs {count}"))
}

/// Reads the typed repeated field that holds the data of `elem_type`. The field's length is
/// compared with the shape's element count before anything is allocated.
fn typed_field_bytes(t: &TensorProto, elem_type: ElemType, count: usize, what: &str) -> Result<Vec<u8>> {
    let (field, len) = match elem_type {
        ElemType::F32 => ("float_data", t.float_data.len()),
        ElemType::F64 => ("double_data", t.double_data.len()),
        ElemType::I64 => ("int64_data", t.int64_data.len()),
        ElemType::U32 | ElemType::U64 => ("uint64_data", t.uint64_data.len()),
        // int32_data holds every type of 32 bits or fewer, one value per entry (float16 as
        // its bit pattern).
        _ => ("int32_data", t.int32_data.len()),
    };
    if len != count {
        return Err(count_mismatch(what, field, len, count));
    }
    // count equals the length of a field already in memory: this product cannot overflow.
    let mut out = alloc_bytes(count * elem_type.size(), what)?;
    match elem_type {
        ElemType::F32 => t.float_data.iter().for_each(|v| out.extend_from_slice(&v.to_le_bytes())),
        ElemType::F64 => t.double_data.iter().for_each(|v| out.extend_from_slice(&v.to_le_bytes())),
        ElemType::I64 => t.int64_data.iter().for_each(|v| out.extend_from_slice(&v.to_le_bytes())),
        ElemType::U32 => t.uint64_data.iter().for_each(|&v| out.extend_from_slice(&(v as u32).to_le_bytes())),
        ElemType::U64 => t.uint64_data.iter().for_each(|v| out.extend_from_slice(&v.to_le_bytes())),
        _ => {
            for &v in &t.int32_data {
                match elem_type {
                    ElemType::I32 => out.extend_from_slice(&v.to_le_bytes()),
                    ElemType::I16 | ElemType::U16 | ElemType::F16 => out.extend_from_slice(&(v as u16).to_le_bytes()),
                    ElemType::Bool => out.push((v != 0) as u8),
                    _ => out.push(v as u8),
                }
            }
        }
    }
    Ok(out)
}

/// Reads element `i` of `bytes` (of type `ty`) as f64.
pub(crate) fn read_f64(ty: ElemType, bytes: &[u8], i: usize) -> f64 {
    let s = ty.size();
    let b = &bytes[i * s..(i + 1) * s];
    match ty {
        ElemType::F32 => f32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f64,
        ElemType::F16 => f16::from_bits(u16::from_le_bytes([b[0], b[1]])).to_f64(),
        ElemType::F64 => f64::from_le_bytes(b.try_into().unwrap_or([0; 8])),
        _ => read_i64(ty, bytes, i) as f64,
    }
}

/// Reads element `i` of `bytes` (of type `ty`) as i64 (floats truncate toward zero; uint64
/// keeps its bit pattern).
pub(crate) fn read_i64(ty: ElemType, bytes: &[u8], i: usize) -> i64 {
    let s = ty.size();
    let b = &bytes[i * s..(i + 1) * s];
    match ty {
        ElemType::I8 => b[0] as i8 as i64,
        ElemType::U8 | ElemType::Bool => b[0] as i64,
        ElemType::I16 => i16::from_le_bytes([b[0], b[1]]) as i64,
        ElemType::U16 => u16::from_le_bytes([b[0], b[1]]) as i64,
        ElemType::I32 => i32::from_le_bytes([b[0], b[1], b[2], b[3]]) as i64,
        ElemType::U32 => u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as i64,
        ElemType::I64 | ElemType::U64 => i64::from_le_bytes(b.try_into().unwrap_or([0; 8])),
        ElemType::F32 | ElemType::F16 | ElemType::F64 => {
            let v = read_f64(ty, bytes, i);
            if v.is_nan() {
                0
            } else {
                v as i64
            }
        }
    }
}

/// Appends `v` converted to `ty` (ONNX Cast semantics from a float: round to nearest for float
/// targets, truncate toward zero then wrap for integers, `!= 0` for bool).
pub(crate) fn push_f64(ty: ElemType, v: f64, out: &mut Vec<u8>) {
    match ty {
        ElemType::F32 => out.extend_from_slice(&(v as f32).to_le_bytes()),
        ElemType::F16 => out.extend_from_slice(&f16::from_f64(v).to_bits().to_le_bytes()),
        ElemType::F64 => out.extend_from_slice(&v.to_le_bytes()),
        ElemType::Bool => out.push((v != 0.0) as u8),
        _ => {
            let i = if v.is_nan() {
                0
            } else if v >= 9.2e18 {
                i64::MAX
            } else if v <= -9.2e18 {
                i64::MIN
            } else {
                v as i64
            };
            push_i64(ty, i, out)
        }
    }
}

/// Appends `v` converted to `ty` (integers wrap to the narrower type, bool is `!= 0`).
pub(crate) fn push_i64(ty: ElemType, v: i64, out: &mut Vec<u8>) {
    match ty {
        ElemType::I8 | ElemType::U8 => out.push(v as u8),
        ElemType::Bool => out.push((v != 0) as u8),
        ElemType::I16 | ElemType::U16 => out.extend_from_slice(&(v as u16).to_le_bytes()),
        ElemType::I32 | ElemType::U32 => out.extend_from_slice(&(v as u32).to_le_bytes()),
        ElemType::I64 | ElemType::U64 => out.extend_from_slice(&v.to_le_bytes()),
        ElemType::F32 => out.extend_from_slice(&(v as f32).to_le_bytes()),
        ElemType::F16 => out.extend_from_slice(&f16::from_f64(v as f64).to_bits().to_le_bytes()),
        ElemType::F64 => out.extend_from_slice(&(v as f64).to_le_bytes()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn proto(code: i32, dims: Vec<i64>) -> TensorProto {
        TensorProto { data_type: Some(code), dims, ..Default::default() }
    }

    #[test]
    fn typed_fields_decode() {
        let mut t = proto(dt::FLOAT16, vec![2]);
        t.int32_data = vec![0x3c00, 0xc000];
        let d = decode_tensor(&t, None).unwrap();
        assert_eq!(d.bytes, vec![0x00, 0x3c, 0x00, 0xc0]);
        let mut t = proto(dt::BOOL, vec![3]);
        t.int32_data = vec![0, 1, 5];
        assert_eq!(decode_tensor(&t, None).unwrap().bytes, vec![0, 1, 1]);
        let mut t = proto(dt::UINT32, vec![1]);
        t.uint64_data = vec![7];
        assert_eq!(decode_tensor(&t, None).unwrap().bytes, 7u32.to_le_bytes().to_vec());
    }

    #[test]
    fn inconsistent_sizes_are_malformed() {
        let mut t = proto(dt::FLOAT, vec![2, 2]);
        t.float_data = vec![1.0];
        assert!(matches!(decode_tensor(&t, None), Err(OnnxError::Malformed(_))));
        let mut t = proto(dt::FLOAT, vec![2]);
        t.raw_data = Some(vec![0; 7]);
        assert!(matches!(decode_tensor(&t, None), Err(OnnxError::Malformed(_))));
        let t = proto(dt::FLOAT, vec![-1]);
        assert!(matches!(decode_tensor(&t, None), Err(OnnxError::Malformed(_))));
        let t = proto(dt::FLOAT, vec![1 << 30, 1 << 30, 1 << 30]);
        assert!(matches!(decode_tensor(&t, None), Err(OnnxError::Malformed(_))));
        let t = proto(dt::STRING, vec![1]);
        assert!(matches!(decode_tensor(&t, None), Err(OnnxError::Unsupported(_))));
    }

    #[test]
    fn external_data_paths_stay_inside_the_base_dir() {
        let mut t = proto(dt::FLOAT, vec![1]);
        t.data_location = Some(DATA_LOCATION_EXTERNAL);
        t.external_data = vec![crate::proto::StringStringEntryProto {
            key: Some("location".into()),
            value: Some("../secret.bin".into()),
        }];
        let err = decode_tensor(&t, Some(Path::new("/tmp"))).unwrap_err();
        assert!(err.to_string().contains("relative path"), "{err}");
        let err = decode_tensor(&t, None).unwrap_err();
        assert!(err.to_string().contains("base directory"), "{err}");
    }
}

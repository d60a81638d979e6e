//! NumPy `.npy` files (format versions 1.0, 2.0 and 3.0) through the `npyz` crate.
//!
//! Supported: `float32`, `float16`, `int32`, `uint32`, `int64`, `uint64`, `int8`, `uint8` and
//! `bool` (read as `uint8`), little- or big-endian, in C order, of rank at most [`MAX_RANK`].
//! Arrays are held as little-endian bytes; files are written little-endian, with the header
//! padded so that the data starts at a multiple of 64 bytes, as NumPy does. Everything else
//! (Fortran order, other dtypes, truncated or inconsistent files, bool bytes other than 0 and
//! 1) is an error, never a panic.

use anyhow::{anyhow, bail, Context as _, Result};
use half::f16;
use npyz::{DType, NpyFile, Order, TypeChar, TypeStr, WriterBuilder};
use std::path::Path;
use webnn::DataType;

/// The largest rank read or written: NumPy's own (`NPY_MAXDIMS` of NumPy 2).
pub const MAX_RANK: usize = 64;

/// The largest header read. Headers of arrays up to [`MAX_RANK`] take a few hundred bytes.
const MAX_HEADER_BYTES: usize = 1 << 16;

/// The deepest nesting of brackets read in a header. A plain array's header nests 2 deep
/// (structured dtypes, which are not read, deeper). The Python-literal parser backtracks into
/// every unclosed bracket, so its time grows about 3× per level: a 100-byte header of 16
/// unclosed `{` took over 20 s (found by the `npy` fuzz target), 4 take milliseconds.
const MAX_HEADER_NESTING: usize = 4;

const MAGIC: &[u8; 6] = b"\x93NUMPY";

/// The element type of an `.npy` array.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NpyDtype {
    /// `<f4`
    F32,
    /// `<f2`
    F16,
    /// `<i4`
    I32,
    /// `<u4`
    U32,
    /// `<i8`
    I64,
    /// `<u8`
    U64,
    /// `|i1`
    I8,
    /// `|u1`
    U8,
    /// `|b1`: one byte per element, 0 or 1
    Bool,
}

impl NpyDtype {
    /// The `descr` string written in headers.
    pub fn descr(self) -> &'static str {
        match self {
            NpyDtype::F32 => "<f4",
            NpyDtype::F16 => "<f2",
            NpyDtype::I32 => "<i4",
            NpyDtype::U32 => "<u4",
            NpyDtype::I64 => "<i8",
            NpyDtype::U64 => "<u8",
            NpyDtype::I8 => "|i1",
            NpyDtype::U8 => "|u1",
            NpyDtype::Bool => "|b1",
        }
    }

    /// Bytes per element (those of the WebNN data type holding them).
    pub fn size(self) -> usize {
        self.data_type().byte_size()
    }

    /// The dtype of a header's type string (either byte order).
    fn from_type_str(t: &TypeStr) -> Result<NpyDtype> {
        Ok(match (t.type_char(), t.size_field()) {
            (TypeChar::Float, 4) => NpyDtype::F32,
            (TypeChar::Float, 2) => NpyDtype::F16,
            (TypeChar::Int, 4) => NpyDtype::I32,
            (TypeChar::Uint, 4) => NpyDtype::U32,
            (TypeChar::Int, 8) => NpyDtype::I64,
            (TypeChar::Uint, 8) => NpyDtype::U64,
            (TypeChar::Int, 1) => NpyDtype::I8,
            (TypeChar::Uint, 1) => NpyDtype::U8,
            (TypeChar::Bool, 1) => NpyDtype::Bool,
            _ => bail!("unsupported .npy dtype '{t}' (supported: f4 f2 i4 u4 i8 u8 i1 u1 b1)"),
        })
    }

    /// The WebNN data type holding these elements (`bool` becomes `uint8`).
    pub fn data_type(self) -> DataType {
        match self {
            NpyDtype::F32 => DataType::Float32,
            NpyDtype::F16 => DataType::Float16,
            NpyDtype::I32 => DataType::Int32,
            NpyDtype::U32 => DataType::Uint32,
            NpyDtype::I64 => DataType::Int64,
            NpyDtype::U64 => DataType::Uint64,
            NpyDtype::I8 => DataType::Int8,
            NpyDtype::U8 | NpyDtype::Bool => DataType::Uint8,
        }
    }

    /// The `.npy` dtype of a WebNN data type.
    pub fn from_data_type(data_type: DataType) -> NpyDtype {
        match data_type {
            DataType::Float32 => NpyDtype::F32,
            DataType::Float16 => NpyDtype::F16,
            DataType::Int32 => NpyDtype::I32,
            DataType::Uint32 => NpyDtype::U32,
            DataType::Int64 => NpyDtype::I64,
            DataType::Uint64 => NpyDtype::U64,
            DataType::Int8 => NpyDtype::I8,
            DataType::Uint8 => NpyDtype::U8,
        }
    }
}

/// An array read from or written to a `.npy` file: little-endian element bytes in C order.
#[derive(Debug, Clone, PartialEq)]
pub struct NpyArray {
    /// Element type.
    pub dtype: NpyDtype,
    /// Dimensions (empty for a scalar).
    pub shape: Vec<usize>,
    /// Element bytes, little-endian, C order.
    pub data: Vec<u8>,
}

#[cfg(test)]
impl NpyArray {
    /// Number of elements (1 for a scalar).
    pub fn element_count(&self) -> usize {
        self.shape.iter().product()
    }
}

/// An element type npyz reads and writes, and its little-endian bytes.
trait Element: npyz::Deserialize + npyz::Serialize + Sized {
    /// Appends the element's little-endian bytes.
    fn put_le(self, out: &mut Vec<u8>);
    /// The element of `bytes` (exactly its size), or None if they hold no valid element.
    fn from_le(bytes: &[u8]) -> Option<Self>;
}

macro_rules! numeric_elements {
    ($($t:ty),*) => {$(
        impl Element for $t {
            fn put_le(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
            fn from_le(bytes: &[u8]) -> Option<Self> {
                Some(<$t>::from_le_bytes(bytes.try_into().ok()?))
            }
        }
    )*};
}

numeric_elements!(f32, f16, i32, u32, i64, u64, i8, u8);

impl Element for bool {
    fn put_le(self, out: &mut Vec<u8>) {
        out.push(self as u8);
    }
    fn from_le(bytes: &[u8]) -> Option<Self> {
        match bytes {
            [0] => Some(false),
            [1] => Some(true),
            _ => None,
        }
    }
}

/// Reads a `.npy` file.
pub fn read(path: &Path) -> Result<NpyArray> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    parse(&bytes).with_context(|| format!("{} is not a supported .npy file", path.display()))
}

/// Parses the bytes of a `.npy` file.
pub fn parse(bytes: &[u8]) -> Result<NpyArray> {
    check_header(bytes)?;
    let file = NpyFile::new(bytes).map_err(npyz_error)?;
    let header = file.header().clone();
    let data = file.into_inner();
    let dtype = match header.dtype() {
        DType::Plain(t) => NpyDtype::from_type_str(&t)?,
        other => bail!("unsupported .npy dtype {} (a structured array)", other.descr()),
    };
    if header.order() == Order::Fortran {
        bail!("Fortran-order arrays are not supported; save with np.ascontiguousarray");
    }
    let shape = header
        .shape()
        .iter()
        .map(|&d| usize::try_from(d).map_err(|_| anyhow!("shape {:?} is too large", header.shape())))
        .collect::<Result<Vec<usize>>>()?;
    let byte_len = element_count(header.shape())?
        .checked_mul(dtype.size() as u64)
        .and_then(|n| usize::try_from(n).ok())
        .ok_or_else(|| anyhow!("shape {shape:?} is too large"))?;
    // Compared before anything is allocated for the elements.
    if data.len() != byte_len {
        bail!("shape {shape:?} of {} needs {byte_len} data bytes but the file has {}", dtype.descr(), data.len());
    }
    let file = NpyFile::with_header(header, data);
    let mut out = Vec::with_capacity(byte_len);
    match dtype {
        NpyDtype::F32 => decode::<f32>(file, &mut out),
        NpyDtype::F16 => decode::<f16>(file, &mut out),
        NpyDtype::I32 => decode::<i32>(file, &mut out),
        NpyDtype::U32 => decode::<u32>(file, &mut out),
        NpyDtype::I64 => decode::<i64>(file, &mut out),
        NpyDtype::U64 => decode::<u64>(file, &mut out),
        NpyDtype::I8 => decode::<i8>(file, &mut out),
        NpyDtype::U8 => decode::<u8>(file, &mut out),
        NpyDtype::Bool => decode::<bool>(file, &mut out),
    }?;
    Ok(NpyArray { dtype, shape, data: out })
}

/// Appends the elements of `file` to `out` as little-endian bytes.
fn decode<T: Element>(file: NpyFile<&[u8]>, out: &mut Vec<u8>) -> Result<()> {
    for value in file.data::<T>().map_err(|e| anyhow!("{e}"))? {
        value.map_err(npyz_error)?.put_le(out);
    }
    Ok(())
}

/// Checks what npyz trusts in a file before it reads it: the header length it declares (npyz
/// allocates that much first), the nesting of the header's brackets (its Python-literal parser
/// recurses) and the shape's element count (npyz multiplies the dimensions unchecked). Files
/// without the magic string or with an unknown version are left to npyz to reject.
fn check_header(bytes: &[u8]) -> Result<()> {
    if !bytes.starts_with(MAGIC) {
        return Ok(());
    }
    let (declared, start) = match bytes.get(6) {
        Some(1) => (bytes.get(8..10).and_then(|b| b.try_into().ok()).map(|b| u16::from_le_bytes(b) as usize), 10),
        Some(2 | 3) => (bytes.get(8..12).and_then(|b| b.try_into().ok()).map(|b| u32::from_le_bytes(b) as usize), 12),
        _ => return Ok(()),
    };
    let declared = declared.ok_or_else(|| anyhow!("the file ends inside its header"))?;
    if declared > MAX_HEADER_BYTES {
        bail!("the header is {declared} bytes long, more than the {MAX_HEADER_BYTES} read");
    }
    let text = bytes
        .get(start..start + declared)
        .ok_or_else(|| anyhow!("truncated header: {declared} bytes declared, {} in the file", bytes.len() - start))?;
    let mut depth = 0usize;
    for &c in text {
        match c {
            b'(' | b'[' | b'{' => {
                depth += 1;
                if depth > MAX_HEADER_NESTING {
                    bail!("malformed header: brackets nested more than {MAX_HEADER_NESTING} deep");
                }
            }
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    let text = std::str::from_utf8(text).map_err(|_| anyhow!("the header is not UTF-8 text"))?;
    let dict: py_literal::Value =
        text.trim_end().parse().map_err(|e| anyhow!("malformed header (not a Python literal): {e}"))?;
    let py_literal::Value::Dict(entries) = dict else { bail!("malformed header: not a dictionary") };
    for (key, value) in &entries {
        let (py_literal::Value::String(key), py_literal::Value::Tuple(dims) | py_literal::Value::List(dims)) =
            (key, value)
        else {
            continue;
        };
        if key != "shape" {
            continue;
        }
        // Dimensions that are not unsigned 64-bit integers are npyz's to reject.
        let dims: Vec<u64> = dims
            .iter()
            .filter_map(|d| match d {
                py_literal::Value::Integer(n) => u64::try_from(n).ok(),
                _ => None,
            })
            .collect();
        element_count(&dims)?;
    }
    Ok(())
}

/// The element count of `shape` (rank at most [`MAX_RANK`]), if the product of its non-zero
/// dimensions fits in 64 bits (then every partial product does, in any order).
fn element_count(shape: &[u64]) -> Result<u64> {
    if shape.len() > MAX_RANK {
        bail!("rank {} is above {MAX_RANK}, NumPy's largest", shape.len());
    }
    shape
        .iter()
        .filter(|&&d| d != 0)
        .try_fold(1u64, |n, &d| n.checked_mul(d))
        .ok_or_else(|| anyhow!("shape {shape:?} has too many elements"))?;
    Ok(if shape.contains(&0) { 0 } else { shape.iter().product() })
}

/// npyz's I/O errors as messages (reading from memory, an early end is a truncated file).
fn npyz_error(e: std::io::Error) -> anyhow::Error {
    if e.kind() == std::io::ErrorKind::UnexpectedEof {
        anyhow!("the file is truncated")
    } else {
        anyhow!("{e}")
    }
}

/// Encodes an array as `.npy` bytes (format 1.0).
pub fn to_bytes(array: &NpyArray) -> Result<Vec<u8>> {
    let shape: Vec<u64> = array.shape.iter().map(|&d| d as u64).collect();
    let expected = element_count(&shape)?.checked_mul(array.dtype.size() as u64).and_then(|n| usize::try_from(n).ok());
    if expected != Some(array.data.len()) {
        bail!("{} bytes do not hold shape {:?} of {}", array.data.len(), array.shape, array.dtype.descr());
    }
    let mut out = Vec::with_capacity(array.data.len() + 128);
    match array.dtype {
        NpyDtype::F32 => encode::<f32>(array, &shape, &mut out),
        NpyDtype::F16 => encode::<f16>(array, &shape, &mut out),
        NpyDtype::I32 => encode::<i32>(array, &shape, &mut out),
        NpyDtype::U32 => encode::<u32>(array, &shape, &mut out),
        NpyDtype::I64 => encode::<i64>(array, &shape, &mut out),
        NpyDtype::U64 => encode::<u64>(array, &shape, &mut out),
        NpyDtype::I8 => encode::<i8>(array, &shape, &mut out),
        NpyDtype::U8 => encode::<u8>(array, &shape, &mut out),
        NpyDtype::Bool => encode::<bool>(array, &shape, &mut out),
    }?;
    Ok(out)
}

/// Writes `array` (whose bytes hold elements of `T`) as an `.npy` file into `out`.
fn encode<T: Element>(array: &NpyArray, shape: &[u64], out: &mut Vec<u8>) -> Result<()> {
    let type_str: TypeStr = array.dtype.descr().parse().map_err(|e| anyhow!("{e}"))?;
    let mut writer =
        npyz::WriteOptions::<T>::new().dtype(DType::Plain(type_str)).shape(shape).writer(out).begin_nd()?;
    for (i, bytes) in array.data.chunks_exact(array.dtype.size()).enumerate() {
        let value = T::from_le(bytes)
            .ok_or_else(|| anyhow!("element {i} ({bytes:?}) is not a valid {}", array.dtype.descr()))?;
        writer.push(&value)?;
    }
    writer.finish()?;
    Ok(())
}

/// Writes an array to a `.npy` file.
pub fn write(path: &Path, array: &NpyArray) -> Result<()> {
    let bytes = to_bytes(array)?;
    std::fs::write(path, bytes).with_context(|| format!("cannot write {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `.npy` file written by hand per NumPy's format description: magic, version, header
    /// length (little-endian u16 for 1.0, u32 for 2.0 and 3.0), the header text, the data.
    fn header_file(version: u8, dict: &str, data: &[u8]) -> Vec<u8> {
        let mut v = MAGIC.to_vec();
        v.extend_from_slice(&[version, 0]);
        if version == 1 {
            v.extend_from_slice(&(dict.len() as u16).to_le_bytes());
        } else {
            v.extend_from_slice(&(dict.len() as u32).to_le_bytes());
        }
        v.extend_from_slice(dict.as_bytes());
        v.extend_from_slice(data);
        v
    }

    /// `dict` padded with spaces and a newline as NumPy pads it: magic, version, length and
    /// header together a multiple of 64 bytes.
    fn numpy_file(dict: &str, data: &[u8]) -> Vec<u8> {
        let mut dict = dict.to_string();
        while !(10 + dict.len() + 1).is_multiple_of(64) {
            dict.push(' ');
        }
        dict.push('\n');
        header_file(1, &dict, data)
    }

    /// The header text of written bytes (format 1.0).
    fn header_text(bytes: &[u8]) -> String {
        let len = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
        String::from_utf8(bytes[10..10 + len].to_vec()).unwrap()
    }

    #[test]
    fn round_trip_every_dtype_and_rank() {
        let dtypes = [
            NpyDtype::F32,
            NpyDtype::F16,
            NpyDtype::I32,
            NpyDtype::U32,
            NpyDtype::I64,
            NpyDtype::U64,
            NpyDtype::I8,
            NpyDtype::U8,
            NpyDtype::Bool,
        ];
        let shapes: [&[usize]; 5] = [&[], &[5], &[2, 3], &[1, 3, 2, 2], &[0, 4]];
        for dtype in dtypes {
            for shape in shapes {
                let n: usize = shape.iter().product();
                let data: Vec<u8> = (0..n * dtype.size()).map(|i| (i % 2) as u8).collect();
                let array = NpyArray { dtype, shape: shape.to_vec(), data };
                let bytes = to_bytes(&array).unwrap();
                assert_eq!(bytes[6], 1, "{dtype:?} {shape:?}");
                let header_len = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
                assert_eq!((10 + header_len) % 64, 0, "{dtype:?} {shape:?}");
                assert!(header_text(&bytes).contains(&format!("'descr': '{}'", dtype.descr())));
                assert_eq!(parse(&bytes).unwrap(), array, "{dtype:?} {shape:?}");
            }
        }
    }

    #[test]
    fn float16_int64_uint64_and_bool_round_trip() {
        let f16s: Vec<u8> = [1.5f32, -0.0, 65504.0, f32::INFINITY, -2.0e-7]
            .iter()
            .flat_map(|&x| f16::from_f32(x).to_le_bytes())
            .chain(0x7e01u16.to_le_bytes()) // a NaN with payload: bits kept as they are
            .collect();
        let i64s: Vec<u8> = [i64::MIN, -1, 0, i64::MAX].iter().flat_map(|x| x.to_le_bytes()).collect();
        let u64s: Vec<u8> = [0u64, 1 << 63, u64::MAX].iter().flat_map(|x| x.to_le_bytes()).collect();
        let cases = [
            (NpyDtype::F16, vec![2, 3], f16s, "'<f2'"),
            (NpyDtype::I64, vec![4], i64s, "'<i8'"),
            (NpyDtype::U64, vec![3, 1], u64s, "'<u8'"),
            (NpyDtype::Bool, vec![2, 2], vec![1, 0, 0, 1], "'|b1'"),
        ];
        for (dtype, shape, data, descr) in cases {
            let array = NpyArray { dtype, shape: shape.clone(), data: data.clone() };
            let bytes = to_bytes(&array).unwrap();
            let header = header_text(&bytes);
            assert!(header.contains(descr) && header.contains("'fortran_order': False"), "{header}");
            assert!(header.ends_with('\n'), "{header:?}");
            let back = parse(&bytes).unwrap();
            assert_eq!((back.dtype, back.shape, back.data), (dtype, shape, data), "{dtype:?}");
        }
        // Bool elements are 0 or 1.
        let a = NpyArray { dtype: NpyDtype::Bool, shape: vec![2], data: vec![1, 2] };
        let e = to_bytes(&a).unwrap_err().to_string();
        assert!(e.contains("element 1") && e.contains("|b1"), "{e}");
    }

    #[test]
    fn reads_hand_written_files() {
        // np.save(np.array([[1.0, -2.5], [0.0, 65504.0]], dtype=np.float16)): 1.0 = 0x3c00,
        // -2.5 = 0xc100, 65504 = 0x7bff.
        let f16_data = [0x00, 0x3c, 0x00, 0xc1, 0x00, 0x00, 0xff, 0x7b];
        let a = parse(&numpy_file("{'descr': '<f2', 'fortran_order': False, 'shape': (2, 2), }", &f16_data)).unwrap();
        assert_eq!((a.dtype, a.shape.clone(), a.data.clone()), (NpyDtype::F16, vec![2, 2], f16_data.to_vec()));
        let as_f32: Vec<f32> = a.data.chunks(2).map(|b| f16::from_le_bytes([b[0], b[1]]).to_f32()).collect();
        assert_eq!(as_f32, [1.0, -2.5, 0.0, 65504.0]);
        // int64 -2 and 2^40 + 3, little-endian two's complement.
        let i64_data = [0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 3, 0, 0, 0, 0, 1, 0, 0];
        let a = parse(&numpy_file("{'descr': '<i8', 'fortran_order': False, 'shape': (2,), }", &i64_data)).unwrap();
        assert_eq!((a.dtype, a.data.clone()), (NpyDtype::I64, i64_data.to_vec()));
        assert_eq!(i64::from_le_bytes(a.data[..8].try_into().unwrap()), -2);
        assert_eq!(i64::from_le_bytes(a.data[8..].try_into().unwrap()), (1 << 40) + 3);
        // uint64 2^64 - 1 as a scalar.
        let a = parse(&numpy_file("{'descr': '<u8', 'fortran_order': False, 'shape': (), }", &[0xff; 8])).unwrap();
        assert_eq!((a.dtype, a.shape.clone(), a.element_count()), (NpyDtype::U64, vec![], 1));
        assert_eq!(u64::from_le_bytes(a.data[..].try_into().unwrap()), u64::MAX);
        // bool reads as uint8 0/1.
        let a = parse(&numpy_file("{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }", &[1, 0, 1])).unwrap();
        assert_eq!((a.dtype.data_type(), a.data.clone()), (DataType::Uint8, vec![1, 0, 1]));
        // float32, as np.save(np.arange(3, dtype=np.float32)) writes it.
        let f32_data: Vec<u8> = [0f32, 1.0, 2.0].iter().flat_map(|x| x.to_le_bytes()).collect();
        let a = parse(&numpy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", &f32_data)).unwrap();
        assert_eq!((a.dtype, a.shape.clone(), a.data.clone()), (NpyDtype::F32, vec![3], f32_data.clone()));
        // Version 2.0 and 3.0, double quotes, keys in another order, no trailing comma.
        for version in [2, 3] {
            let dict = "{\"shape\": (1, 3), \"fortran_order\": False, \"descr\": \"<f4\"}\n";
            let a = parse(&header_file(version, dict, &f32_data)).unwrap();
            assert_eq!((a.shape.clone(), a.data.clone()), (vec![1, 3], f32_data.clone()), "version {version}");
        }
        // Big-endian data becomes little-endian: >f2 1.0, >i8 -2, >u8 2^63 + 1.
        let a = parse(&numpy_file("{'descr': '>f2', 'fortran_order': False, 'shape': (1,), }", &[0x3c, 0x00])).unwrap();
        assert_eq!((a.dtype, a.data.clone()), (NpyDtype::F16, vec![0x00, 0x3c]));
        let be = [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe];
        let a = parse(&numpy_file("{'descr': '>i8', 'fortran_order': False, 'shape': (1,), }", &be)).unwrap();
        assert_eq!(i64::from_le_bytes(a.data[..].try_into().unwrap()), -2);
        let be = [0x80, 0, 0, 0, 0, 0, 0, 1];
        let a = parse(&numpy_file("{'descr': '>u8', 'fortran_order': False, 'shape': (1,), }", &be)).unwrap();
        assert_eq!(u64::from_le_bytes(a.data[..].try_into().unwrap()), (1 << 63) + 1);
    }

    #[test]
    fn errors_not_panics() {
        let f4 = |shape: &str| format!("{{'descr': '<f4', 'fortran_order': False, 'shape': {shape}, }}");
        let cases: Vec<(Vec<u8>, &str)> = vec![
            (b"".to_vec(), "magic"),
            (b"\x93NUMPY".to_vec(), "magic"),
            (b"NOTNPY\x01\x00\x00\x00".to_vec(), "magic"),
            (b"\x93NUMPY\x01\x00\x05".to_vec(), "ends inside its header"),
            (header_file(4, "{}", &[]), "version"),
            (header_file(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }", &[0; 8]), "unsupported"),
            (header_file(1, "{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }", &[0; 8]), "unsupported"),
            (header_file(1, "{'descr': '>f8', 'fortran_order': False, 'shape': (1,), }", &[0; 8]), "unsupported"),
            (header_file(1, "{'descr': '|O', 'fortran_order': False, 'shape': (1,), }", &[0; 8]), "unsupported"),
            (
                header_file(1, "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }", &[0; 4]),
                "structured",
            ),
            (header_file(1, "{'descr': 'f4', 'fortran_order': False, 'shape': (1,), }", &[0; 4]), "type string"),
            (header_file(1, "{'descr': '<f4', 'fortran_order': True, 'shape': (1,), }", &[0; 4]), "Fortran"),
            (header_file(1, &f4("(2,)"), &[0; 4]), "needs 8"),
            (header_file(1, &f4("(1,)"), &[0; 5]), "needs 4"),
            (header_file(1, "{'descr': '|b1', 'fortran_order': False, 'shape': (2,), }", &[1, 2]), "bool"),
            (header_file(1, "{'descr': '<f4', 'shape': (1,), }", &[0; 4]), "fortran_order"),
            (header_file(1, "{'descr': '<f4', 'fortran_order': False}", &[0; 4]), "shape"),
            (header_file(1, "{'descr': '<f4', 'fortran_order': Nope, 'shape': (1,)}", &[0; 4]), "Python literal"),
            (header_file(1, "{'descr': '<f4', 'fortran_order': 1, 'shape': (1,)}", &[0; 4]), "bool"),
            (header_file(1, &f4("(x,)"), &[0; 4]), "Python literal"),
            (header_file(1, &f4("(-1,)"), &[0; 4]), "negative"),
            (header_file(1, &f4("(1.5,)"), &[0; 4]), "integer"),
            (header_file(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,)", &[0; 4]), "Python literal"),
            (header_file(1, "{'descr: '<f4'}", &[]), "Python literal"),
            (header_file(1, "['descr', '<f4']", &[]), "not a dictionary"),
            (header_file(1, "{'descr': '<f4', 'fortran_order': False, 'shape': 3}", &[0; 4]), "shape"),
            (header_file(1, &f4("(4294967296, 4294967296, 4294967296)"), &[]), "too many elements"),
            // Zero elements, but partial products that overflow in either order.
            (header_file(1, &f4("(0, 4294967296, 4294967296)"), &[]), "too many elements"),
            (header_file(1, &f4("(4294967296, 4294967296, 0)"), &[]), "too many elements"),
            (header_file(1, &f4("(18446744073709551616,)"), &[]), "larger than u64"),
            (header_file(1, &f4(&format!("({})", vec!["1"; MAX_RANK + 1].join(", "))), &[0; 4]), "rank 65"),
            // A huge shape with 4 data bytes: compared with the file before anything is allocated.
            (header_file(1, &f4("(1099511627776,)"), &[0; 4]), "needs 4398046511104 data bytes but the file has 4"),
            (header_file(1, &format!("{}{}", "(".repeat(5000), ")".repeat(5000)), &[]), "nested"),
            // Unclosed brackets, 5 deep: the parser's backtracking is exponential in them.
            (header_file(1, "{'descr': '<f2', {'descr': '<f2', {{{  R ", &[]), "nested more than 4 deep"),
            (header_file(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }\u{7f}\u{ff}", &[]), "literal"),
        ];
        for (bytes, needle) in cases {
            let e = format!("{:#}", parse(&bytes).unwrap_err());
            assert!(e.contains(needle), "'{e}' does not contain '{needle}'");
        }
        // Header lengths beyond the file or the limit: refused before anything is allocated.
        let mut v = MAGIC.to_vec();
        v.extend_from_slice(&[1, 0, 200, 0]);
        assert!(format!("{:#}", parse(&v).unwrap_err()).contains("truncated header: 200 bytes declared, 0"));
        let mut v = MAGIC.to_vec();
        v.extend_from_slice(&[2, 0, 0xff, 0xff, 0xff, 0xff]);
        assert!(format!("{:#}", parse(&v).unwrap_err()).contains("more than the 65536 read"));
        let mut v = MAGIC.to_vec();
        v.extend_from_slice(&[2, 0, 1, 0]);
        assert!(format!("{:#}", parse(&v).unwrap_err()).contains("ends inside its header"));
        // Every truncation of a valid file is an error.
        let whole = to_bytes(&NpyArray { dtype: NpyDtype::I64, shape: vec![2, 2], data: vec![7; 32] }).unwrap();
        for cut in 0..whole.len() {
            assert!(parse(&whole[..cut]).is_err(), "{cut}");
        }
    }

    #[test]
    fn writer_rejects_inconsistent_arrays() {
        let a = NpyArray { dtype: NpyDtype::F32, shape: vec![2], data: vec![0; 4] };
        assert!(to_bytes(&a).unwrap_err().to_string().contains("do not hold shape [2]"));
        let a = NpyArray { dtype: NpyDtype::U8, shape: vec![usize::MAX, 2, 0], data: vec![] };
        assert!(to_bytes(&a).unwrap_err().to_string().contains("too many elements"));
    }

    #[test]
    fn ranks_up_to_numpys_limit() {
        let a = NpyArray { dtype: NpyDtype::U8, shape: vec![1; MAX_RANK], data: vec![7] };
        let bytes = to_bytes(&a).unwrap();
        assert_eq!(bytes[6], 1);
        assert_eq!(parse(&bytes).unwrap(), a);
        let a = NpyArray { dtype: NpyDtype::U8, shape: vec![1; MAX_RANK + 1], data: vec![7] };
        assert!(to_bytes(&a).unwrap_err().to_string().contains("rank 65 is above 64"));
    }

    #[test]
    fn data_type_mapping_round_trips() {
        for dt in DataType::ALL {
            assert_eq!(NpyDtype::from_data_type(dt).data_type(), dt);
        }
    }
}

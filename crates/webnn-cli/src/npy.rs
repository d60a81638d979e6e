//! A small reader and writer of NumPy `.npy` files (format versions 1.0, 2.0 and 3.0).
//!
//! Supported: little-endian (or byte-order-free) `float32`, `float16`, `int32`, `uint32`,
//! `int64`, `uint64`, `int8`, `uint8` and `bool` (read as `uint8`), in C order. Everything else
//! (big-endian data, Fortran order, other dtypes, truncated files) is an error, never a panic.

use anyhow::{anyhow, bail, Context as _, Result};
use std::path::Path;
use webnn::DataType;

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

    /// Bytes per element.
    pub fn size(self) -> usize {
        match self {
            NpyDtype::F32 | NpyDtype::I32 | NpyDtype::U32 => 4,
            NpyDtype::F16 => 2,
            NpyDtype::I64 | NpyDtype::U64 => 8,
            NpyDtype::I8 | NpyDtype::U8 | NpyDtype::Bool => 1,
        }
    }

    /// Parses a `descr` such as `<f4`, `|u1` or `b1`.
    pub fn from_descr(descr: &str) -> Result<NpyDtype> {
        let (order, code) = match descr.chars().next() {
            Some(c @ ('<' | '>' | '|' | '=')) => (c, &descr[1..]),
            _ => ('|', descr),
        };
        let dtype = match code {
            "f4" => NpyDtype::F32,
            "f2" | "e" => NpyDtype::F16,
            "i4" => NpyDtype::I32,
            "u4" => NpyDtype::U32,
            "i8" => NpyDtype::I64,
            "u8" => NpyDtype::U64,
            "i1" | "b" => NpyDtype::I8,
            "u1" | "B" => NpyDtype::U8,
            "b1" | "?" => NpyDtype::Bool,
            _ => bail!("unsupported .npy dtype '{descr}' (supported: f4 f2 i4 u4 i8 u8 i1 u1 b1)"),
        };
        let big_endian = order == '>' || (order == '=' && cfg!(target_endian = "big"));
        if big_endian && dtype.size() > 1 {
            bail!("big-endian .npy data ('{descr}') is not supported; save it little-endian");
        }
        Ok(dtype)
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

/// Reads a `.npy` file.
pub fn read(path: &Path) -> Result<NpyArray> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    parse(&bytes).with_context(|| format!("{} is not a supported .npy file", path.display()))
}

/// Parses the bytes of a `.npy` file.
pub fn parse(bytes: &[u8]) -> Result<NpyArray> {
    if bytes.len() < 10 || &bytes[..6] != MAGIC {
        bail!("missing the \\x93NUMPY magic string");
    }
    let major = bytes[6];
    let (header_len, header_start): (usize, usize) = match major {
        1 => (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10),
        2 | 3 => {
            let b = bytes.get(8..12).ok_or_else(|| anyhow!("truncated header"))?;
            (u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize, 12)
        }
        v => bail!("unsupported .npy format version {v}.{}", bytes[7]),
    };
    let header_end = header_start.checked_add(header_len).ok_or_else(|| anyhow!("header length overflows"))?;
    let header = bytes.get(header_start..header_end).ok_or_else(|| anyhow!("truncated header"))?;
    let header = std::str::from_utf8(header).map_err(|_| anyhow!("the header is not text"))?;
    let dict = parse_header(header)?;
    let dtype = NpyDtype::from_descr(&dict.descr)?;
    if dict.fortran_order {
        bail!("Fortran-order arrays are not supported; save with np.ascontiguousarray");
    }
    let count = dict
        .shape
        .iter()
        .try_fold(1usize, |acc, &d| acc.checked_mul(d))
        .ok_or_else(|| anyhow!("shape {:?} has too many elements", dict.shape))?;
    let byte_len = count.checked_mul(dtype.size()).ok_or_else(|| anyhow!("shape {:?} is too large", dict.shape))?;
    let data = &bytes[header_end..];
    if data.len() != byte_len {
        bail!(
            "shape {:?} of {} needs {byte_len} data bytes but the file has {}",
            dict.shape,
            dtype.descr(),
            data.len()
        );
    }
    Ok(NpyArray { dtype, shape: dict.shape, data: data.to_vec() })
}

struct Header {
    descr: String,
    fortran_order: bool,
    shape: Vec<usize>,
}

/// Parses the header dictionary, a Python literal such as
/// `{'descr': '<f4', 'fortran_order': False, 'shape': (1, 3), }`.
fn parse_header(text: &str) -> Result<Header> {
    let mut p = Lexer { s: text.trim_end_matches(['\n', ' ', '\0']).as_bytes(), i: 0 };
    let (mut descr, mut fortran, mut shape) = (None, None, None);
    p.expect(b'{')?;
    loop {
        if p.eat(b'}') {
            break;
        }
        let key = p.string()?;
        p.expect(b':')?;
        match key.as_str() {
            "descr" => descr = Some(p.string()?),
            "fortran_order" => fortran = Some(p.boolean()?),
            "shape" => shape = Some(p.tuple()?),
            other => bail!("unknown header key '{other}'"),
        }
        if !p.eat(b',') {
            p.expect(b'}')?;
            break;
        }
    }
    p.skip_ws();
    if p.i != p.s.len() {
        bail!("trailing characters after the header dictionary");
    }
    Ok(Header {
        descr: descr.ok_or_else(|| anyhow!("the header has no 'descr'"))?,
        fortran_order: fortran.ok_or_else(|| anyhow!("the header has no 'fortran_order'"))?,
        shape: shape.ok_or_else(|| anyhow!("the header has no 'shape'"))?,
    })
}

struct Lexer<'a> {
    s: &'a [u8],
    i: usize,
}

impl Lexer<'_> {
    fn skip_ws(&mut self) {
        while self.s.get(self.i).is_some_and(|c| c.is_ascii_whitespace()) {
            self.i += 1;
        }
    }
    fn eat(&mut self, c: u8) -> bool {
        self.skip_ws();
        if self.s.get(self.i) == Some(&c) {
            self.i += 1;
            true
        } else {
            false
        }
    }
    fn expect(&mut self, c: u8) -> Result<()> {
        if self.eat(c) {
            Ok(())
        } else {
            bail!("malformed header: expected '{}' at offset {}", c as char, self.i)
        }
    }
    fn string(&mut self) -> Result<String> {
        self.skip_ws();
        let quote = match self.s.get(self.i) {
            Some(&q @ (b'\'' | b'"')) => q,
            _ => bail!("malformed header: expected a string at offset {}", self.i),
        };
        let start = self.i + 1;
        let len = self.s[start..]
            .iter()
            .position(|&c| c == quote)
            .ok_or_else(|| anyhow!("malformed header: unterminated string"))?;
        self.i = start + len + 1;
        Ok(String::from_utf8_lossy(&self.s[start..start + len]).into_owned())
    }
    fn word(&mut self) -> &[u8] {
        self.skip_ws();
        let start = self.i;
        while self.s.get(self.i).is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_') {
            self.i += 1;
        }
        &self.s[start..self.i]
    }
    fn boolean(&mut self) -> Result<bool> {
        match self.word() {
            b"True" => Ok(true),
            b"False" => Ok(false),
            w => bail!("malformed header: expected True or False, got '{}'", String::from_utf8_lossy(w)),
        }
    }
    fn tuple(&mut self) -> Result<Vec<usize>> {
        self.expect(b'(')?;
        let mut dims = Vec::new();
        loop {
            if self.eat(b')') {
                return Ok(dims);
            }
            let w = self.word();
            // Python 2 wrote longs as `3L`.
            let digits = w.strip_suffix(b"L").unwrap_or(w);
            let text = std::str::from_utf8(digits).unwrap_or("");
            let d: usize = text
                .parse()
                .map_err(|_| anyhow!("malformed header: bad dimension '{}'", String::from_utf8_lossy(w)))?;
            dims.push(d);
            if !self.eat(b',') {
                self.expect(b')')?;
                return Ok(dims);
            }
        }
    }
}

/// Encodes an array as `.npy` bytes (format 1.0, or 2.0 if the header needs it). The header is
/// padded so that the data starts at a multiple of 64 bytes, as NumPy does.
pub fn to_bytes(array: &NpyArray) -> Result<Vec<u8>> {
    let expected = array
        .shape
        .iter()
        .try_fold(1usize, |a, &d| a.checked_mul(d))
        .and_then(|n| n.checked_mul(array.dtype.size()));
    if expected != Some(array.data.len()) {
        bail!("{} bytes do not hold shape {:?} of {}", array.data.len(), array.shape, array.dtype.descr());
    }
    let shape = match array.shape.as_slice() {
        [] => "()".to_string(),
        [d] => format!("({d},)"),
        dims => format!("({})", dims.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(", ")),
    };
    let dict = format!("{{'descr': '{}', 'fortran_order': False, 'shape': {shape}, }}", array.dtype.descr());
    let mut out = Vec::with_capacity(array.data.len() + dict.len() + 80);
    let unpadded_v1 = 10 + dict.len() + 1;
    let (prefix, padded) = if unpadded_v1.div_ceil(64) * 64 - 10 <= u16::MAX as usize {
        (10, unpadded_v1.div_ceil(64) * 64)
    } else {
        (12, (12 + dict.len() + 1).div_ceil(64) * 64)
    };
    let header_len = padded - prefix;
    out.extend_from_slice(MAGIC);
    if prefix == 10 {
        out.extend_from_slice(&[1, 0]);
        out.extend_from_slice(&(header_len as u16).to_le_bytes());
    } else {
        let len = u32::try_from(header_len).map_err(|_| anyhow!("header too long"))?;
        out.extend_from_slice(&[2, 0]);
        out.extend_from_slice(&len.to_le_bytes());
    }
    out.extend_from_slice(dict.as_bytes());
    out.resize(padded - 1, b' ');
    out.push(b'\n');
    out.extend_from_slice(&array.data);
    Ok(out)
}

/// Writes an array to a `.npy` file.
pub fn write(path: &Path, array: &NpyArray) -> Result<()> {
    let bytes = to_bytes(array)?;
    std::fs::write(path, bytes).with_context(|| format!("cannot write {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

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
                let header_len = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
                assert_eq!((10 + header_len) % 64, 0, "{dtype:?} {shape:?}");
                assert_eq!(parse(&bytes).unwrap(), array, "{dtype:?} {shape:?}");
            }
        }
    }

    #[test]
    fn reads_numpy_written_headers() {
        // Exactly what np.save writes for np.arange(3, dtype=np.float32).
        let data: Vec<u8> = [0f32, 1.0, 2.0].iter().flat_map(|x| x.to_le_bytes()).collect();
        let mut dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }".to_string();
        while (10 + dict.len() + 1) % 64 != 0 {
            dict.push(' ');
        }
        dict.push('\n');
        let a = parse(&header_file(1, &dict, &data)).unwrap();
        assert_eq!((a.dtype, a.shape.clone(), a.data.clone()), (NpyDtype::F32, vec![3], data.clone()));
        // Version 2.0, double quotes, key order changed, no trailing comma.
        let a = parse(&header_file(2, "{\"shape\": (1, 3), \"fortran_order\": False, \"descr\": \"<f4\"}\n", &data))
            .unwrap();
        assert_eq!(a.shape, vec![1, 3]);
        // bool reads as uint8; scalar; Python 2 longs
        let a = parse(&header_file(1, "{'descr': '|b1', 'fortran_order': False, 'shape': (), }", &[1])).unwrap();
        assert_eq!((a.dtype.data_type(), a.element_count()), (DataType::Uint8, 1));
        let a = parse(&header_file(1, "{'descr': '<i8', 'fortran_order': False, 'shape': (1L, 1L), }", &[0; 8]))
            .unwrap();
        assert_eq!(a.shape, vec![1, 1]);
    }

    #[test]
    fn errors_not_panics() {
        let cases: Vec<(Vec<u8>, &str)> = vec![
            (b"".to_vec(), "magic"),
            (b"\x93NUMPY".to_vec(), "magic"),
            (b"NOTNPY\x01\x00\x00\x00".to_vec(), "magic"),
            (header_file(4, "{}", &[]), "version"),
            (header_file(1, "{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }", &[0; 4]), "big-endian"),
            (header_file(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }", &[0; 8]), "unsupported"),
            (header_file(1, "{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }", &[0; 8]), "unsupported"),
            (header_file(1, "{'descr': '<f4', 'fortran_order': True, 'shape': (1,), }", &[0; 4]), "Fortran"),
            (header_file(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", &[0; 4]), "needs 8"),
            (header_file(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", &[0; 5]), "needs 4"),
            (header_file(1, "{'descr': '<f4', 'shape': (1,), }", &[0; 4]), "fortran_order"),
            (header_file(1, "{'descr': '<f4', 'fortran_order': False}", &[0; 4]), "shape"),
            (header_file(1, "{'descr': '<f4', 'fortran_order': Nope, 'shape': (1,)}", &[0; 4]), "True or False"),
            (header_file(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (x,)}", &[0; 4]), "dimension"),
            (header_file(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,)", &[0; 4]), "expected"),
            (header_file(1, "{'descr: '<f4'}", &[]), "malformed"),
            (header_file(1, "{'what': 1}", &[]), "unknown header key"),
            (
                header_file(
                    1,
                    "{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296, 4294967296), }",
                    &[],
                ),
                "too",
            ),
            // A huge shape with 4 data bytes: compared with the file before anything is allocated.
            (
                header_file(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1099511627776,), }", &[0; 4]),
                "needs 4398046511104 data bytes but the file has 4",
            ),
        ];
        for (bytes, needle) in cases {
            let e = format!("{:#}", parse(&bytes).unwrap_err());
            assert!(e.contains(needle), "'{e}' does not contain '{needle}'");
        }
        // Truncated header length field.
        let mut v = MAGIC.to_vec();
        v.extend_from_slice(&[1, 0, 200, 0]);
        assert!(parse(&v).is_err());
        let mut v = MAGIC.to_vec();
        v.extend_from_slice(&[2, 0, 1, 0]);
        assert!(parse(&v).is_err());
    }

    #[test]
    fn writer_rejects_inconsistent_arrays() {
        let a = NpyArray { dtype: NpyDtype::F32, shape: vec![2], data: vec![0; 4] };
        assert!(to_bytes(&a).is_err());
    }

    #[test]
    fn big_headers_use_version_2() {
        let a = NpyArray { dtype: NpyDtype::U8, shape: vec![1; 30000], data: vec![7] };
        let bytes = to_bytes(&a).unwrap();
        assert_eq!(bytes[6], 2);
        assert_eq!(parse(&bytes).unwrap(), a);
    }

    #[test]
    fn data_type_mapping_round_trips() {
        for dt in DataType::ALL {
            assert_eq!(NpyDtype::from_data_type(dt).data_type(), dt);
        }
    }
}

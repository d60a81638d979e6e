//! Just enough of the ONNX protobuf format for `webnn inspect`: the operators a model uses,
//! its opsets, inputs, outputs and initializer sizes. Independent of the importer, so that
//! inspect describes even models the importer cannot take.
//!
//! Reads the wire format directly (varints and length-delimited fields); unknown fields are
//! skipped, malformed data is an error.

use anyhow::{anyhow, bail, Result};
use std::collections::BTreeMap;

/// What inspect shows of an ONNX model.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OnnxSummary {
    /// `ir_version`
    pub ir_version: i64,
    /// `producer_name` and `producer_version`
    pub producer: String,
    /// `opset_import`: (domain, version); the default domain is "".
    pub opsets: Vec<(String, i64)>,
    /// Node count per (domain, op_type), subgraphs included.
    pub ops: BTreeMap<(String, String), usize>,
    /// Graph inputs that are not initializers: name, element type, dimensions (a number or a
    /// symbolic name).
    pub inputs: Vec<ValueInfo>,
    /// Graph outputs.
    pub outputs: Vec<ValueInfo>,
    /// Number of initializers of the main graph.
    pub initializers: usize,
    /// Elements in the initializers of the main graph.
    pub parameters: u64,
}

/// A graph input or output.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ValueInfo {
    /// Name.
    pub name: String,
    /// ONNX element type name (`float`, `int64`, ...).
    pub elem_type: String,
    /// Dimensions: numbers, symbolic names, or `?`.
    pub dims: Vec<String>,
}

/// Parses a serialized `ModelProto`.
pub fn summarize(bytes: &[u8]) -> Result<OnnxSummary> {
    let mut s = OnnxSummary::default();
    let mut graph = None;
    let (mut producer, mut version) = (String::new(), String::new());
    for field in Fields::new(bytes) {
        let (number, value) = field?;
        match (number, value) {
            (1, Value::Varint(v)) => s.ir_version = v as i64,
            (2, Value::Bytes(b)) => producer = text(b),
            (3, Value::Bytes(b)) => version = text(b),
            (7, Value::Bytes(b)) => graph = Some(b),
            (8, Value::Bytes(b)) => {
                let (mut domain, mut v) = (String::new(), 0);
                for f in Fields::new(b) {
                    match f? {
                        (1, Value::Bytes(d)) => domain = text(d),
                        (2, Value::Varint(x)) => v = x as i64,
                        _ => {}
                    }
                }
                s.opsets.push((domain, v));
            }
            _ => {}
        }
    }
    s.producer = format!("{producer} {version}").trim().to_string();
    let graph = graph.ok_or_else(|| anyhow!("not an ONNX model: no graph"))?;
    let mut initializer_names = Vec::new();
    read_graph(graph, &mut s, Some(&mut initializer_names), 0)?;
    s.inputs.retain(|i| !initializer_names.contains(&i.name));
    Ok(s)
}

/// Reads a `GraphProto`: nodes (recursing into subgraphs); for the main graph also inputs,
/// outputs and initializers.
fn read_graph(bytes: &[u8], s: &mut OnnxSummary, mut main: Option<&mut Vec<String>>, depth: u32) -> Result<()> {
    if depth > 32 {
        bail!("subgraphs nested too deeply");
    }
    for field in Fields::new(bytes) {
        let (number, value) = field?;
        let Value::Bytes(b) = value else { continue };
        match number {
            1 => read_node(b, s, depth)?,
            5 if main.is_some() => {
                let (name, count) = read_tensor(b)?;
                s.initializers += 1;
                s.parameters = s.parameters.saturating_add(count);
                if let Some(names) = main.as_deref_mut() {
                    names.push(name);
                }
            }
            11 if main.is_some() => s.inputs.push(read_value_info(b)?),
            12 if main.is_some() => s.outputs.push(read_value_info(b)?),
            _ => {}
        }
    }
    Ok(())
}

fn read_node(bytes: &[u8], s: &mut OnnxSummary, depth: u32) -> Result<()> {
    let (mut op_type, mut domain) = (String::new(), String::new());
    for field in Fields::new(bytes) {
        match field? {
            (4, Value::Bytes(b)) => op_type = text(b),
            (7, Value::Bytes(b)) => domain = text(b),
            (5, Value::Bytes(attribute)) => {
                // AttributeProto: g = 6, graphs = 11
                for f in Fields::new(attribute) {
                    if let (6 | 11, Value::Bytes(g)) = f? {
                        read_graph(g, s, None, depth + 1)?;
                    }
                }
            }
            _ => {}
        }
    }
    if domain == "ai.onnx" {
        domain.clear();
    }
    *s.ops.entry((domain, op_type)).or_default() += 1;
    Ok(())
}

/// Name and element count of a `TensorProto` (dims = 1, packed or not; name = 8).
fn read_tensor(bytes: &[u8]) -> Result<(String, u64)> {
    let mut name = String::new();
    let mut count: u64 = 1;
    for field in Fields::new(bytes) {
        match field? {
            (1, Value::Varint(d)) => count = count.saturating_mul(d),
            (1, Value::Bytes(packed)) => {
                let mut p = packed;
                while !p.is_empty() {
                    let (d, rest) = varint(p)?;
                    count = count.saturating_mul(d);
                    p = rest;
                }
            }
            (8, Value::Bytes(b)) => name = text(b),
            _ => {}
        }
    }
    Ok((name, count))
}

/// `ValueInfoProto` → name, tensor element type and shape.
fn read_value_info(bytes: &[u8]) -> Result<ValueInfo> {
    let mut info = ValueInfo { elem_type: "?".into(), ..Default::default() };
    for field in Fields::new(bytes) {
        match field? {
            (1, Value::Bytes(b)) => info.name = text(b),
            (2, Value::Bytes(type_proto)) => {
                for f in Fields::new(type_proto) {
                    // TypeProto.tensor_type = 1: elem_type = 1, shape = 2
                    if let (1, Value::Bytes(tensor_type)) = f? {
                        for f in Fields::new(tensor_type) {
                            match f? {
                                (1, Value::Varint(t)) => info.elem_type = elem_type_name(t).to_string(),
                                (2, Value::Bytes(shape)) => {
                                    for dim in Fields::new(shape) {
                                        if let (1, Value::Bytes(d)) = dim? {
                                            info.dims.push(read_dim(d)?);
                                        }
                                    }
                                }
                                _ => {}
                            }
                        }
                    }
                }
            }
            _ => {}
        }
    }
    Ok(info)
}

fn read_dim(bytes: &[u8]) -> Result<String> {
    let mut dim = "?".to_string();
    for field in Fields::new(bytes) {
        match field? {
            (1, Value::Varint(v)) => dim = (v as i64).to_string(),
            (2, Value::Bytes(b)) => dim = text(b),
            _ => {}
        }
    }
    Ok(dim)
}

/// The name of a `TensorProto.DataType`.
pub fn elem_type_name(t: u64) -> &'static str {
    match t {
        1 => "float",
        2 => "uint8",
        3 => "int8",
        4 => "uint16",
        5 => "int16",
        6 => "int32",
        7 => "int64",
        8 => "string",
        9 => "bool",
        10 => "float16",
        11 => "double",
        12 => "uint32",
        13 => "uint64",
        14 => "complex64",
        15 => "complex128",
        16 => "bfloat16",
        _ => "other",
    }
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A field value of the protobuf wire format.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Value<'a> {
    Varint(u64),
    Fixed64,
    Bytes(&'a [u8]),
    Fixed32,
}

/// Iterates over the (field number, value) pairs of a message.
struct Fields<'a> {
    rest: &'a [u8],
    failed: bool,
}

impl<'a> Fields<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        Fields { rest: bytes, failed: false }
    }

    fn next_field(&mut self) -> Result<(u64, Value<'a>)> {
        let (key, rest) = varint(self.rest)?;
        let number = key >> 3;
        let (value, rest) = match key & 7 {
            0 => {
                let (v, rest) = varint(rest)?;
                (Value::Varint(v), rest)
            }
            1 => (Value::Fixed64, rest.get(8..).ok_or_else(|| anyhow!("truncated protobuf field"))?),
            2 => {
                let (len, rest) = varint(rest)?;
                let len = usize::try_from(len).map_err(|_| anyhow!("protobuf field too long"))?;
                if len > rest.len() {
                    bail!("truncated protobuf field {number} ({len} bytes, {} left)", rest.len());
                }
                (Value::Bytes(&rest[..len]), &rest[len..])
            }
            5 => (Value::Fixed32, rest.get(4..).ok_or_else(|| anyhow!("truncated protobuf field"))?),
            w => bail!("unsupported protobuf wire type {w} (field {number})"),
        };
        self.rest = rest;
        Ok((number, value))
    }
}

impl<'a> Iterator for Fields<'a> {
    type Item = Result<(u64, Value<'a>)>;
    fn next(&mut self) -> Option<Self::Item> {
        if self.failed || self.rest.is_empty() {
            return None;
        }
        let r = self.next_field();
        self.failed = r.is_err();
        Some(r)
    }
}

fn varint(bytes: &[u8]) -> Result<(u64, &[u8])> {
    let mut v: u64 = 0;
    for (i, &b) in bytes.iter().enumerate().take(10) {
        v |= ((b & 0x7f) as u64) << (7 * i);
        if b & 0x80 == 0 {
            return Ok((v, &bytes[i + 1..]));
        }
    }
    bail!("malformed protobuf varint")
}

#[cfg(test)]
mod tests {
    use super::*;

    // A tiny protobuf writer for building test models.
    fn key(number: u64, wire: u64, out: &mut Vec<u8>) {
        put_varint(number << 3 | wire, out);
    }
    fn put_varint(mut v: u64, out: &mut Vec<u8>) {
        loop {
            let b = (v & 0x7f) as u8;
            v >>= 7;
            if v == 0 {
                out.push(b);
                return;
            }
            out.push(b | 0x80);
        }
    }
    fn bytes_field(number: u64, b: &[u8], out: &mut Vec<u8>) {
        key(number, 2, out);
        put_varint(b.len() as u64, out);
        out.extend_from_slice(b);
    }
    fn int_field(number: u64, v: u64, out: &mut Vec<u8>) {
        key(number, 0, out);
        put_varint(v, out);
    }
    fn node(op: &str, domain: &str, subgraph: Option<&[u8]>) -> Vec<u8> {
        let mut n = Vec::new();
        bytes_field(1, b"x", &mut n);
        bytes_field(4, op.as_bytes(), &mut n);
        if !domain.is_empty() {
            bytes_field(7, domain.as_bytes(), &mut n);
        }
        if let Some(g) = subgraph {
            let mut a = Vec::new();
            bytes_field(1, b"then_branch", &mut a);
            bytes_field(6, g, &mut a);
            int_field(20, 5, &mut a);
            bytes_field(5, &a, &mut n);
        }
        n
    }
    fn value_info(name: &str, elem: u64, dims: &[Result<u64, &str>]) -> Vec<u8> {
        let mut shape = Vec::new();
        for d in dims {
            let mut dim = Vec::new();
            match d {
                Ok(v) => int_field(1, *v, &mut dim),
                Err(p) => bytes_field(2, p.as_bytes(), &mut dim),
            }
            bytes_field(1, &dim, &mut shape);
        }
        let mut tensor_type = Vec::new();
        int_field(1, elem, &mut tensor_type);
        bytes_field(2, &shape, &mut tensor_type);
        let mut type_proto = Vec::new();
        bytes_field(1, &tensor_type, &mut type_proto);
        let mut v = Vec::new();
        bytes_field(1, name.as_bytes(), &mut v);
        bytes_field(2, &type_proto, &mut v);
        v
    }

    fn model() -> Vec<u8> {
        let mut sub = Vec::new();
        bytes_field(1, &node("Relu", "", None), &mut sub);
        let mut g = Vec::new();
        bytes_field(1, &node("Conv", "", None), &mut g);
        bytes_field(1, &node("Conv", "ai.onnx", None), &mut g);
        bytes_field(1, &node("If", "", Some(&sub)), &mut g);
        bytes_field(1, &node("FusedMatMul", "com.microsoft", None), &mut g);
        // initializer W [8, 3, 3, 3] with unpacked dims, B [8] with packed dims
        let mut w = Vec::new();
        for d in [8, 3, 3, 3] {
            int_field(1, d, &mut w);
        }
        int_field(2, 1, &mut w);
        bytes_field(8, b"W", &mut w);
        key(5, 5, &mut w); // a float_data fixed32, skipped
        w.extend_from_slice(&[0; 4]);
        bytes_field(5, &w, &mut g);
        let mut bias = Vec::new();
        bytes_field(1, &[8], &mut bias);
        bytes_field(8, b"B", &mut bias);
        key(7, 1, &mut bias); // a fixed64, skipped
        bias.extend_from_slice(&[0; 8]);
        bytes_field(5, &bias, &mut g);
        bytes_field(11, &value_info("input", 1, &[Err("batch"), Ok(3), Ok(224), Ok(224)]), &mut g);
        bytes_field(11, &value_info("W", 1, &[Ok(8), Ok(3), Ok(3), Ok(3)]), &mut g);
        bytes_field(12, &value_info("out", 7, &[Ok(1)]), &mut g);
        let mut m = Vec::new();
        int_field(1, 8, &mut m);
        bytes_field(2, b"pytorch", &mut m);
        bytes_field(3, b"2.5", &mut m);
        let mut opset = Vec::new();
        int_field(2, 17, &mut opset);
        bytes_field(8, &opset, &mut m);
        let mut opset = Vec::new();
        bytes_field(1, b"com.microsoft", &mut opset);
        int_field(2, 1, &mut opset);
        bytes_field(8, &opset, &mut m);
        bytes_field(7, &g, &mut m);
        m
    }

    #[test]
    fn summarizes_a_model() {
        let s = summarize(&model()).unwrap();
        assert_eq!(s.ir_version, 8);
        assert_eq!(s.producer, "pytorch 2.5");
        assert_eq!(s.opsets, vec![("".to_string(), 17), ("com.microsoft".to_string(), 1)]);
        let ops: Vec<_> = s.ops.iter().map(|((d, o), n)| (d.as_str(), o.as_str(), *n)).collect();
        assert_eq!(ops, vec![("", "Conv", 2), ("", "If", 1), ("", "Relu", 1), ("com.microsoft", "FusedMatMul", 1)]);
        assert_eq!((s.initializers, s.parameters), (2, 8 * 27 + 8));
        assert_eq!(s.inputs.len(), 1, "initializers listed as inputs are not inputs");
        assert_eq!(s.inputs[0].name, "input");
        assert_eq!(s.inputs[0].elem_type, "float");
        assert_eq!(s.inputs[0].dims, vec!["batch", "3", "224", "224"]);
        assert_eq!(s.outputs[0].elem_type, "int64");
    }

    #[test]
    fn malformed_input_is_an_error() {
        let m = model();
        // Every truncation either parses (cut at a field boundary of the outer message, which
        // then lacks the graph) or fails; none panics.
        for cut in 0..m.len() {
            let _ = summarize(&m[..cut]);
        }
        assert!(summarize(&[]).unwrap_err().to_string().contains("no graph"));
        assert!(summarize(&[0x3a, 0x05, 1]).unwrap_err().to_string().contains("truncated"));
        assert!(summarize(&[0x0b]).unwrap_err().to_string().contains("wire type"));
        assert!(summarize(&[0xff; 12]).unwrap_err().to_string().contains("varint"));
        assert!(summarize(b"not a protobuf at all").is_err());
    }
}

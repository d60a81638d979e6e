//! Builds small ONNX models in memory for the importer tests.

#![allow(dead_code)]

use prost::Message;
use webnn_onnx::proto::{
    attribute_type as at, data_type as dt, tensor_shape_proto::dimension, tensor_shape_proto::Dimension, type_proto,
    AttributeProto, GraphProto, ModelProto, NodeProto, OperatorSetIdProto, TensorProto, TensorShapeProto, TypeProto,
    ValueInfoProto,
};

/// A tensor value info with fixed (`Ok`) or symbolic (`Err`) dims.
pub fn value_info(name: &str, elem: i32, dims: &[Result<i64, &str>]) -> ValueInfoProto {
    let dim = dims
        .iter()
        .map(|d| Dimension {
            value: Some(match d {
                Ok(v) => dimension::Value::DimValue(*v),
                Err(s) => dimension::Value::DimParam(s.to_string()),
            }),
            denotation: None,
        })
        .collect();
    ValueInfoProto {
        name: Some(name.into()),
        r#type: Some(TypeProto {
            value: Some(type_proto::Value::TensorType(type_proto::Tensor {
                elem_type: Some(elem),
                shape: Some(TensorShapeProto { dim }),
            })),
            denotation: None,
        }),
    }
}

/// A float input/output with fixed dims.
pub fn f32_info(name: &str, dims: &[i64]) -> ValueInfoProto {
    value_info(name, dt::FLOAT, &dims.iter().map(|&d| Ok(d)).collect::<Vec<_>>())
}

/// A node.
pub fn node(op: &str, name: &str, inputs: &[&str], outputs: &[&str], attrs: Vec<AttributeProto>) -> NodeProto {
    NodeProto {
        input: inputs.iter().map(|s| s.to_string()).collect(),
        output: outputs.iter().map(|s| s.to_string()).collect(),
        name: Some(name.into()),
        op_type: Some(op.into()),
        domain: None,
        overload: None,
        attribute: attrs,
    }
}

pub fn attr_i(name: &str, v: i64) -> AttributeProto {
    AttributeProto { name: Some(name.into()), r#type: Some(at::INT), i: Some(v), ..Default::default() }
}

pub fn attr_f(name: &str, v: f32) -> AttributeProto {
    AttributeProto { name: Some(name.into()), r#type: Some(at::FLOAT), f: Some(v), ..Default::default() }
}

pub fn attr_ints(name: &str, v: &[i64]) -> AttributeProto {
    AttributeProto { name: Some(name.into()), r#type: Some(at::INTS), ints: v.to_vec(), ..Default::default() }
}

pub fn attr_s(name: &str, v: &str) -> AttributeProto {
    AttributeProto {
        name: Some(name.into()),
        r#type: Some(at::STRING),
        s: Some(v.as_bytes().to_vec()),
        ..Default::default()
    }
}

/// A float initializer (raw_data).
pub fn f32_tensor(name: &str, dims: &[i64], vals: &[f32]) -> TensorProto {
    TensorProto {
        name: Some(name.into()),
        dims: dims.to_vec(),
        data_type: Some(dt::FLOAT),
        raw_data: Some(vals.iter().flat_map(|v| v.to_le_bytes()).collect()),
        ..Default::default()
    }
}

/// An int64 initializer (int64_data).
pub fn i64_tensor(name: &str, dims: &[i64], vals: &[i64]) -> TensorProto {
    TensorProto {
        name: Some(name.into()),
        dims: dims.to_vec(),
        data_type: Some(dt::INT64),
        int64_data: vals.to_vec(),
        ..Default::default()
    }
}

/// A model of one graph at the given opset.
pub fn model(
    opset: i64,
    nodes: Vec<NodeProto>,
    inputs: Vec<ValueInfoProto>,
    outputs: Vec<ValueInfoProto>,
    inits: Vec<TensorProto>,
) -> ModelProto {
    ModelProto {
        ir_version: Some(8),
        opset_import: vec![OperatorSetIdProto { domain: Some(String::new()), version: Some(opset) }],
        producer_name: Some("webnn-onnx tests".into()),
        graph: Some(GraphProto {
            node: nodes,
            name: Some("g".into()),
            initializer: inits,
            input: inputs,
            output: outputs,
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// Serialized bytes of a model.
pub fn bytes(m: &ModelProto) -> Vec<u8> {
    m.encode_to_vec()
}

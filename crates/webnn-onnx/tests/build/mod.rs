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

/// An initializer named `name` of `data_type` and `dims`, without data.
fn tensor(name: &str, dims: &[i64], data_type: i32) -> TensorProto {
    TensorProto { name: Some(name.into()), dims: dims.to_vec(), data_type: Some(data_type), ..Default::default() }
}

/// A float initializer (raw_data).
pub fn f32_tensor(name: &str, dims: &[i64], vals: &[f32]) -> TensorProto {
    let raw_data = Some(vals.iter().flat_map(|v| v.to_le_bytes()).collect());
    TensorProto { raw_data, ..tensor(name, dims, dt::FLOAT) }
}

/// An int64 initializer (int64_data).
pub fn i64_tensor(name: &str, dims: &[i64], vals: &[i64]) -> TensorProto {
    TensorProto { int64_data: vals.to_vec(), ..tensor(name, dims, dt::INT64) }
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

/// An opset-17 model of the one node `n` from the float32 input "x" of shape `x` to the
/// float32 output "y" of shape `y`, with `inits` as initializers.
pub fn x_to_y(n: NodeProto, x: &[i64], y: &[i64], inits: Vec<TensorProto>) -> ModelProto {
    model(17, vec![n], vec![f32_info("x", x)], vec![f32_info("y", y)], inits)
}

/// An opset-17 model of the one node `n` from the input "x" to the output "y", both of
/// element type `elem` and the dims given.
pub fn typed_x_to_y(n: NodeProto, elem: i32, dims: &[Result<i64, &str>]) -> ModelProto {
    model(17, vec![n], vec![value_info("x", elem, dims)], vec![value_info("y", elem, dims)], vec![])
}

/// Serialized bytes of a model.
pub fn bytes(m: &ModelProto) -> Vec<u8> {
    m.encode_to_vec()
}

//! Constant operands at lowering: their bytes ([`constant_bytes`]) and their values widened to
//! f32 ([`constant_f32`]).

use super::float_elem::bytes_to_f32;
use webnn_core::graph::OperandSource;
use webnn_core::{Graph, OperandId};

/// The bytes of `id` if it is a constant of the graph.
pub fn constant_bytes(graph: &Graph, id: OperandId) -> Option<&[u8]> {
    match graph.operands.get(id.index())?.source {
        OperandSource::Constant(i) => graph.constants.get(i).map(|c| &c.bytes[..]),
        _ => None,
    }
}

/// The f32 values of a constant operand, if `id` is a float constant.
pub fn constant_f32(graph: &Graph, id: OperandId) -> Option<Vec<f32>> {
    let bytes = constant_bytes(graph, id)?;
    bytes_to_f32(graph.descriptor(id).data_type, bytes)
}

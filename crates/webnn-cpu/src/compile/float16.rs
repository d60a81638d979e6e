//! float16 graphs computed in float32: the values between operations are held in float32, and
//! rounded to float16 where the graph says so (its outputs and its casts to float16).
//!
//! This CPU has no float16 arithmetic: a float16 kernel widens its operands, computes in f32
//! and rounds its result once ([`crate::kernels::float_elem`]). Doing that per operation costs
//! two conversions per value per step and keeps float16 graphs off everything the float32
//! pipeline has: packed weights, fused epilogues, the activation patterns, Winograd, the
//! vector kernels. So before the other passes, [`widen`] rewrites the graph:
//!
//! - the results of operations are float32 operands, except graph outputs (the operation
//!   writes a float32 operand, then a cast rounds it into the output) and the results of
//!   casts to float16 (kept, so the cast rounds as written; a float32 copy follows for the
//!   readers that compute);
//! - float16 constants read by computing operations get a float32 copy (exact) at build;
//! - a float16 graph input is cast to float32 (exact) once, before its first reader;
//! - a cast whose input was float16 reads a float16 value: the widened one is rounded first,
//!   so `cast(float16 → float32)` at the end of a model with float32 outputs still rounds;
//! - operations that only move values (transpose, reshape, gather, concat, ...) stay on
//!   float16 where their inputs have a float16 form, so they cost no conversion and keep the
//!   values' bits (NaN payloads included).
//!
//! **What changes** (decided here; ONNX Runtime's CPU provider does the same with the casts it
//! inserts around its float32 kernels): a graph of one operation gives the bits it gave before
//! (the kernel computed in f32 and rounded once either way). Between operations, the spec's
//! rounding of each float16 result is not done, so a chain is closer to the exact values than
//! the per-operation arithmetic, and a value past 65504 inside the graph stays finite where the
//! per-operation one became infinite. Measured on the float16 bench models against the
//! per-operation path and against the float32 model (ARCHITECTURE.md, issue 12).
//! `WEBNN_FLOAT16=strict` keeps the per-operation rounding (every float16 operand stays
//! float16, as the graph was built).

use std::collections::HashMap;
use webnn_core::graph::{Attrs, Constant, OperandNode, OperandSource, Operation};
use webnn_core::types::Scalar;
use webnn_core::{DataType, Graph, OpKind, OperandDescriptor, OperandId, SharedBytes};

/// Whether the environment keeps the per-operation float16 rounding (`WEBNN_FLOAT16=strict`).
pub fn strict_by_env() -> bool {
    std::env::var("WEBNN_FLOAT16").is_ok_and(|v| v == "strict")
}

/// The graph with its float16 interior in float32 (see the module doc), or `None` when it has
/// no float16 operand (or a float32 copy of a constant cannot be allocated, or the graph is not
/// in topological order: it then runs as built).
pub fn widen(graph: &Graph) -> Option<Graph> {
    if !graph.operands.iter().any(|o| o.descriptor.data_type == DataType::Float16) {
        return None;
    }
    let mut w = Widener {
        old: graph,
        new: Graph {
            operands: graph.operands.clone(),
            operations: Vec::with_capacity(graph.operations.len() + graph.inputs.len() + graph.outputs.len()),
            inputs: graph.inputs.clone(),
            outputs: graph.outputs.clone(),
            constants: graph.constants.clone(),
        },
        wide: HashMap::new(),
        // Inputs and constants keep their float16 operand.
        narrow: graph
            .operands
            .iter()
            .enumerate()
            .filter(|(_, o)| !matches!(o.source, OperandSource::Operation { .. }))
            .map(|(i, _)| (OperandId(i as u32), OperandId(i as u32)))
            .collect(),
    };
    for op in &graph.operations {
        w.operation(op)?;
    }
    w.drop_unread_constants();
    Some(w.new)
}

struct Widener<'g> {
    old: &'g Graph,
    new: Graph,
    /// The float32 operand holding each float16 value, where one exists.
    wide: HashMap<OperandId, OperandId>,
    /// The float16 operand holding each float16 value, where one exists.
    narrow: HashMap<OperandId, OperandId>,
}

impl Widener<'_> {
    fn is_f16(&self, id: OperandId) -> bool {
        self.old.descriptor(id).data_type == DataType::Float16
    }

    fn is_output(&self, id: OperandId) -> bool {
        self.old.outputs.iter().any(|(_, o)| *o == id)
    }

    /// Appends `op` to `self.new`, with the conversions it needs before it and the rounding
    /// of its graph outputs after it.
    fn operation(&mut self, op: &Operation) -> Option<()> {
        // Casts read and write float16 as written; operations that only move values do so on
        // float16 where every input has a float16 form (graph inputs, constants, results of
        // moves and casts): a transpose or gather of those costs no conversion and keeps
        // their bits.
        let mut f16_inputs = op.inputs.iter().flatten().filter(|id| self.is_f16(**id));
        let narrow =
            op.kind == OpKind::Cast || (moves_values(op.kind) && f16_inputs.all(|id| self.narrow.contains_key(id)));
        let mut new_op = op.clone();
        for input in new_op.inputs.iter_mut() {
            let Some(id) = *input else { continue };
            if !self.is_f16(id) {
                continue;
            }
            *input = Some(if narrow { self.narrow_of(id, &op.label)? } else { self.wide_of(id, &op.label)? });
        }
        if !narrow {
            new_op.attrs = widened_attrs(&op.attrs);
        }
        let mut rounded = Vec::new();
        for out in new_op.outputs.iter_mut() {
            let id = *out;
            if !self.is_f16(id) || narrow {
                self.narrow.insert(id, id);
                continue;
            }
            if self.is_output(id) {
                // The operation writes a float32 operand; a cast rounds it into the output.
                let wide = self.operand(as_f32(self.old.descriptor(id)), None);
                self.wide.insert(id, wide);
                self.narrow.insert(id, id);
                rounded.push((wide, id));
                *out = wide;
            } else {
                self.new.operands[id.index()].descriptor = as_f32(self.old.descriptor(id));
                self.wide.insert(id, id);
            }
        }
        self.push(new_op);
        for (wide, output) in rounded {
            self.push_cast(wide, output, &op.label);
        }
        Some(())
    }

    /// The float32 operand holding float16 value `id` (created on first use: a converted
    /// constant, or a cast of the float16 operand).
    fn wide_of(&mut self, id: OperandId, label: &str) -> Option<OperandId> {
        if let Some(&w) = self.wide.get(&id) {
            return Some(w);
        }
        let desc = as_f32(self.old.descriptor(id));
        let wide = match self.old.operands[id.index()].source {
            OperandSource::Constant(k) => {
                let bytes = widen_bytes(&self.old.constants[k].bytes)?;
                let wide = self.operand(desc, Some(OperandSource::Constant(self.new.constants.len())));
                self.new.constants.push(Constant { operand: wide, bytes, tensor_destroyed: None });
                wide
            }
            _ => {
                let narrow = *self.narrow.get(&id)?;
                let wide = self.operand(desc, None);
                self.push_cast(narrow, wide, label);
                wide
            }
        };
        self.wide.insert(id, wide);
        Some(wide)
    }

    /// The float16 operand holding float16 value `id` (created on first use: a cast rounding
    /// the float32 one).
    fn narrow_of(&mut self, id: OperandId, label: &str) -> Option<OperandId> {
        if let Some(&n) = self.narrow.get(&id) {
            return Some(n);
        }
        let wide = *self.wide.get(&id)?;
        let narrow = self.operand(self.old.descriptor(id).clone(), None);
        self.push_cast(wide, narrow, label);
        self.narrow.insert(id, narrow);
        Some(narrow)
    }

    /// A new operand (its source set by [`Self::push`] when `source` is `None`).
    fn operand(&mut self, descriptor: OperandDescriptor, source: Option<OperandSource>) -> OperandId {
        let id = OperandId(self.new.operands.len() as u32);
        let source = source.unwrap_or(OperandSource::Operation { op: usize::MAX, output: 0 });
        self.new.operands.push(OperandNode { descriptor, source });
        id
    }

    fn push_cast(&mut self, from: OperandId, to: OperandId, label: &str) {
        self.push(Operation {
            kind: OpKind::Cast,
            inputs: vec![Some(from)],
            outputs: vec![to],
            attrs: Attrs::None,
            label: label.to_string(),
        });
    }

    /// Appends `op` and points its outputs' sources at it.
    fn push(&mut self, op: Operation) {
        let index = self.new.operations.len();
        for (k, out) in op.outputs.iter().enumerate() {
            self.new.operands[out.index()].source = OperandSource::Operation { op: index, output: k };
        }
        self.new.operations.push(op);
    }

    /// Drops the constants that no operation reads any more (float16 ones that only had a
    /// float32 copy read), so that the plan holds and reports only what it uses.
    fn drop_unread_constants(&mut self) {
        let mut read = vec![false; self.new.operands.len()];
        for op in &self.new.operations {
            for id in op.inputs.iter().flatten() {
                read[id.index()] = true;
            }
        }
        for (_, id) in &self.new.outputs {
            read[id.index()] = true;
        }
        let constants = std::mem::take(&mut self.new.constants);
        for c in constants {
            if read[c.operand.index()] {
                self.new.operands[c.operand.index()].source = OperandSource::Constant(self.new.constants.len());
                self.new.constants.push(c);
            }
        }
    }
}

/// Operations whose results are values of their inputs, moved (or zeros, or the pad value):
/// they compute nothing that float32 would make more exact.
fn moves_values(kind: OpKind) -> bool {
    use OpKind::*;
    matches!(
        kind,
        Concat
            | Expand
            | Gather
            | GatherElements
            | GatherNd
            | Identity
            | Pad
            | Reshape
            | Reverse
            | ScatterElements
            | ScatterNd
            | Slice
            | Split
            | Tile
            | Transpose
            | Triangular
            | Where
    )
}

/// `desc` with data type float32.
fn as_f32(desc: &OperandDescriptor) -> OperandDescriptor {
    OperandDescriptor { data_type: DataType::Float32, shape: desc.shape.clone() }
}

/// Attributes with their float16 scalars (clamp bounds, pad value) as float32 (exact).
fn widened_attrs(attrs: &Attrs) -> Attrs {
    let widen = |s: &Scalar| match *s {
        Scalar::F16(v) => Scalar::F32(v.to_f32()),
        other => other,
    };
    match attrs {
        Attrs::Clamp { min, max } => Attrs::Clamp { min: widen(min), max: widen(max) },
        Attrs::Pad { beginning, ending, mode, value } => {
            Attrs::Pad { beginning: beginning.clone(), ending: ending.clone(), mode: *mode, value: widen(value) }
        }
        other => other.clone(),
    }
}

/// Little-endian float16 bytes as float32 bytes (`None` if they cannot be allocated).
fn widen_bytes(bytes: &[u8]) -> Option<SharedBytes> {
    let values = crate::kernels::float_elem::bytes_to_f32(DataType::Float16, bytes)?;
    SharedBytes::try_copy_from(bytemuck::cast_slice(&values)).ok()
}

#[cfg(test)]
#[path = "float16_tests.rs"]
mod tests;

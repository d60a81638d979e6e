//! The support limits ([spec](https://www.w3.org/TR/webnn/#api-mlcontext-opsupportlimits)
//! `MLOpSupportLimits`): for every operand of every op, the data types and ranks this
//! implementation accepts. This is exactly what the spec allows (every listed data type, every rank
//! up to our [`MAX_RANK`]); the builder enforces exactly this table and `opSupportLimits()` reports
//! exactly it.

use crate::error::{label_prefix, Error, Result};
use crate::ops::OpKind;
use crate::types::{DataType, InputOperandLayout, OperandDescriptor, MAX_DIMENSION, MAX_RANK};
use std::sync::{Arc, Mutex};
use DataType::*;

/// `MLRankRange`
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RankRange {
    /// `min`
    pub min: u32,
    /// `max`
    pub max: u32,
}

/// `MLTensorLimits`: allowed data types and ranks of one operand.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TensorLimits {
    /// `dataTypes`
    pub data_types: &'static [DataType],
    /// `rankRange`
    pub rank_range: RankRange,
}

impl TensorLimits {
    /// True if the descriptor's data type and rank are allowed.
    pub fn allows(&self, desc: &OperandDescriptor) -> bool {
        self.data_types.contains(&desc.data_type)
            && (self.rank_range.min..=self.rank_range.max).contains(&(desc.rank() as u32))
    }
}

/// Every data type.
pub const ANY: &[DataType] = &[Float32, Float16, Int32, Uint32, Int64, Uint64, Int8, Uint8];
/// float32 and float16.
pub const FLOAT: &[DataType] = &[Float32, Float16];
/// The signed types of abs, neg, sign, relu, prelu.
pub const FLOAT_AND_SIGNED: &[DataType] = &[Float32, Float16, Int64, Int32, Int8];
/// The types of reduceL1/Sum/Product/SumSquare and cumulativeSum.
pub const FLOAT_AND_WIDE_INT: &[DataType] = &[Float32, Float16, Int32, Uint32, Int64, Uint64];
/// Index types of gather/scatter.
pub const INDEX: &[DataType] = &[Int32, Uint32, Int64];
/// Quantized types of (de)quantizeLinear.
pub const QUANTIZED: &[DataType] = &[Uint8, Int8, Uint32, Int32];
/// resample2d types.
pub const RESAMPLE: &[DataType] = &[Float32, Float16, Uint8, Int8];
/// argMin/argMax output types.
pub const ARG_OUTPUT: &[DataType] = &[Int32, Int64];
/// uint8 only (logical ops, where's condition).
pub const UINT8: &[DataType] = &[Uint8];

const N: u32 = MAX_RANK as u32;

const fn lim(data_types: &'static [DataType], min: u32, max: u32) -> TensorLimits {
    TensorLimits { data_types, rank_range: RankRange { min, max } }
}

/// `{ input, output }` with the same limits.
fn single(data_types: &'static [DataType], min: u32, max: u32) -> Vec<(&'static str, TensorLimits)> {
    vec![("input", lim(data_types, min, max)), ("output", lim(data_types, min, max))]
}

/// `{ a, b, output }` of any rank.
fn binary(inputs: &'static [DataType], output: &'static [DataType]) -> Vec<(&'static str, TensorLimits)> {
    vec![("a", lim(inputs, 0, N)), ("b", lim(inputs, 0, N)), ("output", lim(output, 0, N))]
}

/// `{ a, output }` of any rank.
fn logical_not(input: &'static [DataType], output: &'static [DataType]) -> Vec<(&'static str, TensorLimits)> {
    vec![("a", lim(input, 0, N)), ("output", lim(output, 0, N))]
}

macro_rules! define_op_limits {
    ($($variant:ident $idl:literal $anchor:literal $method:ident by $via:ident $operands:tt
        [$($arg:ident: $argty:ty = $argidl:literal $argkind:literal),*] $options:ident $ret:ident
        $limits_kind:ident: $limits:expr;)+) => {
        /// The limits of every member of `op`'s support-limits dictionary, in IDL member order
        /// (the names of `op.limits_kind().members()`): the limits column of the op table.
        pub fn op_limits(op: OpKind) -> Vec<(&'static str, TensorLimits)> {
            match op { $(OpKind::$variant => $limits,)+ }
        }
    };
}

crate::for_each_op!(define_op_limits);

/// The limits of one member of `op`'s dictionary.
pub fn member_limits(op: OpKind, member: &str) -> Option<TensorLimits> {
    op_limits(op).into_iter().find(|(m, _)| *m == member).map(|(_, l)| l)
}

/// Checks `desc` against the limits of `member` of `op`: a TypeError naming the op, the
/// label, the member and the offending data type or rank otherwise.
pub fn check_member(op: OpKind, label: &str, member: &str, desc: &OperandDescriptor) -> Result<()> {
    let Some(limits) = member_limits(op, member) else {
        return Err(Error::unknown(format!("{}{op}: no limits for operand '{member}'", label_prefix(label))));
    };
    if !limits.data_types.contains(&desc.data_type) {
        let allowed: Vec<_> = limits.data_types.iter().map(|t| t.as_str()).collect();
        return Err(Error::type_error(format!(
            "{}{op}: {member} data type {} is not supported; allowed: [{}]",
            label_prefix(label),
            desc.data_type,
            allowed.join(", ")
        )));
    }
    let rank = desc.rank() as u32;
    if rank < limits.rank_range.min || rank > limits.rank_range.max {
        return Err(Error::type_error(format!(
            "{}{op}: {member} rank {rank} (shape {:?}) is not in [{}, {}]",
            label_prefix(label),
            desc.shape,
            limits.rank_range.min,
            limits.rank_range.max
        )));
    }
    Ok(())
}

/// `MLOpSupportLimits` ([spec](https://www.w3.org/TR/webnn/#api-mlcontext-opsupportlimits)): the
/// context-level limits plus one entry per op.
///
/// A context reports, and its builder enforces, exactly its backend's table: the spec's
/// table ([`op_limits`]) for the CPU engine, a narrower one ([`OpSupportLimits::restricted`])
/// for a backend that executes less (the GPU one). An op a backend does not execute at all
/// reports empty `dataTypes` lists.
#[derive(Debug, Clone)]
pub struct OpSupportLimits {
    /// `preferredInputLayout`
    pub preferred_input_layout: InputOperandLayout,
    /// `maxTensorByteLength`
    pub max_tensor_byte_length: u64,
    /// `input`: limits of graph inputs.
    pub input: TensorLimits,
    /// `constant`: limits of constants.
    pub constant: TensorLimits,
    /// `output`: limits of graph outputs.
    pub output: TensorLimits,
    /// Per op (indexed by `OpKind as usize`), per member: the limits, when narrower than the
    /// spec's table; `None` for the spec's table itself.
    ops: Option<Arc<Vec<MemberLimits>>>,
}

/// The limits of one op's members, by member name.
type MemberLimits = Vec<(&'static str, TensorLimits)>;

/// The words of the TypeError a builder raises for an operand its context's narrower limits
/// leave out (a harness may skip such a case, naming the op × data type).
pub const NOT_IN_CONTEXT_LIMITS: &str = "is not supported by this context (opSupportLimits)";

/// The largest tensor byte length: the largest element count times the largest element size.
pub const MAX_TENSOR_BYTE_LENGTH: u64 = MAX_DIMENSION * 8;

/// A `'static` slice holding `types`: the data-type lists of restricted tables are interned,
/// so there are at most 2^8 of them (one per subset of the 8 types) for the whole process.
fn intern(types: Vec<DataType>) -> &'static [DataType] {
    static INTERNED: Mutex<Vec<&'static [DataType]>> = Mutex::new(Vec::new());
    let mut interned = INTERNED.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(found) = interned.iter().find(|s| **s == types.as_slice()) {
        return found;
    }
    let leaked: &'static [DataType] = Box::leak(types.into_boxed_slice());
    interned.push(leaked);
    leaked
}

impl OpSupportLimits {
    /// The limits of this implementation's spec table (the CPU engine executes all of it).
    pub fn new(preferred_input_layout: InputOperandLayout) -> Self {
        OpSupportLimits {
            preferred_input_layout,
            max_tensor_byte_length: MAX_TENSOR_BYTE_LENGTH,
            input: lim(ANY, 0, N),
            constant: lim(ANY, 0, N),
            output: lim(ANY, 0, N),
            ops: None,
        }
    }

    /// The spec's table narrowed to what a backend executes: a data type stays in an op
    /// member's list only if `keeps(op, member, data_type)`; graph inputs, constants and
    /// outputs keep the data types of `io_types`; tensors are at most `max_tensor_byte_length`.
    pub fn restricted(
        preferred_input_layout: InputOperandLayout,
        max_tensor_byte_length: u64,
        io_types: &[DataType],
        keeps: impl Fn(OpKind, &'static str, DataType) -> bool,
    ) -> Self {
        let io = intern(ANY.iter().copied().filter(|t| io_types.contains(t)).collect());
        let ops = OpKind::ALL
            .iter()
            .map(|&op| {
                op_limits(op)
                    .into_iter()
                    .map(|(member, l)| {
                        let kept = l.data_types.iter().copied().filter(|&t| keeps(op, member, t)).collect();
                        (member, TensorLimits { data_types: intern(kept), rank_range: l.rank_range })
                    })
                    .collect()
            })
            .collect();
        OpSupportLimits {
            preferred_input_layout,
            max_tensor_byte_length: max_tensor_byte_length.min(MAX_TENSOR_BYTE_LENGTH),
            input: lim(io, 0, N),
            constant: lim(io, 0, N),
            output: lim(io, 0, N),
            ops: Some(Arc::new(ops)),
        }
    }

    /// True if this is the spec's whole table (nothing narrowed).
    pub fn is_complete(&self) -> bool {
        self.ops.is_none()
    }

    /// The limits of one op (member name → limits), as in [`op_limits`] or narrower.
    pub fn op(&self, op: OpKind) -> Vec<(&'static str, TensorLimits)> {
        match &self.ops {
            None => op_limits(op),
            Some(ops) => ops.get(op as usize).cloned().unwrap_or_default(),
        }
    }

    /// Checks an operand of a builder call against this table (after the spec's own checks
    /// passed): a TypeError naming the op, the label, the member and the data type this
    /// context does not execute. Also checks a graph input's or constant's data type and
    /// byte length (`member` "input" / "constant" with `op` None).
    pub fn check_member(&self, op: OpKind, label: &str, member: &str, desc: &OperandDescriptor) -> Result<()> {
        let Some(ops) = &self.ops else { return Ok(()) };
        let Some((_, limits)) = ops.get(op as usize).and_then(|m| m.iter().find(|(m, _)| *m == member)) else {
            return Ok(());
        };
        if !limits.data_types.contains(&desc.data_type) {
            let allowed: Vec<_> = limits.data_types.iter().map(|t| t.as_str()).collect();
            return Err(Error::type_error(format!(
                "{}{op}: {member} data type {} {NOT_IN_CONTEXT_LIMITS}; allowed: [{}]",
                label_prefix(label),
                desc.data_type,
                allowed.join(", ")
            )));
        }
        Ok(())
    }

    /// Checks a graph input's or constant's descriptor (`what` is "input" or "constant")
    /// against the context-level `input` / `constant` limits and `maxTensorByteLength`.
    pub fn check_io(&self, what: &str, desc: &OperandDescriptor) -> Result<()> {
        if self.ops.is_none() {
            return Ok(());
        }
        let limits = if what == "constant" { &self.constant } else { &self.input };
        if !limits.data_types.contains(&desc.data_type) {
            let allowed: Vec<_> = limits.data_types.iter().map(|t| t.as_str()).collect();
            return Err(Error::type_error(format!(
                "{what}: data type {} {NOT_IN_CONTEXT_LIMITS}; allowed: [{}]",
                desc.data_type,
                allowed.join(", ")
            )));
        }
        if desc.byte_length() > self.max_tensor_byte_length {
            return Err(Error::type_error(format!(
                "{what}: {desc} has {} bytes, more than maxTensorByteLength {}, so it {NOT_IN_CONTEXT_LIMITS}",
                desc.byte_length(),
                self.max_tensor_byte_length
            )));
        }
        Ok(())
    }

    /// The whole dictionary as JSON, with the IDL member names.
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::{json, Map, Value};
        let t = |l: &TensorLimits| {
            json!({
                "dataTypes": l.data_types.iter().map(|d| d.as_str()).collect::<Vec<_>>(),
                "rankRange": {"min": l.rank_range.min, "max": l.rank_range.max},
            })
        };
        let mut root = Map::new();
        root.insert("preferredInputLayout".into(), Value::from(self.preferred_input_layout.as_str()));
        root.insert("maxTensorByteLength".into(), Value::from(self.max_tensor_byte_length));
        root.insert("input".into(), t(&self.input));
        root.insert("constant".into(), t(&self.constant));
        root.insert("output".into(), t(&self.output));
        for op in OpKind::ALL {
            let mut m = Map::new();
            for (name, l) in self.op(*op) {
                m.insert(name.into(), t(&l));
            }
            root.insert(op.idl_name().into(), Value::Object(m));
        }
        Value::Object(root)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_op_has_exactly_its_dictionary_members() {
        for op in OpKind::ALL {
            let names: Vec<_> = op_limits(*op).into_iter().map(|(n, _)| n).collect();
            let expected: Vec<_> = op.limits_kind().members().collect();
            assert_eq!(names, expected, "{op}");
        }
    }

    #[test]
    fn json_has_every_op() {
        let j = OpSupportLimits::new(InputOperandLayout::Nchw).to_json();
        for op in OpKind::ALL {
            assert!(j.get(op.idl_name()).is_some(), "{op}");
        }
        assert_eq!(j["conv2d"]["filter"]["rankRange"]["min"], 4);
    }

    #[test]
    fn a_restricted_table_keeps_only_what_the_backend_executes() {
        let l = OpSupportLimits::restricted(InputOperandLayout::Nhwc, 1 << 20, &[Float32, Int32], |op, member, t| {
            op == OpKind::Add || (member == "indices" && t == Int32) || t == Float32
        });
        assert!(!l.is_complete());
        let add = l.op(OpKind::Add);
        assert_eq!(add, op_limits(OpKind::Add));
        let gather: std::collections::HashMap<_, _> = l.op(OpKind::Gather).into_iter().collect();
        assert_eq!(gather["indices"].data_types, &[Int32]);
        assert_eq!(gather["input"].data_types, &[Float32]);
        let j = l.to_json();
        assert_eq!(j["maxTensorByteLength"], 1 << 20);
        assert_eq!(j["input"]["dataTypes"], serde_json::json!(["float32", "int32"]));
        let f16 = OperandDescriptor::new(Float16, [2]);
        let e = l.check_member(OpKind::Relu, "r", "input", &f16).unwrap_err();
        assert_eq!(e.kind, crate::ErrorKind::Type);
        assert!(e.message.contains("[r] relu: input data type float16"), "{}", e.message);
        assert!(l.check_io("input", &f16).is_err());
        assert!(l.check_io("input", &OperandDescriptor::new(Float32, [1 << 20])).is_err());
        assert!(l.check_io("constant", &OperandDescriptor::new(Float32, [4])).is_ok());
        // The spec's table narrows nothing.
        assert!(OpSupportLimits::new(InputOperandLayout::Nchw).check_member(OpKind::Relu, "", "input", &f16).is_ok());
    }
}

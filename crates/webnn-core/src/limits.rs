//! The support limits (§8.3.7 `MLOpSupportLimits`): for every operand of every op, the data
//! types and ranks this implementation accepts. This is exactly what the spec allows (every
//! listed data type, every rank up to our [`MAX_RANK`]); the builder enforces exactly this
//! table and `opSupportLimits()` reports exactly it.

use crate::error::{label_prefix, Error, Result};
use crate::ops::OpKind;
use crate::types::{DataType, InputOperandLayout, OperandDescriptor, MAX_DIMENSION, MAX_RANK};
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

/// The limits of every member of `op`'s support-limits dictionary, in IDL member order
/// (the names of `op.limits_kind().members()`).
pub fn op_limits(op: OpKind) -> Vec<(&'static str, TensorLimits)> {
    use OpKind::*;
    let single = |t: &'static [DataType], min: u32, max: u32| vec![("input", lim(t, min, max)), ("output", lim(t, min, max))];
    match op {
        ArgMin | ArgMax => vec![("input", lim(ANY, 1, N)), ("output", lim(ARG_OUTPUT, 0, N))],
        BatchNormalization => vec![
            ("input", lim(FLOAT, 1, N)),
            ("mean", lim(FLOAT, 1, 1)),
            ("variance", lim(FLOAT, 1, 1)),
            ("scale", lim(FLOAT, 1, 1)),
            ("bias", lim(FLOAT, 1, 1)),
            ("output", lim(FLOAT, 1, N)),
        ],
        Cast | Clamp | Expand | Identity | Pad | Reshape | Reverse | Slice | Tile | Transpose => single(ANY, 0, N),
        Concat => vec![("inputs", lim(ANY, 1, N)), ("output", lim(ANY, 1, N))],
        Conv2d | ConvTranspose2d => vec![
            ("input", lim(FLOAT, 4, 4)),
            ("filter", lim(FLOAT, 4, 4)),
            ("bias", lim(FLOAT, 1, 1)),
            ("output", lim(FLOAT, 4, 4)),
        ],
        CumulativeSum => single(FLOAT_AND_WIDE_INT, 1, N),
        Add | Sub | Mul | Div | Max | Min | Pow => {
            vec![("a", lim(ANY, 0, N)), ("b", lim(ANY, 0, N)), ("output", lim(ANY, 0, N))]
        }
        Equal | NotEqual | Greater | GreaterOrEqual | Lesser | LesserOrEqual => {
            vec![("a", lim(ANY, 0, N)), ("b", lim(ANY, 0, N)), ("output", lim(UINT8, 0, N))]
        }
        LogicalAnd | LogicalOr | LogicalXor => {
            vec![("a", lim(UINT8, 0, N)), ("b", lim(UINT8, 0, N)), ("output", lim(UINT8, 0, N))]
        }
        LogicalNot => vec![("a", lim(UINT8, 0, N)), ("output", lim(UINT8, 0, N))],
        IsNaN | IsInfinite => vec![("a", lim(FLOAT, 0, N)), ("output", lim(UINT8, 0, N))],
        Abs | Neg | Sign | Relu => single(FLOAT_AND_SIGNED, 0, N),
        Ceil | Cos | Erf | Exp | Floor | Log | Reciprocal | RoundEven | Sin | Sqrt | Tan | Elu | Gelu
        | HardSigmoid | HardSwish | LeakyRelu | Linear | Sigmoid | Softplus | Softsign | Tanh => single(FLOAT, 0, N),
        DequantizeLinear => vec![
            ("input", lim(QUANTIZED, 0, N)),
            ("scale", lim(FLOAT, 0, N)),
            ("zeroPoint", lim(QUANTIZED, 0, N)),
            ("output", lim(FLOAT, 0, N)),
        ],
        QuantizeLinear => vec![
            ("input", lim(FLOAT, 0, N)),
            ("scale", lim(FLOAT, 0, N)),
            ("zeroPoint", lim(QUANTIZED, 0, N)),
            ("output", lim(QUANTIZED, 0, N)),
        ],
        Gather => vec![("input", lim(ANY, 1, N)), ("indices", lim(INDEX, 0, N)), ("output", lim(ANY, 0, N))],
        GatherElements => {
            vec![("input", lim(ANY, 1, N)), ("indices", lim(INDEX, 1, N)), ("output", lim(ANY, 1, N))]
        }
        GatherNd => vec![("input", lim(ANY, 1, N)), ("indices", lim(INDEX, 1, N)), ("output", lim(ANY, 0, N))],
        Gemm => vec![
            ("a", lim(FLOAT, 2, 2)),
            ("b", lim(FLOAT, 2, 2)),
            ("c", lim(FLOAT, 0, 2)),
            ("output", lim(FLOAT, 2, 2)),
        ],
        Gru => vec![
            ("input", lim(FLOAT, 3, 3)),
            ("weight", lim(FLOAT, 3, 3)),
            ("recurrentWeight", lim(FLOAT, 3, 3)),
            ("bias", lim(FLOAT, 2, 2)),
            ("recurrentBias", lim(FLOAT, 2, 2)),
            ("initialHiddenState", lim(FLOAT, 3, 3)),
            ("output0", lim(FLOAT, 3, 3)),
            ("output1", lim(FLOAT, 4, 4)),
        ],
        GruCell => vec![
            ("input", lim(FLOAT, 2, 2)),
            ("weight", lim(FLOAT, 2, 2)),
            ("recurrentWeight", lim(FLOAT, 2, 2)),
            ("hiddenState", lim(FLOAT, 2, 2)),
            ("bias", lim(FLOAT, 1, 1)),
            ("recurrentBias", lim(FLOAT, 1, 1)),
            ("output", lim(FLOAT, 2, 2)),
        ],
        InstanceNormalization => vec![
            ("input", lim(FLOAT, 4, 4)),
            ("scale", lim(FLOAT, 1, 1)),
            ("bias", lim(FLOAT, 1, 1)),
            ("output", lim(FLOAT, 4, 4)),
        ],
        LayerNormalization => vec![
            ("input", lim(FLOAT, 0, N)),
            ("scale", lim(FLOAT, 0, N)),
            ("bias", lim(FLOAT, 0, N)),
            ("output", lim(FLOAT, 0, N)),
        ],
        Lstm => vec![
            ("input", lim(FLOAT, 3, 3)),
            ("weight", lim(FLOAT, 3, 3)),
            ("recurrentWeight", lim(FLOAT, 3, 3)),
            ("bias", lim(FLOAT, 2, 2)),
            ("recurrentBias", lim(FLOAT, 2, 2)),
            ("peepholeWeight", lim(FLOAT, 2, 2)),
            ("initialHiddenState", lim(FLOAT, 3, 3)),
            ("initialCellState", lim(FLOAT, 3, 3)),
            ("output0", lim(FLOAT, 3, 3)),
            ("output1", lim(FLOAT, 3, 3)),
            ("output2", lim(FLOAT, 4, 4)),
        ],
        LstmCell => vec![
            ("input", lim(FLOAT, 2, 2)),
            ("weight", lim(FLOAT, 2, 2)),
            ("recurrentWeight", lim(FLOAT, 2, 2)),
            ("hiddenState", lim(FLOAT, 2, 2)),
            ("cellState", lim(FLOAT, 2, 2)),
            ("bias", lim(FLOAT, 1, 1)),
            ("recurrentBias", lim(FLOAT, 1, 1)),
            ("peepholeWeight", lim(FLOAT, 1, 1)),
            ("output0", lim(FLOAT, 2, 2)),
            ("output1", lim(FLOAT, 2, 2)),
        ],
        Matmul => vec![("a", lim(FLOAT, 2, N)), ("b", lim(FLOAT, 2, N)), ("output", lim(FLOAT, 2, N))],
        AveragePool2d | L2Pool2d => single(FLOAT, 4, 4),
        MaxPool2d => single(ANY, 4, 4),
        Prelu => vec![
            ("input", lim(FLOAT_AND_SIGNED, 0, N)),
            ("slope", lim(FLOAT_AND_SIGNED, 0, N)),
            ("output", lim(FLOAT_AND_SIGNED, 0, N)),
        ],
        ReduceL1 | ReduceProduct | ReduceSum | ReduceSumSquare => single(FLOAT_AND_WIDE_INT, 0, N),
        ReduceL2 | ReduceLogSum | ReduceLogSumExp | ReduceMean => single(FLOAT, 0, N),
        ReduceMax | ReduceMin => single(ANY, 0, N),
        Resample2d => single(RESAMPLE, 4, 4),
        ScatterElements => vec![
            ("input", lim(ANY, 1, N)),
            ("indices", lim(INDEX, 1, N)),
            ("updates", lim(ANY, 1, N)),
            ("output", lim(ANY, 1, N)),
        ],
        ScatterNd => vec![
            ("input", lim(ANY, 1, N)),
            ("indices", lim(INDEX, 1, N)),
            ("updates", lim(ANY, 0, N)),
            ("output", lim(ANY, 1, N)),
        ],
        Softmax => single(FLOAT, 1, N),
        Split => vec![("input", lim(ANY, 1, N)), ("outputs", lim(ANY, 1, N))],
        Triangular => single(ANY, 2, N),
        Where => vec![
            ("condition", lim(UINT8, 0, N)),
            ("trueValue", lim(ANY, 0, N)),
            ("falseValue", lim(ANY, 0, N)),
            ("output", lim(ANY, 0, N)),
        ],
    }
}

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

/// `MLOpSupportLimits` (§8.3.7): the context-level limits plus one entry per op.
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
}

/// The largest tensor byte length: the largest element count times the largest element size.
pub const MAX_TENSOR_BYTE_LENGTH: u64 = MAX_DIMENSION * 8;

impl OpSupportLimits {
    /// The limits of this implementation (CPU engine).
    pub fn new(preferred_input_layout: InputOperandLayout) -> Self {
        OpSupportLimits {
            preferred_input_layout,
            max_tensor_byte_length: MAX_TENSOR_BYTE_LENGTH,
            input: lim(ANY, 0, N),
            constant: lim(ANY, 0, N),
            output: lim(ANY, 0, N),
        }
    }

    /// The limits of one op (member name → limits), as in [`op_limits`].
    pub fn op(&self, op: OpKind) -> Vec<(&'static str, TensorLimits)> {
        op_limits(op)
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
            for (name, l) in op_limits(*op) {
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
}

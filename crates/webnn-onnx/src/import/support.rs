//! The operators the importer maps and the attributes it understands for each. A node whose
//! operator or any attribute is not listed is unsupported before anything is built; attribute
//! values are checked when the node is imported.

use super::{unsupported, NResult};
use crate::proto::AttributeProto;

const REDUCE: &[&str] = &["axes", "keepdims", "noop_with_empty_axes"];
const CONV: &[&str] = &["auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"];
const CONV_TRANSPOSE: &[&str] =
    &["auto_pad", "dilations", "group", "kernel_shape", "pads", "strides", "output_padding", "output_shape"];
const RNN: &[&str] = &[
    "activation_alpha",
    "activation_beta",
    "activations",
    "clip",
    "direction",
    "hidden_size",
    "layout",
    "input_forget",
    "linear_before_reset",
];

/// Every operator of the default domain the importer maps, with the attributes it accepts.
pub fn supported_operators() -> Vec<(&'static str, &'static [&'static str])> {
    ALL_OPS.iter().filter_map(|&op| known_attributes(op).map(|a| (op, a))).collect()
}

/// The names tried by [`supported_operators`].
const ALL_OPS: &[&str] = &[
    "Abs",
    "Add",
    "And",
    "ArgMax",
    "ArgMin",
    "AveragePool",
    "BatchNormalization",
    "BlackmanWindow",
    "Cast",
    "CastLike",
    "Ceil",
    "Celu",
    "CenterCropPad",
    "Clip",
    "Compress",
    "Concat",
    "Constant",
    "ConstantOfShape",
    "Conv",
    "ConvInteger",
    "ConvTranspose",
    "Cos",
    "Cosh",
    "CumSum",
    "DepthToSpace",
    "DequantizeLinear",
    "Div",
    "Dropout",
    "DynamicQuantizeLinear",
    "Einsum",
    "Elu",
    "Equal",
    "Erf",
    "Exp",
    "Expand",
    "EyeLike",
    "Flatten",
    "Floor",
    "GRU",
    "Gather",
    "GatherElements",
    "GatherND",
    "Gelu",
    "Gemm",
    "GlobalAveragePool",
    "GlobalLpPool",
    "GlobalMaxPool",
    "Greater",
    "GreaterOrEqual",
    "GroupNormalization",
    "HammingWindow",
    "HannWindow",
    "HardSigmoid",
    "HardSwish",
    "Hardmax",
    "Identity",
    "InstanceNormalization",
    "IsInf",
    "IsNaN",
    "LRN",
    "LSTM",
    "LayerNormalization",
    "LeakyRelu",
    "Less",
    "LessOrEqual",
    "Log",
    "LogSoftmax",
    "LpNormalization",
    "LpPool",
    "MatMul",
    "MatMulInteger",
    "Max",
    "MaxPool",
    "Mean",
    "MeanVarianceNormalization",
    "Min",
    "Mish",
    "Mod",
    "Mul",
    "Neg",
    "NonZero",
    "Not",
    "OneHot",
    "Or",
    "PRelu",
    "Pad",
    "Pow",
    "QLinearConv",
    "QLinearMatMul",
    "QuantizeLinear",
    "RMSNormalization",
    "RNN",
    "Range",
    "Reciprocal",
    "ReduceL1",
    "ReduceL2",
    "ReduceLogSum",
    "ReduceLogSumExp",
    "ReduceMax",
    "ReduceMean",
    "ReduceMin",
    "ReduceProd",
    "ReduceSum",
    "ReduceSumSquare",
    "Relu",
    "Reshape",
    "Resize",
    "Round",
    "Scatter",
    "ScatterElements",
    "ScatterND",
    "Selu",
    "Shape",
    "Shrink",
    "Sigmoid",
    "Sign",
    "Sin",
    "Sinh",
    "Size",
    "Slice",
    "Softmax",
    "Softplus",
    "Softsign",
    "SpaceToDepth",
    "Split",
    "Sqrt",
    "Squeeze",
    "Sub",
    "Sum",
    "SwiGLU",
    "Swish",
    "Tan",
    "Tanh",
    "ThresholdedRelu",
    "Tile",
    "Transpose",
    "Trilu",
    "Unsqueeze",
    "Upsample",
    "Where",
    "Xor",
];

/// The attributes `op` (default domain) may carry, or `None` if the operator is not mapped.
pub(crate) fn known_attributes(op: &str) -> Option<&'static [&'static str]> {
    Some(match op {
        // Element-wise and activations.
        "Add" | "Sub" | "Mul" | "Div" | "Pow" | "Max" | "Min" | "Sum" | "Mean" | "Relu" | "Sigmoid" | "Tanh"
        | "Softplus" | "Softsign" | "Erf" | "Sqrt" | "Exp" | "Log" | "Abs" | "Neg" | "Reciprocal" | "Floor"
        | "Ceil" | "Round" | "Sign" | "Sin" | "Cos" | "Tan" | "Sinh" | "Cosh" | "Not" | "And" | "Or" | "Xor"
        | "Equal" | "Greater" | "GreaterOrEqual" | "Less" | "LessOrEqual" | "IsNaN" | "Identity" | "HardSwish"
        | "Mish" | "PRelu" | "Where" | "Size" | "Expand" | "Tile" | "NonZero" | "MatMul" | "GlobalAveragePool"
        | "GlobalMaxPool" => &[],
        "Mod" => &["fmod"],
        "Clip" => &["min", "max"],
        "HardSigmoid" => &["alpha", "beta"],
        "Elu" | "LeakyRelu" | "Celu" | "ThresholdedRelu" | "Swish" => &["alpha"],
        "Selu" => &["alpha", "gamma"],
        "Shrink" => &["bias", "lambd"],
        "Gelu" => &["approximate"],
        "IsInf" => &["detect_negative", "detect_positive"],
        "Cast" => &["to", "saturate", "round_mode"],
        "CastLike" => &["saturate", "round_mode"],
        "QuantizeLinear" => &["axis", "block_size", "output_dtype", "saturate", "precision"],
        "DequantizeLinear" => &["axis", "block_size", "output_dtype"],
        "Dropout" => &["ratio", "seed", "is_test"],
        "Shape" => &["start", "end"],
        "ConstantOfShape" => &["value"],
        "Range" => &["stash_type"],
        "Constant" => &[
            "value",
            "value_float",
            "value_floats",
            "value_int",
            "value_ints",
            "sparse_value",
            "value_string",
            "value_strings",
        ],
        "EyeLike" => &["dtype", "k"],
        // Softmax family, reductions.
        "Softmax" | "LogSoftmax" | "Hardmax" | "Concat" | "Gather" | "GatherElements" | "Flatten" | "OneHot" => {
            &["axis"]
        }
        "ReduceMean" | "ReduceSum" | "ReduceMax" | "ReduceMin" | "ReduceProd" | "ReduceL1" | "ReduceL2"
        | "ReduceLogSum" | "ReduceLogSumExp" | "ReduceSumSquare" => REDUCE,
        "ArgMax" | "ArgMin" => &["axis", "keepdims", "select_last_index"],
        "CumSum" => &["exclusive", "reverse"],
        "Einsum" => &["equation"],
        // Convolution, pooling, normalization.
        "Conv" | "QLinearConv" | "ConvInteger" => CONV,
        "QLinearMatMul" | "MatMulInteger" | "DynamicQuantizeLinear" => &[],
        "ConvTranspose" => CONV_TRANSPOSE,
        "MaxPool" => &["auto_pad", "ceil_mode", "dilations", "kernel_shape", "pads", "storage_order", "strides"],
        "AveragePool" => {
            &["auto_pad", "ceil_mode", "count_include_pad", "dilations", "kernel_shape", "pads", "strides"]
        }
        "LpPool" => &["auto_pad", "ceil_mode", "dilations", "kernel_shape", "p", "pads", "strides"],
        "GlobalLpPool" => &["p"],
        "Gemm" => &["alpha", "beta", "transA", "transB"],
        "BatchNormalization" => &["epsilon", "momentum", "spatial", "training_mode"],
        "InstanceNormalization" => &["epsilon"],
        "LayerNormalization" | "RMSNormalization" => &["axis", "epsilon", "stash_type"],
        "GroupNormalization" => &["epsilon", "num_groups", "stash_type"],
        "LpNormalization" => &["axis", "p"],
        "MeanVarianceNormalization" => &["axes"],
        "LRN" => &["alpha", "beta", "bias", "size"],
        // Shape and data movement.
        "Reshape" => &["allowzero"],
        "Transpose" => &["perm"],
        "Split" => &["axis", "split", "num_outputs"],
        "Slice" => &["starts", "ends", "axes"],
        "GatherND" => &["batch_dims"],
        "ScatterElements" | "Scatter" => &["axis", "reduction"],
        "ScatterND" => &["reduction"],
        "Squeeze" | "Unsqueeze" => &["axes"],
        "Pad" => &["mode", "pads", "value"],
        "DepthToSpace" => &["blocksize", "mode"],
        "SpaceToDepth" => &["blocksize", "mode"],
        "Trilu" => &["upper"],
        "Resize" => &[
            "antialias",
            "axes",
            "coordinate_transformation_mode",
            "cubic_coeff_a",
            "exclude_outside",
            "extrapolation_value",
            "keep_aspect_ratio_policy",
            "mode",
            "nearest_mode",
        ],
        "Upsample" => &["mode", "scales"],
        "LSTM" | "GRU" => RNN,
        "RNN" => &["activation_alpha", "activation_beta", "activations", "clip", "direction", "hidden_size", "layout"],
        "HannWindow" | "HammingWindow" | "BlackmanWindow" => &["periodic", "output_datatype"],
        "CenterCropPad" => &["axes"],
        "Compress" => &["axis"],
        "SwiGLU" => &["alpha"],
        _ => return None,
    })
}

/// How many inputs (present or empty-named optional ones) `op` takes: (min, max).
fn input_count(op: &str) -> (usize, usize) {
    match op {
        "Add" | "Sub" | "Mul" | "Div" | "Pow" | "Mod" | "And" | "Or" | "Xor" | "Equal" | "Greater"
        | "GreaterOrEqual" | "Less" | "LessOrEqual" | "PRelu" | "MatMul" | "Expand" | "Tile" | "GatherElements"
        | "GatherND" | "CastLike" | "Gather" => (2, 2),
        "Max" | "Min" | "Sum" | "Mean" | "Concat" => (1, usize::MAX),
        "Where" | "Range" | "OneHot" | "ScatterElements" | "Scatter" | "ScatterND" => (3, 3),
        "Constant" => (0, 0),
        "Conv"
        | "ConvTranspose"
        | "Gemm"
        | "QuantizeLinear"
        | "DequantizeLinear"
        | "LayerNormalization"
        | "InstanceNormalization"
        | "GroupNormalization" => (2, 3),
        "BatchNormalization" => (5, 5),
        "RMSNormalization" => (2, 2),
        "Reshape" | "Trilu" | "Squeeze" | "Unsqueeze" | "Split" | "ReduceMean" | "ReduceSum" | "ReduceMax"
        | "ReduceMin" | "ReduceProd" | "ReduceL1" | "ReduceL2" | "ReduceLogSum" | "ReduceLogSumExp"
        | "ReduceSumSquare" | "ConstantOfShape" | "Upsample" => (1, 2),
        "CumSum" => (2, 2),
        "QLinearMatMul" => (8, 8),
        "QLinearConv" => (8, 9),
        "MatMulInteger" | "ConvInteger" => (2, 4),
        "Clip" | "Dropout" => (1, 3),
        "Slice" => (1, 5),
        "Pad" => (1, 4),
        "Resize" => (1, 4),
        "LSTM" => (3, 8),
        "GRU" | "RNN" => (3, 6),
        "CenterCropPad" | "Compress" | "SwiGLU" => (2, 2),
        "Einsum" => (1, usize::MAX),
        _ => (1, 1),
    }
}

/// Checks the operator and attribute names of a node and its input count.
pub(crate) fn check(op: &str, domain: &str, attributes: &[AttributeProto], inputs: usize) -> NResult<()> {
    if !(domain.is_empty() || domain == "ai.onnx") {
        return Err(unsupported(format!(
            "operator domain '{domain}' is not supported (only the default ai.onnx domain)"
        )));
    }
    let Some(known) = known_attributes(op) else {
        return Err(unsupported(format!("operator {op} has no WebNN mapping")));
    };
    let unknown: Vec<&str> =
        attributes.iter().map(|a| a.name.as_deref().unwrap_or("")).filter(|n| !known.contains(n)).collect();
    if !unknown.is_empty() {
        return Err(unsupported(format!("attribute(s) {} of {op} are not supported", unknown.join(", "))));
    }
    let (min, max) = input_count(op);
    if inputs < min || inputs > max {
        return Err(super::invalid(format!("{op} takes {min}..={max} inputs, not {inputs}")));
    }
    Ok(())
}

"""The 95 operations of ``MLGraphBuilder`` as data: their Python name, IDL name, positional
arguments and options (with the IDL defaults), from ``webnn-2026.webidl``.

``_builder.py`` turns each row into a method; ``__init__.pyi`` holds the same signatures with
types (``tests/test_stubs.py`` checks that the two agree).

Operand arguments (positional, then the operand members of the options in declaration order)
form the op's operand slots, in the order of the Rust ``LimitsKind::inputs()``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, Tuple

from . import _convert as c

# The IDL enums.
INPUT_LAYOUT = c.enumeration(("nchw", "nhwc"), "MLInputOperandLayout")
CONV2D_FILTER_LAYOUT = c.enumeration(("oihw", "hwio", "ohwi", "ihwo"), "MLConv2dFilterOperandLayout")
CONV_TRANSPOSE2D_FILTER_LAYOUT = c.enumeration(("iohw", "hwoi", "ohwi"), "MLConvTranspose2dFilterOperandLayout")
GRU_WEIGHT_LAYOUT = c.enumeration(("zrn", "rzn"), "MLGruWeightLayout")
LSTM_WEIGHT_LAYOUT = c.enumeration(("iofg", "ifgo"), "MLLstmWeightLayout")
RECURRENT_ACTIVATION = c.enumeration(("relu", "sigmoid", "tanh"), "MLRecurrentNetworkActivation")
DIRECTION = c.enumeration(("forward", "backward", "both"), "MLRecurrentNetworkDirection")
PADDING_MODE = c.enumeration(("constant", "edge", "reflection"), "MLPaddingMode")
ROUNDING = c.enumeration(("floor", "ceil"), "MLRoundingType")
INTERPOLATION = c.enumeration(("nearest-neighbor", "linear"), "MLInterpolationMode")


def u32_list(value: Any, where: str) -> Any:
    """``sequence<[EnforceRange] unsigned long>``"""
    return c.sequence(value, c.enforced_unsigned_long, where)


def wrapped_u32_list(value: Any, where: str) -> Any:
    """``sequence<unsigned long>``"""
    return c.sequence(value, c.unsigned_long, where)


def activations(value: Any, where: str) -> Any:
    """``sequence<MLRecurrentNetworkActivation>``"""
    return c.sequence(value, RECURRENT_ACTIVATION, where)


#: Marks an operand argument or option (converted by the builder, which knows MLOperand).
OPERAND = "operand"
#: concat()'s ``sequence<MLOperand>``.
OPERANDS = "operands"
#: split()'s count-or-sizes argument.
SPLITS = "splits"


@dataclass(frozen=True)
class Arg:
    """A positional argument: its Python name and converter (or OPERAND / OPERANDS / SPLITS)."""

    name: str
    convert: Any


@dataclass(frozen=True)
class Option:
    """A member of the op's options dictionary: Python name, converter (or OPERAND) and the
    IDL default (None: absent). Passing None means absent too (the IDL default applies)."""

    name: str
    convert: Any
    default: Any = None


@dataclass(frozen=True)
class Op:
    """One MLGraphBuilder operation."""

    name: str
    idl: str
    args: Tuple[Arg, ...]
    options: Tuple[Option, ...]
    sequence: bool
    anchor: str

    @property
    def url(self) -> str:
        return f"https://www.w3.org/TR/webnn/#api-mlgraphbuilder-{self.anchor}"


o = Option


OPTIONS: Dict[str, Tuple[Option, ...]] = {
    "MLOperatorOptions": (),
    "MLArgMinMaxOptions": (o("keep_dimensions", c.boolean, False), o("output_data_type", c.data_type, "int32")),
    "MLBatchNormalizationOptions": (
        o("scale", OPERAND),
        o("bias", OPERAND),
        o("axis", c.enforced_unsigned_long, 1),
        o("epsilon", c.restricted_double, 1e-5),
    ),
    "MLClampOptions": (o("min_value", c.ml_number), o("max_value", c.ml_number)),
    "MLConv2dOptions": (
        o("padding", u32_list),
        o("strides", u32_list),
        o("dilations", u32_list),
        o("groups", c.enforced_unsigned_long, 1),
        o("input_layout", INPUT_LAYOUT, "nchw"),
        o("filter_layout", CONV2D_FILTER_LAYOUT, "oihw"),
        o("bias", OPERAND),
    ),
    "MLConvTranspose2dOptions": (
        o("padding", u32_list),
        o("strides", u32_list),
        o("dilations", u32_list),
        o("output_padding", u32_list),
        o("output_sizes", u32_list),
        o("groups", c.enforced_unsigned_long, 1),
        o("input_layout", INPUT_LAYOUT, "nchw"),
        o("filter_layout", CONV_TRANSPOSE2D_FILTER_LAYOUT, "iohw"),
        o("bias", OPERAND),
    ),
    "MLCumulativeSumOptions": (o("exclusive", c.boolean, False), o("reversed", c.boolean, False)),
    "MLEluOptions": (o("alpha", c.restricted_double, 1.0),),
    "MLGatherOptions": (o("axis", c.enforced_unsigned_long, 0),),
    "MLGemmOptions": (
        o("c", OPERAND),
        o("alpha", c.restricted_double, 1.0),
        o("beta", c.restricted_double, 1.0),
        o("a_transpose", c.boolean, False),
        o("b_transpose", c.boolean, False),
    ),
    "MLGruOptions": (
        o("bias", OPERAND),
        o("recurrent_bias", OPERAND),
        o("initial_hidden_state", OPERAND),
        o("reset_after", c.boolean, True),
        o("return_sequence", c.boolean, False),
        o("direction", DIRECTION, "forward"),
        o("layout", GRU_WEIGHT_LAYOUT, "zrn"),
        o("activations", activations),
    ),
    "MLGruCellOptions": (
        o("bias", OPERAND),
        o("recurrent_bias", OPERAND),
        o("reset_after", c.boolean, True),
        o("layout", GRU_WEIGHT_LAYOUT, "zrn"),
        o("activations", activations),
    ),
    "MLHardSigmoidOptions": (o("alpha", c.restricted_double, 0.2), o("beta", c.restricted_double, 0.5)),
    "MLInstanceNormalizationOptions": (
        o("scale", OPERAND),
        o("bias", OPERAND),
        o("epsilon", c.restricted_double, 1e-5),
        o("layout", INPUT_LAYOUT, "nchw"),
    ),
    "MLLayerNormalizationOptions": (
        o("scale", OPERAND),
        o("bias", OPERAND),
        o("axes", u32_list),
        o("epsilon", c.restricted_double, 1e-5),
    ),
    "MLLeakyReluOptions": (o("alpha", c.restricted_double, 0.01),),
    "MLLinearOptions": (o("alpha", c.restricted_double, 1.0), o("beta", c.restricted_double, 0.0)),
    "MLLstmOptions": (
        o("bias", OPERAND),
        o("recurrent_bias", OPERAND),
        o("peephole_weight", OPERAND),
        o("initial_hidden_state", OPERAND),
        o("initial_cell_state", OPERAND),
        o("return_sequence", c.boolean, False),
        o("direction", DIRECTION, "forward"),
        o("layout", LSTM_WEIGHT_LAYOUT, "iofg"),
        o("activations", activations),
    ),
    "MLLstmCellOptions": (
        o("bias", OPERAND),
        o("recurrent_bias", OPERAND),
        o("peephole_weight", OPERAND),
        o("layout", LSTM_WEIGHT_LAYOUT, "iofg"),
        o("activations", activations),
    ),
    "MLPadOptions": (o("mode", PADDING_MODE, "constant"), o("value", c.ml_number, 0)),
    "MLPool2dOptions": (
        o("window_dimensions", u32_list),
        o("padding", u32_list),
        o("strides", u32_list),
        o("dilations", u32_list),
        o("layout", INPUT_LAYOUT, "nchw"),
        o("output_shape_rounding", ROUNDING, "floor"),
        o("output_sizes", u32_list),
    ),
    "MLReduceOptions": (o("axes", u32_list), o("keep_dimensions", c.boolean, False)),
    "MLResample2dOptions": (
        o("mode", INTERPOLATION, "nearest-neighbor"),
        o("scales", c.floats),
        o("sizes", u32_list),
        o("axes", u32_list),
    ),
    "MLReverseOptions": (o("axes", u32_list),),
    "MLScatterOptions": (o("axis", c.enforced_unsigned_long, 0),),
    "MLSliceOptions": (o("strides", u32_list),),
    "MLSplitOptions": (o("axis", c.enforced_unsigned_long, 0),),
    "MLTransposeOptions": (o("permutation", u32_list),),
    "MLTriangularOptions": (o("upper", c.boolean, True), o("diagonal", c.enforced_long, 0)),
}

# Spec section anchors that are not the lowercased IDL name.
ANCHORS = {
    **dict.fromkeys("add sub mul div max min pow".split(), "binary"),
    **dict.fromkeys(
        "equal notEqual greater greaterOrEqual lesser lesserOrEqual logicalNot logicalAnd logicalOr logicalXor "
        "isNaN isInfinite".split(),
        "logical",
    ),
    **dict.fromkeys("abs ceil cos erf exp floor identity log neg reciprocal roundEven sin sign sqrt tan".split(), "unary"),
    **dict.fromkeys("argMin argMax".split(), "argminmax"),
    **dict.fromkeys(
        "reduceL1 reduceL2 reduceLogSum reduceLogSumExp reduceMax reduceMean reduceMin reduceProduct reduceSum "
        "reduceSumSquare".split(),
        "reduce",
    ),
    "batchNormalization": "batchnorm",
    "instanceNormalization": "instancenorm",
    "layerNormalization": "layernorm",
    "hardSigmoid": "hard-sigmoid",
    "hardSwish": "hard-swish",
    "averagePool2d": "pool2d-average",
    "l2Pool2d": "pool2d-l2",
    "maxPool2d": "pool2d-max",
    **{n: f"{n.lower()}-method" for n in "gelu relu resample2d reshape reverse sigmoid softmax softplus softsign tanh".split()},
}

OPS: Dict[str, Op] = {}


def op(names: str, args: Tuple[Arg, ...], options: str, sequence: bool = False) -> None:
    """Adds the ops ``names`` ("python_name:idlName ...", the IDL name defaulting to the Python
    one)."""
    for entry in names.split():
        name, _, idl = entry.partition(":")
        idl = idl or name
        OPS[name] = Op(name, idl, args, OPTIONS[options], sequence, ANCHORS.get(idl, idl.lower()))


A = Arg
INPUT = A("input", OPERAND)

op(
    "add sub mul div max min pow equal not_equal:notEqual greater greater_or_equal:greaterOrEqual lesser "
    "lesser_or_equal:lesserOrEqual logical_and:logicalAnd logical_or:logicalOr logical_xor:logicalXor matmul",
    (A("a", OPERAND), A("b", OPERAND)),
    "MLOperatorOptions",
)
op("logical_not:logicalNot is_nan:isNaN is_infinite:isInfinite", (A("a", OPERAND),), "MLOperatorOptions")
op(
    "abs ceil cos erf exp floor identity log neg reciprocal round_even:roundEven sin sign sqrt tan gelu "
    "hard_swish:hardSwish relu sigmoid softplus softsign tanh",
    (INPUT,),
    "MLOperatorOptions",
)
op("arg_min:argMin arg_max:argMax", (INPUT, A("axis", c.enforced_unsigned_long)), "MLArgMinMaxOptions")
op(
    "batch_normalization:batchNormalization",
    (INPUT, A("mean", OPERAND), A("variance", OPERAND)),
    "MLBatchNormalizationOptions",
)
op("cast", (INPUT, A("data_type", c.data_type)), "MLOperatorOptions")
op("clamp", (INPUT,), "MLClampOptions")
op("concat", (A("inputs", OPERANDS), A("axis", c.enforced_unsigned_long)), "MLOperatorOptions")
op("conv2d", (INPUT, A("filter", OPERAND)), "MLConv2dOptions")
op("conv_transpose2d:convTranspose2d", (INPUT, A("filter", OPERAND)), "MLConvTranspose2dOptions")
op("cumulative_sum:cumulativeSum", (INPUT, A("axis", c.unsigned_long)), "MLCumulativeSumOptions")
op(
    "dequantize_linear:dequantizeLinear quantize_linear:quantizeLinear",
    (INPUT, A("scale", OPERAND), A("zero_point", OPERAND)),
    "MLOperatorOptions",
)
op("elu", (INPUT,), "MLEluOptions")
op("expand", (INPUT, A("new_shape", u32_list)), "MLOperatorOptions")
op("gather gather_elements:gatherElements", (INPUT, A("indices", OPERAND)), "MLGatherOptions")
op("gather_nd:gatherND", (INPUT, A("indices", OPERAND)), "MLOperatorOptions")
op("gemm", (A("a", OPERAND), A("b", OPERAND)), "MLGemmOptions")
RECURRENT = (INPUT, A("weight", OPERAND), A("recurrent_weight", OPERAND))
STEPS_HIDDEN = (A("steps", c.enforced_unsigned_long), A("hidden_size", c.enforced_unsigned_long))
HIDDEN_SIZE = A("hidden_size", c.enforced_unsigned_long)
op("gru", RECURRENT + STEPS_HIDDEN, "MLGruOptions", sequence=True)
op("gru_cell:gruCell", RECURRENT + (A("hidden_state", OPERAND), HIDDEN_SIZE), "MLGruCellOptions")
op("hard_sigmoid:hardSigmoid", (INPUT,), "MLHardSigmoidOptions")
op("instance_normalization:instanceNormalization", (INPUT,), "MLInstanceNormalizationOptions")
op("layer_normalization:layerNormalization", (INPUT,), "MLLayerNormalizationOptions")
op("leaky_relu:leakyRelu", (INPUT,), "MLLeakyReluOptions")
op("linear", (INPUT,), "MLLinearOptions")
op("lstm", RECURRENT + STEPS_HIDDEN, "MLLstmOptions", sequence=True)
op(
    "lstm_cell:lstmCell",
    RECURRENT + (A("hidden_state", OPERAND), A("cell_state", OPERAND), HIDDEN_SIZE),
    "MLLstmCellOptions",
    sequence=True,
)
op("pad", (INPUT, A("beginning_padding", u32_list), A("ending_padding", u32_list)), "MLPadOptions")
op("average_pool2d:averagePool2d l2_pool2d:l2Pool2d max_pool2d:maxPool2d", (INPUT,), "MLPool2dOptions")
op("prelu", (INPUT, A("slope", OPERAND)), "MLOperatorOptions")
op(
    "reduce_l1:reduceL1 reduce_l2:reduceL2 reduce_log_sum:reduceLogSum reduce_log_sum_exp:reduceLogSumExp "
    "reduce_max:reduceMax reduce_mean:reduceMean reduce_min:reduceMin reduce_product:reduceProduct "
    "reduce_sum:reduceSum reduce_sum_square:reduceSumSquare",
    (INPUT,),
    "MLReduceOptions",
)
op("resample2d", (INPUT,), "MLResample2dOptions")
op("reshape", (INPUT, A("new_shape", u32_list)), "MLOperatorOptions")
op("reverse", (INPUT,), "MLReverseOptions")
op("scatter_elements:scatterElements", (INPUT, A("indices", OPERAND), A("updates", OPERAND)), "MLScatterOptions")
op("scatter_nd:scatterND", (INPUT, A("indices", OPERAND), A("updates", OPERAND)), "MLOperatorOptions")
op("slice", (INPUT, A("starts", u32_list), A("sizes", u32_list)), "MLSliceOptions")
op("softmax", (INPUT, A("axis", c.enforced_unsigned_long)), "MLOperatorOptions")
op("split", (INPUT, A("splits", SPLITS)), "MLSplitOptions", sequence=True)
op("tile", (INPUT, A("repetitions", wrapped_u32_list)), "MLOperatorOptions")
op("transpose", (INPUT,), "MLTransposeOptions")
op("triangular", (INPUT,), "MLTriangularOptions")
op("where", (A("condition", OPERAND), A("true_value", OPERAND), A("false_value", OPERAND)), "MLOperatorOptions")

#: Python method name of each IDL operation name.
BY_IDL_NAME: Dict[str, str] = {op.idl: name for name, op in OPS.items()}

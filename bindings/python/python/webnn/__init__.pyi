"""Type stubs of ``webnn``: the W3C WebNN API (https://www.w3.org/TR/webnn/) for Python with
numpy, and an ONNX Runtime-style ``InferenceSession``. See the package docstring."""

from collections.abc import Callable, Generator, Mapping, Sequence
from dataclasses import dataclass
from os import PathLike
from typing import Any, Generic, TypeVar, final, overload

import numpy as np
from numpy.typing import NDArray

from ._types import (
    Conv2dFilterLayout as Conv2dFilterLayout,
    ConvTranspose2dFilterLayout as ConvTranspose2dFilterLayout,
    Data as Data,
    DataType as DataType,
    DataTypeLike as DataTypeLike,
    GruWeightLayout as GruWeightLayout,
    InputLayout as InputLayout,
    InterpolationMode as InterpolationMode,
    LstmWeightLayout as LstmWeightLayout,
    OperandDescriptor as OperandDescriptor,
    PaddingMode as PaddingMode,
    PowerPreference as PowerPreference,
    RecurrentActivation as RecurrentActivation,
    RecurrentDirection as RecurrentDirection,
    RoundingType as RoundingType,
)

_T = TypeVar("_T")


class WebNNError(Exception):
    """Base class of the spec's DOMException errors (argument errors are TypeError)."""

class InvalidStateError(WebNNError):
    """The spec's "InvalidStateError": a built builder, a lost context, a destroyed graph."""

class NotSupportedError(WebNNError):
    """The spec's "NotSupportedError": no such device, an unsupported model feature."""

class OperationError(WebNNError):
    """The spec's "OperationError": building or running a graph failed."""

class UnknownError(WebNNError):
    """The spec's "UnknownError": out of memory, an internal failure."""

class Pending(Generic[_T]):
    """A value settled later by an MLContext's timeline (the spec's promises)."""

    def __init__(self, native: Any, finish: Callable[[Any], _T]) -> None: ...
    def done(self) -> bool:
        """True once the value (or error) is there."""
    def result(self, timeout: float | None = None) -> _T:
        """The value, waiting at most ``timeout`` seconds with the GIL released."""
    def __await__(self) -> Generator[Any, None, _T]: ...

@dataclass(frozen=True)
class MLContextLostInfo:
    """``MLContextLostInfo`` (https://www.w3.org/TR/webnn/#dictdef-mlcontextlostinfo)."""

    message: str

@final
class MLOperand:
    """``MLOperand`` (https://www.w3.org/TR/webnn/#api-mloperand)."""

    @property
    def data_type(self) -> DataType:
        """``dataType``"""
    @property
    def shape(self) -> list[int]:
        """``shape``"""

@final
class MLTensor:
    """``MLTensor`` (https://www.w3.org/TR/webnn/#api-mltensor)."""

    @property
    def data_type(self) -> DataType:
        """``dataType``"""
    @property
    def shape(self) -> list[int]:
        """``shape``"""
    @property
    def readable(self) -> bool:
        """``readable``"""
    @property
    def writable(self) -> bool:
        """``writable``"""
    @property
    def constant(self) -> bool:
        """``constant``"""
    def destroy(self) -> None:
        """``destroy()`` (https://www.w3.org/TR/webnn/#api-mltensor-destroy)."""

@final
class MLGraph:
    """``MLGraph`` (https://www.w3.org/TR/webnn/#api-mlgraph)."""

    def destroy(self) -> None:
        """``destroy()`` (https://www.w3.org/TR/webnn/#api-mlgraph-destroy)."""
    def input_descriptors(self) -> list[tuple[str, DataType, list[int]]]:
        """``[[inputDescriptors]]``: ``(name, data type, shape)`` of each input."""
    def output_descriptors(self) -> list[tuple[str, DataType, list[int]]]:
        """``[[outputDescriptors]]``: ``(name, data type, shape)`` of each output."""

class ML:
    """``ML`` (https://www.w3.org/TR/webnn/#api-ml): the entry point, ``webnn.ml``."""

    def create_context(self, *, power_preference: PowerPreference = "default", accelerated: bool = True) -> MLContext:
        """``createContext(options)`` (https://www.w3.org/TR/webnn/#api-ml-createcontext)."""

ml: ML

class MLContext:
    """``MLContext`` (https://www.w3.org/TR/webnn/#api-mlcontext)."""

    def __init__(self) -> None: ...
    @property
    def accelerated(self) -> bool:
        """``accelerated`` (https://www.w3.org/TR/webnn/#dom-mlcontext-accelerated)."""
    @property
    def lost(self) -> Pending[MLContextLostInfo]:
        """``lost`` (https://www.w3.org/TR/webnn/#dom-mlcontext-lost)."""
    def destroy(self) -> None:
        """``destroy()`` (https://www.w3.org/TR/webnn/#api-mlcontext-destroy)."""
    def op_support_limits(self) -> dict[str, Any]:
        """``opSupportLimits()`` (https://www.w3.org/TR/webnn/#api-mlcontext-opsupportlimits)."""
    @overload
    def create_tensor(
        self, data_type: DataTypeLike, shape: Sequence[int], *, readable: bool = False, writable: bool = False
    ) -> MLTensor:
        """``createTensor(descriptor)`` (https://www.w3.org/TR/webnn/#api-mlcontext-createtensor)."""
    @overload
    def create_tensor(
        self, data_type: Mapping[str, Any], shape: None = None, *, readable: bool = False, writable: bool = False
    ) -> MLTensor: ...
    @overload
    def create_constant_tensor(self, value: NDArray[Any] | np.generic, data: None = None) -> MLTensor:
        """``createConstantTensor(descriptor, inputData)``
        (https://www.w3.org/TR/webnn/#api-mlcontext-createconstanttensor)."""
    @overload
    def create_constant_tensor(self, value: OperandDescriptor, data: Data) -> MLTensor: ...
    def write_tensor(self, tensor: MLTensor, data: Data) -> None:
        """``writeTensor(tensor, inputData)`` (https://www.w3.org/TR/webnn/#api-mlcontext-writetensor)."""
    @overload
    def read_tensor(self, tensor: MLTensor, out: None = None) -> NDArray[Any]:
        """``readTensor(tensor)`` (https://www.w3.org/TR/webnn/#api-mlcontext-readtensor)."""
    @overload
    def read_tensor(self, tensor: MLTensor, out: NDArray[Any] | bytearray | memoryview) -> None: ...
    @overload
    def read_tensor_async(self, tensor: MLTensor, out: None = None) -> Pending[NDArray[Any]]:
        """``readTensor()`` as a Pending, usable with asyncio."""
    @overload
    def read_tensor_async(self, tensor: MLTensor, out: NDArray[Any] | bytearray | memoryview) -> Pending[None]: ...
    def dispatch(self, graph: MLGraph, inputs: Mapping[str, MLTensor], outputs: Mapping[str, MLTensor]) -> None:
        """``dispatch(graph, inputs, outputs)`` (https://www.w3.org/TR/webnn/#api-mlcontext-dispatch)."""
    def compute(self, graph: MLGraph, inputs: Mapping[str, Data]) -> dict[str, NDArray[Any]]:
        """Writes ``inputs``, dispatches ``graph`` and reads every output (not in the spec)."""

class MLGraphBuilder:
    """``MLGraphBuilder`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder)."""

    def __init__(self, context: MLContext) -> None: ...
    @overload
    def input(self, name: str, data_type: DataTypeLike, shape: Sequence[int]) -> MLOperand:
        """``input(name, descriptor)`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-input)."""
    @overload
    def input(self, name: str, data_type: OperandDescriptor, shape: None = None) -> MLOperand: ...
    @overload
    def constant(self, value: NDArray[Any] | np.generic, data: None = None) -> MLOperand:
        """``constant()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-constant)."""
    @overload
    def constant(self, value: OperandDescriptor, data: Data) -> MLOperand: ...
    @overload
    def constant(self, value: DataTypeLike, data: int | float) -> MLOperand: ...
    @overload
    def constant(self, value: MLTensor, data: None = None) -> MLOperand: ...
    def build(self, outputs: Mapping[str, MLOperand]) -> MLGraph:
        """``build(outputs)`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-build)."""

    # BEGIN the operations: generated by scripts/gen_stubs.py from webnn._ops.OPS; do not edit.
    # The 95 operations (https://www.w3.org/TR/webnn/#api-mlgraphbuilder), in the spec's order.
    def arg_min(
        self,
        input: MLOperand,
        axis: int,
        *,
        keep_dimensions: bool = False,
        output_data_type: DataTypeLike = "int32",
        label: str = "",
    ) -> MLOperand:
        """``argMin()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-argminmax)."""
    def arg_max(
        self,
        input: MLOperand,
        axis: int,
        *,
        keep_dimensions: bool = False,
        output_data_type: DataTypeLike = "int32",
        label: str = "",
    ) -> MLOperand:
        """``argMax()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-argminmax)."""
    def batch_normalization(
        self,
        input: MLOperand,
        mean: MLOperand,
        variance: MLOperand,
        *,
        scale: MLOperand | None = None,
        bias: MLOperand | None = None,
        axis: int = 1,
        epsilon: float = 1e-05,
        label: str = "",
    ) -> MLOperand:
        """``batchNormalization()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-batchnorm)."""
    def cast(self, input: MLOperand, data_type: DataTypeLike, *, label: str = "") -> MLOperand:
        """``cast()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-cast)."""
    def clamp(
        self,
        input: MLOperand,
        *,
        min_value: int | float | None = None,
        max_value: int | float | None = None,
        label: str = "",
    ) -> MLOperand:
        """``clamp()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-clamp)."""
    def concat(self, inputs: Sequence[MLOperand], axis: int, *, label: str = "") -> MLOperand:
        """``concat()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-concat)."""
    def conv2d(
        self,
        input: MLOperand,
        filter: MLOperand,
        *,
        padding: Sequence[int] | None = None,
        strides: Sequence[int] | None = None,
        dilations: Sequence[int] | None = None,
        groups: int = 1,
        input_layout: InputLayout = "nchw",
        filter_layout: Conv2dFilterLayout = "oihw",
        bias: MLOperand | None = None,
        label: str = "",
    ) -> MLOperand:
        """``conv2d()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-conv2d)."""
    def conv_transpose2d(
        self,
        input: MLOperand,
        filter: MLOperand,
        *,
        padding: Sequence[int] | None = None,
        strides: Sequence[int] | None = None,
        dilations: Sequence[int] | None = None,
        output_padding: Sequence[int] | None = None,
        output_sizes: Sequence[int] | None = None,
        groups: int = 1,
        input_layout: InputLayout = "nchw",
        filter_layout: ConvTranspose2dFilterLayout = "iohw",
        bias: MLOperand | None = None,
        label: str = "",
    ) -> MLOperand:
        """``convTranspose2d()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-convtranspose2d)."""
    def cumulative_sum(
        self,
        input: MLOperand,
        axis: int,
        *,
        exclusive: bool = False,
        reversed: bool = False,
        label: str = "",
    ) -> MLOperand:
        """``cumulativeSum()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-cumulativesum)."""
    def add(self, a: MLOperand, b: MLOperand, *, label: str = "") -> MLOperand:
        """``add()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-binary)."""
    def sub(self, a: MLOperand, b: MLOperand, *, label: str = "") -> MLOperand:
        """``sub()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-binary)."""
    def mul(self, a: MLOperand, b: MLOperand, *, label: str = "") -> MLOperand:
        """``mul()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-binary)."""
    def div(self, a: MLOperand, b: MLOperand, *, label: str = "") -> MLOperand:
        """``div()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-binary)."""
    def max(self, a: MLOperand, b: MLOperand, *, label: str = "") -> MLOperand:
        """``max()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-binary)."""
    def min(self, a: MLOperand, b: MLOperand, *, label: str = "") -> MLOperand:
        """``min()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-binary)."""
    def pow(self, a: MLOperand, b: MLOperand, *, label: str = "") -> MLOperand:
        """``pow()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-binary)."""
    def equal(self, a: MLOperand, b: MLOperand, *, label: str = "") -> MLOperand:
        """``equal()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-logical)."""
    def not_equal(self, a: MLOperand, b: MLOperand, *, label: str = "") -> MLOperand:
        """``notEqual()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-logical)."""
    def greater(self, a: MLOperand, b: MLOperand, *, label: str = "") -> MLOperand:
        """``greater()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-logical)."""
    def greater_or_equal(self, a: MLOperand, b: MLOperand, *, label: str = "") -> MLOperand:
        """``greaterOrEqual()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-logical)."""
    def lesser(self, a: MLOperand, b: MLOperand, *, label: str = "") -> MLOperand:
        """``lesser()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-logical)."""
    def lesser_or_equal(self, a: MLOperand, b: MLOperand, *, label: str = "") -> MLOperand:
        """``lesserOrEqual()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-logical)."""
    def logical_not(self, a: MLOperand, *, label: str = "") -> MLOperand:
        """``logicalNot()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-logical)."""
    def logical_and(self, a: MLOperand, b: MLOperand, *, label: str = "") -> MLOperand:
        """``logicalAnd()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-logical)."""
    def logical_or(self, a: MLOperand, b: MLOperand, *, label: str = "") -> MLOperand:
        """``logicalOr()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-logical)."""
    def logical_xor(self, a: MLOperand, b: MLOperand, *, label: str = "") -> MLOperand:
        """``logicalXor()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-logical)."""
    def is_nan(self, a: MLOperand, *, label: str = "") -> MLOperand:
        """``isNaN()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-logical)."""
    def is_infinite(self, a: MLOperand, *, label: str = "") -> MLOperand:
        """``isInfinite()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-logical)."""
    def abs(self, input: MLOperand, *, label: str = "") -> MLOperand:
        """``abs()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-unary)."""
    def ceil(self, input: MLOperand, *, label: str = "") -> MLOperand:
        """``ceil()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-unary)."""
    def cos(self, input: MLOperand, *, label: str = "") -> MLOperand:
        """``cos()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-unary)."""
    def erf(self, input: MLOperand, *, label: str = "") -> MLOperand:
        """``erf()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-unary)."""
    def exp(self, input: MLOperand, *, label: str = "") -> MLOperand:
        """``exp()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-unary)."""
    def floor(self, input: MLOperand, *, label: str = "") -> MLOperand:
        """``floor()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-unary)."""
    def identity(self, input: MLOperand, *, label: str = "") -> MLOperand:
        """``identity()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-unary)."""
    def log(self, input: MLOperand, *, label: str = "") -> MLOperand:
        """``log()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-unary)."""
    def neg(self, input: MLOperand, *, label: str = "") -> MLOperand:
        """``neg()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-unary)."""
    def reciprocal(self, input: MLOperand, *, label: str = "") -> MLOperand:
        """``reciprocal()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-unary)."""
    def round_even(self, input: MLOperand, *, label: str = "") -> MLOperand:
        """``roundEven()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-unary)."""
    def sin(self, input: MLOperand, *, label: str = "") -> MLOperand:
        """``sin()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-unary)."""
    def sign(self, input: MLOperand, *, label: str = "") -> MLOperand:
        """``sign()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-unary)."""
    def sqrt(self, input: MLOperand, *, label: str = "") -> MLOperand:
        """``sqrt()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-unary)."""
    def tan(self, input: MLOperand, *, label: str = "") -> MLOperand:
        """``tan()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-unary)."""
    def dequantize_linear(
        self,
        input: MLOperand,
        scale: MLOperand,
        zero_point: MLOperand,
        *,
        label: str = "",
    ) -> MLOperand:
        """``dequantizeLinear()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-dequantizelinear)."""
    def quantize_linear(
        self,
        input: MLOperand,
        scale: MLOperand,
        zero_point: MLOperand,
        *,
        label: str = "",
    ) -> MLOperand:
        """``quantizeLinear()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-quantizelinear)."""
    def elu(self, input: MLOperand, *, alpha: float = 1.0, label: str = "") -> MLOperand:
        """``elu()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-elu)."""
    def expand(self, input: MLOperand, new_shape: Sequence[int], *, label: str = "") -> MLOperand:
        """``expand()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-expand)."""
    def gather(self, input: MLOperand, indices: MLOperand, *, axis: int = 0, label: str = "") -> MLOperand:
        """``gather()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-gather)."""
    def gather_elements(
        self,
        input: MLOperand,
        indices: MLOperand,
        *,
        axis: int = 0,
        label: str = "",
    ) -> MLOperand:
        """``gatherElements()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-gatherelements)."""
    def gather_nd(self, input: MLOperand, indices: MLOperand, *, label: str = "") -> MLOperand:
        """``gatherND()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-gathernd)."""
    def gelu(self, input: MLOperand, *, label: str = "") -> MLOperand:
        """``gelu()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-gelu-method)."""
    def gemm(
        self,
        a: MLOperand,
        b: MLOperand,
        *,
        c: MLOperand | None = None,
        alpha: float = 1.0,
        beta: float = 1.0,
        a_transpose: bool = False,
        b_transpose: bool = False,
        label: str = "",
    ) -> MLOperand:
        """``gemm()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-gemm)."""
    def gru(
        self,
        input: MLOperand,
        weight: MLOperand,
        recurrent_weight: MLOperand,
        steps: int,
        hidden_size: int,
        *,
        bias: MLOperand | None = None,
        recurrent_bias: MLOperand | None = None,
        initial_hidden_state: MLOperand | None = None,
        reset_after: bool = True,
        return_sequence: bool = False,
        direction: RecurrentDirection = "forward",
        layout: GruWeightLayout = "zrn",
        activations: Sequence[RecurrentActivation] | None = None,
        label: str = "",
    ) -> list[MLOperand]:
        """``gru()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-gru)."""
    def gru_cell(
        self,
        input: MLOperand,
        weight: MLOperand,
        recurrent_weight: MLOperand,
        hidden_state: MLOperand,
        hidden_size: int,
        *,
        bias: MLOperand | None = None,
        recurrent_bias: MLOperand | None = None,
        reset_after: bool = True,
        layout: GruWeightLayout = "zrn",
        activations: Sequence[RecurrentActivation] | None = None,
        label: str = "",
    ) -> MLOperand:
        """``gruCell()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-grucell)."""
    def hard_sigmoid(
        self,
        input: MLOperand,
        *,
        alpha: float = 0.2,
        beta: float = 0.5,
        label: str = "",
    ) -> MLOperand:
        """``hardSigmoid()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-hard-sigmoid)."""
    def hard_swish(self, input: MLOperand, *, label: str = "") -> MLOperand:
        """``hardSwish()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-hard-swish)."""
    def instance_normalization(
        self,
        input: MLOperand,
        *,
        scale: MLOperand | None = None,
        bias: MLOperand | None = None,
        epsilon: float = 1e-05,
        layout: InputLayout = "nchw",
        label: str = "",
    ) -> MLOperand:
        """``instanceNormalization()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-instancenorm)."""
    def layer_normalization(
        self,
        input: MLOperand,
        *,
        scale: MLOperand | None = None,
        bias: MLOperand | None = None,
        axes: Sequence[int] | None = None,
        epsilon: float = 1e-05,
        label: str = "",
    ) -> MLOperand:
        """``layerNormalization()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-layernorm)."""
    def leaky_relu(self, input: MLOperand, *, alpha: float = 0.01, label: str = "") -> MLOperand:
        """``leakyRelu()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-leakyrelu)."""
    def linear(
        self,
        input: MLOperand,
        *,
        alpha: float = 1.0,
        beta: float = 0.0,
        label: str = "",
    ) -> MLOperand:
        """``linear()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-linear)."""
    def lstm(
        self,
        input: MLOperand,
        weight: MLOperand,
        recurrent_weight: MLOperand,
        steps: int,
        hidden_size: int,
        *,
        bias: MLOperand | None = None,
        recurrent_bias: MLOperand | None = None,
        peephole_weight: MLOperand | None = None,
        initial_hidden_state: MLOperand | None = None,
        initial_cell_state: MLOperand | None = None,
        return_sequence: bool = False,
        direction: RecurrentDirection = "forward",
        layout: LstmWeightLayout = "iofg",
        activations: Sequence[RecurrentActivation] | None = None,
        label: str = "",
    ) -> list[MLOperand]:
        """``lstm()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-lstm)."""
    def lstm_cell(
        self,
        input: MLOperand,
        weight: MLOperand,
        recurrent_weight: MLOperand,
        hidden_state: MLOperand,
        cell_state: MLOperand,
        hidden_size: int,
        *,
        bias: MLOperand | None = None,
        recurrent_bias: MLOperand | None = None,
        peephole_weight: MLOperand | None = None,
        layout: LstmWeightLayout = "iofg",
        activations: Sequence[RecurrentActivation] | None = None,
        label: str = "",
    ) -> list[MLOperand]:
        """``lstmCell()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-lstmcell)."""
    def matmul(self, a: MLOperand, b: MLOperand, *, label: str = "") -> MLOperand:
        """``matmul()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-matmul)."""
    def pad(
        self,
        input: MLOperand,
        beginning_padding: Sequence[int],
        ending_padding: Sequence[int],
        *,
        mode: PaddingMode = "constant",
        value: int | float = 0,
        label: str = "",
    ) -> MLOperand:
        """``pad()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-pad)."""
    def average_pool2d(
        self,
        input: MLOperand,
        *,
        window_dimensions: Sequence[int] | None = None,
        padding: Sequence[int] | None = None,
        strides: Sequence[int] | None = None,
        dilations: Sequence[int] | None = None,
        layout: InputLayout = "nchw",
        output_shape_rounding: RoundingType = "floor",
        output_sizes: Sequence[int] | None = None,
        label: str = "",
    ) -> MLOperand:
        """``averagePool2d()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-pool2d-average)."""
    def l2_pool2d(
        self,
        input: MLOperand,
        *,
        window_dimensions: Sequence[int] | None = None,
        padding: Sequence[int] | None = None,
        strides: Sequence[int] | None = None,
        dilations: Sequence[int] | None = None,
        layout: InputLayout = "nchw",
        output_shape_rounding: RoundingType = "floor",
        output_sizes: Sequence[int] | None = None,
        label: str = "",
    ) -> MLOperand:
        """``l2Pool2d()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-pool2d-l2)."""
    def max_pool2d(
        self,
        input: MLOperand,
        *,
        window_dimensions: Sequence[int] | None = None,
        padding: Sequence[int] | None = None,
        strides: Sequence[int] | None = None,
        dilations: Sequence[int] | None = None,
        layout: InputLayout = "nchw",
        output_shape_rounding: RoundingType = "floor",
        output_sizes: Sequence[int] | None = None,
        label: str = "",
    ) -> MLOperand:
        """``maxPool2d()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-pool2d-max)."""
    def prelu(self, input: MLOperand, slope: MLOperand, *, label: str = "") -> MLOperand:
        """``prelu()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-prelu)."""
    def reduce_l1(
        self,
        input: MLOperand,
        *,
        axes: Sequence[int] | None = None,
        keep_dimensions: bool = False,
        label: str = "",
    ) -> MLOperand:
        """``reduceL1()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-reduce)."""
    def reduce_l2(
        self,
        input: MLOperand,
        *,
        axes: Sequence[int] | None = None,
        keep_dimensions: bool = False,
        label: str = "",
    ) -> MLOperand:
        """``reduceL2()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-reduce)."""
    def reduce_log_sum(
        self,
        input: MLOperand,
        *,
        axes: Sequence[int] | None = None,
        keep_dimensions: bool = False,
        label: str = "",
    ) -> MLOperand:
        """``reduceLogSum()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-reduce)."""
    def reduce_log_sum_exp(
        self,
        input: MLOperand,
        *,
        axes: Sequence[int] | None = None,
        keep_dimensions: bool = False,
        label: str = "",
    ) -> MLOperand:
        """``reduceLogSumExp()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-reduce)."""
    def reduce_max(
        self,
        input: MLOperand,
        *,
        axes: Sequence[int] | None = None,
        keep_dimensions: bool = False,
        label: str = "",
    ) -> MLOperand:
        """``reduceMax()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-reduce)."""
    def reduce_mean(
        self,
        input: MLOperand,
        *,
        axes: Sequence[int] | None = None,
        keep_dimensions: bool = False,
        label: str = "",
    ) -> MLOperand:
        """``reduceMean()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-reduce)."""
    def reduce_min(
        self,
        input: MLOperand,
        *,
        axes: Sequence[int] | None = None,
        keep_dimensions: bool = False,
        label: str = "",
    ) -> MLOperand:
        """``reduceMin()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-reduce)."""
    def reduce_product(
        self,
        input: MLOperand,
        *,
        axes: Sequence[int] | None = None,
        keep_dimensions: bool = False,
        label: str = "",
    ) -> MLOperand:
        """``reduceProduct()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-reduce)."""
    def reduce_sum(
        self,
        input: MLOperand,
        *,
        axes: Sequence[int] | None = None,
        keep_dimensions: bool = False,
        label: str = "",
    ) -> MLOperand:
        """``reduceSum()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-reduce)."""
    def reduce_sum_square(
        self,
        input: MLOperand,
        *,
        axes: Sequence[int] | None = None,
        keep_dimensions: bool = False,
        label: str = "",
    ) -> MLOperand:
        """``reduceSumSquare()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-reduce)."""
    def relu(self, input: MLOperand, *, label: str = "") -> MLOperand:
        """``relu()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-relu-method)."""
    def resample2d(
        self,
        input: MLOperand,
        *,
        mode: InterpolationMode = "nearest-neighbor",
        scales: Sequence[float] | None = None,
        sizes: Sequence[int] | None = None,
        axes: Sequence[int] | None = None,
        label: str = "",
    ) -> MLOperand:
        """``resample2d()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-resample2d-method)."""
    def reshape(self, input: MLOperand, new_shape: Sequence[int], *, label: str = "") -> MLOperand:
        """``reshape()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-reshape-method)."""
    def reverse(self, input: MLOperand, *, axes: Sequence[int] | None = None, label: str = "") -> MLOperand:
        """``reverse()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-reverse-method)."""
    def scatter_elements(
        self,
        input: MLOperand,
        indices: MLOperand,
        updates: MLOperand,
        *,
        axis: int = 0,
        label: str = "",
    ) -> MLOperand:
        """``scatterElements()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-scatterelements)."""
    def scatter_nd(
        self,
        input: MLOperand,
        indices: MLOperand,
        updates: MLOperand,
        *,
        label: str = "",
    ) -> MLOperand:
        """``scatterND()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-scatternd)."""
    def sigmoid(self, input: MLOperand, *, label: str = "") -> MLOperand:
        """``sigmoid()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-sigmoid-method)."""
    def slice(
        self,
        input: MLOperand,
        starts: Sequence[int],
        sizes: Sequence[int],
        *,
        strides: Sequence[int] | None = None,
        label: str = "",
    ) -> MLOperand:
        """``slice()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-slice)."""
    def softmax(self, input: MLOperand, axis: int, *, label: str = "") -> MLOperand:
        """``softmax()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-softmax-method)."""
    def softplus(self, input: MLOperand, *, label: str = "") -> MLOperand:
        """``softplus()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-softplus-method)."""
    def softsign(self, input: MLOperand, *, label: str = "") -> MLOperand:
        """``softsign()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-softsign-method)."""
    def split(
        self,
        input: MLOperand,
        splits: int | Sequence[int],
        *,
        axis: int = 0,
        label: str = "",
    ) -> list[MLOperand]:
        """``split()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-split)."""
    def tanh(self, input: MLOperand, *, label: str = "") -> MLOperand:
        """``tanh()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-tanh-method)."""
    def tile(self, input: MLOperand, repetitions: Sequence[int], *, label: str = "") -> MLOperand:
        """``tile()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-tile)."""
    def transpose(
        self,
        input: MLOperand,
        *,
        permutation: Sequence[int] | None = None,
        label: str = "",
    ) -> MLOperand:
        """``transpose()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-transpose)."""
    def triangular(
        self,
        input: MLOperand,
        *,
        upper: bool = True,
        diagonal: int = 0,
        label: str = "",
    ) -> MLOperand:
        """``triangular()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-triangular)."""
    def where(
        self,
        condition: MLOperand,
        true_value: MLOperand,
        false_value: MLOperand,
        *,
        label: str = "",
    ) -> MLOperand:
        """``where()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-where)."""
    # END the operations.

class NodeArg:
    """An input or output as ``onnxruntime.NodeArg`` describes it."""

    name: str
    shape: list[int | str | None]
    type: str
    def __init__(self, name: str, shape: list[int | str | None], type: str) -> None: ...

class InferenceSession:
    """An ONNX model run the way ``onnxruntime.InferenceSession`` runs it, over WebNN."""

    def __init__(
        self,
        path_or_bytes: str | bytes | PathLike[str],
        sess_options: Any = None,
        providers: Sequence[Any] | None = None,
        provider_options: Sequence[Any] | None = None,
        *,
        shapes: Mapping[str, int | Sequence[int]] | None = None,
        threads: int | None = None,
    ) -> None: ...
    def get_inputs(self) -> list[NodeArg]:
        """The model's inputs (initializers excluded), as declared."""
    def get_outputs(self) -> list[NodeArg]:
        """The model's outputs, as declared."""
    def get_providers(self) -> list[str]:
        """The engine the session runs on."""
    def run(
        self, output_names: Sequence[str] | None, input_feed: Mapping[str, Data], run_options: Any = None
    ) -> list[NDArray[Any]]:
        """Runs the model; returns the outputs named in ``output_names`` (None: all)."""

__all__ = [
    "ml",
    "ML",
    "MLContext",
    "MLContextLostInfo",
    "MLGraphBuilder",
    "MLGraph",
    "MLOperand",
    "MLTensor",
    "Pending",
    "InferenceSession",
    "NodeArg",
    "WebNNError",
    "InvalidStateError",
    "NotSupportedError",
    "OperationError",
    "UnknownError",
]

"""The W3C Web Neural Network API (https://www.w3.org/TR/webnn/, CRD 2026-05-21) for Python,
with numpy arrays in and out, over this project's Rust engine; and ``InferenceSession``, an
ONNX Runtime-style session over its ONNX importer.

    import numpy as np
    import webnn

    context = webnn.ml.create_context()
    builder = webnn.MLGraphBuilder(context)
    a = builder.input("a", "float32", [2, 2])
    b = builder.constant(np.full((2, 2), 0.5, np.float32))
    graph = builder.build({"c": builder.add(a, b)})
    print(context.compute(graph, {"a": np.ones((2, 2), np.float32)})["c"])

Names follow the spec in snake_case (``gatherND`` is ``gather_nd``, ``isNaN`` is ``is_nan``),
options are keyword arguments with the IDL defaults, enums are the IDL strings. Argument
errors raise ``TypeError``; the spec's DOMExceptions are ``webnn.InvalidStateError``,
``NotSupportedError``, ``OperationError`` and ``UnknownError``, subclasses of
``webnn.WebNNError``; messages start with ``[label]`` when the operation had a label.
"""

from ._webnn import (
    InvalidStateError,
    MLGraph,
    MLOperand,
    MLTensor,
    NotSupportedError,
    OperationError,
    UnknownError,
    WebNNError,
)
from ._context import ML, MLContext, MLContextLostInfo
from ._builder import MLGraphBuilder
from ._pending import Pending
from ._session import InferenceSession, NodeArg
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

# Public classes defined in the private modules show as webnn.X.
for _cls in (ML, MLContext, MLContextLostInfo, MLGraphBuilder, Pending, InferenceSession, NodeArg):
    _cls.__module__ = __name__
del _cls

#: ``navigator.ml``: the entry point (https://www.w3.org/TR/webnn/#api-ml).
ml = ML()

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

"""Type aliases of the API (the IDL enums as ``Literal`` string types), for annotations:
``def f(t: webnn.DataType) -> None``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal, Type, Union

import numpy as np
from numpy.typing import NDArray

#: ``MLOperandDataType``
DataType = Literal["float32", "float16", "int32", "uint32", "int64", "uint64", "int8", "uint8"]
#: A data type as its IDL string or as a numpy dtype of one (``np.float32``, ``np.dtype("int64")``).
DataTypeLike = Union[DataType, Type[np.generic], "np.dtype[Any]"]
#: ``MLPowerPreference``
PowerPreference = Literal["default", "high-performance", "low-power"]
#: ``MLInputOperandLayout``
InputLayout = Literal["nchw", "nhwc"]
#: ``MLConv2dFilterOperandLayout``
Conv2dFilterLayout = Literal["oihw", "hwio", "ohwi", "ihwo"]
#: ``MLConvTranspose2dFilterOperandLayout``
ConvTranspose2dFilterLayout = Literal["iohw", "hwoi", "ohwi"]
#: ``MLGruWeightLayout``
GruWeightLayout = Literal["zrn", "rzn"]
#: ``MLLstmWeightLayout``
LstmWeightLayout = Literal["iofg", "ifgo"]
#: ``MLRecurrentNetworkActivation``
RecurrentActivation = Literal["relu", "sigmoid", "tanh"]
#: ``MLRecurrentNetworkDirection``
RecurrentDirection = Literal["forward", "backward", "both"]
#: ``MLPaddingMode``
PaddingMode = Literal["constant", "edge", "reflection"]
#: ``MLRoundingType``
RoundingType = Literal["floor", "ceil"]
#: ``MLInterpolationMode``
InterpolationMode = Literal["nearest-neighbor", "linear"]
#: ``MLOperandDescriptor``: ``{"dataType": ..., "shape": [...]}``.
OperandDescriptor = Mapping[str, Any]
#: Data for a tensor or constant: an array of its dtype, raw bytes (uint8 array, bytes,
#: bytearray, memoryview), or a Python number or (nested) list of numbers.
Data = Union["NDArray[Any]", bytes, bytearray, memoryview, Sequence[Any], int, float]

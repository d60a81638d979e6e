"""Argument conversions of the WebNN IDL types, the Python way.

Each converter takes the value and ``where``, the argument's description in messages (for
example ``"conv2d(): argument 'padding'"``), and returns the value in the form the native
module takes, or raises ``TypeError`` naming the argument. Python types are taken strictly
(an ``unsigned long`` is an ``int``, not a float or a bool), and the IDL's ranges are
enforced (https://webidl.spec.whatwg.org/#EnforceRange).
"""

from __future__ import annotations

import math
import operator
from collections.abc import Iterable, Mapping
from typing import Callable, List, Sequence, Tuple, TypeVar, Union

import numpy as np

T = TypeVar("T")

DATA_TYPES = ("float32", "float16", "int32", "uint32", "int64", "uint64", "int8", "uint8")

I128_MIN = -(1 << 127)
I128_MAX = (1 << 127) - 1
U32_MAX = (1 << 32) - 1
I32_MIN = -(1 << 31)
I32_MAX = (1 << 31) - 1


def fail(where: str, message: str) -> TypeError:
    """A TypeError about the argument ``where``."""
    return TypeError(f"{where} {message}")


def type_name(value: object) -> str:
    return type(value).__name__


def integer(value: object, where: str) -> int:
    """An ``int`` (or numpy integer); bools and floats are refused."""
    if isinstance(value, (bool, np.bool_)):
        raise fail(where, "must be an int, not bool")
    try:
        return operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        raise fail(where, f"must be an int, not {type_name(value)}") from None


def enforced_unsigned_long(value: object, where: str) -> int:
    """``[EnforceRange] unsigned long``: an int in [0, 2^32 - 1]."""
    i = integer(value, where)
    if not 0 <= i <= U32_MAX:
        raise fail(where, f"must be in [0, {U32_MAX}] (unsigned long), got {i}")
    return i


def unsigned_long(value: object, where: str) -> int:
    """``unsigned long`` without [EnforceRange]: an int taken modulo 2^32, as WebIDL does."""
    return integer(value, where) % (1 << 32)


def enforced_long(value: object, where: str) -> int:
    """``[EnforceRange] long``: an int in [-2^31, 2^31 - 1]."""
    i = integer(value, where)
    if not I32_MIN <= i <= I32_MAX:
        raise fail(where, f"must be in [{I32_MIN}, {I32_MAX}] (long), got {i}")
    return i


def real(value: object, where: str) -> float:
    """A Python or numpy real number (not a bool) as a float."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise fail(where, f"must be a number, not {type_name(value)}")
    return float(value)


def restricted_double(value: object, where: str) -> float:
    """``double``: a finite number."""
    x = real(value, where)
    if not math.isfinite(x):
        raise fail(where, f"must be finite, got {x}")
    return x


def restricted_float(value: object, where: str) -> float:
    """``float``: a finite number, rounded to float32 (which must stay finite)."""
    x = restricted_double(value, where)
    with np.errstate(over="ignore"):
        f = float(np.float32(x))
    if not math.isfinite(f):
        raise fail(where, f"is outside the range of float32: {x}")
    return f


def ml_number(value: object, where: str) -> Union[str, float]:
    """``MLNumber`` (bigint or unrestricted double) in the native module's form: a float (NaN and
    infinities included), or an int as its decimal string, clamped to 128 bits (more than any
    data type holds) and kept exact."""
    if isinstance(value, (bool, np.bool_)):
        raise fail(where, "must be a number, not bool")
    if isinstance(value, (int, np.integer)):
        return str(max(I128_MIN, min(I128_MAX, int(value))))
    if isinstance(value, (float, np.floating)):
        return float(value)
    raise fail(where, f"must be an int or a float, not {type_name(value)}")


def boolean(value: object, where: str) -> bool:
    """``boolean``: a bool (or numpy bool)."""
    if not isinstance(value, (bool, np.bool_)):
        raise fail(where, f"must be a bool, not {type_name(value)}")
    return bool(value)


def string(value: object, where: str) -> str:
    """``USVString``: a str."""
    if not isinstance(value, str):
        raise fail(where, f"must be a str, not {type_name(value)}")
    return value


def enumeration(values: Tuple[str, ...], type_name_: str) -> Callable[[object, str], str]:
    """The converter of the IDL enum ``type_name_`` with the strings ``values``."""

    def convert(value: object, where: str) -> str:
        if not isinstance(value, str) or value not in values:
            shown = repr(value) if isinstance(value, str) else type_name(value)
            raise fail(where, f"must be one of {', '.join(map(repr, values))} ({type_name_}), got {shown}")
        return value

    return convert


def sequence(value: object, item: Callable[[object, str], T], where: str) -> List[T]:
    """``sequence<T>``: any iterable but a str, bytes or mapping, each item converted."""
    if isinstance(value, (str, bytes, bytearray, Mapping)) or not isinstance(value, Iterable):
        raise fail(where, f"must be a sequence, not {type_name(value)}")
    return [item(x, f"{where}[{i}]") for i, x in enumerate(value)]


def data_type(value: object, where: str) -> str:
    """``MLOperandDataType``: one of its strings, or a numpy dtype (``np.float32``,
    ``np.dtype("int64")``...) of one of them."""
    if isinstance(value, str):
        if value in DATA_TYPES:
            return value
    elif isinstance(value, (type, np.dtype)):
        try:
            name = np.dtype(value).name
        except TypeError:
            name = ""
        if name in DATA_TYPES:
            return name
    raise fail(where, f"must be an MLOperandDataType ({', '.join(DATA_TYPES)}), got {value!r}")


def shape(value: object, where: str) -> List[int]:
    """A shape: ``sequence<[EnforceRange] unsigned long>``."""
    return sequence(value, enforced_unsigned_long, where)


def descriptor(value: object, where: str) -> Tuple[str, List[int]]:
    """``MLOperandDescriptor``: a mapping with ``dataType`` (or ``data_type``) and ``shape``."""
    if not isinstance(value, Mapping):
        raise fail(where, f"must be a mapping with 'dataType' and 'shape', not {type_name(value)}")
    key = "dataType" if "dataType" in value else "data_type"
    if key not in value:
        raise fail(where, "has no 'dataType'")
    if "shape" not in value:
        raise fail(where, "has no 'shape'")
    return data_type(value[key], f"{where}['{key}']"), shape(value["shape"], f"{where}['shape']")


def splits(value: object, where: str) -> Union[int, List[int]]:
    """split()'s ``([EnforceRange] unsigned long or sequence<[EnforceRange] unsigned long>)``."""
    if isinstance(value, Iterable) and not isinstance(value, (str, bytes, Mapping)):
        return sequence(value, enforced_unsigned_long, where)
    return enforced_unsigned_long(value, where)


def floats(value: object, where: str) -> Sequence[float]:
    """``sequence<float>``."""
    return sequence(value, restricted_float, where)

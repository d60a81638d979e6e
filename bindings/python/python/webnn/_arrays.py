"""numpy arrays in and out: which arrays are taken as they are, which are converted, which are
refused.

* An ``ndarray`` of the operand's dtype that is C-contiguous is read in place (no copy before
  the engine's own one). A non-contiguous or byte-swapped one is copied into a C-contiguous
  native array first.
* An ``ndarray`` of dtype ``uint8`` holds raw little-endian bytes for any data type, as the
  spec lets a ``Uint8Array`` do; so do ``bytes``, ``bytearray`` and ``memoryview``.
* An ``ndarray`` of any other dtype is refused with a TypeError (convert it with
  ``.astype(...)``: silent casts would hide a float64 or int64 mix-up).
* Python scalars, lists and tuples are converted to the dtype: numbers to a float dtype, ints
  to an int dtype (a float or an out-of-range int is a TypeError).

Outputs are new arrays that own their buffer.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from ._convert import DATA_TYPES, descriptor, fail, type_name

#: The numpy dtype of each MLOperandDataType (float16 is ``np.float16``).
DTYPES: Dict[str, np.dtype] = {name: np.dtype(name) for name in DATA_TYPES}

BYTES = np.dtype(np.uint8)


def data_type_of(array: np.ndarray, where: str) -> str:
    """The MLOperandDataType of an array's dtype."""
    name = array.dtype.newbyteorder("=").name if array.dtype.byteorder not in "=|" else array.dtype.name
    if name not in DATA_TYPES:
        hint = " (use np.float32 or np.float16)" if array.dtype.kind == "f" else ""
        hint = " (use np.uint8 holding 0 and 1)" if array.dtype.kind == "b" else hint
        raise fail(where, f"has dtype {array.dtype}, which is not an MLOperandDataType{hint}")
    return name


def contiguous(array: np.ndarray) -> np.ndarray:
    """``array`` as a C-contiguous native-byte-order array (itself when it already is one)."""
    if not array.dtype.isnative:
        array = array.astype(array.dtype.newbyteorder("="))
    return np.ascontiguousarray(array)


def constant_data(value: Any, data: Any, method: str, data_name: str) -> Optional[Tuple[str, List[int], np.ndarray]]:
    """The data type, shape and data of constant data given as an ``ndarray`` (and no ``data``)
    or as a descriptor with its ``data``; None for any other form. ``method`` names the caller
    and ``data_name`` its data argument in errors."""
    where = f"{method}(): argument"
    if isinstance(value, Mapping):
        if data is None:
            raise TypeError(f"{method}(): the descriptor form takes the data as its second argument")
        dt, dims = descriptor(value, f"{where} 'descriptor'")
        return dt, dims, as_data(data, dt, f"{where} '{data_name}'")
    if isinstance(value, (np.ndarray, np.generic)) and data is None:
        array = np.asarray(value)
        return data_type_of(array, f"{where} 'value'"), list(array.shape), contiguous(array)
    return None


def as_data(value: Any, data_type: str, where: str) -> np.ndarray:
    """``value`` as an array the native module takes for an operand of ``data_type``: of its
    dtype or of uint8 (raw bytes), C-contiguous (see the module doc)."""
    target = DTYPES[data_type]
    if isinstance(value, np.ndarray):
        if value.dtype == target or value.dtype.newbyteorder("=") == target:
            return contiguous(value)
        if value.dtype == BYTES:
            return contiguous(value)
        raise fail(
            where,
            f"must be an array of dtype {target} (or uint8 bytes), got dtype {value.dtype} "
            f"(convert it with .astype(np.{target}))",
        )
    if isinstance(value, (bytes, bytearray, memoryview)):
        return np.frombuffer(value, dtype=np.uint8)
    return from_python(value, target, where)


def from_python(value: Any, target: np.dtype, where: str) -> np.ndarray:
    """A Python scalar, list or tuple (or numpy scalar) converted to ``target``."""
    try:
        array = np.asarray(value)
    except (ValueError, TypeError) as e:
        raise fail(where, f"cannot be converted to an array: {e}") from None
    if array.dtype.kind not in "iuf" or (array.dtype.kind == "f" and target.kind != "f"):
        raise fail(where, f"must hold {'ints' if target.kind != 'f' else 'numbers'} for {target}, got {type_name(value)} of {array.dtype}")
    if target.kind == "f":
        with np.errstate(over="ignore"):
            return array.astype(target)
    converted = array.astype(target)
    if not np.array_equal(converted, array):
        raise fail(where, f"holds values outside the range of {target}")
    return converted


def new_output(data_type: str, shape: Any) -> np.ndarray:
    """A zero-filled array for a tensor of ``data_type`` and ``shape``."""
    return np.zeros(shape, dtype=DTYPES[data_type])


def check_out(out: Any, data_type: str, where: str) -> np.ndarray:
    """The BYOB argument of ``read_tensor``: a writable array of the tensor's dtype or of
    uint8, or a writable bytes-like object."""
    if isinstance(out, (bytearray, memoryview)):
        array = np.frombuffer(out, dtype=np.uint8)
    elif isinstance(out, np.ndarray):
        array = out
    else:
        raise fail(where, f"must be a writable numpy array or bytearray, not {type_name(out)}")
    if array.dtype != DTYPES[data_type] and array.dtype != BYTES:
        raise fail(where, f"must be an array of dtype {DTYPES[data_type]} (or uint8 bytes), got dtype {array.dtype}")
    if not array.flags.writeable:
        raise fail(where, "is read-only")
    if not array.flags.c_contiguous:
        raise fail(where, "must be C-contiguous")
    return array

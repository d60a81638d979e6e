"""Every MLOperandDataType in and out through numpy: inputs, constants (array, descriptor +
bytes, scalar), tensors, outputs; extreme values survive bit for bit, and arithmetic matches
numpy's. Also the array conversions of ``_arrays`` (lists, non-contiguous, byte-swapped,
uint8 bytes) and their TypeErrors."""

from __future__ import annotations

import numpy as np
import pytest

import webnn

# Extreme and ordinary values of each data type (float16 is np.float16; 64-bit ints whole).
VALUES = {
    "float32": np.array([0.0, -0.0, 1.5, -3.25, np.inf, -np.inf, 3.4028235e38, 1e-45], np.float32),
    "float16": np.array([0.0, -0.0, 1.5, -3.25, np.inf, -np.inf, 65504.0, 6e-8], np.float16),
    "int32": np.array([0, -1, 7, -(2**31), 2**31 - 1, 123456789, -5, 2], np.int32),
    "uint32": np.array([0, 1, 7, 2**32 - 1, 2**31, 123456789, 5, 2], np.uint32),
    "int64": np.array([0, -1, 7, -(2**63), 2**63 - 1, 2**53 + 1, -(2**53) - 1, 2], np.int64),
    "uint64": np.array([0, 1, 7, 2**64 - 1, 2**63 + 1, 2**53 + 1, 5, 2], np.uint64),
    "int8": np.array([0, -1, 7, -128, 127, 100, -5, 2], np.int8),
    "uint8": np.array([0, 1, 7, 255, 128, 100, 5, 2], np.uint8),
}
DATA_TYPES = list(VALUES)


def same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    """Equal dtype, shape and bytes (so -0.0 differs from 0.0)."""
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


@pytest.mark.parametrize("data_type", DATA_TYPES)
def test_input_identity_output(context: webnn.MLContext, data_type: str) -> None:
    x = VALUES[data_type].reshape(2, 4)
    builder = webnn.MLGraphBuilder(context)
    inp = builder.input("x", data_type, [2, 4])
    assert inp.data_type == data_type and inp.shape == [2, 4]
    graph = builder.build({"y": builder.identity(inp)})
    out = context.compute(graph, {"x": x})["y"]
    assert same_bits(out, x)


@pytest.mark.parametrize("data_type", DATA_TYPES)
def test_tensors_write_and_read(context: webnn.MLContext, data_type: str) -> None:
    x = VALUES[data_type]
    tensor = context.create_tensor(data_type, [8], readable=True, writable=True)
    assert (tensor.data_type, tensor.shape, tensor.readable, tensor.writable) == (data_type, [8], True, True)
    zeros = context.read_tensor(tensor)
    assert same_bits(zeros, np.zeros(8, x.dtype))
    context.write_tensor(tensor, x)
    assert same_bits(context.read_tensor(tensor), x)
    # BYOB: into an array of the dtype, and into uint8 bytes.
    out = np.empty(8, x.dtype)
    assert context.read_tensor(tensor, out=out) is None
    assert same_bits(out, x)
    raw = np.empty(x.nbytes, np.uint8)
    context.read_tensor(tensor, out=raw)
    assert raw.tobytes() == x.astype(x.dtype.newbyteorder("<")).tobytes()
    # Raw little-endian bytes in.
    context.write_tensor(tensor, x[::-1].astype(x.dtype.newbyteorder("<")).tobytes())
    assert same_bits(context.read_tensor(tensor), x[::-1].copy())


@pytest.mark.parametrize("data_type", DATA_TYPES)
def test_constants(context: webnn.MLContext, data_type: str) -> None:
    x = VALUES[data_type]
    builder = webnn.MLGraphBuilder(context)
    from_array = builder.constant(x.reshape(4, 2))
    assert from_array.data_type == data_type and from_array.shape == [4, 2]
    from_bytes = builder.constant({"dataType": data_type, "shape": [8]}, x.tobytes())
    from_descriptor = builder.constant({"dataType": data_type, "shape": [2, 4]}, x)
    tensor = context.create_constant_tensor(x)
    assert tensor.constant and tensor.data_type == data_type
    from_tensor = builder.constant(tensor)
    graph = builder.build(
        {
            "a": builder.identity(from_array),
            "b": builder.identity(from_bytes),
            "c": builder.identity(from_descriptor),
            "d": builder.identity(from_tensor),
        }
    )
    out = context.compute(graph, {})
    assert same_bits(out["a"], x.reshape(4, 2))
    assert same_bits(out["b"], x)
    assert same_bits(out["c"], x.reshape(2, 4))
    assert same_bits(out["d"], x)


@pytest.mark.parametrize(
    "data_type, value",
    [("int64", 2**63 - 1), ("int64", -(2**63)), ("uint64", 2**64 - 1), ("int32", -7), ("uint8", 255),
     ("float32", 0.1), ("float16", 0.1), ("float32", float("inf"))],
)
def test_scalar_constants_are_exact(context: webnn.MLContext, data_type: str, value: float) -> None:
    """``constant(data_type, value)``: Python ints keep all 64 bits (a bigint MLNumber)."""
    builder = webnn.MLGraphBuilder(context)
    k = builder.constant(data_type, value)
    assert k.shape == []
    out = context.compute(builder.build({"k": builder.identity(k)}), {})["k"]
    expected = np.array(value, dtype=np.dtype(data_type))
    assert same_bits(out, expected)


@pytest.mark.parametrize("data_type", DATA_TYPES)
def test_arithmetic_matches_numpy(context: webnn.MLContext, data_type: str) -> None:
    """add, mul and max per data type against numpy (values chosen so nothing overflows)."""
    dtype = np.dtype(data_type)
    a = np.array([[1, 2, 3], [4, 5, 6]], dtype)
    b = np.array([7, 0, 2], dtype)
    builder = webnn.MLGraphBuilder(context)
    x = builder.input("a", dtype, [2, 3])
    y = builder.constant(b)
    graph = builder.build({"add": builder.add(x, y), "mul": builder.mul(x, y), "max": builder.max(x, y)})
    out = context.compute(graph, {"a": a})
    for name, ref in [("add", a + b), ("mul", a * b), ("max", np.maximum(a, b))]:
        assert same_bits(out[name], ref.astype(dtype)), name


def test_cast_between_all_types(context: webnn.MLContext) -> None:
    """cast() from int32 to each data type, against numpy's astype (values every type holds)."""
    x = np.array([0, 1, 2, 100, 127], np.int32)
    builder = webnn.MLGraphBuilder(context)
    inp = builder.input("x", "int32", [5])
    graph = builder.build({t: builder.cast(inp, t) for t in DATA_TYPES})
    out = context.compute(graph, {"x": x})
    for t in DATA_TYPES:
        assert same_bits(out[t], x.astype(t)), t


def test_numpy_dtypes_as_data_types(context: webnn.MLContext) -> None:
    builder = webnn.MLGraphBuilder(context)
    assert builder.input("a", np.float16, [1]).data_type == "float16"
    assert builder.input("b", np.dtype("uint64"), [1]).data_type == "uint64"
    assert context.create_tensor(np.int8, [3]).data_type == "int8"


def test_conversions(context: webnn.MLContext) -> None:
    """Lists convert to the input's dtype; non-contiguous and byte-swapped arrays are copied."""
    builder = webnn.MLGraphBuilder(context)
    x = builder.input("x", "float32", [2, 2])
    n = builder.input("n", "int64", [3])
    graph = builder.build({"y": builder.neg(x), "m": builder.neg(n)})
    wide = np.arange(8, dtype=np.float32).reshape(2, 4)
    strided = wide[:, ::2]
    assert not strided.flags.c_contiguous
    swapped = np.array([5, -6, 2**40], dtype=">i8")
    out = context.compute(graph, {"x": strided, "n": swapped})
    np.testing.assert_array_equal(out["y"], -strided)
    np.testing.assert_array_equal(out["m"], -swapped.astype(np.int64))
    out = context.compute(graph, {"x": [[1, 2.5], [3, 4]], "n": [1, 2, 3]})
    np.testing.assert_array_equal(out["y"], [[-1, -2.5], [-3, -4]])
    assert out["m"].dtype == np.int64 and out["m"].tolist() == [-1, -2, -3]


@pytest.mark.parametrize(
    "value, message",
    [
        (np.ones((2, 2), np.float64), "dtype float64"),
        (np.ones((2, 2), np.int32), "dtype int32"),
        (np.ones((4, 1), np.float32), "shape"),
        ([[1, 2], [3]], "cannot be converted"),
        ("text", "numbers"),
    ],
)
def test_wrong_arrays_are_type_errors(context: webnn.MLContext, value: object, message: str) -> None:
    builder = webnn.MLGraphBuilder(context)
    graph = builder.build({"y": builder.neg(builder.input("x", "float32", [2, 2]))})
    with pytest.raises(TypeError, match=message):
        context.compute(graph, {"x": value})


def test_wrong_int_values_are_type_errors(context: webnn.MLContext) -> None:
    tensor = context.create_tensor("uint8", [2], writable=True)
    with pytest.raises(TypeError, match="outside the range of uint8"):
        context.write_tensor(tensor, [1, 300])
    with pytest.raises(TypeError, match="ints"):
        context.write_tensor(tensor, [1.5, 2])
    builder = webnn.MLGraphBuilder(context)
    with pytest.raises(TypeError, match="not an MLOperandDataType"):
        builder.constant(np.ones(2, np.float64))
    with pytest.raises(TypeError, match="uint8 holding 0 and 1"):
        builder.constant(np.ones(2, np.bool_))


def test_ml_numbers_keep_their_kind(context: webnn.MLContext) -> None:
    """Options of type MLNumber: a float stays a double (0.5 is not truncated), an int stays a
    bigint (all 64 bits of an int64 pad value survive)."""
    builder = webnn.MLGraphBuilder(context)
    x = builder.input("x", "float32", [5])
    n = builder.input("n", "int64", [2])
    graph = builder.build(
        {
            "clamped": builder.clamp(x, min_value=0.5, max_value=2.5),
            "padded": builder.pad(n, [1], [1], value=2**62 + 1),
            "scaled": builder.mul(x, builder.constant("float32", 0.5)),
        }
    )
    xs = np.array([-1, 0.25, 1, 2.75, 3], np.float32)
    ns = np.array([-(2**63), 2**63 - 1], np.int64)
    out = context.compute(graph, {"x": xs, "n": ns})
    np.testing.assert_array_equal(out["clamped"], np.clip(xs, np.float32(0.5), np.float32(2.5)))
    assert same_bits(out["padded"], np.pad(ns, 1, constant_values=2**62 + 1))
    np.testing.assert_array_equal(out["scaled"], xs * np.float32(0.5))

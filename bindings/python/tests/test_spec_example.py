"""The spec's first example (https://www.w3.org/TR/webnn/#api-mlcontext-dispatch-examples,
"C = 0.2 * A + B") through the Python API, in its three forms: dispatch with MLTensors,
compute(), and an asyncio read."""

from __future__ import annotations

import asyncio

import numpy as np

import webnn

A_VALUE, B_VALUE, K = 1.0, 0.8, 0.2


def expected() -> np.ndarray:
    """0.2 * A + B in float32, as numpy computes it (the spec prints [1, 1, 1, 1])."""
    a = np.full((2, 2), A_VALUE, np.float32)
    return np.float32(K) * a + np.full((2, 2), B_VALUE, np.float32)


def build(context: webnn.MLContext) -> tuple[webnn.MLGraph, webnn.MLOperand, webnn.MLOperand, webnn.MLOperand]:
    descriptor = {"dataType": "float32", "shape": [2, 2]}
    builder = webnn.MLGraphBuilder(context)
    # 1. Create a computational graph 'C = 0.2 * A + B'.
    constant = builder.constant(descriptor, np.full(4, K, np.float32))
    a = builder.input("A", descriptor)
    b = builder.input("B", descriptor)
    c = builder.add(builder.mul(a, constant), b)
    # 2. Compile the graph.
    return builder.build({"C": c}), a, b, c


def test_spec_example_with_tensors(context: webnn.MLContext) -> None:
    graph, a, b, c = build(context)
    # 3. Create reusable input and output tensors.
    ta = context.create_tensor(a.data_type, a.shape, writable=True)
    tb = context.create_tensor(b.data_type, b.shape, writable=True)
    tc = context.create_tensor(c.data_type, c.shape, readable=True)
    # 4. Initialize the inputs.
    context.write_tensor(ta, np.full(4, A_VALUE, np.float32))
    context.write_tensor(tb, np.full(4, B_VALUE, np.float32))
    # 5. Execute the graph.
    context.dispatch(graph, {"A": ta, "B": tb}, {"C": tc})
    # 6. Read back the computed result.
    result = context.read_tensor(tc)
    assert result.dtype == np.float32 and result.shape == (2, 2)
    np.testing.assert_array_equal(result, expected())
    np.testing.assert_array_equal(result, [[1, 1], [1, 1]])


def test_spec_example_with_compute(context: webnn.MLContext) -> None:
    graph, *_ = build(context)
    a = np.array([[1, 2], [3, 4]], np.float32)
    b = np.array([[0.5, -1], [0, 8]], np.float32)
    out = context.compute(graph, {"A": a, "B": b})
    assert list(out) == ["C"]
    np.testing.assert_array_equal(out["C"], np.float32(K) * a + b)
    # Outputs own their buffer, and the graph's tensors are reused from call to call.
    assert out["C"].flags.owndata and out["C"].flags.writeable
    again = context.compute(graph, {"A": b, "B": a})["C"]
    np.testing.assert_array_equal(again, np.float32(K) * b + a)
    np.testing.assert_array_equal(out["C"], np.float32(K) * a + b)


def test_spec_example_with_asyncio(context: webnn.MLContext) -> None:
    graph, a, b, c = build(context)
    ta = context.create_tensor("float32", [2, 2], writable=True)
    tb = context.create_tensor("float32", [2, 2], writable=True)
    tc = context.create_tensor("float32", [2, 2], readable=True)

    async def main() -> np.ndarray:
        context.write_tensor(ta, np.full((2, 2), A_VALUE, np.float32))
        context.write_tensor(tb, np.full((2, 2), B_VALUE, np.float32))
        context.dispatch(graph, {"A": ta, "B": tb}, {"C": tc})
        return await context.read_tensor_async(tc)

    np.testing.assert_array_equal(asyncio.run(main()), expected())

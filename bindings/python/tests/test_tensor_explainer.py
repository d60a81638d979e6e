"""The MLTensor explainer's examples (https://github.com/webmachinelearning/webnn/blob/main/mltensor-explainer.md):
buffer reuse (one input tensor, several graphs, reads into caller buffers), queued work without
waiting, chained inference (Fibonacci through rotating tensors), explicit destruction; and the
timeline's ordering of writes, dispatches and reads."""

from __future__ import annotations

import asyncio

import numpy as np
import pytest

import webnn


def unary_graph(context: webnn.MLContext, op: str, shape: list[int]) -> webnn.MLGraph:
    builder = webnn.MLGraphBuilder(context)
    x = builder.input("input", "float32", shape)
    return builder.build({"output": getattr(builder, op)(x)})


def test_buffer_reuse(context: webnn.MLContext) -> None:
    """Write the image once; three graphs read it; read each result into the caller's buffer."""
    shape = [1, 3, 4, 4]
    image = np.random.default_rng(7).uniform(-2, 2, size=shape).astype(np.float32)
    graphs = {op: unary_graph(context, op, shape) for op in ("relu", "neg", "abs")}
    image_tensor = context.create_tensor("float32", shape, writable=True)
    context.write_tensor(image_tensor, image)
    outputs = {op: context.create_tensor("float32", shape, readable=True) for op in graphs}
    for op, graph in graphs.items():
        context.dispatch(graph, {"input": image_tensor}, {"output": outputs[op]})
    buffers = {op: np.empty(shape, np.float32) for op in graphs}
    for op in graphs:
        context.read_tensor(outputs[op], out=buffers[op])
    np.testing.assert_array_equal(buffers["relu"], np.maximum(image, 0))
    np.testing.assert_array_equal(buffers["neg"], -image)
    np.testing.assert_array_equal(buffers["abs"], np.abs(image))


def test_queued_reads_with_asyncio(context: webnn.MLContext) -> None:
    """Dispatches are not awaited; the three reads are awaited together (Promise.all)."""
    shape = [2, 8]
    image = np.linspace(-1, 1, 16, dtype=np.float32).reshape(shape)
    graphs = [unary_graph(context, op, shape) for op in ("relu", "neg", "abs")]
    image_tensor = context.create_tensor("float32", shape, writable=True)
    outputs = [context.create_tensor("float32", shape, readable=True) for _ in graphs]

    async def main() -> list[np.ndarray]:
        context.write_tensor(image_tensor, image)
        for graph, out in zip(graphs, outputs):
            context.dispatch(graph, {"input": image_tensor}, {"output": out})
        return list(await asyncio.gather(*(context.read_tensor_async(t) for t in outputs)))

    relu, neg, absolute = asyncio.run(main())
    np.testing.assert_array_equal(relu, np.maximum(image, 0))
    np.testing.assert_array_equal(neg, -image)
    np.testing.assert_array_equal(absolute, np.abs(image))


@pytest.mark.parametrize("n", [2, 3, 30, 46])
def test_chained_inference_fibonacci(context: webnn.MLContext, n: int) -> None:
    """F_n with three tensors rotating as inputs and output, without waiting in between."""
    builder = webnn.MLGraphBuilder(context)
    fn1 = builder.input("F_n-1", {"dataType": "int32", "shape": [1]})
    fn2 = builder.input("F_n-2", {"dataType": "int32", "shape": [1]})
    graph = builder.build({"F_n": builder.add(fn1, fn2)})
    descriptors = [
        {"dataType": "int32", "shape": [1], "writable": True},  # To initialize F_0
        {"dataType": "int32", "shape": [1], "writable": True},  # To initialize F_1
        {"dataType": "int32", "shape": [1]},
    ]
    descriptors[n % 3]["readable"] = True  # To read the output
    tensors = [context.create_tensor(d) for d in descriptors]
    context.write_tensor(tensors[0], np.array([0], np.int32))  # F_0 = 0
    context.write_tensor(tensors[1], np.array([1], np.int32))  # F_1 = 1
    for i in range(2, n + 1):
        context.dispatch(graph, {"F_n-1": tensors[(i - 1) % 3], "F_n-2": tensors[(i - 2) % 3]}, {"F_n": tensors[i % 3]})
    a, b = 0, 1
    for _ in range(n - 1):
        a, b = b, a + b
    assert context.read_tensor(tensors[n % 3]).tolist() == [b]


def test_explicit_destroy(context: webnn.MLContext) -> None:
    """destroy() releases a graph and tensors; using them afterwards fails as the spec says."""
    shape = [4]
    graph = unary_graph(context, "relu", shape)
    t_in = context.create_tensor("float32", shape, writable=True)
    t_out = context.create_tensor("float32", shape, readable=True)
    context.dispatch(graph, {"input": t_in}, {"output": t_out})
    graph.destroy()
    with pytest.raises(webnn.InvalidStateError):
        context.dispatch(graph, {"input": t_in}, {"output": t_out})
    t_in.destroy()
    with pytest.raises(TypeError, match="destroyed"):
        context.write_tensor(t_in, np.zeros(4, np.float32))
    # The remaining tensor still works, and a new graph can be built.
    assert context.read_tensor(t_out).tolist() == [0, 0, 0, 0]
    other = unary_graph(context, "neg", shape)
    assert context.compute(other, {"input": np.array([1, -2, 3, -4], np.float32)})["output"].tolist() == [-1, 2, -3, 4]


def test_timeline_order(context: webnn.MLContext) -> None:
    """Work on a tensor happens in call order: each read sees the writes and dispatches queued
    before it, not those after."""
    graph = unary_graph(context, "neg", [3])
    t_in = context.create_tensor("float32", [3], writable=True)
    t_out = context.create_tensor("float32", [3], readable=True)
    context.write_tensor(t_in, np.array([1, 2, 3], np.float32))
    context.dispatch(graph, {"input": t_in}, {"output": t_out})
    first = context.read_tensor_async(t_out)
    context.write_tensor(t_in, np.array([4, 5, 6], np.float32))
    context.dispatch(graph, {"input": t_in}, {"output": t_out})
    second = context.read_tensor_async(t_out)
    assert second.result(timeout=30).tolist() == [-4, -5, -6]
    assert first.result().tolist() == [-1, -2, -3]
    assert first.done() and first.result().tolist() == [-1, -2, -3]  # kept


def test_read_into_async_and_bytearray(context: webnn.MLContext) -> None:
    tensor = context.create_tensor("int64", [2], readable=True, writable=True)
    context.write_tensor(tensor, np.array([2**62, -3], np.int64))
    out = np.zeros(2, np.int64)
    assert context.read_tensor_async(tensor, out=out).result() is None
    assert out.tolist() == [2**62, -3]
    raw = bytearray(16)
    context.read_tensor(tensor, out=raw)
    assert np.frombuffer(bytes(raw), "<i8").tolist() == [2**62, -3]


def test_pending_timeouts(context: webnn.MLContext) -> None:
    tensor = context.create_tensor("float32", [2], readable=True)
    pending = context.read_tensor_async(tensor)
    assert pending.result(timeout=float("inf")).tolist() == [0, 0]
    with pytest.raises(ValueError):
        context.lost.result(timeout=float("nan"))
    with pytest.raises(TimeoutError):
        context.lost.result(timeout=0.01)
    assert not context.lost.done()

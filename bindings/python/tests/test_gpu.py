"""``create_context(accelerated=True)`` reaches the GPU backend: automatically where a hardware
GPU exists, and on any wgpu adapter (Mesa's lavapipe in CI) when WEBNN_DEVICE=gpu pins it.
Without an adapter the test is skipped, unless WEBNN_REQUIRE_GPU is set (then it fails).
As bindings/node/test/gpu.test.js."""

from __future__ import annotations

import os
from typing import Iterator

import numpy as np
import pytest

import webnn


@pytest.fixture
def gpu_device() -> Iterator[None]:
    saved = os.environ.get("WEBNN_DEVICE")
    os.environ["WEBNN_DEVICE"] = "gpu"
    try:
        yield
    finally:
        if saved is None:
            del os.environ["WEBNN_DEVICE"]
        else:
            os.environ["WEBNN_DEVICE"] = saved


def test_gpu_context_runs_a_graph_and_reports_its_limits(gpu_device: None) -> None:
    try:
        context = webnn.ml.create_context(accelerated=True)
    except webnn.NotSupportedError as e:
        assert not os.environ.get("WEBNN_REQUIRE_GPU"), f"WEBNN_REQUIRE_GPU is set but: {e}"
        pytest.skip(f"no wgpu adapter: {e}")
    assert context.accelerated is True
    limits = context.op_support_limits()
    assert "int64" not in limits["input"]["dataTypes"], "the GPU stores no 64-bit integers"
    builder = webnn.MLGraphBuilder(context)
    with pytest.raises(TypeError):
        builder.input("big", "int64", [2])
    x = builder.input("x", "float32", [2, 2])
    y = builder.relu(builder.sub(x, builder.constant("float32", 1)))
    graph = builder.build({"y": y})
    tx = context.create_tensor("float32", [2, 2], writable=True)
    ty = context.create_tensor("float32", [2, 2], readable=True)
    data = np.array([[0, 1.5], [3, -2]], np.float32)
    context.write_tensor(tx, data)
    context.dispatch(graph, {"x": tx}, {"y": ty})
    np.testing.assert_array_equal(context.read_tensor(ty), np.maximum(data - 1, 0))
    np.testing.assert_array_equal(context.compute(graph, {"x": data})["y"], np.maximum(data - 1, 0))
    context.destroy()


def test_accelerated_false_gives_the_cpu() -> None:
    plain = webnn.ml.create_context(accelerated=False)
    assert plain.accelerated is False, "accelerated=False gives the CPU engine"
    assert "int64" in plain.op_support_limits()["input"]["dataTypes"]
    plain.destroy()

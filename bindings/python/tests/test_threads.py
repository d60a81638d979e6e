"""Python threads sharing a context, a graph and a builder: waits release the GIL, and no lock
is held across a wait, so nothing deadlocks; every result is the one its inputs give."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np

import webnn


def test_threads_compute_on_one_graph(context: webnn.MLContext) -> None:
    builder = webnn.MLGraphBuilder(context)
    x = builder.input("x", "float32", [64, 64])
    w = builder.constant(np.eye(64, dtype=np.float32) * 2)
    graph = builder.build({"y": builder.matmul(x, w)})

    def work(seed: int) -> bool:
        rng = np.random.default_rng(seed)
        for _ in range(50):
            a = rng.standard_normal((64, 64)).astype(np.float32)
            if not np.array_equal(context.compute(graph, {"x": a})["y"], a * 2):
                return False
        return True

    with ThreadPoolExecutor(4) as pool:
        assert all(pool.map(work, range(8)))


def test_threads_with_tensors_and_builders(context: webnn.MLContext) -> None:
    def work(seed: int) -> bool:
        builder = webnn.MLGraphBuilder(context)
        x = builder.input("x", "int32", [3])
        graph = builder.build({"y": builder.add(x, builder.constant("int32", seed))})
        t_in = context.create_tensor("int32", [3], writable=True)
        t_out = context.create_tensor("int32", [3], readable=True)
        for i in range(50):
            context.write_tensor(t_in, np.array([i, -i, seed], np.int32))
            context.dispatch(graph, {"x": t_in}, {"y": t_out})
            pending = context.read_tensor_async(t_out)
            if context.read_tensor(t_out).tolist() != [i + seed, seed - i, 2 * seed]:
                return False
            if pending.result(timeout=60).tolist() != [i + seed, seed - i, 2 * seed]:
                return False
        return True

    with ThreadPoolExecutor(4) as pool:
        assert all(pool.map(work, range(8)))

"""The MLTensor explainer's chained inference: the N-th Fibonacci number computed by a graph
dispatched N-1 times on three rotating tensors, without waiting in between; then the same
read with asyncio."""

import asyncio

import numpy as np

import webnn


def fibonacci(n: int) -> int:
    context = webnn.ml.create_context(accelerated=False)
    builder = webnn.MLGraphBuilder(context)
    fn1 = builder.input("F_n-1", "int64", [1])
    fn2 = builder.input("F_n-2", "int64", [1])
    graph = builder.build({"F_n": builder.add(fn1, fn2)})
    tensors = [context.create_tensor("int64", [1], readable=True, writable=True) for _ in range(3)]
    context.write_tensor(tensors[0], np.array([0], np.int64))
    context.write_tensor(tensors[1], np.array([1], np.int64))
    for i in range(2, n + 1):
        context.dispatch(graph, {"F_n-1": tensors[(i - 1) % 3], "F_n-2": tensors[(i - 2) % 3]}, {"F_n": tensors[i % 3]})

    async def read() -> int:
        value = await context.read_tensor_async(tensors[n % 3])
        return int(value[0])

    return asyncio.run(read())


if __name__ == "__main__":
    print("F_90 =", fibonacci(90))

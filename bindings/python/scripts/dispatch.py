#!/usr/bin/env python3
"""Per-call cost of a trivial graph from Python: webnn against ONNX Runtime, side by side.

    python bindings/python/scripts/dispatch.py [--calls 20000]

The graph is ``c = a + b`` on 1x4 float32 tensors. For 1 and 2 threads (WEBNN_NUM_THREADS,
ORT's intra_op_num_threads) it prints the median, in microseconds, of:
  * ORT: ``session.run(None, {"a": a, "b": b})`` (bench/dispatch.py's measurement);
  * compute(): ``context.compute(graph, {"a": a, "b": b})`` (new output array each call);
  * tensors: ``write_tensor(a)`` + ``write_tensor(b)`` + ``dispatch`` + ``read_tensor(t, out=buffer)``;
and the ratio compute() / ORT.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import Callable, List

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(REPO, "bench"))


def median_us(call: Callable[[], object], calls: int) -> float:
    for _ in range(max(calls // 10, 10)):
        call()
    samples: List[float] = []
    clock = time.perf_counter
    for _ in range(calls):
        t = clock()
        call()
        samples.append(clock() - t)
    return float(np.median(samples)) * 1e6


def webnn_medians_us(threads: int, calls: int) -> tuple[float, float]:
    os.environ["WEBNN_NUM_THREADS"] = str(threads)
    import webnn

    context = webnn.ml.create_context(accelerated=False)
    builder = webnn.MLGraphBuilder(context)
    a_op = builder.input("a", "float32", [1, 4])
    b_op = builder.input("b", "float32", [1, 4])
    graph = builder.build({"c": builder.add(a_op, b_op)})
    a = np.arange(4, dtype=np.float32).reshape(1, 4)
    b = np.full((1, 4), 0.5, np.float32)
    feeds = {"a": a, "b": b}
    assert context.compute(graph, feeds)["c"].tolist() == (a + b).tolist()
    compute = median_us(lambda: context.compute(graph, feeds), calls)

    ta = context.create_tensor("float32", [1, 4], writable=True)
    tb = context.create_tensor("float32", [1, 4], writable=True)
    tc = context.create_tensor("float32", [1, 4], readable=True)
    inputs, outputs = {"a": ta, "b": tb}, {"c": tc}
    out = np.empty((1, 4), np.float32)

    def tensors() -> None:
        context.write_tensor(ta, a)
        context.write_tensor(tb, b)
        context.dispatch(graph, inputs, outputs)
        context.read_tensor(tc, out=out)

    tensors_us = median_us(tensors, calls)
    assert out.tolist() == (a + b).tolist()
    context.destroy()
    return compute, tensors_us


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=20000)
    args = ap.parse_args()
    from dispatch import ort_median_us  # bench/dispatch.py

    print(f"{'threads':>7}  {'ORT run() us':>12}  {'compute() us':>12}  {'tensors us':>10}  compute/ORT")
    for threads in (1, 2):
        theirs = ort_median_us(threads, args.calls)
        compute, tensors = webnn_medians_us(threads, args.calls)
        print(f"{threads:>7}  {theirs:>12.2f}  {compute:>12.2f}  {tensors:>10.2f}  {compute / theirs:.2f}")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Per-call cost of a trivial graph, webnn against ONNX Runtime, side by side.

    python3 bench/dispatch.py [--calls 20000]

The graph is `c = a + b` on 1x4 float32 tensors. ONNX Runtime: the median of `session.run()`
with numpy inputs (intra_op_num_threads=T, sequential). webnn: the median of one
writeTensor(a) + writeTensor(b) + dispatch + readTensor(c) (`cargo bench -p webnn --bench
dispatch`, run by this script). Prints both and the ratio (ours / ORT) for 1 and 2 threads.
"""

import argparse
import os
import re
import subprocess
import tempfile
import time

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def ort_median_us(threads, calls):
    import onnx
    import onnxruntime as ort
    from onnx import TensorProto, helper

    vi = lambda n: helper.make_tensor_value_info(n, TensorProto.FLOAT, [1, 4])
    graph = helper.make_graph([helper.make_node("Add", ["a", "b"], ["c"])], "add", [vi("a"), vi("b")], [vi("c")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "add.onnx")
        onnx.save(model, path)
        session = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
    feeds = {"a": np.arange(4, dtype=np.float32).reshape(1, 4), "b": np.full((1, 4), 0.5, np.float32)}
    for _ in range(calls // 10):
        session.run(None, feeds)
    samples = []
    for _ in range(calls):
        t = time.perf_counter()
        session.run(None, feeds)
        samples.append(time.perf_counter() - t)
    return float(np.median(samples)) * 1e6


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=20000)
    args = ap.parse_args()
    out = subprocess.run(["cargo", "bench", "-q", "-p", "webnn", "--bench", "dispatch"], cwd=REPO, check=True,
                         capture_output=True, text=True).stdout
    ours = {int(m.group(1)): float(m.group(2))
            for m in re.finditer(r"add 1x4, (\d+) thread\(s\): write\+write\+dispatch\+read ([0-9.]+) us", out)}
    print(f"{'threads':>7}  {'ORT us':>8}  {'webnn us':>8}  ratio")
    for threads in sorted(ours):
        theirs = ort_median_us(threads, args.calls)
        print(f"{threads:>7}  {theirs:>8.2f}  {ours[threads]:>8.2f}  {ours[threads] / theirs:.2f}")


if __name__ == "__main__":
    main()

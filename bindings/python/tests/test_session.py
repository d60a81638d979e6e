"""``webnn.InferenceSession`` against ``onnxruntime.InferenceSession`` on the same models and
inputs: the shared exports (MobileNetV2, SqueezeNet), small models generated here with
onnx.helper and seeded numpy weights (a transformer block with bench/transformer_models.py's
helpers; free dimensions; bool inputs and outputs). Outputs must pass bench/compare.py's check
(max |ours - ORT| <= 1e-4 of ORT's output range; integers and bools equal), and
``get_inputs()`` / ``get_outputs()`` must say what ORT's say."""

from __future__ import annotations

from typing import Any, Dict, List

import numpy as np
import pytest

import webnn

from conftest import shared_path

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
compare = pytest.importorskip("compare")  # bench/compare.py
from onnx import TensorProto, helper, numpy_helper  # noqa: E402


def ort_session(model: Any) -> Any:
    so = ort.SessionOptions()
    so.log_severity_level = 3
    source = model if isinstance(model, str) else model.SerializeToString()
    return ort.InferenceSession(source, sess_options=so, providers=["CPUExecutionProvider"])


def describe(args: List[Any]) -> List[tuple]:
    return [(a.name, a.type, list(a.shape)) for a in args]


def check_against_ort(ours: webnn.InferenceSession, theirs: Any, feed: Dict[str, np.ndarray]) -> None:
    names = [o.name for o in theirs.get_outputs()]
    reference = dict(zip(names, theirs.run(None, feed)))
    outputs = dict(zip(names, ours.run(None, feed)))
    for name in names:
        ok, rel, message = compare.compare_output(name, reference[name], outputs[name])
        assert ok, message
        assert outputs[name].dtype == reference[name].dtype, name


@pytest.mark.parametrize("file", ["mobilenetv2-torchvision.onnx", "squeezenet1_1-torchvision.onnx"])
def test_shared_models_match_onnxruntime(file: str) -> None:
    path = shared_path("models", file)
    theirs = ort_session(path)
    ours = webnn.InferenceSession(path, threads=2)
    assert describe(ours.get_inputs()) == describe(theirs.get_inputs())
    assert describe(ours.get_outputs()) == describe(theirs.get_outputs())
    feed = {
        i.name: compare.make_input(file, i.name, compare.ORT_TYPES[i.type], compare.resolve_shape(i.shape))
        for i in theirs.get_inputs()
    }
    check_against_ort(ours, theirs, feed)
    # The ORT call forms: output names, and a run after the first (tensors reused).
    name = theirs.get_outputs()[0].name
    (only,) = ours.run([name], feed)
    np.testing.assert_array_equal(only, ours.run(None, feed)[0])


def tiny_transformer() -> Any:
    """An embedding (Gather of int64 ids), one post-LayerNorm encoder layer and a mean-pooled
    output, written with bench/transformer_models.py's blocks."""
    transformer_models = pytest.importorskip("transformer_models")
    seq, hidden, heads, vocab = 8, 32, 4, 50
    g = transformer_models.TransformerGraph("tiny", seed=3)
    x = g.node("Gather", [g.constant("embeddings", g.uniform((vocab, hidden), 1.0)), "ids"], "embed", axis=0)
    x = g.layer_norm(x, hidden, 1e-5)
    x = g.layer_norm(g.add(x, g.attention(x, seq, hidden, heads, qk_gain=4.0)), hidden, 1e-5)
    x = g.layer_norm(g.add(x, g.mlp(x, hidden, 4 * hidden)), hidden, 1e-5)
    pooled = g.node("ReduceMean", [x], "pool", axes=[1], keepdims=0)
    return g.finish([("ids", TensorProto.INT64, [1, seq])], [(pooled, "pooled", TensorProto.FLOAT, [1, hidden])])


def test_generated_transformer_matches_onnxruntime() -> None:
    model = tiny_transformer()
    theirs = ort_session(model)
    ours = webnn.InferenceSession(model.SerializeToString())
    assert describe(ours.get_inputs()) == describe(theirs.get_inputs()) == [("ids", "tensor(int64)", [1, 8])]
    ids = np.random.default_rng(5).integers(0, 50, size=(1, 8)).astype(np.int64)
    check_against_ort(ours, theirs, {"ids": ids})


def free_dims_model() -> Any:
    """``x`` [batch, n, 16] float, ``mask`` [batch, n] bool: y = relu(x·W + b) zeroed where
    mask is false, ``mean`` over n, and ``positive`` = mean > 0 (bool)."""
    rng = np.random.default_rng(11)
    w = numpy_helper.from_array(rng.uniform(-0.5, 0.5, (16, 8)).astype(np.float32), "W")
    b = numpy_helper.from_array(rng.uniform(-0.1, 0.1, (8,)).astype(np.float32), "B")
    zero = numpy_helper.from_array(np.zeros((), np.float32), "zero")
    axes = numpy_helper.from_array(np.array([2], np.int64), "axes")
    nodes = [
        helper.make_node("MatMul", ["x", "W"], ["xw"]),
        helper.make_node("Add", ["xw", "B"], ["h"]),
        helper.make_node("Relu", ["h"], ["r"]),
        helper.make_node("Unsqueeze", ["mask", "axes"], ["m3"]),
        helper.make_node("Where", ["m3", "r", "zero"], ["y"]),
        helper.make_node("ReduceMean", ["y"], ["mean"], axes=[1], keepdims=0),
        helper.make_node("Greater", ["mean", "zero"], ["positive"]),
    ]
    graph = helper.make_graph(
        nodes,
        "free",
        [
            helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "n", 16]),
            helper.make_tensor_value_info("mask", TensorProto.BOOL, ["batch", "n"]),
        ],
        [
            helper.make_tensor_value_info("mean", TensorProto.FLOAT, ["batch", 8]),
            helper.make_tensor_value_info("positive", TensorProto.BOOL, ["batch", 8]),
        ],
        initializer=[w, b, zero, axes],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model


def free_feed(batch: int, n: int, seed: int) -> Dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {
        "x": rng.uniform(-1, 1, (batch, n, 16)).astype(np.float32),
        "mask": rng.integers(0, 2, (batch, n)).astype(np.bool_),
    }


def test_free_dimensions_bound_from_the_feed(tmp_path: Any) -> None:
    model = free_dims_model()
    path = str(tmp_path / "free.onnx")
    onnx.save(model, path)
    theirs = ort_session(path)
    ours = webnn.InferenceSession(path)
    assert describe(ours.get_inputs()) == describe(theirs.get_inputs())
    assert describe(ours.get_outputs()) == describe(theirs.get_outputs())
    assert ours.get_inputs()[1].type == "tensor(bool)" and ours.get_inputs()[0].shape == ["batch", "n", 16]
    # The first feed binds batch and n; another shape builds another graph.
    for batch, n, seed in [(2, 5, 1), (3, 7, 2), (2, 5, 3)]:
        feed = free_feed(batch, n, seed)
        check_against_ort(ours, theirs, feed)
        mean, positive = ours.run(None, feed)
        assert mean.shape == (batch, 8) and positive.dtype == np.bool_


def test_shapes_and_threads_options(tmp_path: Any) -> None:
    model = free_dims_model()
    theirs = ort_session(model)
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    for ours in (
        webnn.InferenceSession(model.SerializeToString(), shapes={"batch": 4, "n": 3}, threads=1),
        webnn.InferenceSession(model.SerializeToString(), so, ["CPUExecutionProvider"], shapes={"x": [4, 3, 16], "mask": [4, 3]}),
    ):
        check_against_ort(ours, theirs, free_feed(4, 3, 9))
        with pytest.raises(TypeError, match="shape"):
            ours.run(None, free_feed(2, 3, 9))


def test_run_argument_errors() -> None:
    ours = webnn.InferenceSession(free_dims_model().SerializeToString())
    feed = free_feed(1, 2, 0)
    with pytest.raises(TypeError, match="no output named 'nope'"):
        ours.run(["nope"], feed)
    with pytest.raises(TypeError, match="'mask' is missing"):
        ours.run(None, {"x": feed["x"]})
    with pytest.raises(TypeError, match="no input named 'extra'"):
        ours.run(None, {**feed, "extra": feed["x"]})
    with pytest.raises(TypeError, match="dtype float64"):
        ours.run(None, {**feed, "x": feed["x"].astype(np.float64)})

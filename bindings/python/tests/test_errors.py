"""Errors are Python exceptions of the spec's kinds: TypeError (argument types, naming the
parameter, and the spec's own TypeErrors), and webnn.InvalidStateError / NotSupportedError /
OperationError / UnknownError under webnn.WebNNError, with the ``[label]`` in the message.
Hostile arguments to every operation raise one of these, never anything else."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from typing import Any, Callable

import numpy as np
import pytest

import webnn
from webnn import _webnn
from webnn._ops import OPERAND, OPERANDS, OPS


def test_exception_classes() -> None:
    for cls in (webnn.InvalidStateError, webnn.NotSupportedError, webnn.OperationError, webnn.UnknownError):
        assert issubclass(cls, webnn.WebNNError) and issubclass(cls, Exception)
        assert cls.__module__ == "webnn"
    assert not issubclass(TypeError, webnn.WebNNError)


@pytest.mark.parametrize(
    "kind, cls",
    [
        ("TypeError", TypeError),
        ("InvalidStateError", webnn.InvalidStateError),
        ("NotSupportedError", webnn.NotSupportedError),
        ("OperationError", webnn.OperationError),
        ("UnknownError", webnn.UnknownError),
    ],
)
def test_every_kind_maps_to_its_exception(kind: str, cls: type) -> None:
    """The conversion every engine error goes through, for each kind (OperationError has no
    trigger on the CPU engine: it is a backend failing to compile a graph it reported as
    supported)."""
    with pytest.raises(cls) as info:
        _webnn.raise_error_kind(kind, "[my label] op: what was wrong")
    assert str(info.value) == "[my label] op: what was wrong"


def test_argument_types_name_the_parameter(context: webnn.MLContext) -> None:
    builder = webnn.MLGraphBuilder(context)
    x = builder.input("x", "float32", [1, 2, 4, 4])
    w = builder.constant(np.ones((3, 2, 3, 3), np.float32))
    cases: list[tuple[Callable[[], Any], str]] = [
        (lambda: builder.conv2d(x, w, padding="same"), "conv2d(): argument 'padding' must be a sequence"),
        (lambda: builder.conv2d(x, w, groups=1.0), "argument 'groups' must be an int"),
        (lambda: builder.conv2d(x, w, groups=-1), "argument 'groups' must be in [0, 4294967295]"),
        (lambda: builder.conv2d(x, w, input_layout="NCHW"), "argument 'input_layout' must be one of 'nchw', 'nhwc'"),
        (lambda: builder.conv2d(x, w, bias=np.ones(3)), "argument 'bias' must be an MLOperand"),
        (lambda: builder.add(x, 1.0), "add(): argument 'b' must be an MLOperand, not float"),
        (lambda: builder.add(x), "add(): missing a required argument: 'b'"),
        (lambda: builder.relu(x, alpha=1), "relu(): got an unexpected keyword argument 'alpha'"),
        (lambda: builder.clamp(x, min_value="0"), "argument 'min_value' must be an int or a float"),
        (lambda: builder.reduce_sum(x, keep_dimensions=1), "argument 'keep_dimensions' must be a bool"),
        (lambda: builder.softmax(x, 1, label=5), "argument 'label' must be a str"),
        (lambda: builder.input(7, "float32", [1]), "input(): argument 'name' must be a str"),
        (lambda: builder.input("y", "double", [1]), "argument 'data_type' must be an MLOperandDataType"),
        (lambda: builder.input("y", {"shape": [1]}), "has no 'dataType'"),
        (lambda: webnn.MLGraphBuilder("context"), "argument 'context' must be an MLContext"),
        (lambda: webnn.ml.create_context(power_preference="fast"), "argument 'power_preference'"),
        (lambda: context.create_tensor("float32", [2], readable="yes"), "argument 'readable' must be a bool"),
        (lambda: context.dispatch("graph", {}, {}), "dispatch(): argument 'graph' must be an MLGraph"),
    ]
    for call, message in cases:
        with pytest.raises(TypeError, match=re.escape(message)):
            call()


def test_spec_type_errors_carry_the_label(context: webnn.MLContext) -> None:
    builder = webnn.MLGraphBuilder(context)
    x = builder.input("x", "float32", [1, 3, 8, 8])
    w = builder.constant(np.ones((4, 2, 3, 3), np.float32))
    with pytest.raises(TypeError) as info:
        builder.conv2d(x, w, label="conv1")
    assert str(info.value).startswith("[conv1] conv2d: ")
    with pytest.raises(TypeError, match=r"^\[my add\] add: "):
        builder.add(x, builder.input("y", "float16", [3]), label="my add")
    # A method that raises adds nothing: the builder still works.
    graph = builder.build({"y": builder.relu(x)})
    assert graph.input_descriptors() == [("x", "float32", [1, 3, 8, 8])]


def test_operands_from_another_builder(context: webnn.MLContext) -> None:
    one = webnn.MLGraphBuilder(context)
    two = webnn.MLGraphBuilder(context)
    x = one.input("x", "float32", [2])
    with pytest.raises(TypeError, match="another"):
        two.relu(x)


def test_invalid_state(context: webnn.MLContext) -> None:
    builder = webnn.MLGraphBuilder(context)
    x = builder.input("x", "float32", [2])
    graph = builder.build({"y": builder.relu(x)})
    with pytest.raises(webnn.InvalidStateError, match="already built"):
        builder.relu(x)
    with pytest.raises(webnn.InvalidStateError):
        builder.build({"z": x})
    with pytest.raises(webnn.InvalidStateError):
        builder.constant({"dataType": "float32", "shape": [2]}, b"not 8 bytes")  # state before buffer
    t_in = context.create_tensor("float32", [2], writable=True)
    t_out = context.create_tensor("float32", [2], readable=True)
    pending = context.read_tensor_async(t_out)
    context.dispatch(graph, {"x": t_in}, {"y": t_out})
    pending_after = context.read_tensor_async(t_out)
    context.destroy()
    info = context.lost.result(timeout=30)
    assert isinstance(info, webnn.MLContextLostInfo) and "destroy" in info.message
    # A read not yet taken when the context is lost rejects (the spec settles it later).
    with pytest.raises(webnn.InvalidStateError):
        pending_after.result(timeout=30)
    del pending
    with pytest.raises(webnn.InvalidStateError):
        context.create_tensor("float32", [2])
    with pytest.raises(webnn.InvalidStateError):
        webnn.MLGraphBuilder(context).input("x", "float32", [1])


def test_not_supported_model(tmp_path: Any) -> None:
    pytest.importorskip("onnx")
    from onnx import TensorProto, helper

    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])
    node = helper.make_node("Frobnicate", ["x"], ["y"], domain="com.example")
    model = helper.make_model(
        helper.make_graph([node], "g", [x], [y]),
        opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.example", 1)],
    )
    with pytest.raises(webnn.NotSupportedError, match="Frobnicate"):
        webnn.InferenceSession(model.SerializeToString())
    with pytest.raises(TypeError, match="malformed"):
        webnn.InferenceSession(b"\x08\x07 definitely not protobuf \xff\xff")
    with pytest.raises(TypeError, match="path_or_bytes"):
        webnn.InferenceSession(3.5)


def test_not_supported_device_without_adapter() -> None:
    """WEBNN_DEVICE=gpu without any wgpu adapter: NotSupportedError (skipped where one exists)."""
    code = textwrap.dedent(
        """
        import webnn
        try:
            webnn.ml.create_context(accelerated=True)
        except webnn.NotSupportedError as e:
            print("NotSupportedError", e)
        else:
            print("adapter")
        """
    )
    env = dict(os.environ, WEBNN_DEVICE="gpu", VK_ICD_FILENAMES="/nonexistent.json", VK_DRIVER_FILES="/nonexistent.json")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    if out.stdout.startswith("adapter"):
        pytest.skip("a wgpu adapter exists even without Vulkan drivers")
    assert out.stdout.startswith("NotSupportedError"), out.stdout


def test_unknown_error_when_memory_runs_out() -> None:
    """An allocation that fails is an UnknownError, not an abort (address space capped in a
    child process)."""
    code = textwrap.dedent(
        """
        import resource, webnn
        context = webnn.ml.create_context(accelerated=False)
        size = next(int(l.split()[1]) * 1024 for l in open("/proc/self/status") if l.startswith("VmSize"))
        limit = size + (256 << 20)
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        try:
            context.create_tensor("float32", [1 << 28])
        except webnn.UnknownError as e:
            print("UnknownError", e)
        tensor = context.create_tensor("float32", [4], readable=True)
        print("still works", context.read_tensor(tensor).tolist())
        """
    )
    if not os.path.exists("/proc/self/status"):
        pytest.skip("needs Linux's /proc")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == [
        "UnknownError cannot allocate 1073741824 bytes for the tensor",
        "still works [0.0, 0.0, 0.0, 0.0]",
    ], out.stdout + out.stderr


JUNK: list[object] = [None, "x", -1, 2**40, 1.5, float("nan"), [], [1, -1], [2**33], {"a": 1}, b"\x00", True]


@pytest.mark.parametrize("name", sorted(OPS))
def test_hostile_arguments_never_escape_as_other_errors(context: webnn.MLContext, name: str) -> None:
    """Every operation, called with junk in every argument and option, raises TypeError or a
    WebNNError (never a panic, SystemError, KeyError...)."""
    op = OPS[name]
    builder = webnn.MLGraphBuilder(context)
    operands = [
        builder.input("f", "float32", [2, 3, 4, 5]),
        builder.input("i", "int64", [3]),
        builder.constant(np.zeros((), np.uint8)),
        builder.input("g", "float16", [1]),
    ]
    method = getattr(builder, name)

    def good(kind: Any, i: int) -> Any:
        if kind == OPERAND:
            return operands[i % len(operands)]
        if kind == OPERANDS:
            return operands[:2]
        return 1

    def attempt(args: list[Any], kwargs: dict[str, Any]) -> None:
        try:
            method(*args, **kwargs)
        except (TypeError, webnn.WebNNError):
            pass

    base = [good(a.convert, i) for i, a in enumerate(op.args)]
    attempt(base, {})
    attempt([], {})
    for i in range(len(base)):
        for junk in JUNK + operands:
            attempt(base[:i] + [junk] + base[i + 1 :], {})
    for option in op.options:
        for junk in JUNK + operands:
            attempt(base, {option.name: junk})
    # The builder is still usable afterwards.
    assert builder.relu(operands[0]).shape == [2, 3, 4, 5]


def test_graph_of_another_context(context: webnn.MLContext) -> None:
    other = webnn.ml.create_context(accelerated=False)
    builder = webnn.MLGraphBuilder(other)
    graph = builder.build({"y": builder.neg(builder.input("x", "float32", [2]))})
    x = np.array([1, -2], np.float32)
    with pytest.raises(TypeError, match="another context"):
        context.compute(graph, {"x": x})
    assert other.compute(graph, {"x": x})["y"].tolist() == [-1, 2]
    with pytest.raises(TypeError, match="another context"):
        context.compute(graph, {"x": x})
    assert other.compute(graph, {"x": x})["y"].tolist() == [-1, 2]
    other.destroy()

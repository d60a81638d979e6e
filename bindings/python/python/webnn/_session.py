"""``InferenceSession``: ONNX models the way ONNX Runtime runs them, over WebNN.

``webnn.InferenceSession(path_or_bytes)`` takes the arguments of
``onnxruntime.InferenceSession`` and answers ``get_inputs()``, ``get_outputs()`` and
``run(output_names, input_feed)`` the same way, so replacing the one class with the other
ports a CPU inference script. The model is imported by the ``webnn-onnx`` crate (what the
``webnn`` command line runs) onto a CPU context; WebNN graphs have static shapes, so free
dimensions are bound by ``shapes`` or, failing that, by the shapes of the first feed (a
feed with other shapes builds another graph; the last few are kept).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from . import _convert as c
from . import _webnn
from ._context import MLContext

# ONNX TensorProto.DataType codes: ONNX Runtime's type strings and the numpy dtypes.
ONNX_TYPES = {
    1: "float", 2: "uint8", 3: "int8", 4: "uint16", 5: "int16", 6: "int32", 7: "int64", 8: "string",
    9: "bool", 10: "float16", 11: "double", 12: "uint32", 13: "uint64", 14: "complex64",
    15: "complex128", 16: "bfloat16",
}
BOOL = 9
#: Graphs kept per session for feeds of different shapes.
GRAPH_CACHE = 4


class NodeArg:
    """An input or output as ``onnxruntime.NodeArg`` describes it: ``name``, ``shape`` (ints,
    symbolic names as str, None when unknown) and ``type`` (``"tensor(float)"``...)."""

    __slots__ = ("name", "shape", "type")

    def __init__(self, name: str, shape: List[Union[int, str, None]], type: str) -> None:
        self.name = name
        self.shape = shape
        self.type = type

    def __repr__(self) -> str:
        return f"NodeArg(name={self.name!r}, type={self.type!r}, shape={self.shape!r})"


def node_arg(declared: Tuple[str, Optional[int], Optional[List[Any]]]) -> NodeArg:
    name, code, dims = declared
    kind = ONNX_TYPES.get(code, "undefined") if code is not None else "undefined"
    return NodeArg(name, list(dims) if dims is not None else [], f"tensor({kind})")


class _Built:
    """One graph of the model, for one set of input shapes."""

    __slots__ = ("graph", "inputs", "outputs")

    def __init__(self, graph: Any, inputs: List[Tuple[str, str, List[int], int]], outputs: List[Tuple[str, str, List[int], int]]):
        self.graph = graph
        self.inputs = inputs
        self.outputs = outputs


class InferenceSession:
    """``InferenceSession(path_or_bytes, sess_options=None, providers=None, *, shapes=None,
    threads=None)``: an ONNX model (a path, or the bytes of one) ready to ``run()``.

    ``shapes`` binds free dimensions: an input's name → its whole shape, or a symbolic
    dimension's name → its size (``{"batch": 4}``). ``threads`` (or
    ``sess_options.intra_op_num_threads``) is the number of CPU threads per run (default: the
    machine's cores). ``providers`` and the rest of ``sess_options`` are accepted for
    compatibility and ignored. Raises NotSupportedError for a model with operators or types
    WebNN cannot run (every such node is listed), TypeError for a malformed one."""

    def __init__(
        self,
        path_or_bytes: Any,
        sess_options: Any = None,
        providers: Optional[Sequence[Any]] = None,
        provider_options: Optional[Sequence[Any]] = None,
        *,
        shapes: Optional[Mapping[str, Any]] = None,
        threads: Optional[int] = None,
    ) -> None:
        self._shapes: Dict[str, List[int]] = {}
        for key, value in (shapes or {}).items():
            where = f"InferenceSession(): argument 'shapes['{key}']'"
            self._shapes[c.string(key, "InferenceSession(): names in 'shapes'")] = (
                [c.enforced_unsigned_long(value, where)] if not isinstance(value, (list, tuple)) else c.shape(value, where)
            )
        if threads is None and sess_options is not None:
            threads = getattr(sess_options, "intra_op_num_threads", 0) or None
        if threads is not None:
            threads = c.enforced_unsigned_long(threads, "InferenceSession(): argument 'threads'") or None
        self._model = _webnn.load_onnx(path_or_bytes)
        self._context = MLContext._wrap(_webnn.create_context("default", False, threads, "auto"))
        self._inputs = [node_arg(i) for i in self._model.inputs()]
        self._outputs = [node_arg(o) for o in self._model.outputs()]
        self._graphs: "OrderedDict[Optional[Tuple[Tuple[int, ...], ...]], _Built]" = OrderedDict()
        self._free = any(self._unbound(arg) for arg in self._inputs)
        if not self._free:
            self._graphs[None] = self._build(self._shapes)

    def _unbound(self, arg: NodeArg) -> bool:
        """True if a dimension of ``arg`` is bound neither by the model nor by ``shapes``."""
        if arg.name in self._shapes:
            return False
        return any(not isinstance(d, int) and not (isinstance(d, str) and d in self._shapes) for d in arg.shape)

    def _build(self, shapes: Dict[str, List[int]]) -> _Built:
        graph, inputs, outputs = self._model.build(self._context._native, shapes)
        return _Built(graph, inputs, outputs)

    def get_inputs(self) -> List[NodeArg]:
        """The model's inputs (initializers excluded), as declared."""
        return list(self._inputs)

    def get_outputs(self) -> List[NodeArg]:
        """The model's outputs, as declared."""
        return list(self._outputs)

    def get_providers(self) -> List[str]:
        """The engine the session runs on (ONNX Runtime lists its execution providers here)."""
        return ["WebNNExecutionProvider (gpu)" if self._context.accelerated else "WebNNExecutionProvider (cpu)"]

    def _graph_for(self, feed: Mapping[str, Any]) -> _Built:
        if not self._free:
            return self._graphs[None]
        key = tuple(tuple(np.shape(feed[arg.name])) if arg.name in feed else () for arg in self._inputs)
        built = self._graphs.get(key)
        if built is None:
            shapes = dict(self._shapes)
            for arg, dims in zip(self._inputs, key):
                if arg.name in feed and self._unbound(arg):
                    shapes[arg.name] = list(dims)
            built = self._build(shapes)
            self._graphs[key] = built
            while len(self._graphs) > GRAPH_CACHE:
                self._graphs.popitem(last=False)
        else:
            self._graphs.move_to_end(key)
        return built

    def run(self, output_names: Optional[Sequence[str]], input_feed: Mapping[str, Any], run_options: Any = None) -> List[np.ndarray]:
        """Runs the model on ``input_feed`` (input name → array) and returns the outputs named
        in ``output_names`` (None: all, in the model's order) as new arrays. Bool inputs and
        outputs are numpy bools (WebNN holds them as uint8)."""
        if not isinstance(input_feed, Mapping):
            raise c.fail("run(): argument 'input_feed'", f"must be a mapping of input names to arrays, not {c.type_name(input_feed)}")
        declared = {arg.name for arg in self._inputs}
        for arg in self._inputs:
            if arg.name not in input_feed:
                raise TypeError(f"run(): input '{arg.name}' is missing from the feed")
        for name in input_feed:
            if name not in declared:
                raise TypeError(f"run(): the model has no input named '{name}'")
        built = self._graph_for(input_feed)
        feed: Dict[str, Any] = {}
        for name, _, _, code in built.inputs:
            value = input_feed[name]
            feed[name] = np.asarray(value, dtype=np.bool_).view(np.uint8) if code == BOOL else value
        results = self._context.compute(built.graph, feed)
        bools = {name for name, _, _, code in built.outputs if code == BOOL}
        names = [o.name for o in self._outputs] if output_names is None else list(output_names)
        arrays = []
        for name in names:
            if name not in results:
                raise TypeError(f"run(): the model has no output named '{name}'")
            arrays.append(results[name].view(np.bool_) if name in bools else results[name])
        return arrays

"""``ML`` and ``MLContext`` (https://www.w3.org/TR/webnn/#api-ml,
https://www.w3.org/TR/webnn/#api-mlcontext): contexts, tensors, dispatch, reads and writes
with numpy arrays, and ``compute()``, a one-call convenience beyond the spec."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Dict, Optional

import numpy as np

from . import _arrays
from . import _convert as c
from . import _webnn
from ._pending import Pending

MLTensor = _webnn.MLTensor
MLGraph = _webnn.MLGraph

POWER_PREFERENCE = c.enumeration(("default", "high-performance", "low-power"), "MLPowerPreference")


@dataclass(frozen=True)
class MLContextLostInfo:
    """``MLContextLostInfo`` (https://www.w3.org/TR/webnn/#dictdef-mlcontextlostinfo): why a
    context was lost."""

    message: str


class ML:
    """``ML`` (https://www.w3.org/TR/webnn/#api-ml): the entry point, ``webnn.ml``."""

    __slots__ = ()

    def create_context(self, *, power_preference: str = "default", accelerated: bool = True) -> MLContext:
        """``createContext(options)`` (https://www.w3.org/TR/webnn/#api-ml-createcontext).

        ``accelerated=True`` (the IDL default) asks for a GPU: the context runs on a hardware
        GPU adapter when there is one, else on the CPU engine (``context.accelerated`` says
        which); the environment variable ``WEBNN_DEVICE`` (``cpu`` or ``gpu``) overrides the
        choice. Raises NotSupportedError when ``WEBNN_DEVICE=gpu`` finds no adapter."""
        pp = POWER_PREFERENCE(power_preference, "create_context(): argument 'power_preference'")
        acc = c.boolean(accelerated, "create_context(): argument 'accelerated'")
        return MLContext._wrap(_webnn.create_context(pp, acc))


class MLContext:
    """``MLContext`` (https://www.w3.org/TR/webnn/#api-mlcontext): a device's timeline. Writes
    and dispatches are queued and return at once; reads wait for everything queued before
    them. Made by ``webnn.ml.create_context()``."""

    __slots__ = ("_native", "_lost")
    _native: _webnn.Context
    _lost: Optional[Pending[MLContextLostInfo]]

    def __init__(self) -> None:
        raise TypeError("MLContext cannot be constructed: use webnn.ml.create_context()")

    @classmethod
    def _wrap(cls, native: Any) -> MLContext:
        context = object.__new__(cls)
        context._native = native
        context._lost = None
        return context

    @property
    def accelerated(self) -> bool:
        """``accelerated`` (https://www.w3.org/TR/webnn/#dom-mlcontext-accelerated): True on a
        GPU, False on the CPU engine."""
        return bool(self._native.accelerated)

    @property
    def lost(self) -> Pending[MLContextLostInfo]:
        """``lost`` (https://www.w3.org/TR/webnn/#dom-mlcontext-lost): settles with an
        MLContextLostInfo once the context is lost (``destroy()`` or a device failure)."""
        if self._lost is None:
            self._lost = Pending(self._native.lost(), MLContextLostInfo)
        return self._lost

    def destroy(self) -> None:
        """``destroy()`` (https://www.w3.org/TR/webnn/#api-mlcontext-destroy): loses the context;
        its graphs and tensors are destroyed and pending reads raise InvalidStateError."""
        self._native.destroy()

    def op_support_limits(self) -> Dict[str, Any]:
        """``opSupportLimits()`` (https://www.w3.org/TR/webnn/#api-mlcontext-opsupportlimits):
        the MLOpSupportLimits dictionary, with the spec's member names
        (``limits["conv2d"]["input"]["dataTypes"]``)."""
        result: Dict[str, Any] = json.loads(self._native.op_support_limits())
        return result

    def create_tensor(self, data_type: Any, shape: Any = None, *, readable: bool = False, writable: bool = False) -> MLTensor:
        """``createTensor(descriptor)`` (https://www.w3.org/TR/webnn/#api-mlcontext-createtensor):
        a zero-filled tensor, as ``create_tensor(data_type, shape, readable=..., writable=...)``
        or ``create_tensor({"dataType": ..., "shape": [...], "readable": ..., "writable": ...})``."""
        where = "create_tensor(): argument"
        if shape is None and isinstance(data_type, Mapping):
            dt, dims = c.descriptor(data_type, f"{where} 'descriptor'")
            readable = data_type.get("readable", readable)
            writable = data_type.get("writable", writable)
        else:
            dt = c.data_type(data_type, f"{where} 'data_type'")
            dims = c.shape(shape, f"{where} 'shape'")
        r = c.boolean(readable, f"{where} 'readable'")
        w = c.boolean(writable, f"{where} 'writable'")
        return self._native.create_tensor(dt, dims, r, w)

    def create_constant_tensor(self, value: Any, data: Any = None) -> MLTensor:
        """``createConstantTensor(descriptor, inputData)``
        (https://www.w3.org/TR/webnn/#api-mlcontext-createconstanttensor): an immutable tensor
        for ``MLGraphBuilder.constant(tensor)``, as ``create_constant_tensor(ndarray)`` or
        ``create_constant_tensor({"dataType": ..., "shape": [...]}, data)``."""
        where = "create_constant_tensor(): argument"
        resolved = _arrays.constant_data(value, data, "create_constant_tensor", "data")
        if resolved is not None:
            return self._native.create_constant_tensor(*resolved)
        raise c.fail(f"{where} 'value'", f"must be an ndarray or a descriptor (with data), not {c.type_name(value)}")

    def write_tensor(self, tensor: MLTensor, data: Any) -> None:
        """``writeTensor(tensor, inputData)`` (https://www.w3.org/TR/webnn/#api-mlcontext-writetensor):
        queues a write of ``data`` (an array of the tensor's dtype, uint8 or bytes holding its
        raw bytes, or a list); the data is copied before this returns."""
        t = self._tensor(tensor, "write_tensor")
        self._native.write_tensor(t, _arrays.as_data(data, t.data_type, "write_tensor(): argument 'data'"))

    def read_tensor(self, tensor: MLTensor, out: Any = None) -> Any:
        """``readTensor(tensor)`` (https://www.w3.org/TR/webnn/#api-mlcontext-readtensor): waits
        (the GIL released) for the work queued before, then returns a new array of the
        tensor's dtype and shape; with ``out`` (a writable C-contiguous array of that dtype or
        uint8, or a bytearray of the tensor's byte length) fills it and returns None."""
        t = self._tensor(tensor, "read_tensor")
        if out is None:
            return self._native.read_tensor(t)
        self._native.read_tensor_into(t, _arrays.check_out(out, t.data_type, "read_tensor(): argument 'out'"))
        return None

    def read_tensor_async(self, tensor: MLTensor, out: Any = None) -> Pending[Any]:
        """``readTensor()`` as a Pending, usable with asyncio (``await context.read_tensor_async(t)``):
        the read is queued now (after the work queued before it), the array comes later."""
        t = self._tensor(tensor, "read_tensor_async")
        target = None if out is None else _arrays.check_out(out, t.data_type, "read_tensor_async(): argument 'out'")
        pending = self._native.read_tensor_async(t)
        if target is None:
            return Pending(pending, lambda array: array)

        def fill(array: np.ndarray) -> None:
            if target.nbytes != array.nbytes:
                raise TypeError(f"read_tensor_async(): argument 'out' has {target.nbytes} bytes but the tensor has {array.nbytes}")
            target.reshape(-1).view(np.uint8)[:] = array.reshape(-1).view(np.uint8)

        return Pending(pending, fill)

    def dispatch(self, graph: MLGraph, inputs: Mapping[str, MLTensor], outputs: Mapping[str, MLTensor]) -> None:
        """``dispatch(graph, inputs, outputs)`` (https://www.w3.org/TR/webnn/#api-mlcontext-dispatch):
        queues a run of ``graph`` reading the tensors ``inputs`` and writing ``outputs`` (both
        name → MLTensor); returns at once."""
        self._graph(graph, "dispatch")
        ins = self._mapping(inputs, "dispatch(): argument 'inputs'")
        outs = self._mapping(outputs, "dispatch(): argument 'outputs'")
        self._native.dispatch(graph, ins, outs)

    def compute(self, graph: MLGraph, inputs: Mapping[str, Any]) -> Dict[str, np.ndarray]:
        """Runs ``graph`` on ``inputs`` (name → array) and returns its outputs (name → new
        array): one call that creates tensors (kept with the graph and reused), writes,
        dispatches and reads. Not in the spec (its ``compute()`` was removed in favor of
        MLTensor); the convenience Python users expect."""
        self._graph(graph, "compute")
        arrays = self._mapping(inputs, "compute(): argument 'inputs'")
        for value in arrays.values():
            if type(value) is not np.ndarray or not value.flags.c_contiguous or not value.dtype.isnative:
                arrays = self._prepare(graph, arrays)
                break
        result: Dict[str, np.ndarray] = self._native.compute(graph, arrays)
        return result

    @staticmethod
    def _prepare(graph: MLGraph, inputs: Dict[str, Any]) -> Dict[str, Any]:
        """``inputs`` converted by the rules of ``_arrays`` (unknown names are left for the
        native check)."""
        types = {name: dt for name, dt, _ in graph.input_descriptors()}
        return {
            name: _arrays.as_data(value, types[name], f"compute(): input '{name}'") if name in types else value
            for name, value in inputs.items()
        }

    @staticmethod
    def _mapping(value: Any, where: str) -> Dict[str, Any]:
        if isinstance(value, dict):
            return value
        if not isinstance(value, Mapping):
            raise c.fail(where, f"must be a mapping of names, not {c.type_name(value)}")
        return dict(value)

    @staticmethod
    def _tensor(tensor: Any, method: str) -> MLTensor:
        if not isinstance(tensor, MLTensor):
            raise c.fail(f"{method}(): argument 'tensor'", f"must be an MLTensor, not {c.type_name(tensor)}")
        return tensor

    @staticmethod
    def _graph(graph: Any, method: str) -> None:
        if not isinstance(graph, MLGraph):
            raise c.fail(f"{method}(): argument 'graph'", f"must be an MLGraph, not {c.type_name(graph)}")

    def __repr__(self) -> str:
        return f"<MLContext {'accelerated' if self.accelerated else 'cpu'}>"

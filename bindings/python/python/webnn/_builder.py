"""``MLGraphBuilder`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder): inputs, constants,
the 95 operations as snake_case methods with keyword options, and ``build()``.

The operation methods are made from the table in ``_ops.py`` (built from webnn-core's op
signatures): each converts its arguments (TypeError naming the parameter), then calls the
native builder, which runs the spec's steps.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import Any, Callable, Dict, List, Optional

from . import _arrays
from . import _convert as c
from . import _webnn
from ._context import MLContext
from ._ops import OPERAND, OPERANDS, OPS, SPLITS, Op

MLOperand = _webnn.MLOperand
MLTensor = _webnn.MLTensor
MLGraph = _webnn.MLGraph


def operand(value: Any, where: str) -> Any:
    """An ``MLOperand`` argument."""
    if not isinstance(value, MLOperand):
        raise c.fail(where, f"must be an MLOperand, not {c.type_name(value)}")
    return value


class MLGraphBuilder:
    """``MLGraphBuilder(context)`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-constructor):
    builds one graph for ``context`` from inputs, constants and operations, then ``build()``
    compiles it. A method that raises adds nothing to the graph."""

    __slots__ = ("_native",)
    _native: _webnn.Builder

    def __init__(self, context: MLContext) -> None:
        if not isinstance(context, MLContext):
            raise c.fail("MLGraphBuilder(): argument 'context'", f"must be an MLContext, not {c.type_name(context)}")
        self._native = _webnn.Builder(context._native)

    def input(self, name: str, data_type: Any, shape: Any = None) -> MLOperand:
        """``input(name, descriptor)`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-input):
        a graph input, as ``input(name, data_type, shape)`` or ``input(name, {"dataType": ...,
        "shape": [...]})``."""
        name = c.string(name, "input(): argument 'name'")
        if shape is None and isinstance(data_type, Mapping):
            dt, dims = c.descriptor(data_type, "input(): argument 'descriptor'")
        else:
            dt = c.data_type(data_type, "input(): argument 'data_type'")
            dims = c.shape(shape, "input(): argument 'shape'")
        return self._native.input(name, dt, dims)

    def constant(self, value: Any, data: Any = None) -> MLOperand:
        """``constant()`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-constant), four ways:

        * ``constant(ndarray)``: data type and shape from the array (float16 is ``np.float16``);
        * ``constant({"dataType": ..., "shape": [...]}, data)``: ``data`` an array of that dtype,
          uint8 or ``bytes`` holding the raw little-endian bytes, or a list;
        * ``constant(data_type, number)``: a scalar (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-constant-datatype-value);
        * ``constant(tensor)``: an MLTensor made with ``MLContext.create_constant_tensor``
          (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-constant-tensor).
        """
        where = "constant(): argument"
        if isinstance(value, MLTensor):
            self._no_second("the tensor form", data)
            return self._native.constant_tensor(value)
        resolved = _arrays.constant_data(value, data, "constant", "buffer")
        if resolved is not None:
            return self._native.constant(*resolved)
        if data is not None:
            dt = c.data_type(value, f"{where} 'data_type'")
            return self._native.constant_scalar(dt, c.ml_number(data, f"{where} 'value'"))
        raise c.fail(
            f"{where} 'value'",
            f"must be an ndarray, an MLTensor, a descriptor (with data) or a data type (with a number), "
            f"not {c.type_name(value)}",
        )

    @staticmethod
    def _no_second(form: str, data: Any) -> None:
        if data is not None:
            raise TypeError(f"constant(): {form} takes one argument")

    def build(self, outputs: Mapping[str, MLOperand]) -> MLGraph:
        """``build(outputs)`` (https://www.w3.org/TR/webnn/#api-mlgraphbuilder-build): compiles
        the graph computing ``outputs`` (name → operand); the builder cannot be used after."""
        if not isinstance(outputs, Mapping):
            raise c.fail("build(): argument 'outputs'", f"must be a mapping of names to MLOperands, not {c.type_name(outputs)}")
        named: Dict[str, Any] = {}
        for key, value in outputs.items():
            name = c.string(key, "build(): output names")
            named[name] = operand(value, f"build(): argument 'outputs['{name}']'")
        return self._native.build(named)


def _op_method(op: Op) -> Callable[..., Any]:
    """The MLGraphBuilder method of ``op``."""
    P = inspect.Parameter
    parameters = [P("self", P.POSITIONAL_OR_KEYWORD)]
    parameters += [P(a.name, P.POSITIONAL_OR_KEYWORD) for a in op.args]
    parameters += [P(o.name, P.KEYWORD_ONLY, default=o.default) for o in op.options]
    parameters += [P("label", P.KEYWORD_ONLY, default="")]
    signature = inspect.Signature(parameters)
    prefix = f"{op.name}(): argument"

    def method(self: MLGraphBuilder, *args: Any, **kwargs: Any) -> Any:
        try:
            values = signature.bind(self, *args, **kwargs).arguments
        except TypeError as e:
            raise TypeError(f"{op.name}(): {e}") from None
        operands: List[Optional[Any]] = []
        params: Dict[str, Any] = {"label": c.string(values.get("label", ""), f"{prefix} 'label'")}
        for a in op.args:
            value, where = values[a.name], f"{prefix} '{a.name}'"
            if a.convert == OPERAND:
                operands.append(operand(value, where))
            elif a.convert == OPERANDS:
                operands.extend(c.sequence(value, operand, where))
            elif a.convert == SPLITS:
                params["splits"] = c.splits(value, where)
            else:
                params[a.idl] = a.convert(value, where)
        for o in op.options:
            value, where = values.get(o.name), f"{prefix} '{o.name}'"
            if o.convert == OPERAND:
                operands.append(None if value is None else operand(value, where))
            elif value is not None:
                params[o.idl] = o.convert(value, where)
        outputs = self._native.op(op.idl, operands, params)
        return outputs if op.sequence else outputs[0]

    method.__name__ = op.name
    method.__qualname__ = f"MLGraphBuilder.{op.name}"
    method.__signature__ = signature  # type: ignore[attr-defined]
    returns = "a list of MLOperand" if op.sequence else "an MLOperand"
    method.__doc__ = f"``{op.idl}()`` ({op.url}); returns {returns}."
    return method


for _name, _op in OPS.items():
    setattr(MLGraphBuilder, _name, _op_method(_op))

"""The operations of ``MLGraphBuilder`` as data: their Python name, IDL name, positional
arguments and options (with converters and the IDL defaults) and spec URL.

Nothing here is written by hand: the table is built at import from the op signatures of the
native module (``_webnn.op_signatures()``, which ``webnn_core::signatures`` generates from the
Rust op table and checks against ``webnn-2026.webidl``). ``_builder.py`` turns each op into a
method and ``scripts/gen_stubs.py`` writes its typed signature into ``__init__.pyi``
(``tests/test_stubs.py`` checks that the committed stub is what the script writes).

Operand arguments (positional, then the operand members of the options in declaration order)
form the op's operand slots, in the order of the Rust ``LimitsKind::inputs()``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Tuple

from . import _convert as c
from . import _webnn

#: ``{"ops": [...], "dictionaries": {...}, "enums": {...}}`` (see ``webnn_core::signatures``).
SIGNATURES: Dict[str, Any] = json.loads(_webnn.op_signatures())

#: The values of each IDL enum of the op signatures, by IDL name.
ENUMS: Dict[str, Tuple[str, ...]] = {name: tuple(values) for name, values in SIGNATURES["enums"].items()}


def u32_list(value: Any, where: str) -> Any:
    """``sequence<[EnforceRange] unsigned long>``"""
    return c.sequence(value, c.enforced_unsigned_long, where)


def wrapped_u32_list(value: Any, where: str) -> Any:
    """``sequence<unsigned long>``"""
    return c.sequence(value, c.unsigned_long, where)


RECURRENT_ACTIVATION = c.enumeration(ENUMS["MLRecurrentNetworkActivation"], "MLRecurrentNetworkActivation")


def activations(value: Any, where: str) -> Any:
    """``sequence<MLRecurrentNetworkActivation>``"""
    return c.sequence(value, RECURRENT_ACTIVATION, where)


#: Marks an operand argument or option (converted by the builder, which knows MLOperand).
OPERAND = "operand"
#: concat()'s ``sequence<MLOperand>``.
OPERANDS = "operands"
#: split()'s count-or-sizes argument.
SPLITS = "splits"

#: The converter (or OPERAND / OPERANDS / SPLITS) of each IDL type key of the signatures but
#: ``enum:<IDL enum name>``.
CONVERTERS: Dict[str, Any] = {
    "operand": OPERAND,
    "operandSeq": OPERANDS,
    "splits": SPLITS,
    "boolean": c.boolean,
    "double": c.restricted_double,
    "u32e": c.enforced_unsigned_long,
    "u32": c.unsigned_long,
    "i32e": c.enforced_long,
    "u32eSeq": u32_list,
    "u32Seq": wrapped_u32_list,
    "floatSeq": c.floats,
    "usv": c.string,
    "number": c.ml_number,
    "dataType": c.data_type,
    "activations": activations,
}

_ENUM_CONVERTERS: Dict[str, Callable[[object, str], str]] = {}


def converter(type_key: str) -> Any:
    """The converter of the IDL type key ``type_key``."""
    if type_key.startswith("enum:"):
        name = type_key[len("enum:") :]
        if name not in _ENUM_CONVERTERS:
            _ENUM_CONVERTERS[name] = c.enumeration(ENUMS[name], name)
        return _ENUM_CONVERTERS[name]
    if type_key not in CONVERTERS:
        raise ValueError(f"webnn: no converter for the IDL type key {type_key!r}")
    return CONVERTERS[type_key]


def snake_case(name: str) -> str:
    """An IDL name in snake_case: ``keepDimensions`` -> ``keep_dimensions``."""
    return re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name).lower()


@dataclass(frozen=True)
class Arg:
    """A positional argument: its Python and IDL names, IDL type key, and converter (or
    OPERAND / OPERANDS / SPLITS)."""

    name: str
    idl: str
    type: str
    convert: Any


@dataclass(frozen=True)
class Option:
    """A member of the op's options dictionary: Python and IDL names, IDL type key, converter
    (or OPERAND) and the IDL default (None: absent). Passing None means absent too (the IDL
    default applies)."""

    name: str
    idl: str
    type: str
    convert: Any
    default: Any = None


@dataclass(frozen=True)
class Op:
    """One MLGraphBuilder operation: Python and IDL names, arguments, the options other than
    ``label``, whether it returns a list of operands, and its spec section."""

    name: str
    idl: str
    args: Tuple[Arg, ...]
    options: Tuple[Option, ...]
    sequence: bool
    url: str


def _members(dictionary: str) -> List[Dict[str, Any]]:
    """The members of the IDL dictionary ``dictionary``, the inherited ones first."""
    entry = SIGNATURES["dictionaries"][dictionary]
    inherited = _members(entry["inherits"]) if entry["inherits"] is not None else []
    return inherited + list(entry["members"])


#: The options of each op options dictionary, by IDL name; ``label`` (every op's, from
#: ``MLOperatorOptions``) is not among them: the builder adds it to every method.
OPTIONS: Dict[str, Tuple[Option, ...]] = {
    name: tuple(
        Option(snake_case(m["name"]), m["name"], m["type"], converter(m["type"]), m.get("default"))
        for m in _members(name)
        if m["name"] != "label"
    )
    for name in SIGNATURES["dictionaries"]
}

#: The operations by Python method name, in the spec's order.
OPS: Dict[str, Op] = {
    op["method"]: Op(
        op["method"],
        op["name"],
        tuple(Arg(snake_case(a["name"]), a["name"], a["type"], converter(a["type"])) for a in op["args"]),
        OPTIONS[op["options"]],
        op["sequence"],
        op["url"],
    )
    for op in SIGNATURES["ops"]
}

#: Python method name of each IDL operation name.
BY_IDL_NAME: Dict[str, str] = {op.idl: name for name, op in OPS.items()}

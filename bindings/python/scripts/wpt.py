#!/usr/bin/env python3
"""python bindings/python/scripts/wpt.py [DIR] [--filter TEXT]

Runs every WPT WebNN conformance vector in DIR (default: ../shared/wpt beside the repository)
through the Python API of the ``webnn`` package, by the rules of DIR/README.md §4–§6 and as the
Rust harness (crates/webnn-conformance) and bindings/node/scripts/wpt.js do: scalar fill,
output descriptor check, ULP distance on bit patterns (float16 through dataF16Bits), ATOL,
notApplicable cases skipped, softmax without axis → axis 1, and the same errata file
(crates/webnn-conformance/errata.json). Prints each failure and skip, and as its last line
``N passed, M failed, K skipped``. Exits 1 if any case failed.
"""

from __future__ import annotations

import json
import math
import os
import re
import sys
from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np

import webnn
from webnn._ops import BY_IDL_NAME

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
ERRATA_FILE = os.path.join(REPO, "crates", "webnn-conformance", "errata.json")

INT_BITS = {"int32": (32, True), "uint32": (32, False), "int64": (64, True), "uint64": (64, False),
            "int8": (8, True), "uint8": (8, False)}
I128_MAX = (1 << 127) - 1
I128_MIN = -(1 << 127)


# ------------------------------------------------------------------------------------------
# Values (README §4): "NaN", "Infinity", "-Infinity", "-0" and 64-bit integers as strings.

def number(v: Any) -> float:
    """A JSON number or special string as a double."""
    if isinstance(v, bool):
        return 1.0 if v else 0.0
    if isinstance(v, (int, float)):
        return float(v)
    if isinstance(v, str):
        special = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf, "-0": -0.0}
        if v in special:
            return special[v]
        return float(v)
    raise ValueError(f"expected a number, got {v!r}")


def trunc_to_int(x: float) -> int:
    """A double truncated like Rust's ``x as i128`` (NaN → 0, saturating)."""
    if math.isnan(x):
        return 0
    if math.isinf(x):
        return I128_MAX if x > 0 else I128_MIN
    return max(I128_MIN, min(I128_MAX, int(x)))


def integer(v: Any) -> int:
    """A JSON integer (number or decimal string) with full 64-bit precision."""
    if isinstance(v, str) and re.fullmatch(r"[+-]?\d+", v):
        return int(v)
    return trunc_to_int(number(v))


def wrap(i: int, bits: int, signed: bool) -> int:
    """``i`` wrapped into a ``bits``-bit (un)signed integer, as BigInt.asIntN/asUintN do."""
    i &= (1 << bits) - 1
    return i - (1 << bits) if signed and i >= 1 << (bits - 1) else i


def values(data: Any, count: int) -> List[Any]:
    """The element values of ``data`` (a list, or one value meaning "fill")."""
    return data if isinstance(data, list) else [data] * count


def encode(data: Any, f16_bits: Any, data_type: str, count: int) -> np.ndarray:
    """The array holding ``data`` (and ``f16_bits`` for float16) for ``count`` elements."""
    dtype = np.dtype(data_type)
    if not isinstance(data, list) and not isinstance(f16_bits, list):
        one = encode([data], None if f16_bits is None else [f16_bits], data_type, 1)
        return np.full(count, one[0], dtype=dtype)
    if data_type == "float16":
        if f16_bits is not None:
            bits = [wrap(integer(b), 16, False) for b in values(f16_bits, count)]
            return np.array(bits, dtype=np.uint16).view(np.float16)
        return np.array([number(v) for v in values(data, count)], dtype=np.float64).astype(np.float16)
    items = values(data, count)
    if len(items) != count:
        raise ValueError(f"{len(items)} values for {count} elements")
    if data_type == "float32":
        return np.array([number(v) for v in items], dtype=np.float64).astype(np.float32)
    bits, signed = INT_BITS[data_type]
    return np.array([wrap(integer(v), bits, signed) for v in items], dtype=dtype)


# ------------------------------------------------------------------------------------------
# Comparison (README §5).

def f32_ordinal(x: np.ndarray) -> np.ndarray:
    """float32 sign-magnitude mapping: (x < 0 ? -1 : 1) * bits32(f32(|x|)), as int64."""
    with np.errstate(over="ignore"):
        bits = np.abs(x).astype(np.float32).view(np.uint32).astype(np.int64)
    return np.where(x < 0, -bits, bits)


def compare(actual: np.ndarray, data_type: str, expected: Any, expected_f16: Any, metric: str, tolerance: float) -> Optional[Tuple[int, float, str, str]]:
    """The worst element outside ``tolerance`` as (index, error, actual, expected), or None."""
    actual = actual.reshape(-1)
    size = actual.size
    if isinstance(expected, list):
        count = len(expected)
        if count != size:
            raise ValueError(f"expected {count} values, the output has {size}")
        exp_values = expected
    else:
        count = min(size, 1000) if size > 1 else 1
        exp_values = [expected] * count
    actual = actual[:count]
    ulp = metric == "ULP"
    if data_type == "float32":
        a = actual.astype(np.float64)
        e = np.array([number(v) for v in exp_values], dtype=np.float64)
        with np.errstate(invalid="ignore"):
            if not ulp:
                error = np.where(np.isfinite(a) & np.isfinite(e), np.abs(a - e), np.inf)
            else:
                equal = (a == e) | (np.isnan(a) & np.isnan(e))
                one_nan = np.isnan(a) ^ np.isnan(e)
                distance = np.abs(f32_ordinal(np.nan_to_num(a)) - f32_ordinal(np.nan_to_num(e))).astype(np.float64)
                error = np.where(equal, 0.0, np.where(one_nan, np.inf, distance))
        shown_a = [repr(float(x)) for x in a]
        shown_e = [repr(float(x)) for x in e]
    elif data_type == "float16":
        a_bits = actual.view(np.uint16).astype(np.int64)
        a = actual.astype(np.float64)
        e = np.array([number(v) for v in exp_values], dtype=np.float64)
        if not ulp:
            with np.errstate(invalid="ignore"):
                error = np.where(np.isfinite(a) & np.isfinite(e), np.abs(a - e), np.inf)
        else:
            if expected_f16 is not None:
                b_bits = np.array([wrap(integer(b), 16, False) for b in values(expected_f16, count)], dtype=np.int64)
            else:
                b_bits = e.astype(np.float16).view(np.uint16).astype(np.int64)
            zeros = ((a_bits & 0x7FFF) == 0) & ((b_bits & 0x7FFF) == 0)
            error = np.where(zeros, 0, np.abs(a_bits - b_bits)).astype(np.float64)
        shown_a = [f"{float(x)!r} (0x{int(b):04x})" for x, b in zip(a, a_bits)]
        shown_e = [repr(float(x)) for x in e]
    else:
        a_int = [int(x) for x in actual]
        e_int = [integer(v) for v in exp_values]
        if not ulp:
            error = np.array([abs(float(x) - float(y)) for x, y in zip(a_int, e_int)], dtype=np.float64)
        else:
            error = np.array([float(abs(x - y)) for x, y in zip(a_int, e_int)], dtype=np.float64)
        shown_a = [str(x) for x in a_int]
        shown_e = [str(x) for x in e_int]
    bad = np.nonzero(error > tolerance)[0]
    if bad.size == 0:
        return None
    worst = int(bad[np.argmax(error[bad])])
    return worst, float(error[worst]), shown_a[worst], shown_e[worst]


# ------------------------------------------------------------------------------------------
# Building one case's operators with the Python API.

def snake(name: str) -> str:
    """An IDL option name in snake_case (``keepDimensions`` → ``keep_dimensions``)."""
    return re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name).lower()


def ml_number_value(v: Any) -> Any:
    """A literal MLNumber as the JS API takes it: a digit string is a bigint, anything else a
    double (JSON numbers are doubles in JavaScript)."""
    if isinstance(v, str) and re.fullmatch(r"[+-]?\d+", v):
        return int(v)
    return number(v)


def call_args(name: str, arg_list: List[Dict[str, Any]], operands: Dict[str, Any]) -> Tuple[List[Any], Dict[str, Any]]:
    """The positional and keyword arguments of one operator from its argList."""

    def lookup(key: Any) -> Any:
        if not isinstance(key, str) or key not in operands:
            raise ValueError(f"unknown operand {key!r}")
        return operands[key]

    args: List[Any] = []
    kwargs: Dict[str, Any] = {}
    has_axis = False
    for a in arg_list:
        kind = a["kind"]
        if kind == "operand":
            args.append(lookup(a["value"]))
        elif kind == "operandList":
            args.append([lookup(v) for v in a["value"]])
        elif kind == "value":
            has_axis = has_axis or a["name"] == "axis"
            args.append(a["value"])
        elif kind == "options":
            operand_keys = set(a.get("operandOptions") or [])
            for key, value in (a.get("value") or {}).items():
                if value is None:
                    continue  # holes: absent
                if key in operand_keys:
                    kwargs[snake(key)] = lookup(value)
                elif key in ("minValue", "maxValue", "value"):
                    kwargs[snake(key)] = ml_number_value(value)
                else:
                    kwargs[snake(key)] = value
        else:
            raise ValueError(f"unknown argument kind {kind}")
    # The 2025 vectors call softmax(input) from before `axis` became required; their
    # tolerance uses axis 1, and so does the Rust harness.
    if name == "softmax" and not has_axis:
        args.append(1)
    return args, kwargs


def descriptor(v: Dict[str, Any]) -> Tuple[str, List[int]]:
    return v["dataType"], [int(d) for d in v["shape"]]


def run_case(context: webnn.MLContext, file: str, case: Dict[str, Any], errata: List[Dict[str, Any]]) -> Optional[str]:
    """Runs one case: None if it passed, else a failure message."""
    graph_json = case["graph"]
    tol = case.get("tolerance") or {}
    metric, tolerance = tol.get("metricType"), tol.get("value")
    if metric not in ("ULP", "ATOL") or not isinstance(tolerance, (int, float)):
        raise ValueError(f"bad tolerance {tol!r}")
    builder = webnn.MLGraphBuilder(context)
    operands: Dict[str, Any] = {}
    input_tensors: Dict[str, Any] = {}
    tensors: List[Any] = []
    try:
        for name, inp in (graph_json.get("inputs") or {}).items():
            dt, shape = descriptor(inp["descriptor"])
            count = int(np.prod(shape, dtype=np.int64))
            data = encode(inp.get("data"), inp.get("dataF16Bits"), dt, count).reshape(shape)
            if inp.get("constant"):
                operands[name] = builder.constant(data)
            else:
                operands[name] = builder.input(name, dt, shape)
                tensor = context.create_tensor(dt, shape, writable=True)
                tensors.append(tensor)
                context.write_tensor(tensor, data)
                input_tensors[name] = tensor
        for op in graph_json.get("operators") or []:
            method: Optional[Callable[..., Any]] = getattr(builder, BY_IDL_NAME.get(op["name"], ""), None)
            if method is None:
                raise ValueError(f"unknown operator {op['name']}")
            args, kwargs = call_args(op["name"], op["argList"], operands)
            try:
                results = method(*args, **kwargs)
            except Exception as e:
                raise ValueError(f"{op['name']}: {type(e).__name__}: {e}") from None
            if not isinstance(results, list):
                results = [results]
            names = [op["outputs"]] if isinstance(op["outputs"], str) else op["outputs"]
            if len(names) > len(results):
                raise ValueError(f"{op['name']}: {len(names)} outputs expected, the builder returned {len(results)}")
            operands.update(zip(names, results))
        expected = graph_json.get("expectedOutputs") or {}
        outputs = {}
        for name, exp in expected.items():
            dt, shape = descriptor(exp["descriptor"])
            operand = operands.get(name)
            if operand is None:
                raise ValueError(f"no operand named {name}")
            if operand.data_type != dt or list(operand.shape) != shape:
                return f"output {name}: descriptor {operand.data_type}{list(operand.shape)} expected {dt}{shape}"
            outputs[name] = operand
        graph = builder.build(outputs)
        output_tensors = {}
        for name, operand in outputs.items():
            output_tensors[name] = context.create_tensor(operand.data_type, operand.shape, readable=True)
            tensors.append(output_tensors[name])
        context.dispatch(graph, input_tensors, output_tensors)
        failures = []
        for name, tensor in output_tensors.items():
            actual = context.read_tensor(tensor)
            exp = expected[name]
            data = corrected(errata, file, case["name"], name, exp.get("data"))
            worst = compare(actual, tensor.data_type, data, exp.get("dataF16Bits"), metric, tolerance)
            if worst is not None:
                index, error, a, e = worst
                limit = f"{tolerance} ULP" if metric == "ULP" else f"ATOL {tolerance}"
                failures.append(f"output {name}[{index}]: got {a}, expected {e}, error {error} > tolerance {limit}")
        graph.destroy()
        return "; ".join(failures) if failures else None
    finally:
        for t in tensors:
            t.destroy()


def corrected(errata: List[Dict[str, Any]], file: str, case: str, output: str, data: Any) -> Any:
    """``data`` with the errata's corrected values, where the vector still holds the wrong one."""
    if not isinstance(data, list):
        return data
    out = list(data)
    for e in errata:
        if (e["file"], e["case"], e["output"]) == (file, case, output) and out[e["index"]] == e["vector"]:
            out[e["index"]] = e["corrected"]
    return out


def run(directory: str, filter_text: Optional[str] = None, log: Callable[[str], None] = print) -> Tuple[int, int, int]:
    """Runs the vectors of ``directory``; returns (passed, failed, skipped) after logging the
    summary line."""
    with open(ERRATA_FILE) as f:
        errata = json.load(f)
    for e in errata:
        log(f"ERRATUM {e['file']}: {e['case']}: {e['output']}[{e['index']}]: the vector says {e['vector']}, "
            f"we compare with {e['corrected']} ({e['reason']})")
    files = sorted(f for f in os.listdir(directory) if f.endswith(".json") and f != "index.json")
    context = webnn.ml.create_context(accelerated=False)
    passed = failed = skipped = 0
    for file in files:
        try:
            with open(os.path.join(directory, file)) as f:
                cases = json.load(f).get("cases") or []
        except (OSError, ValueError) as e:
            log(f"FAIL {file}: {e}")
            failed += 1
            continue
        for case in cases:
            full = f"{file}: {case['name']}"
            if filter_text is not None and filter_text not in full:
                continue
            if isinstance(case.get("notApplicable"), str):
                skipped += 1
                log(f"SKIP {full}: {case['notApplicable']}")
                continue
            try:
                failure = run_case(context, file, case, errata)
            except Exception as e:  # noqa: BLE001 - every failure is reported per case
                failure = f"{type(e).__name__}: {e}"
            if failure is None:
                passed += 1
            else:
                failed += 1
                log(f"FAIL {full}: {failure}")
    context.destroy()
    log(f"{passed} passed, {failed} failed, {skipped} skipped")
    return passed, failed, skipped


def main(argv: List[str]) -> int:
    directory = os.path.join(os.path.dirname(REPO), "shared", "wpt")
    filter_text = None
    it = iter(argv)
    for arg in it:
        if arg == "--filter":
            filter_text = next(it, None)
        elif arg in ("-h", "--help"):
            print(__doc__)
            return 0
        else:
            directory = arg
    if not os.path.isdir(directory):
        print(f"cannot read {directory}", file=sys.stderr)
        return 2
    _, failed, _ = run(directory, filter_text, lambda line: print(line, flush=True))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

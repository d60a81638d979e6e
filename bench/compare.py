#!/usr/bin/env python3
"""ONNX Runtime and webnn side by side: same models, same inputs, same thread counts.

    python3 bench/compare.py --models DIR [--threads 1,2] [--seconds 3] [--only NAME,...]
                             [--webnn PATH] [--keep DIR]

For every model of DIR and every thread count T:
  * ONNX Runtime (CPUExecutionProvider, intra_op_num_threads=T, inter_op_num_threads=1,
    sequential execution) runs the model on generated inputs; its median latency is measured
    for --seconds (at least --min-runs runs after a warm-up run);
  * webnn runs the same inputs (`webnn run MODEL --input NAME=FILE.npy ... --threads T`) and
    every output is checked against ONNX Runtime's: floating-point outputs must be within
    1e-4 of the reference output's range (max |ours - ort| <= 1e-4 * (max - min); 1e-2 for
    float16, and for the float16 variants of get_models.py whatever their output type),
    integer and bool outputs must be equal, shapes must match; the int8 variants are checked
    as issue 12 asks (see check_int8: within one quantization step, same top-1, error against
    the float32 model no worse than ONNX Runtime's by more than INT8_VS_FLOAT); where that fails
    and ONNX Runtime's optimized graph has QLinearSoftmax nodes, the same check runs against
    that graph with them unfused (see unfuse_qlinear_softmax), both results are printed, and the
    second decides. A mismatch is printed at once and makes the script exit with status 1;
  * `webnn bench MODEL --json --threads T --seconds S` (same inputs) gives our median.
Then a table of median latencies and ratios (ours / ONNX Runtime), and as the last line
`worst ratio R (MODEL, THREADS)`; a model that webnn cannot run counts as ratio inf.

MANIFEST FORMAT (DIR/models.json, written by get_models.py):
    {"models": [{"name": "magika", "file": "magika.onnx",
                 "shapes": {"bytes": [1, 2048]},                  # free dimensions
                 "inputs": {"bytes": {"low": 0, "high": 257}}}]}  # or {"value": 1}
A variant made by quantized_models.py also has "variant" ("int8" or "float16"), "base" (the
float32 model it was made from) and "top1" (its output is a classifier's logits).
Without a manifest every DIR/*.onnx is used, free dimensions set to 1.

Input values: floats uniform in [-1, 1), integers uniform in [low, high) (default [0, 10)),
bools random; numpy's default_rng seeded with the FNV-1a hash of "MODEL/INPUT".
"""

import argparse
import glob
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
TOLERANCE = {np.dtype(np.float32): 1e-4, np.dtype(np.float64): 1e-4, np.dtype(np.float16): 1e-2}
# Quantized variants (manifest "variant": "int8"): see check_int8.
INT8_WITHIN_STEP = 0.999
INT8_VS_FLOAT = 1.5

ORT_TYPES = {
    "tensor(float)": np.float32,
    "tensor(float16)": np.float16,
    "tensor(double)": np.float64,
    "tensor(int32)": np.int32,
    "tensor(uint32)": np.uint32,
    "tensor(int64)": np.int64,
    "tensor(uint64)": np.uint64,
    "tensor(int8)": np.int8,
    "tensor(uint8)": np.uint8,
    "tensor(int16)": np.int16,
    "tensor(uint16)": np.uint16,
    "tensor(bool)": np.bool_,
}


def fnv1a(text):
    h = 0xCBF29CE484222325
    for b in text.encode():
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def parse_threads(text):
    try:
        threads = [int(t) for t in text.split(",") if t.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"--threads {text}: expected a list like 1,2")
    if not threads or any(t < 1 for t in threads):
        raise argparse.ArgumentTypeError(f"--threads {text}: thread counts must be >= 1")
    return threads


def file_stem(name):
    """The file name `webnn run` gives output NAME (same rule as model.rs `file_stem`)."""
    s = "".join(c if (c.isascii() and c.isalnum()) or c in ".-_" else "_" for c in name)
    return "_" + s if not s or set(s) == {"."} else s


def load_models(models_dir):
    """Manifest entries (with an absolute "path"), or every *.onnx with default settings."""
    manifest = os.path.join(models_dir, "models.json")
    if os.path.exists(manifest):
        with open(manifest) as f:
            entries = json.load(f)["models"]
    else:
        entries = [{"name": os.path.splitext(os.path.basename(p))[0], "file": os.path.basename(p)}
                   for p in sorted(glob.glob(os.path.join(models_dir, "*.onnx")))]
    models = []
    for e in entries:
        m = {"shapes": {}, "inputs": {}, **e}
        m["path"] = os.path.join(models_dir, m["file"])
        models.append(m)
    files = {m["name"]: m["path"] for m in models}
    for m in models:
        if "base" in m:
            m["base_path"] = files.get(m["base"])
    return models


def resolve_shape(declared, override=None):
    """A concrete shape: the override if given, else the declared one with free dims as 1."""
    if override is not None:
        return [int(d) for d in override]
    return [d if isinstance(d, int) and d >= 0 else 1 for d in declared]


def make_input(model, name, dtype, shape, spec=None):
    """Deterministic input values (see the module doc)."""
    rng = np.random.default_rng(fnv1a(f"{model}/{name}"))
    spec = spec or {}
    dtype = np.dtype(dtype)
    if "value" in spec:
        return np.full(shape, spec["value"], dtype=dtype)
    if dtype == np.bool_:
        return rng.integers(0, 2, size=shape).astype(np.bool_)
    if dtype.kind == "f":
        low, high = spec.get("low", -1.0), spec.get("high", 1.0)
        return rng.uniform(low, high, size=shape).astype(dtype)
    low, high = spec.get("low", 0), spec.get("high", 10)
    return rng.integers(low, high, size=shape).astype(dtype)


def compare_output(name, ref, ours, tolerance=None):
    """Checks one output (floats within TOLERANCE, or the given tolerance, of the output's
    range); returns (ok, relative error or None, message)."""
    if ours is None:
        return False, None, f"output '{name}': webnn wrote no {file_stem(name)}.npy"
    ref = np.asarray(ref)
    ours = np.asarray(ours)
    if ref.dtype == np.bool_:
        ref = ref.astype(np.uint8)
    if ours.dtype == np.bool_:
        ours = ours.astype(np.uint8)
    if tuple(ours.shape) != tuple(ref.shape):
        return False, None, f"output '{name}': shape {list(ours.shape)} != ONNX Runtime's {list(ref.shape)}"
    if ref.dtype.kind != "f":
        if ours.dtype.kind == "f" or ours.dtype.itemsize != ref.dtype.itemsize:
            return False, None, f"output '{name}': dtype {ours.dtype} != ONNX Runtime's {ref.dtype}"
        bad = int(np.count_nonzero(ours != ref))
        if bad:
            return False, None, f"output '{name}': {bad} of {ref.size} integer values differ"
        return True, 0.0, f"output '{name}': equal"
    if ours.dtype != ref.dtype:
        return False, None, f"output '{name}': dtype {ours.dtype} != ONNX Runtime's {ref.dtype}"
    r = ref.astype(np.float64)
    o = ours.astype(np.float64)
    nan_ref, nan_ours = np.isnan(r), np.isnan(o)
    if not np.array_equal(nan_ref, nan_ours):
        return False, None, f"output '{name}': NaN at different positions"
    finite = ~nan_ref
    if not finite.any():
        return True, 0.0, f"output '{name}': all NaN in both"
    rf, of = r[finite], o[finite]
    inf_mismatch = np.isinf(rf) | np.isinf(of)
    if np.any(inf_mismatch & (rf != of)):
        return False, None, f"output '{name}': infinities differ"
    rf, of = rf[~inf_mismatch], of[~inf_mismatch]
    if rf.size == 0:
        return True, 0.0, f"output '{name}': equal infinities"
    err = float(np.max(np.abs(of - rf)))
    span = float(rf.max() - rf.min())
    scale = span if span > 0 else max(float(np.max(np.abs(rf))), 1e-30)
    rel = err / scale
    tol = tolerance if tolerance is not None else TOLERANCE.get(ref.dtype, 1e-4)
    msg = f"output '{name}': max error {err:.3g} = {rel:.3g} of the output range {span:.3g}"
    if rel > tol:
        return False, rel, msg + f" > {tol:g}"
    return True, rel, msg


def compare_outputs(ref, ours, tolerance=None):
    """REF: name -> array (ONNX Runtime); OURS: name -> array or None. Returns
    (ok, worst relative error, messages of failures)."""
    ok, worst, failures = True, 0.0, []
    for name, r in ref.items():
        good, rel, msg = compare_output(name, r, ours.get(name), tolerance)
        if not good:
            ok = False
            failures.append(msg)
        if rel is not None:
            worst = max(worst, rel)
    return ok, worst, failures


def output_steps(path):
    """Output name -> quantization step, for the outputs that a DequantizeLinear with a
    one-element scale initializer produces (the last op of a QDQ model)."""
    import onnx
    from onnx import numpy_helper
    model = onnx.load(path, load_external_data=False)
    inits = {i.name: i for i in model.graph.initializer}
    outputs = {o.name for o in model.graph.output}
    steps = {}
    for node in model.graph.node:
        if node.op_type == "DequantizeLinear" and node.output[0] in outputs and node.input[1] in inits:
            scale = numpy_helper.to_array(inits[node.input[1]])
            if scale.size == 1:
                steps[node.output[0]] = float(scale.reshape(()))
    return steps


def range_error(x, ref):
    """max |x - ref| as a fraction of ref's range."""
    r = np.asarray(ref, dtype=np.float64)
    span = float(r.max() - r.min()) or max(float(np.max(np.abs(r))), 1e-30)
    return float(np.max(np.abs(np.asarray(x, dtype=np.float64) - r))) / span


def check_int8(ref, ours, float_ref, steps, top1):
    """Issue 12's accuracy check of a quantized model against ONNX Runtime running the same
    file. Each float output: where a DequantizeLinear with a known step produces it, at least
    INT8_WITHIN_STEP of the elements within one step of ONNX Runtime's; with TOP1 (a
    classifier's logits): the same arg-max; and, against the float32 model the variant was made from (run
    by ONNX Runtime), our error may be at most INT8_VS_FLOAT × ONNX Runtime's own (both as a
    fraction of the float32 output's range). Returns (ok, summary of the measures, messages of
    failures)."""
    ok, parts, failures = True, [], []
    for name, r in ref.items():
        o = ours.get(name)
        if o is None or np.shape(o) != np.shape(r):
            return False, "missing output", [f"output '{name}': missing or shape {np.shape(o)} != {np.shape(r)}"]
        r64, o64 = np.asarray(r, dtype=np.float64), np.asarray(o, dtype=np.float64)
        if name in steps:
            within = float(np.mean(np.abs(o64 - r64) <= steps[name] * 1.001))
            parts.append(f"{100 * within:.3f}% in 1 step")
            if within < INT8_WITHIN_STEP:
                ok = False
                failures.append(f"output '{name}': {100 * within:.3f}% within one step {steps[name]:.3g} "
                                f"< {100 * INT8_WITHIN_STEP:g}%")
        if top1:
            same = int(np.argmax(o64)) == int(np.argmax(r64))
            parts.append("top-1 " + ("same" if same else "DIFFERS"))
            if not same:
                ok = False
                failures.append(f"output '{name}': arg-max {int(np.argmax(o64))} != ORT's {int(np.argmax(r64))}")
        if float_ref is not None and name in float_ref:
            f = float_ref[name]
            ours_err, ort_err = range_error(o64, f), range_error(r64, f)
            parts.append(f"vs fp32 {ours_err:.2g}/ORT {ort_err:.2g}")
            if ours_err > INT8_VS_FLOAT * ort_err + 1e-6:
                ok = False
                failures.append(f"output '{name}': error against the float32 model {ours_err:.3g} > "
                                f"{INT8_VS_FLOAT:g} x ONNX Runtime's {ort_err:.3g}")
    return ok, ", ".join(parts), failures


def median(xs):
    return float(np.median(np.asarray(xs, dtype=np.float64)))


def time_ort(session, feeds, seconds, min_runs):
    """Median ms of session.run after one warm-up run."""
    session.run(None, feeds)
    samples = []
    start = time.perf_counter()
    while len(samples) < min_runs or time.perf_counter() - start < seconds:
        t = time.perf_counter()
        session.run(None, feeds)
        samples.append((time.perf_counter() - t) * 1e3)
    return median(samples)


def ort_session(path, threads, optimize=True, save_optimized=None):
    """An ONNX Runtime session (all graph optimizations, or none with OPTIMIZE=False); with
    SAVE_OPTIMIZED, ORT also writes its optimized graph to that file."""
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    so.log_severity_level = 3
    if not optimize:
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    if save_optimized:
        so.optimized_model_filepath = save_optimized
    return ort.InferenceSession(path, sess_options=so, providers=["CPUExecutionProvider"])


def unfuse_qlinear_softmax(model):
    """Replaces each com.microsoft.QLinearSoftmax of MODEL (ONNX Runtime's optimized graph) by
    its definition, DequantizeLinear -> Softmax -> QuantizeLinear with the same scales and zero
    points; returns the y_scale of each (None where it is not an initializer).

    Why: ORT's optimizer fuses DequantizeLinear -> Softmax -> QuantizeLinear into QLinearSoftmax,
    whose CPU kernel (onnxruntime/contrib_ops/cpu/quantization/qlinear_softmax.cc) computes
    nearbyintf(e_i * Y / sum(e)) + y_zero_point with Y = std::floor(1.0f / y_scale). For the usual
    y_scale = 1/255, 1.0f / y_scale is 254.99998 in float32, so Y = 254 and outputs land up to
    one step low (YOLOv8n's DFL softmax: 8,354 of 134,400 bytes one step low, which its box
    decode multiplies into 2-7 output steps). The rewritten graph, run with ORT's optimizations
    off (its other fused kernels stay as they are), computes the softmax as ONNX and WebNN
    define it.

    The node's `opset` attribute is the version of the Softmax it was fused from (ORT copies
    that Softmax's `axis`): from 13 the softmax runs along `axis` (default -1); before 13 the
    input is coerced to 2-D at `axis` (default 1). The standard Softmax in the model's own
    opset is that same version, so it is emitted as it was."""
    from onnx import helper, numpy_helper
    model_opset = next(o.version for o in model.opset_import if o.domain in ("", "ai.onnx"))
    inits = {i.name: i for i in model.graph.initializer}
    nodes, scales = [], []
    for n in model.graph.node:
        if n.op_type != "QLinearSoftmax" or n.domain != "com.microsoft":
            nodes.append(n)
            continue
        attrs = {a.name: a.i for a in n.attribute}
        if (attrs["opset"] >= 13) != (model_opset >= 13):
            raise ValueError(f"QLinearSoftmax {n.name}: opset {attrs['opset']} in a model of opset {model_opset}")
        x, x_scale, x_zp, y_scale, y_zp = (list(n.input) + [""] * 5)[:5]
        y = n.output[0]
        axis = attrs.get("axis", -1 if attrs["opset"] >= 13 else 1)
        nodes += [helper.make_node("DequantizeLinear", [i for i in (x, x_scale, x_zp) if i], [y + "/unfused_x"]),
                  helper.make_node("Softmax", [y + "/unfused_x"], [y + "/unfused_softmax"], axis=axis),
                  helper.make_node("QuantizeLinear", [i for i in (y + "/unfused_softmax", y_scale, y_zp) if i], [y])]
        scales.append(float(numpy_helper.to_array(inits[y_scale]).reshape(())) if y_scale in inits else None)
    del model.graph.node[:]
    model.graph.node.extend(nodes)
    return scales


def ort_unfused_reference(path, feeds, output_names, work_dir):
    """(outputs, note) of ONNX Runtime's own optimized graph for PATH with its QLinearSoftmax
    nodes unfused (see unfuse_qlinear_softmax), run without optimizations; (None, None) where
    that graph has no QLinearSoftmax."""
    import onnx
    os.makedirs(work_dir, exist_ok=True)
    optimized = os.path.join(work_dir, "ort_optimized.onnx")
    ort_session(path, 1, save_optimized=optimized)
    model = onnx.load(optimized)
    scales = unfuse_qlinear_softmax(model)
    if not scales:
        return None, None
    unfused = os.path.join(work_dir, "ort_optimized_unfused.onnx")
    onnx.save(model, unfused)
    del model
    outputs = dict(zip(output_names, ort_session(unfused, 1, optimize=False).run(output_names, feeds)))
    floors = sorted({f"floor(1/y_scale) = {math.floor(np.float32(1) / np.float32(s)):g}, "
                     f"not 1/y_scale = {1 / s:.8g}" for s in scales if s is not None}) or ["floor(1/y_scale)"]
    return outputs, f"its kernel scales by {'; '.join(floors)}"


def find_webnn(explicit=None):
    candidates = [explicit, os.environ.get("WEBNN_BIN")]
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(REPO, "target"))
    candidates.append(os.path.join(target, "release", "webnn"))
    candidates.append(shutil.which("webnn"))
    for c in candidates:
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    sys.exit("compare.py: no webnn binary found; build it with `cargo build --release -p webnn-cli` "
             "(with the onnx feature) or pass --webnn PATH")


class WebnnError(Exception):
    pass


def call_webnn(binary, args):
    proc = subprocess.run([binary] + args, capture_output=True, text=True)
    if proc.returncode != 0:
        last = (proc.stderr.strip() or proc.stdout.strip() or f"exit status {proc.returncode}").splitlines()[-1]
        raise WebnnError(last)
    return proc.stdout


def model_args(model_path, input_files, shape_args):
    args = [model_path]
    for name, path in input_files.items():
        args += ["--input", f"{name}={path}"]
    for s in shape_args:
        args += ["--shape", s]
    return args


def webnn_run(binary, model_path, input_files, shape_args, threads, out_dir, output_names):
    """Runs `webnn run`; returns name -> array (None where no file was written)."""
    os.makedirs(out_dir, exist_ok=True)
    call_webnn(binary, ["run"] + model_args(model_path, input_files, shape_args)
               + ["--output-dir", out_dir, "--threads", str(threads)])
    outputs = {}
    for name in output_names:
        p = os.path.join(out_dir, file_stem(name) + ".npy")
        outputs[name] = np.load(p) if os.path.exists(p) else None
    return outputs


def webnn_bench(binary, model_path, input_files, shape_args, threads, seconds, min_runs):
    out = call_webnn(binary, ["bench"] + model_args(model_path, input_files, shape_args)
                     + ["--json", "--threads", str(threads), "--seconds", str(seconds),
                        "--min-runs", str(min_runs)])
    lines = [line for line in out.splitlines() if line.strip().startswith("{")]
    if not lines:
        raise WebnnError(f"webnn bench printed no JSON: {out.strip()[:200]}")
    return json.loads(lines[-1])


def ratio(row):
    if row.get("ours_ms") is None or row.get("ort_ms") in (None, 0):
        return math.inf
    return row["ours_ms"] / row["ort_ms"]


def format_ms(v):
    return "-" if v is None else f"{v:.3f}"


def format_table(rows):
    header = ["model", "threads", "ORT ms", "webnn ms", "ratio", "outputs"]
    body = []
    for r in rows:
        q = ratio(r)
        check = r.get("check", "")
        if len(check) > 100:
            check = check[:97] + "..."
        body.append([r["model"], str(r["threads"]), format_ms(r.get("ort_ms")), format_ms(r.get("ours_ms")),
                     "inf" if math.isinf(q) else f"{q:.2f}", check])
    widths = [max(len(x) for x in col) for col in zip(header, *body)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(header, widths)).rstrip(),
             "  ".join("-" * w for w in widths)]
    for b in body:
        lines.append("  ".join(x.rjust(w) if 1 <= i <= 4 else x.ljust(w) for i, (x, w) in
                               enumerate(zip(b, widths))).rstrip())
    return "\n".join(lines)


def worst_line(rows):
    """`worst ratio R (MODEL, THREADS)` over all rows (a failed row counts as inf)."""
    if not rows:
        return "worst ratio n/a (no models)"
    worst = max(rows, key=ratio)
    q = ratio(worst)
    return f"worst ratio {'inf' if math.isinf(q) else f'{q:.2f}'} ({worst['model']}, {worst['threads']})"


def compare_model(model, threads_list, binary, work, seconds, min_runs, log=print):
    """All rows of one model."""
    name, path = model["name"], model["path"]
    rows = []
    try:
        probe = ort_session(path, 1)
    except Exception as e:  # noqa: BLE001 - any ORT load failure is reported per model
        for t in threads_list:
            rows.append({"model": name, "threads": t, "check": f"ERROR ONNX Runtime: {e}".splitlines()[0],
                         "ok": False})
        return rows
    feeds, input_files, shape_args = {}, {}, []
    in_dir = os.path.join(work, name, "inputs")
    os.makedirs(in_dir, exist_ok=True)
    for i in probe.get_inputs():
        override = model["shapes"].get(i.name)
        shape = resolve_shape(i.shape, override)
        dtype = ORT_TYPES.get(i.type)
        if dtype is None:
            raise SystemExit(f"{name}: input {i.name} has unsupported type {i.type}")
        feeds[i.name] = make_input(name, i.name, dtype, shape, model["inputs"].get(i.name))
        p = os.path.join(in_dir, file_stem(i.name) + ".npy")
        # webnn has no bool: feed bools as uint8.
        np.save(p, feeds[i.name].astype(np.uint8) if dtype == np.bool_ else feeds[i.name])
        input_files[i.name] = p
        if override is not None or any(not isinstance(d, int) or d < 0 for d in i.shape):
            shape_args.append(f"{i.name}={'x'.join(str(d) for d in shape)}")
    output_names = [o.name for o in probe.get_outputs()]
    reference = dict(zip(output_names, probe.run(None, feeds)))
    del probe
    variant = model.get("variant")
    float_reference, steps = None, {}
    unfused = None  # ort_unfused_reference's answer, asked at the first failed int8 check
    self_check = None  # ORT without optimizations against ORT, asked when an int8 check fails
    if variant == "int8":
        steps = output_steps(path)
        base = model.get("base_path")
        if base and os.path.exists(base):
            float_reference = dict(zip(output_names, ort_session(base, 1).run(output_names, feeds)))
    for t in threads_list:
        row = {"model": name, "threads": t, "ok": True}
        session = ort_session(path, t)
        row["ort_ms"] = time_ort(session, feeds, seconds, min_runs)
        del session
        try:
            ours = webnn_run(binary, path, input_files, shape_args, t, os.path.join(work, name, f"out-t{t}"),
                             output_names)
            if variant == "int8":
                top1 = model.get("top1", False)
                ok, detail, failures = check_int8(reference, ours, float_reference, steps, top1)
                summary = "int8: " + detail
                if not ok:
                    if unfused is None:
                        unfused = ort_unfused_reference(path, feeds, output_names, os.path.join(work, name, "ort"))
                    unfused_reference, note = unfused
                    if unfused_reference is not None:
                        first_failures = failures
                        ok, unfused_detail, failures = check_int8(unfused_reference, ours, float_reference, steps,
                                                                  top1)
                        log(f"{name} threads={t}: int8 check vs ORT: {detail} FAIL; vs ORT with QLinearSoftmax "
                            f"unfused ({note}): {unfused_detail} {'ok' if ok else 'FAIL'}")
                        for f in first_failures:
                            log(f"  vs ORT: {f}")
                        summary = "int8 vs ORT, QLinearSoftmax unfused: " + unfused_detail
                if not ok:
                    summary = "MISMATCH " + summary
                    # How far ORT is from itself: its unoptimized graph (the QDQ float ops as
                    # written) against its fused kernels. Where that too is far below the
                    # threshold, small rounding differences are amplified by the model, and
                    # the error against the float32 model is the informative measure.
                    if self_check is None:
                        plain = dict(zip(output_names, ort_session(path, 1, optimize=False).run(output_names, feeds)))
                        self_check = check_int8(reference, plain, None, steps, False)[1]
                    log(f"{name} threads={t}: ONNX Runtime against itself (no graph optimizations vs all): "
                        f"{self_check}")
            else:
                # float16 variants: the float16 tolerance, also where inputs and outputs stay float32.
                ok, worst, failures = compare_outputs(reference, ours, 1e-2 if variant == "float16" else None)
                summary = f"ok (max rel err {worst:.1e})"
            row["check"] = summary if ok or variant == "int8" else "MISMATCH"
            if not ok:
                row["ok"] = False
                for f in failures:
                    log(f"MISMATCH {name} threads={t}: {f}")
            row["ours_ms"] = webnn_bench(binary, path, input_files, shape_args, t, seconds, min_runs)["median_ms"]
        except WebnnError as e:
            row["ok"] = False
            row["check"] = f"ERROR webnn: {e}"
            log(f"ERROR {name} threads={t}: {e}")
        rows.append(row)
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", required=True, help="directory of .onnx models (get_models.py --out)")
    ap.add_argument("--threads", type=parse_threads, default=[1, 2], help="comma-separated thread counts")
    ap.add_argument("--seconds", type=float, default=3.0, help="measuring time per model, runtime and threads")
    ap.add_argument("--min-runs", type=int, default=5)
    ap.add_argument("--only", default=None, help="comma-separated model names")
    ap.add_argument("--webnn", default=None, help="the webnn binary (default: target/release/webnn)")
    ap.add_argument("--keep", default=None, help="keep inputs and outputs in this directory")
    args = ap.parse_args(argv)

    binary = find_webnn(args.webnn)
    models = load_models(args.models)
    if args.only:
        wanted = set(args.only.split(","))
        models = [m for m in models if m["name"] in wanted]
    if not models:
        sys.exit(f"compare.py: no models in {args.models}")
    work = args.keep or tempfile.mkdtemp(prefix="webnn-compare-")
    rows = []
    try:
        for m in models:
            print(f"== {m['name']}", flush=True)
            rows += compare_model(m, args.threads, binary, work, args.seconds, args.min_runs)
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)
    print()
    print(format_table(rows))
    failed = [r for r in rows if not r["ok"]]
    if failed:
        print(f"\nFAILED: {len(failed)} of {len(rows)} model/thread runs did not match or did not run")
    print(worst_line(rows))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

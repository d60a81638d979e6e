"""Where a model loses time against ONNX Runtime, step by step.

    python3 bench/profile_vs_ort.py --models DIR --only NAME [--threads 1] [--seconds 3]
                                    [--runs 300] [--top 30] [--webnn PATH]

Runs the model (the inputs of compare.py: same manifest, same values) through
  * ONNX Runtime with its own profiler on (`SessionOptions.enable_profiling`): the median
    `*_kernel_time` of every node over --runs runs;
  * `webnn bench` with `WEBNN_PROFILE=all`: the median time of every step of our plan;
then joins the two on the node name: our steps carry the ONNX node's name as their label
(`conv2d+sigmoid+mul [conv_27]`), ORT's layout transformer appends `_nchwc` to the nodes it
rewrites, its QDQ fusions `_token_N`. It prints, slowest excess first, our time, ORT's and
the difference per matched step, and the totals per ORT op type of what did not match (ORT nodes that fused or that we
fused away, e.g. ORT's QuickGelu for a SiLU that our conv step includes). Both profilers add a
little overhead per step, so compare steps, not the totals, with compare.py's medians.
"""

import argparse
import collections
import json
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare  # noqa: E402  (the sibling script: inputs and binary lookup)

STEP = re.compile(r"^\s*([\d.]+)\s+[\d.]+\s+#\d+\s+(\S+)\s+\[([^\]]+)\]\s*(.*)$")


def parse_webnn_profile(text):
    """label -> (ms, op, operands) from `WEBNN_PROFILE=all` output (unlabelled steps dropped)."""
    steps = {}
    for line in text.splitlines():
        m = STEP.match(line)
        if m:
            steps[m.group(3)] = (float(m.group(1)), m.group(2), m.group(4))
    return steps


def parse_ort_profile(events):
    """node name -> (median µs, op type) from ORT's profile JSON events."""
    times, kinds = collections.defaultdict(list), {}
    for e in events:
        if e.get("cat") == "Node" and e.get("name", "").endswith("_kernel_time"):
            name = e["name"][: -len("_kernel_time")]
            times[name].append(e["dur"])
            kinds[name] = e.get("args", {}).get("op_name", "?")
    return {n: (float(np.median(d)), kinds[n]) for n, d in times.items()}


def fused_anchors(model_path):
    """ONNX node name -> the name of the node producing its first input. ORT names a fused
    node after its last member (`relu6_6` for Conv `conv_3` + Clip `relu6_6`), our steps after
    their first (`conv2d+clamp [conv_3]`); this lets the join walk back from one to the other."""
    import onnx
    graph = onnx.load(model_path, load_external_data=False).graph
    producer = {out: node.name for node in graph.node for out in node.output}
    return {node.name: producer.get(node.input[0]) for node in graph.node if node.input}


def ort_base_name(name):
    """The model's node name behind an ORT node name: ORT's layout transformer appends
    `_nchwc`, its QDQ fusions (QLinearConv, ...) `_token_N`."""
    name = re.sub(r"_token_\d+$", "", name)
    return name[: -len("_nchwc")] if name.endswith("_nchwc") else name


def join(ours, ort, anchors=None):
    """(rows, unmatched): rows of (label, our µs, ORT µs, op, operands) for steps whose label
    names an ORT node (with or without `_nchwc` / `_token_N`, or, through `anchors`, the node
    its fused ORT node starts from; a node of that name itself wins over one reached through
    anchors), and ORT's other nodes' µs per op type."""
    by_name = {}
    for exact in (True, False):
        for name, (us, kind) in ort.items():
            base = ort_base_name(name)
            if exact != (base in ours):
                continue
            # Up to three steps back (conv → add → relu, named after the relu).
            for _ in range(3):
                if base in ours or not anchors or anchors.get(base) is None:
                    break
                base = anchors[base]
            by_name.setdefault(base, (us, kind, name))
    rows, used = [], set()
    for label, (ms, op, operands) in ours.items():
        if label in by_name:
            us, _, name = by_name[label]
            used.add(name)
            rows.append((label, ms * 1000.0, us, op, operands))
    unmatched = collections.defaultdict(float)
    for name, (us, kind) in ort.items():
        if name not in used:
            unmatched[kind] += us
    return rows, dict(unmatched)


def ort_profile(path, feeds, threads, runs, work):
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    so.log_severity_level = 3
    so.enable_profiling = True
    so.profile_file_prefix = os.path.join(work, "ort_profile")
    session = ort.InferenceSession(path, sess_options=so, providers=["CPUExecutionProvider"])
    for _ in range(runs):
        session.run(None, feeds)
    with open(session.end_profiling()) as f:
        return parse_ort_profile(json.load(f))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", required=True)
    ap.add_argument("--only", required=True, help="the model's name in the manifest")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--runs", type=int, default=300, help="ORT runs under its profiler")
    ap.add_argument("--top", type=int, default=30)
    ap.add_argument("--webnn")
    args = ap.parse_args(argv)
    model = next((m for m in compare.load_models(args.models) if m["name"] == args.only), None)
    if model is None:
        sys.exit(f"profile_vs_ort.py: no model {args.only!r} in {args.models}")
    binary = compare.find_webnn(args.webnn)
    with tempfile.TemporaryDirectory() as work:
        probe = compare.ort_session(model["path"], 1)
        feeds, cli_args = {}, [model["path"]]
        for i in probe.get_inputs():
            override = model["shapes"].get(i.name)
            shape = compare.resolve_shape(i.shape, override)
            dtype = compare.ORT_TYPES[i.type]
            feeds[i.name] = compare.make_input(model["name"], i.name, dtype, shape, model["inputs"].get(i.name))
            p = os.path.join(work, compare.file_stem(i.name) + ".npy")
            np.save(p, feeds[i.name].astype(np.uint8) if dtype == np.bool_ else feeds[i.name])
            cli_args += ["--input", f"{i.name}={p}", "--shape", f"{i.name}={'x'.join(map(str, shape))}"]
        del probe
        ort = ort_profile(model["path"], feeds, args.threads, args.runs, work)
        env = {**os.environ, "WEBNN_PROFILE": "all"}
        proc = subprocess.run([binary, "bench", *cli_args, "--threads", str(args.threads), "--seconds", str(args.seconds)],
                              capture_output=True, text=True, env=env)
        if proc.returncode != 0:
            sys.exit(f"webnn bench failed: {(proc.stderr or proc.stdout).strip()[-300:]}")
        ours = parse_webnn_profile(proc.stdout + proc.stderr)
    rows, unmatched = join(ours, ort, fused_anchors(model["path"]))
    rows.sort(key=lambda r: r[2] - r[1])
    print(f"{model['name']}, {args.threads} thread(s): {len(rows)} steps matched; "
          f"ours {sum(r[1] for r in rows):.0f} µs, ORT {sum(r[2] for r in rows):.0f} µs on them")
    print(f"{'excess µs':>10} {'ours µs':>8} {'ORT µs':>8}  step")
    for label, us_ours, us_ort, op, operands in rows[: args.top]:
        print(f"{us_ours - us_ort:10.0f} {us_ours:8.0f} {us_ort:8.0f}  {op} [{label}] {operands[:100]}")
    if unmatched:
        print("ORT nodes without a step of ours of the same name (µs per op type): "
              + ", ".join(f"{k} {v:.0f}" for k, v in sorted(unmatched.items(), key=lambda kv: -kv[1])))


if __name__ == "__main__":
    main()

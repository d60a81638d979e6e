"""Tests of the bench scripts: the model generators, compare.py's checks, table and ratios, and
compare.py end to end against a stand-in `webnn` binary that computes with ONNX Runtime.

    python3 -m pytest bench        (or: python3 -m unittest discover bench)

Needs numpy, onnx and onnxruntime; the tests that need a missing package are skipped.
"""

import io
import json
import math
import os
import stat
import sys
import tempfile
import unittest
from contextlib import redirect_stdout

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare  # noqa: E402

try:
    import onnx
    from onnx import TensorProto, helper
    import onnxruntime  # noqa: F401
    HAVE_ONNX = True
except ImportError:
    HAVE_ONNX = False


class CheckOutputs(unittest.TestCase):
    def test_float_within_and_beyond_tolerance(self):
        ref = np.linspace(-5, 5, 100, dtype=np.float32)  # range 10 -> tolerance 1e-3
        ok, rel, _ = compare.compare_output("y", ref, ref + np.float32(5e-4))
        self.assertTrue(ok)
        self.assertAlmostEqual(rel, 5e-5, delta=1e-6)
        ok, rel, msg = compare.compare_output("y", ref, ref + np.float32(2e-3))
        self.assertFalse(ok)
        self.assertIn("> 0.0001", msg)

    def test_shape_dtype_missing_nan(self):
        ref = np.zeros((2, 3), np.float32)
        self.assertFalse(compare.compare_output("y", ref, np.zeros((3, 2), np.float32))[0])
        self.assertFalse(compare.compare_output("y", ref, np.zeros((2, 3), np.float16))[0])
        ok, _, msg = compare.compare_output("a/b", ref, None)
        self.assertFalse(ok)
        self.assertIn("a_b.npy", msg)
        a = np.array([1.0, np.nan, 3.0], np.float32)
        self.assertTrue(compare.compare_output("y", a, a.copy())[0])
        self.assertFalse(compare.compare_output("y", a, np.array([1.0, 2.0, 3.0], np.float32))[0])
        inf = np.array([np.inf, 0.0, 1.0], np.float32)
        self.assertTrue(compare.compare_output("y", inf, inf.copy())[0])
        self.assertFalse(compare.compare_output("y", inf, np.array([-np.inf, 0.0, 1.0], np.float32))[0])
        # A constant output: the scale is its magnitude.
        c = np.full(4, 2.0, np.float32)
        self.assertTrue(compare.compare_output("y", c, c + np.float32(1e-4))[0])
        self.assertFalse(compare.compare_output("y", c, c + np.float32(1e-2))[0])

    def test_integers_and_bools_are_exact(self):
        ref = np.array([1, 2, 3], np.int64)
        self.assertTrue(compare.compare_output("i", ref, ref.copy())[0])
        ok, _, msg = compare.compare_output("i", ref, np.array([1, 2, 4], np.int64))
        self.assertFalse(ok)
        self.assertIn("1 of 3", msg)
        self.assertFalse(compare.compare_output("i", ref, ref.astype(np.int32))[0])
        b = np.array([True, False])
        self.assertTrue(compare.compare_output("b", b, np.array([1, 0], np.uint8))[0])
        self.assertFalse(compare.compare_output("b", b, np.array([1, 1], np.uint8))[0])

    def test_compare_outputs_collects_every_failure(self):
        ref = {"a": np.ones(3, np.float32), "b": np.arange(3, dtype=np.int64), "c": np.ones(1, np.float32)}
        ours = {"a": np.ones(3, np.float32), "b": np.array([0, 1, 3], np.int64)}
        ok, worst, failures = compare.compare_outputs(ref, ours)
        self.assertFalse(ok)
        self.assertEqual(len(failures), 2)


class CheckInt8(unittest.TestCase):
    """Issue 12's accuracy rule for quantized variants."""

    def test_within_one_step_top1_and_error_against_float(self):
        step = 0.5
        ref = {"logits": np.array([[0.0, 1.0, 2.0, 3.0]], np.float32)}
        fp32 = {"logits": np.array([[0.1, 1.1, 2.1, 3.1]], np.float32)}
        close = {"logits": np.array([[0.5, 1.0, 2.0, 3.0]], np.float32)}
        ok, summary, failures = compare.check_int8(ref, close, None, {"logits": step}, True)
        self.assertTrue(ok, failures)
        self.assertIn("100.000% in 1 step", summary)
        self.assertIn("top-1 same", summary)
        # Two steps off in one element of four: 75 % within one step.
        far = {"logits": np.array([[1.0, 1.0, 2.0, 3.0]], np.float32)}
        ok, summary, failures = compare.check_int8(ref, far, None, {"logits": step}, False)
        self.assertFalse(ok)
        self.assertIn("75.000% within one step", failures[0])
        # A different arg-max fails only where the output is a classifier's.
        swapped = {"logits": np.array([[0.0, 1.0, 2.5, 2.5]], np.float32)}
        self.assertTrue(compare.check_int8(ref, swapped, None, {"logits": step}, False)[0])
        ok, _, failures = compare.check_int8(ref, swapped, None, {"logits": step}, True)
        self.assertFalse(ok)
        self.assertIn("arg-max 2", failures[0])
        # Error against the float32 model: ORT's is 0.1 / 3 of the range; ours may be 1.5x that.
        worse = {"logits": np.array([[0.0, 1.0, 2.0, 3.0 + 0.4]], np.float32)}
        ok, _, failures = compare.check_int8(ref, worse, fp32, {}, False)
        self.assertFalse(ok)
        self.assertIn("error against the float32 model", failures[0])
        self.assertTrue(compare.check_int8(ref, ref, fp32, {}, False)[0])

    @unittest.skipUnless(HAVE_ONNX, "needs onnx")
    def test_output_steps_read_the_final_dequantize(self):
        q = helper.make_tensor_value_info("q", TensorProto.UINT8, [2])
        y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])
        scale = helper.make_tensor("s", TensorProto.FLOAT, [], [0.25])
        zp = helper.make_tensor("z", TensorProto.UINT8, [], [3])
        graph = helper.make_graph([helper.make_node("DequantizeLinear", ["q", "s", "z"], ["y"])], "g", [q], [y],
                                  [scale, zp])
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "m.onnx")
            onnx.save(helper.make_model(graph), path)
            self.assertEqual(compare.output_steps(path), {"y": 0.25})


@unittest.skipUnless(HAVE_ONNX, "needs onnx and onnxruntime")
class UnfusedQLinearSoftmax(unittest.TestCase):
    """compare.py's second int8 reference: ONNX Runtime fuses DequantizeLinear -> Softmax ->
    QuantizeLinear into QLinearSoftmax, whose kernel multiplies by floor(1 / y_scale) = 254 for
    y_scale = 1/255; with those nodes unfused ORT computes the softmax as the spec does."""

    X_SCALE, X_ZERO, Y_SCALE = np.float32(0.05), 128, np.float32(1 / 255)

    def model(self, opset, shape, axis):
        inits = [onnx.numpy_helper.from_array(np.array(v, t), n) for v, t, n in
                 [(self.X_SCALE, np.float32, "xs"), (self.X_ZERO, np.uint8, "xz"),
                  (self.Y_SCALE, np.float32, "ys"), (0, np.uint8, "yz")]]
        nodes = [helper.make_node("DequantizeLinear", ["x", "xs", "xz"], ["xf"]),
                 helper.make_node("Softmax", ["xf"], ["sf"], axis=axis),
                 helper.make_node("QuantizeLinear", ["sf", "ys", "yz"], ["y"])]
        graph = helper.make_graph(nodes, "qdq_softmax", [helper.make_tensor_value_info("x", TensorProto.UINT8, shape)],
                                  [helper.make_tensor_value_info("y", TensorProto.UINT8, shape)], inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
        model.ir_version = 8
        onnx.checker.check_model(model)
        return model

    def spec(self, x, axis, coerce):
        """The spec's arithmetic: dequantize (float32), softmax in float64 rounded to float32 (over
        the dimensions from AXIS on where COERCE, as Softmax before opset 13), quantize: x / y_scale
        in float32, rounded half to even, clamped."""
        v = ((x.astype(np.int32) - self.X_ZERO) * self.X_SCALE).astype(np.float64)
        if coerce:
            v = v.reshape(int(np.prod(x.shape[:axis])), -1)
        e = np.exp(v - v.max(axis=-1 if coerce else axis, keepdims=True))
        softmax = (e / e.sum(axis=-1 if coerce else axis, keepdims=True)).astype(np.float32).reshape(x.shape)
        return np.clip(np.rint(softmax / self.Y_SCALE), 0, 255).astype(np.uint8)

    def test_unfused_reference_is_the_spec_and_the_fused_kernel_is_one_step_low(self):
        import onnxruntime as ort
        # Opset 17 (softmax along one axis, not the last) and opset 12 (input coerced to 2-D at
        # the axis: about half the outputs would differ if the rewrite lost that).
        for opset, shape, axis in [(17, [64, 16, 8], 1), (12, [512, 4, 4], 1)]:
            with self.subTest(opset=opset), tempfile.TemporaryDirectory() as d:
                path = os.path.join(d, "m.onnx")
                onnx.save(self.model(opset, shape, axis), path)
                x = np.random.default_rng(opset).integers(0, 256, shape).astype(np.uint8)
                fused = compare.ort_session(path, 1, save_optimized=os.path.join(d, "opt.onnx")).run(None, {"x": x})[0]
                if not any(n.op_type == "QLinearSoftmax" for n in onnx.load(os.path.join(d, "opt.onnx")).graph.node):
                    self.skipTest(f"ONNX Runtime {ort.__version__} does not fuse DequantizeLinear -> Softmax -> "
                                  "QuantizeLinear into QLinearSoftmax: nothing to unfuse, the kernel's floor untested")
                unfused, note = compare.ort_unfused_reference(path, {"x": x}, ["y"], os.path.join(d, "ort"))
                self.assertIn("floor(1/y_scale) = 254, not 1/y_scale = 254.99998", note)
                spec = self.spec(x, axis, coerce=opset < 13)
                # ORT's float32 softmax is within a few ulps of the float64 one rounded to float32;
                # a quotient (at most 255) moves by ~1e-5 at most, so it crosses a rounding boundary
                # for about 1 element in 10^5: none of these 8,192 is expected to differ.
                self.assertEqual(int(np.count_nonzero(unfused["y"] != spec)), 0)
                # ORT's fused kernel: Y = floor(1.0f / y_scale) = 254 instead of 255 puts about 6 %
                # of these outputs one step low, and none high.
                diff = fused.astype(np.int32) - spec
                self.assertEqual(set(np.unique(diff).tolist()), {-1, 0})
                self.assertGreater(int(np.count_nonzero(diff)), x.size // 100)


class TableAndRatios(unittest.TestCase):
    ROWS = [
        {"model": "resnet50", "threads": 1, "ort_ms": 40.0, "ours_ms": 50.0, "check": "ok", "ok": True},
        {"model": "resnet50", "threads": 2, "ort_ms": 22.0, "ours_ms": 33.0, "check": "ok", "ok": True},
        {"model": "mobilenetv2", "threads": 1, "ort_ms": 4.8, "ours_ms": 3.6, "check": "ok", "ok": True},
    ]

    def test_ratio_and_worst(self):
        self.assertAlmostEqual(compare.ratio(self.ROWS[0]), 1.25)
        self.assertEqual(compare.worst_line(self.ROWS), "worst ratio 1.50 (resnet50, 2)")
        failed = self.ROWS + [{"model": "bert", "threads": 1, "ort_ms": 9.0, "check": "ERROR", "ok": False}]
        self.assertTrue(math.isinf(compare.ratio(failed[-1])))
        self.assertEqual(compare.worst_line(failed), "worst ratio inf (bert, 1)")
        self.assertEqual(compare.worst_line([]), "worst ratio n/a (no models)")

    def test_table(self):
        table = compare.format_table(self.ROWS).splitlines()
        self.assertEqual(table[0].split(), ["model", "threads", "ORT", "ms", "webnn", "ms", "ratio", "outputs"])
        self.assertTrue(set(table[1]) <= {"-", " "})
        self.assertEqual(table[2].split(), ["resnet50", "1", "40.000", "50.000", "1.25", "ok"])
        self.assertEqual(table[4].split(), ["mobilenetv2", "1", "4.800", "3.600", "0.75", "ok"])
        self.assertEqual(len({len(line) for line in table[:2]}), 1, "header and rule align")

    def test_threads_and_names(self):
        self.assertEqual(compare.parse_threads("1,2,4"), [1, 2, 4])
        for bad in ["", "0", "a,b", "1,-2"]:
            with self.assertRaises(Exception):
                compare.parse_threads(bad)
        # Same examples as the Rust file_stem tests.
        self.assertEqual(compare.file_stem("output/0:0"), "output_0_0")
        self.assertEqual(compare.file_stem("a b.c-d_e"), "a_b.c-d_e")
        self.assertEqual(compare.file_stem(".."), "_..")
        self.assertEqual(compare.file_stem(""), "_")
        self.assertEqual(compare.file_stem("é"), "_")
        self.assertEqual(compare.fnv1a("a"), 0xAF63DC4C8601EC8C)

    def test_inputs_are_deterministic(self):
        a = compare.make_input("m", "x", np.float32, [2, 3])
        self.assertTrue(np.array_equal(a, compare.make_input("m", "x", np.float32, [2, 3])))
        self.assertFalse(np.array_equal(a, compare.make_input("m", "y", np.float32, [2, 3])))
        self.assertTrue(((a >= -1) & (a < 1)).all())
        ids = compare.make_input("m", "ids", np.int64, [1, 500], {"low": 1000, "high": 2000})
        self.assertEqual(ids.dtype, np.int64)
        self.assertTrue(((ids >= 1000) & (ids < 2000)).all())
        self.assertTrue((compare.make_input("m", "mask", np.int64, [4], {"value": 1}) == 1).all())
        self.assertEqual(compare.make_input("m", "b", np.bool_, [3]).dtype, np.bool_)
        self.assertTrue((compare.make_input("m", "i", np.int32, [100]) < 10).all())
        self.assertEqual(compare.resolve_shape([None, "seq", 3]), [1, 1, 3])
        self.assertEqual(compare.resolve_shape([None, 3], [2, 3]), [2, 3])


FAKE_WEBNN = r'''#!{python}
# A stand-in for the webnn binary: `run` computes with ONNX Runtime, `bench` prints a JSON
# line; FAKE_MODE=noisy perturbs the outputs, FAKE_MODE=fail fails.
import json, os, sys
import numpy as np
sys.path.insert(0, {bench!r})
import compare
args = sys.argv[1:]
mode = os.environ.get("FAKE_MODE", "exact")
with open(os.environ["FAKE_LOG"], "a") as log:
    log.write(json.dumps(args) + "\n")
if mode == "fail":
    sys.exit("webnn: error: cannot build model: [conv1] conv2d: cannot compile for the CPU")
cmd, model = args[0], args[1]
opts = {{}}
i = 2
while i < len(args):
    if args[i] == "--json":
        i += 1
        continue
    opts.setdefault(args[i], []).append(args[i + 1])
    i += 2
if cmd == "run":
    import onnxruntime as ort
    s = ort.InferenceSession(model, providers=["CPUExecutionProvider"])
    feeds = {{spec.split("=", 1)[0]: np.load(spec.split("=", 1)[1]) for spec in opts.get("--input", [])}}
    for o, v in zip(s.get_outputs(), s.run(None, feeds)):
        if mode == "noisy" and v.dtype.kind == "f":
            v = v + np.float32(0.01) * (v.max() - v.min() + 1)
        np.save(os.path.join(opts["--output-dir"][0], compare.file_stem(o.name) + ".npy"), v)
elif cmd == "bench":
    print("progress noise")
    print(json.dumps({{"build_ms": 1.0, "median_ms": float(os.environ.get("FAKE_MEDIAN", "0.5")),
                      "p10_ms": 0.4, "p90_ms": 0.6, "runs": 5, "peak_rss_bytes": 1}}))
'''


@unittest.skipUnless(HAVE_ONNX, "needs onnx and onnxruntime")
class ProfileJoin(unittest.TestCase):
    """profile_vs_ort.py's parsing of both profiles and their join on node names."""

    def test_join_on_labels_and_nchwc_names(self):
        import profile_vs_ort as p
        ours = p.parse_webnn_profile(
            "webnn profile: 3 steps\n"
            "     0.483    5.1  #7 conv2d+sigmoid+mul [conv_27] float32[1x16x112x112] -> float32[1x96x112x112]\n"
            "     0.100    1.0  #8 gemm [gemm_1] float32[1x8] -> float32[1x4]\n"
            "     0.050    0.5  #9 reshape float32[4] -> float32[2x2]\n")
        self.assertEqual(set(ours), {"conv_27", "gemm_1"})
        self.assertAlmostEqual(ours["conv_27"][0], 0.483)
        events = [{"cat": "Node", "name": "conv_27_nchwc_kernel_time", "dur": d, "args": {"op_name": "Conv"}} for d in (160, 165, 170)]
        events += [{"cat": "Node", "name": "gemm_1_kernel_time", "dur": 90, "args": {"op_name": "Gemm"}},
                   {"cat": "Node", "name": "silu/QuickGeluFusion/_kernel_time", "dur": 198, "args": {"op_name": "QuickGelu"}},
                   {"cat": "Session", "name": "model_run", "dur": 5000}]
        ort = p.parse_ort_profile(events)
        self.assertEqual(ort["conv_27_nchwc"], (165.0, "Conv"))
        rows, unmatched = p.join(ours, ort)
        self.assertEqual(sorted((r[0], round(r[1]), round(r[2])) for r in rows), [("conv_27", 483, 165), ("gemm_1", 100, 90)])
        self.assertEqual(unmatched, {"QuickGelu": 198.0})

    def test_join_strips_qdq_token_names_and_prefers_the_node_itself(self):
        # ORT names its QDQ fusions `conv_3_token_1`; the QLinearAdd after conv_3 reaches
        # conv_3 through the anchors (add → dequantize → quantize → conv) but must not take
        # its place.
        import profile_vs_ort as p
        ours = {"conv_3": (0.5, "conv2d+quantizeLinear(int8)", ""), "add_4": (0.1, "add", "")}
        ort = {"add_9": (17.0, "QLinearAdd"), "conv_3_token_1": (450.0, "QLinearConv")}
        anchors = {"add_9": "dq_8", "dq_8": "q_7", "q_7": "conv_3"}
        rows, unmatched = p.join(ours, ort, anchors)
        self.assertEqual([(r[0], r[2]) for r in rows], [("conv_3", 450.0)])
        self.assertEqual(unmatched, {"QLinearAdd": 17.0})


class CompareEndToEnd(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        d = self.tmp.name
        self.models = os.path.join(d, "models")
        os.makedirs(self.models)
        # y = relu(x + c) with a free batch dimension, plus an int64 argmax output.
        c = onnx.numpy_helper.from_array(np.linspace(-1, 1, 4).astype(np.float32), "c")
        nodes = [
            helper.make_node("Add", ["x", "c"], ["s"]),
            helper.make_node("Relu", ["s"], ["out/relu"]),
            helper.make_node("ArgMax", ["s"], ["idx"], axis=1, keepdims=0),
        ]
        graph = helper.make_graph(
            nodes, "tiny",
            [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 4]),
             helper.make_tensor_value_info("ids", TensorProto.INT64, [3])],
            [helper.make_tensor_value_info("out/relu", TensorProto.FLOAT, ["batch", 4]),
             helper.make_tensor_value_info("idx", TensorProto.INT64, ["batch"])],
            initializer=[c],
        )
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
        model.ir_version = 8
        onnx.checker.check_model(model)
        onnx.save(model, os.path.join(self.models, "tiny.onnx"))
        with open(os.path.join(self.models, "models.json"), "w") as f:
            json.dump({"models": [{"name": "tiny", "file": "tiny.onnx", "shapes": {"x": [2, 4]},
                                   "inputs": {"ids": {"low": 5, "high": 6}}}]}, f)
        self.fake = os.path.join(d, "webnn")
        with open(self.fake, "w") as f:
            f.write(FAKE_WEBNN.format(python=sys.executable, bench=os.path.dirname(os.path.abspath(__file__))))
        os.chmod(self.fake, os.stat(self.fake).st_mode | stat.S_IEXEC)
        self.log = os.path.join(d, "calls.log")
        os.environ["FAKE_LOG"] = self.log

    def tearDown(self):
        for k in ["FAKE_MODE", "FAKE_MEDIAN", "FAKE_LOG"]:
            os.environ.pop(k, None)
        self.tmp.cleanup()

    def run_compare(self, mode):
        os.environ["FAKE_MODE"] = mode
        os.environ["FAKE_MEDIAN"] = "0.25"
        out = io.StringIO()
        with redirect_stdout(out):
            code = compare.main(["--models", self.models, "--threads", "1,2", "--seconds", "0.05",
                                 "--min-runs", "2", "--webnn", self.fake,
                                 "--keep", os.path.join(self.tmp.name, "work")])
        return code, out.getvalue().splitlines()

    def test_matching_outputs(self):
        code, lines = self.run_compare("exact")
        self.assertEqual(code, 0, "\n".join(lines))
        self.assertTrue(lines[-1].startswith("worst ratio "), lines[-1])
        self.assertRegex(lines[-1], r"^worst ratio \d+\.\d\d \(tiny, [12]\)$")
        rows = [line for line in lines if line.startswith("tiny ")]
        self.assertEqual(len(rows), 2)
        self.assertIn("ok (max rel err", rows[0])
        with open(self.log) as f:
            calls = [json.loads(line) for line in f]
        run = next(c for c in calls if c[0] == "run")
        self.assertIn("--shape", run)
        self.assertEqual(run[run.index("--shape") + 1], "x=2x4", "free dimensions are fixed")
        self.assertEqual([c[0] for c in calls], ["run", "bench", "run", "bench"])
        bench = calls[1]
        self.assertEqual(bench[bench.index("--threads") + 1], "1")
        self.assertIn("--json", bench)
        inputs = [bench[i + 1] for i, a in enumerate(bench) if a == "--input"]
        self.assertEqual(sorted(s.split("=")[0] for s in inputs), ["ids", "x"])
        ids = np.load(next(s.split("=", 1)[1] for s in inputs if s.startswith("ids=")))
        self.assertTrue((ids == 5).all())

    def test_mismatch_fails_loudly(self):
        code, lines = self.run_compare("noisy")
        self.assertEqual(code, 1)
        self.assertTrue(any(line.startswith("MISMATCH tiny threads=1: output 'out/relu'") for line in lines), lines)
        self.assertTrue(any(line.startswith("FAILED:") for line in lines))
        self.assertTrue(lines[-1].startswith("worst ratio"))

    def test_engine_errors_count_as_inf(self):
        code, lines = self.run_compare("fail")
        self.assertEqual(code, 1)
        self.assertIn("cannot compile for the CPU", "\n".join(lines))
        self.assertRegex(lines[-1], r"^worst ratio inf \(tiny, [12]\)$")

    def test_without_manifest_every_onnx_file_is_used(self):
        os.remove(os.path.join(self.models, "models.json"))
        models = compare.load_models(self.models)
        self.assertEqual([(m["name"], m["shapes"]) for m in models], [("tiny", {})])


@unittest.skipUnless(HAVE_ONNX, "needs onnx and onnxruntime")
class GeneratedModels(unittest.TestCase):
    # torchvision's parameter counts minus BatchNorm's 2 per channel plus 1 bias per channel.
    EXPECTED_PARAMETERS = {
        "mobilenetv2": 3_504_872 - 17_056,
        "resnet50": 25_557_032 - 26_560,
        "squeezenet1_1": 1_235_496,
        "efficientnet_b0": 5_288_548 - 21_008,
    }

    def test_models_are_valid_and_run(self):
        import cnn_models
        import onnxruntime as ort
        x = np.random.default_rng(0).uniform(-1, 1, (1, 3, 224, 224)).astype(np.float32)
        for name, make in cnn_models.MODELS.items():
            with self.subTest(name):
                model = make()
                onnx.checker.check_model(model, full_check=True)
                self.assertEqual(cnn_models.parameter_count(model), self.EXPECTED_PARAMETERS[name])
                self.assertEqual(model.opset_import[0].version, 17)
                s = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
                (y,) = s.run(None, {"input": x})
                self.assertEqual(y.shape, (1, 1000))
                self.assertTrue(np.isfinite(y).all())
                self.assertGreater(float(y.max() - y.min()), 1e-3, "outputs are not constant")

    def test_generation_is_reproducible(self):
        import cnn_models
        self.assertEqual(cnn_models.squeezenet1_1().SerializeToString(),
                         cnn_models.squeezenet1_1().SerializeToString())

    def test_generators_and_manifest_entries(self):
        import get_models
        names = [n for m in get_models.generator_modules() for n in m.MODELS]
        self.assertEqual(len(names), len(set(names)), "model names are unique")
        for module in get_models.generator_modules()[1:]:
            self.assertEqual(set(module.MANIFEST), set(module.MODELS), module.__name__)

    def test_manifest_merges(self):
        import get_models
        with tempfile.TemporaryDirectory() as d:
            open(os.path.join(d, "a.onnx"), "w").close()
            open(os.path.join(d, "b.onnx"), "w").close()
            get_models.update_manifest(d, [{"name": "a", "file": "a.onnx"}, {"name": "gone", "file": "gone.onnx"}])
            kept = get_models.update_manifest(d, [{"name": "b", "file": "b.onnx", "shapes": {"x": [1]}}])
            self.assertEqual([m["name"] for m in kept], ["a", "b"])
            self.assertEqual(compare.load_models(d)[1]["shapes"], {"x": [1]})

    def test_find_model_in_a_package_tree(self):
        import get_models
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(os.path.join(d, "pkg", "models", "v1"))
            open(os.path.join(d, "pkg", "models", "v1", "model.onnx"), "w").close()
            self.assertTrue(get_models.find_model(d, "pkg/models/*/model.onnx").endswith("v1/model.onnx"))
            with self.assertRaises(FileNotFoundError) as e:
                get_models.find_model(d, "pkg/other.onnx")
            self.assertIn("pkg/models/v1/model.onnx", str(e.exception))


@unittest.skipUnless(HAVE_ONNX, "needs onnx and onnxruntime")
class GeneratedTransformersAndDetectors(unittest.TestCase):
    """The models of transformer_models.py and detector_models.py: valid, opset 17, the reference
    parameter counts, and ONNX Runtime runs them (inputs as compare.py makes them from the
    manifest entry) to finite outputs of the declared shape that are not constant."""

    # torchvision vit_b_16; bert-base-uncased without its pooler (109,482,240 - 768 * 768 - 768);
    # Ultralytics "YOLOv8n summary (fused): ... 3151904 parameters" (the DFL's 16 weights
    # included) plus the decode's constants: anchor points [1, 2, 2100], strides [1, 2100] and
    # Resize's 4 scales; UNet: its convolutions.
    @staticmethod
    def unet_parameters():
        conv = lambda cin, cout, k: cin * cout * k * k + cout  # noqa: E731
        n, cin = 0, 3
        for w in [32, 64, 128, 256]:
            n += conv(cin, w, 3) + conv(w, w, 3)
            cin = w
        n += conv(256, 512, 3) + conv(512, 512, 3)
        for w in [256, 128, 64, 32]:
            n += conv(2 * w, w, 2) + conv(2 * w, w, 3) + conv(w, w, 3)  # ConvTranspose 2x2, double conv
        return n + conv(32, 2, 1)

    EXPECTED = {
        "vit_b16": (86_567_656, {"logits": (1, 1000)}),
        "bert_base_128": (108_891_648, {"last_hidden_state": (1, 128, 768)}),
        "bert_base_384": (108_891_648, {"last_hidden_state": (1, 384, 768)}),
        "yolov8n": (3_151_904 + 2 * 2100 + 2100 + 4, {"output0": (1, 84, 2100)}),
        "unet": (None, {"logits": (1, 2, 256, 256)}),
    }

    def check_module(self, module, check_outputs):
        """Every model of MODULE; CHECK_OUTPUTS(name, {output name: array}) checks more."""
        import onnxruntime as ort
        for name, make in module.MODELS.items():
            with self.subTest(name):
                model = make()
                onnx.checker.check_model(model, full_check=True)
                self.assertEqual(model.opset_import[0].version, 17)
                params, shapes = self.EXPECTED[name]
                self.assertEqual(module.parameter_count(model), params or self.unet_parameters())
                spec = module.MANIFEST[name]
                s = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
                del model
                feeds = {}
                for i in s.get_inputs():
                    shape = compare.resolve_shape(i.shape, spec["shapes"].get(i.name))
                    self.assertEqual(shape, i.shape, "the manifest's shapes are the declared ones")
                    feeds[i.name] = compare.make_input(name, i.name, compare.ORT_TYPES[i.type], shape,
                                                       spec["inputs"].get(i.name))
                outputs = dict(zip([o.name for o in s.get_outputs()], s.run(None, feeds)))
                self.assertEqual({k: v.shape for k, v in outputs.items()}, shapes)
                for y in outputs.values():
                    self.assertEqual(y.dtype, np.float32)
                    self.assertTrue(np.isfinite(y).all())
                    self.assertGreater(float(y.max() - y.min()), 1e-2, "outputs are not constant")
                    self.assertLess(float(np.abs(y).max()), 1e4)
                check_outputs(name, outputs)

    def test_transformers(self):
        import transformer_models

        def check(name, outputs):
            if name.startswith("bert"):
                h = outputs["last_hidden_state"][0]
                # LayerNorm'd tokens that still differ from one another (not one repeated vector).
                self.assertAlmostEqual(float(h.std()), 1.0, delta=0.2)
                self.assertGreater(float(h.var(axis=0).mean() / h.var()), 0.05, "tokens are distinct")
            else:
                self.assertGreater(float(outputs["logits"].std()), 0.1)

        self.check_module(transformer_models, check)

    def test_detectors(self):
        import detector_models

        def check(name, outputs):
            if name == "yolov8n":
                y = outputs["output0"][0]
                boxes, scores = y[:4], y[4:]
                self.assertTrue(((scores > 0) & (scores < 1)).all())
                self.assertGreater(float(scores.std()), 0.02, "class scores are not all alike")
                self.assertTrue((boxes[2:] > 0).all(), "widths and heights are positive")
                # Centres within 15 bins of the largest stride from the image.
                self.assertTrue((boxes[:2] > -15 * 32).all() and (boxes[:2] < 320 + 15 * 32).all())
            else:
                self.assertGreater(float(outputs["logits"].std()), 0.1)

        self.check_module(detector_models, check)

    def test_generation_is_reproducible(self):
        import detector_models
        import transformer_models
        for make in [detector_models.yolov8n, lambda: transformer_models.vit_b16(layers=1),
                     lambda: transformer_models.bert_base(16, layers=1)]:
            self.assertEqual(make().SerializeToString(), make().SerializeToString())

    def test_bert_sequence_lengths_share_weights(self):
        import transformer_models
        a, b = transformer_models.bert_base(8, layers=1), transformer_models.bert_base(24, layers=1)
        weights = lambda m: [onnx.numpy_helper.to_array(t) for t in m.graph.initializer  # noqa: E731
                             if t.data_type == TensorProto.FLOAT and len(t.dims) > 1]
        for x, y in zip(weights(a), weights(b)):
            self.assertTrue(np.array_equal(x, y))

    def test_yolo_anchors(self):
        import detector_models
        points, strides = detector_models.yolo_anchors(64, [8, 16, 32])
        self.assertEqual(points.shape, (1, 2, 64 + 16 + 4))
        self.assertEqual(points[0, :, 0].tolist(), [0.5, 0.5])
        self.assertEqual(points[0, :, 1].tolist(), [1.5, 0.5], "x varies fastest")
        self.assertEqual(points[0, :, 8].tolist(), [0.5, 1.5])
        self.assertEqual(strides[0, [0, 63, 64, 79, 80, 83]].tolist(), [8, 8, 16, 16, 32, 32])


if __name__ == "__main__":
    unittest.main()

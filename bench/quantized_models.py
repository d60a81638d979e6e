"""int8 and float16 variants of the float32 bench models, made with ONNX Runtime's quantizer
and onnxconverter-common's float16 converter (issue 12's table).

    python3 quantized_models.py DIR     (DIR already holds the float32 models and models.json)

Variants (each written as DIR/NAME.onnx, its manifest entry copied from its base model with
a "variant" field that compare.py reads for the accuracy check):
  * static QDQ int8 (`quantize_static`, QuantFormat.QDQ, uint8 activations, int8 per-channel
    weights, MinMax calibration on CALIBRATION_SAMPLES inputs drawn like compare.py's, seeded):
    the CNNs and the detector, and BERT-base at 128 as a QDQ transformer;
  * dynamic int8 (`quantize_dynamic`, int8 weights: DynamicQuantizeLinear + MatMulInteger):
    the transformers;
  * float16 (`onnxconverter_common.float16.convert_float_to_float16`), with float16 inputs and
    outputs (keep_io_types=False, "_fp16") and with float32 ones (keep_io_types=True,
    "_fp16io32"; FLOAT16_IO32).

Nothing is downloaded here: the quantizer ships in the onnxruntime wheel, the converter in the
onnxconverter-common wheel (both from PyPI, installed by the caller).
"""

import json
import os
import sys

import numpy as np

# base model -> variants to make.
STATIC = ["resnet50", "mobilenetv2", "efficientnet_b0", "yolov8n", "bert_base_128"]
DYNAMIC = ["paraphrase-minilm-l3-v2", "bert_base_128"]
FLOAT16 = ["mobilenetv2", "paraphrase-minilm-l3-v2", "resnet50"]
# With float32 inputs and outputs kept: not MiniLM, whose converted graph ONNX Runtime rejects
# (onnxconverter-common 1.16 leaves a Mul with a float32 and a float16 operand).
FLOAT16_IO32 = ["mobilenetv2", "resnet50"]
CALIBRATION_SAMPLES = 8
# Whose output is class logits (compare.py checks that the arg-max agrees).
CLASSIFIERS = {"resnet50", "mobilenetv2", "efficientnet_b0"}


def fnv1a(text):
    h = 0xCBF29CE484222325
    for b in text.encode():
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def model_inputs(session, spec, seed_text):
    """One set of inputs for SESSION drawn as compare.py draws them (floats in [-1, 1),
    integers in the manifest's range)."""
    rng = np.random.default_rng(fnv1a(seed_text))
    feeds = {}
    types = {"tensor(float)": np.float32, "tensor(int64)": np.int64, "tensor(int32)": np.int32,
             "tensor(float16)": np.float16}
    for inp in session.get_inputs():
        shape = spec.get("shapes", {}).get(inp.name) or [d if isinstance(d, int) else 1 for d in inp.shape]
        dtype = types[inp.type]
        rule = spec.get("inputs", {}).get(inp.name, {})
        if "value" in rule:
            feeds[inp.name] = np.full(shape, rule["value"], dtype=dtype)
        elif np.issubdtype(dtype, np.integer):
            feeds[inp.name] = rng.integers(rule.get("low", 0), rule.get("high", 10), size=shape).astype(dtype)
        else:
            feeds[inp.name] = rng.uniform(-1, 1, size=shape).astype(dtype)
    return feeds


def static_int8(src, dest, spec):
    import onnxruntime as ort
    from onnxruntime.quantization import (CalibrationDataReader, QuantFormat, QuantType,
                                          quantize_static)

    session = ort.InferenceSession(src, providers=["CPUExecutionProvider"])
    samples = [model_inputs(session, spec, f"{os.path.basename(src)}/calibration/{i}")
               for i in range(CALIBRATION_SAMPLES)]

    class Reader(CalibrationDataReader):
        def __init__(self):
            self.it = iter(samples)

        def get_next(self):
            return next(self.it, None)

    quantize_static(src, dest, Reader(), quant_format=QuantFormat.QDQ, per_channel=True,
                    activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8)


def dynamic_int8(src, dest):
    from onnxruntime.quantization import QuantType, quantize_dynamic
    quantize_dynamic(src, dest, weight_type=QuantType.QInt8)


def float16(src, dest, keep_io_types):
    import onnx
    from onnxconverter_common import float16 as f16
    # Cast nodes stay float32 (with casts around them): the converter rewrites their output
    # type but not their `to` attribute, which ONNX Runtime then rejects.
    block = list(f16.DEFAULT_OP_BLOCK_LIST) + ["Cast"]
    model = f16.convert_float_to_float16(onnx.load(src), keep_io_types=keep_io_types, op_block_list=block)
    onnx.save(model, dest)


def variants():
    """(name, base, kind, maker(src, dest, spec))."""
    out = []
    for base in STATIC:
        out.append((f"{base}_int8qdq", base, "int8", lambda s, d, spec: static_int8(s, d, spec)))
    for base in DYNAMIC:
        out.append((f"{base}_int8dyn", base, "int8", lambda s, d, spec: dynamic_int8(s, d)))
    for base in FLOAT16:
        out.append((f"{base}_fp16", base, "float16", lambda s, d, spec: float16(s, d, False)))
    for base in FLOAT16_IO32:
        out.append((f"{base}_fp16io32", base, "float16", lambda s, d, spec: float16(s, d, True)))
    return out


def write_variants(out_dir, base_entries):
    """Writes every variant whose base model is in BASE_ENTRIES (name -> manifest entry);
    returns (entries, failures)."""
    entries, failures = [], []
    for name, base, kind, make in variants():
        spec = base_entries.get(base)
        if spec is None:
            failures.append(f"{name}: base model {base} missing")
            continue
        src = os.path.join(out_dir, spec["file"])
        dest = os.path.join(out_dir, name + ".onnx")
        try:
            make(src, dest, spec)
        except Exception as e:  # the quantizer raises many kinds; report and go on
            failures.append(f"{name}: {type(e).__name__}: {e}")
            continue
        entries.append({"name": name, "file": os.path.basename(dest),
                        "source": f"{kind} variant of {base} (quantized_models.py)",
                        "variant": kind, "base": base, "top1": base in CLASSIFIERS, "shapes": spec.get("shapes", {}), "inputs": spec.get("inputs", {})})
        print(f"generated {dest}", flush=True)
    return entries, failures


if __name__ == "__main__":
    out_dir = sys.argv[1]
    with open(os.path.join(out_dir, "models.json")) as f:
        bases = {m["name"]: m for m in json.load(f)["models"]}
    entries, failures = write_variants(out_dir, bases)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from get_models import update_manifest
    update_manifest(out_dir, entries)
    for f in failures:
        print(f"FAILED: {f}", file=sys.stderr)
    sys.exit(1 if failures else 0)

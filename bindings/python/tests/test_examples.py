"""The examples run, print what they say, and type-check with ``mypy --strict`` against the
package's stubs."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

import pytest

from conftest import PACKAGE, shared_path

EXAMPLES = os.path.join(PACKAGE, "examples")


def run(*args: str) -> str:
    out = subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_spec_example() -> None:
    stdout = run(os.path.join(EXAMPLES, "spec_example.py"))
    assert "Output value: [1.0, 1.0, 1.0, 1.0]" in stdout
    assert "compute(): [1.0, 1.0, 1.0, 1.0]" in stdout


def test_tensor_reuse() -> None:
    a, b = 0, 1
    for _ in range(89):
        a, b = b, a + b
    assert f"F_90 = {b}" in run(os.path.join(EXAMPLES, "tensor_reuse.py"))


def test_ort_style() -> None:
    stdout = run(os.path.join(EXAMPLES, "ort_style.py"), shared_path("models", "squeezenet1_1-torchvision.onnx"))
    assert "input input: tensor(float) [1, 3, 224, 224]" in stdout and "top-5 classes:" in stdout


def test_mypy_strict_on_examples(tmp_path: Any) -> None:
    pytest.importorskip("mypy")
    out = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(tmp_path), EXAMPLES],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert "Success: no issues found" in out.stdout

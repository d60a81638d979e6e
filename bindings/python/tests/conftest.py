"""Shared fixtures of the Python binding's tests (run with ``pytest bindings/python/tests``
after ``pip install ./bindings/python``)."""

from __future__ import annotations

import os
import sys
from typing import Iterator

import pytest

import webnn

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE = os.path.dirname(HERE)
REPO = os.path.dirname(os.path.dirname(PACKAGE))
#: The shared material (WPT vectors, models) beside the repository, or $SHARED.
SHARED = os.environ.get("SHARED") or os.path.join(os.path.dirname(REPO), "shared")

# bench/ (model generators, compare.py's output check) and the binding's scripts/.
sys.path.insert(0, os.path.join(REPO, "bench"))
sys.path.insert(0, os.path.join(PACKAGE, "scripts"))


@pytest.fixture
def context() -> Iterator[webnn.MLContext]:
    """A CPU context (every data type, int64 included), destroyed after the test."""
    ctx = webnn.ml.create_context(accelerated=False)
    yield ctx
    ctx.destroy()


def shared_path(*parts: str) -> str:
    """A path under the shared material; the test is skipped (saying why) if it is missing."""
    path = os.path.join(SHARED, *parts)
    if not os.path.exists(path):
        pytest.skip(f"{path} is missing (set SHARED to the shared material's directory)")
    return path

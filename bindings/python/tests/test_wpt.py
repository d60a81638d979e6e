"""The WPT conformance vectors through the Python API (scripts/wpt.py: the Rust harness's
rules and errata): every case passes but the 15 that the README marks notApplicable. With
$WEBNN_PYTHON_WPT_LOG set, the runner's whole output (failures, skips, the summary line) is
written there."""

from __future__ import annotations

import os
from typing import List

import wpt  # bindings/python/scripts/wpt.py

from conftest import shared_path


def test_wpt_vectors() -> None:
    directory = shared_path("wpt")
    lines: List[str] = []
    passed, failed, skipped = wpt.run(directory, log=lines.append)
    log = os.environ.get("WEBNN_PYTHON_WPT_LOG")
    if log:
        with open(log, "w") as f:
            f.write("\n".join(lines) + "\n")
    failures = [line for line in lines if line.startswith("FAIL")]
    assert failures == [], "\n".join(failures[:20])
    assert lines[-1] == "1719 passed, 0 failed, 15 skipped"
    assert (passed, failed, skipped) == (1719, 0, 15)

"""Every bench starts as bench/README.md runs it (``python bench/<name>``): its imports hold.

A bench is a report, not a test, so nothing here times anything; but a bench that no
longer imports (bench/engine_js did, after bench/engine became a folder) is a broken tool.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BENCHES = sorted(path.parent.name for path in (ROOT / "bench").glob("*/__main__.py"))


def test_the_benches_are_found():
    assert {"engine", "engine_js", "sync", "web_latency", "observability"} <= set(BENCHES)


@pytest.mark.parametrize("name", BENCHES)
def test_a_bench_starts_and_explains_itself(name):
    run = subprocess.run([sys.executable, f"bench/{name}", "--help"], cwd=ROOT, capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0, run.stderr
    assert "usage:" in run.stdout

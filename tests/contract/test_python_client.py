"""The Python client openapi-python-client generates from openapi.yaml, unpatched, plays a game to a win.

The client is generated into a temporary folder on every run; ``python_client_play.py``
must pass ``mypy --strict`` against it, then plays through it against a live server.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.contract.tools import OPENAPI

HERE = Path(__file__).resolve().parent
PACKAGE = "solitaire_reflechi_api_client"  # from the spec's title: it must stay a valid package name
BIN = Path(sys.executable).parent


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("client") / "client"
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}  # its ruff post-hooks
    run = subprocess.run([str(BIN / "openapi-python-client"), "generate", "--path", str(OPENAPI),
                          "--output-path", str(out)], env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    assert (out / PACKAGE / "__init__.py").is_file(), sorted(p.name for p in out.iterdir())
    return out


def test_the_play_script_passes_mypy_strict(generated, tmp_path):
    run = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(tmp_path / "mypy"),
                          str(HERE / "python_client_play.py")],
                         env={**os.environ, "MYPYPATH": str(generated)}, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr


# The contract does not depend on the database: one backend is enough.
@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_a_game_is_won_through_the_generated_client(generated, live_server, monkeypatch):
    monkeypatch.syspath_prepend(str(generated))
    spec = importlib.util.spec_from_file_location("python_client_play", HERE / "python_client_play.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    outcome = module.play(live_server)
    assert outcome["hints"] > 50 and outcome["score"] > 0
    assert outcome["batched"] == outcome["hints"] + 1  # the same game again through syncActions (+1: the draw)
    for name in [name for name in sys.modules if name.startswith(PACKAGE)]:
        del sys.modules[name]  # the next run generates afresh

"""The contract checks' tools: npm packages pinned in contract/ (`make contract`), run offline."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CONTRACT = ROOT / "contract"
OPENAPI = ROOT / "openapi.yaml"

#: No telemetry, no update checks: the checks make no traffic beyond loopback.
NODE_ENV = {**os.environ, "REDOCLY_TELEMETRY": "off", "REDOCLY_SUPPRESS_UPDATE_NOTICE": "true",
            "NO_UPDATE_NOTIFIER": "1", "DO_NOT_TRACK": "1"}


def node_tool(name: str) -> str:
    """The path of an npm tool from contract/node_modules; skipped outside CI when not installed."""
    path = CONTRACT / "node_modules" / ".bin" / name
    if path.exists() and shutil.which("node"):
        return str(path)
    message = f"{name} is not installed: run `make contract` (npm ci in contract/)"
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)

"""The JavaScript engine's checks: node and npm (a failure under CI, else a skip), and their report.

The counts the checks measure (actions, rejections by code, mismatches, JS tests) go to the
terminal summary, so that they show in CI's output whatever pytest's capture options.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
JS = ROOT / "clients" / "js"
REPORT = pytest.StashKey[list]()


def require(what: str, present: bool, how: str) -> None:
    """Skip without ``what`` locally; under CI (``CI`` set) its absence is a failure."""
    if present:
        return
    message = f"{what} is missing: {how}"
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture(scope="session")
def node() -> str:
    path = shutil.which("node")
    require("node", path is not None, "install Node.js 18 or later (apt-get install nodejs npm)")
    return path


@pytest.fixture(scope="session")
def npm() -> str:
    path = shutil.which("npm")
    require("npm", path is not None, "install npm (apt-get install npm)")
    return path


@pytest.fixture(scope="session")
def dev_dependencies(node) -> Path:
    """clients/js/node_modules (fast-check, typescript), as `make test` installs it with npm ci."""
    modules = JS / "node_modules"
    require("clients/js/node_modules", (modules / "fast-check").is_dir() and (modules / "typescript").is_dir(),
            "run `make test`, or `npm ci` in clients/js")
    return modules


@pytest.fixture
def report(request):
    """Append a line to the JS engine's section of the terminal summary."""
    lines = request.config.stash.setdefault(REPORT, [])
    return lines.append


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:
    lines = config.stash.get(REPORT, [])
    if lines:
        terminalreporter.section("JavaScript engine (clients/js)")
        for line in lines:
            terminalreporter.write_line(line)

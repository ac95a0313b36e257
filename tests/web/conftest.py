"""Fixtures of the browser tests: the real app on a local port, and the system Chromium."""

from __future__ import annotations

import contextlib
import os
import shutil

import pytest

from tests.live import serving

CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]


def chromium_path() -> str:
    path = shutil.which("chromium") or "/usr/bin/chromium"
    if not os.path.exists(path):
        if os.environ.get("CI"):
            pytest.fail("no chromium binary: CI must run the browser test (apt-get install chromium)")
        pytest.skip("no chromium binary (apt-get install chromium); under CI this fails instead")
    return path


@pytest.fixture
def served(tmp_path, sqlite_template, request):
    """``(url, app)``: the real app on a free local port, on its own copy of the migrated SQLite file.

    Parametrize it indirectly with a dict to override settings.
    """
    from service import create_app
    from service.extensions import db

    shutil.copy(sqlite_template, tmp_path / "t.db")
    overrides = getattr(request, "param", {})
    app = create_app({"DATABASE_URL": f"sqlite:///{tmp_path}/t.db", "TESTING": True, "RATELIMIT_ENABLED": False,
                      **overrides})
    with serving(app) as url:
        yield url, app
    with app.app_context():
        db.engine.dispose()


@contextlib.contextmanager
def launched_chromium():
    """The system Chromium, headless, under Playwright (skipped without them; under CI a failure)."""
    executable = chromium_path()
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        if os.environ.get("CI"):
            raise
        pytest.skip("the playwright package is not installed")
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS, headless=True)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture(scope="module")
def browser():
    """The system Chromium, headless, once per test module."""
    with launched_chromium() as chromium:
        yield chromium

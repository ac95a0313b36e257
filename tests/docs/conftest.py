"""Docs tests use the app fixtures of ``tests/conftest.py`` (SQLite and PostgreSQL)."""

from __future__ import annotations


def pytest_configure(config) -> None:
    # migrations/env.py (Flask-Migrate's template) calls db.get_engine(), deprecated
    # in Flask-SQLAlchemy 3.1; with filterwarnings=error no migrated database builds.
    # The same workaround as tests/api/conftest.py, needed when tests/docs runs alone.
    config.addinivalue_line("filterwarnings", "ignore:'get_engine' is deprecated:DeprecationWarning")

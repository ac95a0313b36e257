"""Throw-away databases for tests: which backends run (``TEST_DATABASES``), and scratch PostgreSQL databases.

PostgreSQL tests use ``TEST_POSTGRES_URL`` (default: the local server with trust
auth) and start their scratch databases' names with ``TEST_DATABASE_PREFIX`` (default
none): ``harness.postgres``. Without a reachable server they are skipped, except under
CI (``CI`` set), where that is a failure.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager

import pytest
import sqlalchemy as sa

from harness.postgres import POSTGRES_URL, scratch_database

BACKENDS = [name.strip() for name in os.environ.get("TEST_DATABASES", "sqlite,postgresql").split(",")]

__all__ = ["BACKENDS", "POSTGRES_URL", "missing", "scratch_postgres"]


def missing(reason: str):
    """Skip the test for want of ``reason``; under CI, fail it: there everything must be there."""
    if os.environ.get("CI"):
        pytest.fail(reason)
    pytest.skip(reason)


@contextmanager
def scratch_postgres(prefix: str, admin_url: str = POSTGRES_URL) -> Iterator[str]:
    """A new, empty PostgreSQL database for the block's duration; its URL (skipped when unreachable)."""
    with ExitStack() as stack:
        try:
            url = stack.enter_context(scratch_database(prefix, admin_url))
        except sa.exc.OperationalError as error:
            if os.environ.get("CI"):
                raise
            pytest.skip(f"PostgreSQL unreachable: {error}")
        yield url

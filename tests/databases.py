"""Throw-away databases for tests: which backends run, and scratch PostgreSQL databases.

PostgreSQL tests use ``TEST_POSTGRES_URL`` (default: the local server with trust
auth) and start their scratch databases' names with ``TEST_DATABASE_PREFIX`` (default
none). Without a reachable server they are skipped, except under CI (``CI`` set), where
that is a failure.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
import sqlalchemy as sa

POSTGRES_URL = os.environ.get("TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/postgres")
BACKENDS = [name.strip() for name in os.environ.get("TEST_DATABASES", "sqlite,postgresql").split(",")]
#: Put before every scratch database's name: engineers sharing one server keep apart by it.
NAME_PREFIX = os.environ.get("TEST_DATABASE_PREFIX", "")


@contextmanager
def scratch_postgres(prefix: str) -> Iterator[str]:
    """A new, empty PostgreSQL database for the block's duration; its URL."""
    # pre-ping: the fault test restarts PostgreSQL, which kills pooled connections.
    admin = sa.create_engine(POSTGRES_URL, isolation_level="AUTOCOMMIT", pool_pre_ping=True)
    name = f"{NAME_PREFIX}{prefix}_{uuid.uuid4().hex[:10]}"
    try:
        with admin.connect() as connection:
            connection.exec_driver_sql(f'CREATE DATABASE "{name}"')
    except sa.exc.OperationalError as error:
        admin.dispose()
        if os.environ.get("CI"):
            raise
        pytest.skip(f"PostgreSQL unreachable: {error}")
    try:
        yield POSTGRES_URL.rsplit("/", 1)[0] + f"/{name}"
    finally:
        with admin.connect() as connection:
            connection.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.dispose()

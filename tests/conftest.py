"""Shared fixtures: an app on SQLite and on PostgreSQL, built by the real migrations.

PostgreSQL tests use a throw-away database on ``TEST_POSTGRES_URL`` (default: the
local server with trust auth). Without a reachable server they are skipped,
except under CI (``CI`` set), where that is a failure.
"""

from __future__ import annotations

import os
import shutil
import uuid

import pytest
import sqlalchemy as sa

from service import create_app
from service.extensions import db
from tests.live import serving

POSTGRES_URL = os.environ.get("TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/postgres")
BACKENDS = [name.strip() for name in os.environ.get("TEST_DATABASES", "sqlite,postgresql").split(",")]
TABLES = ("idempotent_answers", "actions", "games", "players")


def _upgrade(url: str) -> None:
    from flask_migrate import upgrade

    app = create_app({"DATABASE_URL": url, "RATELIMIT_ENABLED": False})
    with app.app_context():
        upgrade()
        db.engine.dispose()


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("sqlite") / "template.db"
    _upgrade(f"sqlite:///{path}")
    return str(path)


@pytest.fixture(scope="session")
def postgres_url():
    # pre-ping: the fault test restarts PostgreSQL, which kills pooled connections.
    admin = sa.create_engine(POSTGRES_URL, isolation_level="AUTOCOMMIT", pool_pre_ping=True)
    name = f"solitaire_test_{uuid.uuid4().hex[:10]}"
    try:
        with admin.connect() as connection:
            connection.exec_driver_sql(f'CREATE DATABASE "{name}"')
    except sa.exc.OperationalError as error:
        if os.environ.get("CI"):
            raise
        pytest.skip(f"PostgreSQL unreachable: {error}")
    url = POSTGRES_URL.rsplit("/", 1)[0] + f"/{name}"
    _upgrade(url)
    yield url
    with admin.connect() as connection:
        connection.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    admin.dispose()


@pytest.fixture(params=BACKENDS)
def database_url(request, tmp_path) -> str:
    """A fresh, migrated, empty database of each backend."""
    if request.param == "sqlite":
        path = tmp_path / "test.db"
        shutil.copy(request.getfixturevalue("sqlite_template"), path)
        return f"sqlite:///{path}"
    url = request.getfixturevalue("postgres_url")
    engine = sa.create_engine(url)
    with engine.begin() as connection:
        connection.exec_driver_sql(f"TRUNCATE {', '.join(TABLES)} CASCADE")
    engine.dispose()
    return url


@pytest.fixture
def app(database_url):
    app = create_app({"DATABASE_URL": database_url, "TESTING": True, "RATELIMIT_ENABLED": False})
    yield app
    with app.app_context():
        db.engine.dispose()


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def live_server(app):
    """The app behind a real threaded HTTP server; the fixture's value is its base URL."""
    with serving(app) as url:
        yield url

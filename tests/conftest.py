"""Shared fixtures: an app on SQLite and on PostgreSQL, built by the real migrations; the tiers' markers.

The markers (registered in pyproject.toml) are put on the tests here, at collection,
so that a new test in the same place gets them too:

* ``postgresql`` — a test run on PostgreSQL: the ``postgresql`` case of a database
  parameter (``TEST_DATABASES``), or a module that needs the server (:data:`POSTGRESQL_PATHS`);
* ``browser`` — a test that drives Chromium (the ``browser`` fixture, :data:`BROWSER_PATHS`);
* ``faults`` — a test that kills processes and stops its own database server (:data:`FAULT_PATHS`);
* ``slow`` — a test that takes seconds (searches, servers, generated clients, browsers): :data:`SLOW_PATHS`.

``make quick`` runs engine, store, use cases and API on SQLite without the last three
(the README's "Tests"); ``make test`` runs everything.
"""

from __future__ import annotations

import contextlib
import shutil
from pathlib import Path

import pytest
import sqlalchemy as sa

from service import create_app
from service.extensions import db
from tests.contract.conformance import conforming
from tests.databases import BACKENDS, scratch_postgres
from tests.live import serving

#: Tests that take seconds each; the solver's searches, every server and browser, the generated clients.
SLOW_PATHS = ("tests/solver/", "tests/web/test_play_page.py", "tests/web/test_play_product.py",
              "tests/deploy/test_stack.py", "tests/deploy/test_serving.py", "tests/contract/test_lint.py",
              "tests/contract/test_python_client.py", "tests/contract/test_typescript_client.py",
              "tests/api/test_schemathesis.py", "tests/reliability/test_stateful.py",
              "tests/reliability/test_faults.py",
              "tests/harness/test_postgres.py", "tests/deploy/test_stack_contract.py",
              "tests/deploy/test_limit_headers.py", "tests/deploy/test_slow_reader.py",
              "tests/store/test_replicas.py", "tests/structure/test_bench_entrypoints.py")
BROWSER_PATHS = ("tests/web/test_play_page.py", "tests/web/test_play_product.py")
FAULT_PATHS = ("tests/reliability/test_faults.py",)
#: Modules whose every test needs PostgreSQL, whatever TEST_DATABASES says.
POSTGRESQL_PATHS = ("tests/deploy/test_stack.py", "tests/harness/test_postgres.py",
                    "tests/deploy/test_stack_contract.py", "tests/deploy/test_slow_reader.py",
                    "tests/store/test_replicas.py")
_ROOT = Path(__file__).resolve().parent.parent


def pytest_collection_modifyitems(config, items) -> None:
    for item in items:
        path = item.path.resolve().relative_to(_ROOT).as_posix() if item.path.is_relative_to(_ROOT) else ""
        params = getattr(item, "callspec", None)
        on_postgresql = params is not None and "postgresql" in params.params.values()
        if on_postgresql or "postgres_url" in item.fixturenames or path.startswith(POSTGRESQL_PATHS):
            item.add_marker(pytest.mark.postgresql)
        if "browser" in item.fixturenames or path.startswith(BROWSER_PATHS):
            item.add_marker(pytest.mark.browser)
        if path.startswith(FAULT_PATHS):
            item.add_marker(pytest.mark.faults)
        if path.startswith(SLOW_PATHS):
            item.add_marker(pytest.mark.slow)


TABLES = ("idempotent_answers", "actions", "games", "player_stats", "players", "winnable_deals",
          "created_answers")


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
    with scratch_postgres("solitaire_test") as url:
        _upgrade(url)
        yield url


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


@contextlib.contextmanager
def conforming_app(database_url: str):
    """A test app; every answer it sends in the block must be declared in openapi.yaml."""
    app = create_app({"DATABASE_URL": database_url, "TESTING": True, "RATELIMIT_ENABLED": False})
    with conforming(app):
        yield app
        dispose_app(app)


def dispose_app(app) -> None:
    """Close the pooled connections of an app's engines (the primary's and its replicas'): none is
    left for the garbage collector, where psycopg warns of a connection deleted while open."""
    from service.store import replicas

    with app.app_context():
        router = replicas.of(db.engine)
        if router is not None:
            router.dispose()
        db.engine.dispose()


@pytest.fixture
def make_app():
    """``create_app(config)`` for a test that needs its own settings; the apps are disposed after it."""
    apps = []

    def make(config: dict):
        apps.append(create_app(config))
        return apps[-1]

    yield make
    for made in apps:
        dispose_app(made)


@pytest.fixture
def app(database_url):
    """A test app on a fresh database; every answer it sends must be declared in openapi.yaml."""
    with conforming_app(database_url) as app:
        yield app


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture(scope="module", params=BACKENDS)
def shared_client(request, tmp_path_factory):
    """A test client on its own database of each backend, kept for the whole module.

    For tables of requests, one ``parametrize`` case each, that change nothing or only add
    what no other case reads: each case then costs its requests, not a fresh database.
    """
    if request.param == "sqlite":
        path = tmp_path_factory.mktemp("shared") / "shared.db"
        shutil.copy(request.getfixturevalue("sqlite_template"), path)
        with conforming_app(f"sqlite:///{path}") as app:
            yield app.test_client()
    else:
        with scratch_postgres("solitaire_shared") as url:
            _upgrade(url)
            with conforming_app(url) as app:
                yield app.test_client()


@pytest.fixture
def live_server(app):
    """The app behind a real threaded HTTP server; the fixture's value is its base URL."""
    with serving(app) as url:
        yield url

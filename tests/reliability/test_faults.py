"""Faults under load: no acknowledged action is ever lost, no stored game ever inconsistent.

gunicorn (gunicorn.conf.py, 2 workers x 4 threads) serves a scratch database while
client threads play; every action answered 200 is recorded as (game, version).
Phases: ``kill -9`` one worker; ``kill -9`` the master and its workers, then a
restart; on PostgreSQL, the server stopped mid-load (the API answers 503
SERVICE_UNAVAILABLE and ``/readyz`` 503 meanwhile) and started again, and the same
gunicorn recovers. After each phase every acknowledged action is in the stored
history and ``flask verify --all`` finds 0 inconsistent games.

The databases are those of ``TEST_DATABASES``. The PostgreSQL case runs on a private
cluster it starts itself in a temporary directory (``harness.postgres.PrivateCluster``):
the outage it causes is its own, never the shared server's. Bounded for CI (about 30 s
per database); ``FAULT_TEST_FULL=1`` plays longer and kills more workers.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import sqlalchemy as sa

from harness.postgres import PrivateCluster, binaries, scratch_database
from harness.servers import AppServer
from tests.databases import BACKENDS, missing

ROOT = Path(__file__).resolve().parents[2]
FULL = os.environ.get("FAULT_TEST_FULL") == "1"
PHASE_SECONDS = 10.0 if FULL else 2.0
WORKER_KILLS = 3 if FULL else 1
CLIENTS = 6


# -- gunicorn ----------------------------------------------------------------------


def request(port: int, method: str, path: str, body: bytes = b"", headers: dict | None = None,
            timeout: float = 5.0) -> tuple[int, dict, dict]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request(method, path, body=body, headers={"Content-Length": str(len(body)), **(headers or {})})
        response = conn.getresponse()
        data = response.read()
        return response.status, dict(response.getheaders()), json.loads(data) if data else {}
    finally:
        conn.close()


def gunicorn(url: str, log: Path) -> AppServer:
    """The app as served (gunicorn.conf.py, 2 workers x 4 threads), on a port it keeps across restarts."""
    return AppServer({"DATABASE_URL": url, "RATELIMIT_ENABLED": "0", "WEB_WORKERS": "2", "WEB_THREADS": "4"}, log=log)


# -- load --------------------------------------------------------------------------


class Load:
    """Client threads playing draw/recycle; records every action acknowledged with 200."""

    def __init__(self, port: int, games: list[dict]) -> None:
        self.port, self.games = port, games
        self.acknowledged: set[tuple[str, int]] = set()
        self.statuses: dict[int | str, int] = {}
        self.lock = threading.Lock()
        self.running = threading.Event()
        self.threads: list[threading.Thread] = []

    def start(self) -> None:
        self.running.set()
        self.threads = [threading.Thread(target=self._client, args=(game,), daemon=True) for game in self.games]
        for thread in self.threads:
            thread.start()

    def stop(self) -> None:
        self.running.clear()
        for thread in self.threads:
            thread.join(30)

    def _count(self, status) -> None:
        with self.lock:
            self.statuses[status] = self.statuses.get(status, 0) + 1

    def _client(self, game: dict) -> None:
        headers = {"Authorization": f"Bearer {game['token']}"}
        conn = None
        while self.running.is_set():
            action = "draw" if game["stock"] else "recycle"
            try:
                if conn is None:
                    conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
                conn.request("POST", f"/v1/games/{game['id']}/{action}", body=b"",
                             headers={**headers, "Content-Length": "0"})
                response = conn.getresponse()
                data = response.read()
            except (OSError, http.client.HTTPException):
                self._count("connection error")
                if conn is not None:
                    conn.close()
                conn = None
                time.sleep(0.05)
                continue
            self._count(response.status)
            if response.status == 200:
                body = json.loads(data)
                with self.lock:
                    self.acknowledged.add((game["id"], body["version"]))
                game["stock"] = body["stock"]
            elif response.status == 422:
                game["stock"] = 0 if game["stock"] else 1  # an unacknowledged action went through
            else:
                time.sleep(0.05)
        if conn is not None:
            conn.close()


def make_games(port: int, count: int) -> list[dict]:
    games = []
    for _ in range(count):
        status, _, body = request(port, "POST", "/v1/games", b'{"draw": 1}', {"Content-Type": "application/json"})
        assert status == 201, body
        games.append({"id": body["id"], "token": body["token"], "stock": body["stock"]})
    return games


# -- checks ------------------------------------------------------------------------


def check(url: str, load: Load, phase: str) -> None:
    """Every acknowledged action is stored; every stored game replays to its state."""
    engine = sa.create_engine(url, pool_pre_ping=True)
    try:
        with engine.connect() as connection:
            stored = {(row.game_id, row.seq) for row in connection.execute(sa.text("SELECT game_id, seq FROM actions"))}
    finally:
        engine.dispose()
    missing = load.acknowledged - stored
    verify = subprocess.run([sys.executable, "-m", "flask", "--app", "service", "verify", "--all"], cwd=ROOT,
                            env={**os.environ, "DATABASE_URL": url, "RATELIMIT_ENABLED": "0"},
                            capture_output=True, text=True, timeout=120)
    found = re.search(r"verified (\d+) games: (\d+) consistent, (\d+) inconsistent", verify.stdout)
    assert found, verify.stdout + verify.stderr
    inconsistent = int(found.group(3))
    print(f"[{phase}] acknowledged actions: {len(load.acknowledged)}, stored actions: {len(stored)}, "
          f"inconsistent games: {inconsistent}  (answers: {load.statuses})")
    assert not missing, f"{len(missing)} acknowledged actions lost, e.g. {sorted(missing)[:5]}"
    assert inconsistent == 0, verify.stderr[-3000:]
    assert verify.returncode == 0


def play(load: Load, seconds: float) -> None:
    before = len(load.acknowledged)
    time.sleep(seconds)
    deadline = time.monotonic() + 20
    while len(load.acknowledged) == before and time.monotonic() < deadline:
        time.sleep(0.1)  # a loaded machine: wait for the first acknowledgement at least
    assert len(load.acknowledged) > before, f"no action acknowledged: {load.statuses}"


# -- the databases ------------------------------------------------------------------


@contextlib.contextmanager
def scratch(kind: str, tmp_path: Path):
    """The database of ``kind`` and, on PostgreSQL, the private cluster it lives on (None on SQLite)."""
    if kind == "sqlite":
        yield f"sqlite:///{tmp_path / 'faults.db'}", None
        return
    if binaries() is None:
        missing("no PostgreSQL binaries (/usr/lib/postgresql/*/bin) to start a private cluster with")
    with PrivateCluster() as cluster, scratch_database("faults", cluster.url) as url:
        yield url, cluster


def migrate(url: str) -> None:
    subprocess.run([sys.executable, "-m", "flask", "--app", "service", "db", "upgrade"], cwd=ROOT,
                   env={**os.environ, "DATABASE_URL": url, "RATELIMIT_ENABLED": "0"},
                   check=True, capture_output=True, timeout=120)


# -- the test ----------------------------------------------------------------------


@pytest.mark.parametrize("kind", BACKENDS)
def test_no_acknowledged_action_is_lost(kind, tmp_path):
    with scratch(kind, tmp_path) as (url, cluster):
        migrate(url)
        server = gunicorn(url, tmp_path / "gunicorn.log")
        load = None
        try:
            server.start(workers=2)
            if kind == "sqlite":
                _chunked_body_is_capped(server.port)
            load = Load(server.port, make_games(server.port, CLIENTS))

            load.start()
            play(load, PHASE_SECONDS / 2)
            for _ in range(WORKER_KILLS):
                server.kill_worker()
                play(load, PHASE_SECONDS / 2)
            load.stop()
            check(url, load, f"{kind}: worker killed")

            load.start()
            play(load, PHASE_SECONDS / 2)
            server.kill()
            time.sleep(0.3)
            server.start(workers=2)
            play(load, PHASE_SECONDS)
            load.stop()
            check(url, load, f"{kind}: master killed, restarted")

            if cluster is not None:
                _database_outage(server, load, cluster)
                check(url, load, f"{kind}: database stopped and started")
        finally:
            if load is not None:
                load.stop()
            server.stop()


def _database_outage(server: AppServer, load: Load, cluster: PrivateCluster) -> None:
    game = load.games[0]
    auth = {"Authorization": f"Bearer {game['token']}"}
    load.start()
    play(load, PHASE_SECONDS / 2)
    try:
        cluster.stop()
        time.sleep(0.2)
        status, headers, body = request(server.port, "POST", f"/v1/games/{game['id']}/draw", headers=auth)
        assert status == 503, body
        assert headers["Content-Type"].startswith("application/problem+json")
        assert body["code"] == "SERVICE_UNAVAILABLE" and body["status"] == 503
        assert "Retry-After" in headers
        status, _, body = request(server.port, "GET", f"/v1/games/{game['id']}")
        assert status == 503 and body["code"] == "SERVICE_UNAVAILABLE"
        status, _, body = request(server.port, "GET", "/readyz")
        assert status == 503 and body["code"] == "SERVICE_UNAVAILABLE"
        assert request(server.port, "GET", "/healthz")[0] == 200  # the process itself is fine
        time.sleep(PHASE_SECONDS / 2)
    finally:
        cluster.start()
        assert cluster.ready(), "PostgreSQL did not come back"
    # The same gunicorn recovers: a dead pooled connection fails its first statement, which
    # runs once more on a fresh one (store.db.on_live_connection).
    deadline = time.monotonic() + 30
    while request(server.port, "GET", "/readyz")[0] != 200:
        assert time.monotonic() < deadline, "/readyz stayed unready after PostgreSQL came back"
        time.sleep(0.2)
    play(load, PHASE_SECONDS)
    load.stop()
    assert not {s for s in load.statuses if isinstance(s, int) and s >= 500 and s != 503}, load.statuses


def _chunked_body_is_capped(port: int) -> None:
    """Through a real gunicorn: a chunked body over MAX_BODY_BYTES is 413 problem+json."""
    games = make_games(port, 1)
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        chunks = [b'{"from": "t1", "to": "t2", "pad": "'] + [b"x" * 4096] * 5 + [b'"}']
        conn.request("POST", f"/v1/games/{games[0]['id']}/moves", body=iter(chunks), encode_chunked=True,
                     headers={"Authorization": f"Bearer {games[0]['token']}", "Content-Type": "application/json"})
        response = conn.getresponse()
        body = json.loads(response.read())
        assert response.status == 413 and body["code"] == "PAYLOAD_TOO_LARGE", body
    finally:
        conn.close()

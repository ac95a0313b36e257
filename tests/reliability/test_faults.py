"""Faults under load: no acknowledged action is ever lost, no stored game ever inconsistent.

gunicorn (gunicorn.conf.py, 2 workers x 4 threads) serves a scratch database while
client threads play; every action answered 200 is recorded as (game, version).
Phases: ``kill -9`` one worker; ``kill -9`` the master and its workers, then a
restart; on PostgreSQL, the server stopped mid-load (the API answers 503
SERVICE_UNAVAILABLE and ``/readyz`` 503 meanwhile) and started again, and the same
gunicorn recovers. After each phase every acknowledged action is in the stored
history and ``flask verify --all`` finds 0 inconsistent games.

Bounded for CI (about 30 s per database); ``FAULT_TEST_FULL=1`` plays longer and
kills more workers. This test stops and starts the local PostgreSQL cluster: run it
alone, never in parallel with other PostgreSQL tests.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import sqlalchemy as sa

from tests.databases import scratch_postgres

ROOT = Path(__file__).resolve().parents[2]
FULL = os.environ.get("FAULT_TEST_FULL") == "1"
PHASE_SECONDS = 10.0 if FULL else 2.0
WORKER_KILLS = 3 if FULL else 1
CLIENTS = 6


# -- gunicorn ----------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


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


class Server:
    """gunicorn in its own process group, on a fixed port so that it can be restarted."""

    def __init__(self, url: str, port: int, log: Path) -> None:
        self.url, self.port, self.log = url, port, log
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        env = {**os.environ, "DATABASE_URL": self.url, "BIND": f"127.0.0.1:{self.port}",
               "RATELIMIT_ENABLED": "0", "WEB_WORKERS": "2", "WEB_THREADS": "4"}
        with open(self.log, "a") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "gunicorn", "-c", "gunicorn.conf.py", "service:create_app()"],
                cwd=ROOT, env=env, stdout=log, stderr=log, start_new_session=True)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            assert self.process.poll() is None, self.log.read_text()[-3000:]
            with contextlib.suppress(OSError):
                if request(self.port, "GET", "/healthz", timeout=2)[0] == 200 and len(self.workers()) == 2:
                    return
            time.sleep(0.1)
        raise AssertionError("gunicorn did not come up:\n" + self.log.read_text()[-3000:])

    def workers(self) -> list[int]:
        pid = self.process.pid
        try:
            return [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
        except OSError:
            return []

    def kill_worker(self) -> None:
        workers = self.workers()
        assert workers
        os.kill(workers[0], signal.SIGKILL)
        deadline = time.monotonic() + 20  # the master forks a new one
        while time.monotonic() < deadline:
            current = self.workers()
            if len(current) == 2 and workers[0] not in current:
                return
            time.sleep(0.05)
        raise AssertionError("no new worker after kill -9")

    def kill_all(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.kill_all()


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


# -- PostgreSQL --------------------------------------------------------------------


def _cluster() -> list[str]:
    version = sorted(os.listdir("/etc/postgresql"))[0]
    return ["pg_ctlcluster", "--skip-systemctl-redirect", version, "main"]


def postgres(action: str) -> None:
    args = [*_cluster(), action] + (["-m", "fast"] if action == "stop" else [])
    subprocess.run(args, check=True, capture_output=True, timeout=60)


def postgres_ready(timeout: float = 30.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if subprocess.run(["pg_isready", "-h", "127.0.0.1", "-p", "5432", "-q"]).returncode == 0:
            return True
        time.sleep(0.2)
    return False


@contextlib.contextmanager
def scratch_database(kind: str, tmp_path: Path):
    if kind == "sqlite":
        yield f"sqlite:///{tmp_path / 'faults.db'}"
        return
    with scratch_postgres("faults") as url:
        try:
            yield url
        finally:
            postgres_ready()  # the test may have left the server still starting


def migrate(url: str) -> None:
    subprocess.run([sys.executable, "-m", "flask", "--app", "service", "db", "upgrade"], cwd=ROOT,
                   env={**os.environ, "DATABASE_URL": url, "RATELIMIT_ENABLED": "0"},
                   check=True, capture_output=True, timeout=120)


# -- the test ----------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_no_acknowledged_action_is_lost(kind, tmp_path):
    with scratch_database(kind, tmp_path) as url:
        migrate(url)
        server = Server(url, free_port(), tmp_path / "gunicorn.log")
        load = None
        try:
            server.start()
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
            server.kill_all()
            time.sleep(0.3)
            server.start()
            play(load, PHASE_SECONDS)
            load.stop()
            check(url, load, f"{kind}: master killed, restarted")

            if kind == "postgresql":
                _database_outage(server, load)
                check(url, load, f"{kind}: database stopped and started")
        finally:
            if load is not None:
                load.stop()
            server.stop()


def _database_outage(server: Server, load: Load) -> None:
    game = load.games[0]
    auth = {"Authorization": f"Bearer {game['token']}"}
    load.start()
    play(load, PHASE_SECONDS / 2)
    try:
        postgres("stop")
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
        postgres("start")
        assert postgres_ready(), "PostgreSQL did not come back"
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

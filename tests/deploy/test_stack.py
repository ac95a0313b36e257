"""The whole stack as deployed: nginx in front of two gunicorn masters on PostgreSQL and Redis.

One stack (deploy/stack.py) for the module, on a scratch PostgreSQL database and Redis
database ``TEST_REDIS_URL`` (default 1) with a key prefix of its own (its keys go at
the end). Without nginx, PostgreSQL or Redis the module is skipped, except under CI,
where that is a failure. Ports come from ``STACK_TEST_PORTS`` (default 18080-18099).
"""

from __future__ import annotations

import contextlib
import hashlib
import http.client
import json
import math
import os
import socket
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import requests

from harness import ROOT, nginx
from harness.nginx import stack
from tests.api.test_concurrency import act_concurrently
from tests.databases import missing
from tests.deploy.conftest import deployed_stack, exchange, stack_ports
from tests.web.conftest import launched_chromium

WRITE_LIMIT = 120
WRITE_WINDOW = 8  # seconds: "120 per minute" with a shorter window, same tolerance
STALL_SECONDS = float(os.environ.get("STACK_STALL_SECONDS", "20"))


@pytest.fixture(scope="module")
def ports():
    return stack_ports(6)


@pytest.fixture(scope="module")
def front_origins(ports):
    """Two static servers: the first origin may call the API (CORS_ORIGINS), the second may not."""
    allowed, refused = ports[3], ports[4]
    return {"allowed": f"http://127.0.0.1:{allowed}", "refused": f"http://127.0.0.1:{refused}"}


@pytest.fixture(scope="module")
def running(ports, front_origins, tmp_path_factory):
    """The stack; its value is the StackSettings it runs with."""
    with deployed_stack(
            tmp_path_factory, "stack", ports, threads=4, client_timeout=10,
            # nginx's per-address rates out of the way of the app's limits tested here; the
            # solver's stays as deployed (test_a_hint_flood_is_refused_by_nginx).
            rate=10_000, burst=10_000, write_rate=10_000, write_burst=10_000, create_rate=100_000,
            create_burst=10_000,
            environment={"RATELIMIT_DEFAULT": "100000 per minute",
                         "RATELIMIT_WRITE": f"{WRITE_LIMIT} per {WRITE_WINDOW} seconds",
                         "CORS_ORIGINS": front_origins["allowed"]}) as settings:
        yield settings


@pytest.fixture(scope="module")
def base(running) -> str:
    return f"http://127.0.0.1:{running.port}"


def _new_game(base: str, code: str = "TF1-D3N-AAAAAAG") -> tuple[str, dict]:
    response = requests.post(f"{base}/v1/games", json={"code": code}, timeout=30)
    assert response.status_code == 201, response.text
    game = response.json()
    return game["id"], {"Authorization": f"Bearer {game['token']}"}


# ---- slow clients ------------------------------------------------------------------------


def _stall(port: int, kind: str, stop: threading.Event) -> tuple[int, list[bytes]]:
    """Hold one socket that never finishes its headers or its body; reopen it when nginx drops it.

    Returns how often it was opened and the status lines of what nginx answered before closing.
    """
    opened, answers = 0, []
    while not stop.is_set():
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1) as sock:
            opened += 1
            if kind == "headers":
                sock.sendall(b"GET /v1/rules HTTP/1.1\r\nHost: stack\r\nX-Slow: ")
            else:
                sock.sendall(b"POST /v1/games HTTP/1.1\r\nHost: stack\r\nContent-Type: application/json\r\n"
                             b"Content-Length: 1000\r\n\r\n{\"draw\": ")
            received = b""
            while not stop.is_set():
                try:
                    chunk = sock.recv(4096)
                except TimeoutError:
                    continue
                if not chunk:
                    break  # nginx gave up on us: come back
                received += chunk
            if received:
                answers.append(received)
        stop.wait(0.2)
    return opened, answers


def test_stalled_sockets_do_not_starve_the_probes(running, base):
    stop = threading.Event()
    attackers = [("headers", i) for i in range(64)] + [("body", i) for i in range(64)]
    latencies, statuses = [], []
    with ThreadPoolExecutor(len(attackers)) as pool:
        futures = [pool.submit(_stall, running.port, kind, stop) for kind, _ in attackers]
        time.sleep(1.0)  # every socket open and stalled
        deadline = time.monotonic() + STALL_SECONDS
        try:
            while time.monotonic() < deadline:
                started = time.perf_counter()
                try:
                    conn = http.client.HTTPConnection("127.0.0.1", running.port, timeout=5)
                    conn.request("GET", "/healthz")
                    response = conn.getresponse()
                    response.read()
                    conn.close()
                    statuses.append(response.status)
                except OSError as error:
                    statuses.append(repr(error))
                latencies.append(time.perf_counter() - started)
                time.sleep(0.05)
        finally:
            stop.set()
        outcomes = [future.result() for future in futures]
    assert all(opened >= 1 for opened, _ in outcomes)
    # What nginx said to the stalled clients, when it said anything: problem+json, never HTML.
    answers = [answer for _, answers in outcomes for answer in answers]
    for answer in answers:
        head = answer.split(b"\r\n\r\n", 1)[0].lower()
        assert head.split()[1] in (b"408", b"429"), head[:60]
        assert b"content-type: application/problem+json" in head, head
    refusals = {answer.split()[1] for answer in answers}
    assert b"429" in refusals, "64 bodies in progress from one address exceed its 32 connections"
    if running.client_timeout + 1 < STALL_SECONDS:
        # nginx drops a client whose headers stop arriving after client_header_timeout.
        assert all(opened >= 2 for opened, _ in outcomes[:64]), [opened for opened, _ in outcomes[:64]]
    assert statuses and set(statuses) == {200}, [s for s in statuses if s != 200][:5]
    ordered = sorted(latencies)
    p99 = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
    assert p99 <= 0.2, f"/healthz p99 {p99 * 1000:.0f} ms over {len(ordered)} probes"


@contextlib.contextmanager
def _long_wins(database_url: str, count: int, line_length: int):
    """``count`` won games with lines of ``line_length`` characters, finished an hour ago, for the block.

    Their lines are filler, not games: they go again before other tests verify every game.
    """
    import sqlalchemy as sa

    engine = sa.create_engine(database_url)
    line = " ".join(["t7>fH:AH"] * (line_length // 9))
    with engine.begin() as connection:
        connection.execute(sa.text(
            "INSERT INTO games (id, code, deal, draw, status, score, moves, undos, version, hints, state, "
            "created_at, updated_at, finished_at, duration_ms, line) "
            "SELECT 'spool' || n, 'TF1-D1N-AAAAAAB', 1, 1, 'won', 500, 100, 0, 100, 0, '{}', "
            "now() - interval '2 hours', now() - interval '1 hour' + n * interval '1 ms', "
            "now() - interval '1 hour' + n * interval '1 ms', 60000, :line "
            "FROM generate_series(1, :count) AS n"), {"line": line, "count": count})
    try:
        yield
    finally:
        with engine.begin() as connection:
            connection.execute(sa.text("DELETE FROM games WHERE id LIKE 'spool%'"))
        engine.dispose()


def test_stalled_feed_readers_hold_no_app_thread(running, base):
    # 10,000 entries of ~1.2 kB: a stream of ~12 MB, far beyond nginx's buffers and the sockets'.
    with _long_wins(running.database_url, 10_000, 1_200):
        game_id, _ = _new_game(base)
        app_threads = len(running.app_ports) * running.workers * running.threads
        readers = []
        try:
            for _ in range(app_threads + 4):  # more stalled streams than the apps have threads
                reader = socket.create_connection(("127.0.0.1", running.port), timeout=5)
                reader.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
                reader.sendall(b"GET /v1/games/finished HTTP/1.1\r\nHost: x\r\n"
                               b"Accept: application/x-ndjson\r\n\r\n")
                readers.append(reader)
            assert readers[0].recv(64).startswith(b"HTTP/1.1 200"), "the stream did not start"
            time.sleep(3)  # every stream under way, none read
            # Every app thread free again: the streams went to nginx's spool, not to the readers.
            answers = [requests.get(f"{base}/v1/games/{game_id}", timeout=5).status_code
                       for _ in range(app_threads)]
            assert answers == [200] * app_threads
        finally:
            for reader in readers:
                reader.close()


# ---- limits across both instances --------------------------------------------------------


def _served_by(settings) -> list[int]:
    """How many action requests each app instance has logged so far."""
    counts = []
    for number in range(1, len(settings.app_ports) + 1):
        log = Path(settings.run_dir) / f"api-{number}-access.log"
        counts.append(sum(1 for line in log.read_text().splitlines() if '"POST /v1/games/' in line))
    return counts


def test_the_write_limit_holds_across_both_instances(running, base):
    game_id, auth = _new_game(base, "TF1-D1N-AAAAAAB")
    before = _served_by(running)
    first_hit = time.monotonic()

    def act(number: int) -> tuple[int, dict]:
        action = "recycle" if number % 25 == 24 else "draw"
        response = requests.post(f"{base}/v1/games/{game_id}/{action}", headers=auth, timeout=30)
        return response.status_code, dict(response.headers), response.json()

    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(act, range(160)))
    assert time.monotonic() - first_hit < WRITE_WINDOW - 1, "the burst must fit in one window"
    limited = [(headers, body) for status, headers, body in answers if status == 429]
    passed = [status for status, _, _ in answers if status != 429]
    assert 0.95 * WRITE_LIMIT <= len(passed) <= 1.05 * WRITE_LIMIT, len(passed)
    assert set(passed) <= {200, 422}
    after = _served_by(running)
    assert all(b - a >= 20 for a, b in zip(before, after, strict=True)), (before, after)
    headers, body = limited[-1]
    assert body["code"] == "RATE_LIMITED"
    retry_after = int(headers["Retry-After"])
    assert retry_after == body["params"]["retry_after"]
    elapsed = time.monotonic() - first_hit
    # The window opened with the first action and ends WRITE_WINDOW s later; Redis keeps whole
    # seconds, and Retry-After rounds up so that a retry then succeeds.
    remaining = WRITE_WINDOW - elapsed
    assert remaining - 0.5 <= retry_after <= remaining + 2
    time.sleep(max(0.0, first_hit + WRITE_WINDOW - 1.0 - time.monotonic()))
    early = requests.post(f"{base}/v1/games/{game_id}/draw", headers=auth, timeout=30)
    assert early.status_code == 429, "the window cannot have ended before WRITE_WINDOW s"
    time.sleep(max(0.0, first_hit + elapsed + retry_after - time.monotonic()))
    later = requests.post(f"{base}/v1/games/{game_id}/draw", headers=auth, timeout=30)
    assert later.status_code in (200, 422), "retrying after Retry-After must succeed"


def _hint_from(port: int, source: str, game_id: str, auth: dict) -> tuple[int, dict, dict]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30, source_address=(source, 0))
    try:
        conn.request("GET", f"/v1/games/{game_id}/hint", headers={**auth, "Accept-Language": "de"})
        response = conn.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, json.loads(response.read())
    finally:
        conn.close()


def _hints_logged(settings) -> int:
    return sum(log.read_text().count("/hint ") for log in Path(settings.run_dir).glob("api-*-access.log"))


def test_a_hint_flood_is_refused_by_nginx_while_another_address_is_served(running, base):
    game_id, auth = _new_game(base, "TF1-D1N-AAAAAAB")
    logged = _hints_logged(running)
    burst, every = running.solver_burst, 60 / running.solver_rate  # seconds between two more
    started = time.monotonic()
    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(lambda _: _hint_from(running.port, "127.0.0.21", game_id, auth),
                                range(burst + 10)))
    elapsed = time.monotonic() - started  # nginx sends its refusals slowly (refused_rate)
    served = [body for status, _, body in answers if status == 200]
    refused = [(headers, body) for status, headers, body in answers if status == 429]
    assert len(served) + len(refused) == len(answers), {status for status, _, _ in answers}
    # The burst plus the one the rate allows at once, and one more per interval that passed.
    assert burst + 1 <= len(served) <= burst + 2 + elapsed // every, (len(served), elapsed)
    assert refused
    retry_after = math.ceil(every)
    for headers, body in refused:
        assert headers["content-type"].startswith("application/problem+json")
        assert body["code"] == "SOLVER_RATE_LIMITED" and body["status"] == 429
        assert body["params"] == {"retry_after": retry_after} and headers["retry-after"] == str(retry_after)
        assert headers["content-language"] == "de" and f"{retry_after} s" in body["detail"]
        assert "x-ratelimit-limit" not in headers, "refused by nginx, not by the app"
    time.sleep(0.3)  # access logs are written after the answer
    assert _hints_logged(running) - logged == len(served), "no refused hint reached an app"
    status, _, body = _hint_from(running.port, "127.0.0.22", game_id, auth)
    assert status == 200 and "verdict" in body, body


# ---- concurrency over both instances -----------------------------------------------------


def test_concurrent_actions_over_both_instances_stay_serialized(running, base):
    game_id, auth = _new_game(base)
    before = _served_by(running)
    results = act_concurrently(base, game_id, auth)
    after = _served_by(running)
    assert all(b - a >= 10 for a, b in zip(before, after, strict=True)), (before, after)
    assert {status for status, _ in results} <= {200, 422}
    versions = sorted(body["version"] for status, body in results if status == 200)
    assert versions == list(range(1, len(versions) + 1))
    history = requests.get(f"{base}/v1/games/{game_id}/actions?limit=200", timeout=30).json()
    assert [item["seq"] for item in history["items"]] == versions
    verify = subprocess.run([sys.executable, "-m", "flask", "--app", "service", "verify", "--all"], cwd=ROOT,
                            env={**os.environ, "DATABASE_URL": running.database_url}, capture_output=True,
                            text=True, timeout=120)
    assert verify.returncode == 0, verify.stderr
    assert " 0 inconsistent" in verify.stdout


# ---- what nginx answers itself ----------------------------------------------------------


def _assert_problem(status: int, headers: dict, body: bytes, expected: int, code: str) -> dict:
    assert status == expected, body[:300]
    assert headers["content-type"].startswith("application/problem+json"), headers
    problem = json.loads(body)
    assert problem["status"] == expected and problem["code"] == code
    assert problem["type"] == f"/v1/rules/{code}" and problem["detail"]
    return problem


@pytest.mark.parametrize(("request_bytes", "expected", "code"), [
    (b"GET /v1/rules?x=" + b"a" * 10_240 + b" HTTP/1.1\r\nHost: s\r\nConnection: close\r\n\r\n", 414,
     "URI_TOO_LONG"),
    (b"GET /v1/rules HTTP/1.1\r\nHost: s\r\nConnection: close\r\n"
     + b"".join(b"X-Pad-%d: %s\r\n" % (i, b"b" * 1000) for i in range(100)) + b"\r\n", 431, "HEADERS_TOO_LARGE"),
    (b"GARBAGE\r\n\r\n", 400, "INVALID_REQUEST"),
    (b"GET /v1/rules HTTP/9.9\r\nHost: s\r\n\r\n", 400, "INVALID_REQUEST"),
    (b"POST /v1/games HTTP/1.1\r\nHost: s\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", 400, "INVALID_REQUEST"),
    (b"POST /v1/games HTTP/1.1\r\nHost: s\r\nContent-Type: application/json\r\nContent-Length: 20000\r\n"
     b"Connection: close\r\n\r\n" + b" " * 20000, 413, "PAYLOAD_TOO_LARGE"),
], ids=["10KB-request-line", "100KB-headers", "garbage-line", "bad-version", "unknown-coding",
        "large-body"])
def test_requests_nginx_refuses_get_problem_json(running, request_bytes, expected, code):
    _assert_problem(*exchange(running.port, request_bytes), expected, code)


def test_nginx_problems_speak_the_clients_language(running):
    status, headers, body = exchange(running.port, b"GET /v1/rules?x=" + b"a" * 5000 + b" HTTP/1.1\r\nHost: s\r\n\r\n")
    assert status == 414  # the request line is refused before its headers are read: English
    status, headers, body = exchange(running.port, b"POST /v1/games HTTP/1.1\r\nHost: s\r\nAccept-Language: de\r\n"
                                     b"Content-Length: 20000\r\nConnection: close\r\n\r\n" + b" " * 20000)
    problem = _assert_problem(status, headers, body, 413, "PAYLOAD_TOO_LARGE")
    assert headers["content-language"] == "de" and "Grenze" in problem["detail"]


def test_a_token_in_the_url_is_refused_before_the_app_and_logged_nowhere(running, base):
    game_id, auth = _new_game(base)
    token = auth["Authorization"].split()[1]
    for query in (f"access_token={token}", f"a=1&Token={token}"):
        response = requests.get(f"{base}/v1/games/{game_id}?{query}", timeout=30)
        assert response.status_code == 400 and response.json()["code"] == "TOKEN_IN_QUERY"
    assert requests.post(f"{base}/v1/games/{game_id}/draw", headers=auth, timeout=30).status_code == 200
    time.sleep(0.3)  # access logs are written after the answer
    secrets = {token, hashlib.sha256(token.encode()).hexdigest()}
    for log in Path(running.run_dir).glob("*.log"):
        text = log.read_text(errors="replace")
        assert not any(secret in text for secret in secrets), log.name
        assert "?" not in "".join(line for line in text.splitlines() if game_id in line), log.name


def test_gzip_and_headers_through_the_proxy(running, base):
    response = requests.get(f"{base}/v1/rules", headers={"Accept-Encoding": "gzip"}, timeout=30)
    assert response.status_code == 200 and response.headers["Content-Encoding"] == "gzip"
    assert response.headers["Cache-Control"].startswith("public, max-age=")
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert response.headers["Server"] == "nginx"  # no version
    game_id, _ = _new_game(base)
    game = requests.get(f"{base}/v1/games/{game_id}", headers={"Accept-Encoding": "gzip"}, timeout=30)
    assert game.headers["ETag"] == '"0"', "a game's ETag stays strong (If-Match compares strongly)"


def test_no_upstream_is_a_problem_json_502(ports, tmp_path):
    if not nginx.installed():
        missing("nginx is not installed (apt-get install nginx)")
    dead = stack.StackSettings(port=ports[5], app_ports=[ports[1] + 1000, ports[2] + 1000], run_dir=tmp_path)
    stack.start_nginx(dead)
    try:
        response = requests.get(f"http://127.0.0.1:{dead.port}/v1/rules", timeout=30)
        assert response.status_code == 502
        assert response.headers["Content-Type"].startswith("application/problem+json")
        assert response.json()["code"] == "BAD_GATEWAY" and response.headers["Retry-After"] == "1"
    finally:
        stack.down(tmp_path)


# ---- a browser on another origin ---------------------------------------------------------

FRONT_PAGE = b"<!doctype html><title>front</title><p>another origin</p>"


class _FrontPage(SimpleHTTPRequestHandler):
    def do_GET(self):  # noqa: N802 (http.server's naming)
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(FRONT_PAGE)))
        self.end_headers()
        self.wfile.write(FRONT_PAGE)

    def log_message(self, *args):
        pass


PLAY_THROUGH_CORS = """async (api) => {
  try {
    const post = (path, body, token) => fetch(api + path, {
      method: "POST", body: JSON.stringify(body),
      headers: {"Content-Type": "application/json", "Accept-Language": "de",
                ...(token ? {Authorization: "Bearer " + token} : {})}});
    const created = await post("/v1/games", {code: "TF1-D1N-AAAAAAB"});
    const game = await created.json();
    const moves = await (await fetch(api + "/v1/games/" + game.id + "/legal-moves")).json();
    const move = moves.items.find((item) => item.action === "move");
    const played = await post("/v1/games/" + game.id + "/moves",
                              {from: move.from, to: move.to, card: move.card}, game.token);
    const after = await played.json();
    const wrong = await post("/v1/games/" + game.id + "/moves", {from: "t1", to: "t1"}, game.token);
    return {created: created.status, location: created.headers.get("Location"),
            played: played.status, etag: played.headers.get("ETag"), version: after.version,
            limit: played.headers.get("X-RateLimit-Limit"), wrong: wrong.status,
            language: wrong.headers.get("Content-Language")};
  } catch (error) {
    return {blocked: String(error)};
  }
}"""


@pytest.fixture(scope="module")
def browser(front_origins):
    servers = []
    for origin in front_origins.values():
        server = ThreadingHTTPServer(("127.0.0.1", int(origin.rsplit(":", 1)[1])), _FrontPage)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
    try:
        with launched_chromium() as browser:
            yield browser
    finally:
        for server in servers:
            server.shutdown()
            server.server_close()


def _play_from(browser, origin: str, api: str) -> dict:
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(origin + "/")
        return page.evaluate(PLAY_THROUGH_CORS, api)
    finally:
        context.close()


def test_a_page_on_an_allowed_origin_deals_and_plays_through_cors(running, base, browser, front_origins):
    result = _play_from(browser, front_origins["allowed"], base)
    assert "blocked" not in result, result
    assert result["created"] == 201 and result["location"].startswith("/v1/games/")
    assert result["played"] == 200 and result["etag"] == '"1"' and result["version"] == 1
    assert result["limit"] == str(WRITE_LIMIT)
    assert result["wrong"] == 422 and result["language"] == "de"


def test_a_page_on_another_origin_is_refused_by_the_browser(running, base, browser, front_origins):
    result = _play_from(browser, front_origins["refused"], base)
    assert "blocked" in result and "Failed to fetch" in result["blocked"], result


def test_a_second_start_from_the_same_run_dir_leaves_the_running_stack_alone(running, base):
    with pytest.raises(RuntimeError, match="already runs"):
        stack.up(running)
    assert requests.get(f"{base}/readyz", timeout=30).status_code == 200

"""Leaderboard reads and the finished-games feed against their floor, on PostgreSQL (a report, not a test).

Creates a scratch PostgreSQL database, migrates it, loads ``--games`` won games
(default 1,000,000; plus 10 % still being played, which the partial indexes leave
out) with one ``INSERT … SELECT generate_series`` each for players and games, then
serves it twice under the same ``gunicorn.conf.py`` (2 workers x 4 threads): the
service, and ``bench/floors/leaderboard_floor.py``, a bare Flask app that runs the same
SQL text (the board's ETag statement, then the page) with psycopg and builds the
same JSON. Alternating rounds, 8 keep-alive clients (reconnecting every 50
requests so that both workers get a share), medians of the round-pair ratios:

* the top-50 board, a deep page (a cursor 10,000 entries down), the daily deal's
  board (2 % of the wins are on one code) and a feed page from the middle of the
  feed: service / floor req/s, target >= 0.7;
* the 304 path (``If-None-Match`` with the current tag) against the 200 path of
  the top-50 board, both on the service: target >= 3;
* the NDJSON export of every won game (``Accept: application/x-ndjson``, streams
  of 100,000 entries, each resumed from the last one's cursor) against a bare
  psycopg server-side cursor loop streaming the same rows as the same NDJSON:
  rows/s, target >= 0.5, and the serving worker's resident memory growth
  (``VmRSS``, sampled every 20 ms), target <= 50 MB.

Each game's ``line`` is one of a few real winning lines found by the solver; the
codes are random (so the lines do not replay their codes: speed only). Prints
each case's req/s, p50 and p99 on both sides. Servers listen on free ports of
127.0.0.1 and are stopped at the end; the scratch database is dropped unless
``--keep`` (``--url`` measures a kept one again, without loading)::

    python bench/leaderboard                      # 1,000,000 games, 3 rounds of 5 s
    python bench/leaderboard --games 100000 --rounds 2 --duration 3
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import statistics
import sys
import threading
import time
import uuid
from pathlib import Path
from urllib.parse import quote

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import psycopg  # noqa: E402

from bench.drivers.api_load import Result  # noqa: E402
from harness.ports import free_port  # noqa: E402
from harness.servers import AppServer, migrate  # noqa: E402
from service.engine import Game, GameCode  # noqa: E402

#: Each side's port (free ones, taken at start).
PORTS: dict[str, int] = {}
APPS = {
    "service": ["service:create_app()"],
    "floor": ["--pythonpath", str(ROOT / "bench" / "floors"), "leaderboard_floor:create_app()"],
}
LINE_DEALS = 6  # distinct real winning lines
STREAM_ROWS = 100_000  # entries per NDJSON stream of the export: the service's most
DEPTH = 10_000  # the deep page starts after this many entries (half the wins in a small run)


# -- data -------------------------------------------------------------------------------


def create_database(admin_url: str, prefix: str) -> tuple[str, str]:
    name = f"{prefix}_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(admin_url, autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{name}"')
    return name, f"{admin_url.rsplit('/', 1)[0]}/{name}"


def drop_database(admin_url: str, name: str) -> None:
    with psycopg.connect(admin_url, autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def sqlalchemy_url(url: str) -> str:
    return url.replace("postgresql://", "postgresql+psycopg://", 1)


def winning_lines(count: int) -> list[str]:
    """Real winning lines (notation, space-separated) of the first deals the solver wins quickly."""
    from service.solver import solve

    lines, deal = [], 0
    while len(lines) < count and deal < 200:
        solution = solve(Game.from_code(GameCode(draw=1, deal=deal)), budget_ms=2000)
        if solution.verdict == "winnable":
            lines.append(" ".join(str(action) for action in solution.line))
        deal += 1
    return lines


def load(url: str, games: int, players: int, daily: str, lines: list[str]) -> float:
    """Players and games with set-based SQL (the indexes maintained as rows arrive); seconds taken."""
    start = time.perf_counter()
    with psycopg.connect(url) as connection:
        connection.execute(
            "INSERT INTO players (id, name, token_hash, created_at) "
            "SELECT 'bp' || lpad(n::text, 8, '0'), 'player ' || n, md5(n::text) || md5((n + 1)::text), "
            "now() - interval '400 days' FROM generate_series(0, %(players)s - 1) AS n", {"players": players})
        # A fifth anonymous; the rest Zipf-like (a few players win a lot); 2 % of wins on the daily deal.
        connection.execute("""
            INSERT INTO games (id, code, deal, draw, player_id, token_hash, status, score, moves, undos, version,
                               hints, winnable, state, created_at, updated_at, finished_at, duration_ms, line)
            SELECT 'bg' || lpad(n::text, 14, '0'), g.code, 0, g.draw,
                   CASE WHEN random() < 0.2 THEN NULL
                        ELSE 'bp' || lpad(floor(%(players)s * power(random(), 4))::int::text, 8, '0') END,
                   NULL, g.status, g.score, g.moves, g.undos, g.moves + g.undos, 0, NULL, '{}'::jsonb,
                   g.finished - make_interval(secs => g.ms / 1000.0), g.finished,
                   CASE WHEN g.status = 'won' THEN g.finished END,
                   CASE WHEN g.status = 'won' THEN g.ms END,
                   CASE WHEN g.status = 'won' THEN (%(lines)s::text[])[1 + n %% %(k)s] END
            FROM generate_series(1, %(total)s) AS n,
            LATERAL (SELECT
                CASE WHEN n > %(games)s THEN 'playing' ELSE 'won' END AS status,
                CASE WHEN random() < 0.02 THEN %(daily)s
                     ELSE 'TF1-D' || d.draw || 'N-' || chr(65 + (random() * 25)::int) || 'AAAA'
                          || chr(65 + (random() * 25)::int) || chr(65 + (random() * 25)::int) END AS code,
                d.draw,
                greatest(0, (700 + 150 * (random() + random() + random() - 1.5) * 2)::int) AS score,
                90 + (random() * 310)::int AS moves, (random() * 3)::int AS undos,
                60000 + (random() * 3540000)::bigint AS ms,
                timestamptz '2026-11-29 12:00Z' - make_interval(secs => random() * 365 * 86400) AS finished
                FROM (SELECT CASE WHEN random() < 0.7 THEN 1 ELSE 3 END AS draw, n AS seed) AS d) AS g
        """, {"players": players, "games": games, "total": games + games // 10, "daily": daily,
              "lines": lines, "k": len(lines)})
        connection.commit()
        connection.autocommit = True
        connection.execute("VACUUM ANALYZE games")
        connection.execute("ANALYZE players")
    return time.perf_counter() - start


def positions(url: str, daily: str) -> dict:
    """Cursors deep in the board and in the middle of the feed, and the number of wins."""
    from service.usecases.cursors import BOARD_CURSOR, FEED_CURSOR

    with psycopg.connect(url) as connection:
        wins = connection.execute("SELECT count(*) FROM games WHERE status = 'won'").fetchone()[0]
        score, moves, ms, finished, game = connection.execute(
            "SELECT score, moves, duration_ms, finished_at, id FROM games WHERE status = 'won' "
            "ORDER BY score DESC, moves, duration_ms, finished_at, id OFFSET %s LIMIT 1",
            (min(DEPTH, wins // 2) - 1,)).fetchone()
        at, middle = connection.execute(
            "SELECT finished_at, id FROM games WHERE status = 'won' ORDER BY finished_at, id "
            "OFFSET %s LIMIT 1", (wins // 2,)).fetchone()
        daily_wins = connection.execute("SELECT count(*) FROM games WHERE status = 'won' AND code = %s",
                                        (daily,)).fetchone()[0]

    deep = BOARD_CURSOR.encode({"score": score, "moves": moves, "ms": ms, "finished": finished, "game": game})
    return {"deep": deep, "feed": FEED_CURSOR.encode({"at": at, "game": middle}), "wins": wins,
            "daily_wins": daily_wins}


# -- servers and load ----------------------------------------------------------------------


def start(app: str, url: str, args) -> AppServer:
    env = {"DATABASE_URL": sqlalchemy_url(url), "RATELIMIT_DEFAULT": "100000000 per minute", "ACCESS_LOG": ""}
    command = APPS[app]
    if args.no_rate_limit:
        env["RATELIMIT_ENABLED"] = "0"
    if args.no_tag_cache:
        env["BOARD_TAG_CACHE"] = "0"
    if args.pre_ping:  # both sides: the floor's connection check stands for the pool's ping
        env["FLOOR_PING"] = "1"
        if app == "service":
            command = ["service:create_app({'SQLALCHEMY_ENGINE_OPTIONS': "
                       "{'pool_pre_ping': True, 'hide_parameters': True}})"]
    PORTS[app] = PORTS.get(app) or free_port()
    *options, target = command
    return AppServer(env, port=PORTS[app], app=target, options=tuple(options)).start(timeout=60)


def get(conn: http.client.HTTPConnection, path: str, headers: dict) -> tuple[int, bytes, dict]:
    conn.request("GET", path, headers=headers)
    response = conn.getresponse()
    return response.status, response.read(), dict(response.getheaders())


def hammer(port: int, path: str, headers: dict, expect: int, clients: int, duration: float,
           reconnect: int = 50) -> Result:
    """``clients`` threads GET ``path`` for ``duration`` seconds; answers with status ``expect`` count."""
    result = Result()
    lock = threading.Lock()
    gate = threading.Barrier(clients + 1)
    deadline = [0.0]

    def client() -> None:
        latencies, good, errors, sent = [], 0, 0, 0
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        gate.wait()
        try:
            while time.perf_counter() < deadline[0]:
                began = time.perf_counter()
                try:
                    status, _, _ = get(conn, path, headers)
                except (OSError, http.client.HTTPException):
                    conn.close()
                    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
                    errors += 1
                    continue
                latencies.append(time.perf_counter() - began)
                if status == expect:
                    good += 1
                else:
                    errors += 1
                sent += 1
                if sent % reconnect == 0:
                    conn.close()
                    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        finally:
            conn.close()
            with lock:
                result.latencies.extend(latencies)
                result.answers += good
                result.errors += errors

    threads = [threading.Thread(target=client, daemon=True) for _ in range(clients)]
    for thread in threads:
        thread.start()
    began = time.perf_counter()
    deadline[0] = began + duration
    gate.wait()
    for thread in threads:
        thread.join()
    result.seconds = time.perf_counter() - began
    return result


def summary(results: list[Result]) -> dict:
    merged = Result(latencies=[x for r in results for x in r.latencies])
    return {"rate": statistics.median(r.rate for r in results), "p50": merged.percentile(50),
            "p99": merged.percentile(99), "errors": sum(r.errors for r in results)}


def compare(label: str, sides: dict, args) -> dict:
    """Alternating rounds of each side ({name: (port, path, headers, expected status)}); the ratio a/b."""
    names = list(sides)
    for name in names:  # warm up: imports, connections, prepared statements
        port, path, headers, expect = sides[name]
        hammer(port, path, headers, expect, args.clients, args.warmup)
    rounds: dict[str, list[Result]] = {name: [] for name in names}
    for number in range(args.rounds):
        for name in (names if number % 2 == 0 else names[::-1]):
            port, path, headers, expect = sides[name]
            rounds[name].append(hammer(port, path, headers, expect, args.clients, args.duration))
    stats = {name: summary(results) for name, results in rounds.items()}
    ratio = statistics.median(a.rate / b.rate for a, b in zip(rounds[names[0]], rounds[names[1]], strict=True))
    for name in names:
        s = stats[name]
        print(f"  {label:24} {name:12} {s['rate']:8.0f} req/s  p50 {s['p50']:7.2f} ms  p99 {s['p99']:7.2f} ms"
              f"  errors {s['errors']}", flush=True)
    return {"ratio": ratio, **stats}


def worker_pids(master: int) -> list[int]:
    with contextlib.suppress(OSError):
        text = Path(f"/proc/{master}/task/{master}/children").read_text()
        return [int(pid) for pid in text.split()]
    return []


def rss_kb(pid: int) -> int:
    with contextlib.suppress(OSError):
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def export(port: int, master: int) -> dict:
    """Stream the whole NDJSON feed, as a mirroring tool does: streams of ``STREAM_ROWS`` entries, each
    resumed from the last one's cursor, until ``more`` is false. Rows/s, and the largest growth of a
    worker's resident memory."""
    pids = worker_pids(master)
    before = {pid: rss_kb(pid) for pid in pids}
    peak = dict(before)
    done = threading.Event()

    def sample() -> None:
        while not done.is_set():
            for pid in pids:
                peak[pid] = max(peak[pid], rss_kb(pid))
            time.sleep(0.02)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
    rows, streams, cursor, more = 0, 0, None, True
    began = time.perf_counter()
    while more:
        query = f"?limit={STREAM_ROWS}" + (f"&cursor={quote(cursor)}" if cursor else "")
        conn.request("GET", f"/v1/games/finished{query}", headers={"Accept": "application/x-ndjson"})
        response = conn.getresponse()
        lines, tail = 0, b""
        while chunk := response.read(1 << 16):
            lines += chunk.count(b"\n")
            tail = (tail + chunk)[-4096:]
        end = json.loads(tail.rstrip(b"\n").rsplit(b"\n", 1)[-1])
        assert response.status == 200 and end["count"] == lines - 1, (response.status, end)
        rows, streams, cursor, more = rows + end["count"], streams + 1, end["resume"], end["more"]
    seconds = time.perf_counter() - began
    conn.close()
    done.set()
    sampler.join()
    growth = max((peak[pid] - before[pid] for pid in pids), default=0) / 1024
    return {"rows": rows, "streams": streams, "seconds": seconds, "rate": rows / seconds, "growth_mb": growth}


# -- the run -------------------------------------------------------------------------------


def run(url: str, args, daily: str) -> None:
    print(f"load average (1 min) at the start: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores", flush=True)
    where = positions(url, daily)
    print(f"{where['wins']:,} wins; daily deal {daily} has {where['daily_wins']:,}", flush=True)
    processes = {}
    try:
        for app in APPS:
            processes[app] = start(app, url, args)
        cases = {
            "top-50 board": "/v1/leaderboard?limit=50",
            "deep page (10,000 down)": f"/v1/leaderboard?limit=50&cursor={quote(where['deep'])}",
            "daily deal's board": f"/v1/deals/{daily}/leaderboard?limit=50",
            "feed page (middle)": f"/v1/games/finished?limit=50&cursor={quote(where['feed'])}",
        }
        print(f"\n{args.clients} clients, gunicorn.conf.py (2 workers x 4 threads), {args.rounds} alternating "
              f"rounds of {args.duration:.0f} s; median of the round-pair ratios\n", flush=True)
        results = {}
        for label, path in cases.items():
            check = {app: get(http.client.HTTPConnection("127.0.0.1", PORTS[app], timeout=60), path, {})
                     for app in APPS}
            assert check["service"][0] == check["floor"][0] == 200, {app: c[0] for app, c in check.items()}
            assert check["service"][1] == check["floor"][1], f"{label}: the two bodies differ"
            results[label] = compare(label, {app: (PORTS[app], path, {}, 200) for app in APPS}, args)
        top = cases["top-50 board"]
        tag = get(http.client.HTTPConnection("127.0.0.1", PORTS["service"], timeout=60), top, {})[2]["ETag"]
        not_modified = compare("top-50: 304 vs 200", {
            "service 304": (PORTS["service"], top, {"If-None-Match": tag}, 304),
            "service 200": (PORTS["service"], top, {}, 200)}, args)
        if args.export_rounds:
            print("\nNDJSON export of every won game (one stream at a time)", flush=True)
        for app in APPS if args.export_rounds else ():  # warm up the stream path
            for _ in range(4):
                get(http.client.HTTPConnection("127.0.0.1", PORTS[app], timeout=60), "/v1/games/finished?limit=500",
                    {"Accept": "application/x-ndjson"})
        exports: dict[str, list[dict]] = {app: [] for app in APPS}
        for number in range(args.export_rounds):  # 0: no export
            for app in (list(APPS) if number % 2 == 0 else list(APPS)[::-1]):
                outcome = export(PORTS[app], processes[app].process.pid)
                exports[app].append(outcome)
                print(f"  {app:8} {outcome['rows']:,} rows in {outcome['streams']} streams, "
                      f"{outcome['seconds']:.1f} s: {outcome['rate']:,.0f} rows/s, "
                      f"worker RSS growth {outcome['growth_mb']:.1f} MB", flush=True)
    finally:
        for server in processes.values():
            server.stop()
    print("\nratios (target)")
    for label, result in results.items():
        verdict = "ok" if result["ratio"] >= 0.7 else "BELOW TARGET"
        print(f"  {label:24} service/floor {result['ratio']:.2f} (>= 0.70) {verdict}")
    verdict = "ok" if not_modified["ratio"] >= 3 else "BELOW TARGET"
    print(f"  {'304 path':24} 304/200       {not_modified['ratio']:.2f} (>= 3.00) {verdict}")
    if exports["service"]:
        ratio = statistics.median(s["rate"] / f["rate"] for s, f in zip(exports["service"], exports["floor"],
                                                                        strict=True))
        growth = max(outcome["growth_mb"] for outcome in exports["service"])
        verdict = "ok" if ratio >= 0.5 and growth <= 50 else "BELOW TARGET"
        print(f"  {'NDJSON export':24} service/floor {ratio:.2f} rows/s (>= 0.50), service RSS growth "
              f"{growth:.1f} MB (<= 50) {verdict}")
    print(f"load average (1 min) at the end: {os.getloadavg()[0]:.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=1_000_000)
    parser.add_argument("--players", type=int, default=20_000)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--duration", type=float, default=5.0)
    parser.add_argument("--export-rounds", type=int, default=2)
    parser.add_argument("--warmup", type=float, default=3.0, help="seconds of load on each side before a case")
    parser.add_argument("--admin-url", default="postgresql://postgres@127.0.0.1:5432/postgres")
    parser.add_argument("--pre-ping", action="store_true",
                        help="weigh the pool's pre-ping (off by default): on in the service, a SELECT 1 in the floor")
    parser.add_argument("--no-rate-limit", action="store_true", help="weigh the rate limiter: off in the service")
    parser.add_argument("--no-tag-cache", action="store_true",
                        help="weigh the tag cache: the service reads every board's tag (BOARD_TAG_CACHE=0)")
    parser.add_argument("--database-prefix", default="solitaire_bench_lb",
                        help="the scratch database's name before its random suffix (on a shared server)")
    parser.add_argument("--keep", action="store_true", help="keep the scratch database")
    parser.add_argument("--url", help="measure a database kept by an earlier --keep run (no load)")
    args = parser.parse_args()
    daily = str(GameCode(draw=1, deal=123_456))
    if args.url:
        run(args.url, args, daily)
        return
    name, url = create_database(args.admin_url, args.database_prefix)
    print(f"scratch database {name}", flush=True)
    try:
        migrate(sqlalchemy_url(url))
        lines = winning_lines(LINE_DEALS)
        print(f"{len(lines)} real winning lines, {min(map(len, lines))}-{max(map(len, lines))} characters",
              flush=True)
        seconds = load(url, args.games, args.players, daily, lines)
        print(f"loaded {args.games:,} won + {args.games // 10:,} playing games with INSERT ... SELECT "
              f"(10 indexes maintained, VACUUM ANALYZE included): {seconds:.1f} s", flush=True)
        run(url, args, daily)
    finally:
        if args.keep:
            print(f"kept {url} (measure it again with --url)")
        else:
            drop_database(args.admin_url, name)


if __name__ == "__main__":
    main()

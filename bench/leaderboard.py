"""Leaderboard queries through the API against the same SQL run directly (a report, not a test).

Creates a scratch PostgreSQL database, migrates it with ``flask db upgrade``, loads
``--games`` won games (default 1,000,000; plus 10 % games still being played, which
the partial indexes leave out) with COPY, then measures, alternating and taking
medians:

* top 50 of draw 1 (``/v1/leaderboard?draw=1``),
* draw 1 within a 30-day window (``?draw=1&since=…&until=…``),
* one player's best wins (``?player=…``),
* page 2 of the top 50 (whose ranks cost two COUNTs inside the same statement),

each through the Flask app as served (test client: routing, query parsing, the
rate limiter, the pooled connection and its pre-ping, SQLAlchemy, JSON; also
without the limiter and without pre-ping) and as the very statement the view
executes (same SQL text, same parameters, same rows) with psycopg. Prints the
load time, the medians of alternating runs and the ratio (target: API <= 2x raw
SQL), and each query's ``EXPLAIN ANALYZE`` plan, flagging any sequential scan.
Run ``python bench/leaderboard.py`` (``--games 100000`` for a short run). The
scratch database is dropped at the end unless ``--keep``; ``--url`` measures a
kept one again.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import psycopg  # noqa: E402

from service import create_app  # noqa: E402
from service.api.leaderboards import _decode, leaderboard_page, page_query  # noqa: E402
from service.engine import GameCode  # noqa: E402
from service.extensions import db  # noqa: E402

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
COLUMNS = ("id", "code", "deal", "draw", "player_id", "token_hash", "status", "score", "moves", "undos",
           "version", "hints", "winnable", "state", "created_at", "updated_at", "finished_at", "duration_ms")


def create_database(admin_url: str) -> tuple[str, str]:
    name = f"solitaire_bench_lb_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(admin_url, autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{name}"')
    base = admin_url.rsplit("/", 1)[0]
    return name, f"{base}/{name}"


def drop_database(admin_url: str, name: str) -> None:
    with psycopg.connect(admin_url, autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def migrate(sqlalchemy_url: str) -> None:
    env = {**os.environ, "DATABASE_URL": sqlalchemy_url}
    subprocess.run([sys.executable, "-m", "flask", "--app", "service", "db", "upgrade"], cwd=ROOT, env=env,
                   check=True, capture_output=True)


def load(url: str, games: int, players: int, rng: random.Random) -> tuple[float, list[str]]:
    """COPY players and games; return the seconds it took (ANALYZE included) and the player ids."""
    start = time.perf_counter()
    player_ids = [f"bp{n:08d}" for n in range(players)]
    with psycopg.connect(url) as connection, connection.cursor() as cursor:
        with cursor.copy("COPY players (id, name, token_hash, created_at) FROM STDIN") as copy:
            for n, player in enumerate(player_ids):
                copy.write_row((player, f"player {n}", f"{n:064x}", NOW - timedelta(days=400)))
        total = games + games // 10
        with cursor.copy(f"COPY games ({', '.join(COLUMNS)}) FROM STDIN") as copy:
            for n in range(total):
                won = n < games
                draw = 1 if rng.random() < 0.7 else 3
                deal = rng.randrange(200_000)
                # A few players play a lot (Zipf-like), a fifth of the games are anonymous.
                player = None if rng.random() < 0.2 else player_ids[min(int(rng.paretovariate(1.2)) - 1,
                                                                        players - 1)]
                score = max(0, int(rng.gauss(700, 150))) if won else rng.randrange(400)
                moves = rng.randrange(90, 400)
                ms = rng.randrange(60_000, 3_600_000)
                finished = NOW - timedelta(seconds=rng.randrange(365 * 86400), microseconds=rng.randrange(10**6))
                created = finished - timedelta(milliseconds=ms)
                copy.write_row((
                    f"bg{n:014d}", str(GameCode(draw=draw, deal=deal)), deal, draw, player,
                    None, "won" if won else "playing", score, moves, 0, moves, 0, None, "{}", created,
                    finished if won else created, finished if won else None, ms if won else None,
                ))
        connection.commit()
        connection.autocommit = True
        cursor.execute("VACUUM ANALYZE games")
        cursor.execute("ANALYZE players")
    return time.perf_counter() - start, player_ids


def busiest_player(url: str) -> str:
    with psycopg.connect(url) as connection:
        return connection.execute(
            "SELECT player_id FROM games WHERE status = 'won' AND player_id IS NOT NULL "
            "GROUP BY player_id ORDER BY count(*) DESC LIMIT 1 OFFSET 5").fetchone()[0]


def compiled(statement, params: dict, dialect) -> tuple[str, dict]:
    """The SQL text and parameters SQLAlchemy sends to psycopg for this statement."""
    query = statement.compile(dialect=dialect)
    return str(query), query.construct_params(params)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=1_000_000)
    parser.add_argument("--players", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=300)
    parser.add_argument("--admin-url", default="postgresql://postgres@127.0.0.1:5432/postgres")
    parser.add_argument("--keep", action="store_true", help="keep the scratch database")
    parser.add_argument("--url", help="measure a database kept by an earlier --keep run (no load)")
    args = parser.parse_args()
    rng = random.Random(5)

    if args.url:
        run(args.url, args.url.replace("postgresql://", "postgresql+psycopg://", 1), args.rounds)
        return
    name, url = create_database(args.admin_url)
    sqlalchemy_url = url.replace("postgresql://", "postgresql+psycopg://", 1)
    print(f"scratch database {name}")
    try:
        migrate(sqlalchemy_url)
        seconds, _players = load(url, args.games, args.players, rng)
        print(f"loaded {args.games:,} won + {args.games // 10:,} playing games with COPY "
              f"(6 indexes maintained, VACUUM ANALYZE included): {seconds:.1f} s")
        run(url, sqlalchemy_url, args.rounds)
    finally:
        if args.keep:
            print(f"kept {url} (measure it again with --url)")
        else:
            drop_database(args.admin_url, name)


# A limit the bench never reaches: the limiter does all its work on every request, as served.
UNREACHED = "100000000 per minute"

SIDES = """\
API     GET through the Flask test client of the app as served: routing, query-string
        parsing, the per-address rate limit (memory storage; limit set out of reach),
        a pooled connection (pool_pre_ping: one SELECT 1 round trip per checkout), the
        statement (SQLAlchemy compiled cache), rows to JSON, the response.
no-lim  the same with RATELIMIT_ENABLED false.
no-ping the same as API without pool_pre_ping.
view    the service's data path alone: leaderboard_page() called in an app context
        (pooled connection with its ping, the statement, rows to dicts), no HTTP.
SQL     the API's statement: the SQL text and parameters SQLAlchemy sends, executed and
        fetched (all rows: limit + 1) with psycopg on one open autocommit connection.
Both sides use psycopg's default prepare_threshold (prepared after 5 executions).
Medians of alternating runs; target API <= 2x SQL."""


def run(url: str, sqlalchemy_url: str, rounds: int) -> None:
    apps = {
        "API": create_app({"DATABASE_URL": sqlalchemy_url, "RATELIMIT_DEFAULT": UNREACHED}),
        "no-lim": create_app({"DATABASE_URL": sqlalchemy_url, "RATELIMIT_ENABLED": False}),
        "no-ping": create_app({"DATABASE_URL": sqlalchemy_url, "RATELIMIT_DEFAULT": UNREACHED,
                               "SQLALCHEMY_ENGINE_OPTIONS": {}}),
    }
    clients = {name: app.test_client() for name, app in apps.items()}
    client = clients["API"]
    player = busiest_player(url)
    since, until = NOW - timedelta(days=60), NOW - timedelta(days=30)
    first = client.get("/v1/leaderboard?draw=1&limit=50").get_json()
    cases = [
        ("top 50, draw 1", "/v1/leaderboard?draw=1&limit=50", {"draw": 1}, None),
        ("draw 1, 30-day window", f"/v1/leaderboard?draw=1&limit=50&since={since:%Y-%m-%dT%H:%M:%SZ}"
         f"&until={until:%Y-%m-%dT%H:%M:%SZ}", {"draw": 1, "since": since, "until": until}, None),
        ("one player's wins", f"/v1/leaderboard?player={player}&limit=50", {"player": player}, None),
        ("page 2, draw 1", f"/v1/leaderboard?draw=1&limit=50&cursor={first['next']}", {"draw": 1},
         first["next"]),
    ]
    with apps["API"].app_context():
        dialect = db.engine.dialect
    print(f"\n{SIDES}\n")
    header = "".join(f"{name:>9}" for name in [*clients, "view"])
    print(f"{'query':22} {'rows':>4}{header} {'SQL':>8} {'ratio':>6}  (ms, medians of {rounds})")
    with psycopg.connect(url, autocommit=True) as raw:
        for label, path, filters, cursor in cases:
            with apps["API"].test_request_context():
                statement, params = page_query(filters, _decode(cursor), 50)
            sql, values = compiled(statement, params, dialect)
            body = client.get(path).get_json()
            rows = len(raw.execute(sql, values).fetchall())
            # The same rows: the page plus the one that tells whether another page follows.
            assert rows == len(body["items"]) + (body["next"] is not None), (rows, len(body["items"]))
            times: dict[str, list[float]] = {name: [] for name in [*clients, "view", "SQL"]}
            for _ in range(10):  # warm every side (and let psycopg prepare on both)
                for each in clients.values():
                    each.get(path)
                raw.execute(sql, values).fetchall()
            for _ in range(rounds):
                for name, each in clients.items():
                    start = time.perf_counter()
                    response = each.get(path)
                    times[name].append(time.perf_counter() - start)
                    assert response.status_code == 200, response.status_code
                with apps["API"].app_context():
                    start = time.perf_counter()
                    leaderboard_page(filters, cursor, 50)
                    times["view"].append(time.perf_counter() - start)
                start = time.perf_counter()
                raw.execute(sql, values).fetchall()
                times["SQL"].append(time.perf_counter() - start)
            medians = {name: statistics.median(each) * 1000 for name, each in times.items()}
            api, sql_ms = medians["API"], medians["SQL"]
            flag = "" if api <= 2 * sql_ms else "  > 2x"
            cells = "".join(f"{medians[name]:9.3f}" for name in [*clients, "view"])
            print(f"{label:22} {rows:4d}{cells} {sql_ms:8.3f} {api / sql_ms:6.2f}{flag}"
                  f"  (view/SQL {medians['view'] / sql_ms:.2f})")
            case_plans.append((label, sql, values))
        print()
        for label, sql, values in case_plans:
            plan = [line for (line,) in raw.execute(f"EXPLAIN (ANALYZE, BUFFERS) {sql}", values).fetchall()]
            seq = any("Seq Scan" in line for line in plan)
            print(f"-- {label}: {'SEQ SCAN!' if seq else 'index scans only'}")
            print("\n".join(plan))
            print()
    for each in apps.values():
        with each.app_context():
            db.engine.dispose()


case_plans: list = []

if __name__ == "__main__":
    main()

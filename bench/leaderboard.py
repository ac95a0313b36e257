"""Leaderboard queries through the API against the same SQL run directly (a report, not a test).

Creates a scratch PostgreSQL database, migrates it with ``flask db upgrade``, loads
``--games`` won games (default 1,000,000; plus 10 % games still being played, which
the partial indexes leave out) with COPY, then measures, alternating and taking
medians:

* top 50 of draw 1 (``/v1/leaderboard?draw=1``),
* draw 1 within a 30-day window (``?draw=1&since=…&until=…``),
* one player's best wins (``?player=…``),
* page 2 of the top 50 (whose ranks cost two COUNTs inside the same statement),

each through the Flask app (test client: routing, query parsing, SQLAlchemy,
JSON) and as the very statement the view builds, compiled for PostgreSQL and
executed with psycopg. Prints the load time, both medians and their ratio
(target: API <= 2x raw SQL), and each query's ``EXPLAIN ANALYZE`` plan, flagging
any sequential scan. Run ``python bench/leaderboard.py`` (``--games 100000`` for a
short run). The scratch database is dropped at the end unless ``--keep``.
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
from service.api.leaderboards import _decode, board_filters, page_statement  # noqa: E402
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


def compiled(statement, dialect) -> tuple[str, dict]:
    query = statement.compile(dialect=dialect)
    return str(query), dict(query.params)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=1_000_000)
    parser.add_argument("--players", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=300)
    parser.add_argument("--admin-url", default="postgresql://postgres@127.0.0.1:5432/postgres")
    parser.add_argument("--keep", action="store_true", help="keep the scratch database")
    args = parser.parse_args()
    rng = random.Random(5)

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
            print(f"kept {url}")
        else:
            drop_database(args.admin_url, name)


def run(url: str, sqlalchemy_url: str, rounds: int) -> None:
    app = create_app({"DATABASE_URL": sqlalchemy_url, "RATELIMIT_ENABLED": False})
    client = app.test_client()
    # The same app without pool_pre_ping: the ping is one more round trip per request.
    unpinged = create_app({"DATABASE_URL": sqlalchemy_url, "RATELIMIT_ENABLED": False,
                           "SQLALCHEMY_ENGINE_OPTIONS": {}})
    client2 = unpinged.test_client()
    player = busiest_player(url)
    since, until = NOW - timedelta(days=60), NOW - timedelta(days=30)
    first = client.get("/v1/leaderboard?draw=1&limit=50").get_json()
    cases = [
        ("top 50, draw 1", "/v1/leaderboard?draw=1&limit=50", board_filters(draw=1), None),
        ("draw 1, 30-day window", f"/v1/leaderboard?draw=1&limit=50&since={since:%Y-%m-%dT%H:%M:%SZ}"
         f"&until={until:%Y-%m-%dT%H:%M:%SZ}", board_filters(draw=1, since=since, until=until), None),
        ("one player's wins", f"/v1/leaderboard?player={player}&limit=50", board_filters(player=player), None),
        ("page 2, draw 1", f"/v1/leaderboard?draw=1&limit=50&cursor={first['next']}", board_filters(draw=1),
         first["items"][-1]),
    ]
    with app.app_context():
        dialect = db.engine.dialect
    with psycopg.connect(url, autocommit=True) as raw:
        print(f"\n{'query':24} {'API ms':>8} {'SQL ms':>8} {'ratio':>6} {'API ms*':>8} {'ratio*':>6}"
              f"  (medians of {rounds}, alternating; * without pool_pre_ping)")
        for label, path, terms, last in cases:
            position = None
            if last is not None:  # page 2: the keyset and the two COUNTs of its ranks, one statement
                with app.test_request_context():
                    position = _decode(path.split("cursor=")[1])
            statements = [page_statement(terms, position, 50)]
            sqls = [compiled(statement, dialect) for statement in statements]
            assert client.get(path).status_code == 200
            api_times, sql_times, api2_times = [], [], []
            for _ in range(10):  # warm all three
                client.get(path)
                client2.get(path)
                for sql, params in sqls:
                    raw.execute(sql, params).fetchall()
            for _ in range(rounds):
                start = time.perf_counter()
                response = client.get(path)
                api_times.append(time.perf_counter() - start)
                assert response.status_code == 200
                start = time.perf_counter()
                for sql, params in sqls:
                    raw.execute(sql, params).fetchall()
                sql_times.append(time.perf_counter() - start)
                start = time.perf_counter()
                client2.get(path)
                api2_times.append(time.perf_counter() - start)
            api, sql = statistics.median(api_times) * 1000, statistics.median(sql_times) * 1000
            api2 = statistics.median(api2_times) * 1000
            flag = "" if api <= 2 * sql else "  > 2x"
            print(f"{label:24} {api:8.3f} {sql:8.3f} {api / sql:6.2f} {api2:8.3f} {api2 / sql:6.2f}{flag}")
            case_plans.append((label, sqls))
        print()
        for label, sqls in case_plans:
            for sql, params in sqls:
                plan = [line for (line,) in raw.execute(f"EXPLAIN (ANALYZE, BUFFERS) {sql}", params).fetchall()]
                seq = any("Seq Scan" in line for line in plan)
                print(f"-- {label}: {'SEQ SCAN!' if seq else 'index scans only'}")
                print("\n".join(plan))
                print()
    for each in (app, unpinged):
        with each.app_context():
            db.engine.dispose()


case_plans: list = []

if __name__ == "__main__":
    main()

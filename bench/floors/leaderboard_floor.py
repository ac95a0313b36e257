"""The floor of the leaderboard reads: the same SQL and the same JSON, and nothing else.

A bare Flask app with the service's URLs for the boards and the feed
(``bench/leaderboard`` drives both under the same gunicorn settings). Each
request runs, with psycopg on a per-thread autocommit connection, the very SQL
the service sends: the text compiled once from the service's own statements (the board's ETag
statement, then the page), and builds the same JSON body. No query validation,
no rate limiter, no pool, no SQLAlchemy at request time. An NDJSON stream is a
plain psycopg server-side cursor loop, bounded by ``limit`` as the service's is.

    DATABASE_URL=postgresql://… gunicorn -c gunicorn.conf.py --pythonpath bench/floors 'leaderboard_floor:create_app()'
"""

from __future__ import annotations

import base64
import json
import os
import sys
import threading
from datetime import UTC, datetime, timedelta
from functools import cache
from pathlib import Path

import psycopg
from flask import Flask, Response, request
from sqlalchemy.dialects import postgresql

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from service.store.feed import feed_statement, tag_statement  # noqa: E402
from service.store.leaderboards import page_statement  # noqa: E402  (only to compile the same SQL text)
from service.usecases.boards import STREAM_BATCH  # noqa: E402  (the same chunks as the service's stream)

DIALECT = postgresql.psycopg.dialect()
SETTLE = timedelta(milliseconds=int(os.environ.get("FEED_SETTLE_MS", "2000")))
_local = threading.local()
#: FLOOR_PING=1 when the service runs with the pool's pre-ping (bench/leaderboard --pre-ping): a
#: ``SELECT 1`` before each request's statements stands for the ping. The service's default has none.
PING = os.environ.get("FLOOR_PING", "0") == "1"


@cache
def compiled(kind: str, *shape) -> tuple[str, dict]:
    """The service's statement of this kind and shape as psycopg's SQL text, and its fixed values (LIMIT 1)."""
    statement = {"page": page_statement, "feed": feed_statement, "tag": tag_statement}[kind](*shape)
    query = statement.compile(dialect=DIALECT)
    return str(query), {name: value for name, value in query.params.items() if value is not None}


def execute(conn, kind: str, shape: tuple, params: dict):
    text, fixed = compiled(kind, *shape)
    return conn.execute(text, {**fixed, **params})


def connection() -> psycopg.Connection:
    """This thread's connection, checked with one round trip as the service's pool checks its own."""
    conn = getattr(_local, "conn", None)
    if conn is None or conn.closed:
        conn = _local.conn = psycopg.connect(_url(), autocommit=True)
    if PING:
        conn.execute("SELECT 1").fetchall()
    return conn


def _url() -> str:
    return os.environ["DATABASE_URL"].replace("postgresql+psycopg://", "postgresql://", 1)


def decode(cursor: str | None) -> dict | None:
    if not cursor:
        return None
    return json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))


def encode(position: dict) -> str:
    return base64.urlsafe_b64encode(json.dumps(position, separators=(",", ":")).encode()).decode().rstrip("=")


def iso_ms(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="milliseconds")[:23] + "Z"


def iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat()


def tag(conn, shape: tuple, params: dict) -> str:
    row = execute(conn, "tag", (shape, True), {**params, "lag": SETTLE}).fetchone()
    return "" if row is None else f"{row[0].isoformat()}|{row[1]}|{row[2]}"


def board(filters: dict) -> Response:
    after = decode(request.args.get("cursor"))
    limit = int(request.args.get("limit", 50))
    shape = tuple(name for name in ("draw", "code") if name in filters)
    conn = connection()
    etag = tag(conn, shape, filters)
    params = {**filters, "rows": limit + 1}
    if after:
        params.update(after, finished=datetime.fromisoformat(after["finished"]))
    rows = execute(conn, "page", (shape, after is not None), params).fetchall()
    more = len(rows) > limit
    rows = rows[:limit]
    items, previous, rank, index = [], None, 0, 0
    if rows and after:
        index, rank = rows[0][-2], rows[0][-1] + 1
        previous = (after["score"], after["moves"], after["ms"])
    for game, code, draw, player, name, score, moves, ms, finished, *_ in rows:
        index += 1
        if (score, moves, ms) != previous:
            rank, previous = index, (score, moves, ms)
        items.append({"rank": rank, "game": game, "code": code, "draw": draw, "player": player,
                      "player_name": name, "score": score, "moves": moves, "seconds": ms / 1000,
                      "finished_at": iso_ms(finished)})
    next_cursor = None
    if more:
        game, _, _, _, _, score, moves, ms, finished, *_ = rows[-1]
        next_cursor = encode({"score": score, "moves": moves, "ms": ms, "finished": iso(finished),
                              "game": game})
    body = json.dumps({"items": items, "next": next_cursor}, ensure_ascii=False, separators=(",", ":"))
    return Response(body, mimetype="application/json", headers={"ETag": etag})


def entry(row) -> dict:
    game, code, draw, player, name, score, moves, undos, hints, ms, finished, line = row
    return {"id": game, "code": code, "draw": draw, "player": None if player is None else {"id": player, "name": name},
            "score": score, "moves": moves, "undos": undos, "hints": hints, "duration_ms": ms,
            "finished_at": iso_ms(finished), "line": line}


def create_app() -> Flask:
    app = Flask(__name__)

    @app.get("/healthz")
    def healthz():
        return {"status": "ok"}

    @app.get("/v1/leaderboard")
    def leaderboard():
        return board({})

    @app.get("/v1/deals/<code>/leaderboard")
    def deal_board(code):
        return board({"code": code})

    @app.get("/v1/games/finished")
    def finished():
        after = decode(request.args.get("cursor"))
        horizon = datetime.now(UTC) - SETTLE
        params = {"horizon": horizon}
        if after:
            params.update(at=datetime.fromisoformat(after["at"]), game=after["game"])
        if request.headers.get("Accept") == "application/x-ndjson":
            limit = int(request.args.get("limit", 10_000))
            return Response(stream(params, after is not None, limit, request.args.get("cursor")),
                            mimetype="application/x-ndjson")
        limit = int(request.args.get("limit", 50))
        conn = connection()
        etag = tag(conn, ("until",), {"until": horizon})
        rows = execute(conn, "feed", ((), after is not None, True), {**params, "rows": limit + 1}).fetchall()
        more = len(rows) > limit
        rows = rows[:limit]
        resume = encode({"at": iso(rows[-1][10]), "game": rows[-1][0]}) if rows else None
        body = json.dumps({"items": [entry(row) for row in rows], "next": resume if more else None,
                           "resume": resume}, ensure_ascii=False, separators=(",", ":"))
        return Response(body, mimetype="application/json", headers={"ETag": etag})

    return app


def stream(params: dict, after: bool, limit: int, cursor: str | None):
    """Up to ``limit`` feed rows from a psycopg server-side cursor, as NDJSON, then the resume line."""
    dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
    count, last, more = 0, None, False
    with psycopg.connect(_url()) as conn, conn.cursor(name="feed") as cursor:
        cursor.itersize = STREAM_BATCH
        text, fixed = compiled("feed", (), after, True)
        cursor.execute(text, {**fixed, **params, "rows": limit + 1})
        while rows := cursor.fetchmany(STREAM_BATCH):
            if count + len(rows) > limit:
                rows, more = rows[:limit - count], True
            if rows:
                count += len(rows)
                last = rows[-1]
                yield ("\n".join(dumps(entry(row)) for row in rows) + "\n").encode()
    resume = encode({"at": iso(last[10]), "game": last[0]}) if last else cursor
    yield (dumps({"resume": resume, "count": count, "more": more}) + "\n").encode()

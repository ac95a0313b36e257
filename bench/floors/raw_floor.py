"""The framework-free floor: one action's database work as a plain WSGI callable.

No Flask, no Werkzeug, no SQLAlchemy: ``sqlite3`` or psycopg 3 directly, one
connection per thread. It runs on a database migrated by the service's own
migrations (same tables, same indexes) and does what the service must do for
``draw`` and ``recycle``, nothing more:

* the bearer token's SHA-256 compared in constant time with the row's ``token_hash``;
* the game row under its write lock (a per-process lock, then ``BEGIN IMMEDIATE``
  polled in short steps on SQLite, as service/store/db.py does; ``SELECT … FOR
  UPDATE`` on PostgreSQL);
* the state changed in the engine's encoding (``Game.to_state``: stock in drawing
  order, one undo record per action, at most 100), the same UPDATE of the game's
  columns and INSERT of its history row, commit;
* an answer of the service's shape and size, with the service's headers.

``GET /v1/games/{id}`` reads the row and answers the game view. ``POST /v1/games``
deals a shuffled game (not the service's deal: the floor never replays one), so that
``bench/drivers/api_load.py`` drives both alike. bench/api checks that the answers have
the same size and keys as the service's::

    DATABASE_URL=URL gunicorn -c gunicorn.conf.py --pythonpath bench/floors 'raw_floor:create_app()'

``create_flask_app()`` puts the same callable behind a bare Flask app (``bench/api
--flask-floor``): what Flask's routing, request context and response cost alone.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import random
import re
import secrets
import sqlite3
import string
import threading
import time
from datetime import UTC, datetime

UNDO_LIMIT = 100
RANKS, SUITS = "A23456789TJQK", "SHDC"
_ROUTE = re.compile(r"^/v1/games/([A-Za-z0-9_-]{1,24})(?:/(draw|recycle))?$")
_COMMON_HEADERS = [("X-Content-Type-Options", "nosniff"), ("Referrer-Policy", "no-referrer")]
_COLUMNS = ("id, code, deal, draw, player_id, token_hash, status, score, moves, undos, version, hints, "
            "winnable, state, created_at, updated_at, finished_at, duration_ms, line")


def new_state(draw: int) -> dict:
    """A fresh state in ``Game.to_state``'s encoding: 28 tableau cards, 24 in the stock."""
    deck = [rank + suit for suit in SUITS for rank in RANKS]
    random.shuffle(deck)
    tableau = [deck[n * (n - 1) // 2: n * (n + 1) // 2] for n in range(1, 8)]
    code = f"TF1-D{draw}N-" + "".join(random.choices(string.ascii_uppercase, k=7))
    return {"v": 1, "code": code, "tableau": tableau, "stock": deck[28:], "waste": [], "waste_fan": 0,
            "foundations": [0, 0, 0, 0], "score": 0, "moves": 0, "undos": 0, "arrived": 0, "undo_stack": [],
            "undo_dropped": False}


def apply(state: dict, action: str) -> dict | None:
    """Draw or recycle on ``state`` in place (draw 1); the answer's ``last``, None when refused."""
    fan_before, points = state["waste_fan"], 0
    if action == "draw" and state["stock"]:
        cards = [state["stock"].pop(0)]
        state["waste"].append(cards[0])
        state["waste_fan"] = 1
        record, last = [5, 0, 0, 1, 0, -1, fan_before], {"action": "draw"}
        moved = ("stock", "waste")
    elif action == "recycle" and not state["stock"] and state["waste"]:
        cards = state["waste"]
        state["stock"], state["waste"], state["waste_fan"] = cards, [], 0
        points = max(-100, -state["score"])
        state["score"] += points
        record, last = [6, 0, 0, len(cards), points, -1, fan_before], {"action": "recycle"}
        moved = ("waste", "stock")
    else:
        return None
    stack = state["undo_stack"]
    if len(stack) == UNDO_LIMIT:
        del stack[0]
        state["undo_dropped"] = True
    stack.append(record)
    state["moves"] += 1
    last.update(points=points, cards=list(cards), moved_from=moved[0], moved_to=moved[1])
    return last


def _iso(moment: datetime | str | None) -> str | None:
    if moment is None:
        return None
    if isinstance(moment, str):  # SQLite keeps the text SQLAlchemy wrote, without a zone
        moment = datetime.fromisoformat(moment).replace(tzinfo=UTC)
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def view(row: dict, state: dict) -> dict:
    """The service's game view (service/api/present.game_json) from a row and its state."""
    won = state["foundations"] == [13, 13, 13, 13]
    return {
        "id": row["id"], "code": state["code"], "draw": row["draw"], "status": "won" if won else "playing",
        "score": state["score"], "moves": state["moves"], "undos": state["undos"],
        "version": state["moves"] + state["undos"], "tableau": state["tableau"],
        "foundations": dict(zip(SUITS, state["foundations"], strict=True)), "stock": len(state["stock"]),
        "waste": state["waste"], "waste_fan": state["waste_fan"], "can_undo": bool(state["undo_stack"]) and not won,
        "hints": row["hints"], "created_at": _iso(row["created_at"]), "finished_at": _iso(row["finished_at"]),
        "seconds": None if row["duration_ms"] is None else row["duration_ms"] / 1000,
        "player": row["player_id"], "winnable": row["winnable"],
    }


class Database:
    """One connection per thread; ``write()`` is a transaction under the game's write lock."""

    def __init__(self, url: str) -> None:
        self.sqlite = url.startswith("sqlite")
        self.url = url.split("///", 1)[1] if self.sqlite else url.replace("+psycopg", "")
        self.marker = "?" if self.sqlite else "%s"
        self.local = threading.local()
        self.writer = threading.Lock()

    def connection(self):
        connection = getattr(self.local, "connection", None)
        if connection is None:
            if self.sqlite:
                connection = sqlite3.connect(self.url, isolation_level=None, check_same_thread=False)
                connection.execute("PRAGMA journal_mode = WAL")
                connection.execute("PRAGMA synchronous = NORMAL")
                connection.execute("PRAGMA foreign_keys = ON")
                connection.execute("PRAGMA busy_timeout = 0")  # BEGIN IMMEDIATE polls instead (below)
            else:
                import psycopg
                from psycopg.rows import dict_row

                connection = psycopg.connect(self.url, row_factory=dict_row)
            self.local.connection = connection
        return connection

    def sql(self, text: str) -> str:
        return text.replace("?", self.marker)

    def fetch_game(self, cursor, game_id: str, lock: bool) -> dict | None:
        query = f"SELECT {_COLUMNS} FROM games WHERE id = ?" + (" FOR UPDATE" if lock and not self.sqlite else "")
        cursor.execute(self.sql(query), (game_id,))
        row = cursor.fetchone()
        if row is None:
            return None
        if self.sqlite:
            row = dict(zip(_COLUMNS.split(", "), row, strict=True))
            row["state"] = json.loads(row["state"])
        return row

    def begin_write(self, connection) -> None:
        if not self.sqlite:
            return  # psycopg opens the transaction with the first statement
        self.writer.acquire()
        pause, deadline = 0.0002, time.monotonic() + 10
        while True:
            try:
                connection.execute("BEGIN IMMEDIATE")
                return
            except sqlite3.OperationalError as error:
                if "locked" not in str(error) or time.monotonic() > deadline:
                    self.writer.release()
                    raise
            time.sleep(pause)
            pause = min(pause * 2, 0.002)

    def end_write(self, connection, commit: bool) -> None:
        try:
            if self.sqlite:
                connection.execute("COMMIT" if commit else "ROLLBACK")
            elif commit:
                connection.commit()
            else:
                connection.rollback()
        finally:
            if self.sqlite:
                self.writer.release()

    def document(self, value: dict):
        if self.sqlite:
            return json.dumps(value, separators=(",", ":"))  # the service stores compact JSON
        from psycopg.types.json import Jsonb

        return Jsonb(value)

    def moment(self, value: datetime):
        # SQLAlchemy's SQLite DateTime stores naive text; PostgreSQL takes the aware value.
        return value.replace(tzinfo=None).isoformat(" ") if self.sqlite else value


def _answer(start_response, status: str, body: dict, headers: list) -> list[bytes]:
    data = json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode()
    start_response(status, [("Content-Type", "application/json"), ("Content-Length", str(len(data))),
                            *headers, *_COMMON_HEADERS])
    return [data]


def _problem(start_response, status: str, code: str) -> list[bytes]:
    return _answer(start_response, status, {"code": code}, [("Cache-Control", "no-store")])


def create_app():
    """The WSGI callable, on ``DATABASE_URL``."""
    database = Database(os.environ["DATABASE_URL"])

    def create(environ, start_response):
        length = int(environ.get("CONTENT_LENGTH") or 0)
        draw = json.loads(environ["wsgi.input"].read(length) or b"{}").get("draw", 1)
        state, game_id, token = new_state(draw), secrets.token_urlsafe(12), secrets.token_urlsafe(32)
        now = datetime.now(UTC)
        connection = database.connection()
        connection.execute(database.sql(
            "INSERT INTO games (id, code, deal, draw, token_hash, status, score, moves, undos, version, hints, "
            "state, created_at, updated_at) VALUES (?, ?, 0, ?, ?, 'playing', 0, 0, 0, 0, 0, ?, ?, ?)"),
            (game_id, state["code"], draw, hashlib.sha256(token.encode()).hexdigest(), database.document(state),
             database.moment(now), database.moment(now)))
        if not database.sqlite:
            connection.commit()
        row = {"id": game_id, "draw": draw, "hints": 0, "created_at": now, "finished_at": None,
               "duration_ms": None, "player_id": None, "winnable": None}
        return _answer(start_response, "201 Created", {**view(row, state), "token": token},
                       [("ETag", '"0"'), ("Location", f"/v1/games/{game_id}"), ("Cache-Control", "no-store")])

    def read(game_id, start_response):
        connection = database.connection()
        if not database.sqlite:
            connection.autocommit = True  # one statement: no BEGIN and ROLLBACK around it, as the service
        try:
            row = database.fetch_game(connection.cursor(), game_id, lock=False)
        finally:
            if not database.sqlite:
                connection.autocommit = False
        if row is None:
            return _problem(start_response, "404 Not Found", "GAME_NOT_FOUND")
        return _answer(start_response, "200 OK", view(row, row["state"]),
                       [("ETag", f'"{row["version"]}"'), ("Cache-Control", "public, no-cache")])

    def act(environ, game_id, action, start_response):
        scheme, _, token = environ.get("HTTP_AUTHORIZATION", "").partition(" ")
        if scheme.lower() != "bearer" or not token:
            return _problem(start_response, "401 Unauthorized", "AUTH_REQUIRED")
        connection = database.connection()
        database.begin_write(connection)
        committed = False
        try:
            cursor = connection.cursor()
            row = database.fetch_game(cursor, game_id, lock=True)
            if row is None:
                return _problem(start_response, "404 Not Found", "GAME_NOT_FOUND")
            if not hmac.compare_digest(hashlib.sha256(token.encode()).hexdigest(), row["token_hash"] or ""):
                return _problem(start_response, "403 Forbidden", "FORBIDDEN")
            state = row["state"]
            last = apply(state, action)
            if last is None:
                return _problem(start_response, "422 Unprocessable Entity", "REJECTED")
            version, now = state["moves"] + state["undos"], database.moment(datetime.now(UTC))
            cursor.execute(database.sql(
                "UPDATE games SET state = ?, score = ?, moves = ?, undos = ?, version = ?, status = ?, "
                "updated_at = ? WHERE id = ?"),
                (database.document(state), state["score"], state["moves"], state["undos"], version, "playing", now,
                 game_id))
            cursor.execute(database.sql(
                "INSERT INTO actions (game_id, seq, notation, detail, points, score_after, at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)"),
                (game_id, version, action, database.document(last), last["points"], state["score"], now))
            body = {**view(row, state), "last": last}
            database.end_write(connection, commit=True)
            committed = True
        finally:
            if not committed:
                database.end_write(connection, commit=False)
        return _answer(start_response, "200 OK", body, [("ETag", f'"{version}"'), ("Cache-Control", "no-store")])

    def application(environ, start_response):
        path, method = environ.get("PATH_INFO", ""), environ["REQUEST_METHOD"]
        if path == "/v1/games" and method == "POST":
            return create(environ, start_response)
        match = _ROUTE.match(path)
        if match is None:
            return _problem(start_response, "404 Not Found", "NOT_FOUND")
        game_id, action = match.groups()
        if action is None and method == "GET":
            return read(game_id, start_response)
        if action is not None and method == "POST":
            return act(environ, game_id, action, start_response)
        return _problem(start_response, "405 Method Not Allowed", "METHOD_NOT_ALLOWED")

    return application


def create_flask_app():
    """The raw floor behind a bare Flask app: Flask routes each request to it and answers its bytes."""
    from flask import Flask, Response, request

    floor = create_app()
    app = Flask(__name__)

    @app.route("/v1/games", methods=["POST"])
    @app.route("/v1/games/<game_id>", methods=["GET"])
    @app.route("/v1/games/<game_id>/<action>", methods=["POST"])
    def forward(game_id: str | None = None, action: str | None = None) -> Response:
        answer: dict = {}

        def start_response(status: str, headers: list, exc_info=None) -> None:
            answer.update(status=status, headers=[header for header in headers if header[0] != "Content-Length"])

        body = b"".join(floor(request.environ, start_response))
        return Response(body, status=answer["status"], headers=answer["headers"])

    return app

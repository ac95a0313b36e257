"""The floor of this stack: the database work of one action and nothing else.

A minimal Flask + SQLAlchemy app with the service's endpoint shape, so one load
generator (``bench/drivers/api_load.py``) drives both. An action locks the game row
(``BEGIN IMMEDIATE`` behind a per-process lock on SQLite, ``SELECT … FOR UPDATE``
on PostgreSQL), changes its JSON state, appends one history row and commits.
No validation, no rules engine, no tokens checked beyond presence.

Serve it like the service::

    python bench/floors/flask_sqlalchemy_floor.py --init URL   # create its two tables once
    DATABASE_URL=URL gunicorn -c gunicorn.conf.py --pythonpath bench/floors 'flask_sqlalchemy_floor:create_app()'
"""

from __future__ import annotations

import json
import os
import random
import secrets
import sys
import threading
from contextlib import contextmanager
from datetime import UTC, datetime

import sqlalchemy as sa
from flask import Flask, Response, request
from sqlalchemy.dialects.postgresql import JSONB

Document = sa.JSON().with_variant(JSONB(), "postgresql")
metadata = sa.MetaData()
games = sa.Table(
    "floor_games", metadata,
    sa.Column("id", sa.String(24), primary_key=True),
    sa.Column("version", sa.Integer, nullable=False),
    sa.Column("state", Document, nullable=False),
    sa.Column("updated_at", sa.DateTime(timezone=True)),
)
actions = sa.Table(
    "floor_actions", metadata,
    sa.Column("game_id", sa.String(24), sa.ForeignKey("floor_games.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("seq", sa.Integer, primary_key=True),
    sa.Column("notation", sa.String(24)),
    sa.Column("detail", Document),
    sa.Column("at", sa.DateTime(timezone=True)),
)

RANKS, SUITS = "A23456789TJQK", "SHDC"
_sqlite_writer = threading.Lock()


def make_engine(url: str) -> sa.Engine:
    engine = sa.create_engine(url)  # no pre-ping, as the service (create_app) has none
    if engine.dialect.name == "sqlite":
        @sa.event.listens_for(engine, "connect")
        def _pragmas(dbapi_connection, _record) -> None:
            dbapi_connection.isolation_level = None
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA busy_timeout = 10000")
            cursor.execute("PRAGMA journal_mode = WAL")
            cursor.execute("PRAGMA synchronous = NORMAL")
            cursor.execute("PRAGMA foreign_keys = ON")
            cursor.close()

        @sa.event.listens_for(engine, "begin")
        def _begin(connection) -> None:
            connection.exec_driver_sql("BEGIN IMMEDIATE")
    return engine


def new_state() -> dict:
    """A state of the same shape and size as the service's: 28 tableau cards, 24 in the stock."""
    deck = [rank + suit for suit in SUITS for rank in RANKS]
    random.shuffle(deck)
    tableau = []
    for n in range(1, 8):
        tableau.append(deck[:n])
        deck = deck[n:]
    return {"v": 1, "tableau": tableau, "stock": deck, "waste": [], "foundations": [0, 0, 0, 0],
            "score": 0, "moves": 0, "undos": 0, "undo_stack": []}


def view(game_id: str, version: int, state: dict) -> dict:
    return {"id": game_id, "version": version, "tableau": state["tableau"], "stock": len(state["stock"]),
            "waste": state["waste"], "foundations": state["foundations"], "score": state["score"]}


def create_app() -> Flask:
    app = Flask(__name__)
    engine = make_engine(os.environ["DATABASE_URL"])
    sqlite = engine.dialect.name == "sqlite"

    def answer(body: dict, status: int = 200) -> Response:
        response = Response(json.dumps(body, separators=(",", ":")), status=status, mimetype="application/json")
        response.headers["ETag"] = f'"{body.get("version", 0)}"'
        return response

    @contextmanager
    def locked():
        if sqlite:
            _sqlite_writer.acquire()
        try:
            with engine.begin() as connection:
                yield connection
        finally:
            if sqlite:
                _sqlite_writer.release()

    @app.post("/v1/games")
    def create():
        game_id, state = secrets.token_urlsafe(12), new_state()
        with engine.begin() as connection:
            connection.execute(games.insert().values(id=game_id, version=0, state=state,
                                                     updated_at=datetime.now(UTC)))
        return answer({**view(game_id, 0, state), "token": secrets.token_urlsafe(32)}, 201)

    @app.get("/v1/games/<game_id>")
    def read(game_id):
        with engine.connect() as connection:
            row = connection.execute(sa.select(games.c.version, games.c.state)
                                     .where(games.c.id == game_id)).first()
        if row is None:
            return answer({"code": "GAME_NOT_FOUND"}, 404)
        return answer(view(game_id, row.version, row.state))

    @app.post("/v1/games/<game_id>/<action>")
    def act(game_id, action):
        if action not in ("draw", "recycle") or not request.headers.get("Authorization"):
            return answer({"code": "INVALID_REQUEST"}, 400)
        with locked() as connection:
            query = sa.select(games.c.version, games.c.state).where(games.c.id == game_id)
            row = connection.execute(query if sqlite else query.with_for_update()).first()
            if row is None:
                return answer({"code": "GAME_NOT_FOUND"}, 404)
            state = row.state
            if action == "draw" and state["stock"]:
                moved = [state["stock"].pop()]
                state["waste"].append(moved[0])
            elif action == "recycle" and not state["stock"] and state["waste"]:
                moved = state["waste"][::-1]
                state["stock"], state["waste"] = moved, []
            else:
                return answer({"code": "REJECTED"}, 422)
            version = row.version + 1
            now = datetime.now(UTC)
            connection.execute(games.update().where(games.c.id == game_id)
                               .values(version=version, state=state, updated_at=now))
            last = {"action": action, "cards": moved, "points": 0}
            connection.execute(actions.insert().values(game_id=game_id, seq=version, notation=action,
                                                       detail=last, at=now))
            body = {**view(game_id, version, state), "last": last}
        return answer(body)

    return app


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] != "--init":
        sys.exit("usage: flask_sqlalchemy_floor.py --init DATABASE_URL")
    engine = make_engine(sys.argv[2])
    metadata.create_all(engine)
    engine.dispose()

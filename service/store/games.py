"""The games' queries: deal, read, lock, apply-and-append, history, a player's list, hints.

A game is read as a :class:`GameRecord`, a typed, immutable copy of its row; an
action's new record is the old one with :func:`stored_columns` of the engine game
applied. The hot path (lock, update, insert) is SQLAlchemy Core on the connection of
:func:`~.db.action_transaction`: the ORM's unit of work (identity map, change tracking,
flush) and its session cost more than the three statements.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import and_, bindparam, insert, or_, select, update
from sqlalchemy.engine import Connection

from ..engine import Game
from ..extensions import db
from . import stats
from .db import first_statement_on, on_live_connection, read_alone, write_transaction
from .driver import DriverStatement
from .feed import finished_line
from .models import ActionRow, GameRow

#: The game's columns that follow from the engine game alone (the state besides).
DERIVED_COLUMNS = ("score", "moves", "undos", "version", "status")


@dataclass(frozen=True, slots=True)
class GameRecord:
    """One stored game, as read (or as just written)."""

    id: str
    code: str
    deal: int
    draw: int
    player_id: str | None
    token_hash: str | None
    status: str
    score: int
    moves: int
    undos: int
    version: int
    hints: int
    winnable: bool | None
    state: dict
    created_at: datetime
    updated_at: datetime
    finished_at: datetime | None
    duration_ms: int | None
    line: str | None
    client_started_at: datetime | None = None
    client_seconds: int | None = None

    @property
    def timing(self) -> str:
        """"client" for a game born offline (its time partly the client's word), else "server"."""
        return "server" if self.client_started_at is None else "client"


_FIELDS = tuple(field.name for field in dataclasses.fields(GameRecord))


def _record(row) -> GameRecord:
    return GameRecord(*(getattr(row, name) for name in _FIELDS))


def _selected(row) -> GameRecord | None:
    """The record of a row of ``_SELECT_GAME``, or None without one."""
    return None if row is None else GameRecord(*row)


@dataclass(frozen=True, slots=True)
class Step:
    """One action of a batch, as its history row keeps it."""

    notation: str
    detail: dict
    points: int
    score_after: int
    seq: int


def stored_columns(game: Game) -> dict:
    """What the games table keeps of an engine game: its state and the columns derived from it."""
    return {"state": game.to_state(), **{name: getattr(game, name) for name in DERIVED_COLUMNS}}


_GAMES = GameRow.__table__
_G = _GAMES.c
# The record's fields in its own order: a row of it is the record's arguments as they are.
_SELECT_GAME = select(*(_G[name] for name in _FIELDS)).where(_G.id == bindparam("game"))
_SELECT_GAME_FOR_UPDATE = _SELECT_GAME.with_for_update()
# No .values(): the SET clause is the columns present in the parameters.
_UPDATE_GAME = update(_GAMES).where(_G.id == bindparam("game"))
_INSERT_ACTION = insert(ActionRow.__table__)
# The hot path's statements on the driver's cursor (driver.py): a game read, an action's three.
_READ_GAME = DriverStatement(_SELECT_GAME)
_LOCK_GAME_ROW = DriverStatement(_SELECT_GAME_FOR_UPDATE)
_STORE_GAME = DriverStatement(_UPDATE_GAME)
_APPEND_ACTION = DriverStatement(_INSERT_ACTION)


def insert_game(game: Game, *, game_id: str, player_id: str | None, token_hash: str,
                winnable: bool | None, steps: list[Step] | None = None,
                client: tuple[datetime, int] | None = None) -> GameRecord:
    """Inside :func:`write_transaction`: store a newly dealt game (and count it in its player's statistics).

    A game born offline comes with ``steps``, the actions its client played (already applied
    to ``game``), stored as its history, and ``client``: the start and seconds its client
    reported. Won already, it is stamped finished (see :func:`_duration_ms`).
    """
    started, seconds = client if client is not None else (None, None)
    row = GameRow(id=game_id, code=str(game.code), deal=game.code.deal, draw=game.code.draw, player_id=player_id,
                  token_hash=token_hash, winnable=winnable, finished_at=None, duration_ms=None, line=None,
                  client_started_at=started, client_seconds=seconds, **stored_columns(game))
    if game.won:
        row.finished_at = row.created_at = row.updated_at = datetime.now(UTC)
        row.duration_ms = seconds * 1000 if seconds is not None else 0
        row.line = " ".join(step.notation for step in steps or ())

    def add() -> None:  # again after a dead connection: the rollback has dropped the pending row
        db.session.add(row)
        db.session.flush()

    on_live_connection(add)
    record = _record(row)
    connection = db.session.connection()
    if steps:
        _APPEND_ACTION.run_many(connection, [_history_row(game_id, step, record.created_at) for step in steps])
    if player_id:
        stats.game_dealt(connection, player_id, game.code.draw)
        if game.won:
            stats.game_won(connection, record, game.score, game.moves, record.duration_ms)
    return record


def _history_row(game_id: str, step: Step, at: datetime) -> dict:
    return {"game_id": game_id, "seq": step.seq, "notation": step.notation, "detail": step.detail,
            "points": step.points, "score_after": step.score_after, "at": at}


def _duration_ms(record: GameRecord, now: datetime) -> int:
    """The leaderboards' time of a game won now: from its deal to now; for a game born offline,
    the seconds its client reported for the offline play plus the server's time since."""
    served = int((now - record.created_at).total_seconds() * 1000)
    return served if record.client_seconds is None else record.client_seconds * 1000 + served


def read_game(game_id: str) -> GameRecord | None:
    """A game as it is now, or None; in the session's transaction, so later reads in it agree on SQLite."""
    return _selected(on_live_connection(lambda: db.session.execute(_SELECT_GAME, {"game": game_id}).first()))


def read_game_alone(game_id: str) -> GameRecord | None:
    """:func:`read_game` on a pooled connection of its own, for a request that reads nothing else.

    A one-row read paid more for the session's set-up and teardown (about a quarter of
    a game read's CPU) than for its query. Never inside :func:`write_transaction`: on
    SQLite this connection would wait for the write lock that transaction holds.
    """
    def first_row():
        with read_alone() as connection:
            return _READ_GAME.first(connection, {"game": game_id})

    return _selected(on_live_connection(first_row))


def lock_game(connection: Connection, game_id: str) -> GameRecord | None:
    """First in :func:`~.db.action_transaction`: a game's row, locked until commit (None: no such game)."""
    # SQLite has no row locks: the transaction's BEGIN IMMEDIATE holds the whole database (db.py).
    statement = _READ_GAME if connection.dialect.name == "sqlite" else _LOCK_GAME_ROW
    return _selected(first_statement_on(connection, statement, {"game": game_id}))


def store_action(connection: Connection, record: GameRecord, game: Game, notation: str, detail: dict,
                 points: int) -> GameRecord:
    """Inside the lock of :func:`lock_game`: store the game after an action, append its history row.

    ``game`` is the engine game with the action applied. A win also stamps the finish,
    freezes the game's ``line`` and updates the player's statistics.
    """
    now = datetime.now(UTC)
    changes = {**stored_columns(game), "updated_at": now}
    if game.won:
        changes.update(finished_at=now, duration_ms=_duration_ms(record, now),
                       line=finished_line(connection, record.id, notation))
        if record.player_id:
            stats.game_won(connection, record, game.score, game.moves, changes["duration_ms"])
    _STORE_GAME.run(connection, {"game": record.id, **changes})
    _APPEND_ACTION.run(connection, {"game_id": record.id, "seq": game.version, "notation": notation,
                                    "detail": detail, "points": points, "score_after": game.score, "at": now})
    return dataclasses.replace(record, **changes)


def store_actions(connection: Connection, record: GameRecord, game: Game, steps: list[Step]) -> GameRecord:
    """:func:`store_action` for a batch: the game after every step stored once, their history rows in one insert.

    The engine applied ``steps`` in order to the locked game; a win can only be the last
    step (the engine refuses anything after it).
    """
    now = datetime.now(UTC)
    changes = {**stored_columns(game), "updated_at": now}
    if game.won:
        changes.update(finished_at=now, duration_ms=_duration_ms(record, now),
                       line=finished_line(connection, record.id, " ".join(step.notation for step in steps)))
        if record.player_id:
            stats.game_won(connection, record, game.score, game.moves, changes["duration_ms"])
    _STORE_GAME.run(connection, {"game": record.id, **changes})
    _APPEND_ACTION.run_many(connection, [_history_row(record.id, step, now) for step in steps])
    return dataclasses.replace(record, **changes)


_NOTATIONS_AFTER = DriverStatement(
    select(ActionRow.notation).where(ActionRow.game_id == bindparam("game"), ActionRow.seq > bindparam("after"))
    .order_by(ActionRow.seq).limit(bindparam("limit")))


def notations_after(connection: Connection, game_id: str, after_seq: int, limit: int) -> list[str]:
    """Up to ``limit`` of a game's actions after ``after_seq``, in notation, in order (a stale batch's rebase)."""
    return [row[0] for row in _NOTATIONS_AFTER.all(connection, {"game": game_id, "after": after_seq,
                                                                 "limit": limit})]


def count_hint(game_id: str) -> int | None:
    """Count one more hint for a game, in a short transaction of its own; the new count.

    None when the game is gone: the search runs outside any transaction, and the purge
    may delete an idle anonymous game meanwhile.
    """
    with write_transaction() as session:
        return session.execute(
            update(GameRow).where(GameRow.id == game_id).values(hints=GameRow.hints + 1).returning(GameRow.hints)
        ).scalar_one_or_none()


def history_page(game_id: str, after_seq: int, limit: int) -> list[ActionRow]:
    """Up to ``limit`` + 1 of a game's history rows after ``after_seq`` (the extra one: another page follows)."""
    return db.session.execute(
        select(ActionRow).where(ActionRow.game_id == game_id, ActionRow.seq > after_seq)
        .order_by(ActionRow.seq).limit(limit + 1)
    ).scalars().all()


def player_games_page(player_id: str, status: str | None, after: tuple[datetime, str] | None, limit: int) -> list:
    """Up to ``limit`` + 1 of a player's games, newest first, after ``(created_at, id)`` or from the start."""
    statement = (select(_G.id, _G.code, _G.draw, _G.status, _G.score, _G.moves, _G.created_at,
                        _G.finished_at, _G.duration_ms)
                 .where(_G.player_id == player_id)
                 .order_by(_G.created_at.desc(), _G.id.desc()).limit(limit + 1))
    if status is not None:
        statement = statement.where(_G.status == status)
    if after is not None:
        created, game = after
        statement = statement.where(or_(_G.created_at < created, and_(_G.created_at == created, _G.id < game)))
    return db.session.execute(statement).all()


def all_game_ids() -> list[str]:
    """Every stored game's id, oldest first."""
    return db.session.execute(select(_G.id).order_by(_G.created_at)).scalars().all()

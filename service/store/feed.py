"""The queries of the finished-games feed and of the boards' ETags.

The feed lists won games in the order they finished: ``(finished_at, id)``, a
keyset read off the partial indexes of migration 0003. Each entry carries the
game's ``line``, frozen on its row at the win (:func:`finished_line`).

Why a settling delay (``settle``): ``finished_at`` is stamped when the winning
action is applied and becomes visible when its transaction commits a moment
later. On PostgreSQL two games can win at once, so a win stamped earlier may
commit after a later one was already read; a cursor past the later one would
skip it for ever. The feed therefore ends ``settle`` before now: every win it
shows committed before the read, as long as no commit takes longer than that.

A board's tag is derived from the index, never from the page: its latest win
``(finished_at, id)`` and, on PostgreSQL, the number of its wins stamped within
``settle`` of that one (a win committed late lands there and still moves the
tag). On SQLite writers are serialized and stamp under the write lock, so the
latest win alone tells. Every query repeats ``status = 'won'`` as a literal so
that the partial indexes apply.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from functools import cache

from sqlalchemy import Interval, bindparam, func, select, tuple_
from sqlalchemy.engine import Connection, Engine

from ..extensions import db
from . import replicas
from .db import on_live_connection, read_alone
from .driver import DriverStatement
from .models import WON, ActionRow, GameRow, PlayerRow

_GAMES = GameRow.__table__
_PLAYERS = PlayerRow.__table__
_G = _GAMES.c

#: A board's filters, each compared with the bound parameter of its name.
BOARD_FILTERS = {
    "draw": lambda: _G.draw == bindparam("draw"),
    "code": lambda: _G.code == bindparam("code"),
    "player": lambda: _G.player_id == bindparam("player"),
    "since": lambda: _G.finished_at >= bindparam("since"),
    "until": lambda: _G.finished_at < bindparam("until"),
}
#: The ``timing`` filter (a board's or the feed's): how a game was timed, "server" or "client" (a
#: game born offline). No bound parameter: each value is its own literal condition, part of the
#: statement's shape (``timing=server`` after the bound filters' names), so that a planner can
#: prove that the partial indexes of client-timed wins (migration 0008) apply.
TIMINGS = {
    "server": lambda: _G.client_started_at.is_(None),
    "client": lambda: _G.client_started_at.is_not(None),
}
_CONDITIONS = {**BOARD_FILTERS, **{f"timing={value}": condition for value, condition in TIMINGS.items()}}
FEED_COLUMNS = (_G.id, _G.code, _G.draw, _G.player_id, _PLAYERS.c.name, _G.score, _G.moves, _G.undos, _G.hints,
                _G.duration_ms, _G.finished_at, _G.line, _G.client_started_at)
#: Bumped whenever the JSON of a board or feed entry changes shape: old tags must not match.
REPRESENTATION = "3"


def on_a_read_connection(work):
    """``work(connection)`` on a replica fit to serve it (:mod:`.replicas`, ``DATABASE_REPLICA_URLS``), else on
    a :func:`~.db.read_alone` connection of the primary; again on a fresh one if that one was dead.

    The pool pings nothing (create_app): a connection the server dropped fails at its
    first statement, as in ``db.on_live_connection``. The reads of a board or a feed
    page write nothing, so the whole block may run again.
    """
    served, result = replicas.on_a_replica(db.engine, work)  # a board or feed page may be a little stale
    if served:
        return result

    def attempt():
        with read_alone() as connection:
            return work(connection)

    return on_live_connection(attempt, start_again=_each_attempt_checks_out_its_own)


def on_the_primary(connection: Connection) -> bool:
    """Whether ``connection`` (of :func:`on_a_read_connection`) is the primary's, not a replica's.

    Only a tag read on the primary may be remembered (``store.board_tags``): a replica may
    not have replayed a win whose notification has already arrived, and its older tag,
    remembered under the new generation, would answer 304 until the next win.
    """
    return connection.engine is db.engine


def _each_attempt_checks_out_its_own() -> None:
    """Nothing to end before a read runs again: the failed attempt's connection is closed."""


def filter_shape(filters: dict) -> tuple[tuple[str, ...], dict]:
    """The statement's shape for ``filters`` (None: absent) and their bound parameters.

    The shape names the bound filters present, in :data:`BOARD_FILTERS` order, then
    ``timing=<value>`` when ``filters["timing"]`` is set (:data:`TIMINGS`).
    """
    params = {name: filters[name] for name in BOARD_FILTERS if filters.get(name) is not None}
    shape = tuple(params)
    timing = filters.get("timing")
    if timing is not None:
        if timing not in TIMINGS:
            raise ValueError(f"not a timing: {timing!r}")
        shape += (f"timing={timing}",)
    return shape, params


def filter_terms(shape: tuple[str, ...]) -> list:
    """The conditions of a shape (:func:`filter_shape`), after ``status = 'won'``."""
    return [WON, *(_CONDITIONS[name]() for name in shape)]


def count_of(shape: tuple[str, ...], *conditions):
    """How many won games of a shape meet ``conditions``, as a scalar subquery.

    Under ``timing=server``: all of them less the client-timed ones. Both are index-only
    scans (a board's partial index; the partial index of client-timed wins, migration
    0008), where counting the server-timed ones directly would visit each row in the
    table: PostgreSQL then preferred a sequential scan for a tag's recent wins.
    """
    if "timing=server" in shape:
        rest = tuple(name for name in shape if name != "timing=server")
        return _count(rest, conditions) - _count((*rest, "timing=client"), conditions)
    return _count(shape, conditions)


def _count(shape: tuple[str, ...], conditions: tuple):
    return select(func.count()).select_from(_GAMES).where(*filter_terms(shape), *conditions).scalar_subquery()


# -- the feed ---------------------------------------------------------------------------


@cache
def feed_statement(filters: tuple[str, ...], after: bool, limited: bool):
    """Won games in order of finish, up to ``:horizon``, after ``(:at, :game)`` or not.

    Built once per shape and reused, values bound at execution. ``:rows`` caps a
    page (limit + 1, to know whether another follows); a stream has no cap.
    """
    terms = [*filter_terms(filters), _G.finished_at < bindparam("horizon")]
    if after:
        # Typed: inside a tuple the column's type is not inferred (SQLite would compare other text).
        terms.append(tuple_(_G.finished_at, _G.id) > tuple_(bindparam("at", type_=_G.finished_at.type),
                                                             bindparam("game", type_=_G.id.type)))
    query = (select(*FEED_COLUMNS).select_from(_GAMES.outerjoin(_PLAYERS, _PLAYERS.c.id == _G.player_id))
             .where(*terms).order_by(_G.finished_at, _G.id))
    if limited:
        query = query.limit(bindparam("rows"))
    return query


def horizon(settle_ms: int, now: datetime | None = None) -> datetime:
    """Where the feed ends now: wins stamped before it have committed."""
    return (now or datetime.now(UTC)) - timedelta(milliseconds=settle_ms)


def feed_query(filters: dict, after: tuple[datetime, str] | None, until: datetime, rows: int | None):
    """The statement and parameters of a feed read (``rows`` None: to the end)."""
    shape, params = filter_shape(filters)
    statement = feed_statement(shape, after is not None, rows is not None)
    params["horizon"] = until
    if after is not None:
        params["at"], params["game"] = after
    if rows is not None:
        params["rows"] = rows
    return statement, params


def feed_page(connection: Connection, filters: dict, after: tuple[datetime, str] | None, until: datetime,
              limit: int) -> list:
    """Up to ``limit`` + 1 feed rows (the extra one tells that another page follows)."""
    statement, params = feed_query(filters, after, until, limit + 1)
    return connection.execute(statement, params).all()


def feed_stream(filters: dict, after: tuple[datetime, str] | None, until: datetime, limit: int | None,
                batch: int = 2000) -> Iterator[list]:
    """Feed rows in batches from a server-side cursor: memory stays flat whatever the length.

    Iterating needs no app context (a streamed response outlives the view): the app's
    engine is taken now. The cursor is closed and the connection returned when the
    iterator is closed, at the end or before it.
    """
    return _batches(db.engine, filters, after, until, limit, batch)


def _batches(engine: Engine, filters: dict, after: tuple[datetime, str] | None, until: datetime,
             limit: int | None, batch: int) -> Iterator[list]:
    statement, params = feed_query(filters, after, until, limit)
    connection, result = _streamed(engine, statement, params, batch)
    with connection, result:  # a stream stopped early closes its server-side cursor here, not in the GC
        yield from result.partitions(batch)


def _streamed(engine: Engine, statement, params: dict, batch: int):
    """A connection and the statement's result on a server-side cursor; once more on a fresh
    connection if the pooled one was dead, as :func:`on_a_read_connection` does (no row is sent yet)."""
    return on_live_connection(lambda: _execute_streamed(engine, statement, params, batch),
                              start_again=_each_attempt_checks_out_its_own)


def _execute_streamed(engine: Engine, statement, params: dict, batch: int):
    connection = engine.connect()
    try:
        return connection, connection.execution_options(stream_results=True, max_row_buffer=batch).execute(
            statement, params)
    except BaseException:
        connection.close()
        raise


# -- a board's tag -------------------------------------------------------------------------


@cache
def tag_statement(filters: tuple[str, ...], postgresql: bool):
    """A board's latest win, and on PostgreSQL how many of its wins are within ``:lag`` of it."""
    terms = filter_terms(filters)
    latest = (select(_G.finished_at, _G.id).where(*terms)
              .order_by(_G.finished_at.desc(), _G.id.desc()).limit(1).subquery("latest"))
    if not postgresql:
        return select(latest.c.finished_at, latest.c.id)
    recent = count_of(filters, _G.finished_at >= latest.c.finished_at - bindparam("lag", type_=Interval))
    return select(latest.c.finished_at, latest.c.id, recent)


@cache
def _tag(filters: tuple[str, ...], postgresql: bool) -> DriverStatement:
    return DriverStatement(tag_statement(filters, postgresql))


def board_tag(connection: Connection, filters: dict, settle_ms: int) -> tuple[str, bool]:
    """The ETag of a board (its filters: draw, code, player, since, until, timing) and whether it has no win.

    A ``timing`` filter is part of the tag: a board of server-timed wins whose latest win is
    also the whole board's latest does not share the whole board's tag (nor a 304 for it).
    """
    shape, params = filter_shape(filters)
    postgresql = connection.dialect.name == "postgresql"
    if postgresql:
        params["lag"] = timedelta(milliseconds=settle_ms)
    row = _tag(shape, postgresql).first(connection, params)
    latest = None if row is None else [row[0].astimezone(UTC).isoformat(), *(str(value) for value in row[1:])]
    key = "empty" if latest is None else "|".join(latest)
    if filters.get("timing") is not None:
        key = f"{key}|timing={filters['timing']}"
    digest = hashlib.blake2b(f"{REPRESENTATION}|{key}".encode(), digest_size=10).hexdigest()
    return f'"{digest}"', row is None


# -- the line of a won game -------------------------------------------------------------

_NOTATIONS = select(ActionRow.notation).where(ActionRow.game_id == bindparam("game")).order_by(ActionRow.seq)


def finished_line(connection: Connection, game_id: str, last: str) -> str:
    """Inside the winning transaction: the stored history's notation, then the winning action's."""
    notations = connection.execute(_NOTATIONS, {"game": game_id}).scalars().all()
    return " ".join([*notations, last])


def history_notations(game_id: str) -> list[str]:
    """Every stored action of a game in notation, in order."""
    return db.session.execute(_NOTATIONS, {"game": game_id}).scalars().all()

"""The leaderboard tools' use cases: a board, the day's deal, the feed of finished games, a verification.

A board's or the feed's tag (its ETag) comes from its latest win (``store.feed.board_tag``),
read before the page, or remembered from an earlier read while no win has been signalled
since (``store.board_tags``): a tag the client already has (``known_tags``, from
``If-None-Match``) answers :class:`Unchanged` without building the page, and when it is
remembered, without a query.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import closing
from dataclasses import dataclass, field
from datetime import UTC, date, datetime

from ..engine import GameCode
from ..solver.daily import daily_deal
from ..store.board_tags import TagCache, app_tag_cache
from ..store.feed import board_tag, feed_page, feed_stream, horizon, on_a_read_connection, on_the_primary
from ..store.leaderboards import ranked_page
from ..store.verification import verify
from .cursors import BOARD_CURSOR, FEED_CURSOR
from .errors import ServiceError, invalid
from .games import read_game

#: Rows fetched from the server-side cursor at a time, and sent as one chunk: about 1 MB with lines
#: of real games. Each app thread keeps its own malloc arena, so a worker's resident memory grows
#: by a few batches per thread that has streamed (2,000 rows: 51 MB after ten streams).
STREAM_BATCH = 500


@dataclass(frozen=True, slots=True)
class Unchanged:
    """Nothing new since the tag the client has: 304 with ``tag``."""

    tag: str


@dataclass(frozen=True, slots=True)
class BoardPage:
    """A page of a board: ``ranked`` is ``[(rank, row), …]`` (``store.leaderboards.ranked_page``)."""

    tag: str
    ranked: list
    next: str | None


@dataclass(frozen=True, slots=True)
class FeedPage:
    """A page of the feed (``store.feed.FEED_COLUMNS`` rows); ``resume``: where it ends, to poll from later."""

    tag: str
    rows: list
    next: str | None
    resume: str | None


@dataclass(frozen=True, slots=True)
class Daily:
    day: date
    code: GameCode
    winnable: bool | None


def names(known_tags: frozenset[str], tag: str) -> bool:
    """Whether the client's tags (``*`` included) name ``tag``."""
    return "*" in known_tags or tag in known_tags


def board(filters: dict, cursor: str | None, limit: int, *, known_tags: frozenset[str] = frozenset(),
          settle_ms: int, remember_tags: bool = True) -> Unchanged | BoardPage:
    """A leaderboard page (``filters``: draw, code, player, since, until, timing), or :class:`Unchanged`.

    A malformed cursor is 400 even when the board has not changed. An empty board with
    a ``player`` filter is built anyway (its player may not exist: 404).
    """
    after = BOARD_CURSOR.decode(cursor)
    player = filters.get("player")
    key = ("board", settle_ms, *_present(filters))
    tags = app_tag_cache(remember_tags)
    remembered = tags.known(key)
    if remembered is not None and names(known_tags, remembered):
        return Unchanged(remembered)
    before = tags.before_read()

    def read(connection) -> tuple[str, tuple | None, bool]:
        tag, empty = board_tag(connection, filters, settle_ms)
        if not (empty and player is not None):
            if on_the_primary(connection):
                tags.remember(key, tag, before)
            if names(known_tags, tag):
                return tag, None, True
        return tag, ranked_page(connection, filters, after, limit), False

    tag, page, unchanged = on_a_read_connection(read)
    if unchanged:
        return Unchanged(tag)
    if page is None:
        raise ServiceError("PLAYER_NOT_FOUND", player=player)
    ranked, more = page
    following = None
    if more:
        game, _, _, _, _, score, moves, ms, finished, *_ = ranked[-1][1]
        following = BOARD_CURSOR.encode({"score": score, "moves": moves, "ms": ms, "finished": finished,
                                         "game": game})
    return BoardPage(tag, ranked, following)


def _present(filters: dict) -> tuple:
    return tuple(sorted((name, value) for name, value in filters.items() if value is not None))


def daily(day: date | None, draw: int) -> Daily:
    """The day's deal for ``draw`` (today in UTC by default; a future day is 400)."""
    today = datetime.now(UTC).date()
    day = day or today
    if day > today:
        raise invalid("date", f"Not a future date: today is {today} (UTC).")
    code, winnable = daily_deal(day, draw)
    return Daily(day, code, winnable)


def _feed_position(cursor: str | None):
    position = FEED_CURSOR.decode(cursor)
    return None if position is None else (position["at"], position["game"])


def feed_cursor(row) -> str:
    """The cursor that continues after this feed row."""
    return FEED_CURSOR.encode({"at": row.finished_at, "game": row.id})


def finished_games(filters: dict, cursor: str | None, limit: int, *, known_tags: frozenset[str] = frozenset(),
                   settle_ms: int, remember_tags: bool = True) -> Unchanged | FeedPage:
    """A page of the feed (``filters``: draw, since, timing), or :class:`Unchanged` when it has no new win."""
    after = _feed_position(cursor)
    key = ("feed", settle_ms, *_present(filters))
    tags: TagCache = app_tag_cache(remember_tags)
    remembered = tags.known(key)
    if remembered is not None and names(known_tags, remembered):
        return Unchanged(remembered)
    before = tags.before_read()
    until = horizon(settle_ms)

    def read(connection) -> tuple[str, list | None]:
        tag, _ = board_tag(connection, {**filters, "until": until}, settle_ms)
        if on_the_primary(connection):
            tags.remember(key, tag, before, settle_ms=settle_ms)
        return tag, None if names(known_tags, tag) else feed_page(connection, filters, after, until, limit)

    tag, rows = on_a_read_connection(read)
    if rows is None:
        return Unchanged(tag)
    more = len(rows) > limit
    rows = rows[:limit]
    resume = feed_cursor(rows[-1]) if rows else cursor
    return FeedPage(tag, rows, resume if more else None, resume)


@dataclass
class FeedStream:
    """The feed as batches of rows, up to ``limit`` entries or ``seconds`` (checked between batches).

    Iterate it for the batches; then :attr:`end` says where it stopped: ``resume`` (send it
    as the cursor to continue), ``count`` and ``more`` (true when either bound cut it).
    It needs no app context once made: a streamed answer outlives its request.
    """

    batches: Iterator[list]
    cursor: str | None
    limit: int
    deadline: float
    end: dict = field(default_factory=dict)

    def __iter__(self) -> Iterator[list]:
        count, last, more = 0, None, False
        with closing(self.batches) as batches:
            for rows in batches:
                if count + len(rows) > self.limit:
                    rows, more = rows[:self.limit - count], True
                if rows:
                    count += len(rows)
                    last = rows[-1]
                    yield rows
                if more:
                    break
                if time.monotonic() > self.deadline:
                    more = len(rows) == STREAM_BATCH  # a shorter batch was the last one
                    break
        self.end = {"resume": feed_cursor(last) if last is not None else self.cursor, "count": count, "more": more}


def stream_finished_games(filters: dict, cursor: str | None, limit: int, *, settle_ms: int,
                          seconds: float) -> FeedStream:
    """The feed from ``cursor`` as a :class:`FeedStream`: a slow reader holds a thread and a database
    snapshot no longer than ``seconds``."""
    after = _feed_position(cursor)
    until = horizon(settle_ms)
    deadline = time.monotonic() + seconds
    return FeedStream(feed_stream(filters, after, until, limit + 1, STREAM_BATCH), cursor, limit, deadline)


def verification(game_id: str) -> dict:
    """A game's stored history replayed from its game code and compared with what is stored (404 when none)."""
    return verify(read_game(game_id))

"""The leaderboard tools' use cases, one function each: a board, the day's deal, the feed, a verification.

A view parses and documents; the function it calls does the rest (see :mod:`.usecases`
for the games'). Boards and the feed answer 304 from a remembered tag without a query
while no win has been signalled since (``store.board_tags``).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import closing
from datetime import date

from flask import Response, current_app

from ..extensions import db
from ..solver.daily import daily_deal
from ..store.board_tags import TagCache, tag_cache
from ..store.feed import board_tag, feed_page, feed_stream, horizon, on_a_read_connection
from ..store.leaderboards import ranked_page
from ..store.verification import verify
from .paging import BOARD_CURSOR, FEED_CURSOR
from .present import board_json, cache_headers, feed_cursor, feed_entry, if_none_match, json_response, not_modified
from .problems import ApiProblem
from .usecases import get_game


def board(filters: dict, cursor: str | None, limit: int) -> Response:
    """A leaderboard page (``filters``: draw, code, player, since, until), or 304.

    The board's ETag comes from its latest win (``store.feed.board_tag``), read
    before the page, or remembered from an earlier read while no win has been
    signalled since (``store.board_tags``): an ``If-None-Match`` that names it is 304
    without building the page. An empty board with a ``player`` filter is built
    anyway (its player may not exist: 404).
    """
    after = BOARD_CURSOR.decode(cursor)  # a malformed cursor is 400 even when the board has not changed
    player = filters.get("player")
    settle = current_app.config["FEED_SETTLE_MS"]
    key = ("board", settle, *_present(filters))
    tags, unchanged, before = _remembered(key)
    if unchanged is not None:
        return unchanged
    def read(connection) -> tuple[str, tuple | None, bool]:
        tag, empty = board_tag(connection, filters, settle)
        if not (empty and player is not None):
            tags.remember(key, tag, before)
            if if_none_match(tag):
                return tag, None, True
        return tag, ranked_page(connection, filters, after, limit), False

    tag, page, unchanged_now = on_a_read_connection(read)
    if unchanged_now:
        return not_modified(cache_headers(tag))
    if page is None:
        raise ApiProblem("PLAYER_NOT_FOUND", player=player)
    return json_response(board_json(*page), headers=cache_headers(tag))


def _remembered(key) -> tuple[TagCache, Response | None, tuple]:
    """The 304 of a tag remembered for ``key`` that If-None-Match names, or what remembering a new read needs."""
    tags = tag_cache(db.engine) if current_app.config["BOARD_TAG_CACHE"] else TagCache(None)
    known = tags.known(key)
    if known is not None and if_none_match(known):
        return tags, not_modified(cache_headers(known)), ()
    return tags, None, tags.before_read()


def _present(filters: dict) -> tuple:
    return tuple(sorted((name, value) for name, value in filters.items() if value is not None))


def daily(day: date, draw: int) -> dict:
    """The day's deal for ``draw`` and where its board is."""
    code, winnable = daily_deal(day, draw)
    return {"date": day.isoformat(), "draw": code.draw, "code": str(code), "winnable": winnable,
            "leaderboard": f"/v1/deals/{code}/leaderboard"}


def _feed_position(cursor: str | None):
    position = FEED_CURSOR.decode(cursor)
    return None if position is None else (position["at"], position["game"])


def finished_games(filters: dict, cursor: str | None, limit: int) -> Response:
    """A JSON page of the feed (``filters``: draw, since), or 304 when it has no new win."""
    after = _feed_position(cursor)
    settle = current_app.config["FEED_SETTLE_MS"]
    key = ("feed", settle, *_present(filters))
    tags, unchanged, before = _remembered(key)
    if unchanged is not None:
        return unchanged
    until = horizon(settle)
    def read(connection) -> tuple[str, list | None]:
        tag, _ = board_tag(connection, {**filters, "until": until}, settle)
        tags.remember(key, tag, before, settle_ms=settle)
        return tag, None if if_none_match(tag) else feed_page(connection, filters, after, until, limit)

    tag, rows = on_a_read_connection(read)
    if rows is None:
        return not_modified(cache_headers(tag))
    more = len(rows) > limit
    rows = rows[:limit]
    resume = feed_cursor(rows[-1]) if rows else cursor
    body = {"items": [feed_entry(row) for row in rows], "next": resume if more else None, "resume": resume}
    return json_response(body, headers=cache_headers(tag))


#: Rows fetched from the server-side cursor at a time, and sent as one chunk: about 1 MB with lines
#: of real games. Each app thread keeps its own malloc arena, so a worker's resident memory grows
#: by a few batches per thread that has streamed (2,000 rows: 51 MB after ten streams).
STREAM_BATCH = 500


def stream_finished_games(filters: dict, cursor: str | None, limit: int) -> Response:
    """The feed as NDJSON: up to ``limit`` entries, then ``{"resume", "count", "more"}``.

    The stream also stops after ``FEED_STREAM_SECONDS`` (checked between batches):
    a slow reader holds a thread and a database snapshot no longer than that.
    ``more`` is true when either bound cut it: the tool continues from ``resume``.
    """
    after = _feed_position(cursor)
    until = horizon(current_app.config["FEED_SETTLE_MS"])
    deadline = time.monotonic() + current_app.config["FEED_STREAM_SECONDS"]
    engine = db.engine  # the generator runs after the request context is gone

    def lines() -> Iterator[bytes]:
        count, last, more = 0, None, False
        dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
        with closing(feed_stream(engine, filters, after, until, limit + 1, STREAM_BATCH)) as batches:
            for rows in batches:
                if count + len(rows) > limit:
                    rows, more = rows[:limit - count], True
                if rows:
                    count += len(rows)
                    last = rows[-1]
                    yield ("\n".join(dumps(feed_entry(row)) for row in rows) + "\n").encode()
                if more:
                    break
                if time.monotonic() > deadline:
                    more = len(rows) == STREAM_BATCH  # a shorter batch was the last one
                    break
        end = {"resume": feed_cursor(last) if last is not None else cursor, "count": count, "more": more}
        yield (dumps(end) + "\n").encode()

    return Response(lines(), mimetype="application/x-ndjson", headers={"Cache-Control": "no-store"})


def verification(game_id: str) -> dict:
    """A game's stored history replayed from its code and compared with what is stored."""
    return verify(get_game(game_id))

"""The use cases, one function each: deal, read, play an action, hint; a board, the feed, a verification.

A view parses and documents; the function it calls does the rest. Playing is one
transaction: :func:`play` runs an action on a game; in order: the game is loaded under its
write lock (404), the owner's token is checked (401/403), an ``Idempotency-Key``
already answered is replayed (or refused with a different body), ``If-Match`` is
compared (412), and only then is the body validated (400) and the action applied
by :func:`apply_action`.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterator
from contextlib import closing
from datetime import date

from flask import Response, current_app, request

from ..engine import Action, Game, GameCode, Rejection
from ..extensions import db
from ..solver.daily import daily_deal
from ..store import GameRecord, IdempotentAnswer, answers, end_read, games, write_transaction
from ..store.feed import board_tag, feed_page, feed_stream, horizon, read_connection
from ..store.leaderboards import ranked_page
from ..store.verification import verify
from ..store.wins import TagCache, tag_cache
from . import idempotency
from .auth import hash_token, is_id, new_id, new_token, optional_player, require_owner
from .contract import IF_MATCH_PATTERN
from .paging import BOARD_CURSOR, FEED_CURSOR
from .present import (
    board_json,
    cache_headers,
    etag,
    feed_cursor,
    feed_entry,
    game_json,
    if_none_match,
    json_response,
    not_modified,
)
from .problems import PROBLEM_MEDIA_TYPE, ApiProblem, problem_response
from .solving import proven_winnable_code, solve_hint

_IF_MATCH = re.compile(IF_MATCH_PATTERN)


def get_game(game_id: str) -> GameRecord:
    """A game as it is now; 404 when there is none."""
    row = games.read_game(game_id) if is_id(game_id) else None
    if row is None:
        raise ApiProblem("GAME_NOT_FOUND", game=game_id)
    return row


def deal(args: dict) -> Response:
    """Deal a new game (``args``: the parsed body): the token's player's, or anonymous with its own token."""
    player = optional_player()
    return idempotency.idempotent_create(player.token_hash if player else None,
                                         lambda stage: _create_game(args, player, stage))


def _create_game(args: dict, player, stage) -> Response:
    token = None if player else new_token()
    player_id, token_hash = (player.id, player.token_hash) if player else (None, hash_token(token))
    code = _choose_code(args)  # may search for a winnable deal: before taking the write lock
    game = Game(code)
    with write_transaction():
        row = games.insert_game(game, game_id=new_id(), player_id=player_id, token_hash=token_hash,
                                winnable=True if args.get("winnable") else None)
        body = game_json(row, game)
        if token:
            body["token"] = token
        response = json_response(body, 201, version=0, headers={"Location": f"/v1/games/{body['id']}"})
        stage(response)
    return response


def _choose_code(args: dict) -> GameCode:
    """The code of a new game: the one asked for, a proven-winnable one, or a random one."""
    draw = args.get("draw")
    if "code" in args:
        if args.get("winnable"):
            raise ApiProblem("INVALID_REQUEST", errors={"winnable": ["Not with a code: the code fixes the deal."]})
        code = GameCode.parse(args["code"])
        if draw is not None and draw != code.draw:
            raise ApiProblem("INVALID_REQUEST", errors={"draw": [f"The code {code} is played with draw {code.draw}."]})
        return code
    if args.get("winnable"):
        return proven_winnable_code(draw or 1)
    return GameCode.random(draw or 1)


def hint(game_id: str) -> Response:
    """The owner asks for a hint: searched outside any transaction, then counted in the game's ``hints``."""
    row = get_game(game_id)
    require_owner(row.token_hash)
    if row.status == "won":
        raise ApiProblem("GAME_FINISHED")
    version, state = row.version, row.state
    end_read()  # no transaction stays open during the search
    answer = solve_hint(state)
    hints = games.count_hint(game_id)
    if hints is None:
        raise ApiProblem("GAME_NOT_FOUND", game=game_id)
    return json_response({"game": game_id, "version": version, **answer, "hints": hints})


def play(game_id: str, act: Callable[[GameRecord], Response]) -> Response:
    """Play one action on a game in one transaction; ``act(record)`` validates the body and applies it.

    ``act`` runs last, on the locked game, so a malformed body on a game that does not
    exist is 404 and a replayed request is answered without looking at the body again.
    """
    with write_transaction():
        record = games.lock_game(game_id) if is_id(game_id) else None
        if record is None:
            raise ApiProblem("GAME_NOT_FOUND", game=game_id)
        require_owner(record.token_hash)
        key = idempotency.request_key()
        if key is not None:
            fingerprint = idempotency.fingerprint()
            stored = answers.find_answer(record.id, key)
            if stored is not None:
                if stored.fingerprint != fingerprint:
                    raise ApiProblem("IDEMPOTENCY_KEY_REUSED")
                return _replay(stored)
        _check_if_match(record.version)
        response = act(record)
        if key is not None:
            answers.stage_answer(record.id, key, fingerprint, *idempotency.captured(response))
        return response


def apply_action(record: GameRecord, action: Action) -> Response:
    """Apply ``action`` to the locked game and stage its history row; answer the game."""
    game = Game.from_state(record.state)
    try:
        outcome = game.apply(action)
    except Rejection as rejection:
        return problem_response(rejection.code, rejection.params)
    last = outcome.to_json()
    record = games.store_action(record, game, str(action), last, outcome.points)
    return json_response({**game_json(record, game), "last": last}, version=game.version)


def _replay(stored: IdempotentAnswer):
    if stored.raw is not None:
        return idempotency.replay(stored.status, stored.headers, stored.raw)
    # Stored before migration 0004 added the exact bytes (kept at most IDEMPOTENCY_RETENTION_HOURS):
    # rebuild the answer from its JSON.
    headers = {"Idempotent-Replayed": "true"}
    if stored.status == 200:
        return json_response(stored.body, version=stored.body["version"], headers=headers)
    response = json_response(stored.body, stored.status, headers=headers)
    response.mimetype = PROBLEM_MEDIA_TYPE
    return response


def _check_if_match(version: int) -> None:
    header = request.headers.get("If-Match")
    if header is None:
        return
    if len(header) > 1024 or not _IF_MATCH.match(header.strip()):
        # A bare `12` is not an entity tag: answering 412 "expected 12, now at 12" would mislead.
        raise ApiProblem("INVALID_REQUEST", errors={"If-Match": ['Entity tags in double quotes, e.g. "12", or *.']})
    tags = [tag.strip() for tag in header.split(",")]
    if "*" in tags or etag(version) in tags:
        return
    raise ApiProblem("VERSION_MISMATCH", sent=header.strip()[:40], current=version,
                     headers={"ETag": etag(version)})


# -- the reads of leaderboard tools: boards, the feed, verification --------------------


def board(filters: dict, cursor: str | None, limit: int) -> Response:
    """A leaderboard page (``filters``: draw, code, player, since, until), or 304.

    The board's ETag comes from its latest win (``store.feed.board_tag``), read
    before the page, or remembered from an earlier read while no win has been
    signalled since (``store.wins``): an ``If-None-Match`` that names it is 304
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
    with read_connection() as connection:
        tag, empty = board_tag(connection, filters, settle)
        if not (empty and player is not None):
            tags.remember(key, tag, before)
            if if_none_match(tag):
                return not_modified(tag)
        page = ranked_page(connection, filters, after, limit)
    if page is None:
        raise ApiProblem("PLAYER_NOT_FOUND", player=player)
    return json_response(board_json(*page), headers=cache_headers(tag))


def _remembered(key) -> tuple[TagCache, Response | None, tuple]:
    """The 304 of a tag remembered for ``key`` that If-None-Match names, or what remembering a new read needs."""
    tags = tag_cache(db.engine) if current_app.config["BOARD_TAG_CACHE"] else TagCache(None)
    known = tags.known(key)
    if known is not None and if_none_match(known):
        return tags, not_modified(known), ()
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
    with read_connection() as connection:
        tag, _ = board_tag(connection, {**filters, "until": until}, settle)
        tags.remember(key, tag, before, settle_ms=settle)
        if if_none_match(tag):
            return not_modified(tag)
        rows = feed_page(connection, filters, after, until, limit)
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

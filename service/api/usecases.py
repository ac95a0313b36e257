"""The games' use cases, one function each: deal, read, play an action, hint.

A view parses and documents; the function it calls does the rest. Playing is one
transaction: :func:`play` runs an action on a game; in order: the game is loaded under its
write lock (404), the owner's token is checked (401/403), an ``Idempotency-Key``
already answered is replayed (or refused with a different body), ``If-Match`` is
compared (412), and only then is a malformed body refused (400: the view parsed it
before taking the lock) and the action applied by :func:`apply_action`. The answer
is encoded after the commit, unless an ``Idempotency-Key`` must store it in the same
transaction.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import partial

from flask import Response, request
from sqlalchemy.engine import Connection

from ..engine import Action, Game, GameCode, Rejection
from ..store import (
    GameRecord,
    IdempotentAnswer,
    action_transaction,
    end_read,
    games,
    idempotent_answers,
    write_transaction,
)
from . import idempotency
from .auth import hash_token, is_id, new_id, new_token, optional_player, require_owner
from .contract import IF_MATCH_PATTERN
from .present import etag, game_json, json_response
from .problems import PROBLEM_MEDIA_TYPE, ApiProblem, problem_response
from .solving import proven_winnable_code, solve_hint

_IF_MATCH = re.compile(IF_MATCH_PATTERN)


def get_game(game_id: str) -> GameRecord:
    """A game as it is now, in the request's read transaction; 404 when there is none."""
    return _found(game_id, games.read_game(game_id) if is_id(game_id) else None)


def watch_game(game_id: str) -> GameRecord:
    """A game as it is now, for a request that reads nothing else (a poll); 404 when there is none."""
    return _found(game_id, games.read_game_alone(game_id) if is_id(game_id) else None)


def _found(game_id: str, row: GameRecord | None) -> GameRecord:
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


def play(game_id: str, action: Action | Exception) -> Response:
    """Play one action on a game in one transaction and answer the game after it.

    ``action`` is the request body's action, or the error its parsing raised: that one
    is raised only after the checks that come first, so a malformed body on a game that
    does not exist is 404, and a replayed request is answered without looking at the body.
    """
    with action_transaction() as connection:
        record = games.lock_game(connection, game_id) if is_id(game_id) else None
        if record is None:
            raise ApiProblem("GAME_NOT_FOUND", game=game_id)
        require_owner(record.token_hash)
        key = idempotency.request_key()
        if key is not None:
            fingerprint = idempotency.fingerprint()
            stored = idempotent_answers.find_answer(record.id, key)
            if stored is not None:
                if stored.fingerprint != fingerprint:
                    raise ApiProblem("IDEMPOTENCY_KEY_REUSED")
                return _replay(stored)
        _check_if_match(record.version)
        if isinstance(action, Exception):
            raise action
        answer = apply_action(connection, record, action)
        if key is not None:
            response = answer()
            idempotent_answers.stage_answer(record.id, key, fingerprint, *idempotency.captured(response))
            return response
    return answer()


def apply_action(connection: Connection, record: GameRecord, action: Action) -> Callable[[], Response]:
    """Apply ``action`` to the locked game and stage its history row; how to answer, once committed."""
    game = Game.from_state(record.state)
    try:
        outcome = game.apply(action)
    except Rejection as rejection:
        return partial(problem_response, rejection.code, rejection.params)
    last = outcome.to_json()
    record = games.store_action(connection, record, game, str(action), last, outcome.points)
    return lambda: json_response({**game_json(record, game), "last": last}, version=game.version)


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

"""One action = one transaction: lock the game, authorize, apply, store, answer.

:func:`play` runs an action on a game; in order: the game is loaded under its
write lock (404), the owner's token is checked (401/403), an ``Idempotency-Key``
already answered is replayed (or refused with a different body), ``If-Match`` is
compared (412), and only then is the body validated (400) and the action applied
by :func:`apply_action`.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from flask import Response, request

from ..engine import Action, Game, Rejection
from ..store import GameRecord, IdempotentAnswer, answers, games, write_transaction
from . import idempotency
from .auth import is_id, require_owner
from .contract import IF_MATCH_PATTERN
from .present import etag, game_json, json_response
from .problems import PROBLEM_MEDIA_TYPE, ApiProblem, problem_response

_IF_MATCH = re.compile(IF_MATCH_PATTERN)


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
    # Stored before migration 0003: no exact bytes, rebuild the answer from its JSON.
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

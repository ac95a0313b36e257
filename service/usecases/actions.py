"""Playing a game: one action in one transaction, under the game's write lock.

:func:`play` runs, in this order, each step a function of its own (so that a batch of
actions is the same steps around a loop of :func:`apply_action`):

1. :func:`lock_game` — the game, locked until commit (404 ``GAME_NOT_FOUND``), and its
   owner's token checked (401 ``AUTH_REQUIRED`` / 403 ``FORBIDDEN``);
2. :func:`~.idempotency.answered_action` — an ``Idempotency-Key`` already answered on
   this game is that answer again (or 422 ``IDEMPOTENCY_KEY_REUSED`` with another body);
3. :func:`check_version` — ``If-Match`` (400 when it is not a list of entity tags, 412
   ``VERSION_MISMATCH`` when it names no current version);
4. only then the action itself: a body that did not parse is refused now (400: the
   view parsed it before the lock, so that the lock is held for the database work
   only), and :func:`apply_action` applies it through the engine and stores the game
   and its history row (``store.games.store_action``), or keeps the rule's rejection;
5. with a key, the answer is stored in the same transaction; after the commit a
   rejection is raised (422, or 409 ``GAME_FINISHED``: the engine's code).

Every write of the action goes through the one connection of
:func:`~service.store.db.action_transaction`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sqlalchemy.engine import Connection

from ..engine import Action, Game, Rejection
from ..store import GameRecord, action_transaction, games
from ..telemetry import metrics, spans
from .errors import ServiceError, invalid
from .idempotency import Idempotency, StoredAnswer, answered_action, keep_action_answer
from .tokens import is_id, require_owner

#: A list of entity tags or ``*`` (RFC 9110 §13.1.1); a bare ``12`` is malformed (400).
IF_MATCH_PATTERN = r'^(\*|(W/)?"[^"]*"([ \t]*,[ \t]*(W/)?"[^"]*")*)$'
_IF_MATCH = re.compile(IF_MATCH_PATTERN)

#: An action as the request carried it: parsed, or the refusal its body got from the parser.
#: The refusal is raised only after the checks that come first: a malformed body on a game
#: that does not exist is 404, and a replayed request is answered without looking at the body.
Requested = Action | ServiceError


@dataclass(frozen=True, slots=True)
class GameWrite:
    """Who writes to a game and on what terms (checked in that order, under the game's lock).

    ``owner_token``: the bearer token presented (None without one); ``if_match``: the
    ``If-Match`` header as sent, the versions the write is meant for (None: any);
    ``idempotency``: the request's ``Idempotency-Key``, if it has one.
    """

    game_id: str
    owner_token: str | None
    if_match: str | None = None
    idempotency: Idempotency | None = None


@dataclass(frozen=True, slots=True)
class Played:
    """An action applied and stored: the game after it (its row and the engine's game) and the action's outcome."""

    record: GameRecord
    game: Game
    last: dict


@dataclass(frozen=True, slots=True)
class Replayed:
    """A retry of a request already answered: the first answer, as stored."""

    answer: StoredAnswer


def play(write: GameWrite, action: Requested) -> Played | Replayed:
    """Play one action on a game in one transaction; the game after it, or the first answer to a retry.

    Raises :class:`ServiceError` for the checks above and the engine's :class:`Rejection`
    when a rule refuses the action (after storing that answer too, with a key).
    """
    with spans.span("store.transaction"), action_transaction() as connection:
        record = lock_game(connection, write)
        stored = answered_action(connection, record.id, write.idempotency)
        if stored is not None:
            return Replayed(stored)
        check_version(record.version, write.if_match)
        if isinstance(action, ServiceError):
            raise action
        outcome = apply_action(connection, record, action)
        keep_action_answer(connection, record.id, write.idempotency, outcome)
    counted(action, outcome)
    if isinstance(outcome, Rejection):
        raise outcome
    return outcome


def counted(action: Action, outcome: Played | Rejection) -> None:
    """Count a committed action in the metrics: applied or rejected (by its rule's code), a win."""
    if isinstance(outcome, Rejection):
        metrics.action(action.kind, "rejected", outcome.code)
        return
    metrics.action(action.kind, "applied")
    if outcome.game.won:
        metrics.game_finished(outcome.game.code.draw, "won")


def lock_game(connection: Connection, write: GameWrite) -> GameRecord:
    """First in the transaction: the game's row, locked until commit; only its owner gets further."""
    record = games.lock_game(connection, write.game_id) if is_id(write.game_id) else None
    if record is None:
        raise ServiceError("GAME_NOT_FOUND", game=write.game_id)
    require_owner(write.owner_token, record.token_hash)
    return record


def check_version(version: int, if_match: str | None) -> None:
    """Let the write through when ``If-Match`` is absent, ``*`` or names ``version`` (strong comparison)."""
    if if_match is None:
        return
    if len(if_match) > 1024 or not _IF_MATCH.match(if_match.strip()):
        # A bare `12` is not an entity tag: answering 412 "expected 12, now at 12" would mislead.
        raise invalid("If-Match", 'Entity tags in double quotes, e.g. "12", or *.')
    tags = [tag.strip() for tag in if_match.split(",")]
    if "*" in tags or f'"{version}"' in tags:
        return
    raise ServiceError("VERSION_MISMATCH", sent=if_match.strip()[:40], current=version)


def apply_action(connection: Connection, record: GameRecord, action: Action) -> Played | Rejection:
    """Apply ``action`` to the locked game and store it with its history row; a rule's rejection is kept, not raised.

    The rejection is returned so that the caller decides: the transaction still commits
    (it holds the stored answer of a request with a key), and the rejection is raised after.
    """
    game = Game.from_state(record.state)
    try:
        outcome = game.apply(action)
    except Rejection as rejection:
        return rejection
    last = outcome.to_json()
    record = games.store_action(connection, record, game, str(action), last, outcome.points)
    return Played(record, game, last)

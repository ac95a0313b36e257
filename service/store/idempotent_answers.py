"""Stored first answers of requests sent with an Idempotency-Key, replayed to a retry.

An action's answer is keyed by its game and key, and read and written on the
action's own connection, under the game's lock (:func:`~.db.action_transaction`); a
create's (a new game or player) by a hash of who asked, where, and the key
(``service.usecases.idempotency``).
"""

from __future__ import annotations

from sqlalchemy import insert, select
from sqlalchemy.engine import Connection

from ..extensions import db
from .models import CreatedAnswer, IdempotentAnswer

_ACTIONS = IdempotentAnswer.__table__
_A = _ACTIONS.c


def find_created(scope: str) -> CreatedAnswer | None:
    """The stored answer of a create, or None (read outside any write lock)."""
    row = db.session.execute(select(CreatedAnswer).where(CreatedAnswer.scope == scope)).scalar_one_or_none()
    db.session.rollback()
    return row


def stage_created(scope: str, fingerprint: str, status: int, headers: list, body: bytes) -> None:
    """Inside :func:`write_transaction`, with the created row: store its answer in the same commit."""
    db.session.add(CreatedAnswer(scope=scope, fingerprint=fingerprint, status=status, headers=headers, body=body))


def find_answer(connection: Connection, game_id: str, key: str):
    """Inside the game's lock: the stored answer of an action sent with ``key`` (its row), or None."""
    return connection.execute(select(_A.fingerprint, _A.status, _A.headers, _A.raw, _A.body)
                              .where(_A.game_id == game_id, _A.key == key)).first()


def stage_answer(connection: Connection, game_id: str, key: str, fingerprint: str, status: int, headers: list,
                 raw: bytes) -> None:
    """Inside the action's transaction: store its answer in the same commit."""
    # ``raw`` is what a replay sends; the JSON ``body`` column stays empty, not stored twice.
    connection.execute(insert(_ACTIONS).values(game_id=game_id, key=key, fingerprint=fingerprint, status=status,
                                               body={}, raw=raw, headers=headers))

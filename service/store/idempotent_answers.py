"""Stored first answers of requests sent with an Idempotency-Key, replayed to a retry (see api/idempotency.py)."""

from __future__ import annotations

from sqlalchemy import select

from ..extensions import db
from .models import CreatedAnswer, IdempotentAnswer


def find_created(scope: str) -> CreatedAnswer | None:
    """The stored answer of a create, or None (read outside any write lock)."""
    row = db.session.execute(select(CreatedAnswer).where(CreatedAnswer.scope == scope)).scalar_one_or_none()
    db.session.rollback()
    return row


def stage_created(scope: str, fingerprint: str, status: int, headers: list, body: bytes) -> None:
    """Inside :func:`write_transaction`, with the created row: store its answer in the same commit."""
    db.session.add(CreatedAnswer(scope=scope, fingerprint=fingerprint, status=status, headers=headers, body=body))


def find_answer(game_id: str, key: str) -> IdempotentAnswer | None:
    """Inside the game's lock: the stored answer of an action sent with ``key``, or None."""
    return db.session.get(IdempotentAnswer, (game_id, key))


def stage_answer(game_id: str, key: str, fingerprint: str, status: int, headers: list, raw: bytes) -> None:
    """Inside the action's transaction: store its answer in the same commit."""
    # ``raw`` is what a replay sends; the JSON ``body`` column stays empty, not stored twice.
    db.session.add(IdempotentAnswer(game_id=game_id, key=key, fingerprint=fingerprint, status=status,
                                    body={}, raw=raw, headers=headers))

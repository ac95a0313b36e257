"""Stored first answers of creates sent with an Idempotency-Key (see api/idempotency.py)."""

from __future__ import annotations

from sqlalchemy import select

from ..extensions import db
from .models import CreatedAnswer


def find_created(scope: str) -> CreatedAnswer | None:
    """The stored answer of a create, or None (read outside any write lock)."""
    row = db.session.execute(select(CreatedAnswer).where(CreatedAnswer.scope == scope)).scalar_one_or_none()
    db.session.rollback()
    return row


def stage_created(scope: str, fingerprint: str, status: int, headers: list, body: bytes) -> None:
    """Inside :func:`write_transaction`, with the created row: store its answer in the same commit."""
    db.session.add(CreatedAnswer(scope=scope, fingerprint=fingerprint, status=status, headers=headers, body=body))

"""Retention: what the purge command deletes, in short batches that are safe while serving.

* Unfinished anonymous games (no player, still ``playing``) idle longer than the
  retention period, with their history and stored answers (``ON DELETE CASCADE``).
  Won games and players' games stay.
* Stored Idempotency-Key answers (actions' and creates') older than their period.

Each batch is one short write transaction that re-checks the conditions, so a game
played between the batch's read and its delete is kept.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import and_, delete, literal_column, select, tuple_

from ..extensions import db
from .db import write_transaction
from .models import CreatedAnswer, GameRow, IdempotentAnswer

_G = GameRow.__table__.c


def _idle_anonymous(cutoff: datetime):
    return and_(_G.player_id.is_(None), _G.status == literal_column("'playing'"), _G.updated_at < cutoff)


def purge_idle_games(cutoff: datetime, batch: int = 500) -> int:
    """Delete unfinished anonymous games last changed before ``cutoff``; the number deleted."""
    deleted, after = 0, ""
    while True:
        ids = db.session.execute(
            select(_G.id).where(_idle_anonymous(cutoff), _G.id > after).order_by(_G.id).limit(batch)
        ).scalars().all()
        db.session.rollback()
        if not ids:
            return deleted
        with write_transaction() as session:
            deleted += session.execute(
                delete(GameRow.__table__).where(_G.id.in_(ids), _idle_anonymous(cutoff))
            ).rowcount
        after = ids[-1]


def purge_answers(cutoff: datetime, batch: int = 500) -> int:
    """Delete stored Idempotency-Key answers created before ``cutoff``; the number deleted."""
    deleted = 0
    for table, key in ((IdempotentAnswer.__table__, ("game_id", "key")), (CreatedAnswer.__table__, ("scope",))):
        columns = [table.c[name] for name in key]
        while True:
            rows = db.session.execute(
                select(*columns).where(table.c.created_at < cutoff).limit(batch)
            ).all()
            db.session.rollback()
            if not rows:
                break
            with write_transaction() as session:
                keys = tuple_(*columns).in_([tuple(row) for row in rows]) if len(columns) > 1 \
                    else columns[0].in_([row[0] for row in rows])
                deleted += session.execute(delete(table).where(keys, table.c.created_at < cutoff)).rowcount
    return deleted

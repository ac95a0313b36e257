"""The players' queries: register, read, find by token."""

from __future__ import annotations

from sqlalchemy import select

from ..extensions import db
from . import stats
from .db import on_live_connection
from .models import PlayerRow


def insert_player(player_id: str, name: str, token_hash: str) -> PlayerRow:
    """Inside :func:`write_transaction`: store a new player with empty statistics."""
    player = PlayerRow(id=player_id, name=name, token_hash=token_hash)
    db.session.add(player)
    db.session.flush()
    stats.create(db.session.connection(), player.id)
    return player


def read_player(player_id: str) -> PlayerRow | None:
    return db.session.get(PlayerRow, player_id)


def player_by_token_hash(digest: str) -> PlayerRow | None:
    """The player whose token hashes to ``digest``, or None."""
    statement = select(PlayerRow).where(PlayerRow.token_hash == digest)
    return on_live_connection(lambda: db.session.execute(statement).scalar_one_or_none())

"""Persistence: SQLAlchemy models and the transactions the API runs in."""

from . import pool
from .db import configure_engine, lock_game_row, store_action, write_transaction
from .models import Action, CreatedAnswer, Game, IdempotentAnswer, Player, WinnableDeal

__all__ = ["Action", "CreatedAnswer", "Game", "IdempotentAnswer", "Player", "WinnableDeal", "configure_engine",
           "lock_game_row", "pool", "store_action", "write_transaction"]

"""Persistence: SQLAlchemy models and the transactions the API runs in."""

from .db import configure_engine, lock_game_row, store_action, write_transaction
from .models import Action, Game, IdempotentAnswer, Player

__all__ = ["Action", "Game", "IdempotentAnswer", "Player", "configure_engine", "lock_game_row", "store_action",
           "write_transaction"]

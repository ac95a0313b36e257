"""Persistence: SQLAlchemy models and the transactions the API runs in."""

from . import pool, stats
from .db import configure_engine, lock_game_row, store_action, write_transaction
from .models import Action, CreatedAnswer, Game, IdempotentAnswer, Player, PlayerStats, WinnableDeal

__all__ = ["Action", "CreatedAnswer", "Game", "IdempotentAnswer", "Player", "PlayerStats", "WinnableDeal",
           "configure_engine", "lock_game_row", "pool", "stats", "store_action", "write_transaction"]

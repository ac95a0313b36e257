"""Persistence: the tables, and every query and transaction the service runs."""

from . import answers, games, players, pool, stats
from .db import action_transaction, configure_engine, end_read, ping, write_transaction
from .games import GameRecord, stored_columns
from .models import ActionRow, CreatedAnswer, GameRow, IdempotentAnswer, PlayerRow, PlayerStats, WinnableDeal

__all__ = ["ActionRow", "CreatedAnswer", "GameRecord", "GameRow", "IdempotentAnswer", "PlayerRow", "PlayerStats",
           "WinnableDeal", "action_transaction", "answers", "configure_engine", "end_read", "games", "ping",
           "players", "pool", "stats", "stored_columns", "write_transaction"]

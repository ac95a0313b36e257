"""Persistence: the tables, and every query and transaction the service runs."""

from . import games, idempotent_answers, players, stats, winnable_deals
from .db import action_transaction, configure_engine, end_read, ping, write_transaction
from .games import GameRecord, stored_columns
from .models import ActionRow, CreatedAnswer, GameRow, IdempotentAnswer, PlayerRow, PlayerStats, WinnableDeal

__all__ = ["ActionRow", "CreatedAnswer", "GameRecord", "GameRow", "IdempotentAnswer", "PlayerRow", "PlayerStats",
           "WinnableDeal", "action_transaction", "configure_engine", "end_read", "games", "ping",
           "idempotent_answers", "players", "stats", "winnable_deals", "stored_columns", "write_transaction"]

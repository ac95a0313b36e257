"""The players' use cases: register one, find one by token, read one with statistics, list their games."""

from __future__ import annotations

import hmac
from collections.abc import Callable
from dataclasses import dataclass

from ..store import PlayerRow, PlayerStats, games, players, stats, write_transaction
from ..telemetry import spans
from .cursors import PLAYER_GAMES_CURSOR
from .errors import ServiceError
from .idempotency import Idempotency, StoredAnswer, created_once
from .tokens import hash_token, is_id, new_id, new_token


@dataclass(frozen=True, slots=True)
class Registered:
    """A player just registered, and their token (shown once, stored only as a hash)."""

    player: PlayerRow
    token: str


@dataclass(frozen=True, slots=True)
class PlayerWithStats:
    """A player and their statistics rows by mode (0: all games, 1 and 3: per draw mode; absent: none yet)."""

    player: PlayerRow
    stats: dict[int, PlayerStats]


@dataclass(frozen=True, slots=True)
class GamesPage:
    """A page of a player's games (``store.games.player_games_page``'s rows); ``next``: the following page's cursor."""

    games: list
    next: str | None


def register(name: str, *, idempotency: Idempotency | None = None) -> Registered | StoredAnswer:
    """Register a player; with an ``Idempotency-Key``, a retry gets the first answer instead of a second player."""
    return created_once(idempotency, None, lambda keep: _create_player(name.strip(), keep))


def _create_player(name: str, keep: Callable) -> Registered:
    token = new_token()
    with spans.span("store.transaction"), write_transaction():
        registered = Registered(players.insert_player(new_id(), name, hash_token(token)), token)
        keep(registered)
    return registered


def player_by_token(token: str | None) -> PlayerRow | None:
    """The player whose token this is, None without a token; a token that is no player's is 401."""
    if token is None:
        return None
    digest = hash_token(token)
    player = players.player_by_token_hash(digest)
    if player is None or not hmac.compare_digest(player.token_hash, digest):
        raise ServiceError("AUTH_REQUIRED")
    return player


def _existing(player_id: str) -> PlayerRow:
    player = players.read_player(player_id) if is_id(player_id) else None
    if player is None:
        raise ServiceError("PLAYER_NOT_FOUND", player=player_id)
    return player


def read(player_id: str) -> PlayerWithStats:
    """A player and their statistics, kept as games finish (``store.stats``); 404 when there is none."""
    player = _existing(player_id)
    return PlayerWithStats(player, stats.read(player.id))


def list_games(player_id: str, status: str | None, cursor: str | None, limit: int) -> GamesPage:
    """A page of a player's games, newest first, ``status`` (playing or won) or all (404, then a bad cursor's 400)."""
    _existing(player_id)
    position = PLAYER_GAMES_CURSOR.decode(cursor)
    after = None if position is None else (position["created"], position["game"])
    rows = games.player_games_page(player_id, status, after, limit)
    following = None
    if len(rows) > limit:
        last = rows[limit - 1]
        following = PLAYER_GAMES_CURSOR.encode({"created": last.created_at, "game": last.id})
    return GamesPage(rows[:limit], following)

"""The players' use cases, one function each: register, read with statistics, list their games.

A view parses and documents; the function it calls does the rest (see :mod:`.usecases`
for the games').
"""

from __future__ import annotations

from flask import Response

from ..store import PlayerRow, games, players, stats, write_transaction
from . import idempotency
from .auth import hash_token, is_id, new_id, new_token
from .paging import PLAYER_GAMES_CURSOR
from .present import game_summary_json, iso, json_response, player_stats_json
from .problems import ApiProblem


def register(name: str) -> Response:
    """Register a player; with an ``Idempotency-Key``, a retry answers the first player again."""
    return idempotency.idempotent_create(None, lambda stage: _create_player(name.strip(), stage))


def _create_player(name: str, stage) -> Response:
    token = new_token()
    with write_transaction():
        player = players.insert_player(new_id(), name, hash_token(token))
        body = {"id": player.id, "name": player.name, "token": token, "created_at": iso(player.created_at)}
        response = json_response(body, 201, headers={"Location": f"/v1/players/{body['id']}"})
        stage(response)
    return response


def _existing_player(player_id: str) -> PlayerRow:
    """The player; 404 when there is none."""
    player = players.read_player(player_id) if is_id(player_id) else None
    if player is None:
        raise ApiProblem("PLAYER_NOT_FOUND", player=player_id)
    return player


def read(player_id: str) -> Response:
    """A player and their statistics, kept as games finish (store/stats.py)."""
    player = _existing_player(player_id)
    return json_response({"id": player.id, "name": player.name, "created_at": iso(player.created_at),
                          "stats": player_stats_json(stats.read(player.id))})


def list_games(player_id: str, status: str | None, cursor: str | None, limit: int) -> Response:
    """A page of a player's games, newest first, ``status`` (playing or won) or all."""
    _existing_player(player_id)
    position = PLAYER_GAMES_CURSOR.decode(cursor)
    after = None if position is None else (position["created"], position["game"])
    rows = games.player_games_page(player_id, status, after, limit)
    next_cursor = None
    if len(rows) > limit:
        last = rows[limit - 1]
        next_cursor = PLAYER_GAMES_CURSOR.encode({"created": last.created_at, "game": last.id})
    return json_response({"items": [game_summary_json(row) for row in rows[:limit]], "next": next_cursor})

"""service.usecases.players: register, find by token, read, list games, called without an HTTP request."""

from __future__ import annotations

import pytest

from service.usecases import games, players
from service.usecases.errors import ServiceError
from service.usecases.games import NewGame
from service.usecases.idempotency import StoredAnswer
from service.usecases.players import Registered
from tests.usecases.conftest import kept


def test_a_player_registers_with_a_token_shown_once(context):
    registered = players.register("  Zoë  ")
    assert isinstance(registered, Registered) and registered.player.name == "Zoë"
    assert players.player_by_token(registered.token).id == registered.player.id
    assert players.player_by_token(None) is None
    with pytest.raises(ServiceError, match="AUTH_REQUIRED"):
        players.player_by_token("x" * 43)


def test_registering_with_a_key_twice_is_one_player(context):
    first = players.register("Ada", idempotency=kept("p1-3e8b0d6c-92a1-4f", body="Ada"))
    again = players.register("Ada", idempotency=kept("p1-3e8b0d6c-92a1-4f", body="Ada"))
    assert isinstance(again, StoredAnswer) and again.raw == repr(first).encode()


def test_a_player_reads_with_statistics(context, solving):
    registered = players.register("Ada")
    games.deal(NewGame(draw=3), player_token=registered.token, solving=solving)
    found = players.read(registered.player.id)
    assert found.player.id == registered.player.id
    assert (found.stats[0].started, found.stats[3].started, found.stats[1].started) == (1, 1, 0)
    with pytest.raises(ServiceError) as missing:
        players.read("nobody")
    assert (missing.value.code, missing.value.params) == ("PLAYER_NOT_FOUND", {"player": "nobody"})


def test_a_players_games_come_newest_first_by_page(context, solving):
    registered = players.register("Ada")
    dealt = [games.deal(NewGame(), player_token=registered.token, solving=solving).record.id for _ in range(3)]
    first = players.list_games(registered.player.id, None, None, 2)
    assert [row.id for row in first.games] == dealt[::-1][:2] and first.next
    rest = players.list_games(registered.player.id, None, first.next, 2)
    assert [row.id for row in rest.games] == dealt[:1] and rest.next is None
    assert players.list_games(registered.player.id, "won", None, 2).games == []
    with pytest.raises(ServiceError, match="PLAYER_NOT_FOUND"):
        players.list_games("nobody", None, "not-a-cursor", 2)

"""service.usecases.batch: a batch of actions, called without an HTTP request."""

from __future__ import annotations

import pytest

from service.engine import Action
from service.usecases import games
from service.usecases.actions import GameWrite, Played, Replayed
from service.usecases.batch import Refused, Stale, parse_batch, play_batch
from service.usecases.errors import ServiceError
from tests.usecases.conftest import kept, new_game


def test_a_batch_is_applied_once_and_stored_in_order(context, solving):
    game_id, token = new_game(solving)
    played = play_batch(GameWrite(game_id, token, '"0"'), parse_batch(["t7>foundation", "draw", "undo", "draw"]))
    assert isinstance(played, Played) and played.record.version == played.game.version == 4
    assert played.record.score == 10
    stored = games.history(game_id, None, 10).actions
    assert [(row.seq, row.notation) for row in stored] == [(1, "t7>foundation"), (2, "draw"), (3, "undo"),
                                                           (4, "draw")]


def test_the_checks_come_first_and_nothing_is_stored_on_a_refusal(context, solving):
    game_id, token = new_game(solving)
    with pytest.raises(ServiceError, match="IF_MATCH_REQUIRED"):
        play_batch(GameWrite(game_id, token), [Action.draw()])
    with pytest.raises(ServiceError, match="FORBIDDEN"):
        play_batch(GameWrite(game_id, "not-the-token", '"0"'), [Action.draw()])
    malformed = ServiceError("INVALID_NOTATION", index=0, notation="zz")
    with pytest.raises(ServiceError, match="INVALID_NOTATION"):
        play_batch(GameWrite(game_id, token, '"0"'), malformed)
    with pytest.raises(Refused) as refused:
        play_batch(GameWrite(game_id, token, '"0"'), parse_batch(["draw", "t1>t1"]))
    assert (refused.value.code, refused.value.params) == ("SAME_PILE", {"pile": "t1", "index": 1})
    assert games.read_game(game_id).version == 0 and games.history(game_id, None, 10).actions == []


def test_a_stale_base_lists_the_actions_since(context, solving):
    game_id, token = new_game(solving)
    play_batch(GameWrite(game_id, token, '"0"'), parse_batch(["draw", "draw"]))
    play_batch(GameWrite(game_id, token, '"2"'), parse_batch(["undo"]))
    with pytest.raises(Stale) as stale:
        play_batch(GameWrite(game_id, token, '"1"'), [Action.draw()])
    assert stale.value.params() == {"sent": '"1"', "current": 3, "version": 3, "base": 1,
                                    "actions": ["draw", "undo"]}
    assert stale.value.cursor is not None


def test_a_repeated_key_is_replayed_not_applied(context, solving):
    game_id, token = new_game(solving)
    first = play_batch(GameWrite(game_id, token, '"0"', kept("k")), parse_batch(["draw", "draw"]))
    again = play_batch(GameWrite(game_id, token, '"0"', kept("k")), parse_batch(["draw", "draw"]))
    assert isinstance(first, Played) and isinstance(again, Replayed)
    assert games.read_game(game_id).version == 2


def test_parse_batch_names_the_first_unparseable_action():
    with pytest.raises(ServiceError) as refused:
        parse_batch(["draw", "t1>t2", "T3>t5", "nope"])
    assert refused.value.params == {"index": 2, "notation": "T3>t5"}

"""service.usecases.actions: playing an action, called without an HTTP request."""

from __future__ import annotations

import pytest

from service.engine import Action, Rejection
from service.usecases import actions, games
from service.usecases.actions import GameWrite, Played, Replayed, play
from service.usecases.errors import ServiceError
from tests.usecases.conftest import kept, new_game


def test_an_action_is_applied_stored_and_answered(context, solving):
    game_id, token = new_game(solving)
    played = play(GameWrite(game_id, token), Action.move("t7", "foundation"))
    assert isinstance(played, Played)
    assert played.record.version == played.game.version == 1 and played.record.score == 10
    assert played.last["points"] == 10 and played.last["moved_to"] == "fH"
    assert games.read_game(game_id).version == 1
    assert [row.notation for row in games.history(game_id, None, 10).actions] == ["t7>foundation"]


def test_the_checks_come_in_their_order_before_the_body(context, solving):
    game_id, token = new_game(solving)
    malformed = ServiceError("INVALID_REQUEST", errors={"from": ["Not a pile."]})
    with pytest.raises(ServiceError) as missing:
        play(GameWrite("nosuchgame", token), malformed)
    assert (missing.value.code, missing.value.params) == ("GAME_NOT_FOUND", {"game": "nosuchgame"})
    with pytest.raises(ServiceError, match="AUTH_REQUIRED"):
        play(GameWrite(game_id, None), malformed)
    with pytest.raises(ServiceError, match="FORBIDDEN"):
        play(GameWrite(game_id, "not-the-token"), malformed)
    with pytest.raises(ServiceError) as stale:
        play(GameWrite(game_id, token, if_match='"7"'), malformed)
    assert (stale.value.code, stale.value.params) == ("VERSION_MISMATCH", {"sent": '"7"', "current": 0})
    with pytest.raises(ServiceError) as bare:
        play(GameWrite(game_id, token, if_match="0"), malformed)
    assert bare.value.errors == {"If-Match": ['Entity tags in double quotes, e.g. "12", or *.']}
    with pytest.raises(ServiceError) as refused:
        play(GameWrite(game_id, token, if_match='"0"'), malformed)
    assert refused.value is malformed
    assert games.read_game(game_id).version == 0


def test_a_rule_rejection_is_raised_and_changes_nothing(context, solving):
    game_id, token = new_game(solving)
    with pytest.raises(Rejection) as rejected:
        play(GameWrite(game_id, token), Action.recycle())
    assert rejected.value.code == "STOCK_NOT_EMPTY"
    assert games.read_game(game_id).version == 0


def test_a_key_replays_the_first_answer_without_the_body_and_refuses_another_body(context, solving):
    game_id, token = new_game(solving)
    first = play(GameWrite(game_id, token, idempotency=kept("k1")), Action.draw())
    assert isinstance(first, Played) and first.record.version == 1
    # A retry: the stored answer, whatever its body says now (here a refusal it never raises).
    again = play(GameWrite(game_id, token, idempotency=kept("k1")), ServiceError("INVALID_REQUEST", errors={}))
    assert isinstance(again, Replayed) and again.answer.raw == repr(first).encode()
    assert games.read_game(game_id).version == 1
    with pytest.raises(ServiceError, match="IDEMPOTENCY_KEY_REUSED"):
        play(GameWrite(game_id, token, idempotency=kept("k1", body="another")), Action.draw())
    with pytest.raises(ServiceError) as long_key:
        play(GameWrite(game_id, token, idempotency=kept("k" * 129)), Action.draw())
    assert list(long_key.value.errors) == ["Idempotency-Key"]


def test_a_rejection_with_a_key_is_kept_then_raised(context, solving):
    game_id, token = new_game(solving)
    with pytest.raises(Rejection) as rejected:
        play(GameWrite(game_id, token, idempotency=kept("r1")), Action.recycle())
    again = play(GameWrite(game_id, token, idempotency=kept("r1")), Action.recycle())
    assert isinstance(again, Replayed) and again.answer.raw == repr(rejected.value).encode()


def test_the_steps_stand_alone_for_a_batch_of_actions(context, solving):
    game_id, token = new_game(solving)
    actions.check_version(3, None)
    actions.check_version(3, '"1", "3"')
    actions.check_version(3, "*")
    with pytest.raises(ServiceError, match="VERSION_MISMATCH"):
        actions.check_version(3, 'W/"3"')  # a strong comparison
    from service.store import action_transaction

    with action_transaction() as connection:
        record = actions.lock_game(connection, GameWrite(game_id, token))
        for action in (Action.draw(), Action.draw()):
            outcome = actions.apply_action(connection, record, action)
            record = outcome.record
        assert isinstance(actions.apply_action(connection, record, Action.recycle()), Rejection)
    assert games.read_game(game_id).version == 2

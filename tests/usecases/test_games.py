"""service.usecases.games: deal, read, history, legal actions and hints, called without an HTTP request."""

from __future__ import annotations

import pytest

from service.engine import Action, Game, Rejection
from service.store import winnable_deals
from service.usecases import games, players
from service.usecases.actions import GameWrite, play
from service.usecases.errors import ServiceError
from service.usecases.games import Dealt, NewGame
from service.usecases.idempotency import StoredAnswer
from service.usecases.tokens import hash_token
from tests.usecases.conftest import kept

EASY = "TF1-D1N-AAAAAAC"  # winnable, and found at once (see the service.solver docstring)


def test_an_anonymous_deal_has_a_token_of_its_own(context, solving):
    dealt = games.deal(NewGame(code="tf1-d3n-aaaaaab"), player_token=None, solving=solving)
    assert isinstance(dealt, Dealt) and dealt.record.code == "TF1-D3N-AAAAAAB" and dealt.record.draw == 3
    assert dealt.token and dealt.record.token_hash == hash_token(dealt.token) and dealt.record.player_id is None
    assert dealt.game.to_state() == games.read_game(dealt.record.id).state


def test_a_players_deal_is_theirs_and_an_unknown_token_is_refused(context, solving):
    registered = players.register("Ada")
    dealt = games.deal(NewGame(draw=3), player_token=registered.token, solving=solving)
    assert dealt.token is None and dealt.record.player_id == registered.player.id and dealt.record.draw == 3
    with pytest.raises(ServiceError, match="AUTH_REQUIRED"):
        games.deal(NewGame(), player_token="nobody's", solving=solving)


def test_what_a_deal_refuses(context, solving):
    with pytest.raises(ServiceError) as both:
        games.deal(NewGame(code=EASY, winnable=True), player_token=None, solving=solving)
    assert list(both.value.errors) == ["winnable"]
    with pytest.raises(ServiceError) as draw:
        games.deal(NewGame(code=EASY, draw=3), player_token=None, solving=solving)
    assert list(draw.value.errors) == ["draw"]
    with pytest.raises(Rejection, match="INVALID_GAME_CODE"):
        games.deal(NewGame(code="TF9"), player_token=None, solving=solving)


def test_a_winnable_deal_comes_from_the_pool(context, solving):
    assert winnable_deals.fill(1, 1, budget_ms=500) == 1
    dealt = games.deal(NewGame(winnable=True), player_token=None, solving=solving)
    assert dealt.record.winnable is True and winnable_deals.size(1) == 0


def test_a_deal_with_a_key_is_dealt_once(context, solving):
    key = "d1-5f0c9e2a-7b41-4d"
    first = games.deal(NewGame(), player_token=None, solving=solving, idempotency=kept(key))
    again = games.deal(NewGame(), player_token=None, solving=solving, idempotency=kept(key))
    assert isinstance(again, StoredAnswer) and again.raw == repr(first).encode()
    elsewhere = games.deal(NewGame(), player_token=None, solving=solving, idempotency=kept(key, endpoint="/there"))
    assert isinstance(elsewhere, Dealt) and elsewhere.record.id != first.record.id
    with pytest.raises(ServiceError, match="IDEMPOTENCY_KEY_REUSED"):
        games.deal(NewGame(), player_token=None, solving=solving, idempotency=kept(key, body="other"))
    # Anonymous, the key alone tells the create apart: a guessable one is refused, nothing dealt.
    with pytest.raises(ServiceError) as weak:
        games.deal(NewGame(), player_token=None, solving=solving, idempotency=kept("d1"))
    assert list(weak.value.errors) == ["Idempotency-Key"]


def test_reading_a_game_that_does_not_exist_is_404(context):
    for read in (games.read_game, games.watch_game, games.legal_actions):
        with pytest.raises(ServiceError) as missing:
            read("nosuchgame")
        assert (missing.value.code, missing.value.params) == ("GAME_NOT_FOUND", {"game": "nosuchgame"})
    with pytest.raises(ServiceError, match="GAME_NOT_FOUND"):
        games.read_game("not an id\0")


def test_history_pages_follow_their_cursor(context, solving):
    dealt = games.deal(NewGame(code=EASY), player_token=None, solving=solving)
    for _ in range(5):
        play(GameWrite(dealt.record.id, dealt.token), Action.draw())
    first = games.history(dealt.record.id, None, 2)
    assert [row.seq for row in first.actions] == [1, 2] and first.next
    rest = games.history(dealt.record.id, games.history(dealt.record.id, first.next, 2).next, 2)
    assert [row.seq for row in rest.actions] == [5] and rest.next is None
    with pytest.raises(ServiceError) as bad:
        games.history(dealt.record.id, "not-a-cursor", 2)
    assert list(bad.value.errors) == ["cursor"]
    with pytest.raises(ServiceError, match="GAME_NOT_FOUND"):
        games.history("nosuchgame", "not-a-cursor", 2)  # 404 before the cursor's 400


def test_legal_actions_are_the_engines(context, solving):
    dealt = games.deal(NewGame(code=EASY), player_token=None, solving=solving)
    legal = games.legal_actions(dealt.record.id)
    assert legal.actions == Game.from_code(EASY).legal_actions() and legal.record.version == 0


def test_a_hint_is_the_owners_and_counted(context, solving):
    dealt = games.deal(NewGame(code=EASY), player_token=None, solving=solving)
    with pytest.raises(ServiceError, match="AUTH_REQUIRED"):
        games.hint(dealt.record.id, owner_token=None, solving=solving)
    hint = games.hint(dealt.record.id, owner_token=dealt.token, solving=solving)
    assert (hint.game_id, hint.version, hint.hints) == (dealt.record.id, 0, 1)
    assert hint.answer["verdict"] == "winnable" and Action.parse(hint.answer["notation"])
    again = games.hint(dealt.record.id, owner_token=dealt.token, solving=solving)
    assert again.answer["cached"] is True and again.hints == 2

"""service.usecases.boards: boards, the daily deal, the feed and verification, called without an HTTP request."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest

from service.engine import GameCode
from service.solver import solve
from service.usecases import boards, games
from service.usecases.actions import GameWrite, play
from service.usecases.errors import ServiceError
from service.usecases.games import NewGame

EASY = "TF1-D1N-AAAAAAC"
SETTLE = {"settle_ms": 0}


def _won(solving) -> str:
    dealt = games.deal(NewGame(code=EASY), player_token=None, solving=solving)
    for action in solve(dealt.game, budget_ms=5000).line:
        play(GameWrite(dealt.record.id, dealt.token), action)
    return dealt.record.id


def test_a_board_ranks_the_wins_and_knows_when_nothing_changed(context, solving):
    won = _won(solving)
    page = boards.board({"draw": None}, None, 10, **SETTLE)
    assert [(rank, row[0]) for rank, row in page.ranked] == [(1, won)] and page.next is None
    assert boards.board({"draw": 1}, None, 10, known_tags=frozenset({page.tag}), **SETTLE) == \
        boards.Unchanged(page.tag)
    assert isinstance(boards.board({"draw": 3}, None, 10, known_tags=frozenset({page.tag}), **SETTLE),
                      boards.BoardPage)
    with pytest.raises(ServiceError, match="PLAYER_NOT_FOUND"):
        boards.board({"player": "nobody"}, None, 10, **SETTLE)
    with pytest.raises(ServiceError) as bad:
        boards.board({}, "not-a-cursor", 10, known_tags=frozenset({"*"}), **SETTLE)
    assert list(bad.value.errors) == ["cursor"]  # a malformed cursor is 400 even when the board has not changed


def test_the_daily_deal_is_the_solvers_and_never_tomorrows(context):
    deal = boards.daily(date(2026, 11, 29), 3)
    assert deal.day == date(2026, 11, 29) and isinstance(deal.code, GameCode) and deal.code.draw == 3
    assert boards.daily(None, 1).day == datetime.now(UTC).date()
    with pytest.raises(ServiceError) as future:
        boards.daily(datetime.now(UTC).date() + timedelta(days=2), 1)
    assert list(future.value.errors) == ["date"]


def test_the_feed_pages_and_streams_the_wins(context, solving):
    won = _won(solving)
    page = boards.finished_games({}, None, 10, **SETTLE)
    assert [row.id for row in page.rows] == [won] and page.next is None and page.resume
    assert boards.finished_games({}, page.resume, 10, known_tags=frozenset({page.tag}), **SETTLE) == \
        boards.Unchanged(page.tag)
    assert boards.finished_games({}, page.resume, 10, **SETTLE).rows == []
    stream = boards.stream_finished_games({}, None, 10, seconds=30, **SETTLE)
    assert [row.id for rows in stream for row in rows] == [won]
    assert stream.end == {"resume": page.resume, "count": 1, "more": False}


def test_a_verification_replays_the_stored_history(context, solving):
    report = boards.verification(_won(solving))
    assert report["consistent"] is True and report["replayed"]["status"] == "won"
    with pytest.raises(ServiceError, match="GAME_NOT_FOUND"):
        boards.verification("nosuchgame")

"""Leaderboards and the daily deal, on SQLite and PostgreSQL.

Won games are inserted directly as rows with chosen score, moves and times; one
test wins a game through the API with the solver's line.
"""

from __future__ import annotations

import itertools
from datetime import UTC, date, datetime, timedelta

import pytest

from service.engine import Game, GameCode
from service.extensions import db
from service.solver import solve
from service.solver.daily import daily_candidate, daily_deal
from service.store import GameRow, PlayerRow
from tests.api.helpers import act, new_game, problem

T0 = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)
_ids = itertools.count()


def add_player(app, name: str = "ann") -> str:
    with app.app_context():
        player_id = f"p{next(_ids):05d}"
        db.session.add(PlayerRow(id=player_id, name=name, token_hash=f"hash-{player_id}"))
        db.session.commit()
        return player_id


def add_win(app, *, score: int, moves: int = 100, ms: int = 60_000, finished: datetime = T0,
            draw: int = 1, deal: int = 1, player: str | None = None, game_id: str | None = None,
            status: str = "won", client_started: datetime | None = None) -> str:
    """A won game row, as the server would have stored it (``client_started``: a game born offline)."""
    code = GameCode(draw=draw, deal=deal)
    game_id = game_id or f"g{next(_ids):06d}"
    with app.app_context():
        db.session.add(GameRow(
            id=game_id, code=str(code), deal=deal, draw=draw, player_id=player, token_hash=None,
            status=status, score=score, moves=moves, state={}, created_at=finished - timedelta(milliseconds=ms),
            updated_at=finished, finished_at=finished if status == "won" else None,
            duration_ms=ms if status == "won" else None, client_started_at=client_started,
            client_seconds=None if client_started is None else ms // 1000,
        ))
        db.session.commit()
    return game_id


def board(client, path: str = "/v1/leaderboard", **query) -> dict:
    response = client.get(path, query_string=query)
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def everything(client, path: str = "/v1/leaderboard", **query) -> list[dict]:
    """All entries, page by page."""
    items, cursor = [], None
    while True:
        page = board(client, path, **query, **({"cursor": cursor} if cursor else {}))
        items += page["items"]
        cursor = page["next"]
        if cursor is None:
            return items


def test_entry_shape_and_stored_values(app, client):
    player = add_player(app, "Zoë")
    game = add_win(app, score=640, moves=123, ms=95_250, player=player, draw=3, deal=42)
    anonymous = add_win(app, score=10, deal=7)
    add_win(app, score=999, status="playing")  # not won: never listed
    items = board(client)["items"]
    assert items == [
        {"rank": 1, "game": game, "code": str(GameCode(draw=3, deal=42)), "draw": 3, "player": player,
         "player_name": "Zoë", "score": 640, "moves": 123, "seconds": 95.25,
         "finished_at": "2026-11-01T12:00:00.000Z", "timing": "server"},
        {"rank": 2, "game": anonymous, "code": str(GameCode(draw=1, deal=7)), "draw": 1, "player": None,
         "player_name": None, "score": 10, "moves": 100, "seconds": 60.0,
         "finished_at": "2026-11-01T12:00:00.000Z", "timing": "server"},
    ]
    assert board(client)["next"] is None


def test_order_score_moves_time_finish_then_id(app, client):
    expected = [
        add_win(app, score=500, moves=90),
        add_win(app, score=500, moves=100, ms=50_000),
        add_win(app, score=500, moves=100, ms=60_000, finished=T0 - timedelta(hours=1)),
        add_win(app, score=500, moves=100, ms=60_000, finished=T0, game_id="g-b"),
        add_win(app, score=500, moves=100, ms=60_000, finished=T0, game_id="g-c"),
        add_win(app, score=400, moves=10, ms=1_000),
    ]
    items = board(client)["items"]
    assert [item["game"] for item in items] == expected
    # Equal score, moves and time share a rank whatever the finish time: 1 2 3 3 3 6.
    assert [item["rank"] for item in items] == [1, 2, 3, 3, 3, 6]


def test_ranks_are_right_on_every_page(app, client):
    # 9 entries: scores 900, then a four-way tie at 800, then 700, 700, 600, 500.
    add_win(app, score=900)
    for minutes in range(4):
        add_win(app, score=800, finished=T0 + timedelta(minutes=minutes))
    add_win(app, score=700, moves=50)
    add_win(app, score=700, moves=50)
    add_win(app, score=600)
    add_win(app, score=500)
    ranks = [1, 2, 2, 2, 2, 6, 6, 8, 9]
    for limit in (1, 2, 3, 4):
        items = everything(client, limit=limit)
        assert [item["rank"] for item in items] == ranks, limit
        assert len({item["game"] for item in items}) == 9
    # Page 2 with limit 3 starts inside the tie: its first entry keeps rank 2.
    first = board(client, limit=3)
    second = board(client, limit=3, cursor=first["next"])
    assert [item["rank"] for item in second["items"]] == [2, 2, 6]


def test_filters_draw_window_player(app, client):
    ann, bob = add_player(app, "ann"), add_player(app, "bob")
    a1 = add_win(app, score=100, draw=1, player=ann, finished=T0)
    a3 = add_win(app, score=200, draw=3, player=ann, finished=T0 + timedelta(days=1))
    b1 = add_win(app, score=300, draw=1, player=bob, finished=T0 + timedelta(days=2))
    anon = add_win(app, score=50, draw=1, finished=T0 + timedelta(days=3))

    def games(**query):
        return [item["game"] for item in board(client, **query)["items"]]

    assert games() == [b1, a3, a1, anon]
    assert games(draw=1) == [b1, a1, anon]
    assert games(draw=3) == [a3]
    assert games(player=ann) == [a3, a1]
    assert games(player=ann, draw=1) == [a1]
    # since inclusive, until exclusive; a date alone is midnight UTC.
    assert games(since="2026-11-02T12:00:00Z") == [b1, a3, anon]
    assert games(until="2026-11-02T12:00:00Z") == [a1]
    assert games(since="2026-11-02", until="2026-11-04") == [b1, a3]
    assert games(since="2026-11-02T13:00:00+01:00", until="2026-11-03T12:00:00.000001Z") == [b1, a3]
    # Ranks follow the filters: bob's win is 1st overall, a1 is 1st among ann's draw-1 wins.
    assert [i["rank"] for i in board(client, player=ann, draw=1)["items"]] == [1]


def test_deal_leaderboard(app, client):
    code = GameCode(draw=1, deal=12345)
    other = add_win(app, score=999, deal=99)
    best = add_win(app, score=300, deal=12345)
    second = add_win(app, score=200, deal=12345)
    add_win(app, score=250, deal=12345, draw=3)  # same deal number, other draw mode: another code
    for written in (str(code), str(code).lower(), "tF1-d1n-" + str(code)[8:].lower()):
        items = board(client, f"/v1/deals/{written}/leaderboard")["items"]
        assert [(i["game"], i["rank"]) for i in items] == [(best, 1), (second, 2)]
        assert {i["code"] for i in items} == {str(code)}
    assert other not in [i["game"] for i in everything(client, f"/v1/deals/{code}/leaderboard", limit=1)]


def test_pagination_is_stable_while_wins_arrive(app, client):
    original = [add_win(app, score=1000 - 10 * n, finished=T0 + timedelta(seconds=n)) for n in range(30)]
    seen, cursor, rounds = [], None, 0
    while True:
        page = board(client, limit=7, **({"cursor": cursor} if cursor else {}))
        seen += [item["game"] for item in page["items"]]
        cursor = page["next"]
        if cursor is None:
            break
        rounds += 1
        # Between pages: better wins (land on pages already read), ties and worse ones.
        add_win(app, score=2000 + rounds)
        add_win(app, score=1000 - 10 * (rounds * 4), finished=T0 + timedelta(hours=1))
        add_win(app, score=5)
    kept = [game for game in seen if game in original]
    assert kept == original  # no duplicates, no gaps, in order
    assert len(seen) == len(set(seen))


def test_rank_counts_wins_that_arrived_before_the_page(app, client):
    for score in (500, 400, 300, 200):
        add_win(app, score=score)
    first = board(client, limit=2)
    add_win(app, score=450)
    second = board(client, limit=2, cursor=first["next"])
    assert [(i["score"], i["rank"]) for i in second["items"]] == [(300, 4), (200, 5)]


def test_limits(app, client):
    for n in range(3):
        add_win(app, score=n)
    assert len(board(client, limit=2)["items"]) == 2
    problem(client.get("/v1/deals/TF1-D1N-AAAAAAB/leaderboard?since=2026-13-01"), 400, "INVALID_REQUEST")


@pytest.mark.parametrize(("query", "field"), [
    ({"limit": 0}, "limit"), ({"limit": 201}, "limit"), ({"draw": 2}, "draw"), ({"since": "yesterday"}, "since"),
    ({"until": "2026-11-01T10:00:00"}, "until"), ({"cursor": "not-a-cursor"}, "cursor"),
])
def test_bad_queries(app, client, query, field):
    add_win(app, score=1)
    body = problem(client.get("/v1/leaderboard", query_string=query), 400, "INVALID_REQUEST")
    assert field in body["errors"], (query, body)


def test_unknown_player_and_bad_code(client):
    body = problem(client.get("/v1/leaderboard?player=nobody"), 404, "PLAYER_NOT_FOUND")
    assert body["params"] == {"player": "nobody"}
    problem(client.get("/v1/deals/TF1-D1N-AAAAAAB/leaderboard?player=nobody"), 404, "PLAYER_NOT_FOUND")
    body = problem(client.get("/v1/deals/TF1-D2N-AAAAAAB/leaderboard"), 422, "INVALID_GAME_CODE")
    assert body["params"] == {"code": "TF1-D2N-AAAAAAB"}
    problem(client.get("/v1/deals/hello/leaderboard"), 422, "INVALID_GAME_CODE")


def test_a_game_won_through_the_api_is_listed_with_its_stored_score(app, client):
    code = "TF1-D1N-AAAAAAG"  # the solver wins it in a fraction of a second
    line = solve(Game.from_code(code), budget_ms=20_000).line
    assert line
    game, headers = new_game(client, code=code)
    endpoints = {"move": "moves", "draw": "draw", "recycle": "recycle", "take-back": "take-back", "tap": "tap"}
    for action in line:
        body = action.to_json()
        response = act(client, game, headers, endpoints[body.pop("action")], body or None)
        assert response.status_code == 200, response.get_json()
    final = response.get_json()
    assert final["status"] == "won"
    items = board(client, f"/v1/deals/{code.lower()}/leaderboard")["items"]
    assert len(items) == 1
    entry = items[0]
    assert (entry["game"], entry["score"], entry["moves"], entry["seconds"], entry["finished_at"]) == (
        game["id"], final["score"], final["moves"], final["seconds"], final["finished_at"])
    assert entry["rank"] == 1 and entry["player"] is None


# -- the daily deal ----------------------------------------------------------------------


def test_daily_is_deterministic_winnable_and_differs_by_day(client):
    today = datetime.now(UTC).date()
    first = client.get("/v1/daily").get_json()
    again = client.get("/v1/daily?draw=1").get_json()
    assert first == again
    assert first["date"] == today.isoformat() and first["draw"] == 1 and first["winnable"] is True
    assert first["leaderboard"] == f"/v1/deals/{first['code']}/leaderboard"
    assert GameCode.parse(first["code"]).draw == 1
    hard = client.get("/v1/daily?draw=3").get_json()
    assert hard["draw"] == 3 and hard["code"].startswith("TF1-D3N-") and hard["winnable"] is True
    yesterday = client.get("/v1/daily", query_string={"date": (today - timedelta(days=1)).isoformat()}).get_json()
    assert yesterday["code"] != first["code"]
    # Playable with POST /v1/games, and its leaderboard answers.
    game, _ = new_game(client, code=first["code"].lower())
    assert game["code"] == first["code"]
    assert client.get(first["leaderboard"]).status_code == 200


def test_daily_choice_does_not_depend_on_the_process_cache():
    day = date(2026, 11, 29)
    code, winnable = daily_deal(day, 1)
    daily_deal.cache_clear()
    assert daily_deal(day, 1) == (code, winnable)
    assert winnable is True
    # The choice is the first candidate the solver proves within its node budget.
    candidates = [daily_candidate(day, 1, n) for n in range(64)]
    assert code in candidates
    assert solve(Game.from_code(code), max_nodes=2000, budget_ms=3_600_000).verdict == "winnable"


@pytest.mark.parametrize("query", [{"date": "2999-01-01"}, {"date": "29-11-2026"}, {"draw": 2}])
def test_daily_bad_queries(client, query):
    problem(client.get("/v1/daily", query_string=query), 400, "INVALID_REQUEST")


def test_daily_tomorrow_is_refused(client):
    tomorrow = datetime.now(UTC).date() + timedelta(days=1)
    body = problem(client.get(f"/v1/daily?date={tomorrow}"), 400, "INVALID_REQUEST")
    assert "date" in body["errors"]

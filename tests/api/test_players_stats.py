"""A player's statistics and list of games, on SQLite and PostgreSQL, from hand-made histories."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta

import pytest

from service.engine import GameCode
from service.extensions import db
from service.store import GameRow
from service.store.stats import recount, streaks
from service.usecases.cursors import encode_cursor
from tests.api.helpers import new_player, problem

T0 = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)
_ids = itertools.count()


def add_game(app, player: str | None, *, status: str = "won", draw: int = 1, score: int = 0, moves: int = 0,
             ms: int | None = None, created: datetime) -> str:
    game_id = f"s{next(_ids):06d}"
    won = status == "won"
    ms = (ms if ms is not None else 60_000) if won else None
    with app.app_context():
        db.session.add(GameRow(
            id=game_id, code=str(GameCode(draw=draw, deal=5)), deal=5, draw=draw, player_id=player,
            token_hash=None, status=status, score=score, moves=moves, state={}, created_at=created,
            updated_at=created, finished_at=created + timedelta(milliseconds=ms) if won else None,
            duration_ms=ms,
        ))
        if player is not None:  # hand-made games skip the deal and the win that keep the statistics
            db.session.flush()
            recount(db.session.connection(), player)
        db.session.commit()
    return game_id


def history(app, player: str, statuses: str, *, draw: int = 1, start: datetime = T0) -> list[str]:
    """Games in creation order from a string: W won, P playing."""
    return [add_game(app, player, status={"W": "won", "P": "playing"}[s], draw=draw, score=100 + i,
                     moves=200 - i, ms=90_000 - 1000 * i, created=start + timedelta(minutes=i))
            for i, s in enumerate(statuses)]


@pytest.mark.parametrize(("statuses", "current", "best"), [
    ("", 0, 0),
    ("P", 0, 0),
    ("W", 1, 1),
    ("WWW", 3, 3),
    ("WWPWW", 2, 2),     # an older unfinished game breaks the streak
    ("WWWPP", 3, 3),     # the newest games still in play do not
    ("WPWWP", 2, 2),
    ("WWWWPWP", 1, 4),
    ("PPPW", 1, 1),
    ("WWPWWWPPP", 3, 3),
])
def test_streaks(statuses, current, best):
    assert streaks([{"W": "won", "P": "playing"}[s] for s in statuses]) == (current, best)


def test_player_with_stats_per_draw_mode(app, client):
    player = new_player(client, "Ann")[0]["id"]
    # draw 1: W W P W W W P (newest in play) — draw 3: W P
    d1 = history(app, player, "WWPWWWP", draw=1)
    history(app, player, "WP", draw=3, start=T0 + timedelta(hours=1))
    # someone else's and anonymous games never count
    other = new_player(client, "Bob")[0]["id"]
    history(app, other, "WWWW")
    add_game(app, None, score=999, created=T0)

    response = client.get(f"/v1/players/{player}")
    assert response.status_code == 200
    body = response.get_json()
    assert set(body) == {"id", "name", "created_at", "stats"} and body["name"] == "Ann"
    assert "token" not in body
    stats = body["stats"]
    assert set(stats) == {"all", "draw1", "draw3"}
    # draw 1 games i=0..6: score 100+i, moves 200-i, ms 90000-1000i; won: 0, 1, 3, 4, 5
    assert stats["draw1"] == {"started": 7, "won": 5, "win_rate": round(5 / 7, 4), "best_score": 105,
                              "fewest_moves": 195, "fastest_win": 85.0, "current_streak": 3,
                              "best_streak": 3}
    assert stats["draw3"] == {"started": 2, "won": 1, "win_rate": 0.5, "best_score": 100,
                              "fewest_moves": 200, "fastest_win": 90.0, "current_streak": 1,
                              "best_streak": 1}
    # all, by creation: W W P W W W P (d1) then W P (d3): the d1 game in play is no longer the newest.
    assert stats["all"] == {"started": 9, "won": 6, "win_rate": round(6 / 9, 4), "best_score": 105,
                            "fewest_moves": 195, "fastest_win": 85.0, "current_streak": 1,
                            "best_streak": 3}
    assert d1  # ids unused here; the list test checks them


def test_player_without_games(client):
    player = new_player(client)[0]["id"]
    empty = {"started": 0, "won": 0, "win_rate": 0, "best_score": None, "fewest_moves": None,
             "fastest_win": None, "current_streak": 0, "best_streak": 0}
    assert client.get(f"/v1/players/{player}").get_json()["stats"] == {"all": empty, "draw1": empty,
                                                                        "draw3": empty}


def test_stats_follow_games_played_through_the_api(client):
    registered, headers = new_player(client)
    player = registered["id"]
    response = client.post("/v1/games", json={"draw": 3}, headers=headers)
    assert response.status_code == 201
    stats = client.get(f"/v1/players/{player}").get_json()["stats"]
    assert stats["draw3"]["started"] == 1 and stats["draw3"]["won"] == 0
    assert stats["draw1"]["started"] == 0 and stats["all"]["current_streak"] == 0


def test_games_list_newest_first_paginated_and_filtered(app, client):
    player = new_player(client)[0]["id"]
    ids = history(app, player, "WPWWPWPW")
    # two games dealt at the same instant: the id breaks the tie
    same = [add_game(app, player, status="playing", created=T0 + timedelta(days=1)) for _ in range(2)]
    newest_first = sorted(same, reverse=True) + ids[::-1]

    def listing(**query):
        items, cursor = [], None
        while True:
            page = client.get(f"/v1/players/{player}/games",
                              query_string={**query, **({"cursor": cursor} if cursor else {})}).get_json()
            items += page["items"]
            cursor = page["next"]
            if cursor is None:
                return items

    everything = listing(limit=3)
    assert [item["id"] for item in everything] == newest_first
    assert listing() == everything
    won = listing(status="won", limit=2)
    assert [item["id"] for item in won] == [ids[i] for i in (7, 5, 3, 2, 0)]
    assert {item["status"] for item in won} == {"won"}
    assert {item["status"] for item in listing(status="playing")} == {"playing"}
    first_won = next(item for item in everything if item["id"] == ids[0])
    assert first_won == {"id": ids[0], "code": str(GameCode(draw=1, deal=5)), "draw": 1, "status": "won",
                         "score": 100, "moves": 200, "created_at": "2026-11-01T12:00:00.000Z",
                         "finished_at": "2026-11-01T12:01:30.000Z", "seconds": 90.0}
    playing = next(item for item in everything if item["id"] == ids[1])
    assert playing["finished_at"] is None and playing["seconds"] is None


def test_games_list_is_stable_while_games_are_dealt(app, client):
    player = new_player(client)[0]["id"]
    ids = history(app, player, "WPWPWPWPWP")
    page = client.get(f"/v1/players/{player}/games?limit=4").get_json()
    add_game(app, player, status="playing", created=T0 + timedelta(days=2))  # newer: not in later pages
    rest = client.get(f"/v1/players/{player}/games?limit=50&cursor={page['next']}").get_json()
    assert [i["id"] for i in page["items"] + rest["items"]] == ids[::-1]


def test_unknown_player(client):
    body = problem(client.get("/v1/players/nobody"), 404, "PLAYER_NOT_FOUND")
    assert body["params"] == {"player": "nobody"}
    problem(client.get("/v1/players/nobody/games"), 404, "PLAYER_NOT_FOUND")


@pytest.mark.parametrize(("query", "field"), [
    ("status=lost", "status"), ("limit=0", "limit"), ("limit=500", "limit"), ("cursor=zzz", "cursor"),
    (f"cursor={encode_cursor({'created': 'monday', 'game': 'x'})}", "cursor"),
    (f"cursor={encode_cursor({'created': '2026-11-01T00:00:00', 'game': 'x'})}", "cursor"),
])
def test_bad_queries(client, query, field):
    player = new_player(client)[0]["id"]
    body = problem(client.get(f"/v1/players/{player}/games?{query}"), 400, "INVALID_REQUEST")
    assert field in body["errors"]

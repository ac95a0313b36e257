"""Games born offline: POST /v1/games with the client's actions and timing, on SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
import sqlalchemy as sa

from service.engine import Game
from service.extensions import db
from tests.api.gameplay import WINNABLE_CODE, winning_line
from tests.api.helpers import new_player, problem
from tests.api.test_play import history, read


def line() -> list[str]:
    return [str(action) for action in winning_line()]


def started(minutes_ago: float = 10) -> str:
    return (datetime.now(UTC) - timedelta(minutes=minutes_ago)).isoformat()


def born(client, actions, seconds=120, headers=None, **extra):
    body = {"code": WINNABLE_CODE, "actions": actions, "client": {"started_at": started(), "seconds": seconds},
            **extra}
    return client.post("/v1/games", json=body, headers=headers or {})


def test_the_server_recomputes_the_game_from_the_actions(client):
    response = born(client, line()[:30])
    assert response.status_code == 201, response.get_json()
    game = response.get_json()
    expected = Game.from_code(WINNABLE_CODE)
    for action in winning_line()[:30]:
        expected.apply(action)
    assert (game["version"], game["score"], game["moves"], game["status"]) == (30, expected.score,
                                                                                expected.moves, "playing")
    assert game["timing"] == "client" and game["client"]["seconds"] == 120
    assert [row["notation"] for row in history(client, game)] == line()[:30]
    # it goes on through the batch endpoint from its version, and its time is the client's plus the server's
    auth = {"Authorization": f"Bearer {game['token']}"}
    won = client.post(f"/v1/games/{game['id']}/actions", json={"actions": line()[30:]},
                      headers={**auth, "If-Match": '"30"'}).get_json()
    assert won["status"] == "won" and 120 <= won["seconds"] < 180
    assert read(client, game)["timing"] == "client"


def test_a_game_born_won_is_on_the_boards_and_the_feed_as_client_timed(app, client):
    app.config["FEED_SETTLE_MS"] = 0
    player, auth = new_player(client)
    response = born(client, line(), seconds=300, headers=auth)
    assert response.status_code == 201
    game = response.get_json()
    assert game["status"] == "won" and game["seconds"] == 300 and game["player"] == player["id"]
    # a server-timed win of the same deal
    served = client.post("/v1/games", json={"code": WINNABLE_CODE}, headers=auth).get_json()
    client.post(f"/v1/games/{served['id']}/actions", json={"actions": line()}, headers={**auth, "If-Match": '"0"'})
    board = client.get(f"/v1/deals/{WINNABLE_CODE}/leaderboard").get_json()["items"]
    assert {entry["game"]: entry["timing"] for entry in board} == {game["id"]: "client", served["id"]: "server"}
    feed = client.get("/v1/games/finished").get_json()
    assert {entry["id"]: entry["timing"] for entry in feed["items"]} == {game["id"]: "client", served["id"]: "server"}


def test_a_retry_with_the_same_key_is_the_same_game(client):
    body = {"code": WINNABLE_CODE, "actions": line()[:20], "client": {"started_at": started(), "seconds": 60}}
    first = client.post("/v1/games", json=body, headers={"Idempotency-Key": "offline-create-0001"})
    again = client.post("/v1/games", json=body, headers={"Idempotency-Key": "offline-create-0001"})
    assert first.status_code == again.status_code == 201
    assert again.get_data() == first.get_data() and again.headers["Idempotent-Replayed"] == "true"
    assert len(history(client, first.get_json())) == 20


@pytest.mark.parametrize(("body", "field"), [
    ({"code": WINNABLE_CODE, "actions": ["draw"]}, "client"),
    ({"actions": ["draw"], "client": {"started_at": "NOW", "seconds": 1}}, "code"),
    ({"code": WINNABLE_CODE, "client": {"started_at": "2020-01-01T00:00:00Z", "seconds": 1}}, "client"),
    ({"code": WINNABLE_CODE, "client": {"started_at": "FUTURE", "seconds": 1}}, "client"),
    ({"code": WINNABLE_CODE, "client": {"started_at": "NOW", "seconds": 5000}}, "client"),
    ({"code": WINNABLE_CODE, "client": {"started_at": "NOW", "seconds": -1}}, "client"),
    ({"code": WINNABLE_CODE, "client": {"started_at": "2026-12-04T10:00:00", "seconds": 1}}, "client"),
    ({"code": WINNABLE_CODE, "client": {"started_at": "NOW"}}, "client"),
    ({"code": WINNABLE_CODE, "actions": [], "client": {"started_at": "NOW", "seconds": 1}}, "actions"),
    ({"code": WINNABLE_CODE, "actions": ["draw"] * 501, "client": {"started_at": "NOW", "seconds": 1}}, "actions"),
])
def test_what_the_client_reports_is_bounded(client, body, field):
    moments = {"NOW": started(1), "FUTURE": (datetime.now(UTC) + timedelta(hours=1)).isoformat()}
    if "client" in body and body["client"].get("started_at") in moments:
        body = {**body, "client": {**body["client"], "started_at": moments[body["client"]["started_at"]]}}
    refused = problem(client.post("/v1/games", json=body), 400, "INVALID_REQUEST")
    assert field in refused["errors"], refused


def test_refused_actions_create_nothing(client):
    refused = problem(born(client, ["draw", "t1>t1"]), 422, "SAME_PILE")
    assert refused["params"] == {"pile": "t1", "index": 1}
    finished = problem(born(client, [*line(), "draw"]), 409, "GAME_FINISHED")
    assert finished["params"] == {"index": len(line())}
    unparsed = problem(born(client, ["draw", "zz"]), 400, "INVALID_NOTATION")
    assert unparsed["params"] == {"index": 1, "notation": "zz"}
    board = client.get(f"/v1/deals/{WINNABLE_CODE}/leaderboard").get_json()["items"]
    assert board == []


def test_a_game_born_offline_pays_the_write_limit_for_its_actions_as_a_batch_does(database_url, make_app):
    app = make_app({"DATABASE_URL": database_url, "TESTING": True, "RATELIMIT_WRITE": "50 per minute"})
    client = app.test_client()
    created = born(client, line()[:30])
    assert created.status_code == 201, created.get_json()
    assert created.headers["X-RateLimit-Remaining"] == "20"  # the write window's, after 30 actions
    # a plain create plays nothing and pays the address limit alone; a malformed one pays 1
    plain = client.post("/v1/games", json={"code": WINNABLE_CODE})
    assert plain.status_code == 201 and plain.headers["X-RateLimit-Limit"] != "50"
    problem(born(client, "draw"), 400, "INVALID_REQUEST")
    problem(born(client, line()[:20]), 429, "RATE_LIMITED")  # 20 actions, 19 left: nothing created
    with app.app_context():
        assert db.session.execute(sa.text("SELECT count(*) FROM games")).scalar() == 2

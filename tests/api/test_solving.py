"""The solver over HTTP: proven-winnable deals and hints (owner only, counted, bounded).

Every test runs on SQLite and PostgreSQL (the ``client`` fixture).
"""

from __future__ import annotations

from service.engine import Action, Game, GameCode
from service.solver import solve
from tests.api.helpers import act, new_game, problem

EASY = "TF1-D1N-AAAAAAC"  # winnable, and found at once (see the service.solver docstring)
ENDPOINTS = {"move": "moves", "draw": "draw", "recycle": "recycle", "take-back": "take-back"}


def test_winnable_deal_is_proven_and_says_so(client):
    game, _ = new_game(client, winnable=True, draw=3)
    assert game["winnable"] is True and game["code"].startswith("TF1-D3N-")
    assert solve(Game.from_code(GameCode.parse(game["code"])), budget_ms=5000).verdict == "winnable"
    assert client.get(f"/v1/games/{game['id']}").get_json()["winnable"] is True
    plain, _ = new_game(client)
    assert plain["winnable"] is None  # not searched, so nothing is claimed


def test_winnable_with_a_code_is_refused(client):
    response = client.post("/v1/games", json={"code": EASY, "winnable": True})
    body = problem(response, 400, "INVALID_REQUEST")
    assert "winnable" in body["errors"]


def test_hint_is_for_the_owner_only(client):
    game, headers = new_game(client, code=EASY)
    problem(client.get(f"/v1/games/{game['id']}/hint"), 401, "AUTH_REQUIRED")
    _, other = new_game(client)
    problem(client.get(f"/v1/games/{game['id']}/hint", headers=other), 403, "FORBIDDEN")
    problem(client.get("/v1/games/nosuchgame00000000/hint", headers=headers), 404, "GAME_NOT_FOUND")
    assert client.get(f"/v1/games/{game['id']}").get_json()["hints"] == 0


def test_following_the_hints_wins_the_game_and_counts_them(client):
    game, headers = new_game(client, code=EASY)
    asked = 0
    while True:
        response = client.get(f"/v1/games/{game['id']}/hint", headers=headers)
        if response.status_code == 409:
            problem(response, 409, "GAME_FINISHED")
            break
        assert response.status_code == 200, response.get_json()
        hint = response.get_json()
        asked += 1
        assert hint["verdict"] == "winnable" and hint["hints"] == asked and hint["line_length"] >= 1
        assert Action.parse(hint["notation"]).to_json() == hint["action"]
        body = {key: value for key, value in hint["action"].items() if key != "action"}
        played = act(client, game, headers, ENDPOINTS[hint["action"]["action"]], body or None)
        assert played.status_code == 200, played.get_json()
        assert asked < 400, "the hints never reach a win"
    final = client.get(f"/v1/games/{game['id']}").get_json()
    assert final["status"] == "won" and final["hints"] == asked


def test_hint_memory_bound_gives_unknown(client):
    game, headers = new_game(client)
    config = client.application.config
    configured, config["SOLVER_HINT_MAX_NODES"] = config["SOLVER_HINT_MAX_NODES"], 1
    try:
        hint = client.get(f"/v1/games/{game['id']}/hint", headers=headers).get_json()
    finally:
        config["SOLVER_HINT_MAX_NODES"] = configured
    assert hint["verdict"] == "unknown" and hint["action"] is None and hint["notation"] is None
    assert hint["hints"] == 1

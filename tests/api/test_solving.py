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


def test_a_game_purged_during_its_hint_search_is_404(app, client, monkeypatch):
    from service.extensions import db
    from service.store import GameRow
    from service.usecases.solving import Solving

    game, headers = new_game(client, code=EASY)
    searched = Solving.hint

    def search_while_the_purge_runs(solving, state):
        answer = searched(solving, state)
        with app.app_context():
            db.session.query(GameRow).filter_by(id=game["id"]).delete()
            db.session.commit()
        return answer

    monkeypatch.setattr(Solving, "hint", search_while_the_purge_runs)
    problem(client.get(f"/v1/games/{game['id']}/hint", headers=headers), 404, "GAME_NOT_FOUND")


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
        assert hint["proven"] is True and hint["cached"] is (asked > 1)  # the line's positions were cached at once
        assert Action.parse(hint["notation"]).to_json() == hint["action"]
        body = {key: value for key, value in hint["action"].items() if key != "action"}
        played = act(client, game, headers, ENDPOINTS[hint["action"]["action"]], body or None)
        assert played.status_code == 200, played.get_json()
        assert asked < 400, "the hints never reach a win"
    final = client.get(f"/v1/games/{game['id']}").get_json()
    assert final["status"] == "won" and final["hints"] == asked


def test_hint_node_budget_gives_unknown_with_a_guess(client, monkeypatch):
    game, headers = new_game(client)
    monkeypatch.setitem(client.application.config, "SOLVER_HINT_MAX_NODES", 1)
    hint = client.get(f"/v1/games/{game['id']}/hint", headers=headers).get_json()
    assert hint["verdict"] == "unknown" and hint["proven"] is False and hint["line_length"] == 0
    assert hint["reason"] == "nodes"
    assert Action.parse(hint["notation"]).to_json() == hint["action"]
    assert hint["hints"] == 1


def test_hint_memory_budget_gives_unknown_for_memory(client, monkeypatch):
    game, headers = new_game(client, code="TF1-D3N-FQQWSZA")
    monkeypatch.setitem(client.application.config, "SOLVER_MEMORY_MB", 1)
    # time and nodes far beyond what 1 MB of tables holds: on a loaded machine the 300 ms
    # default could run out first, and the test is about the memory budget
    monkeypatch.setitem(client.application.config, "SOLVER_HINT_BUDGET_MS", 60_000)
    monkeypatch.setitem(client.application.config, "SOLVER_HINT_MAX_NODES", 100_000_000)
    hint = client.get(f"/v1/games/{game['id']}/hint", headers=headers).get_json()
    assert (hint["verdict"], hint["reason"], hint["proven"]) == ("unknown", "memory", False)
    assert Action.parse(hint["notation"]).to_json() == hint["action"]


README_DEAL = "TF1-D1N-AAAAAAA"  # the README's first deal: no proof within a small budget


def _hint(client, game, headers):
    response = client.get(f"/v1/games/{game['id']}/hint", headers=headers)
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def _legal(client, game) -> list[str]:
    return [item["notation"] for item in client.get(f"/v1/games/{game['id']}/legal-moves").get_json()["items"]]


def test_an_unproven_hint_still_names_a_legal_action_that_plays(client):
    client.application.config["SOLVER_HINT_BUDGET_MS"] = 20
    game, headers = new_game(client, code=README_DEAL)
    hint = _hint(client, game, headers)
    assert hint["verdict"] == "unknown" and hint["proven"] is False and hint["cached"] is False
    assert hint["notation"] in _legal(client, game)
    played = act(client, game, headers, ENDPOINTS[hint["action"]["action"]],
                 {k: v for k, v in hint["action"].items() if k != "action"} or None)
    assert played.status_code == 200, played.get_json()
    assert played.get_json()["score"] > 0  # the README's AH to its foundation: a safe play comes first


def test_the_hint_cache_is_by_position_across_versions_and_games(client):
    client.application.config["SOLVER_HINT_BUDGET_MS"] = 20
    game, headers = new_game(client, code=README_DEAL)
    first = _hint(client, game, headers)
    assert act(client, game, headers, "draw").status_code == 200
    assert act(client, game, headers, "undo").status_code == 200
    again = _hint(client, game, headers)
    assert again["version"] == 2 and again["cached"] is True and again["hints"] == 2
    assert {k: again[k] for k in ("verdict", "action", "nodes", "ms")} == \
        {k: first[k] for k in ("verdict", "action", "nodes", "ms")}
    other, other_headers = new_game(client, code=README_DEAL)
    assert _hint(client, other, other_headers)["cached"] is True
    # another position is searched afresh
    assert act(client, game, headers, "draw").status_code == 200
    assert _hint(client, game, headers)["cached"] is False


def test_searches_in_flight_are_capped_per_worker(client):
    from service.api.solving import app_solving

    app = client.application
    app.config.update(SOLVER_MAX_IN_FLIGHT=1, SOLVER_QUEUE_MS=0, SOLVER_HINT_BUDGET_MS=20)
    game, headers = new_game(client, code=README_DEAL)
    known = _hint(client, game, headers)
    assert act(client, game, headers, "draw").status_code == 200
    with app_solving(app).gate:  # another request's search holds the only slot
        response = client.get(f"/v1/games/{game['id']}/hint", headers=headers)
        body = problem(response, 503, "SOLVER_BUSY")
        assert response.headers["Retry-After"] == "1" and body["params"]["retry_after"] == 1
        # a cached position needs no slot
        assert act(client, game, headers, "undo").status_code == 200
        assert _hint(client, game, headers)["action"] == known["action"]
    assert client.get(f"/v1/games/{game['id']}").get_json()["hints"] == 2  # the 503 was not counted


def test_winnable_deals_come_from_the_pool(app, client):
    from service.store import WinnableDeal, winnable_deals

    with app.app_context():
        assert winnable_deals.fill(3, 2, budget_ms=500) == 2
        assert winnable_deals.size(3) == 2
        waiting = {str(code) for code in (winnable_deals.take(3), winnable_deals.take(3))}
        assert winnable_deals.take(3) is None
        assert winnable_deals.fill(3, 1, budget_ms=500) == 1
        (ready,) = [row.code for row in WinnableDeal.query]
    assert ready not in waiting
    game, _ = new_game(client, winnable=True, draw=3)
    assert game["code"] == ready and game["winnable"] is True
    with app.app_context():
        assert winnable_deals.size(3) == 0
    # an empty pool still deals a proven deal: searched on the request, within its CPU budget
    game, _ = new_game(client, winnable=True, draw=3)
    assert solve(Game.from_code(GameCode.parse(game["code"])), budget_ms=5000).verdict == "winnable"


def test_only_a_line_that_replays_to_a_win_enters_the_pool(app):
    from service.solver import winnable_deal
    from service.store import winnable_deals

    code, solution = winnable_deal(1, deadline_s=5)
    with app.app_context():
        assert winnable_deals.add(code, solution.line[:-1]) is False
        assert winnable_deals.size(1) == 0
        assert winnable_deals.add(code, solution.line) is True
        assert winnable_deals.add(code, solution.line) is False  # already waiting
        assert winnable_deals.size(1) == 1


def test_a_low_pool_is_refilled_in_the_background(app):
    from service.api.solving import refill_in_background
    from service.store import winnable_deals

    app.config.update(WINNABLE_POOL_TARGET=2, WINNABLE_POOL_REFILL=True)
    assert refill_in_background(app, 1) is None  # never under TESTING: a test's database vanishes under it
    app.testing = False
    try:
        thread = refill_in_background(app, 1)
        assert thread is not None and refill_in_background(app, 1) is None  # one at a time
        thread.join(60)
    finally:
        app.testing = True
    with app.app_context():
        assert winnable_deals.size(1) == 2

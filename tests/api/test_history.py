"""History over HTTP: items, replay from the code, cursor pagination."""

from __future__ import annotations

from datetime import datetime

from service.cli import verify_game
from service.engine import Action, Game, replay
from service.extensions import db
from service.store import GameRow
from tests.api.gameplay import WINNABLE_CODE, post_action, winning_line
from tests.api.helpers import act, new_game, problem


def test_history_items_and_replay(client, app):
    game, auth = new_game(client, code=WINNABLE_CODE)
    line = list(winning_line()[:40])
    engine = Game.from_code(WINNABLE_CODE)
    actions = []
    for index, action in enumerate(line):
        # now and then an undo, and the undone action again, so undos are in the history
        for step in ([action, Action.undo(), action] if index % 9 == 8 else [action]):
            actions.append(step)
            engine.apply(step)
            assert post_action(client, game["id"], auth, step).status_code == 200
    response = client.get(f"/v1/games/{game['id']}/actions", query_string={"limit": 200})
    assert response.status_code == 200
    assert response.headers["ETag"] == f'"{engine.version}"'
    page = response.get_json()
    assert page["code"] == WINNABLE_CODE and page["next"] is None
    items = page["items"]
    assert [item["seq"] for item in items] == list(range(1, len(actions) + 1))
    assert [item["notation"] for item in items] == [str(action) for action in actions]
    score = 0
    for item, action in zip(items, actions, strict=True):
        assert {"seq", "action", "cards", "points", "score_after", "at", "notation"} <= item.keys()
        assert item["action"] == action.kind
        score += item["points"]
        assert item["score_after"] == score
        assert datetime.fromisoformat(item["at"].replace("Z", "+00:00"))
        if action.kind == "undo":
            assert "undone" in item
    assert [item["at"] for item in items] == sorted(item["at"] for item in items)
    # the code and the notations alone reproduce the game
    replayed = replay(page["code"], [item["notation"] for item in items])
    current = client.get(f"/v1/games/{game['id']}").get_json()
    assert {k: current[k] for k in replayed.view()} == replayed.view()
    assert replayed == engine
    with app.app_context():
        assert verify_game(db.session.get(GameRow, game["id"])) == []


def test_pagination_with_limit_and_cursor(client):
    game, auth = new_game(client, code=WINNABLE_CODE)
    for _ in range(23):
        assert act(client, game, auth, "draw").status_code == 200
    everything = client.get(f"/v1/games/{game['id']}/actions").get_json()
    assert len(everything["items"]) == 23 and everything["next"] is None  # default limit 50
    for limit in (1, 5, 7, 22, 23, 24, 200):
        seqs, cursor, pages = [], None, 0
        while True:
            query = {"limit": str(limit), **({"cursor": cursor} if cursor else {})}
            response = client.get(f"/v1/games/{game['id']}/actions", query_string=query)
            assert response.status_code == 200, response.get_json()
            page = response.get_json()
            pages += 1
            assert len(page["items"]) <= limit
            seqs += [item["seq"] for item in page["items"]]
            cursor = page["next"]
            if cursor is None:
                break
            assert len(page["items"]) == limit
        assert seqs == list(range(1, 24)), limit
        assert pages == -(-23 // limit) or (23 % limit == 0 and pages == 23 // limit), (limit, pages)
    # an empty history is one empty page
    fresh, _ = new_game(client)
    page = client.get(f"/v1/games/{fresh['id']}/actions").get_json()
    assert page["items"] == [] and page["next"] is None


def test_pagination_rejects_bad_queries(client):
    game, auth = new_game(client, code=WINNABLE_CODE)
    act(client, game, auth, "draw")
    url = f"/v1/games/{game['id']}/actions"
    for query, field in (({"limit": 0}, "limit"), ({"limit": 201}, "limit"), ({"limit": -1}, "limit"),
                         ({"limit": "ten"}, "limit"), ({"cursor": "garbage!"}, "cursor"),
                         ({"cursor": "eyJzZXEiOiJ4In0"}, "cursor"), ({"cursor": "W10"}, "cursor"),
                         ({"cursor": "e30"}, "cursor"), ({"cursor": "eyJzZXEiOnRydWV9"}, "cursor")):
        body = problem(client.get(url, query_string=query), 400, "INVALID_REQUEST")
        assert field in body["errors"], (query, body)
    problem(client.get("/v1/games/nope/actions"), 404, "GAME_NOT_FOUND")


def test_history_items_post_back_as_they_are(client):
    """Each item's arguments, sent again to its endpoint on a fresh game, rebuild the game."""
    game, auth = new_game(client, code=WINNABLE_CODE)
    # Every kind of action, with the arguments a client may leave out or write generically.
    played = [Action.tap("t1"), Action.draw(), Action.undo(), Action.draw(),
              Action.move("waste", "foundation"), Action.take_back("fD", "t2"),
              Action.tap("t2", double=True), Action.draw()]
    engine = Game.from_code(WINNABLE_CODE)
    for action in played:
        if engine.is_legal(action):
            engine.apply(action)
            assert post_action(client, game["id"], auth, action).status_code == 200
    assert engine.version >= 5
    items = client.get(f"/v1/games/{game['id']}/actions").get_json()["items"]

    copy, copy_auth = new_game(client, code=WINNABLE_CODE)
    endpoints = {"move": "moves", "draw": "draw", "recycle": "recycle", "undo": "undo",
                 "take-back": "take-back", "tap": "tap"}
    for item in items:
        arguments = {key: item[key] for key in ("from", "to", "card", "double") if key in item}
        response = act(client, copy, copy_auth, endpoints[item["action"]], arguments or None)
        assert response.status_code == 200, (item, response.get_json())
    original = client.get(f"/v1/games/{game['id']}").get_json()
    rebuilt = client.get(f"/v1/games/{copy['id']}").get_json()
    for field in ("tableau", "foundations", "stock", "waste", "waste_fan", "score", "moves", "undos", "version"):
        assert rebuilt[field] == original[field], field

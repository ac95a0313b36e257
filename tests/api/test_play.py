"""Playing over HTTP: answers, rule rejections, winning, If-Match, Idempotency-Key, legal moves.

Positions come from playing a solver line of one deal through the API; the engine
picks the actions (it has its own tests), these tests check what HTTP makes of them.
"""

from __future__ import annotations

import pytest

from service.engine import COLUMNS, UNDO_LIMIT, Action, Game, Pile
from service.engine.rejections import RULE_PARAMS
from tests.api.gameplay import WINNABLE_CODE, first_rejections, post_action, winning_line
from tests.api.helpers import act, new_game, problem

#: Codes a walk along the winning line meets; the others have tests of their own.
WALKED = frozenset(RULE_PARAMS) - {"GAME_FINISHED", "UNDO_LIMIT_REACHED", "NOTHING_TO_RECYCLE", "INVALID_GAME_CODE"}


def read(client, game: dict) -> dict:
    response = client.get(f"/v1/games/{game['id']}")
    assert response.status_code == 200
    return response.get_json()


def history(client, game: dict) -> list[dict]:
    items, cursor = [], None
    while True:
        query = {"limit": 200, **({"cursor": cursor} if cursor else {})}
        page = client.get(f"/v1/games/{game['id']}/actions", query_string=query).get_json()
        items += page["items"]
        cursor = page["next"]
        if cursor is None:
            return items


def play(client, game: dict, auth: dict, actions) -> dict:
    body = None
    for action in actions:
        response = post_action(client, game["id"], auth, action)
        assert response.status_code == 200, (str(action), response.get_json())
        body = response.get_json()
    return body


def assert_rejected_without_change(client, game, auth, action, status, code, params=None) -> dict:
    before, before_history = read(client, game), history(client, game)
    response = post_action(client, game["id"], auth, action)
    body = problem(response, status, code)
    assert set(body["params"]) == set(RULE_PARAMS[code]), body
    if params is not None:
        assert body["params"] == params
    assert "ETag" not in response.headers or response.headers["ETag"] == f'"{before["version"]}"'
    assert read(client, game) == before
    assert history(client, game) == before_history
    return body


# -- the answer of an action ---------------------------------------------------


def test_action_answers_carry_the_game_last_and_etag(client):
    game, auth = new_game(client, code=WINNABLE_CODE)
    line = winning_line()
    engine = Game.from_code(WINNABLE_CODE)
    for version, action in enumerate(line[:12], start=1):
        outcome = engine.apply(action)
        response = post_action(client, game["id"], auth, action)
        assert response.status_code == 200, response.get_json()
        assert response.headers["ETag"] == f'"{version}"'
        body = response.get_json()
        assert body["version"] == version
        assert {k: v for k, v in body.items() if k != "last"} == read(client, game)
        assert body["last"] == outcome.to_json()
        assert {"action", "points", "cards", "moved_from", "moved_to"} <= body["last"].keys()
        # Only the request's own arguments, so that a history item posts back as it is.
        assert body["last"].keys() - {"points", "cards", "moved_from", "moved_to", "undone"} == \
            action.to_json().keys()
        assert body["last"]["action"] == action.kind
        view = engine.view()
        assert {k: body[k] for k in view} == view


def test_tap_answers_say_where_the_card_went(client):
    game, auth = new_game(client, code=WINNABLE_CODE)  # t1 is AD alone
    response = act(client, game, auth, "tap", {"from": "t1"})
    assert response.status_code == 200, response.get_json()
    last = response.get_json()["last"]
    assert last == {"action": "tap", "from": "t1", "double": False, "points": 10, "cards": ["AD"],
                    "moved_from": "t1", "moved_to": "fD"}
    # a double tap on JC (t2) finds no foundation, so goes to the fullest column that accepts it: none;
    # a king would go to the now empty t1: KD from t3 (it is the last card of t3)
    response = act(client, game, auth, "tap", {"from": "t3", "double": True})
    assert response.status_code == 200, response.get_json()
    last = response.get_json()["last"]
    assert (last["moved_from"], last["moved_to"], last["cards"], last["points"]) == ("t3", "t1", ["KD"], 0)
    assert "to" not in last
    assert response.get_json()["tableau"][0] == ["KD"]


def test_undo_answers_carry_undone_and_negative_points(client):
    game, auth = new_game(client, code=WINNABLE_CODE)
    act(client, game, auth, "moves", {"from": "t1", "to": "foundation"})
    response = act(client, game, auth, "undo")
    assert response.status_code == 200
    body = response.get_json()
    assert body["last"]["action"] == "undo"
    assert body["last"]["undone"] == "t1>fD:AD"
    assert body["last"]["points"] == -10
    assert body["last"]["cards"] == ["AD"]
    assert (body["last"]["moved_from"], body["last"]["moved_to"]) == ("fD", "t1")
    assert "from" not in body["last"] and "to" not in body["last"]
    assert (body["score"], body["moves"], body["undos"], body["version"]) == (0, 1, 1, 2)
    assert body["tableau"][0] == ["AD"] and body["can_undo"] is False
    assert response.headers["ETag"] == '"2"'


# -- rule rejections -----------------------------------------------------------


def test_every_rule_rejection_is_422_with_params_and_changes_nothing(client):
    line = winning_line()
    found = first_rejections(WINNABLE_CODE, line, WALKED)
    assert found.keys() == WALKED
    game, auth = new_game(client, code=WINNABLE_CODE)
    played = 0
    for code, (index, action, params) in sorted(found.items(), key=lambda item: item[1][0]):
        play(client, game, auth, line[played:index])
        played = index
        assert_rejected_without_change(client, game, auth, action, 422, code, params)
    assert read(client, game)["version"] == played


def test_nothing_to_recycle_and_game_finished(client):
    """Play the winning line; on the way, recycling an empty talon is refused; at the end, all is."""
    line = winning_line()
    game, auth = new_game(client, code=WINNABLE_CODE)
    engine = Game.from_code(WINNABLE_CODE)
    met_empty_talon = False
    for action in line:
        if not engine.stock and not engine.waste and not met_empty_talon:
            met_empty_talon = True
            assert_rejected_without_change(client, game, auth, Action.recycle(), 422, "NOTHING_TO_RECYCLE", {})
            assert_rejected_without_change(client, game, auth, Action.draw(), 422, "STOCK_EMPTY", {})
        engine.apply(action)
        response = post_action(client, game["id"], auth, action)
        assert response.status_code == 200, (str(action), response.get_json())
    assert met_empty_talon
    won = response.get_json()
    assert won["status"] == "won" and won["last"]["action"] == line[-1].kind
    assert won["foundations"] == {"S": 13, "H": 13, "D": 13, "C": 13}
    assert won["can_undo"] is False
    assert won["finished_at"] is not None and won["finished_at"].endswith("Z")
    assert isinstance(won["seconds"], (int, float)) and won["seconds"] >= 0
    items = history(client, game)
    waste_to_column = sum(1 for a in line if a.kind == "move" and a.source is Pile.WASTE and a.target in COLUMNS)
    recycle_costs = sum(item["points"] for item in items if item["action"] == "recycle")
    assert recycle_costs <= 0
    assert won["score"] == 520 + 5 * waste_to_column + recycle_costs
    assert won["version"] == won["moves"] == len(line) == len(items)
    assert read(client, game) == {k: v for k, v in won.items() if k != "last"}
    assert client.get(f"/v1/games/{game['id']}/legal-moves").get_json()["items"] == []

    # finished: a malformed request is still 400 (decided first), a well-formed one 409
    problem(act(client, game, auth, "moves", {"from": "t9", "to": "t1"}), 400, "INVALID_REQUEST")
    problem(act(client, game, auth, "tap", {"from": "t1", "card": "11H"}), 400, "INVALID_REQUEST")
    problem(act(client, game, auth, "draw", {"x": 1}), 400, "INVALID_REQUEST")
    for action in (Action.move("t1", "t2"), Action.draw(), Action.recycle(), Action.undo(),
                   Action.take_back("fS", "t1"), Action.tap("waste", double=True)):
        body = assert_rejected_without_change(client, game, auth, action, 409, "GAME_FINISHED", {})
        assert body["status"] == 409


def test_undo_limit_reached_after_100_undos(client):
    game, auth = new_game(client, code=WINNABLE_CODE)
    engine = Game.from_code(WINNABLE_CODE)
    actions = []
    while len(actions) < UNDO_LIMIT + 1:
        action = Action.draw() if engine.stock else Action.recycle()
        engine.apply(action)
        actions.append(action)
    play(client, game, auth, actions)
    for _ in range(UNDO_LIMIT):
        assert act(client, game, auth, "undo").status_code == 200
    body = assert_rejected_without_change(client, game, auth, Action.undo(), 422, "UNDO_LIMIT_REACHED")
    assert body["params"] == {"limit": UNDO_LIMIT}
    state = read(client, game)
    assert (state["moves"], state["undos"], state["version"]) == (101, 100, 201)
    assert state["stock"] == 23 and state["can_undo"] is False


# -- If-Match ------------------------------------------------------------------


def test_if_match(client):
    game, auth = new_game(client, code=WINNABLE_CODE)
    assert act(client, game, auth, "draw", **{"If-Match": '"0"'}).status_code == 200
    assert act(client, game, auth, "draw", **{"If-Match": '"5", "1"'}).status_code == 200
    assert act(client, game, auth, "draw", **{"If-Match": "*"}).status_code == 200
    # a rejected action with a matching If-Match is still the rule's rejection
    problem(act(client, game, auth, "recycle", **{"If-Match": '"3"'}), 422, "STOCK_NOT_EMPTY")
    # If-Match does not get past the owner check
    problem(act(client, game, {}, "draw", **{"If-Match": '"3"'}), 401, "AUTH_REQUIRED")


def game_at_version_3(client) -> tuple[dict, dict]:
    game, auth = new_game(client, code=WINNABLE_CODE)
    for _ in range(3):
        assert act(client, game, auth, "draw").status_code == 200
    return game, auth


@pytest.mark.parametrize("stale", ['"1"', '"0"', 'W/"3"', '"99"'])
def test_a_stale_if_match_is_412_and_changes_nothing(shared_client, stale):
    game, auth = game_at_version_3(shared_client)
    before = read(shared_client, game)
    response = act(shared_client, game, auth, "draw", **{"If-Match": stale})
    body = problem(response, 412, "VERSION_MISMATCH")
    assert body["params"] == {"sent": stale, "current": 3}
    assert response.headers["ETag"] == '"3"'
    assert read(shared_client, game) == before


# A bare number is not an entity tag: malformed, not a mismatch.
@pytest.mark.parametrize("malformed", ["3", "0", '"3', "3, *"])
def test_an_if_match_that_is_not_entity_tags_is_400(shared_client, malformed):
    game, auth = game_at_version_3(shared_client)
    before = read(shared_client, game)
    body = problem(act(shared_client, game, auth, "draw", **{"If-Match": malformed}), 400, "INVALID_REQUEST")
    assert list(body["errors"]) == ["If-Match"]
    assert read(shared_client, game) == before


# -- Idempotency-Key -----------------------------------------------------------


def test_idempotent_retries_replay_the_first_answer(client):
    game, auth = new_game(client, code=WINNABLE_CODE)
    key = {"Idempotency-Key": "draw-1"}
    first = act(client, game, auth, "draw", **key)
    assert first.status_code == 200
    for _ in range(3):
        again = act(client, game, auth, "draw", **key)
        assert again.status_code == 200
        assert again.get_json() == first.get_json()
        assert again.headers["ETag"] == first.headers["ETag"] == '"1"'
    assert read(client, game)["version"] == 1
    assert len(history(client, game)) == 1
    # {} and no body are the same request for a draw
    assert act(client, game, auth, "draw", {}, **key).get_json() == first.get_json()
    # the same key with another body (or on another endpoint) is refused
    problem(act(client, game, auth, "moves", {"from": "t1", "to": "foundation"}, **key),
            422, "IDEMPOTENCY_KEY_REUSED")
    problem(act(client, game, auth, "recycle", **key), 422, "IDEMPOTENCY_KEY_REUSED")
    assert read(client, game)["version"] == 1
    # a move retried: applied once
    move_key = {"Idempotency-Key": "move-1"}
    body = {"from": "t1", "to": "foundation"}
    moved = act(client, game, auth, "moves", body, **move_key)
    assert moved.status_code == 200 and moved.get_json()["score"] == 10
    assert act(client, game, auth, "moves", body, **move_key).get_json() == moved.get_json()
    assert read(client, game)["version"] == 2 and len(history(client, game)) == 2
    problem(act(client, game, auth, "moves", {"from": "t1", "to": "fD"}, **move_key), 422,
            "IDEMPOTENCY_KEY_REUSED")


def test_a_rejection_retried_with_its_key_is_the_same_rejection(client):
    game, auth = new_game(client, code=WINNABLE_CODE)
    key = {"Idempotency-Key": "recycle-now"}
    first = act(client, game, auth, "recycle", **key)
    problem(first, 422, "STOCK_NOT_EMPTY")
    for _ in range(2):
        again = act(client, game, auth, "recycle", **key)
        assert again.status_code == 422 and again.mimetype == "application/problem+json"
        # the same problem, under the id of the request that asked again (its logs carry that one)
        replayed = again.get_json()
        assert replayed.pop("request_id") == again.headers["X-Request-ID"] != first.headers["X-Request-ID"]
        assert replayed == {name: value for name, value in first.get_json().items() if name != "request_id"}
    assert read(client, game)["version"] == 0 and history(client, game) == []


def test_idempotency_keys_are_per_game(client):
    one, one_auth = new_game(client, code=WINNABLE_CODE)
    two, two_auth = new_game(client, code=WINNABLE_CODE)
    key = {"Idempotency-Key": "same"}
    assert act(client, one, one_auth, "draw", **key).get_json()["id"] == one["id"]
    other = act(client, two, two_auth, "draw", **key)
    assert other.status_code == 200 and other.get_json()["id"] == two["id"]
    problem(act(client, two, one_auth, "draw", **key), 403, "FORBIDDEN")
    assert read(client, one)["version"] == 1 and read(client, two)["version"] == 1


@pytest.mark.parametrize("key", ["", "   ", "k" * 129])
def test_malformed_idempotency_keys_are_400(shared_client, key):
    game, auth = new_game(shared_client, code=WINNABLE_CODE)
    body = problem(act(shared_client, game, auth, "draw", **{"Idempotency-Key": key}), 400, "INVALID_REQUEST")
    assert "Idempotency-Key" in body["errors"]
    assert read(shared_client, game)["version"] == 0


# -- legal moves ---------------------------------------------------------------


def test_legal_moves_match_the_engine_and_are_all_accepted(client):
    line = winning_line()
    game, auth = new_game(client, code=WINNABLE_CODE)
    engine = Game.from_code(WINNABLE_CODE)
    checked = 0
    for index, action in enumerate(line[:60]):
        if index % 6 == 0:
            response = client.get(f"/v1/games/{game['id']}/legal-moves")
            assert response.status_code == 200
            assert response.headers["ETag"] == f'"{engine.version}"'
            page = response.get_json()
            assert page["version"] == engine.version
            expected = engine.legal_actions()
            assert [item["notation"] for item in page["items"]] == [str(a) for a in expected]
            assert [{k: v for k, v in item.items() if k != "notation"} for item in page["items"]] == [
                a.to_json() for a in expected]
            # every listed action is accepted; undo it to continue on the line
            for item in page["items"]:
                listed = Action.parse(item["notation"])
                accepted = post_action(client, game["id"], auth, listed)
                assert accepted.status_code == 200, (item, accepted.get_json())
                if listed.kind != "undo":
                    assert act(client, game, auth, "undo").status_code == 200
                    engine.apply(listed)
                    engine.apply(Action.undo())
                else:
                    engine.apply(listed)
                    # put the undone action back: replay it from the line
                    redo = line[index - 1]
                    assert post_action(client, game["id"], auth, redo).status_code == 200
                    engine.apply(redo)
                checked += 1
        engine.apply(action)
        assert post_action(client, game["id"], auth, action).status_code == 200
    assert checked > 10
    assert read(client, game)["version"] == engine.version


def test_legal_moves_of_an_unknown_game_is_404(client):
    problem(client.get("/v1/games/nope/legal-moves"), 404, "GAME_NOT_FOUND")

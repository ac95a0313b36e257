"""Games over HTTP: create and read, access control, malformed requests, problem+json.

Every test runs on SQLite and PostgreSQL (the ``client`` fixture).
"""

from __future__ import annotations

import json

import pytest

from service.engine import GameCode, deal_cards
from tests.api.helpers import act, new_game, new_player, problem

CODE = "TF1-D1N-AAAAAAG"
PROBLEM_KEYS = {"type", "title", "status", "detail", "code", "params"}


def dealt_tableau(code: str) -> list[list[str]]:
    tableau, _ = deal_cards(GameCode.parse(code).deal)
    return [[str(card) for card in column] for column in tableau]


def stock_cards(code: str) -> list[str]:
    return [str(card) for card in deal_cards(GameCode.parse(code).deal)[1]]


# -- create and read -----------------------------------------------------------


def test_create_answers_201_with_location_etag_and_the_fresh_game(client):
    response = client.post("/v1/games", json={})
    assert response.status_code == 201
    game = response.get_json()
    assert response.headers["Location"] == f"/v1/games/{game['id']}"
    assert response.headers["ETag"] == '"0"'
    assert response.mimetype == "application/json"
    assert game["draw"] == 1 and game["status"] == "playing"
    assert (game["score"], game["moves"], game["undos"], game["version"]) == (0, 0, 0, 0)
    assert game["stock"] == 24 and game["waste"] == [] and game["waste_fan"] == 0
    assert game["foundations"] == {"S": 0, "H": 0, "D": 0, "C": 0}
    assert [len(column) for column in game["tableau"]] == [1, 2, 3, 4, 5, 6, 7]
    assert game["can_undo"] is False and game["finished_at"] is None and game["player"] is None
    assert game["created_at"].endswith("Z")
    assert isinstance(game["token"], str) and len(game["token"]) >= 32
    assert game["tableau"] == dealt_tableau(game["code"])
    # the location reads the same game, without the token
    read = client.get(response.headers["Location"])
    assert read.status_code == 200
    assert read.get_json() == {k: v for k, v in game.items() if k != "token"}


def test_create_without_any_body(client):
    response = client.post("/v1/games")
    assert response.status_code == 201, response.get_json()
    assert response.get_json()["draw"] == 1


def test_create_draw_3(client):
    game, _ = new_game(client, draw=3)
    assert game["draw"] == 3 and game["code"].startswith("TF1-D3N-")


@pytest.mark.parametrize("code", ["TF1-D1N-AAAAAAG", "TF1-D3N-QWERTYU", "TF1-D1N-ZZZZZZZ", "TF1-D1N-AAAAAAA"])
def test_a_code_deals_exactly_that_game(shared_client, code):
    game, _ = new_game(shared_client, code=code)
    assert game["code"] == code
    assert game["draw"] == int(code[5])
    assert game["tableau"] == dealt_tableau(code)
    assert game["stock"] == 24


def test_a_lowercase_code_is_normalised(client):
    game, _ = new_game(client, code="tf1-d3n-qwertyu")
    assert game["code"] == "TF1-D3N-QWERTYU" and game["draw"] == 3
    assert game["tableau"] == dealt_tableau("TF1-D3N-QWERTYU")


def test_a_draw_matching_the_code_is_fine(client):
    game, _ = new_game(client, code="TF1-D3N-AAAAAAG", draw=3)
    assert game["draw"] == 3


def test_a_draw_contradicting_the_code_is_invalid_request(client):
    body = problem(client.post("/v1/games", json={"code": "TF1-D1N-AAAAAAG", "draw": 3}), 400, "INVALID_REQUEST")
    assert "draw" in body["errors"]


INVALID_CODES = ["TF1-D2N-AAAAAAB", "TF2-D1N-AAAAAAB", "TF1-D1N-AAAAAA", "TF1-D1N-AAAAAAÄ", "hello", "",
                 "TF1-D1N-AAAAAAB "]


@pytest.mark.parametrize("code", INVALID_CODES)
def test_an_invalid_code_is_422_invalid_game_code(shared_client, code):
    body = problem(shared_client.post("/v1/games", json={"code": code}), 422, "INVALID_GAME_CODE")
    assert body["params"] == {"code": code}


CREATE_MALFORMED = [
    ({"draw": "3"}, "draw"), ({"draw": 2}, "draw"), ({"draw": 1.5}, "draw"), ({"draw": True}, "draw"),
    ({"code": 7}, "code"), ({"winnable": "yes"}, "winnable"), ({"winnable": 1}, "winnable"),
    ({"colour": "red"}, "colour"),
]


@pytest.mark.parametrize(("body", "field"), CREATE_MALFORMED)
def test_create_rejects_malformed_bodies_per_field(shared_client, body, field):
    answer = problem(shared_client.post("/v1/games", json=body), 400, "INVALID_REQUEST")
    assert field in answer["errors"], answer


def test_create_rejects_a_body_that_is_not_json(client):
    response = client.post("/v1/games", data="{draw: 3", content_type="application/json")
    assert problem(response, 400, "INVALID_REQUEST")["errors"]


def test_read_unknown_game_is_404(client):
    body = problem(client.get("/v1/games/no-such-game"), 404, "GAME_NOT_FOUND")
    assert body["params"] == {"game": "no-such-game"}


def test_read_etag_and_if_none_match(client):
    game, auth = new_game(client, code=CODE)
    act(client, game, auth, "draw")
    response = client.get(f"/v1/games/{game['id']}")
    assert response.headers["ETag"] == '"1"' and response.get_json()["version"] == 1
    assert client.get(f"/v1/games/{game['id']}", headers={"If-None-Match": '"1"'}).status_code == 304
    assert client.get(f"/v1/games/{game['id']}", headers={"If-None-Match": '"7", "1"'}).status_code == 304
    stale = client.get(f"/v1/games/{game['id']}", headers={"If-None-Match": '"0"'})
    assert stale.status_code == 200 and stale.get_json()["version"] == 1


# -- players and tokens --------------------------------------------------------


def test_player_games_are_owned_and_carry_no_token(client):
    player, auth = new_player(client)
    assert set(player) >= {"id", "name", "token"} and player["name"] == "Ada"
    response = client.post("/v1/games", json={"code": CODE}, headers=auth)
    assert response.status_code == 201
    game = response.get_json()
    assert game["player"] == player["id"]
    assert "token" not in game
    assert act(client, game, auth, "draw").status_code == 200
    assert client.get(f"/v1/games/{game['id']}").get_json()["player"] == player["id"]
    # another player's token is not the owner's
    _, other = new_player(client, "Bob")
    problem(act(client, game, other, "draw"), 403, "FORBIDDEN")


def test_player_creation_validates(client):
    for body in ({}, {"name": ""}, {"name": "   "}, {"name": 5}, {"name": "x" * 41}, {"name": "a\nb"},
                 {"name": "Ada", "admin": True}):
        problem(client.post("/v1/players", json=body), 400, "INVALID_REQUEST")


def test_creating_a_game_with_an_unknown_player_token_is_401(client):
    response = client.post("/v1/games", json={}, headers={"Authorization": "Bearer nobody"})
    problem(response, 401, "AUTH_REQUIRED")


def test_a_game_token_does_not_create_player_games(client):
    _, game_auth = new_game(client)
    problem(client.post("/v1/games", json={}, headers=game_auth), 401, "AUTH_REQUIRED")


@pytest.mark.parametrize("action, body", [
    ("moves", {"from": "t1", "to": "t2"}), ("draw", None), ("recycle", None), ("undo", None),
    ("take-back", {"from": "fS", "to": "t1"}), ("tap", {"from": "t1"}),
])
def test_every_action_needs_the_owners_token(client, action, body):
    game, auth = new_game(client, code=CODE)
    other, other_auth = new_game(client, code=CODE)
    url = f"/v1/games/{game['id']}/{action}"
    response = client.post(url, json=body)
    problem(response, 401, "AUTH_REQUIRED")
    assert "Bearer" in response.headers.get("WWW-Authenticate", "")
    for malformed in ("Bearer", "Bearer ", "Basic abc", game["token"], "Bearer " + "x" * 300):
        problem(client.post(url, json=body, headers={"Authorization": malformed}), 401, "AUTH_REQUIRED")
    problem(client.post(url, json=body, headers=other_auth), 403, "FORBIDDEN")
    problem(client.post(url, json=body, headers={"Authorization": "Bearer not-a-token"}), 403, "FORBIDDEN")
    problem(client.post(f"/v1/games/nope/{action}", json=body, headers=auth), 404, "GAME_NOT_FOUND")
    # nothing happened to either game
    for one in (game, other):
        assert client.get(f"/v1/games/{one['id']}").get_json()["version"] == 0


def test_the_token_is_accepted_case_insensitively_on_the_scheme(client):
    game, _ = new_game(client, code=CODE)
    response = act(client, game, {"Authorization": f"bearer {game['token']}"}, "draw")
    assert response.status_code == 200


# -- routing errors ------------------------------------------------------------


NOT_ALLOWED = [
    ("put", "/v1/games", {"POST"}), ("delete", "/v1/games/x", {"GET"}), ("get", "/v1/games/x/draw", {"POST"}),
    ("patch", "/v1/games/x/moves", {"POST"}), ("put", "/v1/games/x/actions", {"GET", "POST"}),
    ("post", "/v1/games/x/legal-moves", {"GET"}), ("get", "/v1/players", {"POST"}),
    ("post", "/v1/rules", {"GET"}),
]


@pytest.mark.parametrize(("method", "path", "allowed"), NOT_ALLOWED)
def test_405_names_the_allowed_methods(shared_client, method, path, allowed):
    response = getattr(shared_client, method)(path)
    body = problem(response, 405, "METHOD_NOT_ALLOWED")
    assert body["params"] == {"method": method.upper()}
    assert allowed <= {m.strip() for m in response.headers["Allow"].split(",")}, response.headers


@pytest.mark.parametrize("path", ["/nope", "/v1", "/v1/games/x/y", "/v2/games", "/v1/game"])
def test_unknown_paths_are_404_not_found(shared_client, path):
    body = problem(shared_client.get(path), 404, "NOT_FOUND")
    assert body.keys() >= PROBLEM_KEYS


# -- malformed action requests -------------------------------------------------


MALFORMED = [
    ("moves", {"from": "t8", "to": "t1"}, "from"),
    ("moves", {"from": "T1", "to": "t2"}, "from"),
    ("moves", {"from": "stock", "to": "t2"}, "from"),
    ("moves", {"from": "fS", "to": "t2"}, "from"),
    ("moves", {"from": "t1", "to": "t0"}, "to"),
    ("moves", {"from": "t1", "to": "Foundation"}, "to"),
    ("moves", {"to": "t2"}, "from"),
    ("moves", {"from": "t1"}, "to"),
    ("moves", {"from": 1, "to": "t2"}, "from"),
    ("moves", {"from": "t1", "to": "t2", "card": 9}, "card"),
    ("moves", {"from": "t1", "to": "t2", "card": "1H"}, "card"),
    ("moves", {"from": "t1", "to": "t2", "card": "11H"}, "card"),
    ("moves", {"from": "t1", "to": "t2", "card": "ZZ"}, "card"),
    ("moves", {"from": "t1", "to": "t2", "card": "7H\n"}, "card"),
    ("tap", {"from": "t1", "card": "10h\n"}, "card"),
    ("moves", {"from": "t1", "to": "t2", "card": None}, "card"),
    ("moves", {"from": "t1", "to": "t2", "double": True}, "double"),
    ("moves", {"from": "t1", "to": "t2", "cards": ["AS"]}, "cards"),
    ("take-back", {"from": "t1", "to": "t2"}, "from"),
    ("take-back", {"from": "foundation", "to": "t2"}, "from"),
    ("take-back", {"from": "fS"}, "to"),
    ("take-back", {"from": "fS", "to": "t1", "card": "AS"}, "card"),
    ("tap", {}, "from"),
    ("tap", {"from": "stock"}, "from"),
    ("tap", {"from": "t1", "double": "yes"}, "double"),
    ("tap", {"from": "t1", "double": 1}, "double"),
    ("tap", {"from": "t1", "to": "t2"}, "to"),
    ("tap", {"from": "t1", "card": "1H"}, "card"),
    ("draw", {"x": 1}, "x"),
    ("recycle", {"x": 1}, "x"),
    ("undo", {"steps": 2}, "steps"),
]


def assert_untouched(client, game: dict) -> None:
    assert client.get(f"/v1/games/{game['id']}").get_json()["version"] == 0
    assert client.get(f"/v1/games/{game['id']}/actions").get_json()["items"] == []


@pytest.mark.parametrize(("action", "body", "field"), MALFORMED)
def test_malformed_actions_are_400_with_per_field_errors(shared_client, action, body, field):
    game, auth = new_game(shared_client, code=CODE)
    answer = problem(act(shared_client, game, auth, action, body), 400, "INVALID_REQUEST")
    assert isinstance(answer["errors"], dict) and field in answer["errors"], answer
    assert all(isinstance(messages, list) and messages for messages in answer["errors"].values())
    assert_untouched(shared_client, game)


@pytest.mark.parametrize("raw", ["{", "[1, 2]", '"draw"', "null", "not json", "{}{}"])
@pytest.mark.parametrize("action", ["moves", "draw", "tap", "take-back", "undo"])
def test_bodies_that_are_not_json_objects_are_400(shared_client, action, raw):
    game, auth = new_game(shared_client, code=CODE)
    response = shared_client.post(f"/v1/games/{game['id']}/{action}", data=raw,
                                  content_type="application/json", headers=auth)
    assert problem(response, 400, "INVALID_REQUEST")["errors"]
    assert_untouched(shared_client, game)


def test_bodyless_actions_take_no_body_or_an_empty_object(client):
    game, auth = new_game(client, code=CODE)
    versions = []
    for send in ({}, {"json": {}}, {"data": "", "content_type": "application/json"}):
        for action in ("draw", "undo"):
            response = client.post(f"/v1/games/{game['id']}/{action}", headers=auth, **send)
            assert response.status_code == 200, (action, send, response.get_json())
            versions.append(response.get_json()["version"])
        response = client.post(f"/v1/games/{game['id']}/recycle", headers=auth, **send)
        assert problem(response, 422, "STOCK_NOT_EMPTY")["params"] == {"stock": 24}
    assert versions == [1, 2, 3, 4, 5, 6]


def test_the_first_failure_in_order_404_401_403_then_400(client):
    game, auth = new_game(client, code=CODE)
    bad_body = {"from": "t9", "to": "t1"}
    problem(client.post("/v1/games/nope/moves", json=bad_body), 404, "GAME_NOT_FOUND")
    problem(client.post(f"/v1/games/{game['id']}/moves", json=bad_body), 401, "AUTH_REQUIRED")
    problem(client.post(f"/v1/games/{game['id']}/moves", json=bad_body,
                        headers={"Authorization": "Bearer x"}), 403, "FORBIDDEN")
    problem(client.post(f"/v1/games/{game['id']}/moves", json=bad_body, headers=auth), 400, "INVALID_REQUEST")


def test_problem_documents_have_the_rfc9457_shape(client):
    game, auth = new_game(client, code=CODE)
    for response in (
        client.get("/v1/games/nope"), act(client, game, {}, "draw"), act(client, game, auth, "undo"),
        act(client, game, auth, "moves", {"from": "x"}), client.put("/v1/games"), client.get("/nope"),
    ):
        assert response.mimetype == "application/problem+json"
        body = response.get_json()
        assert body.keys() >= PROBLEM_KEYS, body
        assert body["status"] == response.status_code
        assert body["type"] == f"/v1/rules/{body['code']}"
        assert isinstance(body["title"], str) and body["title"]
        assert isinstance(body["detail"], str) and body["detail"]
        assert isinstance(body["params"], dict)
        # the type points at a real entry of the rules catalog
        assert client.get(body["type"]).status_code == 200


# -- languages -----------------------------------------------------------------


def test_accept_language_de_gives_a_german_detail(client):
    game, auth = new_game(client, code=CODE)
    english = act(client, game, auth, "recycle")
    german = act(client, game, auth, "recycle", **{"Accept-Language": "de-DE,de;q=0.9,en;q=0.5"})
    assert problem(english, 422, "STOCK_NOT_EMPTY")["params"] == {"stock": 24}
    body = problem(german, 422, "STOCK_NOT_EMPTY")
    assert german.headers["Content-Language"] == "de"
    assert english.headers["Content-Language"] == "en"
    assert body["params"] == {"stock": 24}
    assert body["detail"] != english.get_json()["detail"]
    from service import i18n

    assert body["detail"] == i18n.message("STOCK_NOT_EMPTY", {"stock": 24}, "de")
    unknown = act(client, game, auth, "recycle", **{"Accept-Language": "tlh"})
    assert unknown.headers["Content-Language"] == "en"


# -- the stock stays face down -------------------------------------------------


def test_the_stock_order_never_appears_before_a_draw(client):
    code = "TF1-D1N-QWERTYU"
    game, auth = new_game(client, code=code)
    hidden = stock_cards(code)
    bodies = [
        json.dumps(game),
        client.get(f"/v1/games/{game['id']}").get_data(as_text=True),
        client.get(f"/v1/games/{game['id']}/legal-moves").get_data(as_text=True),
        client.get(f"/v1/games/{game['id']}/actions").get_data(as_text=True),
        act(client, game, auth, "recycle").get_data(as_text=True),
        act(client, game, auth, "tap", {"from": "t7", "double": True}).get_data(as_text=True),
    ]
    for body in bodies:
        for card in hidden:
            assert f'"{card}"' not in body, (card, body)
    # and after one draw only the drawn card shows
    drawn = act(client, game, auth, "draw").get_data(as_text=True)
    assert f'"{hidden[0]}"' in drawn
    for card in hidden[1:]:
        assert f'"{card}"' not in drawn
    for path in ("", "/legal-moves", "/actions"):
        body = client.get(f"/v1/games/{game['id']}{path}").get_data(as_text=True)
        for card in hidden[1:]:
            assert f'"{card}"' not in body

"""Every malformed input is a 400 INVALID_REQUEST with a useful ``errors``, and changes nothing.

The inputs of issue 13 that used to answer 500, on SQLite and PostgreSQL (the ``client``
fixture), then a hypothesis sweep that throws nested, huge, surrogate and out-of-range
values at every JSON body and query string and asserts no 5xx.
"""

from __future__ import annotations

import base64
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.problem_codes import STATUS
from tests.api.helpers import act, new_game, problem

JSON = {"Content-Type": "application/json"}


def _cursor(position: dict) -> str:
    return base64.urlsafe_b64encode(json.dumps(position).encode()).decode().rstrip("=")


def _invalid(response) -> dict:
    body = problem(response, 400, "INVALID_REQUEST")
    assert body["errors"], body
    return body


def _post(client, path: str, raw: str | bytes, headers: dict | None = None):
    return client.post(path, data=raw, headers={**JSON, **(headers or {})})


def _games(client) -> int:
    return len(client.get("/v1/leaderboard").get_json()["items"])


@pytest.mark.parametrize("raw", ["[" * 1200 + "]" * 1200, '{"a":' * 1200 + "1" + "}" * 1200],
                         ids=["array", "object"])
@pytest.mark.parametrize("path", ["/v1/games", "/v1/players", "/v1/games/{game}/moves", "/v1/games/{game}/draw"])
def test_deep_nesting_is_refused_on_every_json_endpoint(shared_client, path, raw):
    game, auth = new_game(shared_client)
    headers = auth if "{game}" in path else {}
    body = _invalid(_post(shared_client, path.format(game=game["id"]), raw, headers))
    assert "Nested deeper" in json.dumps(body["errors"]), body
    assert shared_client.get(f"/v1/games/{game['id']}").get_json()["version"] == 0


@pytest.mark.parametrize("raw", [
    '{"draw": ' + "1" * 5000 + "}",
    '{"draw": -' + "9" * 30 + "}",
    '{"draw": 1e999}',
    '{"draw": NaN}',
    '{"draw": Infinity}',
])
def test_huge_and_non_finite_numbers_are_refused(client, raw):
    body = _invalid(_post(client, "/v1/games", raw))
    assert "_body" in body["errors"]


def test_an_integer_that_fits_but_is_not_a_draw_mode_names_the_field(client):
    body = _invalid(_post(client, "/v1/games", '{"draw": ' + "1" * 19 + "}"))
    assert "draw" in body["errors"]


@pytest.mark.parametrize("value", ["TF1-D1N-\\ud800AAAAAA", "\\udfff"])
def test_lone_surrogate_in_a_game_code(client, value):
    body = _invalid(_post(client, "/v1/games", '{"code": "' + value + '"}'))
    assert "surrogate" in json.dumps(body["errors"])


def test_lone_surrogate_in_a_player_name_or_a_key(client):
    _invalid(_post(client, "/v1/players", '{"name": "a\\ud800b"}'))
    _invalid(_post(client, "/v1/players", '{"\\ud800": "x", "name": "ok"}'))
    game, auth = new_game(client)
    _invalid(_post(client, f"/v1/games/{game['id']}/moves", '{"from": "t1\\ud800", "to": "t2"}', auth))


@pytest.mark.parametrize("name", ["a\u001b[2Jb", "a\u0000b", "nul\u0000", "\u009b2J", "x\u202ey", "\u2028",
                                  "a\ud7ff\U0010fffe"])
def test_names_have_no_control_characters(client, name):
    body = _invalid(client.post("/v1/players", json={"name": name}))
    assert "name" in body["errors"]


def test_a_plain_name_with_accents_and_emoji_is_fine(client):
    response = client.post("/v1/players", json={"name": "Zoë 🂡 Ōtani"})
    assert response.status_code == 201 and response.get_json()["name"] == "Zoë 🂡 Ōtani"


@pytest.mark.parametrize("query", ["since=0001-01-01T00:00:00%2B14:00", "until=9999-12-31T23:59:59-14:00",
                                   "since=0001-01-01T00:00:00%2B00:01"])
def test_moments_that_overflow_utc(client, query):
    for path in ("/v1/leaderboard", "/v1/deals/TF1-D1N-AAAAAAA/leaderboard"):
        body = _invalid(client.get(f"{path}?{query}"))
        assert set(body["errors"]) <= {"since", "until"}


BOARD_CURSOR = {"score": 1, "moves": 1, "ms": 1, "finished": "2026-01-01T00:00:00+00:00", "game": "g"}


@pytest.mark.parametrize("change", [
    {"score": 2**31}, {"moves": -(2**31) - 1}, {"ms": 2**63}, {"score": 2**64},
    {"game": "a\u0000b"}, {"finished": "0001-01-01T00:00:00+14:00"},
])
def test_leaderboard_cursors_out_of_range(client, change):
    cursor = _cursor({**BOARD_CURSOR, **change})
    for path in ("/v1/leaderboard", "/v1/deals/TF1-D1N-AAAAAAA/leaderboard"):
        assert "cursor" in _invalid(client.get(f"{path}?cursor={cursor}"))["errors"]


def test_a_wide_duration_in_a_cursor_is_fine(client):
    cursor = _cursor({**BOARD_CURSOR, "ms": 2**40})
    assert client.get(f"/v1/leaderboard?cursor={cursor}").status_code == 200


@pytest.mark.parametrize("seq", [2**31, 2**63, -(2**63) - 1, 10**30])
def test_history_cursor_out_of_range(client, seq):
    game, _ = new_game(client)
    cursor = _cursor({"seq": seq})
    assert "cursor" in _invalid(client.get(f"/v1/games/{game['id']}/actions?cursor={cursor}"))["errors"]


def test_player_games_cursor_out_of_range(client):
    player = client.post("/v1/players", json={"name": "p"}).get_json()
    for created in ("0001-01-01T00:00:00+14:00", "9999-12-31T23:59:59-14:00"):
        cursor = _cursor({"created": created, "game": "g"})
        _invalid(client.get(f"/v1/players/{player['id']}/games?cursor={cursor}"))
    cursor = _cursor({"created": "2026-01-01T00:00:00+00:00", "game": "\u0000"})
    _invalid(client.get(f"/v1/players/{player['id']}/games?cursor={cursor}"))


def test_an_idempotent_action_with_a_nested_body_is_400(client):
    game, auth = new_game(client)
    response = _post(client, f"/v1/games/{game['id']}/moves", "[" * 2000 + "]" * 2000,
                     {**auth, "Idempotency-Key": "k1"})
    _invalid(response)


# -- the sweep ------------------------------------------------------------------------

NASTY_SCALARS = st.one_of(
    st.integers(min_value=-(10**30), max_value=10**30),
    st.sampled_from([2**31, 2**63, -(2**63) - 1, 10**4000]),
    st.floats(allow_nan=False),
    st.text(alphabet=st.characters(codec=None, categories=["Cc", "Cs", "Co", "Lu", "Nd", "Zs"]), max_size=12),
    st.sampled_from(["\ud800", "TF1-D1N-AAAAAAA", "t1", "foundation", "9C", "", "\u0000"]),
    st.booleans(), st.none(),
)
NASTY = st.recursive(NASTY_SCALARS, lambda inner: st.lists(inner, max_size=3)
                     | st.dictionaries(st.sampled_from(["draw", "code", "winnable", "name", "from", "to", "card",
                                                        "double", "\ud800"]), inner, max_size=3), max_leaves=8)


def _dump(value) -> bytes:
    # json.dumps writes a lone surrogate as the escape "\ud800" and a big integer in full, as an attacker would.
    return json.dumps(value, ensure_ascii=True).encode()


def _depth(value: bytes, extra: int) -> bytes:
    return b"[" * extra + value + b"]" * extra


#: What a body may get from each endpoint: its success, or a refusal (rule rejections and a finished game: 422, 409).
BODY_ANSWERS = {"/v1/games": {201, 400, 422}, "/v1/players": {201, 400, 422}, "moves": {200, 400, 409, 422},
                "take-back": {200, 400, 409, 422}, "tap": {200, 400, 409, 422}, "draw": {200, 400, 409, 422}}


def _answered_as_declared(response, allowed: set[int]) -> dict:
    """The answer is one ``allowed`` status: a JSON success, or a problem whose code is of its status."""
    assert response.status_code in allowed, (response.status_code, response.get_data(as_text=True))
    body = response.get_json()
    if response.status_code >= 400:
        assert response.mimetype == "application/problem+json", response.mimetype
        assert body["status"] == response.status_code == STATUS[body["code"]], body
        if response.status_code == 400:
            assert body["code"] == "INVALID_REQUEST" and body["errors"], body
    else:
        assert response.mimetype == "application/json" and body["id"], body
    return body


@pytest.mark.slow  # 60 generated bodies: seconds, so out of the quick loop (make test runs it)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(body=NASTY, extra=st.sampled_from([0, 0, 20, 3000]), endpoint=st.sampled_from(
    ["/v1/games", "/v1/players", "moves", "take-back", "tap", "draw"]))
def test_every_body_is_answered_as_declared_and_only_an_accepted_one_changes_the_game(client, body, extra, endpoint):
    if not hasattr(client, "_swept"):
        client._swept = new_game(client, code="TF1-D1N-AAAAAAA")
    game, auth = client._swept
    path = endpoint if endpoint.startswith("/") else f"/v1/games/{game['id']}/{endpoint}"
    before = client.get(f"/v1/games/{game['id']}").get_json()["version"]
    owner = auth if path.startswith("/v1/games/") else {}  # the game's token is a player's for no create
    response = _post(client, path, _depth(_dump(body), extra), owner)
    _answered_as_declared(response, BODY_ANSWERS[endpoint])
    if extra:  # nested 20 or 3000 deep: no endpoint takes that
        assert response.status_code == 400
    after = client.get(f"/v1/games/{game['id']}").get_json()["version"]
    assert after == before + (1 if response.status_code == 200 else 0)


QUERY_VALUES = st.one_of(
    st.integers(min_value=-(10**30), max_value=10**30).map(str),
    st.sampled_from(["0001-01-01T00:00:00+14:00", "9999-12-31T23:59:59-14:00", "1" * 5000, "%ED%A0%80",
                     "%00", _cursor({"seq": 2**63}), _cursor(BOARD_CURSOR), _cursor({**BOARD_CURSOR, "ms": 2**70}),
                     _cursor({"created": "0001-01-01T00:00:00+14:00", "game": "x"}), "2026-13-45"]),
    st.text(alphabet=st.characters(codec="utf-8", categories=["Cc", "Lu", "Nd", "Zs", "Po"]), max_size=20),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.sampled_from(["since", "until", "cursor", "limit", "draw", "player", "date", "status", "lang"]),
       value=QUERY_VALUES,
       path=st.sampled_from(["/v1/leaderboard", "/v1/deals/TF1-D1N-AAAAAAA/leaderboard", "/v1/daily", "/v1/rules",
                             "history", "player-games"]))
def test_every_query_string_is_answered_or_refused_naming_its_parameter(client, name, value, path):
    if not hasattr(client, "_swept_q"):
        player = client.post("/v1/players", json={"name": "q"}).get_json()
        game, _ = new_game(client)
        client._swept_q = (player["id"], game["id"])
    player, game = client._swept_q
    path = {"history": f"/v1/games/{game}/actions", "player-games": f"/v1/players/{player}/games"}.get(path, path)
    response = client.get(path, query_string={name: value})
    assert response.status_code in (200, 400, 404), (response.status_code, response.get_data(as_text=True))
    body = response.get_json()
    if response.status_code == 200:
        assert response.mimetype == "application/json" and isinstance(body, dict), body
    elif response.status_code == 404:  # a player filter that names no player
        assert (name, body["code"], body["params"]) == ("player", "PLAYER_NOT_FOUND", {"player": value}), body
    elif body["code"] == "TOKEN_IN_QUERY":  # a value that reads as a bearer token
        assert body["params"] == {"param": name}, body
    else:
        assert body["code"] == "INVALID_REQUEST" and set(body["errors"]) == {name}, body


def test_a_malformed_action_changes_nothing(client):
    game, auth = new_game(client, code="TF1-D1N-AAAAAAA")
    for raw in ('{"from": "t7", "to": "foundation", "card": "\\ud800"}', '{"from": 1e999, "to": "t1"}'):
        _invalid(_post(client, f"/v1/games/{game['id']}/moves", raw, auth))
    assert act(client, game, auth, "moves", {"from": "t7", "to": "foundation"}).get_json()["version"] == 1

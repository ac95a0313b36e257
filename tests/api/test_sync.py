"""Batch sync over HTTP (``POST /v1/games/{id}/actions``): all or nothing, If-Match, rebase, replays, limits.

Every test runs on SQLite and PostgreSQL (the ``app`` fixture); each answer is checked
against openapi.yaml by the conforming app.
"""

from __future__ import annotations

import pytest

from service import create_app
from service.engine import Game
from service.extensions import db
from tests.api.gameplay import WINNABLE_CODE, winning_line
from tests.api.helpers import new_game, problem
from tests.api.test_play import history, read


def sync(client, game: dict, auth: dict, actions, if_match="0", **extra_headers):
    headers = {**auth, **extra_headers}
    if if_match is not None:
        headers["If-Match"] = f'"{if_match}"' if if_match != "*" else "*"
    return client.post(f"/v1/games/{game['id']}/actions", json={"actions": actions}, headers=headers)


def notations(line) -> list[str]:
    return [str(action) for action in line]


def assert_unchanged(client, game, before, before_history):
    assert read(client, game) == before
    assert history(client, game) == before_history


def test_a_batch_applies_every_action_and_answers_the_game(client):
    game, auth = new_game(client, code=WINNABLE_CODE)
    line = notations(winning_line())[:40]
    response = sync(client, game, auth, line)
    assert response.status_code == 200, response.get_json()
    body = response.get_json()
    expected = Game.from_code(WINNABLE_CODE)
    for action in winning_line()[:40]:
        expected.apply(action)
    assert body["version"] == expected.version == 40
    assert body["score"] == expected.score and body["moves"] == expected.moves
    assert response.headers["ETag"] == '"40"'
    assert body == read(client, game)
    rows = history(client, game)
    assert [row["notation"] for row in rows] == line
    assert [row["seq"] for row in rows] == list(range(1, 41))
    # the rows agree with what the single-action endpoints would have stored
    assert rows[-1]["score_after"] == expected.score


def test_batches_chain_from_each_answer_to_a_win(client):
    game, auth = new_game(client, code=WINNABLE_CODE)
    line = notations(winning_line())
    version = 0
    for start in range(0, len(line), 50):
        response = sync(client, game, auth, line[start:start + 50], if_match=str(version))
        assert response.status_code == 200, response.get_json()
        version = response.get_json()["version"]
    body = read(client, game)
    assert body["status"] == "won" and body["version"] == len(line)
    assert body["finished_at"] is not None and body["seconds"] is not None
    # a won game accepts nothing, not even undo: 409 with the index of the refused action
    refused = problem(sync(client, game, auth, ["undo"], if_match=str(version)), 409, "GAME_FINISHED")
    assert refused["params"] == {"index": 0}


def test_actions_after_the_win_refuse_the_whole_batch(client):
    game, auth = new_game(client, code=WINNABLE_CODE)
    line = notations(winning_line())
    before, before_history = read(client, game), history(client, game)
    refused = problem(sync(client, game, auth, [*line, "draw"]), 409, "GAME_FINISHED")
    assert refused["params"] == {"index": len(line)}
    assert_unchanged(client, game, before, before_history)


def test_the_first_refused_action_refuses_the_batch_and_nothing_is_stored(client):
    game, auth = new_game(client, code=WINNABLE_CODE)
    line = notations(winning_line())[:10]
    before, before_history = read(client, game), history(client, game)
    refused = problem(sync(client, game, auth, [*line[:5], "t1>t1", *line[5:]]), 422, "SAME_PILE")
    assert refused["params"] == {"pile": "t1", "index": 5}
    assert_unchanged(client, game, before, before_history)
    # the refusal's detail is localized like any rule's
    german = sync(client, game, auth, ["t1>t1"], **{"Accept-Language": "de"})
    assert german.headers["Content-Language"] == "de"


@pytest.mark.parametrize(("body", "field"), [
    ({"actions": "draw"}, "actions"),
    ({"actions": []}, "actions"),
    ({"actions": ["draw"] * 501}, "actions"),
    ({"actions": ["draw", 3]}, "actions"),
    ({"actions": ["draw", None]}, "actions"),
    ({}, "actions"),
    ({"actions": ["draw"], "extra": 1}, "extra"),
    (["draw"], "_schema"),
])
def test_malformed_bodies_are_refused_and_change_nothing(client, body, field):
    game, auth = new_game(client)
    before, before_history = read(client, game), history(client, game)
    response = client.post(f"/v1/games/{game['id']}/actions", json=body, headers={**auth, "If-Match": '"0"'})
    refused = problem(response, 400, "INVALID_REQUEST")
    assert field in refused["errors"], refused
    assert all(isinstance(message, str) for messages in refused["errors"].values() for message in messages)
    assert_unchanged(client, game, before, before_history)


def test_an_unparseable_notation_is_refused_with_its_index(client):
    game, auth = new_game(client)
    before, before_history = read(client, game), history(client, game)
    refused = problem(sync(client, game, auth, ["draw", "draw", "T3>t5"]), 400, "INVALID_NOTATION")
    assert refused["params"] == {"index": 2, "notation": "T3>t5"}
    assert_unchanged(client, game, before, before_history)


def test_if_match_is_required(client):
    game, auth = new_game(client)
    problem(sync(client, game, auth, ["draw"], if_match=None), 428, "IF_MATCH_REQUIRED")
    assert read(client, game)["version"] == 0
    # a malformed one is 400, as on every action
    response = client.post(f"/v1/games/{game['id']}/actions", json={"actions": ["draw"]},
                           headers={**auth, "If-Match": "0"})
    problem(response, 400, "INVALID_REQUEST")


def test_a_stale_if_match_answers_what_a_rebase_needs(client):
    game, auth = new_game(client, code=WINNABLE_CODE)
    line = notations(winning_line())
    assert sync(client, game, auth, line[:5]).status_code == 200
    assert sync(client, game, auth, line[5:8], if_match="5").status_code == 200
    # another tab still at version 5 sends its own actions
    before, before_history = read(client, game), history(client, game)
    response = sync(client, game, auth, ["draw"], if_match="5")
    stale = problem(response, 412, "VERSION_MISMATCH")
    assert stale["params"] == {"sent": '"5"', "current": 8, "version": 8, "base": 5, "actions": line[5:8]}
    assert response.headers["ETag"] == '"8"'
    assert_unchanged(client, game, before, before_history)
    # the link lists the same actions
    page = client.get(stale["history"]).get_json()
    assert [item["notation"] for item in page["items"]] == line[5:8]
    # a base the game never had: everything from the start
    stale = problem(sync(client, game, auth, ["draw"], if_match="99"), 412, "VERSION_MISMATCH")
    assert stale["params"]["base"] == 0 and stale["params"]["actions"] == line[:8]
    assert client.get(stale["history"]).get_json()["items"][0]["seq"] == 1


@pytest.mark.parametrize("tag", ["\u00b2", "\u00b9", "\u00b3"])
def test_a_stale_if_match_of_digits_that_are_not_ascii_is_a_412_from_the_start(client, tag):
    # "²".isdigit() is True but int("²") raises: the tag is no version the game had (base 0), never a 500
    game, auth = new_game(client)
    assert sync(client, game, auth, ["draw"]).status_code == 200
    stale = problem(sync(client, game, auth, ["draw"], if_match=tag), 412, "VERSION_MISMATCH")
    assert stale["params"]["base"] == 0 and stale["params"]["actions"] == ["draw"]


def test_a_repeated_batch_is_a_replay_never_applied_twice(client):
    game, auth = new_game(client, code=WINNABLE_CODE)
    line = notations(winning_line())[:12]
    first = sync(client, game, auth, line, **{"Idempotency-Key": "batch-1"})
    assert first.status_code == 200
    again = sync(client, game, auth, line, **{"Idempotency-Key": "batch-1"})
    assert again.status_code == 200
    assert again.get_data() == first.get_data()
    assert again.headers["Idempotent-Replayed"] == "true"
    assert len(history(client, game)) == 12
    # the same key with another batch
    problem(sync(client, game, auth, line[:3], **{"Idempotency-Key": "batch-1"}), 422, "IDEMPOTENCY_KEY_REUSED")
    # a refused batch's answer is kept too: its retry is the same refusal, still nothing applied
    refused = sync(client, game, auth, ["t1>t1"], if_match="12", **{"Idempotency-Key": "batch-2"})
    assert refused.status_code == 422
    retried = sync(client, game, auth, ["t1>t1"], if_match="12", **{"Idempotency-Key": "batch-2"})
    assert retried.get_json()["params"] == refused.get_json()["params"] == {"pile": "t1", "index": 0}
    assert retried.headers["Idempotent-Replayed"] == "true"
    assert len(history(client, game)) == 12


def test_only_the_owner_syncs(client):
    game, auth = new_game(client)
    problem(sync(client, game, {}, ["draw"]), 401, "AUTH_REQUIRED")
    other, other_auth = new_game(client)
    problem(sync(client, game, other_auth, ["draw"]), 403, "FORBIDDEN")
    problem(sync(client, {"id": "nosuchgame12"}, auth, ["draw"]), 404, "GAME_NOT_FOUND")
    assert read(client, game)["version"] == 0


def test_the_write_rate_limit_counts_actions_not_requests(database_url):
    app = create_app({"DATABASE_URL": database_url, "TESTING": True, "RATELIMIT_WRITE": "30 per minute"})
    try:
        client = app.test_client()
        game, auth = new_game(client)
        response = sync(client, game, auth, ["draw"] * 20)
        assert response.status_code == 200
        assert response.headers["X-RateLimit-Remaining"] == "10"
        refused = sync(client, game, auth, ["draw"] * 11, if_match="20")
        problem(refused, 429, "RATE_LIMITED")
        # a batch larger than the whole window is not refused forever: it spends the window
        other, other_auth = new_game(client, code=WINNABLE_CODE)
        whole = sync(client, other, other_auth, notations(winning_line())[:40])
        assert whole.status_code == 200, whole.get_json()
        assert whole.headers["X-RateLimit-Remaining"] == "0"
        problem(client.post(f"/v1/games/{other['id']}/draw", headers=other_auth), 429, "RATE_LIMITED")
        # a malformed body counts 1, however many entries it has (it applies none)
        third, third_auth = new_game(client)
        for body in (["draw"] * 501, [1] * 20):
            malformed = sync(client, third, third_auth, body)
            problem(malformed, 400, "INVALID_REQUEST")
        assert malformed.headers["X-RateLimit-Remaining"] == "28"
    finally:
        with app.app_context():
            db.engine.dispose()


@pytest.mark.parametrize(("lang", "title"), [("de", "Derselbe Stapel"), ("ja", "同じ山"), ("en", "Same pile")])
def test_problem_titles_follow_accept_language_like_the_detail(client, lang, title):
    game, auth = new_game(client)
    response = sync(client, game, auth, ["t1>t1"], **{"Accept-Language": lang})
    body = problem(response, 422, "SAME_PILE")
    assert body["title"] == title and response.headers["Content-Language"] == lang
    missing = client.get("/v1/games/nosuchgame12", headers={"Accept-Language": lang})
    assert missing.get_json()["title"] == {"de": "Spiel nicht gefunden", "ja": "ゲームが見つからない",
                                           "en": "Game not found"}[lang]

"""Idempotency-Key on POST /v1/games and POST /v1/players: a retry gets the first answer, byte for byte."""

from __future__ import annotations

import sqlalchemy as sa

from service.extensions import db
from service.store import CreatedAnswer
from tests.api.helpers import act, new_game, problem

KEY = {"Idempotency-Key": "create-7f3c2a-41d9-8b0e"}


def _count(app, table: str) -> int:
    with app.app_context():
        return db.session.execute(sa.text(f"SELECT count(*) FROM {table}")).scalar_one()


def _same_answer(first, again) -> None:
    assert again.status_code == first.status_code == 201
    assert again.get_data() == first.get_data()
    for name in ("Content-Type", "Location", "ETag"):
        assert again.headers.get(name) == first.headers.get(name)
    assert again.headers["Idempotent-Replayed"] == "true" and "Idempotent-Replayed" not in first.headers


def test_a_retried_anonymous_game_is_the_same_game(app, client):
    first = client.post("/v1/games", json={"draw": 3}, headers=KEY)
    again = client.post("/v1/games", json={"draw": 3}, headers=KEY)
    _same_answer(first, again)
    assert _count(app, "games") == 1
    # the replayed token plays the game
    game = again.get_json()
    assert act(client, game, {"Authorization": f"Bearer {game['token']}"}, "draw").status_code == 200
    # the stored answer holds neither the key nor the token in the clear
    with app.app_context():
        (row,) = db.session.execute(sa.select(CreatedAnswer)).scalars().all()
        assert game["token"].encode() not in row.body and KEY["Idempotency-Key"] not in row.scope


def test_a_key_with_another_body_is_refused_and_deals_nothing(app, client):
    assert client.post("/v1/games", json={"draw": 3}, headers=KEY).status_code == 201
    problem(client.post("/v1/games", json={"draw": 1}, headers=KEY), 422, "IDEMPOTENCY_KEY_REUSED")
    assert _count(app, "games") == 1
    # the same key on the other create endpoint is another key
    assert client.post("/v1/players", json={"name": "Ada"}, headers=KEY).status_code == 201


def test_keys_are_per_player(app, client):
    players = [client.post("/v1/players", json={"name": name}).get_json() for name in ("A", "B")]
    answers = [client.post("/v1/games", json={"code": "TF1-D1N-AAAAAAB"},
                           headers={**KEY, "Authorization": f"Bearer {p['token']}"}) for p in players]
    assert [a.status_code for a in answers] == [201, 201]
    assert answers[0].get_json()["player"] != answers[1].get_json()["player"]
    again = client.post("/v1/games", json={"code": "TF1-D1N-AAAAAAB"},
                        headers={**KEY, "Authorization": f"Bearer {players[0]['token']}"})
    _same_answer(answers[0], again)
    assert _count(app, "games") == 2


def test_a_retried_player_is_the_same_player(app, client):
    first = client.post("/v1/players", json={"name": "Zoë"}, headers=KEY)
    again = client.post("/v1/players", json={"name": "Zoë"}, headers=KEY)
    _same_answer(first, again)
    assert _count(app, "players") == 1
    problem(client.post("/v1/players", json={"name": "Other"}, headers=KEY), 422, "IDEMPOTENCY_KEY_REUSED")
    problem(client.post("/v1/players", json={"name": "x"}, headers={"Idempotency-Key": "k" * 129}),
            400, "INVALID_REQUEST")


def test_a_replayed_action_keeps_its_bytes_and_a_replayed_problem_its_language(client):
    game, auth = new_game(client, code="TF1-D1N-AAAAAAA")
    first = act(client, game, auth, "moves", {"from": "t7", "to": "foundation"}, **{"Idempotency-Key": "m1"})
    again = act(client, game, auth, "moves", {"from": "t7", "to": "foundation"}, **{"Idempotency-Key": "m1"})
    assert first.status_code == again.status_code == 200
    assert again.get_data() == first.get_data() and again.headers["ETag"] == first.headers["ETag"]
    refused = act(client, game, auth, "moves", {"from": "t1", "to": "t2"}, **{"Idempotency-Key": "m2"})
    body = problem(refused, 422, refused.get_json()["code"])
    replayed = act(client, game, auth, "moves", {"from": "t1", "to": "t2"},
                   **{"Idempotency-Key": "m2", "Accept-Language": "de"})
    german = problem(replayed, 422, body["code"])
    assert german["params"] == body["params"] and german["detail"] != body["detail"]
    assert replayed.headers["Content-Language"] == "de" and replayed.headers["Vary"] == "Accept-Language"
    assert replayed.headers["Idempotent-Replayed"] == "true"


# -- anonymous keys: scoped to the create they protect, not to the client's address ----------


def test_an_anonymous_retry_from_another_address_finds_its_game(app, client):
    """A phone that changes network (or a NAT that rebinds) retries from another address."""
    first = client.post("/v1/games", json={"draw": 1}, headers=KEY, environ_base={"REMOTE_ADDR": "10.0.0.1"})
    again = client.post("/v1/games", json={"draw": 1}, headers=KEY, environ_base={"REMOTE_ADDR": "10.0.0.2"})
    _same_answer(first, again)
    assert _count(app, "games") == 1


def test_two_players_behind_one_nat_never_share_a_create(app, client):
    nat = {"REMOTE_ADDR": "192.0.2.7"}
    keys = ["0b6f7c1e-5d0a-4c55-9e0f-2b1d6f0a9c11", "7d2e9a40-1c3b-4f8e-a6d5-0e9b8c7a6f52"]
    games = [client.post("/v1/games", json={"draw": 1}, headers={"Idempotency-Key": key}, environ_base=nat)
             for key in keys]
    assert [game.status_code for game in games] == [201, 201]
    assert games[0].get_json()["token"] != games[1].get_json()["token"]
    # A key two clients could both pick (a counter) would let one receive the other's token:
    # without a bearer token it is refused, and nothing is dealt.
    for weak in ("1", "create-1", "x" * 15):
        refused = client.post("/v1/games", json={"draw": 1}, headers={"Idempotency-Key": weak}, environ_base=nat)
        body = problem(refused, 400, "INVALID_REQUEST")
        assert list(body["errors"]) == ["Idempotency-Key"]
        refused = client.post("/v1/players", json={"name": "Ann"}, headers={"Idempotency-Key": weak})
        problem(refused, 400, "INVALID_REQUEST")
    assert _count(app, "games") == 2

"""The solver's own low limit: hints and winnable deals, per address and per token (429 SOLVER_RATE_LIMITED)."""

from __future__ import annotations

import pytest

from service import create_app
from service.extensions import db
from tests.api.helpers import problem


@pytest.fixture
def limited(database_url):
    app = create_app({"DATABASE_URL": database_url, "TESTING": True, "RATELIMIT_ENABLED": True,
                      "RATELIMIT_STORAGE_URI": "memory://", "RATELIMIT_DEFAULT": "1000 per minute",
                      "RATELIMIT_WRITE": "1000 per minute", "SOLVER_RATELIMIT": "2 per minute",
                      "SOLVER_HINT_BUDGET_MS": 20})
    yield app.test_client()
    with app.app_context():
        db.engine.dispose()


def _from(address: str) -> dict:
    return {"environ_base": {"REMOTE_ADDR": address}}


def _game(client, address: str, **body):
    response = client.post("/v1/games", json={"code": "TF1-D1N-AAAAAAC", **body}, **_from(address))
    assert response.status_code == 201, response.get_json()
    game = response.get_json()
    return game, {"Authorization": f"Bearer {game['token']}"}


def _solver_limited(response) -> None:
    body = problem(response, 429, "SOLVER_RATE_LIMITED")
    assert 1 <= body["params"]["retry_after"] <= 61
    assert response.headers["Retry-After"] == str(body["params"]["retry_after"])


def test_hints_are_limited_per_address(limited):
    first, auth = _game(limited, "10.1.0.1")
    second, other = _game(limited, "10.1.0.1")
    for game, headers in ((first, auth), (second, other)):
        assert limited.get(f"/v1/games/{game['id']}/hint", headers=headers, **_from("10.1.0.1")).status_code == 200
    # a third hint from that address, with yet another token: over the address's limit
    _solver_limited(limited.get(f"/v1/games/{first['id']}/hint", headers=other, **_from("10.1.0.1")))
    assert limited.get(f"/v1/games/{first['id']}", **_from("10.1.0.1")).get_json()["hints"] == 1
    # other requests of that address are not solver requests
    assert limited.get(f"/v1/games/{first['id']}/legal-moves", **_from("10.1.0.1")).status_code == 200
    assert limited.post(f"/v1/games/{first['id']}/draw", headers=auth, **_from("10.1.0.1")).status_code == 200


def test_hints_are_limited_per_token_across_addresses(limited):
    game, auth = _game(limited, "10.2.0.1")
    for address in ("10.2.0.2", "10.2.0.3"):
        assert limited.get(f"/v1/games/{game['id']}/hint", headers=auth, **_from(address)).status_code == 200
    _solver_limited(limited.get(f"/v1/games/{game['id']}/hint", headers=auth, **_from("10.2.0.4")))


def test_winnable_deals_share_the_solver_limit_and_plain_deals_do_not(limited):
    game, auth = _game(limited, "10.3.0.1")
    assert limited.get(f"/v1/games/{game['id']}/hint", headers=auth, **_from("10.3.0.1")).status_code == 200
    winnable = limited.post("/v1/games", json={"winnable": True}, **_from("10.3.0.1"))
    assert winnable.status_code == 201, winnable.get_json()
    _solver_limited(limited.post("/v1/games", json={"winnable": True}, **_from("10.3.0.1")))
    for _ in range(3):
        assert limited.post("/v1/games", json={}, **_from("10.3.0.1")).status_code == 201
    assert limited.post("/v1/games", json={"winnable": True}, **_from("10.3.0.9")).status_code == 201

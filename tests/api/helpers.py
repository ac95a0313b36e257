"""Small helpers for API tests: create games and players, act on games, read problems."""

from __future__ import annotations


def new_game(client, **body) -> tuple[dict, dict]:
    """Create an anonymous game; return its JSON and the owner's auth headers."""
    response = client.post("/v1/games", json=body)
    assert response.status_code == 201, response.get_json()
    game = response.get_json()
    return game, {"Authorization": f"Bearer {game['token']}"}


def new_player(client, name: str = "Ada") -> tuple[dict, dict]:
    """Register a player; return its JSON (with the token) and its auth headers."""
    response = client.post("/v1/players", json={"name": name})
    assert response.status_code == 201, response.get_json()
    player = response.get_json()
    return player, {"Authorization": f"Bearer {player['token']}"}


def act(client, game: dict, headers: dict, action: str, body: dict | None = None, **extra_headers):
    return client.post(f"/v1/games/{game['id']}/{action}", json=body, headers={**headers, **extra_headers})


def problem(response, status: int, code: str) -> dict:
    """Assert ``response`` is a problem+json with this status and code; return its body."""
    assert response.status_code == status, (response.status_code, response.get_data(as_text=True))
    assert response.mimetype == "application/problem+json"
    body = response.get_json()
    assert body["code"] == code, body
    assert body["status"] == status
    assert {"type", "title", "detail", "params"} <= body.keys()
    return body

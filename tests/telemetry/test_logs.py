"""Log lines: one JSON line per request with its fields (LOG_FORMAT=json); readable text by default; no secret."""

from __future__ import annotations

import io
import logging

from service.api.auth import CREDENTIAL_PARAMS
from service.telemetry import logformat

from .conftest import json_logged_app

REQUEST_FIELDS = {"time", "level", "logger", "message", "request_id", "operation", "method", "route", "status",
                  "duration_ms", "db_ms", "solver_ms", "client"}


def test_one_json_line_per_request_with_its_fields(logged):
    client, lines = logged
    created = client.post("/v1/games", json={"code": "TF1-D1N-AAAAAAA"})
    game, token = created.get_json()["id"], created.get_json()["token"]
    moved = client.post(f"/v1/games/{game}/draw", json={}, headers={"Authorization": f"Bearer {token}",
                                                                      "X-Request-ID": "draw-request-1"})
    assert moved.status_code == 200
    hint = client.get(f"/v1/games/{game}/hint", headers={"Authorization": f"Bearer {token}"})
    assert hint.status_code == 200
    create, draw, hinted = lines.requests()
    assert set(draw) == REQUEST_FIELDS
    assert draw["request_id"] == "draw-request-1" and draw["operation"] == "drawCards"
    assert draw["route"] == "/v1/games/<game_id>/draw" and draw["method"] == "POST" and draw["status"] == 200
    assert draw["client"] == "127.0.0.1" and draw["level"] == "info" and draw["time"].endswith("Z")
    assert draw["db_ms"] > 0 and draw["duration_ms"] >= draw["db_ms"] and draw["solver_ms"] == 0
    assert hinted["operation"] == "getHint" and hinted["solver_ms"] > 0
    assert create["operation"] == "createGame" and create["status"] == 201
    assert len(lines.text().splitlines()) == len(lines.lines())  # nothing else, nothing over two lines


def test_the_client_address_is_the_one_the_proxy_saw(database_url, make_app):
    app, lines = json_logged_app(make_app, database_url, PROXY_HOPS=1)
    app.test_client().get("/v1/rules", headers={"X-Forwarded-For": "203.0.113.9"})
    assert lines.requests()[0]["client"] == "203.0.113.9"


def test_the_text_format_is_readable_and_carries_the_request_id():
    stream = io.StringIO()
    logformat.configure("text", "INFO", stream)
    from service.telemetry import request_ids

    request_ids.begin("readable-0001")
    try:
        logging.getLogger("service.api.problems").warning("something %s", "odd")
    finally:
        request_ids.end()
    line = stream.getvalue().strip()
    assert line.endswith("WARNING [readable-0001] service.api.problems: something odd")


TOKEN = "tok_SECRET_7d1c0c5e9f2a4b8e"


def test_no_token_reaches_a_log_line(database_url, make_app, monkeypatch):
    """A token in every place a client can put one; requests that succeed, fail, and crash."""
    app, lines = json_logged_app(make_app, database_url, PROXY_HOPS=1)
    client = app.test_client()
    created = client.post("/v1/games", json={"code": "TF1-D1N-AAAAAAA"})
    game, real_token = created.get_json()["id"], created.get_json()["token"]
    everywhere = {"Authorization": f"Bearer {TOKEN}", "Cookie": f"token={TOKEN}; session={TOKEN}",
                  "X-Api-Key": TOKEN, "Referer": f"https://example.org/?token={TOKEN}", "User-Agent": TOKEN,
                  "Idempotency-Key": TOKEN, "If-Match": f'"{TOKEN}"', "X-Forwarded-For": f"{TOKEN}, 10.0.0.1",
                  "Accept-Language": TOKEN, "Origin": f"https://{TOKEN}.example"}
    for name in sorted(CREDENTIAL_PARAMS):
        client.get(f"/v1/games/{game}?{name}={TOKEN}", headers=everywhere)
        client.post(f"/v1/games/{game}/draw?{name}={TOKEN}", json={}, headers=everywhere)
    client.get(f"/v1/games/{TOKEN}", headers=everywhere)
    client.get(f"/{TOKEN}", headers=everywhere)
    client.post(f"/v1/games/{game}/moves", json={"from": TOKEN, "to": "foundation", "token": TOKEN},
                headers=everywhere)
    client.post(f"/v1/games/{game}/draw", data=f"token={TOKEN}", headers=everywhere,
                content_type="application/x-www-form-urlencoded")
    client.post("/v1/players", json={"name": TOKEN}, headers=everywhere)
    client.post(f"/v1/games/{game}/draw", json={}, headers={"Authorization": f"Bearer {real_token}x"})
    # an unexpected failure logs its traceback: still without the request's values
    from service.api import games as game_views

    def broken(*args, **kwargs):
        raise RuntimeError("a bug")

    monkeypatch.setattr(game_views.usecases, "legal_actions", broken)
    crashed = client.get(f"/v1/games/{game}/legal-moves?token={TOKEN}", headers=everywhere)
    crashed = client.get(f"/v1/games/{game}/legal-moves", headers=everywhere)
    assert crashed.status_code == 500
    text = lines.text()
    assert len(lines.requests()) >= 2 * len(CREDENTIAL_PARAMS) + 7 and "Traceback" in text
    assert TOKEN not in text and TOKEN.lower() not in text.lower()
    assert real_token not in text

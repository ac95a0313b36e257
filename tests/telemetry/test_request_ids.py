"""One request id a request: the client's valid one or a new one, on every answer, problem and log line."""

from __future__ import annotations

import re

import pytest

from service.telemetry import request_ids

NEW_ID = re.compile(r"^[0-9a-f]{32}$")


@pytest.mark.parametrize("sent", ["0123456789abcdef0123456789abcdef", "client-1:retry.2", "A" * 64])
def test_a_valid_request_id_is_kept(client, sent):
    answer = client.get("/v1/rules/NOT_A_CODE", headers={"X-Request-ID": sent})
    assert answer.status_code == 404
    assert answer.headers["X-Request-ID"] == sent == answer.get_json()["request_id"]


@pytest.mark.parametrize("sent", ["short", "A" * 65, "has space in it", "-leading-dash", "ünïcödé-id", "a/b/c/d/e/f",
                                  "x" * 10 + "\u2028"])
def test_an_invalid_request_id_is_replaced_by_a_new_one(client, sent):
    answer = client.get("/v1/rules/NOT_A_CODE", headers={"X-Request-ID": sent})
    assert NEW_ID.match(answer.headers["X-Request-ID"])
    assert answer.get_json()["request_id"] == answer.headers["X-Request-ID"]


def test_every_answer_carries_one_and_each_request_its_own(client):
    answers = [client.get("/healthz"), client.get("/v1/rules"), client.get("/nowhere"),
               client.delete("/v1/rules"), client.post("/v1/games", data="x" * 100_000,
                                                        content_type="application/json"),
               client.post("/v1/games", data="{", content_type="application/json"),
               client.post("/v1/games", json={"draw": 3}), client.get("/")]
    ids = [answer.headers.get("X-Request-ID") for answer in answers]
    assert all(NEW_ID.match(found or "") for found in ids), ids
    assert len(set(ids)) == len(ids)
    for answer in answers:
        if answer.mimetype == "application/problem+json":
            assert answer.get_json()["request_id"] == answer.headers["X-Request-ID"]
        answer.close()


def test_every_problem_document_declares_the_member():
    from service.api.problem_schemas import problem_components
    from service.problem_codes import PARAMS

    components = problem_components()
    for code in PARAMS:
        schema = components[f"{''.join(p.capitalize() for p in re.split('[_-]', code))}Problem"]
        assert "request_id" in schema["required"] and schema["properties"]["request_id"]["pattern"] == \
            request_ids.PATTERN


def test_nginx_checks_the_same_pattern_as_the_app():
    from pathlib import Path

    template = (Path(__file__).resolve().parents[2] / "deploy" / "nginx.conf.template").read_text()
    assert f'"~{request_ids.PATTERN}" $http_x_request_id;' in template


def test_gunicorns_own_refusals_carry_one():
    import json
    from types import SimpleNamespace

    from service.serving import problem_answer

    head, body = problem_answer(SimpleNamespace(limit_request_line=8190), 414).split(b"\r\n\r\n", 1)
    sent = re.search(rb"X-Request-ID: ([0-9a-f]{32})$", head).group(1).decode()
    assert json.loads(body)["request_id"] == sent


def test_every_log_line_of_a_request_carries_its_id(logged, monkeypatch):
    client, lines = logged
    from service.api import games as game_views

    def broken(*args, **kwargs):
        raise RuntimeError("a bug")

    monkeypatch.setattr(game_views.usecases, "legal_actions", broken)
    created = client.post("/v1/games", json={"code": "TF1-D1N-AAAAAAA"}, headers={"X-Request-ID": "create-0001"})
    game = created.get_json()["id"]
    failed = client.get(f"/v1/games/{game}/legal-moves", headers={"X-Request-ID": "crash-000001"})
    assert failed.status_code == 500 and failed.get_json()["request_id"] == "crash-000001"
    by_id = {}
    for line in lines.lines():
        by_id.setdefault(line["request_id"], []).append(line)
    assert [line["status"] for line in by_id["create-0001"]] == [201]
    crash = by_id["crash-000001"]
    assert [line["logger"] for line in crash] == ["service.api.problems", "service.requests"]
    assert "RuntimeError: a bug" in crash[0]["traceback"] and crash[0]["level"] == "error"
    assert crash[1]["status"] == 500 and crash[1]["level"] == "error"

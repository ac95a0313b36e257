"""The conformance check itself: it passes a declared answer and names each undeclared part."""

from __future__ import annotations

import json

from tests.contract.conformance import violations

GAME = {"id": "abc", "code": "TF1-D1N-AAAAAAB", "draw": 1, "status": "playing", "score": 0, "moves": 0,
        "undos": 0, "version": 0, "hints": 0, "tableau": [["7H"], [], [], [], [], [], []],
        "foundations": {"S": 0, "H": 0, "D": 0, "C": 0}, "stock": 24, "waste": [], "waste_fan": 0,
        "can_undo": False, "created_at": "2026-11-30T12:00:00.000Z", "finished_at": None, "seconds": None,
        "player": None, "winnable": None, "timing": "server", "client": None}


def record(body, *, status=200, headers=(("Content-Type", "application/json"), ("ETag", '"0"')),
           method="GET", rule="/v1/games/<game_id>", mimetype="application/json"):
    return {"method": method, "path": "/v1/games/abc", "rule": rule, "status": status, "headers": list(headers),
            "mimetype": mimetype, "body": json.dumps(body).encode()}


def test_a_declared_answer_passes():
    assert violations([record(GAME)]) == []


def test_an_undeclared_field_status_header_or_type_is_named():
    assert any("unevaluated" in v.lower() or "unexpected" in v.lower()
               for v in violations([record({**GAME, "secret_stock": ["AS"]})]))
    assert any("status 418" in v for v in violations([record(GAME, status=418)]))
    assert any("X-Debug" in v for v in violations([record(GAME, headers=[("X-Debug", "1")])]))
    assert any("ETag" in v for v in violations([record(GAME, headers=[("ETag", "0")])]))
    assert violations([record({**GAME, "tableau": [["XX"]] * 7})])
    assert violations([record(GAME, method="DELETE", status=200)])


def test_a_problem_must_match_its_code_and_status():
    problem = {"type": "/v1/rules/GAME_NOT_FOUND", "title": "Game not found", "status": 404, "detail": "…",
               "code": "GAME_NOT_FOUND", "params": {"game": "abc"}, "instance": "/v1/games/abc",
               "request_id": "0123456789abcdef0123456789abcdef"}
    headers = [("Content-Type", "application/problem+json"), ("Content-Language", "en"), ("Vary", "Accept-Language")]
    assert violations([record(problem, status=404, headers=headers, mimetype="application/problem+json")]) == []
    wrong = {**problem, "params": {"game": 3}}
    assert violations([record(wrong, status=404, headers=headers, mimetype="application/problem+json")])
    assert violations([record(problem, status=404, headers=headers)])  # as application/json

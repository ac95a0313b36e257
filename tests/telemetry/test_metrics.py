"""The metrics a request, an action, a game, a limit and a replay leave behind (in-process registry)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from prometheus_client.parser import text_string_to_metric_families

from service.telemetry import metrics
from tests.api.gameplay import WINNABLE_CODE, winning_line


def samples() -> dict[tuple, float]:
    """Every sample of the service's registry: (name, sorted labels) → value."""
    return {(sample.name, tuple(sorted(sample.labels.items()))): sample.value
            for family in metrics.REGISTRY.collect() for sample in family.samples}


def value(found: dict, name: str, **labels) -> float:
    return found.get((name, tuple(sorted(labels.items()))), 0.0)


def test_a_move_counts_in_requests_durations_and_actions(client):
    created = client.post("/v1/games", json={"code": "TF1-D1N-AAAAAAA"})
    game, auth = created.get_json()["id"], {"Authorization": f"Bearer {created.get_json()['token']}"}
    before = samples()
    assert client.post(f"/v1/games/{game}/draw", json={}, headers=auth).status_code == 200
    rejected = client.post(f"/v1/games/{game}/moves", json={"from": "t1", "to": "t2"}, headers=auth)
    assert rejected.status_code == 422
    code = rejected.get_json()["code"]
    key = {**auth, "Idempotency-Key": "again"}
    client.post(f"/v1/games/{game}/draw", json={}, headers=key)
    client.post(f"/v1/games/{game}/draw", json={}, headers=key)
    after = samples()

    def grew(name, **labels):
        return value(after, name, **labels) - value(before, name, **labels)

    assert grew("solitaire_http_requests_total", operation="drawCards", method="POST", status="200") == 3
    assert grew("solitaire_http_requests_total", operation="moveCards", method="POST", status="422") == 1
    assert grew("solitaire_http_request_duration_seconds_count", operation="drawCards") == 3
    assert grew("solitaire_actions_total", kind="draw", outcome="applied") == 2  # the replay plays nothing
    assert grew("solitaire_actions_total", kind="move", outcome="rejected") == 1
    assert grew("solitaire_rule_rejections_total", code=code) == 1
    assert grew("solitaire_idempotent_replays_total") == 1


def test_games_created_by_draw_and_choice(client):
    before = samples()
    client.post("/v1/games", json={"code": "TF1-D3N-AAAAAAA"})
    client.post("/v1/games", json={"draw": 1})
    client.post("/v1/games", json={})
    after = samples()
    for labels, count in (({"draw": "3", "chosen": "given"}, 1), ({"draw": "1", "chosen": "random"}, 2)):
        assert value(after, "solitaire_games_created_total", **labels) - \
            value(before, "solitaire_games_created_total", **labels) == count


def test_limit_refusals_by_scope(database_url, make_app):
    app = make_app({"DATABASE_URL": database_url, "TESTING": True, "RATELIMIT_DEFAULT": "3 per minute",
                      "RATELIMIT_KEY_PREFIX": "metrics-test"})
    client = app.test_client()
    before = value(samples(), "solitaire_limit_refusals_total", scope="address")
    statuses = [client.get("/v1/rules").status_code for _ in range(5)]
    assert statuses.count(429) == 2
    assert value(samples(), "solitaire_limit_refusals_total", scope="address") - before == 2


def test_the_exposition_has_one_prefix_and_the_build_info(client):
    client.get("/v1/rules")
    answer = client.get("/metrics")
    assert answer.status_code == 200 and answer.mimetype == "text/plain"
    families = list(text_string_to_metric_families(answer.get_data(as_text=True)))
    assert families and all(family.name.startswith(metrics.PREFIX) for family in families)
    info = [sample for family in families for sample in family.samples if sample.name == "solitaire_build_info"]
    assert info and info[0].labels["rules_version"] == "1" and info[0].value == 1


def test_metrics_are_not_served_through_a_proxy(client):
    answer = client.get("/metrics", headers={"X-Forwarded-For": "203.0.113.9"})
    assert answer.status_code == 404 and answer.get_json()["code"] == "NOT_FOUND"


@pytest.mark.parametrize("label_values", [("7", metrics.DRAWS, "other"), ("1", metrics.DRAWS, "1"),
                                          ("BREW", metrics.METHODS, "other")])
def test_a_label_outside_its_set_is_other(label_values):
    sent, allowed, expected = label_values
    assert metrics.closed(sent, allowed) == expected


def test_batches_and_games_born_offline_count_their_actions_and_wins(client):
    # The play page sends every action in batches: they count as the single actions do.
    line = [str(action) for action in winning_line()]
    created = client.post("/v1/games", json={"code": WINNABLE_CODE}).get_json()
    auth = {"Authorization": f"Bearer {created['token']}"}
    path = f"/v1/games/{created['id']}/actions"
    before = samples()
    assert client.post(path, json={"actions": ["draw", "draw", "undo"]},
                       headers={**auth, "If-Match": '"0"'}).status_code == 200
    refused = client.post(path, json={"actions": ["draw", "recycle"]}, headers={**auth, "If-Match": '"3"'})
    assert refused.status_code == 422 and refused.get_json()["code"] == "STOCK_NOT_EMPTY"
    won = client.post("/v1/games", json={"code": WINNABLE_CODE, "actions": line, "client": {
        "started_at": (datetime.now(UTC) - timedelta(minutes=10)).isoformat(), "seconds": 60}})
    assert won.status_code == 201 and won.get_json()["status"] == "won"
    served = client.post("/v1/games", json={"code": WINNABLE_CODE}).get_json()
    played = client.post(f"/v1/games/{served['id']}/actions", json={"actions": line},
                         headers={"Authorization": f"Bearer {served['token']}", "If-Match": '"0"'})
    assert played.status_code == 200 and played.get_json()["status"] == "won"
    after = samples()

    def grew(name, **labels):
        return value(after, name, **labels) - value(before, name, **labels)

    assert grew("solitaire_actions_total", kind="draw", outcome="applied") == 2 + 2 * line.count("draw")
    assert grew("solitaire_actions_total", kind="undo", outcome="applied") == 1
    assert grew("solitaire_actions_total", kind="recycle", outcome="rejected") == 1
    assert grew("solitaire_rule_rejections_total", code="STOCK_NOT_EMPTY") == 1
    assert grew("solitaire_games_finished_total", draw="1", result="won") == 2

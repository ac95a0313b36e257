"""Through the stack: a move's request id in the answer, the problem body, the app's JSON log line and nginx's;
its count in the metrics of the instance that served it; /metrics 404 from outside; Prometheus scraping both."""

from __future__ import annotations

import json
import shutil
import time

import pytest
import requests

from harness import nginx
from tests.databases import missing
from tests.deploy.conftest import deployed_stack, stack_ports

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def running(tmp_path_factory):
    if not nginx.installed() or shutil.which("prometheus") is None:
        missing("nginx or prometheus is not installed")
    ports = stack_ports(4, (18100, 18199))
    with deployed_stack(tmp_path_factory, "observed", ports, prometheus_port=ports[3], threads=2) as settings:
        yield settings


def _served(settings, port: int, operation: str, status: str) -> float:
    text = requests.get(f"http://127.0.0.1:{port}/metrics", timeout=10).text
    for line in text.splitlines():
        if line.startswith("solitaire_http_requests_total{") and f'operation="{operation}"' in line \
                and f'status="{status}"' in line:
            return float(line.rsplit(" ", 1)[1])
    return 0.0


def test_a_move_is_seen_by_id_in_answer_problem_logs_and_metrics(running):
    base = f"http://127.0.0.1:{running.port}"
    created = requests.post(f"{base}/v1/games", json={"code": "TF1-D1N-AAAAAAA"}, timeout=30).json()
    auth = {"Authorization": f"Bearer {created['token']}"}
    before = [_served(running, port, "moveCards", "422") for port in running.app_ports]
    refused = requests.post(f"{base}/v1/games/{created['id']}/moves", json={"from": "t1", "to": "t2"},
                            headers=auth, timeout=30)
    assert refused.status_code == 422
    request_id = refused.headers["X-Request-ID"]
    assert len(request_id) == 32 and refused.json()["request_id"] == request_id
    after = [_served(running, port, "moveCards", "422") for port in running.app_ports]
    assert sorted(a - b for a, b in zip(after, before, strict=True)) == [0, 1]
    served_by = running.app_ports[[a - b for a, b in zip(after, before, strict=True)].index(1)]
    number = running.app_ports.index(served_by) + 1
    time.sleep(0.5)
    app_lines = [json.loads(line) for line in (running.run_dir / f"api-{number}-error.log").read_text().splitlines()
                 if line.startswith("{")]
    mine = [line for line in app_lines if line.get("request_id") == request_id]
    assert len(mine) == 1 and mine[0]["operation"] == "moveCards" and mine[0]["status"] == 422
    assert mine[0]["client"] == "127.0.0.1" and mine[0]["route"] == "/v1/games/<game_id>/moves"
    edge = [json.loads(line) for line in (running.run_dir / "nginx-access.log").read_text().splitlines()]
    assert [line["status"] for line in edge if line["request_id"] == request_id] == [422]


def test_a_clients_valid_request_id_goes_through_and_nginx_problems_carry_theirs(running):
    base = f"http://127.0.0.1:{running.port}"
    kept = requests.get(f"{base}/v1/games/nope", headers={"X-Request-ID": "support-ticket-42"}, timeout=10)
    assert kept.headers["X-Request-ID"] == "support-ticket-42" == kept.json()["request_id"]
    too_big = requests.post(f"{base}/v1/games", data="x" * (running.max_body + 10),
                            headers={"Content-Type": "application/json", "X-Request-ID": "bad id"}, timeout=10)
    assert too_big.status_code == 413 and too_big.json()["code"] == "PAYLOAD_TOO_LARGE"
    assert len(too_big.headers["X-Request-ID"]) == 32 and too_big.json()["request_id"] == too_big.headers[
        "X-Request-ID"]


def test_metrics_are_404_from_outside_and_scraped_by_prometheus(running):
    outside = requests.get(f"http://127.0.0.1:{running.port}/metrics", timeout=10)
    assert outside.status_code == 404 and outside.json()["code"] == "NOT_FOUND"
    assert outside.json()["request_id"] == outside.headers["X-Request-ID"]
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        result = requests.get(f"http://127.0.0.1:{running.prometheus_port}/api/v1/query",
                              params={"query": 'up{job="solitaire"}'}, timeout=10).json()["data"]["result"]
        if len(result) == 2 and all(item["value"][1] == "1" for item in result):
            break
        time.sleep(1)
    else:
        pytest.fail(f"Prometheus does not see both instances up: {result}")
    rules = requests.get(f"http://127.0.0.1:{running.prometheus_port}/api/v1/rules", timeout=10).json()
    names = {rule["name"] for group in rules["data"]["groups"] for rule in group["rules"]}
    assert "SolitaireInstanceDown" in names

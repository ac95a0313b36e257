"""/metrics under gunicorn: the workers' sum, a killed worker counted once, its gauges dropped, a restart empty.

gunicorn.conf.py makes and wipes PROMETHEUS_MULTIPROC_DIR in the master and marks a dead
worker in child_exit (prometheus_client's multiprocess mode).
"""

from __future__ import annotations

import http.client
import os
import time

import pytest
from prometheus_client.parser import text_string_to_metric_families

from harness.servers import AppServer, migrate

pytestmark = pytest.mark.slow


def _get(port: int, path: str) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("GET", path)
        answer = conn.getresponse()
        return answer.status, answer.read()
    finally:
        conn.close()


def _rules_served(port: int) -> float:
    status, body = _get(port, "/metrics")
    assert status == 200
    for family in text_string_to_metric_families(body.decode()):
        for sample in family.samples:
            if sample.name == "solitaire_http_requests_total" and sample.labels["operation"] == "listRules":
                return sample.value
    return 0.0


def test_counts_survive_a_worker_kill_without_double_counting(tmp_path):
    url = f"sqlite:///{tmp_path / 'metrics.db'}"
    migrate(url)
    metrics_dir = tmp_path / "metrics"
    metrics_dir.mkdir()
    (metrics_dir / "counter_99999.db").write_bytes(b"\0" * 16)  # a file of an earlier run: wiped at start
    server = AppServer({"DATABASE_URL": url, "WEB_WORKERS": "2", "WEB_THREADS": "2", "RATELIMIT_ENABLED": "0",
                        "PROMETHEUS_MULTIPROC_DIR": str(metrics_dir)}, log=tmp_path / "gunicorn.log")
    server.start(workers=2)
    try:
        assert not (metrics_dir / "counter_99999.db").exists()
        for _ in range(40):
            assert _get(server.port, "/v1/rules")[0] == 200
        assert _rules_served(server.port) == 40
        live_before = sorted(name for name in os.listdir(metrics_dir) if name.startswith("gauge_live"))
        killed = server.workers()[0]
        server.kill_worker()
        time.sleep(0.2)
        assert _rules_served(server.port) == 40  # the dead worker's counts once, not lost, not twice
        live_after = sorted(name for name in os.listdir(metrics_dir) if name.startswith("gauge_live"))
        assert not [name for name in live_after if name.endswith(f"_{killed}.db")], (live_before, live_after)
        for _ in range(10):
            _get(server.port, "/v1/rules")
        assert _rules_served(server.port) == 50
    finally:
        server.stop()
    # a restart (a new master) starts from nothing: no file of the last run is summed in
    with AppServer(dict(server.environment), port=server.port, log=tmp_path / "gunicorn.log"):
        assert _rules_served(server.port) == 0

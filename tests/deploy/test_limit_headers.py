"""Honest limit headers: X-RateLimit-Limit is the limit a client really gets, whatever the storage.

Under ``make serve`` (gunicorn, several workers, the default ``memory://``) the workers
count in one file (service/api/file_counters.py): the limit enforced over all workers and
the one announced are the configured one. Through the stack (Redis):
tests/deploy/test_stack_contract.py and tests/deploy/test_stack.py.
"""

from __future__ import annotations

import http.client

from harness.servers import AppServer, migrate
from service import create_app


def test_two_processes_on_one_counter_file_share_the_whole_limit(tmp_path, sqlite_template):
    settings = {"DATABASE_URL": f"sqlite:///{sqlite_template}", "TESTING": True, "RATELIMIT_ENABLED": True,
                "RATELIMIT_STORAGE_URI": f"solitaire-file://{tmp_path}/counters.db", "RATELIMIT_PROCESSES": 2,
                "RATELIMIT_DEFAULT": "10 per minute"}
    first, second = create_app(settings).test_client(), create_app(settings).test_client()
    answers = [(first if i % 2 else second).get("/v1/rules") for i in range(12)]
    assert [answer.status_code for answer in answers] == [200] * 10 + [429] * 2
    assert {answer.headers["X-RateLimit-Limit"] for answer in answers} == {"10"}
    assert [int(answer.headers["X-RateLimit-Remaining"]) for answer in answers[:10]] == list(range(9, -1, -1))


def _get(port: int, path: str) -> tuple[int, dict]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)  # a new connection: any worker
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        response.read()
        return response.status, {k.lower(): v for k, v in response.getheaders()}
    finally:
        conn.close()


def test_make_serve_announces_and_enforces_the_configured_limit_over_its_workers(tmp_path):
    url = f"sqlite:///{tmp_path / 'serve.db'}"
    migrate(url)
    environment = {"DATABASE_URL": url, "WEB_WORKERS": "3", "WEB_THREADS": "2", "RATELIMIT_DEFAULT": "30 per minute"}
    with AppServer(environment) as server:
        answers = [_get(server.port, "/v1/rules") for _ in range(34)]
        workers = len(server.workers())
    assert workers == 3
    statuses = [status for status, _ in answers]
    assert statuses == [200] * 30 + [429] * 4, statuses
    assert {headers["x-ratelimit-limit"] for _, headers in answers} == {"30"}, "each worker announced a share"
    assert [int(headers["x-ratelimit-remaining"]) for _, headers in answers[:30]] == list(range(29, -1, -1))

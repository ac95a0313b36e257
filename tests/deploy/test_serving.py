"""gunicorn, as ``make serve`` runs it, answers the requests it refuses itself in problem+json.

A request line over 8 KB, a header over 8 KB, too many headers or a malformed request
never reach the app: gunicorn answers them. These go to a real gunicorn started from
gunicorn.conf.py, over raw sockets (http.client would refuse to send some of them).
"""

from __future__ import annotations

import json
import time

import pytest

from harness.servers import AppServer
from service.serving import problem_answer
from tests.deploy.conftest import exchange


@pytest.fixture(scope="module")
def gunicorn(tmp_path_factory):
    directory = tmp_path_factory.mktemp("serving")
    log = directory / "gunicorn.log"
    with AppServer({"DATABASE_URL": f"sqlite:///{directory / 'serving.db'}", "WEB_WORKERS": "1", "WEB_THREADS": "2"},
                   log=log) as server:
        yield server.port, log


def _problem(body: bytes) -> dict:
    document = json.loads(body)
    # No instance (the contract's edge codes); INVALID_REQUEST names the request as a whole.
    errors = {"errors"} if document["code"] == "INVALID_REQUEST" else set()
    assert set(document) == {"type", "title", "status", "detail", "code", "params", "request_id"} | errors
    assert not errors or document["errors"] == {"_request": [document["detail"]]}
    assert document["type"] == f"/v1/rules/{document['code']}"
    return document


@pytest.mark.parametrize("raw, status, code, params", [
    (b"GET /v1/games/" + b"a" * 9000 + b" HTTP/1.1\r\nHost: t\r\n\r\n", 414, "URI_TOO_LONG", {"limit": 8190}),
    (b"GET /healthz HTTP/1.1\r\nHost: t\r\nX-Big: " + b"b" * 9000 + b"\r\n\r\n", 431, "HEADERS_TOO_LARGE",
     {"limit": 8190}),
    # Too many header fields: gunicorn's 431 too, but its limit is a count, not the bytes the code's message says.
    (b"GET /healthz HTTP/1.1\r\nHost: t\r\n" + b"".join(b"X-%d: 1\r\n" % n for n in range(4100)) + b"\r\n", 400,
     "INVALID_REQUEST", {}),
    (b"GET /healthz HTTP/9.9\r\nHost: t\r\n\r\n", 400, "INVALID_REQUEST", {}),
    (b"GET /healthz HTTP/1.1\r\nHost: t\r\nBad Name: 1\r\n\r\n", 400, "INVALID_REQUEST", {}),
    (b"G@T /healthz HTTP/1.1\r\nHost: t\r\n\r\n", 400, "INVALID_REQUEST", {}),
])
def test_a_request_gunicorn_refuses_is_answered_in_problem_json(gunicorn, raw, status, code, params):
    port, log = gunicorn
    got_status, headers, body = exchange(port, raw)
    assert got_status == status, body[:300]
    assert headers["content-type"] == "application/problem+json"
    assert headers["content-language"] == "en" and headers["cache-control"] == "no-store"
    assert int(headers["content-length"]) == len(body)
    document = _problem(body)
    assert (document["status"], document["code"], document["params"]) == (status, code, params)
    assert document["detail"] and "<html" not in body.decode()


def test_a_malformed_chunked_body_met_by_the_app_is_400(gunicorn):
    # gunicorn reads the chunks as the app reads the body: the app answers, not gunicorn.
    port, _ = gunicorn
    request = (b"POST /v1/games HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
               b"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\nzz\r\n{}\r\n0\r\n\r\n")
    status, headers, body = exchange(port, request)
    assert status == 400, body[:300]
    assert headers["content-type"] == "application/problem+json"
    assert json.loads(body)["code"] == "INVALID_REQUEST"


def test_gunicorn_still_logs_its_refusals_and_serves_the_next_request(gunicorn):
    port, log = gunicorn
    logged = len(log.read_text())
    assert exchange(port, b"GET /" + b"a" * 9000 + b" HTTP/1.1\r\nHost: t\r\n\r\n")[0] == 414
    assert exchange(port, b"GET /healthz HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")[0] == 200
    deadline = time.monotonic() + 5
    while "Invalid request from ip=127.0.0.1" not in log.read_text()[logged:]:  # this test's, not an earlier one
        assert time.monotonic() < deadline, log.read_text()[-2000:]
        time.sleep(0.05)


def test_each_refusal_gets_its_code_and_the_limit_of_the_settings():
    class Settings:
        limit_request_line = 100
        limit_request_field_size = 200

    def answer(status: int, mesg: str = "") -> tuple[int, dict]:
        head, _, body = problem_answer(Settings, status, mesg).partition(b"\r\n\r\n")
        document = _problem(body)
        assert int(head.split()[1]) == document["status"]
        return document["status"], document

    assert answer(414)[1]["params"] == {"limit": 100}
    status, document = answer(431, "Error parsing headers: 'limit request headers fields size'")
    assert (status, document["code"], document["params"]) == (431, "HEADERS_TOO_LARGE", {"limit": 200})
    for status, mesg in ((431, "Error parsing headers: 'limit request headers fields'"), (417, ""), (501, ""),
                         (403, "Request forbidden")):
        assert answer(status, mesg)[0] == 400 and answer(status, mesg)[1]["code"] == "INVALID_REQUEST"
    assert answer(500)[1]["code"] == "INTERNAL_ERROR"

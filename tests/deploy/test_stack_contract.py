"""The edge inside the contract: what nginx and gunicorn answer is what openapi.yaml declares.

* statically, for every operation of openapi.yaml: each status nginx answers itself
  (deploy/stack.py renders its documents from the code's tables) is declared, and the very
  document it sends, in every catalog language, validates against the declared schema;
* live, through a stack with its deployed rates: schemathesis with the checks of issue #40
  on every operation (a few examples each; ``python bench/edge_contract`` runs 25), and
  the answers a fuzzer meets first (a header over nginx's buffer, nginx's own 429) checked
  against the declared schema.
"""

from __future__ import annotations

import json

import pytest
import requests
import yaml

from harness import edge_contract
from harness.nginx import stack
from service.api.problem_schemas import EDGE_CODES
from tests.contract.conformance import _resolve, _validate
from tests.contract.tools import OPENAPI
from tests.deploy.conftest import deployed_stack, exchange, stack_ports

METHODS = ("get", "put", "post", "delete", "patch")


def _operations():
    spec = yaml.safe_load(OPENAPI.read_text(encoding="utf-8"))
    for path, item in spec["paths"].items():
        for method, operation in item.items():
            if method in METHODS:
                yield spec, path, method, operation


def _declared(spec: dict, operation: dict, status: int) -> dict | None:
    response = operation["responses"].get(str(status)) or operation["responses"].get(status)
    if response is None and status == 500:  # a bug, under every operation's default
        response = operation["responses"].get("default")
    if response is None:
        return None
    return _resolve(spec, response)["content"]["application/problem+json"]["schema"]


def test_every_code_the_edge_answers_is_an_edge_code_of_the_contract():
    documents = stack.problem_documents(stack.StackSettings())
    documents.pop("token_pattern")
    codes = {json.loads(by_lang["en"])["code"] for by_lang in documents.values()}
    assert codes <= EDGE_CODES, codes - EDGE_CODES


def test_every_operation_declares_what_nginx_answers_with_the_body_it_sends():
    documents = stack.problem_documents(stack.StackSettings())
    documents.pop("token_pattern")
    documents.pop(404)  # nginx's 404 hides /metrics, which is no operation of the contract
    problems = []
    for spec, path, method, operation in _operations():
        for name, by_lang in documents.items():
            for lang, text in by_lang.items():
                text = text.replace("${token_param}", "access_token")
                document = json.loads(text.replace("${edge_request_id}", "edge-3f9c2a7b41d0"))
                status = document["status"]
                if status == 429 and path in ("/healthz", "/readyz"):
                    continue  # the probes have no rate limit in nginx
                schema = _declared(spec, operation, status)
                where = f"{method.upper()} {path} {status} ({name}, {lang})"
                if schema is None:
                    problems.append(f"{where}: not declared")
                    continue
                problems += _validate(schema, document, where)
    assert not problems, "\n".join(problems[:20])


@pytest.fixture(scope="module")
def edge(tmp_path_factory):
    """A stack with nginx's deployed rates (its 429s answered at once: no tarpit to wait for)."""
    with deployed_stack(tmp_path_factory, "edge", stack_ports(3), refused_rate=0) as settings:
        yield settings


def test_schemathesis_through_the_stack_finds_no_failure(edge):
    failures, statuses = edge_contract.run(f"http://127.0.0.1:{edge.port}", examples=3)
    assert not failures, "\n\n".join(failures)
    assert statuses[200] and statuses[404], statuses


def test_a_long_header_and_nginx_rate_refusal_validate_against_the_contract(edge):
    spec = yaml.safe_load(OPENAPI.read_text(encoding="utf-8"))
    rules = spec["paths"]["/v1/rules"]["get"]
    status, _, body = exchange(edge.port, b"GET /v1/rules HTTP/1.1\r\nHost: s\r\nConnection: close\r\nAccept-Language: "
                        + b"d" * 5000 + b"\r\n\r\n")
    assert status == 431
    assert not _validate(_declared(spec, rules, 431), json.loads(body), "431")
    create = spec["paths"]["/v1/games"]["post"]
    answers = [requests.post(f"http://127.0.0.1:{edge.port}/v1/games", json={"draw": 1}, timeout=30)
               for _ in range(edge.create_burst + 3)]
    refused = [answer for answer in answers if answer.status_code == 429]
    assert refused and "instance" not in refused[0].json(), [answer.status_code for answer in answers]
    assert not _validate(_declared(spec, create, 429), refused[0].json(), "429")
    assert refused[0].headers["Retry-After"] == str(refused[0].json()["params"]["retry_after"])


def test_the_stack_announces_the_configured_limits_not_a_share(edge):
    from service.config import from_environment

    answers = [requests.get(f"http://127.0.0.1:{edge.port}/v1/rules", timeout=30) for _ in range(6)]
    limit = from_environment()["RATELIMIT_DEFAULT"].split()[0]
    assert {answer.headers["X-RateLimit-Limit"] for answer in answers} == {limit}
    remaining = [int(answer.headers["X-RateLimit-Remaining"]) for answer in answers]
    assert remaining == sorted(remaining, reverse=True) and len(set(remaining)) == 6, "one count over both apps"

"""Schemathesis through the stack: every operation of openapi.yaml sent to nginx, every answer checked.

What a fuzzer of the deployed API finds is what a client meets: nginx's own refusals
(431 for a header line over its buffer, its 429 before the app's, 413, 502/503/504)
answer the same requests as the app does, and must be inside the contract too.
:func:`run` drives every operation with ``examples`` generated cases (half of them on a
real game with its owner's token, as tests/api/test_schemathesis.py does) and returns the
failures, one line each. Used by tests/deploy/test_stack_contract.py (a few examples) and
``bench/edge_contract`` (the full run, 25 examples each).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import hypothesis
import requests
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from . import ROOT

SPEC = ROOT / "openapi.yaml"
#: The checks the issue names (#40): no 5xx but the documented ones, and every status,
#: content type, body and header as the contract says.
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance,
          response_headers_conformance]


def run(base_url: str, examples: int, spec: Path = SPEC, seed: int | None = None) -> tuple[list[str], Counter]:
    """Every operation, ``examples`` cases each; (the failures, the statuses answered)."""
    schema = schemathesis.openapi.from_path(str(spec))
    session = requests.Session()
    created = session.post(f"{base_url}/v1/games", json={"code": "TF1-D1N-AAAAAAG"}, timeout=30)
    created.raise_for_status()
    game = created.json()
    statuses: Counter = Counter()
    failures = []
    for result in schema.get_all_operations():
        operation = result.ok()
        try:
            _conforms(operation, base_url, session, game, examples, statuses, seed)()
        except (Exception, BaseExceptionGroup) as error:  # every operation's failures, not the first
            failures.append(f"{operation.label}: {error}")
    return failures, statuses


def _conforms(operation, base_url, session, game, examples, statuses, seed):
    @given(case=operation.as_strategy(), real_game=st.booleans(), owner=st.booleans())
    @settings(max_examples=examples, deadline=None, database=None, derandomize=seed is None,
              suppress_health_check=list(HealthCheck), phases=[hypothesis.Phase.generate])
    def check(case, real_game, owner):
        if real_game and "game_id" in (case.path_parameters or {}):
            case.path_parameters["game_id"] = game["id"]
        headers = {"Authorization": f"Bearer {game['token']}"} if owner else {}
        response = case.call(base_url=base_url, session=session, headers=headers, timeout=30)
        statuses[response.status_code] += 1
        case.validate_response(response, checks=CHECKS)

    if seed is not None:
        check = hypothesis.seed(seed)(check)
    return check

"""Schemathesis against the checked-in openapi.yaml: no 5xx, and every answer is what the spec says.

Runs on a live threaded live_server of the test app (SQLite and PostgreSQL). Generated
cases target, half of the time, a real game with its owner's token, so that the
action endpoints are exercised past 404/401.

``positive_data_acceptance`` is left out: a schema-valid request may rightly be
refused by a rule (422 TABLEAU_COLOUR, INVALID_GAME_CODE, a draw contradicting the
code), which is this API's job; every other answer must match the spec.
"""

from __future__ import annotations

from pathlib import Path

import hypothesis
import requests
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis.checks import positive_data_acceptance

SPEC = Path(__file__).resolve().parents[2] / "openapi.yaml"
MAX_EXAMPLES = 15

schema = schemathesis.openapi.from_path(str(SPEC))
OPERATIONS = [result.ok() for result in schema.get_all_operations()]


def test_every_operation_conforms(live_server):
    session = requests.Session()
    created = session.post(f"{live_server}/v1/games", json={"code": "TF1-D1N-AAAAAAG"}, timeout=30)
    created.raise_for_status()
    game = created.json()
    for _ in range(3):
        session.post(f"{live_server}/v1/games/{game['id']}/draw",
                     headers={"Authorization": f"Bearer {game['token']}"}, timeout=30).raise_for_status()
    failures = []
    for operation in OPERATIONS:
        try:
            conforms(operation, live_server, session, game)()
        except (Exception, BaseExceptionGroup) as error:  # collect every operation's failures
            failures.append(f"{operation.label}: {error}")
    assert not failures, "\n\n".join(failures)


def conforms(operation, live_server: str, session: requests.Session, game: dict):
    """A Hypothesis test of one operation: real game id and owner token half of the time."""

    @given(case=operation.as_strategy(), real_game=st.booleans(), owner=st.booleans())
    @settings(max_examples=MAX_EXAMPLES, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck), phases=[hypothesis.Phase.generate])
    def run(case, real_game, owner):
        if real_game and "game_id" in (case.path_parameters or {}):
            case.path_parameters["game_id"] = game["id"]
        headers = {"Authorization": f"Bearer {game['token']}"} if owner else {}
        case.call_and_validate(base_url=live_server, session=session, headers=headers,
                               excluded_checks=[positive_data_acceptance])

    return run

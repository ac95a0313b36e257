"""Schemathesis stateful testing: follow the OpenAPI links from a new game into playing it.

The links (service/api/links.py) lead from ``POST /v1/games`` 201 to reading the
game and to every action, with ``game_id`` from the answer's ``id`` and the
bearer token from its ``token``; from each action's 200 on to the next action.
Later actions on a game send its owner's token again: the state machine keeps
the tokens of the games it created. No 5xx, every answer as the spec says.
Bounded by a fixed number of examples, never by the clock: hypothesis checks that
the same draws lead to the same steps, so nothing here may depend on time or
chance (a wall-clock stop mid-run, a hint that ran out of time, or a random deal
on which an action is accepted once and refused on the replay, is reported as
FlakyStrategyDefinition). About 15 s per database.
"""

from __future__ import annotations

import hypothesis
import pytest
import requests
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import positive_data_acceptance
from schemathesis.generation.modes import GenerationMode
from schemathesis.specs.openapi.checks import ignored_auth

import service.engine.deal
import service.solver.deals
from service import create_app
from service.extensions import db
from tests.live import serving

MAX_EXAMPLES = 100


#: a deal the solver proves winnable in a few milliseconds in both draw modes
FIXED_DEAL = 3


@pytest.fixture
def stateful_app(database_url, monkeypatch):
    # Same draws, same steps: every "random" game is one fixed deal (with random deals, an
    # action accepted in one run is refused in the replay), hints stop on a node cap, not
    # on the clock, and no background thread fills the winnable pool meanwhile.
    monkeypatch.setattr(service.engine.deal, "random_deal", lambda: FIXED_DEAL)
    monkeypatch.setattr(service.solver.deals, "random_deal", lambda: FIXED_DEAL)
    app = create_app({"DATABASE_URL": database_url, "TESTING": True, "RATELIMIT_ENABLED": False,
                      "SOLVER_HINT_BUDGET_MS": 60_000, "SOLVER_HINT_MAX_NODES": 20_000,
                      "WINNABLE_DEAL_DEADLINE_MS": 60_000, "WINNABLE_POOL_REFILL": False})
    yield app
    with app.app_context():
        db.engine.dispose()


def test_links_reach_every_action(stateful_app):
    spec = stateful_app.extensions["problem_api"].spec.to_dict()
    links = spec["paths"]["/v1/games"]["post"]["responses"]["201"]["links"]
    assert {"GetGame", "PlayDraw", "PlayMoves", "PlayTap", "PlayUndo", "PlayRecycle", "PlayTakeBack"} <= set(links)
    assert links["PlayDraw"]["parameters"] == {"path.game_id": "$response.body#/id",
                                               "header.Authorization": "Bearer {$response.body#/token}"}
    draw = spec["paths"]["/v1/games/{game_id}/draw"]["post"]["responses"]["200"]["links"]
    assert "PlayMoves" in draw and "header.Authorization" not in draw["PlayMoves"]["parameters"]


def test_stateful_play_through_links(stateful_app):
    schema = schemathesis.openapi.from_dict(stateful_app.extensions["problem_api"].spec.to_dict())
    # Valid requests only: an invalid body with a stale If-Match is rightly 412 before 400
    # (the documented order), which the negative-data check does not expect.
    schema.config.generation.update(modes=[GenerationMode.POSITIVE])
    calls: dict[str, int] = {}

    with serving(stateful_app) as base_url:
        session = requests.Session()
        tokens: dict[str, str] = {}

        class Workflow(schema.as_state_machine()):
            def setup(self):
                # Each scenario starts with no solver answer cached: one cached by an earlier
                # scenario (a whole winning line is) would make the same draws lead elsewhere.
                stateful_app.extensions.pop("solver", None)
                super().setup()

            def before_call(self, case):
                # Later actions on a game send its owner's token again (a link from an action's
                # answer carries only the id). Set on the case, not per call, so that the
                # ignored-auth check can still swap it for a wrong one.
                game_id = (case.path_parameters or {}).get("game_id")
                if game_id in tokens and case.method == "POST":
                    case.headers = {**(case.headers or {}), "Authorization": f"Bearer {tokens[game_id]}"}
                super().before_call(case)

            def get_call_kwargs(self, case):
                return {"base_url": base_url, "session": session, "timeout": 30}

            def after_call(self, response, case):
                super().after_call(response, case)
                key = f"{case.method} {case.path} {response.status_code}"
                calls[key] = calls.get(key, 0) + 1
                if case.path == "/v1/games" and response.status_code == 201:
                    body = response.json()
                    if "token" in body:
                        tokens[body["id"]] = body["token"]

            def validate_response(self, response, case, additional_checks=None, **kwargs):
                assert response.status_code < 500, f"{case.method} {case.formatted_path}: {response.text[:500]}"
                # A schema-valid request may rightly be refused by a rule (422): that is the game.
                # ignored_auth takes a token that came through a link for a generated one and
                # expects it refused; tests/api and test_abuse.py check 401/403 directly.
                case.validate_response(response, additional_checks=additional_checks,
                                       excluded_checks=[positive_data_acceptance, ignored_auth],
                                       transport_kwargs=kwargs or None, recorder=self.recorder)

        Workflow.run(settings=settings(
            max_examples=MAX_EXAMPLES, stateful_step_count=10, deadline=None, database=None,
            derandomize=True, suppress_health_check=list(HealthCheck),
            phases=[hypothesis.Phase.generate],
        ))

    print("stateful calls:", dict(sorted(calls.items())))
    played = {key for key in calls if key.startswith("POST /v1/games/{game_id}/") and key.endswith(" 200")}
    assert calls.get("POST /v1/games 201"), calls
    assert played, f"no action was ever accepted through the links: {calls}"


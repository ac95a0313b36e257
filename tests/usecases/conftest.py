"""The use cases called as plain functions: an app context for the database, never a request."""

from __future__ import annotations

import pytest
from flask import has_request_context

from service.solver.cache import LocalCache
from service.solver.hints import SolverGate
from service.usecases.idempotency import Idempotency, StoredAnswer
from service.usecases.solving import Solving


@pytest.fixture
def context(app):
    """The app's context (its database), with no request anywhere."""
    with app.app_context():
        assert not has_request_context()
        yield app


@pytest.fixture
def solving() -> Solving:
    return Solving(gate=SolverGate(1, 0.25), cache=LocalCache(), hint_budget_ms=300, hint_max_nodes=200_000,
                   memory_bytes=64 << 20, winnable_deadline_s=2.0, pool_low=0)


def kept(key: str, body: str = "{}", endpoint: str = "/here") -> Idempotency:
    """An Idempotency whose answer is the outcome's repr: what the use case kept is visible in a replay."""
    return Idempotency(key, lambda: f"fingerprint of {body}",
                       lambda outcome: StoredAnswer(200, [], repr(outcome).encode()), endpoint=endpoint)

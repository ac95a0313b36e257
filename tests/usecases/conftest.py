"""The use cases called as plain functions: an app context for the database, never a request."""

from __future__ import annotations

import pytest
from flask import has_request_context

from service.solver.cache import LocalCache
from service.solver.hints import SolverGate
from service.usecases import games
from service.usecases.games import NewGame
from service.usecases.idempotency import Idempotency, StoredAnswer
from service.usecases.solving import Solving

FIRST_DEAL = "TF1-D1N-AAAAAAA"  # the README's first deal: t7 to its foundation is an ace


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


def new_game(solving: Solving, code: str = FIRST_DEAL) -> tuple[str, str]:
    """A game of ``code`` dealt to no player, as the use cases deal it: its id and its token."""
    dealt = games.deal(NewGame(code=code), player_token=None, solving=solving)
    return dealt.record.id, dealt.token

"""Random deals proven winnable (the pool behind ``{"winnable": true}``, :mod:`service.store.winnable_deals`)."""

from __future__ import annotations

import random
import time

from service.engine import Game, GameCode, random_deal
from service.engine.deal import DEAL_COUNT

from . import schedule, tuning
from .schedule import Solution


def winnable_deal(
    draw: int, *, deadline_s: float = 3.0, rng: random.Random | None = None, budget_ms: int = 500,
    memory_bytes: int | None = tuning.MEMORY_BYTES, clock=time.perf_counter,
) -> tuple[GameCode, Solution] | None:
    """A random deal of draw mode ``draw`` proven winnable, or None if ``deadline_s`` passes first.

    Each attempt gets at most ``budget_ms`` (and never more than what is left
    of the deadline) and ``memory_bytes`` of tables.  ``rng`` (a :class:`random.Random`) makes it deterministic;
    without it deal numbers come from the engine's cryptographic source.
    ``clock`` measures both (``time.thread_time``: this thread's CPU time).
    """
    end = clock() + deadline_s
    while True:
        left_ms = (end - clock()) * 1000.0
        if left_ms <= 0:
            return None
        deal = rng.randrange(DEAL_COUNT) if rng is not None else random_deal()
        code = GameCode(draw=draw, deal=deal)
        solution = schedule.solve(Game.from_code(code), budget_ms=int(min(budget_ms, left_ms)) or 1,
                         memory_bytes=memory_bytes, clock=clock)
        if solution.verdict == schedule.WINNABLE:
            return code, solution

"""The daily deal: the same proven-winnable deal for everyone, chosen from the UTC date alone."""

from __future__ import annotations

import hashlib
from datetime import date
from functools import lru_cache

from service.engine import Game, GameCode
from service.engine.deal import DEAL_COUNT

from .schedule import solve

#: The solver's budget per candidate, in positions: a node count, not wall time, so
#: every worker on every machine reaches the same verdicts and picks the same deal.
DAILY_MAX_NODES = 2000
DAILY_CANDIDATES = 64


def daily_candidate(day: date, draw: int, counter: int) -> GameCode:
    """The ``counter``-th candidate deal of a day: SHA-256 of ``daily:YYYY-MM-DD:dN:counter``."""
    digest = hashlib.sha256(f"daily:{day.isoformat()}:d{draw}:{counter}".encode()).digest()
    return GameCode(draw=draw, deal=int.from_bytes(digest[:8], "big") % DEAL_COUNT)


@lru_cache(maxsize=256)
def daily_deal(day: date, draw: int) -> tuple[GameCode, bool | None]:
    """The day's deal: the first candidate the solver proves winnable within its node budget.

    Computed once per (day, draw) and process. If no candidate is proven (never seen
    in practice), the first candidate, with ``winnable`` unknown (None).
    """
    for counter in range(DAILY_CANDIDATES):
        code = daily_candidate(day, draw, counter)
        # The wall-clock budget is far beyond what DAILY_MAX_NODES takes: only nodes decide.
        if solve(Game.from_code(code), budget_ms=3_600_000, max_nodes=DAILY_MAX_NODES).verdict == "winnable":
            return code, True
    return daily_candidate(day, draw, 0), None

"""The solver behind the use cases, on a budget: hints and proven-winnable deals.

A search can take a good fraction of a second of CPU, so:

* it never runs under a game's write lock (:func:`.games.hint` reads, searches, then
  counts the hint in a short transaction of its own);
* its budget is CPU time of the calling thread and positions, never wall time, so a
  loaded machine does not turn into longer searches;
* answers are cached by position (:mod:`service.solver.cache`);
* at most so many searches run at once per process (the :class:`SolverGate`); a
  request waits a moment for a slot, then gets 503 ``SOLVER_BUSY``;
* a winnable deal comes from the pool (:mod:`service.store.winnable_deals`), topped
  up in the background when it runs low; only an empty pool makes a request search.

The app builds one :class:`Solving` per process from its settings (``service.api.solving``).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass

from ..engine import GameCode
from ..solver import winnable_deal
from ..solver.hints import SolverBusy, SolverGate, cached_hint
from ..store import winnable_deals
from ..telemetry import metrics, spans, timing
from .errors import ServiceError


@contextlib.contextmanager
def _slot_or_503(purpose: str):
    """A search that found every slot taken is 503 ``SOLVER_BUSY`` (counted by ``purpose``)."""
    try:
        yield
    except SolverBusy:
        metrics.solver_busy(purpose)
        raise ServiceError("SOLVER_BUSY", retry_after=1) from None


@dataclass(frozen=True)
class Solving:
    """One process's solver: its search slots, its cache of answers, its budgets.

    ``refill(draw)`` starts topping up that draw mode's pool of winnable deals in the
    background (the app's thread; a no-op where refills are off).
    """

    gate: SolverGate
    cache: object  # service.solver.cache.LocalCache or RedisCache
    hint_budget_ms: int
    hint_max_nodes: int
    memory_bytes: int
    winnable_deadline_s: float
    pool_low: int
    refill: Callable[[int], object] = lambda draw: None

    def hint(self, state: dict) -> dict:
        """The hint for a stored game state (:func:`service.solver.hints.cached_hint`), within the budget."""
        with spans.span("solver.hint") as span, _slot_or_503("hint"), timing.solver_time() as measured:
            answer = cached_hint(state, cache=self.cache, gate=self.gate, budget_ms=self.hint_budget_ms,
                                 max_nodes=self.hint_max_nodes, memory_bytes=self.memory_bytes)
            if span is not None:  # a cached answer tells the nodes of the search that made it
                span.set_attributes({"solver.nodes": answer["nodes"], "solver.cached": bool(answer.get("cached")),
                                     "solver.verdict": answer["verdict"]})
        if not answer.get("cached"):
            metrics.solver_ran("hint", measured[0], answer.get("reason") if answer["verdict"] == "unknown" else None)
        return answer

    def winnable_code(self, draw: int) -> GameCode:
        """A deal the solver has proven winnable: from the pool, else searched now (503 when none is found in time)."""
        code = winnable_deals.take(draw)
        if winnable_deals.size(draw) < self.pool_low:
            self.refill(draw)
        if code is not None:
            return code
        with spans.span("solver.winnable_deal", **{"solver.draw": draw}) as span, \
                _slot_or_503("winnable_deal"), self.gate, timing.solver_time() as measured:
            found = winnable_deal(draw, deadline_s=self.winnable_deadline_s, memory_bytes=self.memory_bytes,
                                  clock=time.thread_time)
            if span is not None:  # the nodes of the proof that found it; none found: the deadline passed
                span.set_attributes({"solver.found": found is not None,
                                     "solver.nodes": found[1].nodes if found is not None else 0})
        metrics.solver_ran("winnable_deal", measured[0], "time" if found is None else None)
        if found is None:
            raise ServiceError("WINNABLE_DEAL_TIMEOUT", draw=draw)
        return found[0]

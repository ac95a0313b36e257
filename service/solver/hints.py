"""Hints on a budget: a bounded number of searches at once, answers cached by position.

:func:`cached_hint` answers from the cache when it can; otherwise it waits for a
slot of the :class:`SolverGate`, searches within the budget and caches the answer
— and, when the verdict is ``winnable``, the answer of every position along the
line found, so a player who follows the hints finds each next one cached.
"""

from __future__ import annotations

import threading
import time

from service.engine import Game

from . import hint
from .cache import position_key


class SolverBusy(Exception):
    """Every search slot stayed taken for the whole wait."""


class SolverGate:
    """At most ``slots`` searches at once in this process; the rest wait up to ``wait_s``, then :exc:`SolverBusy`."""

    def __init__(self, slots: int, wait_s: float) -> None:
        self._slots = threading.BoundedSemaphore(max(1, slots))
        self._wait_s = wait_s

    def __enter__(self) -> None:
        if not self._slots.acquire(timeout=self._wait_s):
            raise SolverBusy

    def __exit__(self, *exc) -> None:
        self._slots.release()


def cached_hint(state: dict, *, cache, gate: SolverGate, budget_ms: int, max_nodes: int,
                memory_bytes: int | None = None) -> dict:
    """The hint for a stored game state: cached by position, else searched within the budget and cached.

    The budget is CPU time of the calling thread (never wall time: a busy machine
    does not turn into longer searches), positions and the bytes of the search's
    tables (None: the solver's default). ``cached`` tells which.
    """
    tag = f"{budget_ms}:{max_nodes}:{memory_bytes}"
    key = position_key(state, tag)
    answer = cache.get(key)
    if answer is not None:
        return {**answer, "cached": True}
    with gate:
        answer = cache.get(key)  # computed while this request waited for the gate?
        if answer is not None:
            return {**answer, "cached": True}
        solution = hint(Game.from_state(state), budget_ms=budget_ms, max_nodes=max_nodes, clock=time.thread_time,
                        **({} if memory_bytes is None else {"memory_bytes": memory_bytes}))
    first = solution.line[0] if solution.line else solution.guess  # a guess only with "unknown"
    answer = _answer(solution.verdict, first, len(solution.line), solution.nodes, solution.ms, solution.reason)
    answers = {key: answer}
    if solution.verdict == "winnable":
        game = Game.from_state(state)
        for index, action in enumerate(solution.line[:-1]):
            game.apply(action)
            following = solution.line[index + 1]
            answers[position_key(game.to_state(), tag)] = _answer(
                "winnable", following, len(solution.line) - index - 1, solution.nodes, solution.ms)
    cache.put_many(answers)
    return {**answer, "cached": False}


def _answer(verdict: str, action, line_length: int, nodes: int, ms: float, reason: str | None = None) -> dict:
    return {
        "verdict": verdict,
        "reason": reason,
        "proven": verdict != "unknown",
        "action": action.to_json() if action else None,
        "notation": str(action) if action else None,
        "line_length": line_length,
        "nodes": nodes,
        "ms": round(ms, 1),
    }

"""Hints: the next action of a winning line, a best guess when none is proven, and hints on a budget.

* :func:`hint` — :func:`~service.solver.schedule.solve`'s answer; the hint is
  ``line[0]``. From a position that is already won the verdict is ``"winnable"``
  with an empty line (nothing is left to play). When the budget runs out the
  verdict stays ``"unknown"`` and ``guess`` holds the best first action a short
  greedy search found (:func:`best_guess`): not proven, but never no help at all.
* :func:`cached_hint` — for the server: answers from the cache when it can;
  otherwise it waits for a slot of the :class:`SolverGate`, searches within the
  budget and caches the answer — and, when the verdict is ``winnable``, the answer
  of every position along the line found, so a player who follows the hints finds
  each next one cached.
"""

from __future__ import annotations

import dataclasses
import heapq
import threading
import time

from service.engine import Action, Game, Rejection

from . import lines, schedule, tuning
from .cache import position_key
from .schedule import Solution
from .search import Searcher


def hint(
    game: Game, *, budget_ms: int = 1000, max_nodes: int | None = None, memory_bytes: int | None = tuning.MEMORY_BYTES,
    clock=time.perf_counter,
) -> Solution:
    """The same answer as :func:`solve`; the hint is ``line[0]`` when the verdict is winnable.

    An already won game gives ``"winnable"`` with an empty line: nothing to hint.
    ``"unknown"`` comes with ``guess``, :func:`best_guess`'s action.

    >>> solution = hint(Game.from_code("TF1-D1N-AAAAAAA"), budget_ms=1, max_nodes=10)
    >>> solution.verdict, solution.guess is not None
    ('unknown', True)
    """
    solution = schedule.solve(game, budget_ms=budget_ms, max_nodes=max_nodes, memory_bytes=memory_bytes, clock=clock)
    if solution.verdict != schedule.UNKNOWN:
        return solution
    return dataclasses.replace(solution, guess=best_guess(game))


def best_guess(game: Game, max_nodes: int = tuning.GUESS_NODES) -> Action | None:
    """The first action towards the best position a short greedy search meets, or None when none is legal.

    "Best" is the best-first search's own score (cards on the foundations, ordered
    columns, empty columns, a shorter talon); a safe play to a foundation comes
    first. Nothing is proven: it is what the search would try first.
    """
    if game.won:
        return None
    draw = game.code.draw
    searcher = Searcher.from_game(game, whole_groups=True)
    record: list = []
    root = searcher.autoplay(searcher.root, record)
    if record:
        return _checked(game, next(lines.actions(record[:1], draw)))
    visited: dict = {}
    searcher.visit(visited, searcher.key(root), searcher.phase(root))
    met: list = [(-1, [])]  # (index of the parent, the record of the move that led here)
    heap = [(0, 0, root, 0)]
    best, best_index, seq = float("-inf"), 0, 0
    while heap and len(met) <= max_nodes:
        _, _, parent, index = heapq.heappop(heap)
        for move in searcher.moves(parent):
            record = [(parent, move)]
            child = searcher.autoplay(searcher.apply(parent, move), record)
            if not searcher.visit(visited, searcher.key(child), searcher.phase(child)):
                continue
            met.append((index, record))
            score = float("inf") if sum(child[1]) == 52 else searcher.score(child)
            if score > best:
                best, best_index = score, len(met) - 1
            seq -= 1
            heapq.heappush(heap, (-score, seq, child, len(met) - 1))
    if best_index == 0:
        return None
    while met[best_index][0] != 0:
        best_index = met[best_index][0]
    return _checked(game, next(lines.actions(met[best_index][1], draw)))


def _checked(game: Game, action: Action) -> Action | None:
    try:
        game.check(action)
    except Rejection:  # pragma: no cover - the searcher's moves are legal engine actions
        return None
    return action




class SolverBusy(Exception):
    """Every search slot stayed taken for the whole wait."""


class SolverGate:
    """At most ``slots`` searches at once in this process; the rest wait up to ``wait_s``, then :exc:`SolverBusy`."""

    def __init__(self, slots: int, wait_s: float) -> None:
        self.slots = max(1, slots)
        self._slots = threading.BoundedSemaphore(self.slots)
        self._wait_s = wait_s

    def free(self) -> int:
        """Slots free now (a reading for /readyz, stale as soon as it is taken)."""
        return self._slots._value

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

"""The solver's schedule: several searches of one position share its budget until one decides.

:func:`solve` runs, side by side in slices of a few milliseconds, quick searches
that find the easy wins (their failures prove nothing) and complete ones whose
exhaustion proves the position lost (:mod:`service.solver.search`, in C when built:
:mod:`service.solver.fast`); the shares they get, and when they change, are
:mod:`service.solver.tuning`'s. A ``"winnable"`` line is replayed through the
engine before it is returned, so a wrong ``"winnable"`` is impossible.

>>> from service.engine import Game
>>> solve(Game.from_code("TF1-D1N-AAAAAAC"), budget_ms=5000).verdict
'winnable'
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from service.engine import Action, Game

from . import fast, lines, tuning
from .search import NODES, TIME, Budget, Searcher

#: the depth-first searches in use: "c" (compiled core, see service.solver.fast) or "python";
#: set it to "python" to run the pure Python reference
BACKEND = fast.BACKEND

WINNABLE, UNWINNABLE, UNKNOWN = "winnable", "unwinnable", "unknown"


@dataclass(frozen=True, slots=True)
class Solution:
    """The solver's answer: verdict, winning line (engine actions), nodes searched, time.

    ``guess``: for an ``"unknown"`` hint, the best first action found without a proof (or none).
    ``reason``: for ``"unknown"``, the budget that ran out — ``"time"``, ``"nodes"`` or
    ``"memory"`` (the complete search's tables reached their bytes); None otherwise.
    ``table_bytes``: the most bytes the searches' tables held at once.
    """

    verdict: str
    line: tuple[Action, ...] = ()
    nodes: int = 0
    ms: float = 0.0
    guess: Action | None = None
    reason: str | None = None
    table_bytes: int = 0

    def to_json(self) -> dict:
        return {
            "verdict": self.verdict,
            "reason": self.reason,
            "line": [str(action) for action in self.line],
            "nodes": self.nodes,
            "ms": round(self.ms, 3),
            "table_bytes": self.table_bytes,
        }


def solve(
    game: Game, *, budget_ms: int = 1000, max_nodes: int | None = None, memory_bytes: int | None = tuning.MEMORY_BYTES,
    clock=time.perf_counter,
) -> Solution:
    """Decide whether ``game`` can still be won from its current position.

    ``budget_ms`` bounds the wall time of the search, ``max_nodes`` the number
    of positions it expands, ``memory_bytes`` the bytes its tables
    hold (all its searches together; None: unbounded); when one runs out the verdict is
    ``"unknown"`` and ``reason`` says which.  ``game`` is not modified.
    ``clock`` measures the budget and ``Solution.ms``: wall time by default;
    ``time.process_time`` counts only this process's CPU time (benchmarks on a
    shared machine).
    """
    start = clock()
    if game.won:
        return Solution(WINNABLE, (), 0, _ms(start, clock))
    draw = game.code.draw
    deadline = start + budget_ms / 1000.0
    # The searches share the time, each getting its weight's share of the CPU
    # time spent so far (they advance in slices of a few milliseconds; after
    # tuning.QUICK_PHASE_S the complete searches get most of it, in draw 3 the draw-1
    # one the most, and the best-first search stops):
    # * a streamlined depth-first search (unsafe restrictions, see Searcher),
    #   which finds the easy wins at once, restarted with the moves shuffled and
    #   ever longer runs (_Restarts) so that an early bad choice does not doom it;
    # * a streamlined greedy best-first search, which recovers at once from the bad
    #   early choices that doom a depth-first search;
    # * the complete depth-first search with only safe pruning: it alone may say
    #   "unwinnable", and it finds wins too;
    # * in draw 3, the complete search of the same position played in draw 1: its
    #   "unwinnable" is the draw-3 verdict too (its wins prove nothing here);
    # * in draw 3, the quick depth-first search in draw 1: a draw-1 win from either
    #   draw-1 search stops both, as the proof can no longer come.
    # A win from any of them is as good as any other (every line is replayed); the
    # streamlined ones' failures prove nothing, they just stop.
    search_class = fast.CSearcher if BACKEND == "c" else Searcher

    def memory_share(fraction: float) -> int | None:
        return None if memory_bytes is None else max(1, int(memory_bytes * fraction))

    def searcher(search_draw: int, share: float, run_nodes: int | None = None, **options):
        return search_class.from_game(game, search_draw, max_nodes=max_nodes if run_nodes is None else run_nodes,
                                      max_bytes=memory_share(share), **options)

    draw_one_proof = draw != 1 and tuning.DRAW_ONE_WEIGHT > 0
    draw_one_share = tuning.DRAW_ONE_MEMORY_SHARE if draw_one_proof else 0.0
    quick_draw_one = draw_one_proof and tuning.QUICK_DRAW_ONE_WEIGHT > 0
    quick_draw_one_share = tuning.QUICK_DRAW_ONE_MEMORY_SHARE if quick_draw_one else 0.0

    def restarted(search_draw: int, share: float):
        if not tuning.QUICK_RESTARTS:
            return searcher(search_draw, share, streamline=True)
        return _Restarts(search_draw, lambda shuffle, nodes: searcher(
            search_draw, share, nodes if max_nodes is None else min(nodes, max_nodes),
            streamline=True, shuffle=shuffle))

    quick = restarted(draw, tuning.QUICK_DFS_MEMORY_SHARE)
    best = searcher(draw, tuning.QUICK_BEST_MEMORY_SHARE, streamline=True)
    complete = searcher(draw, 1.0 - tuning.QUICK_DFS_MEMORY_SHARE - tuning.QUICK_BEST_MEMORY_SHARE - draw_one_share
                        - quick_draw_one_share,
                        whole_groups=True, pending=True, low_autoplay=tuning.LOW_AUTOPLAY)
    searches = [[quick, quick.dfs(), tuning.QUICK_DFS_WEIGHT, 0.0],
                [best, best.best_first(), tuning.QUICK_BEST_WEIGHT, 0.0],
                [complete, complete.dfs(), tuning.COMPLETE_WEIGHT, 0.0]]
    proofs = {complete}  # the searches whose exhaustion proves the position lost
    late_weights = [(searches[1], tuning.QUICK_BEST_LATE_WEIGHT),
                    (searches[2], tuning.COMPLETE_LATE_WEIGHT if draw != 1 else tuning.COMPLETE_LATE_WEIGHT_IN_DRAW_1)]
    if draw_one_proof:
        draw_one = searcher(1, draw_one_share, whole_groups=True, pending=True, low_autoplay=tuning.LOW_AUTOPLAY)
        searches.append([draw_one, draw_one.dfs(), tuning.DRAW_ONE_WEIGHT, 0.0])
        late_weights.append((searches[-1], tuning.DRAW_ONE_LATE_WEIGHT))
        proofs.add(draw_one)
    if quick_draw_one:
        quick_one = restarted(1, quick_draw_one_share)
        searches.append([quick_one, quick_one.dfs(), tuning.QUICK_DRAW_ONE_WEIGHT, 0.0])
        late_weights.append((searches[-1], tuning.QUICK_DRAW_ONE_LATE_WEIGHT))
    draw_ones = [entry for entry in searches if entry[0].draw != draw]
    everyone = [entry[0] for entry in searches]
    stopped: dict = {}  # search -> the Budget reason that stopped it
    late = False
    path = None
    peak = 0
    while path is None:
        now = clock()
        if now > deadline or not searches:
            reason = stopped.get(complete, TIME if now > deadline else NODES)
            return Solution(UNKNOWN, (), _nodes(everyone), _ms(start, clock), reason=reason, table_bytes=peak)
        if not late and now - start > tuning.QUICK_PHASE_S:
            late = True
            for entry, weight in late_weights:
                entry[2] = weight
                if not weight and entry in searches:
                    _drop(searches, entry)  # a weight of 0 stops the search (and frees its tables)
        entry = min(searches, key=_behind)
        running, steps = entry[0], entry[1]
        try:
            next(steps)
        except StopIteration as stop:
            path = stop.value
            if path is None and running in proofs:
                return Solution(UNWINNABLE, (), _nodes(everyone), _ms(start, clock), table_bytes=peak)
            if running.draw != draw:
                if path is not None:  # draw 1 is won: the draw-1 proof can no longer come
                    for other in draw_ones:
                        if other is not entry and other in searches:
                            _drop(searches, other)
                path = None  # a draw-1 win is not a draw-3 one
            if path is None:
                _drop(searches, entry)
        except Budget as spent:
            stopped[running] = spent.reason
            _drop(searches, entry)
        entry[3] += clock() - now
        held = sum(other[0].table_bytes for other in searches)
        if entry[1] is None:  # dropped after this slice: its tables counted one last time
            held += running.table_bytes
        peak = max(peak, held)
        if max_nodes is not None and _nodes(everyone) >= max_nodes:
            return Solution(UNKNOWN, (), _nodes(everyone), _ms(start, clock), reason=NODES, table_bytes=peak)
    line = tuple(lines.actions(path, draw))
    lines.verify(game, line)
    return Solution(WINNABLE, line, _nodes(everyone), _ms(start, clock), table_bytes=peak)


# -- internals -------------------------------------------------------------------


class _Restarts:
    """The streamlined depth-first search run again and again, each run trying the moves in its own order.

    A depth-first search's time to a win is heavy-tailed: an early choice that leads nowhere
    costs it everything below, where the same moves in another order win at once (Gomes,
    Selman, Crato and Kautz, "Heavy-tailed phenomena in satisfiability and constraint
    satisfaction problems", 2000). So run n adds the noise of seed n - 1 to the moves' scores
    (run 1: the scores alone, the search as it ran before) and stops after at most
    ``tuning.RESTART_UNIT`` × Luby(n) positions, the schedule within a log factor of the best fixed
    one whatever the tail (Luby, Sinclair and Zuckerman, 1993). A run that exhausts its
    positions ends the restarts: which streamlined positions are reachable does not depend on
    the order. Its failures prove nothing, like those of the search it repeats. ``nodes``
    counts the positions of every run, so one met again in a later run counts again.
    """

    def __init__(self, draw: int, make) -> None:
        self.draw = draw
        self._make = make  # make(shuffle, nodes) -> a streamlined Searcher
        self._current = None
        self._finished_nodes = 0

    @property
    def nodes(self) -> int:
        return self._finished_nodes + (self._current.nodes if self._current else 0)

    @property
    def table_bytes(self) -> int:
        return self._current.table_bytes if self._current else 0

    def dfs(self):
        """The generator of :meth:`Searcher.dfs`: yields between slices, returns a path or None."""
        run = 0
        while True:
            run += 1
            limit = tuning.RESTART_UNIT * _luby(run)
            self._current = self._make(run - 1, limit)
            try:
                return (yield from self._current.dfs())
            except Budget as spent:
                if spent.reason != NODES or self._current.nodes < limit:
                    raise  # out of memory, or the solve's own node budget
            yield  # solve() sees the finished run's tables before the next run's replace them
            self._finished_nodes += self._current.nodes


def _luby(n: int) -> int:
    """The n-th term (from 1) of Luby's sequence: 1, 1, 2, 1, 1, 2, 4, 1, 1, 2, 1, 1, 2, 4, 8, …"""
    while True:
        k = n.bit_length()
        if n == (1 << k) - 1:
            return 1 << (k - 1)
        n -= (1 << (k - 1)) - 1


def _behind(entry) -> float:
    return entry[3] / entry[2]


def _drop(searches: list, entry: list) -> None:
    """Stop one of solve's searches for good, freeing its tables (its generator holds them)."""
    searches.remove(entry)
    entry[1] = None


def _nodes(searchers) -> int:
    return sum(searcher.nodes for searcher in searchers)


def _ms(start: float, clock=time.perf_counter) -> float:
    return (clock() - start) * 1000.0

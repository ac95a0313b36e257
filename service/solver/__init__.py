"""The solver of Solitaire Réfléchi: is a position winnable, and how.

It imports only :mod:`service.engine` and the standard library; the depth-first
searches run in a compiled C core when it is built (:mod:`service.solver.fast`,
``BACKEND == "c"``), in the pure Python reference otherwise (``"python"``).

* :func:`solve` — ``"winnable"`` with a complete line of engine actions to a
  win, ``"unwinnable"`` only after an exhaustive search (with provably safe
  pruning only, see :mod:`service.solver.search`), ``"unknown"`` when the
  budget runs out first.  A ``"winnable"`` line is replayed through the engine
  before it is returned, so a wrong ``"winnable"`` is impossible.
* :func:`hint` — the same search; the hint is ``line[0]``.  From a position
  that is already won the verdict is ``"winnable"`` with an empty line (there
  is nothing left to play; the engine accepts no action there anyway).  When
  the budget runs out the verdict stays ``"unknown"`` and ``guess`` holds the
  best first action a short greedy search found (:func:`best_guess`): not
  proven, but never no help at all.
* :func:`winnable_deal` — a random deal proven winnable.

>>> from service.engine import Game
>>> solution = solve(Game.from_code("TF1-D1N-AAAAAAC"), budget_ms=5000)
>>> solution.verdict
'winnable'
"""

from __future__ import annotations

import dataclasses
import heapq
import random
import time
from dataclasses import dataclass

from service.engine import CARDS, COLUMNS, FOUNDATIONS, Action, Game, GameCode, Pile, Rejection, random_deal
from service.engine.deal import DEAL_COUNT

from . import fast
from .search import CC, CF, FC, MEMORY, NODES, SUIT, TC, TF, TIME, Budget, Searcher, talon_steps

__all__ = ["BACKEND", "MEMORY", "NODES", "TIME", "Solution", "best_guess", "hint", "solve", "winnable_deal"]

#: the depth-first searches in use: "c" (compiled core, see service.solver.fast) or "python";
#: set it to "python" to run the pure Python reference
BACKEND = fast.BACKEND

WINNABLE, UNWINNABLE, UNKNOWN = "winnable", "unwinnable", "unknown"
#: shares of the CPU time of the searches run side by side (see solve)
QUICK_DFS_WEIGHT = 1.0
QUICK_BEST_WEIGHT = 2.0
COMPLETE_WEIGHT = 1.0
#: draw 3 only: the complete search of the same position in draw 1, whose "unwinnable" is the
#: draw-3 one too (draw 1 plays every draw-3 line, see docs/SOLVER.md); it is far cheaper
DRAW_ONE_WEIGHT = 1.0
#: after this much time (on solve's clock) the complete searches' weights become COMPLETE_LATE_WEIGHT
#: (COMPLETE_LATE_WEIGHT_IN_DRAW_1 in draw 1, where it is the only proof) and DRAW_ONE_LATE_WEIGHT,
#: and the best-first one's QUICK_BEST_LATE_WEIGHT (0: it stops): the quick
#: searches find the easy wins early; the hard deals are mostly decided by the complete ones, and in
#: draw 3 the draw-1 proof is the quicker of the two for half the deals lost (docs/PERFORMANCE.md:
#: restricted positions and the solver's schedule, measured on the deals bench/solver.py finds slow;
#: 20 ms rather than 50: total time x0.97-0.99, as many deals decided within 0.1 s or more).
#: DRAW_ONE_LATE_WEIGHT 64 rather than 32: 0 to 3 more draw-3 deals in 1,000 decided within 1 s in
#: five runs on two machines, the most on the slower one (docs/PERFORMANCE.md: machines differ)
QUICK_PHASE_S = 0.02
COMPLETE_LATE_WEIGHT = 4.0
COMPLETE_LATE_WEIGHT_IN_DRAW_1 = 8.0
DRAW_ONE_LATE_WEIGHT = 64.0
#: draw 3 only: the quick depth-first search of the same position in draw 1 (streamlined, restarted),
#: whose win ends the draw-1 proof: that proof can then prove nothing, and on the deals it would lose
#: it gets nearly all the time (DRAW_ONE_LATE_WEIGHT) instead of sharing it with the draw-3 searches.
#: The quick one wins within 50 ms (alone) most draw-1 wins that take the proof 0.3-3 s (0: not run;
#: docs/PERFORMANCE.md: the draw-1 win that stops the draw-1 proof)
QUICK_DRAW_ONE_WEIGHT = 2.0
QUICK_DRAW_ONE_LATE_WEIGHT = 4.0
QUICK_BEST_LATE_WEIGHT = 0.0
#: the complete searches auto-play only aces, twos and the cards nothing in play can need
#: (search.low_card): docs/SOLVER.md proves them complete that way (measured cost:
#: bench/solver.py --compare, docs/PERFORMANCE.md)
LOW_AUTOPLAY = True
#: the quick depth-first search restarts with the moves in another order (_Restarts): its n-th run
#: meets at most RESTART_UNIT × Luby(n) positions (2,048 and 8,192 were not better beyond noise on
#: the deals bench/solver.py finds slow; docs/PERFORMANCE.md)
QUICK_RESTARTS = True
RESTART_UNIT = 4096
#: shares of the memory budget: the complete search(es) get the rest (the best-first search runs
#: for QUICK_PHASE_S only; in draw 3 the draw-1 proof gets the most time after it)
QUICK_DFS_MEMORY_SHARE = 0.125
QUICK_BEST_MEMORY_SHARE = 0.125
DRAW_ONE_MEMORY_SHARE = 0.25
QUICK_DRAW_ONE_MEMORY_SHARE = 0.0625  # its runs are short: a few thousand positions to a few million
#: the default memory budget of a solve: the bytes its searches' tables may hold together (a hard
#: draw-3 solve fills 13-17 MiB a second, the complete searches' tables; the server sets
#: SOLVER_MEMORY_MB)
MEMORY_BYTES = 256 << 20
#: positions the greedy search behind an unproven hint may meet (a few tens of ms of CPU in Python)
GUESS_NODES = 1500


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
    game: Game, *, budget_ms: int = 1000, max_nodes: int | None = None, memory_bytes: int | None = MEMORY_BYTES,
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
    # QUICK_PHASE_S the complete searches get most of it, in draw 3 the draw-1
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

    draw_one_proof = draw != 1 and DRAW_ONE_WEIGHT > 0
    draw_one_share = DRAW_ONE_MEMORY_SHARE if draw_one_proof else 0.0
    quick_draw_one = draw_one_proof and QUICK_DRAW_ONE_WEIGHT > 0
    quick_draw_one_share = QUICK_DRAW_ONE_MEMORY_SHARE if quick_draw_one else 0.0

    def restarted(search_draw: int, share: float):
        if not QUICK_RESTARTS:
            return searcher(search_draw, share, streamline=True)
        return _Restarts(search_draw, lambda shuffle, nodes: searcher(
            search_draw, share, nodes if max_nodes is None else min(nodes, max_nodes),
            streamline=True, shuffle=shuffle))

    quick = restarted(draw, QUICK_DFS_MEMORY_SHARE)
    best = searcher(draw, QUICK_BEST_MEMORY_SHARE, streamline=True)
    complete = searcher(draw, 1.0 - QUICK_DFS_MEMORY_SHARE - QUICK_BEST_MEMORY_SHARE - draw_one_share
                        - quick_draw_one_share,
                        whole_groups=True, pending=True, low_autoplay=LOW_AUTOPLAY)
    searches = [[quick, quick.dfs(), QUICK_DFS_WEIGHT, 0.0], [best, best.best_first(), QUICK_BEST_WEIGHT, 0.0],
                [complete, complete.dfs(), COMPLETE_WEIGHT, 0.0]]
    proofs = {complete}  # the searches whose exhaustion proves the position lost
    late_weights = [(searches[1], QUICK_BEST_LATE_WEIGHT),
                    (searches[2], COMPLETE_LATE_WEIGHT if draw != 1 else COMPLETE_LATE_WEIGHT_IN_DRAW_1)]
    if draw_one_proof:
        draw_one = searcher(1, draw_one_share, whole_groups=True, pending=True, low_autoplay=LOW_AUTOPLAY)
        searches.append([draw_one, draw_one.dfs(), DRAW_ONE_WEIGHT, 0.0])
        late_weights.append((searches[-1], DRAW_ONE_LATE_WEIGHT))
        proofs.add(draw_one)
    if quick_draw_one:
        quick_one = restarted(1, quick_draw_one_share)
        searches.append([quick_one, quick_one.dfs(), QUICK_DRAW_ONE_WEIGHT, 0.0])
        late_weights.append((searches[-1], QUICK_DRAW_ONE_LATE_WEIGHT))
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
        if not late and now - start > QUICK_PHASE_S:
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
    line = tuple(_actions(path, draw))
    _verify(game, line)
    return Solution(WINNABLE, line, _nodes(everyone), _ms(start, clock), table_bytes=peak)


def hint(
    game: Game, *, budget_ms: int = 1000, max_nodes: int | None = None, memory_bytes: int | None = MEMORY_BYTES,
    clock=time.perf_counter,
) -> Solution:
    """The same answer as :func:`solve`; the hint is ``line[0]`` when the verdict is winnable.

    An already won game gives ``"winnable"`` with an empty line: nothing to hint.
    ``"unknown"`` comes with ``guess``, :func:`best_guess`'s action.

    >>> solution = hint(Game.from_code("TF1-D1N-AAAAAAA"), budget_ms=1, max_nodes=10)
    >>> solution.verdict, solution.guess is not None
    ('unknown', True)
    """
    solution = solve(game, budget_ms=budget_ms, max_nodes=max_nodes, memory_bytes=memory_bytes, clock=clock)
    if solution.verdict != UNKNOWN:
        return solution
    return dataclasses.replace(solution, guess=best_guess(game))


def best_guess(game: Game, max_nodes: int = GUESS_NODES) -> Action | None:
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
        return _checked(game, next(_actions(record[:1], draw)))
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
    return _checked(game, next(_actions(met[best_index][1], draw)))


def _checked(game: Game, action: Action) -> Action | None:
    try:
        game.check(action)
    except Rejection:  # pragma: no cover - the searcher's moves are legal engine actions
        return None
    return action


def winnable_deal(
    draw: int, *, deadline_s: float = 3.0, rng: random.Random | None = None, budget_ms: int = 500,
    memory_bytes: int | None = MEMORY_BYTES, clock=time.perf_counter,
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
        solution = solve(Game.from_code(code), budget_ms=int(min(budget_ms, left_ms)) or 1,
                         memory_bytes=memory_bytes, clock=clock)
        if solution.verdict == WINNABLE:
            return code, solution


# -- internals -------------------------------------------------------------------


class _Restarts:
    """The streamlined depth-first search run again and again, each run trying the moves in its own order.

    A depth-first search's time to a win is heavy-tailed: an early choice that leads nowhere
    costs it everything below, where the same moves in another order win at once (Gomes,
    Selman, Crato and Kautz, "Heavy-tailed phenomena in satisfiability and constraint
    satisfaction problems", 2000). So run n adds the noise of seed n - 1 to the moves' scores
    (run 1: the scores alone, the search as it ran before) and stops after at most
    ``RESTART_UNIT`` × Luby(n) positions, the schedule within a log factor of the best fixed
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
            limit = RESTART_UNIT * _luby(run)
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


_DRAW, _RECYCLE = Action.draw(), Action.recycle()


def _actions(path, draw: int):
    """Engine actions for the searcher's ``(state_before, move)`` path, draws included."""
    for state, move in path:
        cols, found, talon, p = state[:4]
        kind = move[0]
        if kind == CC:
            _, src, i, dst = move
            yield Action.move(COLUMNS[src], COLUMNS[dst], _card(cols[src][i]))
        elif kind == CF:
            card = cols[move[1]][-1]
            yield Action.move(COLUMNS[move[1]], FOUNDATIONS[SUIT[card]], _card(card))
        elif kind in (TC, TF):
            index = move[1]
            steps, _p = talon_steps(len(talon), p, draw, index)
            for step in steps:
                yield _DRAW if step == "draw" else _RECYCLE
            card = talon[index]
            target = COLUMNS[move[2]] if kind == TC else FOUNDATIONS[SUIT[card]]
            yield Action.move(Pile.WASTE, target, _card(card))
        elif kind == FC:
            yield Action.take_back(FOUNDATIONS[move[1]], COLUMNS[move[2]])
        else:  # pragma: no cover
            raise AssertionError(move)


def _card(number: int):
    return CARDS[number]


def _verify(game: Game, line: tuple[Action, ...]) -> None:
    """Replay ``line`` on a copy of ``game``; it must end in a win (else the solver has a bug)."""
    copy = Game.from_state(game.to_state())
    for action in line:
        copy.apply(action)
    if not copy.won:
        raise AssertionError("solver line does not win")

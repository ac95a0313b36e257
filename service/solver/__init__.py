"""The solver of Solitaire Réfléchi: is a position winnable, and how.

Pure Python; it imports only :mod:`service.engine` and the standard library.

* :func:`solve` — ``"winnable"`` with a complete line of engine actions to a
  win, ``"unwinnable"`` only after an exhaustive search (with provably safe
  pruning only, see :mod:`service.solver.search`), ``"unknown"`` when the
  budget runs out first.  A ``"winnable"`` line is replayed through the engine
  before it is returned, so a wrong ``"winnable"`` is impossible.
* :func:`hint` — the same search; the hint is ``line[0]``.  From a position
  that is already won the verdict is ``"winnable"`` with an empty line (there
  is nothing left to play; the engine accepts no action there anyway).
* :func:`winnable_deal` — a random deal proven winnable.

>>> from service.engine import Game
>>> solution = solve(Game.from_code("TF1-D1N-AAAAAAC"), budget_ms=5000)
>>> solution.verdict
'winnable'
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass

from service.engine import CARDS, COLUMNS, FOUNDATIONS, Action, Game, GameCode, Pile, random_deal
from service.engine.deal import DEAL_COUNT

from .search import CC, CF, FC, SUIT, TC, TF, Budget, Searcher, talon_steps

__all__ = ["Solution", "hint", "solve", "winnable_deal"]

WINNABLE, UNWINNABLE, UNKNOWN = "winnable", "unwinnable", "unknown"
#: share of the budget given to the streamlined quick-win search before the complete one
STREAMLINE_SHARE = 0.8


@dataclass(frozen=True, slots=True)
class Solution:
    """The solver's answer: verdict, winning line (engine actions), nodes searched, time."""

    verdict: str
    line: tuple[Action, ...] = ()
    nodes: int = 0
    ms: float = 0.0

    def to_json(self) -> dict:
        return {
            "verdict": self.verdict,
            "line": [str(action) for action in self.line],
            "nodes": self.nodes,
            "ms": round(self.ms, 3),
        }


def solve(game: Game, *, budget_ms: int = 1000, max_nodes: int | None = None) -> Solution:
    """Decide whether ``game`` can still be won from its current position.

    ``budget_ms`` bounds the wall time of the search, ``max_nodes`` the number
    of distinct positions it expands; when either runs out the verdict is
    ``"unknown"``.  ``game`` is not modified.
    """
    start = time.perf_counter()
    if game.won:
        return Solution(WINNABLE, (), 0, _ms(start))
    draw = game.code.draw
    talon = list(game.waste) + list(reversed(game.stock))
    deadline = start + budget_ms / 1000.0
    cols, found, waste = game.tableau, game.foundations, len(game.waste)
    # Phase 1: a streamlined search (unsafe restrictions, see Searcher) for a quick win
    # with part of the budget.  Its wins are as good as any (every line is replayed);
    # its failures prove nothing.
    quick = Searcher(
        cols, found, talon, waste, draw, streamline=True,
        deadline=start + STREAMLINE_SHARE * budget_ms / 1000.0,
        max_nodes=None if max_nodes is None else max(1, int(STREAMLINE_SHARE * max_nodes)),
    )
    try:
        path = quick.run()
    except Budget:
        path = None
    spent = quick.nodes
    if path is None:
        # Phase 2: the complete search, only safe pruning; it alone may say "unwinnable".
        searcher = Searcher(
            cols, found, talon, waste, draw, deadline=deadline,
            max_nodes=None if max_nodes is None else max(1, max_nodes - spent),
        )
        try:
            path = searcher.run()
        except Budget:
            return Solution(UNKNOWN, (), spent + searcher.nodes, _ms(start))
        spent += searcher.nodes
        if path is None:
            return Solution(UNWINNABLE, (), spent, _ms(start))
    line = tuple(_actions(path, draw))
    _verify(game, line)
    return Solution(WINNABLE, line, spent, _ms(start))


def hint(game: Game, *, budget_ms: int = 1000, max_nodes: int | None = None) -> Solution:
    """The same answer as :func:`solve`; the hint is ``line[0]`` when the verdict is winnable.

    An already won game gives ``"winnable"`` with an empty line: nothing to hint.
    """
    return solve(game, budget_ms=budget_ms, max_nodes=max_nodes)


def winnable_deal(
    draw: int, *, deadline_s: float = 3.0, rng: random.Random | None = None, budget_ms: int = 500,
) -> tuple[GameCode, Solution] | None:
    """A random deal of draw mode ``draw`` proven winnable, or None if ``deadline_s`` passes first.

    Each attempt gets at most ``budget_ms`` (and never more than what is left
    of the deadline).  ``rng`` (a :class:`random.Random`) makes it deterministic;
    without it deal numbers come from the engine's cryptographic source.
    """
    end = time.perf_counter() + deadline_s
    while True:
        left_ms = (end - time.perf_counter()) * 1000.0
        if left_ms <= 0:
            return None
        deal = rng.randrange(DEAL_COUNT) if rng is not None else random_deal()
        code = GameCode(draw=draw, deal=deal)
        solution = solve(Game.from_code(code), budget_ms=int(min(budget_ms, left_ms)) or 1)
        if solution.verdict == WINNABLE:
            return code, solution


# -- internals -------------------------------------------------------------------


def _ms(start: float) -> float:
    return (time.perf_counter() - start) * 1000.0


_DRAW, _RECYCLE = Action.draw(), Action.recycle()


def _actions(path, draw: int):
    """Engine actions for the searcher's ``(state_before, move)`` path, draws included."""
    for state, move in path:
        cols, found, talon, p = state
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

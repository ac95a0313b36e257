"""The solver of Solitaire Réfléchi: is a position winnable, and how.

It imports only :mod:`service.engine` and the standard library; the depth-first
searches run in a compiled C core when it is built (:mod:`.fast`, ``BACKEND == "c"``),
in the pure Python reference otherwise (:mod:`.search`, ``"python"``).

* :func:`solve` — ``"winnable"`` with a complete line of engine actions to a
  win, ``"unwinnable"`` only after an exhaustive search (with provably safe
  pruning only), ``"unknown"`` when the budget runs out first (:mod:`.schedule`,
  whose shares of the budget are :mod:`.tuning`'s).
* :func:`hint` — the same search; the hint is ``line[0]``, or a best guess when
  nothing is proven (:mod:`.hints`, with the server's cached hints on a budget).
* :func:`winnable_deal` — a random deal proven winnable (:mod:`.deals`); the
  daily deal is :mod:`.daily`'s.

>>> from service.engine import Game
>>> solution = solve(Game.from_code("TF1-D1N-AAAAAAC"), budget_ms=5000)
>>> solution.verdict
'winnable'
"""

from .deals import winnable_deal
from .hints import best_guess, hint
from .schedule import BACKEND, UNKNOWN, UNWINNABLE, WINNABLE, Solution, solve
from .search import MEMORY, NODES, TIME
from .tuning import MEMORY_BYTES

__all__ = ["BACKEND", "MEMORY", "MEMORY_BYTES", "NODES", "TIME", "UNKNOWN", "UNWINNABLE", "WINNABLE", "Solution",
           "best_guess", "hint", "solve", "winnable_deal"]

"""The solver's tuning values, together: what :func:`~service.solver.schedule.solve` runs, and how much of each.

Each value says what it does; why it is this value and not another (what was measured
against what, on which deals) is in docs/PERFORMANCE.md, "The solver's tuning values".
Change one only with a measurement beside it (``python bench/solver --compare``).
"""

from __future__ import annotations

# -- the searches' shares of the CPU time (solve runs them side by side) ---------------

#: the quick depth-first search (streamlined, restarted), the quick best-first one, the complete one
QUICK_DFS_WEIGHT = 1.0
QUICK_BEST_WEIGHT = 2.0
COMPLETE_WEIGHT = 1.0
#: draw 3 only: the complete search of the same position in draw 1, whose "unwinnable" is the
#: draw-3 one too (draw 1 plays every draw-3 line, see docs/SOLVER.md); it is far cheaper
DRAW_ONE_WEIGHT = 1.0
#: draw 3 only: the quick depth-first search in draw 1, whose win ends the draw-1 proof (that proof
#: can then prove nothing); 0: not run
QUICK_DRAW_ONE_WEIGHT = 2.0

# -- after the quick phase ------------------------------------------------------------

#: after this much time (on solve's clock) the weights below replace the ones above: the quick
#: searches find the easy wins early, the complete ones decide the hard deals
QUICK_PHASE_S = 0.02
#: the complete search's weight (in draw 1, where it is the only proof: the second)
COMPLETE_LATE_WEIGHT = 4.0
COMPLETE_LATE_WEIGHT_IN_DRAW_1 = 8.0
DRAW_ONE_LATE_WEIGHT = 64.0
QUICK_DRAW_ONE_LATE_WEIGHT = 4.0
#: 0: the best-first search stops (and frees its tables)
QUICK_BEST_LATE_WEIGHT = 0.0

# -- what the searches do ---------------------------------------------------------------

#: the complete searches auto-play only aces, twos and the cards nothing in play can need
#: (search.low_card): docs/SOLVER.md proves them complete that way
LOW_AUTOPLAY = True
#: the quick depth-first search restarts with the moves in another order (schedule._Restarts):
#: its n-th run meets at most RESTART_UNIT × Luby(n) positions
QUICK_RESTARTS = True
RESTART_UNIT = 4096

# -- memory ----------------------------------------------------------------------------

#: shares of the memory budget; the complete search(es) get the rest (the best-first search runs
#: for QUICK_PHASE_S only; in draw 3 the draw-1 proof gets the most time after it)
QUICK_DFS_MEMORY_SHARE = 0.125
QUICK_BEST_MEMORY_SHARE = 0.125
DRAW_ONE_MEMORY_SHARE = 0.25
QUICK_DRAW_ONE_MEMORY_SHARE = 0.0625  # its runs are short: a few thousand positions to a few million
#: the default memory budget of a solve: the bytes its searches' tables may hold together (the
#: server sets its own, SOLVER_MEMORY_MB)
MEMORY_BYTES = 256 << 20

# -- hints --------------------------------------------------------------------------------

#: positions the greedy search behind an unproven hint may meet (a few tens of ms of CPU in Python)
GUESS_NODES = 1500

"""Rule 7's restricted positions in the C core (gen_uses) under every auto-play mode, against Python.

test_csearch holds the C search to the Python one move for move, but with ``pending=True`` only
as solve() runs it (whole groups, low auto-play; safe auto-play in the best-first search).
``gen_uses`` also has paths for the other modes the constructor accepts: no auto-play at all
(rule 3 holds nothing back, so aces and twos are taken back), the streamlined eager auto-play
(no take-backs at all; in draw 1 a talon card put down still restricts the next move), safe
auto-play in the depth-first search, and partial groups allowed.  Same positions met, same
verdicts, same lines.
"""

from __future__ import annotations

import random

import pytest

from service.solver import fast
from service.solver.search import Searcher
from tests.solver.test_csearch import _best_first_outcome, _outcome, _positions

pytestmark = pytest.mark.skipif(fast.BACKEND != "c", reason="the C core is not built (pip install -e .)")

OPTIONS = (
    {"pending": True, "autoplay": False},
    {"pending": True, "autoplay": False, "whole_groups": True, "shuffle": 77},
    {"pending": True, "streamline": True},
    {"pending": True},
    {"pending": True, "whole_groups": True},
)


@pytest.mark.parametrize("draw", [1, 3])
def test_restricted_positions_in_every_mode_are_the_python_ones(draw):
    rng = random.Random(4300 + draw)
    seen = {"winnable": 0, "unwinnable": 0, "exhausted": 0, "unknown": 0}
    for game in _positions(rng, draw, 36):
        for options in OPTIONS:
            for outcome in (_outcome, _best_first_outcome):
                python = outcome(Searcher, game, max_nodes=1500, **options)
                c = outcome(fast.CSearcher, game, max_nodes=1500, **options)
                assert c[:2] == python[:2], (game.to_state(), options, outcome.__name__)
                assert c[2] == python[2]
                seen[c[0]] += 1
    assert seen["winnable"] >= 30 and seen["unknown"] >= 30, seen

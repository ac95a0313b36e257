"""The complete search exactly as solve() runs it, against a brute force with no pruning and no auto-play.

docs/SOLVER.md argues that the complete search — forced auto-play, rule 3 (no
take-back of what auto-play would put back), rules 2, 6 and 7, the draw-3 waste
dominance and the transposition table together — finds a win whenever one
exists.  This test aims at the places where those could interact: generated
endgames in which auto-play fires, a partial-group move is needed and a
take-back is needed, all three in one position.  The reference is
:func:`plain_winnable`, written here from RULES.md alone (exact positions, one
engine action per step, draws and recycles included, nothing left out); it is
itself checked against the engine's own brute force.
"""

from __future__ import annotations

import random

import pytest

from service.solver import fast, tuning
from service.solver.search import CC, FC, PARENTS, RANK, SUIT, Budget, Searcher, low_card, safe_to_foundation
from tests.solver.test_solver import TooLarge, brute_force_winnable, random_endgame, runs_endgame

KING = 12


def ordered(cards) -> bool:
    return all(cards[i] in PARENTS[cards[i + 1]] for i in range(len(cards) - 1))


def plain_moves(state, draw: int, *, take_backs: bool = True, partial_groups: bool = True):
    """Every position one engine action away (RULES.md, "Moves"), undo aside."""
    cols, found, stock, waste = state
    tops = [col[-1] if col else None for col in cols]
    for src, col in enumerate(cols):
        for i in range(len(col)):
            group = col[i:]
            if not ordered(group) or (not partial_groups and i > 0 and col[i - 1] in PARENTS[col[i]]):
                continue
            for dst in range(7):
                if dst == src or not (tops[dst] in PARENTS[col[i]] if tops[dst] is not None else RANK[col[i]] == KING):
                    continue
                new = list(cols)
                new[src], new[dst] = col[:i], cols[dst] + group
                yield tuple(new), found, stock, waste
        if col and found[SUIT[col[-1]]] == RANK[col[-1]]:
            new, up = list(cols), list(found)
            new[src] = col[:-1]
            up[SUIT[col[-1]]] += 1
            yield tuple(new), tuple(up), stock, waste
    if waste:
        card = waste[-1]
        for dst in range(7):
            if tops[dst] in PARENTS[card] if tops[dst] is not None else RANK[card] == KING:
                new = list(cols)
                new[dst] = cols[dst] + (card,)
                yield tuple(new), found, stock, waste[:-1]
        if found[SUIT[card]] == RANK[card]:
            up = list(found)
            up[SUIT[card]] += 1
            yield cols, tuple(up), stock, waste[:-1]
    for suit in range(4) if take_backs else ():
        if not found[suit]:
            continue
        card = suit * 13 + found[suit] - 1
        for dst in range(7):
            if tops[dst] in PARENTS[card] if tops[dst] is not None else RANK[card] == KING:
                new, down = list(cols), list(found)
                new[dst] = cols[dst] + (card,)
                down[suit] -= 1
                yield tuple(new), tuple(down), stock, waste
    if stock:  # stock: next card drawn first
        n = min(draw, len(stock))
        yield cols, found, stock[n:], waste + stock[:n]
    elif waste:
        yield cols, found, waste, ()


def plain_winnable(game, *, take_backs: bool = True, partial_groups: bool = True, limit: int = 20_000) -> bool:
    """Exhaustive search with every legal action: no pruning, no auto-play, no macro moves.

    Positions are told apart exactly, except for the order of the columns (no rule
    tells two columns apart, and without it empty columns multiply the positions).
    """
    draw = game.code.draw
    start = (tuple(tuple(int(c) for c in col) for col in game.tableau), tuple(game.foundations),
             tuple(int(c) for c in reversed(game.stock)), tuple(int(c) for c in game.waste))
    seen, todo = {_columns_sorted(start)}, [start]
    while todo:
        state = todo.pop()
        if sum(state[1]) == 52:
            return True
        # Order only (nothing is left out): foundation plays pushed last, so tried first.
        children = sorted(plain_moves(state, draw, take_backs=take_backs, partial_groups=partial_groups),
                          key=lambda child: sum(child[1]))
        for child in children:
            key = _columns_sorted(child)
            if key not in seen:
                seen.add(key)
                todo.append(child)
        if len(seen) > limit:
            raise TooLarge
    return False


def _columns_sorted(state):
    return (tuple(sorted(state[0])),) + state[1:]


def interaction_endgame(rng: random.Random, draw: int):
    """Ordered groups over buried low cards, three or four suits in play, a short talon.

    Three or four suits keep some cards safe for auto-play while others wait; groups
    over buried cards make partial moves useful; the foundations' tops are the only
    parents some cards have left, so take-backs are needed.
    """
    return runs_endgame(rng, rng.randint(10, 16), draw, suits=(3, 4, 4), columns=(2, 4), loose=3, chain=0.7)


def _search(game, cls, **options):
    talon = [int(c) for c in game.waste] + [int(c) for c in reversed(game.stock)]
    return cls([[int(c) for c in col] for col in game.tableau], game.foundations, talon, len(game.waste),
               game.code.draw, max_nodes=100_000, **options)


def complete_verdict(game, cls, **options) -> bool:
    """The complete search of solve() (rules 2-4, 6, 7, the table, the waste dominance), from ``game``."""
    return _search(game, cls, whole_groups=True, pending=True, **options).run() is not None


def reference_line(game, cls):
    """The search with nothing pruned or auto-played (only rule 2's symmetry and the table): its win or None."""
    return _search(game, cls, autoplay=False).run()


def autoplay_fires(game) -> bool:
    """Some card in play is safe for auto-play at the start (a column's last card, or the talon in draw 1)."""
    tops = [int(col[-1]) for col in game.tableau if col]
    if game.code.draw == 1:
        tops += [int(c) for c in game.stock] + [int(c) for c in game.waste]
    return any(game.foundations[SUIT[c]] == RANK[c] and safe_to_foundation(c, game.foundations) for c in tops)


def l1_prime_fires(game) -> bool:
    """A card of rank 3 or more is auto-played at the start by L1′ (search.low_card), not by L1."""
    tops = [int(col[-1]) for col in game.tableau if col]
    if game.code.draw == 1:
        tops += [int(c) for c in game.stock] + [int(c) for c in game.waste]
    found = game.foundations
    return any(RANK[c] >= 2 and found[SUIT[c]] == RANK[c] and low_card(c, found) for c in tops)


def uses_partial_group_and_take_back(path) -> bool:
    """Whether a winning line moves part of an ordered group and takes a card back from a foundation."""
    partial = take_back = False
    for (cols, _found, _talon, _p), move in path:
        if move[0] == CC and move[2] > 0 and cols[move[1]][move[2] - 1] in PARENTS[cols[move[1]][move[2]]]:
            partial = True
        take_back = take_back or move[0] == FC
    return partial and take_back


REFERENCE = fast.CSearcher if fast.BACKEND == "c" else Searcher


@pytest.mark.parametrize("draw", [1, 3])
def test_the_reference_is_the_plain_brute_force(draw):
    """The unpruned search (fast enough for thousands of endgames) against the brute force written from RULES.md."""
    rng = random.Random(5150 + draw)
    counts = {"winnable": 0, "unwinnable": 0}
    for _ in range(300):  # the brute force's reach: few suits in play, fewer take-backs
        game = random_endgame(rng, rng.randint(8, 12), draw)
        try:
            expected = plain_winnable(game, limit=20_000)
        except TooLarge:
            continue
        for cls in {Searcher, REFERENCE}:
            assert (reference_line(game, cls) is not None) == expected, game.to_state()
        counts["winnable" if expected else "unwinnable"] += 1
    assert counts["winnable"] >= 20 and counts["unwinnable"] >= 3, counts


def test_the_plain_brute_force_is_the_engine_brute_force():
    rng = random.Random(5150)
    compared = 0
    for n in range(40):
        game = random_endgame(rng, rng.randint(8, 10), 1 + 2 * (n % 2))
        try:
            expected = brute_force_winnable(game, limit=20_000)
        except TooLarge:
            continue
        assert plain_winnable(game) == expected, game.to_state()
        compared += 1
    assert compared >= 20


SEARCHES = [("what low_card names auto-played (as solve runs it)", {"low_autoplay": True}),
            ("every safe card auto-played", {})]


@pytest.mark.parametrize("draw", [1, 3])
def test_no_verdict_differs_where_auto_play_partial_groups_and_take_backs_meet(draw):
    assert tuning.LOW_AUTOPLAY, "solve() runs the complete search with low_autoplay: so must this test"
    rng = random.Random(1700 + draw)
    counts = {"winnable": 0, "unwinnable": 0, "all three in play": 0, "L1′ plays a card of rank 3+": 0, "too large": 0}
    for n in range(2000):
        game = interaction_endgame(rng, draw)
        try:
            line = reference_line(game, REFERENCE)
        except Budget:
            counts["too large"] += 1
            continue
        try:
            for name, options in SEARCHES:
                classes = (REFERENCE, Searcher) if n % 10 == 0 else (REFERENCE,)  # the Python one now and then
                for cls in classes:
                    assert complete_verdict(game, cls, **options) == (line is not None), (name, cls, game.to_state())
        except Budget:
            counts["too large"] += 1
            continue
        counts["winnable" if line is not None else "unwinnable"] += 1
        in_play = line is not None and autoplay_fires(game) and uses_partial_group_and_take_back(line)
        counts["all three in play"] += in_play
        counts["L1′ plays a card of rank 3+"] += l1_prime_fires(game)
    # Aimed, not hoped for: enough positions where every feature is in play at once.
    assert counts["all three in play"] >= 25 and counts["unwinnable"] >= 50, counts
    assert counts["L1′ plays a card of rank 3+"] >= 100, counts

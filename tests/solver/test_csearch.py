"""The C core of the depth-first search (service/solver/_csearch.c) against the Python reference.

The C search is a port of :meth:`Searcher.dfs`: on the same position with the same
node budget it must meet the same number of positions and return the same verdict
and the same winning line, move for move; and its lines must win in the engine.
"""

from __future__ import annotations

import random

import pytest

from service.engine import Game, GameCode
from service.engine.deal import DEAL_COUNT
from service.solver import fast, lines, schedule
from service.solver.search import Budget, Searcher
from tests.solver.test_solver import position, random_endgame, random_play, replay_wins

pytestmark = pytest.mark.skipif(fast.BACKEND != "c", reason="the C core is not built (pip install -e .)")


def _outcome(cls, game: Game, **options):
    searcher = cls.from_game(game, **options)
    try:
        path = searcher.run()
    except Budget:
        return "unknown", searcher.nodes, None
    return ("winnable" if path is not None else "unwinnable"), searcher.nodes, path


def _positions(rng: random.Random, draw: int, count: int):
    """Fresh deals, positions after random play, and small endgames (both answers common)."""
    for n in range(count):
        game = Game.from_code(GameCode(draw=draw, deal=rng.randrange(DEAL_COUNT)))
        if n % 3 == 1:
            game = random_play(game, rng)
        elif n % 3 == 2:
            game = random_endgame(rng, rng.randint(8, 13), draw)  # at most 13: one suit may be all that is left
        yield game


@pytest.mark.parametrize("draw", [1, 3])
def test_c_search_is_the_python_search(draw):
    rng = random.Random(4000 + draw)
    seen = {"winnable": 0, "unwinnable": 0, "unknown": 0}
    for game in _positions(rng, draw, 120):
        for options in ({}, {"whole_groups": True}, {"whole_groups": True, "pending": True, "low_autoplay": True},
                        {"streamline": True}, {"streamline": True, "shuffle": 3_000_000_019},
                        {"whole_groups": True, "pending": True, "low_autoplay": True, "shuffle": 2**32 - 1}):
            python = _outcome(Searcher, game, max_nodes=2500, **options)
            c = _outcome(fast.CSearcher, game, max_nodes=2500, **options)
            assert c[:2] == python[:2], (game.to_state(), options)
            assert c[2] == python[2]
            if c[0] == "winnable":
                line = tuple(lines.actions(c[2], draw))
                assert replay_wins(game, line)
            if not options:
                seen[c[0]] += 1
    # both decided answers must show up, or the comparison proves little
    assert seen["winnable"] >= 30 and seen["unwinnable"] >= 5, seen


def _best_first_outcome(cls, game: Game, **options):
    searcher = cls.from_game(game, **options)
    try:
        path = searcher.drive(searcher.best_first())
    except Budget:
        return "unknown", searcher.nodes, None
    return ("winnable" if path is not None else "exhausted"), searcher.nodes, path


def _moved_king_positions(rng: random.Random, draw: int, count: int):
    """Positions after random play where a king stands in an empty column it was moved to.

    They are where the C table's compact key (``make_key``: king columns in any place, the
    root's columns in theirs) could go wrong: put the columns in another order, or a card
    back where it was dealt, and the key must stay the same; change anything else and it
    must not.
    """
    found = 0
    while found < count:
        game = Game.from_code(GameCode(draw=draw, deal=rng.randrange(DEAL_COUNT)))
        dealt = [bytes(col) for col in game.tableau]
        for _ in range(rng.randint(20, 150)):
            actions = [a for a in game.legal_actions() if a.kind != "undo"]
            if not actions or game.won:
                break
            game.apply(rng.choice(actions))
        if game.won:
            continue
        cols = [bytes(col) for col in game.tableau]
        moved = [col for place, col in enumerate(cols)
                 if col and col[0] % 13 == 12 and (not dealt[place] or dealt[place][0] != col[0])]
        if moved:
            found += 1
            yield game


@pytest.mark.parametrize("draw", [1, 3])
def test_c_table_merges_exactly_the_python_keys(draw):
    # the same positions met, one by one, over searches long enough for many transpositions
    rng = random.Random(4200 + draw)
    decided = 0
    for game in _moved_king_positions(rng, draw, 12):
        options = {"whole_groups": True, "pending": True, "low_autoplay": True}
        python = _outcome(Searcher, game, max_nodes=12_000, **options)
        c = _outcome(fast.CSearcher, game, max_nodes=12_000, **options)
        assert c[:2] == python[:2], game.to_state()
        assert c[2] == python[2]
        decided += python[0] != "unknown"
    # A search stopped by the node cap meets 12,000 positions whatever its table merged:
    # only the decided ones can show a wrong merge, so most of them must be decided.
    assert decided >= 8, decided


def test_a_position_outside_the_c_keys_domain_is_searched_again_in_python(monkeypatch, caplog):
    game = Game.from_code(GameCode.parse("TF1-D1N-HGRYVTP"))
    expected = _outcome(Searcher, game, max_nodes=20_000)

    class LeavesItsDomain:  # what the C core raises when make_key meets a position it cannot encode
        def __init__(self, *args):
            pass

        def step(self, nodes):
            raise RuntimeError(fast.OUTSIDE_THE_KEY)

    monkeypatch.setattr(fast._csearch, "Search", LeavesItsDomain)
    assert _outcome(fast.CSearcher, game, max_nodes=20_000) == expected
    assert expected[0] == "winnable"
    assert "searching again in Python" in caplog.text

    class Overflows(LeavesItsDomain):  # any other error of the C core is a bug, not a fallback
        def step(self, nodes):
            raise RuntimeError("column overflow")

    monkeypatch.setattr(fast._csearch, "Search", Overflows)
    with pytest.raises(RuntimeError, match="column overflow"):
        _outcome(fast.CSearcher, game, max_nodes=20_000)


def test_a_root_whose_column_could_outgrow_the_c_core_is_searched_in_python():
    # A king on 8 cards: a group down to an ace would make 21 cards, past MAXCOL (20). No game
    # reaches such a column (at most 7 dealt cards and 12 below a king), only a position built by hand.
    rng = random.Random(7)
    rest = [card for card in range(52) if card not in range(8) and card != 25]
    rng.shuffle(rest)
    tableau = [list(range(8)) + [25]] + [rest[20 + n::6] for n in range(6)]
    game = position(tableau, [0, 0, 0, 0], stock=rest[:20], draw=1)
    with pytest.raises(ValueError, match=fast.TOO_TALL):
        fast._csearch.Search([bytes(column) for column in tableau], [0, 0, 0, 0], bytes(rest[:20]), 0, 1)
    for options in ({}, {"whole_groups": True, "pending": True}):
        assert _outcome(fast.CSearcher, game, max_nodes=2500, **options) == \
            _outcome(Searcher, game, max_nodes=2500, **options)
    tableau[1].append(tableau[0].pop())  # the king on a column of 4 instead: 5 + 12 cards at most
    fast._csearch.Search([bytes(column) for column in tableau], [0, 0, 0, 0], bytes(rest[:20]), 0, 1)


@pytest.mark.parametrize("draw", [1, 3])
def test_c_best_first_is_the_python_best_first(draw):
    rng = random.Random(4100 + draw)
    seen = {"winnable": 0, "exhausted": 0, "unknown": 0}
    for game in _positions(rng, draw, 90):
        for options in ({"streamline": True}, {}, {"whole_groups": True, "pending": True}):
            python = _best_first_outcome(Searcher, game, max_nodes=2000, **options)
            c = _best_first_outcome(fast.CSearcher, game, max_nodes=2000, **options)
            assert c[:2] == python[:2], (game.to_state(), options)
            assert c[2] == python[2]
            if c[0] == "winnable":
                assert replay_wins(game, tuple(lines.actions(c[2], draw)))
            seen[c[0]] += 1
    assert seen["winnable"] >= 30 and seen["exhausted"] >= 5 and seen["unknown"] >= 5, seen


@pytest.mark.parametrize("draw", [1, 3])
def test_solve_verdicts_agree_across_backends(draw, monkeypatch):
    rng = random.Random(5000 + draw)
    for game in _positions(rng, draw, 24):
        monkeypatch.setattr(schedule, "BACKEND", "python")
        python = schedule.solve(game, max_nodes=3000, budget_ms=60_000)
        monkeypatch.setattr(schedule, "BACKEND", "c")
        c = schedule.solve(game, max_nodes=3000, budget_ms=60_000)
        decided = {python.verdict, c.verdict} - {"unknown"}
        assert len(decided) <= 1, (game.to_state(), python.verdict, c.verdict)
        for solution in (python, c):
            if solution.verdict == "winnable":
                assert replay_wins(game, solution.line)


def test_bad_positions_are_refused():
    with pytest.raises(ValueError):
        fast._csearch.Search([b""] * 7, (13, 13, 13, 12), b"\x0c\x0c", 0, 1)  # KS twice
    with pytest.raises(ValueError):
        fast._csearch.Search([b""] * 6, (13, 13, 13, 13), b"", 0, 1)  # six columns
    with pytest.raises(ValueError):
        fast._csearch.Search([b""] * 7, (13, 13, 13, 12), b"\x33", 2, 1)  # p past the talon


def test_backend_is_exposed():
    assert schedule.BACKEND in ("c", "python")
    assert fast.BACKEND == "c"

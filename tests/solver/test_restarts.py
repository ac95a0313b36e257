"""The quick search's restarts: shuffled move orders, Luby's schedule, and what ends them."""

from __future__ import annotations

import pytest

from service.engine import Game
from service.solver import fast, lines, schedule, solve, tuning
from service.solver.schedule import _luby, _Restarts
from service.solver.search import MEMORY, NODES, SHUFFLE_SPREAD, Budget, Searcher, shuffle_noise
from tests.solver.test_solver import replay_wins


def test_luby_sequence():
    assert [_luby(n) for n in range(1, 32)] == [1, 1, 2, 1, 1, 2, 4, 1, 1, 2, 1, 1, 2, 4, 8,
                                               1, 1, 2, 1, 1, 2, 4, 1, 1, 2, 1, 1, 2, 4, 8, 16]


def test_shuffle_noise_spreads_over_its_range_and_depends_on_seed_and_move():
    moves = [(0, 1, 2, 3), (1, 4), (2, 5, 6), (3, 7), (4, 2, 6), (0, 6, 0, 1)]
    for seed in (1, 2, 2**32 - 1):
        assert all(0 <= shuffle_noise(seed, move) < SHUFFLE_SPREAD for move in moves)
    by_seed = {seed: [shuffle_noise(seed, move) for move in moves] for seed in range(1, 50)}
    assert len({tuple(noise) for noise in by_seed.values()}) == 49
    assert len({noise for noises in by_seed.values() for noise in noises}) > SHUFFLE_SPREAD // 2


@pytest.mark.parametrize("code", ["TF1-D1N-XXYBOTH", "TF1-D3N-FQQWSZA"])
def test_a_shuffled_search_tries_the_moves_in_another_order(code):
    game = Game.from_code(code)
    plain = Searcher.from_game(game, streamline=True)
    root = plain.autoplay(plain.root, [])
    orders = [tuple(Searcher.from_game(game, streamline=True, shuffle=shuffle).moves(root)) for shuffle in range(8)]
    assert all(sorted(order) == sorted(orders[0]) for order in orders)  # the same moves
    assert len(set(orders)) >= 4  # in other orders


class _Scripted:
    """A stand-in for a streamlined search: meets ``nodes`` positions, then wins, exhausts or raises."""

    def __init__(self, nodes: int, end, table_bytes: int = 100) -> None:
        self.nodes, self._target, self._end, self.table_bytes = 0, nodes, end, table_bytes

    def dfs(self):
        while self.nodes < self._target:
            self.nodes = min(self._target, self.nodes + 1000)
            yield
        if isinstance(self._end, Budget):
            raise self._end
        return self._end


def _drive(generator):
    try:
        while True:
            next(generator)
    except StopIteration as stop:
        return stop.value


def test_restarts_follow_lubys_schedule_until_a_run_wins():
    asked = []

    def make(shuffle, nodes):
        asked.append((shuffle, nodes))
        return _Scripted(nodes, Budget(NODES)) if len(asked) < 6 else _Scripted(500, [("won",)])

    restarts = _Restarts(1, make)
    assert _drive(restarts.dfs()) == [("won",)]
    unit = tuning.RESTART_UNIT
    assert asked == [(0, unit), (1, unit), (2, 2 * unit), (3, unit), (4, unit), (5, 2 * unit)]
    assert restarts.nodes == 6 * unit + 500 and restarts.table_bytes == 100


def test_a_run_that_exhausts_its_positions_ends_the_restarts():
    asked = []

    def make(shuffle, nodes):
        asked.append(shuffle)
        return _Scripted(nodes, Budget(NODES)) if shuffle == 0 else _Scripted(700, None)

    assert _drive(_Restarts(3, make).dfs()) is None
    assert asked == [0, 1]


def _one_run(stop_at, end):
    def make(shuffle, nodes):
        if shuffle:
            pytest.fail("restarted after the solve's budget stopped a run")
        return _Scripted(stop_at(nodes), end)
    return make


@pytest.mark.parametrize(("stop_at", "end"), [(lambda limit: 1500, Budget(MEMORY)),
                                              (lambda limit: limit, Budget(MEMORY)),
                                              (lambda limit: 1500, Budget(NODES))])
def test_memory_and_the_solves_own_node_budget_stop_the_restarts(stop_at, end):
    # Out of memory (even right at a run's limit), or short of it on positions (the solve's
    # own cap): no more runs.
    restarts = _Restarts(1, _one_run(stop_at, end))
    with pytest.raises(Budget) as stopped:
        _drive(restarts.dfs())
    assert stopped.value.reason == end.reason and restarts.nodes == stop_at(tuning.RESTART_UNIT)


@pytest.mark.skipif(fast.BACKEND != "c", reason="the C core is not built (pip install -e .)")
@pytest.mark.parametrize(("code", "restarted"), [("TF1-D1N-XXYBOTH", 20_000), ("TF1-D3N-FQQWSZA", 100_000)])
def test_restarts_win_deals_where_one_run_in_the_scores_order_is_lost(code, restarted):
    game = Game.from_code(code)
    with pytest.raises(Budget):  # it wins FQQWSZA after 869,099 positions, XXYBOTH not in 3.6 million
        fast.CSearcher.from_game(game, streamline=True, max_nodes=400_000).run()
    restarts = _Restarts(game.code.draw, lambda shuffle, nodes: fast.CSearcher.from_game(
        game, streamline=True, max_nodes=nodes, shuffle=shuffle))
    path = _drive(restarts.dfs())
    assert path is not None and restarts.nodes <= restarted
    assert replay_wins(game, list(lines.actions(path, game.code.draw)))


@pytest.mark.skipif(fast.BACKEND != "c", reason="the C core is not built (pip install -e .)")
def test_solve_restarts_the_quick_search_unless_told_not_to(monkeypatch):
    game = Game.from_code("TF1-D1N-XXYBOTH")
    made = []
    restarts_class = schedule._Restarts

    def counting(draw, make):
        made.append(draw)
        return restarts_class(draw, make)

    monkeypatch.setattr(schedule, "_Restarts", counting)
    first = solve(game, budget_ms=60_000, max_nodes=400_000, memory_bytes=None)
    assert made == [1] and first.verdict == "winnable" and replay_wins(game, first.line)
    monkeypatch.setattr(tuning, "QUICK_RESTARTS", False)
    solve(game, budget_ms=60_000, max_nodes=20_000)
    assert made == [1]

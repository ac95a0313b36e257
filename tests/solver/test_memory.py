"""The memory budget: every search (C and Python) stops at its tables' bytes and says so."""

from __future__ import annotations

import tracemalloc

import pytest
from click.testing import CliRunner

from service.engine import Game
from service.solver import fast, hint, schedule, solve
from service.solver.commands import solve_command
from service.solver.search import MEMORY, Budget, Searcher

HARD_DRAW_THREE = "TF1-D3N-FQQWSZA"  # about 2 M positions before a win: no search ends early
BACKENDS = ["python"] + (["c"] if fast.BACKEND == "c" else [])


def _searcher(cls, code: str, **options):
    return cls.from_game(Game.from_code(code), **options)


def _run(searcher, kind: str):
    steps = searcher.dfs() if kind == "dfs" else searcher.best_first()
    while True:
        next(steps)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_tiny_budget_gives_unknown_for_memory(backend, monkeypatch):
    monkeypatch.setattr(schedule, "BACKEND", backend)
    solution = solve(Game.from_code(HARD_DRAW_THREE), budget_ms=60_000, memory_bytes=300_000)
    assert (solution.verdict, solution.reason) == ("unknown", "memory")
    assert solution.table_bytes <= 300_000  # the C tables start bigger: they never start at all


@pytest.mark.parametrize("backend", BACKENDS)
def test_unknown_says_which_budget_ran_out(backend, monkeypatch):
    monkeypatch.setattr(schedule, "BACKEND", backend)
    game = Game.from_code(HARD_DRAW_THREE)
    assert solve(game, budget_ms=60_000, max_nodes=3000).reason == "nodes"
    assert solve(game, budget_ms=5).reason == "time"
    assert solve(Game.from_code("TF1-D1N-AAAAAAC"), budget_ms=5000).reason is None
    unproven = hint(game, budget_ms=60_000, memory_bytes=300_000)
    assert unproven.reason == "memory" and unproven.guess is not None


@pytest.mark.parametrize("kind", ["dfs", "best"])
@pytest.mark.parametrize("cls", [Searcher, fast.CSearcher] if fast.BACKEND == "c" else [Searcher])
def test_each_search_stops_before_passing_its_budget(cls, kind):
    budget = (4 << 20) if cls is fast.CSearcher else 400_000
    searcher = _searcher(cls, HARD_DRAW_THREE, whole_groups=True, pending=kind == "dfs", max_bytes=budget)
    with pytest.raises(Budget) as stop:
        _run(searcher, kind)
    assert stop.value.reason == MEMORY
    assert budget // 4 < searcher.table_bytes <= budget  # it used the budget, and never passed it


@pytest.mark.skipif(fast.BACKEND != "c", reason="the C core is not built")
def test_the_c_tables_grow_until_the_budget_then_stop():
    """With twice the budget the C search meets more positions (the bound is what stops it)."""
    met = []
    for budget in (8 << 20, 16 << 20):
        searcher = _searcher(fast.CSearcher, HARD_DRAW_THREE, whole_groups=True, pending=True, max_bytes=budget)
        with pytest.raises(Budget):
            _run(searcher, "dfs")
        met.append(searcher.nodes)
    assert met[1] > 1.5 * met[0]


@pytest.mark.parametrize("kind", ["dfs", "best"])
def test_the_python_estimate_follows_the_memory_it_really_takes(kind):
    """The Python search counts its tables per entry; tracemalloc sees the same order of bytes."""
    searcher = _searcher(Searcher, HARD_DRAW_THREE, whole_groups=True, pending=kind == "dfs",
                         streamline=kind == "best", max_nodes=3000)
    tracemalloc.start()
    try:
        with pytest.raises(Budget):
            _run(searcher, kind)
        _current, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak / 2 <= searcher.table_bytes <= peak * 2, (peak, searcher.table_bytes)


def test_the_cli_sets_the_budget_and_shows_the_reason():
    result = CliRunner().invoke(solve_command, [HARD_DRAW_THREE, "--memory-mb", "1"])
    assert result.exit_code == 0 and f"{HARD_DRAW_THREE}: unknown (memory budget spent)" in result.output

"""Draw 1 plays every draw-3 line (RULES.md: a draw moves min(draw, stock) cards one at a time, a recycle
turns the whole waste over in the same order either way): the free verdicts across draw modes."""

from __future__ import annotations

import itertools
import random

from service.engine import Action, Game, GameCode
from service.engine.deal import DEAL_COUNT
from service.solver import schedule, solve, tuning
from tests.solver.test_solver import random_endgame


def as_draw_one(game: Game, line) -> list[Action]:
    """The draw-3 ``line`` from ``game`` written for draw 1: each draw becomes min(3, stock) draws."""
    copy = Game.from_state(game.to_state())
    out: list[Action] = []
    for action in line:
        if action.kind == "draw":
            out.extend([Action.draw()] * min(3, len(copy.stock)))
        else:
            out.append(action)
        copy.apply(action)
    return out


def in_draw_one(game: Game) -> Game:
    """The same position, played in draw 1."""
    state = game.to_state()
    code = GameCode.parse(state["code"])
    return Game.from_state({**state, "code": str(GameCode(draw=1, deal=code.deal))})


def test_a_draw_three_win_is_a_draw_one_win():
    rng = random.Random(31)
    won = 0
    for n in range(40):
        game = Game.from_code(GameCode(draw=3, deal=rng.randrange(DEAL_COUNT)))
        if n % 2:
            game = random_endgame(rng, rng.randint(10, 13), 3)
        solution = solve(game, budget_ms=3000)
        if solution.verdict != "winnable":
            continue
        single = in_draw_one(game)
        for action in as_draw_one(game, solution.line):
            single.apply(action)  # every action legal in draw 1 (apply raises a Rejection otherwise)
        assert single.won
        won += 1
    assert won >= 20


def draw_one_losses(seed: int, tries: int = 300):
    """Draw-3 endgames whose draw-1 twin the search proves lost."""
    rng = random.Random(seed)
    for _ in range(tries):
        game = random_endgame(rng, rng.randint(8, 13), 3)
        if solve(in_draw_one(game), budget_ms=3000).verdict == "unwinnable":
            yield game


def test_a_draw_one_loss_is_a_draw_three_loss(monkeypatch):
    """Checked with the draw-3 search alone (solve's draw-1 proof search turned off)."""
    monkeypatch.setattr(tuning, "DRAW_ONE_WEIGHT", 0.0)
    lost = 0
    for game in draw_one_losses(13):
        assert solve(game, budget_ms=10_000).verdict == "unwinnable", game.to_state()
        lost += 1
    assert lost >= 10


def test_a_late_weight_of_zero_stops_that_search(monkeypatch):
    """After QUICK_PHASE_S the draw-1 proof search stops, instead of dividing its time share by 0."""
    monkeypatch.setattr(tuning, "DRAW_ONE_LATE_WEIGHT", 0.0)
    # A clock that moves 1 ms a reading, whatever the machine: the late phase starts after a few
    # dozen slices, and the budget ends after about 150, far fewer than this lost deal's proof needs.
    ticks = itertools.count(0.0, 0.001)
    solution = solve(Game.from_code("TF1-D3N-FUPFMMA"), budget_ms=300, clock=lambda: next(ticks))
    assert (solution.verdict, solution.reason) == ("unknown", "time")


def test_solve_in_draw_three_takes_the_draw_one_proof(monkeypatch):
    """The draw-1 search alone proves these lost: solve() then answers for draw 3 without its own proof."""
    proven = 0
    for game in draw_one_losses(17):
        monkeypatch.setattr(tuning, "COMPLETE_WEIGHT", 1e-9)  # the draw-3 complete search never gets a turn
        monkeypatch.setattr(tuning, "COMPLETE_LATE_WEIGHT", 1e-9)
        assert solve(game, budget_ms=10_000).verdict == "unwinnable"
        monkeypatch.undo()
        proven += 1
    assert proven >= 10


def _proofs_dropped(monkeypatch) -> list[int]:
    """The nodes of each draw-1 proof that solve() stops, as it stops it."""
    dropped: list[int] = []
    real_drop = schedule._drop

    def drop(searches, entry):
        running = entry[0]
        if running.draw == 1 and not getattr(running, "streamline", True):
            dropped.append(running.nodes)
        real_drop(searches, entry)

    monkeypatch.setattr(schedule, "_drop", drop)
    return dropped


def test_a_quick_draw_one_win_stops_the_draw_one_proof(monkeypatch):
    """TF1-D3N-PQWUFDW: lost in draw 3, won in draw 1, where the quick search wins in a few thousand
    positions while the proof search meets millions without a win. Once the quick one wins, the
    proof stops (it can no longer prove anything), and the draw-3 proof decides sooner."""
    game = Game.from_code("TF1-D3N-PQWUFDW")
    dropped = _proofs_dropped(monkeypatch)

    def solved():
        ticks = itertools.count(0.0, 0.001)  # 1 ms a reading: the shares count slices on any machine
        return solve(game, budget_ms=600_000, clock=lambda: next(ticks))

    with_quick = solved()
    assert with_quick.verdict == "unwinnable"
    assert len(dropped) == 1 and dropped[0] < 2_000_000  # alone it meets over 10 M before its own win
    # Without the quick draw-1 search the proof runs on until the draw-3 proof decides.
    monkeypatch.setattr(tuning, "QUICK_DRAW_ONE_WEIGHT", 0.0)
    dropped.clear()
    without = solved()
    assert without.verdict == "unwinnable" and dropped == []
    assert with_quick.nodes * 2 < without.nodes


def test_in_draw_one_the_complete_search_has_its_own_late_weight(monkeypatch):
    """Draw 1's complete search takes COMPLETE_LATE_WEIGHT_IN_DRAW_1 after the quick phase, not draw 3's weight."""
    game = Game.from_code("TF1-D1N-TTAULSJ")  # lost: its proof meets about 150,000 positions

    def solved(budget_ms: int):
        ticks = itertools.count(0.0, 0.001)
        return solve(game, budget_ms=budget_ms, clock=lambda: next(ticks))

    monkeypatch.setattr(tuning, "COMPLETE_LATE_WEIGHT", 0.0)  # would stop it in draw 3
    assert solved(600_000).verdict == "unwinnable"
    monkeypatch.setattr(tuning, "COMPLETE_LATE_WEIGHT_IN_DRAW_1", 0.0)
    solution = solved(300)
    assert (solution.verdict, solution.reason) == ("unknown", "time")

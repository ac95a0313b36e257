"""Whole games played to the win by a tiny depth-first search over legal actions."""

from __future__ import annotations

import pytest

from service.engine import Action, Game, Pile, Rejection, replay

# Deals the search below wins within a few hundred nodes (found by running it).
WINNABLE = ["TF1-D1N-AAAAAAC", "TF1-D3N-AAAAAAQ"]


def _clone(game: Game) -> Game:
    return Game.from_state(game.to_state())


def _priority(game: Game, action: Action) -> int:
    """Foundation first, then the waste, then moves that uncover a card, then the stock."""
    if action.kind == "move":
        if action.target.is_foundation:
            return 0
        if action.source is Pile.WASTE:
            return 1
        column = game.tableau[action.source.column]
        index = column.index(action.card)
        if index == 0 and action.card.rank == 13:
            return 9  # a king already at the bottom gains nothing by moving
        return 2 if index else 3
    return {"draw": 4, "recycle": 5}.get(action.kind, 9)


def solve(code: str, budget: int = 5000) -> list[Action] | None:
    """A winning line from the start of ``code``, or None within ``budget`` nodes."""
    seen: set = set()
    path: list[Action] = []
    nodes = 0

    def search(game: Game) -> bool:
        nonlocal nodes
        if game.won:
            return True
        nodes += 1
        key = (
            tuple(sorted(tuple(column) for column in game.tableau)), tuple(game.stock), tuple(game.waste),
            tuple(game.foundations),
        )
        if nodes > budget or key in seen:
            return False
        seen.add(key)
        ranked = sorted(
            (_priority(game, a), i, a) for i, a in enumerate(game.legal_actions())
            if a.kind not in ("undo", "take-back")
        )
        for priority, _, action in ranked:
            if priority == 9:
                continue
            child = _clone(game)
            child.apply(action)
            path.append(action)
            if search(child):
                return True
            path.pop()
        return False

    return path if search(Game.from_code(code)) else None


@pytest.mark.parametrize("code", WINNABLE)
def test_won_game_scores_and_finishes(code):
    line = solve(code)
    assert line is not None
    game = Game.from_code(code)
    waste_to_column = 0
    recycle_costs = 0
    total = 0
    for action in line:
        assert game.status == "playing"
        outcome = game.apply(action)
        total += outcome.points
        if outcome.source is Pile.WASTE and outcome.target.is_column:
            waste_to_column += 1
            assert outcome.points == 5
        if action.kind == "recycle":
            assert -100 <= outcome.points <= 0
            recycle_costs -= outcome.points
    assert game.won and game.status == "won" and game.foundations == [13, 13, 13, 13]
    assert game.score == total == 520 + 5 * waste_to_column - recycle_costs
    assert game.arrived == (1 << 52) - 1
    view = game.view()
    assert (view["status"], view["stock"], view["waste"], view["can_undo"]) == ("won", 0, [], False)
    assert view["tableau"] == [[] for _ in range(7)]
    assert game.version == len(line) == game.moves
    # the history and the code alone reproduce the game
    assert replay(code, [str(a) for a in line]) == game
    assert Game.from_state(game.to_state()) == game
    # finished: everything, undo included, is GAME_FINISHED and changes nothing
    before = game.to_state()
    for text in ("undo", "draw", "recycle", "fS>t1", "tap:t1", "dtap:waste", "t1>t2", "waste>foundation"):
        with pytest.raises(Rejection) as info:
            game.apply(Action.parse(text))
        assert (info.value.code, info.value.params) == ("GAME_FINISHED", {})
        assert not game.is_legal(Action.parse(text))
    assert game.to_state() == before
    assert game.legal_actions() == []


def test_a_won_line_includes_a_floored_recycle():
    # In TF1-D3N-AAAAAAQ the recycle comes while the score is below 100.
    line = solve("TF1-D3N-AAAAAAQ")
    game = Game.from_code("TF1-D3N-AAAAAAQ")
    costs = []
    for action in line:
        score = game.score
        outcome = game.apply(action)
        if action.kind == "recycle":
            costs.append((score, outcome.points))
    assert costs and all(points == -min(100, score) for score, points in costs)
    assert any(score < 100 for score, _ in costs)

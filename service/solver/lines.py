"""A search's winning path as engine actions, and the replay that makes a wrong "winnable" impossible.

The searches record ``(state_before, move)`` pairs in their own encoding
(:mod:`service.solver.search`); :func:`actions` turns them into the engine's actions,
the talon's draws and recycles included, and :func:`verify` replays a line through the
engine on a copy of the game: it must end in a win.
"""

from __future__ import annotations

from service.engine import CARDS, COLUMNS, FOUNDATIONS, Action, Game, Pile

from .search import CC, CF, FC, SUIT, TC, TF, talon_steps

_DRAW, _RECYCLE = Action.draw(), Action.recycle()


def actions(path, draw: int):
    """Engine actions for the searcher's ``(state_before, move)`` path, draws included."""
    for state, move in path:
        cols, found, talon, p = state[:4]
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


def verify(game: Game, line: tuple[Action, ...]) -> None:
    """Replay ``line`` on a copy of ``game``; it must end in a win (else the solver has a bug)."""
    copy = Game.from_state(game.to_state())
    for action in line:
        copy.apply(action)
    if not copy.won:
        raise AssertionError("solver line does not win")

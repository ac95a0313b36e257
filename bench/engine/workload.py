"""The engine bench's workload: positions reached by random legal play, and apply+undo pairs timed on them.

Shared by ``bench/engine`` (against python-chess) and ``bench/engine_js`` (against the JS engine).
"""

from __future__ import annotations

import random
import time

from service.engine import Action, Game, GameCode

UNDO, DRAW, RECYCLE = Action.undo(), Action.draw(), Action.recycle()

#: CPU time of this process: time spent descheduled while other processes load
#: the machine does not count, which steadies the rates (both sides use it).
clock = time.process_time


def random_play(game: Game, rng: random.Random, steps: int, undo_share: float = 0.0) -> Game:
    """Play ``steps`` random legal actions (undo with probability ``undo_share``)."""
    for _ in range(steps):
        if game.won:
            break
        actions = [a for a in game.legal_actions() if a.kind != "undo"]
        if game.can_undo and rng.random() < undo_share:
            game.apply(UNDO)
        else:
            game.apply(rng.choice(actions))
    return game


def engine_positions(rng: random.Random, deals: int) -> list[tuple[Game, list[Action]]]:
    """Positions from random legal play over several deals, with their legal actions."""
    positions = []
    for _ in range(deals):
        code = GameCode(draw=rng.choice((1, 3)), deal=rng.randrange(26**7))
        game = Game.from_code(code)
        for _ in range(rng.randrange(5, 60)):
            random_play(game, rng, 1)
            actions = [a for a in game.legal_actions() if a.kind != "undo"]
            if actions:
                # a copy, so that playing on does not change the stored position
                positions.append((Game.from_state(game.to_state()), actions))
    return positions


def time_engine(positions, reps: int) -> float:
    """apply+undo pairs per second over every legal action of every position."""
    pairs = 0
    start = clock()
    for _ in range(reps):
        for game, actions in positions:
            apply = game.apply
            for action in actions:
                apply(action)
                apply(UNDO)
            pairs += len(actions)
    return pairs / (clock() - start)

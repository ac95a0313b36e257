"""Hints and proven-winnable deals: the solver behind the HTTP layer.

A search can take a second or two, so it never runs under a game's write lock:
the hint is computed for the version read, and only the hint counter is
updated in a short transaction of its own.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from flask import current_app
from sqlalchemy import update

from ..engine import Game as EngineGame
from ..engine import GameCode
from ..extensions import db
from ..solver import Solution, hint, winnable_deal
from ..store import Game, write_transaction
from .auth import require_owner
from .games import blp, get_game
from .present import json_response
from .problems import ApiProblem
from .schemas import HintSchema


def proven_winnable_code(draw: int) -> GameCode:
    """A random deal the solver has proven winnable, or 503 when none is found in time."""
    found = winnable_deal(draw, deadline_s=current_app.config["WINNABLE_DEAL_DEADLINE_MS"] / 1000)
    if found is None:
        raise ApiProblem("WINNABLE_DEAL_TIMEOUT", draw=draw, headers={"Retry-After": "1"})
    return found[0]


class _HintCache:
    """Solutions by (game id, version): a position is not searched again for repeated hints."""

    def __init__(self, size: int = 512) -> None:
        self._entries: OrderedDict[tuple[str, int], Solution] = OrderedDict()
        self._size = size
        self._lock = threading.Lock()

    def solve(self, game_id: str, version: int, state: dict, budget_ms: int, max_nodes: int) -> Solution:
        key = (game_id, version)
        with self._lock:
            if key in self._entries:
                self._entries.move_to_end(key)
                return self._entries[key]
        solution = hint(EngineGame.from_state(state), budget_ms=budget_ms, max_nodes=max_nodes)
        with self._lock:
            self._entries[key] = solution
            while len(self._entries) > self._size:
                self._entries.popitem(last=False)
        return solution


_hints = _HintCache()


@blp.route("/<game_id>/hint")
@blp.response(200, HintSchema)
@blp.doc(operationId="getHint", security=[{"bearer": []}])
@blp.problem(401, "AUTH_REQUIRED: no bearer token.")
@blp.problem(403, "FORBIDDEN: the token is not the owner's.")
@blp.problem(404, "GAME_NOT_FOUND")
@blp.problem(409, "GAME_FINISHED: a won game needs no hint.")
def game_hint(game_id):
    """Hint the next action of a winning line

    Owner only. `verdict` is `winnable` (with `action`, the first step of a complete
    winning line from the current position), `unwinnable` (the search proved no line
    exists) or `unknown` (the search ran out of budget). Each request counts in the
    game's `hints`.
    """
    row = get_game(game_id)
    require_owner(row.token_hash)
    if row.status == "won":
        raise ApiProblem("GAME_FINISHED")
    version, state = row.version, row.state
    db.session.rollback()  # no transaction stays open during the search
    config = current_app.config
    solution = _hints.solve(game_id, version, state, config["SOLVER_HINT_BUDGET_MS"], config["SOLVER_HINT_MAX_NODES"])
    with write_transaction() as session:
        hints = session.execute(
            update(Game).where(Game.id == game_id).values(hints=Game.hints + 1).returning(Game.hints)
        ).scalar_one()
    first = solution.line[0] if solution.verdict == "winnable" and solution.line else None
    return json_response({
        "game": game_id,
        "version": version,
        "verdict": solution.verdict,
        "action": first.to_json() if first else None,
        "notation": str(first) if first else None,
        "line_length": len(solution.line),
        "nodes": solution.nodes,
        "ms": round(solution.ms, 1),
        "hints": hints,
    })

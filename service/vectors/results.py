"""The lines as a conformance runner writes them: a game's results, a deal, compact JSON."""

from __future__ import annotations

import json

from ..engine import Action, Game, GameCode, NotationError, Outcome, Rejection, deal_cards
from ..engine.cards import format_cards

#: The runner's code for a notation that does not parse (the engine has no code for it).
INVALID_REQUEST = "INVALID_REQUEST"


def action_result(game: Game, notation: str) -> tuple[dict, Outcome | None]:
    """Apply one notation: the runner's result for it, and the outcome when accepted."""
    try:
        action = Action.parse(notation)
    except NotationError:
        return {"ok": False, "code": INVALID_REQUEST, "params": {"notation": notation}}, None
    try:
        outcome = game.apply(action)
    except Rejection as rejection:
        return {"ok": False, "code": rejection.code, "params": rejection.params}, None
    return {"ok": True, "game": game.view()}, outcome


def replay_results(code: str, notations: list[str]) -> dict:
    """What a conformance runner prints for one game: ``{"results": […]}`` or ``{"error": …}``."""
    try:
        game = Game.from_code(code)
    except Rejection as rejection:
        return {"error": {"code": rejection.code, "params": rejection.params}}
    return {"results": [action_result(game, notation)[0] for notation in notations]}


def dumps(line: dict) -> str:
    """One line as the vectors write it: compact JSON, UTF-8, keys in the engine's order."""
    return json.dumps(line, separators=(",", ":"), ensure_ascii=False)


def deal_line(deal: int) -> dict:
    """A deal's line: its draw-1 code, the tableau bottom card first, the stock first card drawn first."""
    tableau, stock = deal_cards(deal)
    return {"kind": "deal", "code": str(GameCode(draw=1, deal=deal)),
            "tableau": [format_cards(column) for column in tableau], "stock": format_cards(stock)}

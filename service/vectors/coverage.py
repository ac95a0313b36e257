"""What the vectors must exercise: the coverage entries, their minimums, and how an action counts."""

from __future__ import annotations

from collections import Counter

from ..engine import ACTION_CODES, FOUNDATIONS, PRECEDENCE, Action, Game, NotationError, Outcome, Pile
from ..engine.cards import STEP
from .results import INVALID_REQUEST

WINS = 50

_FOUNDATION_PILES = {pile.value for pile in FOUNDATIONS} | {Pile.FOUNDATION.value}
_KING = 12

# Coverage entries besides the codes (every code of the engine, INVALID_GAME_CODE and the
# runner's INVALID_REQUEST for a notation that does not parse).
FIRST_ARRIVAL = "score +10: a card's first arrival on a foundation"
ARRIVED_AGAIN = "score 0: a card on a foundation again"
WASTE_TO_COLUMN = "score +5: waste to column"
RECYCLE_FULL = "score -100: recycle"
RECYCLE_CLIPPED = "score -1..-99: recycle clipped at 0"
RECYCLE_FREE = "score 0: recycle at score 0"
COLUMN_TO_COLUMN = "score 0: column to column"
TAKE_BACK = "score 0: take-back"
DRAW = "score 0: draw"
UNDO_POINTS = "undo taking points back"
SHORT_DRAW = "draw 3 with fewer than 3 cards left"
TAP = "tap to a foundation"
DOUBLE_TO_FOUNDATION = "double tap to a foundation"
DOUBLE_TO_COLUMN = "double tap to a column"
DOUBLE_TIE = "double tap: a tie between columns of equal length"
DOUBLE_KING = "double tap: a king to an empty column"
DOUBLE_KING_AT_BOTTOM = "double tap: a king at the bottom of its column, an empty column free"
WON = "games won (solver lines)"
ACTIONS = "actions"

#: The least count of each entry (ACTIONS: the --actions option).
MINIMUMS: dict[str, int] = {
    **{code: 20 for code in (*PRECEDENCE, *ACTION_CODES, "INVALID_GAME_CODE", INVALID_REQUEST)},
    **{entry: 20 for entry in (
        FIRST_ARRIVAL, ARRIVED_AGAIN, WASTE_TO_COLUMN, RECYCLE_FULL, RECYCLE_CLIPPED, RECYCLE_FREE,
        COLUMN_TO_COLUMN, TAKE_BACK, DRAW, UNDO_POINTS, SHORT_DRAW, TAP, DOUBLE_TO_FOUNDATION,
        DOUBLE_TO_COLUMN, DOUBLE_TIE, DOUBLE_KING, DOUBLE_KING_AT_BOTTOM)},
    WON: WINS,
    "draw 1 actions": 5_000,
    "draw 3 actions": 5_000,
}


def count_action(counted: Counter[str], draw: int, result: dict, outcome: Outcome | None, facts: set[str]) -> None:
    """Count one played action under every entry it exercises (``facts``: :func:`double_tap_facts`)."""
    counted[ACTIONS] += 1
    counted[f"draw {draw} actions"] += 1
    if outcome is None:
        counted[result["code"]] += 1
        if result["code"] == "NO_DESTINATION" and "king at bottom" in facts:
            counted[DOUBLE_KING_AT_BOTTOM] += 1
        return
    kind = outcome.action.kind
    source = outcome.source.value if outcome.source else None
    target = outcome.target.value if outcome.target else None
    if kind == "undo":
        if outcome.points:
            counted[UNDO_POINTS] += 1
    elif kind == "draw":
        counted[DRAW] += 1
        if draw == 3 and len(outcome.cards) < 3:
            counted[SHORT_DRAW] += 1
    elif kind == "recycle":
        if outcome.points == -100:
            counted[RECYCLE_FULL] += 1
        elif outcome.points:
            counted[RECYCLE_CLIPPED] += 1
        else:
            counted[RECYCLE_FREE] += 1
    elif kind == "take-back":
        counted[TAKE_BACK] += 1
    else:
        if target in _FOUNDATION_PILES:
            counted[FIRST_ARRIVAL if outcome.points else ARRIVED_AGAIN] += 1
        elif source == "waste":
            counted[WASTE_TO_COLUMN] += 1
        else:
            counted[COLUMN_TO_COLUMN] += 1
        if kind == "tap":
            to_column = target not in _FOUNDATION_PILES
            if not outcome.action.double:
                counted[TAP] += 1
            else:
                counted[DOUBLE_TO_COLUMN if to_column else DOUBLE_TO_FOUNDATION] += 1
            if to_column and "tie" in facts:
                counted[DOUBLE_TIE] += 1
            if to_column and "king" in facts:
                counted[DOUBLE_KING] += 1


def double_tap_facts(game: Game, notation: str) -> set[str]:
    """What makes a double tap interesting here: a tie, a king and an empty column."""
    if not notation.startswith("dtap:"):
        return set()
    try:
        action = Action.parse(notation)
    except NotationError:
        return set()
    column = action.source.value != "waste"
    pile = game.tableau[action.source.column] if column else game.waste
    if not pile or (action.card is not None and action.card not in pile):
        return set()
    index = len(pile) - 1 if action.card is None else pile.index(action.card)
    card = pile[index]
    own = action.source.column if column else -1
    accepting = [len(other) for dst, other in enumerate(game.tableau)
                 if dst != own and other and STEP[other[-1]][card]]
    facts = set()
    if len(accepting) > 1 and accepting.count(max(accepting)) > 1:
        facts.add("tie")
    if card % 13 == _KING and any(not other for other in game.tableau):
        facts.add("king at bottom" if column and index == 0 else "king")
    return facts

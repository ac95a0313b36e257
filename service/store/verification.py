"""Does a stored game agree with the replay of its history from its code?

Used by ``GET /v1/games/{id}/verification`` and ``flask --app service verify``.
A difference in the state names the parts that differ, never their cards: the
stock's order is secret while the game is played.
"""

from __future__ import annotations

from ..engine import Action, Game, NotationError, Rejection
from .feed import history_notations
from .games import DERIVED_COLUMNS as COLUMNS
from .games import GameRecord


def verify(row: GameRecord) -> dict:
    """The verification report of a stored game: ``consistent`` and each difference found.

    ``differences`` holds ``{"field", "stored", "replayed"}`` items (``history``: the
    first action that does not replay, with its ``seq`` and rejection ``code``;
    ``state``: the ``parts`` that differ).
    """
    notations = history_notations(row.id)
    differences: list[dict] = []
    game = Game.from_code(row.code)
    for seq, notation in enumerate(notations, start=1):
        try:
            game.apply(Action.parse(notation))
        except Rejection as rejection:
            differences.append({"field": "history", "seq": seq, "action": notation, "code": rejection.code})
            break
        except NotationError:
            differences.append({"field": "history", "seq": seq, "action": notation, "code": "INVALID_NOTATION"})
            break
    else:
        state = game.to_state()
        stored = row.state if isinstance(row.state, dict) else {}
        parts = sorted(key for key in state.keys() | stored.keys() if state.get(key) != stored.get(key))
        if parts:
            differences.append({"field": "state", "parts": parts})
        for name in COLUMNS:
            if getattr(row, name) != getattr(game, name):
                differences.append({"field": name, "stored": getattr(row, name), "replayed": getattr(game, name)})
        if len(notations) != game.version:
            differences.append({"field": "actions", "stored": len(notations), "replayed": game.version})
        if row.status == "won" and row.line != " ".join(notations):
            differences.append({"field": "line", "stored": row.line, "replayed": " ".join(notations)})
    return {
        "game": row.id, "code": row.code, "consistent": not differences, "actions": len(notations),
        "replayed": {name: getattr(game, name) for name in COLUMNS},
        "differences": differences,
    }


def describe(difference: dict) -> str:
    """One difference as a sentence, for the command line."""
    field = difference["field"]
    if field == "history":
        return f"history does not replay at action {difference['seq']} ({difference['action']}): {difference['code']}"
    if field == "state":
        return f"stored state differs from the replay in {', '.join(difference['parts'])}"
    if field == "actions":
        return f"{difference['stored']} history rows for version {difference['replayed']}"
    if field == "line":
        return "the won game's line differs from its history"
    return f"{field} column is {difference['stored']!r}, replay gives {difference['replayed']!r}"

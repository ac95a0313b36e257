"""The rejection codes of ``RULES.md`` and the one exception that carries them.

When an action breaks several rules the first code of :data:`PRECEDENCE` wins;
the game checks the rules in that order, so the first failing check is the answer.
"""

from __future__ import annotations

#: Rule codes in the order of the rejection table: the first broken rule wins.
PRECEDENCE: tuple[str, ...] = (
    "GAME_FINISHED",
    "SOURCE_EMPTY",
    "CARD_NOT_IN_PILE",
    "WASTE_TOP_ONLY",
    "SAME_PILE",
    "INVALID_TARGET",
    "GROUP_NOT_ORDERED",
    "FOUNDATION_ONE_CARD",
    "FOUNDATION_WRONG_SUIT",
    "FOUNDATION_SEQUENCE",
    "EMPTY_COLUMN_KING_ONLY",
    "TABLEAU_COLOUR",
    "TABLEAU_RANK",
)

#: Codes outside the precedence table, each raised by one action only.
ACTION_CODES: tuple[str, ...] = (
    "STOCK_EMPTY",
    "STOCK_NOT_EMPTY",
    "NOTHING_TO_RECYCLE",
    "NOTHING_TO_UNDO",
    "UNDO_LIMIT_REACHED",
    "NO_DESTINATION",
)

#: The literature's variant only (``Game(..., variant="klondike")``, never offered to players): a
#: column card dealt face down that is still face down was named.  It judges the named card in
#: its source pile, like rules 2-4, so it comes right after ``WASTE_TOP_ONLY`` (the two never
#: meet: one is about the waste, the other about columns); our variant never raises it, and its
#: PRECEDENCE, ACTION_CODES and RULE_PARAMS stay as they are.
FACE_DOWN_CODE = "CARD_FACE_DOWN"
KLONDIKE_PRECEDENCE: tuple[str, ...] = (
    *PRECEDENCE[: PRECEDENCE.index("WASTE_TOP_ONLY") + 1], FACE_DOWN_CODE,
    *PRECEDENCE[PRECEDENCE.index("WASTE_TOP_ONLY") + 1 :],
)
KLONDIKE_PARAMS: dict[str, tuple[str, ...]] = {FACE_DOWN_CODE: ("card", "pile")}

#: Every code the engine raises, with the names of the params it always carries.
RULE_PARAMS: dict[str, tuple[str, ...]] = {
    "GAME_FINISHED": (),
    "SOURCE_EMPTY": ("pile",),
    "CARD_NOT_IN_PILE": ("card", "pile"),
    "WASTE_TOP_ONLY": ("card", "top"),
    "SAME_PILE": ("pile",),
    "INVALID_TARGET": ("pile",),
    "GROUP_NOT_ORDERED": ("card", "pile", "above", "below"),
    "FOUNDATION_ONE_CARD": ("card", "count"),
    "FOUNDATION_WRONG_SUIT": ("card", "foundation"),
    "FOUNDATION_SEQUENCE": ("card", "foundation", "needs"),
    "EMPTY_COLUMN_KING_ONLY": ("card", "column"),
    "TABLEAU_COLOUR": ("card", "onto"),
    "TABLEAU_RANK": ("card", "onto"),
    "STOCK_EMPTY": (),
    "STOCK_NOT_EMPTY": ("stock",),
    "NOTHING_TO_RECYCLE": (),
    "NOTHING_TO_UNDO": (),
    "UNDO_LIMIT_REACHED": ("limit",),
    "NO_DESTINATION": ("card", "pile"),
    "INVALID_GAME_CODE": ("code",),
}


class Rejection(Exception):
    """A rule refused an action; ``code`` is stable, ``params`` name the cards and piles.

    >>> Rejection("TABLEAU_COLOUR", card="7H", onto="8D").params
    {'card': '7H', 'onto': '8D'}
    """

    def __init__(self, code: str, /, **params) -> None:
        super().__init__(code)
        self.code = code
        self.params = params

    def __repr__(self) -> str:
        return f"Rejection({self.code!r}, {self.params!r})"

"""Actions and their one-line text notation, used by the history export and replay.

=================  =========================================================
notation           action
=================  =========================================================
``t3>t5``          move the last card of t3 onto t5
``t3>t5:9C``       move 9C and every card above it from t3 onto t5
``waste>foundation`` move the top waste card to its own foundation
``t1>fH``          move the last card of t1 to the hearts foundation
``fH>t4``          take the top card of the hearts foundation back onto t4
``draw``           draw from the stock
``recycle``        turn the waste over into the stock
``undo``           undo the most recent action
``tap:t3``         single tap on the last card of t3 (foundation only)
``dtap:t3:9C``     double tap on 9C of t3 (foundation, else a column)
=================  =========================================================

>>> Action.parse("T3>t5:10c")
Traceback (most recent call last):
...
service.engine.cards.NotationError: not a pile: 'T3'
>>> str(Action.parse("t3>t5:10c"))
't3>t5:TC'
"""

from __future__ import annotations

from dataclasses import dataclass

from .cards import COLUMNS, Card, NotationError, Pile

MOVE, DRAW, RECYCLE, UNDO, TAKE_BACK, TAP = "move", "draw", "recycle", "undo", "take-back", "tap"
KINDS = (MOVE, DRAW, RECYCLE, UNDO, TAKE_BACK, TAP)
_BARE = {DRAW, RECYCLE, UNDO}
_PLAY_SOURCES = frozenset(COLUMNS) | {Pile.WASTE}


@dataclass(frozen=True, slots=True)
class Action:
    """One player action; invalid combinations of kind and piles raise NotationError."""

    kind: str
    source: Pile | None = None
    target: Pile | None = None
    card: Card | None = None
    double: bool = False

    def __post_init__(self) -> None:
        kind, source, target = self.kind, self.source, self.target
        if kind in _BARE:
            ok = source is None and target is None and self.card is None and not self.double
        elif kind == MOVE:
            ok = source in _PLAY_SOURCES and target is not None and not self.double
        elif kind == TAKE_BACK:
            ok = source is not None and source.is_foundation and source is not Pile.FOUNDATION
            ok = ok and target is not None and self.card is None and not self.double
        elif kind == TAP:
            ok = source in _PLAY_SOURCES and target is None
        else:
            ok = False
        if not ok:
            raise NotationError(f"not a valid action: {self!r}")

    # -- constructors ---------------------------------------------------------

    @classmethod
    def move(cls, source: str | Pile, target: str | Pile, card: str | Card | None = None) -> Action:
        """A move of ``card`` (default: the source's top card) and the cards above it."""
        return cls(MOVE, _pile(source), _pile(target), _card(card))

    @classmethod
    def take_back(cls, source: str | Pile, target: str | Pile) -> Action:
        """The top card of foundation ``source`` back onto column ``target``."""
        return cls(TAKE_BACK, _pile(source), _pile(target))

    @classmethod
    def tap(cls, source: str | Pile, card: str | Card | None = None, double: bool = False) -> Action:
        """A single or double tap on ``card`` (default: the source's top card)."""
        return cls(TAP, _pile(source), None, _card(card), bool(double))

    @classmethod
    def draw(cls) -> Action:
        return _DRAW

    @classmethod
    def recycle(cls) -> Action:
        return _RECYCLE

    @classmethod
    def undo(cls) -> Action:
        return _UNDO

    # -- notation -------------------------------------------------------------

    @classmethod
    def parse(cls, text: str) -> Action:
        """Parse the one-line notation; raise NotationError for anything else."""
        if not isinstance(text, str):
            raise NotationError(f"not an action: {text!r}")
        if text in _BARE:
            return cls(text)
        if text.startswith(("tap:", "dtap:")):
            prefix, _, rest = text.partition(":")
            source, colon, card = rest.partition(":")
            if colon and not card:
                raise NotationError(f"an empty card after ':': {text!r}")
            return cls.tap(source, card or None, double=prefix == "dtap")
        source, arrow, rest = text.partition(">")
        if not arrow:
            raise NotationError(f"not an action: {text!r}")
        target, colon, card = rest.partition(":")
        if colon and not card:
            raise NotationError(f"an empty card after ':': {text!r}")
        if source.startswith("f"):
            if card:
                raise NotationError(f"a take-back names no card: {text!r}")
            return cls.take_back(source, target)
        return cls.move(source, target, card or None)

    def __str__(self) -> str:
        kind = self.kind
        if kind in _BARE:
            return kind
        suffix = f":{self.card}" if self.card is not None else ""
        if kind == TAP:
            return f"{'dtap' if self.double else 'tap'}:{self.source}{suffix}"
        return f"{self.source}>{self.target}{suffix}"

    def to_json(self) -> dict:
        """The action as the API writes it: ``{"action", "from", "to", "card", "double"}``."""
        out: dict = {"action": self.kind}
        if self.source is not None:
            out["from"] = self.source.value
        if self.target is not None:
            out["to"] = self.target.value
        if self.card is not None:
            out["card"] = str(self.card)
        if self.kind == TAP:
            out["double"] = self.double
        return out


def _pile(value: str | Pile) -> Pile:
    return value if isinstance(value, Pile) else Pile.parse(value)


def _card(value: str | Card | None) -> Card | None:
    if value is None or isinstance(value, Card):
        return value
    return Card.parse(value)


_DRAW, _RECYCLE, _UNDO = Action(DRAW), Action(RECYCLE), Action(UNDO)


def parse_action(text: str) -> Action:
    """Parse one action of the notation (alias of :meth:`Action.parse`)."""
    return Action.parse(text)


def format_action(action: Action) -> str:
    """Format one action in the notation (alias of ``str(action)``)."""
    return str(action)

"""Cards and piles: the value types every other module speaks in.

A card is an ``int`` from 0 to 51 in the order of the unshuffled deck
(``AS 2S … KS AH … KH AD … KD AC … KC``), so that decks, piles and bitmasks
stay plain integers on the hot path while still printing as ``"TH"``.

>>> Card.parse("10h")
Card('TH')
>>> str(Card.parse("ks")), Card.parse("ks").rank, Card.parse("KS").is_red
('KS', 13, False)
"""

from __future__ import annotations

from enum import StrEnum

RANKS = "A23456789TJQK"
SUITS = "SHDC"
RED_SUITS = frozenset("HD")


class NotationError(ValueError):
    """Text that is not a card, a pile or an action of the notation."""


class Card(int):
    """One of the 52 cards; construct with :meth:`parse` or index :data:`CARDS`."""

    __slots__ = ()

    @property
    def rank(self) -> int:
        """Rank from 1 (ace) to 13 (king)."""
        return self % 13 + 1

    @property
    def suit(self) -> str:
        """Suit letter: ``S``, ``H``, ``D`` or ``C``."""
        return SUITS[self // 13]

    @property
    def suit_index(self) -> int:
        """Index of the suit in ``SHDC``, which is also its foundation's index."""
        return self // 13

    @property
    def is_red(self) -> bool:
        """True for hearts and diamonds."""
        return 13 <= self < 39

    def __str__(self) -> str:
        return _NAMES[self]

    def __repr__(self) -> str:
        return f"Card('{_NAMES[self]}')"

    @classmethod
    def parse(cls, text: str) -> Card:
        """Parse ``"9C"``, ``"th"`` or ``"10H"`` (any case); raise NotationError otherwise."""
        # Look up the text as given first (a canonical name is the common case);
        # upper-case only ASCII text, since str.upper() maps some non-ASCII letters
        # to ASCII ones (``"ſ".upper() == "S"``) and would accept garbage.
        card = _BY_NAME.get(text) if isinstance(text, str) else None
        if card is None:
            if not isinstance(text, str) or not text.isascii():
                raise NotationError(f"not a card: {text!r}")
            card = _BY_NAME.get(text.upper())
            if card is None:
                raise NotationError(f"not a card: {text!r}")
        return card

    @classmethod
    def of(cls, rank: int, suit: str) -> Card:
        """The card of ``rank`` (1–13) and ``suit`` letter."""
        return CARDS[SUITS.index(suit) * 13 + rank - 1]


_NAMES = tuple(r + s for s in SUITS for r in RANKS)
CARDS: tuple[Card, ...] = tuple(Card(i) for i in range(52))
_BY_NAME = {name: CARDS[i] for i, name in enumerate(_NAMES)}
_BY_NAME.update({"10" + s: _BY_NAME["T" + s] for s in SUITS})


def cards_named(names: list[str]) -> list[Card]:
    """The cards of a list of names as :func:`format_cards` writes them (a stored state's).

    One dict lookup per card: restoring a game's 52 cards through :meth:`Card.parse`
    was most of the cost of loading a stored game. Any other name goes through
    :meth:`Card.parse`, which accepts it or says what is wrong.
    """
    try:
        return [_BY_NAME[name] for name in names]
    except (KeyError, TypeError):
        return [Card.parse(name) for name in names]


def is_sequence_step(lower: int, upper: int) -> bool:
    """True when ``upper`` may lie on ``lower`` in a column: other colour, one rank lower."""
    return (lower % 13) == (upper % 13) + 1 and (13 <= lower < 39) != (13 <= upper < 39)


def format_cards(cards) -> list[str]:
    """Canonical names of a sequence of cards."""
    return [_NAMES[c] for c in cards]


class Pile(StrEnum):
    """A pile name as the API and the notation write it."""

    T1 = "t1"
    T2 = "t2"
    T3 = "t3"
    T4 = "t4"
    T5 = "t5"
    T6 = "t6"
    T7 = "t7"
    STOCK = "stock"
    WASTE = "waste"
    FS = "fS"
    FH = "fH"
    FD = "fD"
    FC = "fC"
    FOUNDATION = "foundation"  # a target only: the moved card's own foundation

    def __str__(self) -> str:
        return self.value

    @classmethod
    def parse(cls, text: str) -> Pile:
        """Parse an exact pile name; raise NotationError otherwise."""
        try:
            return cls(text)
        except ValueError:
            raise NotationError(f"not a pile: {text!r}") from None

    @property
    def is_column(self) -> bool:
        return self.value[0] == "t"

    @property
    def is_foundation(self) -> bool:
        """True for ``fS``…``fC`` and for the generic ``foundation``."""
        return self.value[0] == "f"

    @property
    def column(self) -> int:
        """Column index 0–6 of ``t1``…``t7``."""
        return int(self.value[1]) - 1

    @property
    def suit_index(self) -> int:
        """Suit index 0–3 of ``fS``…``fC``."""
        return SUITS.index(self.value[1])


COLUMNS: tuple[Pile, ...] = (Pile.T1, Pile.T2, Pile.T3, Pile.T4, Pile.T5, Pile.T6, Pile.T7)
FOUNDATIONS: tuple[Pile, ...] = (Pile.FS, Pile.FH, Pile.FD, Pile.FC)

# Hot-path facts about each pile, read by the game as plain instance attributes
# (cheaper than the properties above): ``_col`` is the column 0–6 (-1 for any
# other pile) and ``_suit`` the foundation 0–3 (4 for the generic ``foundation``,
# -1 for any other pile).
for _pile in Pile:
    _pile._col = int(_pile.value[1]) - 1 if _pile.value[0] == "t" else -1
    _pile._suit = (
        4 if _pile is Pile.FOUNDATION else SUITS.index(_pile.value[1]) if _pile.value[0] == "f" else -1
    )
del _pile

#: ``STEP[lower][upper]`` is 1 when ``upper`` may lie on ``lower`` in a column
#: (the table form of :func:`is_sequence_step`, for the hot path).
STEP: tuple[bytes, ...] = tuple(bytes(int(is_sequence_step(lo, up)) for up in range(52)) for lo in range(52))

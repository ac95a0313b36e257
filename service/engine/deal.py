"""Deals and game codes: SplitMix64, Fisher–Yates and the ``TF1-D1N-AAAAAAB`` format.

The algorithm is public (``RULES.md``) so that any client can reproduce a deal.

>>> code = GameCode.parse("tf1-d3n-aaaaaab")
>>> str(code), code.draw, code.deal
('TF1-D3N-AAAAAAB', 3, 1)
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass

from .cards import CARDS, Card
from .rejections import Rejection

MASK64 = (1 << 64) - 1
DEAL_COUNT = 26**7
DRAW_MODES = (1, 3)
_CODE_RE = re.compile(r"TF1-D([13])([A-Z])-([A-Z]{7})")


def splitmix64(seed: int):
    """Yield the SplitMix64 sequence seeded with ``seed``."""
    state = seed & MASK64
    while True:
        state = (state + 0x9E3779B97F4A7C15) & MASK64
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        yield z ^ (z >> 31)


def shuffled_deck(deal: int) -> list[Card]:
    """The 52 cards of deal number ``deal`` in dealing order."""
    deck = list(CARDS)
    rng = splitmix64(deal)
    for i in range(51, 0, -1):
        j = next(rng) % (i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def deal_cards(deal: int) -> tuple[list[list[Card]], list[Card]]:
    """Tableau columns (bottom first) and stock (first card drawn first) of a deal."""
    deck = shuffled_deck(deal)
    tableau: list[list[Card]] = [[] for _ in range(7)]
    position = 0
    for row in range(7):
        for col in range(row, 7):
            tableau[col].append(deck[position])
            position += 1
    return tableau, deck[28:]


def random_deal() -> int:
    """A deal number drawn uniformly from a cryptographic source."""
    return secrets.randbelow(DEAL_COUNT)


def format_deal(deal: int) -> str:
    """The 7-letter base-26 form of a deal number."""
    letters = []
    for _ in range(7):
        deal, digit = divmod(deal, 26)
        letters.append(chr(65 + digit))
    return "".join(reversed(letters))


@dataclass(frozen=True, slots=True)
class GameCode:
    """A parsed game code: draw mode, scoring letter and deal number."""

    draw: int
    deal: int
    scoring: str = "N"

    def __post_init__(self) -> None:
        if self.draw not in DRAW_MODES or not 0 <= self.deal < DEAL_COUNT or self.scoring != "N":
            raise ValueError(f"not a valid game code: draw={self.draw} deal={self.deal}")

    def __str__(self) -> str:
        return f"TF1-D{self.draw}{self.scoring}-{format_deal(self.deal)}"

    @classmethod
    def parse(cls, text: str) -> GameCode:
        """Parse a code in any letter case; raise ``Rejection(INVALID_GAME_CODE)`` otherwise."""
        # ASCII only: str.upper() maps some other letters to ASCII (``"ı"`` → ``"I"``,
        # ``"ﬀ"`` → ``"FF"``), which would accept garbage as a valid code.
        valid = isinstance(text, str) and text.isascii()
        match = _CODE_RE.fullmatch(text.upper()) if valid else None
        if match is None or match.group(2) != "N":
            raise Rejection("INVALID_GAME_CODE", code=str(text)[:64])
        deal = 0
        for letter in match.group(3):
            deal = deal * 26 + ord(letter) - 65
        return cls(draw=int(match.group(1)), deal=deal, scoring="N")

    @classmethod
    def random(cls, draw: int = 1) -> GameCode:
        """A code for a uniformly random deal."""
        return cls(draw=draw, deal=random_deal())

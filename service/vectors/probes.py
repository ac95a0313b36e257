"""Probes: notations and codes aimed at what the vectors still lack, each leaving the position as it was."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterator

from ..engine import COLUMNS, FOUNDATIONS, Action, Game, GameCode, NotationError, Pile, Rejection
from ..engine.cards import STEP, format_cards
from ..engine.deal import DEAL_COUNT
from .coverage import (
    ARRIVED_AGAIN,
    DOUBLE_KING,
    DOUBLE_KING_AT_BOTTOM,
    DOUBLE_TIE,
    RECYCLE_CLIPPED,
    RECYCLE_FREE,
    RECYCLE_FULL,
    SHORT_DRAW,
    double_tap_facts,
)
from .results import INVALID_REQUEST

PILES = [pile.value for pile in Pile]
PLAY_SOURCES = [*(pile.value for pile in COLUMNS), Pile.WASTE.value]

#: Notations that do not parse, or parse to no action (RULES.md fine point 2).
MALFORMED = (
    "", "DRAW", " draw", "draw ", "T3>t5", "t3>t5:", "t3>t5:1H", "t8>t1", "t0>t1", "fX>t1", "tap:", "tap:t3:",
    "dtap:stock", "tap:fH", "waste>t1:AS:", "t1->t2", "t1>>t2", "foundation>t1", "fH>t1:AH", "stock>waste",
    "t3>t5:10♥", "t3>t5:ᴋs", "t1>t2:ks ", "tap:t1:t2", "undo:t1", "t1>foundation:XS", "fS>", ">t1", "tap",
    "t1>t2:AS:KS",
)

#: Codes that are not game codes (RULES.md), some long (params keep 64 code points).
BAD_CODES = (
    "", "TF1-D1N-AAAAAA", "TF1-D1N-AAAAAAAA", "TF1-D2N-AAAAAAB", "TF1-D1X-AAAAAAB", "TF2-D1N-AAAAAAB",
    "TF1-D1N-AAAAAA1", " TF1-D1N-AAAAAAB", "TF1-D1N-AAAAAAB ", "TF1-D1N-AAAAAAB\n", "TF1_D1N_AAAAAAB",
    "TF1-D1N-ÀAAAAAB", "tf1-d1n-aaaaaaſ", "ＴＦ1-D1N-AAAAAAB", "TF1-D3N-", "TF1-D1NAAAAAAB", "null",
    "x" * 100, "🂡" * 70, "TF1-D1N-AAAAAAB" + "é" * 60, "TF1-D3S-AAAAAAB", "TF1-D0N-AAAAAAB",
)


def mutated_codes(rng: random.Random, count: int) -> list[str]:
    """``count`` game codes with one character changed at random, each of them no longer a game code."""
    codes: list[str] = []
    alphabet = "TFDN13-ABZ0x ſ"
    while len(codes) < count:
        text = list(str(GameCode(draw=rng.choice((1, 3)), deal=rng.randrange(DEAL_COUNT))))
        text[rng.randrange(len(text))] = rng.choice(alphabet)
        candidate = "".join(text)
        try:
            GameCode.parse(candidate)
        except Rejection:
            codes.append(candidate)
    return codes


def probe(game: Game, rng: random.Random, coverage: Counter[str], minimums: dict[str, int]) -> list[str]:
    """The notations of one probe: aimed at an entry under its minimum when one can be, else random."""
    near_win = sum(game.foundations) >= 51  # a legal probe could win: refused probes only
    builders = [(entry, build) for entry, build in TARGETED if coverage[entry] < minimums.get(entry, 0)]
    rng.shuffle(builders)
    for _, build in builders:
        notations = None if near_win else build(game)
        if notations:
            return notations
    return _random_probe(game, rng, coverage, minimums, legal_allowed=not near_win)


def _double_taps(game: Game) -> Iterator[str]:
    """Every double tap on a card whose group above is in sequence."""
    for col, column in enumerate(game.tableau):
        for index in range(len(column) - 1, -1, -1):
            yield f"dtap:{COLUMNS[col].value}:{format_cards([column[index]])[0]}"
            if index and not STEP[column[index - 1]][column[index]]:
                break
    if game.waste:
        yield "dtap:waste"


def _probe_tie(game: Game) -> list[str] | None:
    for notation in _double_taps(game):
        if "tie" in double_tap_facts(game, notation) and game.is_legal(Action.parse(notation)):
            return [notation, "undo"]
    return None


def _probe_king(game: Game) -> list[str] | None:
    for notation in _double_taps(game):
        if "king" in double_tap_facts(game, notation) and game.is_legal(Action.parse(notation)):
            return [notation, "undo"]  # the undo takes back the probe, never the line's action
    return None


def _probe_king_at_bottom(game: Game) -> list[str] | None:
    for notation in _double_taps(game):
        if "king at bottom" in double_tap_facts(game, notation) and not game.is_legal(Action.parse(notation)):
            return [notation]
    return None


def _probe_resend(game: Game) -> list[str] | None:
    for action in game.legal_actions():
        if action.kind == "take-back":
            return [str(action), f"{action.target}>{action.source}"]
    return None


def _probe_recycle(game: Game) -> list[str] | None:
    return ["recycle", "undo"] if not game.stock and game.waste else None


def _probe_empty_talon(game: Game) -> list[str] | None:
    return ["recycle", "draw"] if not game.stock and not game.waste else None


def _probe_draw(game: Game) -> list[str] | None:
    return ["draw", "undo"] if game.code.draw == 3 and 0 < len(game.stock) < 3 else None


#: Each rare entry and the probe that can reach it from a position (or None there).
TARGETED: tuple[tuple[str, Callable[[Game], list[str] | None]], ...] = (
    (DOUBLE_TIE, _probe_tie), (DOUBLE_KING, _probe_king), (DOUBLE_KING_AT_BOTTOM, _probe_king_at_bottom),
    (ARRIVED_AGAIN, _probe_resend), (RECYCLE_FULL, _probe_recycle), (RECYCLE_CLIPPED, _probe_recycle),
    (RECYCLE_FREE, _probe_recycle), ("NOTHING_TO_RECYCLE", _probe_empty_talon),
    ("STOCK_EMPTY", _probe_empty_talon), (SHORT_DRAW, _probe_draw),
)


def _random_probe(game: Game, rng: random.Random, coverage: Counter[str], minimums: dict[str, int],
                  legal_allowed: bool) -> list[str]:
    """Of a few random notations, the one whose answer is the least covered."""
    best, best_need = None, None
    for _ in range(24):
        notation = _random_notation(game, rng)
        try:
            action = Action.parse(notation)
            game.check(action)
            entry = "legal"
        except NotationError:
            entry = INVALID_REQUEST
        except Rejection as rejection:
            entry = rejection.code
        if entry == "legal" and (not legal_allowed or action.kind == "undo"):
            continue  # a probe leaves the position as it was: an accepted undo would not
        need = coverage[entry] - minimums.get(entry, 0)  # under its minimum: < 0
        if best_need is None or need < best_need:
            best, best_need = (notation, entry), need
    if best is None:
        return ["t1>stock"]
    notation, entry = best
    return [notation, "undo"] if entry == "legal" else [notation]


def _random_notation(game: Game, rng: random.Random) -> str:
    roll = rng.random()
    if roll < 0.06:
        return rng.choice(MALFORMED)
    if roll < 0.12:
        return rng.choice(("draw", "recycle", "undo"))
    if roll < 0.2:
        return f"{rng.choice(FOUNDATIONS).value}>{rng.choice(PILES)}"
    source = rng.choice(PLAY_SOURCES)
    pile = game.waste if source == "waste" else game.tableau[int(source[1]) - 1]
    pick = rng.random()
    if pile and pick >= 0.4:
        card = rng.choice(pile)  # a card of the pile
    elif pick < 0.3:
        card = None  # its top card
    else:
        card = rng.randrange(52)  # most often a card of another pile
    suffix = "" if card is None else ":" + _card_text(card, rng)
    if roll < 0.4:
        return f"{rng.choice(('tap', 'dtap'))}:{source}{suffix}"
    return f"{source}>{rng.choice(PILES)}{suffix}"


def _card_text(card: int, rng: random.Random) -> str:
    """A card's name as clients may write it: canonical mostly, else lower case or with 10."""
    name = format_cards([card])[0]
    roll = rng.random()
    if roll < 0.1:
        return name.lower()
    if roll < 0.15 and name[0] == "T":
        return "10" + name[1]
    return name

"""The rules fingerprint: a hash of the engine's answers, held per RULES_VERSION by a test."""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Iterator

from ..engine import FOUNDATIONS, Action, Game, GameCode, Rejection, shuffled_deck
from ..engine.cards import format_cards
from ..engine.deal import DEAL_COUNT
from .probes import PILES, PLAY_SOURCES

FINGERPRINT_SEED = 36
FINGERPRINT_GAMES = 24
FINGERPRINT_STEPS = 120


def fingerprint(seed: int = FINGERPRINT_SEED) -> str:
    """SHA-256 of the engine's answers on a fixed, systematic set of positions and actions.

    Deliberately simple and independent of the vectors' generator, so that it changes only
    when the engine's behaviour does: the first 100 deals; then games of random legal play
    (3,000 actions), each action's outcome and view, and at every fifth position the legal
    actions and the answer to every move, take-back and tap naming no card or any card of its
    source pile. A change here means a new RULES_VERSION (tests/engine/test_rules_version.py).
    """
    rng = random.Random(seed)
    digest = hashlib.sha256()

    def feed(value) -> None:
        digest.update(json.dumps(value, sort_keys=True, ensure_ascii=False).encode() + b"\n")

    for deal in range(100):
        feed(format_cards(shuffled_deck(deal)))
    for number in range(FINGERPRINT_GAMES):
        game = Game.from_code(GameCode(draw=(1, 3)[number % 2], deal=rng.randrange(DEAL_COUNT)))
        for step in range(FINGERPRINT_STEPS):
            legal = game.legal_actions()
            if step % 5 == 0:
                feed([str(action) for action in legal])
                for notation in _every_probe(game):
                    try:
                        game.check(Action.parse(notation))
                        feed([notation, "ok"])
                    except Rejection as rejection:
                        feed([notation, rejection.code, rejection.params])
            if not legal:
                break
            action = rng.choice(legal)
            feed([str(action), game.apply(action).to_json(), game.view()])
        feed(game.to_state())
    return digest.hexdigest()


def _every_probe(game: Game) -> Iterator[str]:
    for source in PLAY_SOURCES:
        pile = game.waste if source == "waste" else game.tableau[int(source[1]) - 1]
        suffixes = ["", *(":" + name for name in format_cards(pile))]
        for suffix in suffixes:
            for target in PILES:
                yield f"{source}>{target}{suffix}"
            yield f"tap:{source}{suffix}"
            yield f"dtap:{source}{suffix}"
    for foundation in FOUNDATIONS:
        for target in PILES:
            yield f"{foundation.value}>{target}"
    yield from ("draw", "recycle", "undo")

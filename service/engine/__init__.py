"""The rules engine of Solitaire Réfléchi: pure Python, no Flask, no database."""

from .cards import CARDS, COLUMNS, FOUNDATIONS, Card, NotationError, Pile
from .deal import DEAL_COUNT, GameCode, deal_cards, random_deal, shuffled_deck
from .game import KLONDIKE, REFLECHI, RULES_VERSION, UNDO_LIMIT, VARIANTS, Game, Outcome, replay
from .notation import Action, format_action, parse_action
from .rejections import ACTION_CODES, PRECEDENCE, RULE_PARAMS, Rejection

__all__ = [
    "ACTION_CODES", "CARDS", "COLUMNS", "DEAL_COUNT", "FOUNDATIONS", "KLONDIKE", "PRECEDENCE", "REFLECHI",
    "RULES_VERSION", "RULE_PARAMS", "UNDO_LIMIT", "VARIANTS", "Action", "Card", "Game", "GameCode", "NotationError",
    "Outcome", "Pile",
    "Rejection", "deal_cards", "format_action", "parse_action", "random_deal", "replay",
    "shuffled_deck",
]

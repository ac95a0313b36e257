"""Hand-built positions for the engine tests."""

from __future__ import annotations

from service.engine import CARDS, Card, Game, Rejection
from service.engine.rejections import KLONDIKE_PARAMS, RULE_PARAMS


def c(name: str) -> Card:
    return Card.parse(name)


def cards(text: str) -> list[Card]:
    return [Card.parse(name) for name in text.split()]


def position(
    tableau=("",) * 7, waste="", foundations=(0, 0, 0, 0), stock="", draw=1, arrived=None, rest="stock",
) -> Game:
    """A game with the given piles, cards written as text (bottom first, waste top last).

    ``foundations`` are counts per suit (S H D C). ``stock`` lists the first cards
    to be drawn, first drawn first. Every card not named anywhere goes, in deck
    order, after them in the stock (``rest="stock"``) or under the named waste
    cards (``rest="waste"``). ``arrived`` defaults to the foundation cards. The 52
    cards are checked.
    """
    game = Game.from_code(f"TF1-D{draw}N-AAAAAAB")
    assert len(tableau) == 7
    game.tableau = [cards(column) for column in tableau]
    game.waste = cards(waste)
    game.foundations = list(foundations)
    on_foundations = [CARDS[s * 13 + r] for s, count in enumerate(foundations) for r in range(count)]
    first_drawn = cards(stock)
    placed = [card for column in game.tableau for card in column] + game.waste + on_foundations + first_drawn
    leftover = [card for card in CARDS if card not in placed]
    if rest == "stock":
        first_drawn += leftover
    else:
        game.waste[:0] = leftover
    game.stock = first_drawn[::-1]  # internally the next card to draw is last
    everything = placed + leftover
    assert sorted(everything) == list(range(52)), "a position must hold the 52 cards once"
    mask = 0
    for card in on_foundations if arrived is None else cards(arrived):
        mask |= 1 << card
    game.arrived = mask
    return game


def reject(game: Game, action, code: str, **params) -> Rejection:
    """Assert that ``action`` is rejected with ``code`` and exactly ``params``, changing nothing."""
    before = game.to_state()
    try:
        game.check(action)
    except Rejection as error:
        assert (error.code, error.params) == (code, params)
    else:
        raise AssertionError(f"check accepted {action}, expected {code}")
    assert game.to_state() == before
    try:
        game.apply(action)
    except Rejection as error:
        assert (error.code, error.params) == (code, params)
        assert set(error.params) == set({**RULE_PARAMS, **KLONDIKE_PARAMS}[code])
        assert game.to_state() == before
        assert not game.is_legal(action)
        return error
    raise AssertionError(f"apply accepted {action}, expected {code}")


def state_without_counters(game: Game) -> dict:
    state = game.to_state()
    del state["moves"], state["undos"]
    return state

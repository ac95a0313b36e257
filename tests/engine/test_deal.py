"""Deals and game codes: the public algorithm of RULES.md, cross-checked and pinned."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from service.engine import DEAL_COUNT, Game, GameCode, Rejection, deal_cards, shuffled_deck
from service.engine.cards import format_cards

MASK = (1 << 64) - 1

# Pinned vectors: computed by the engine and by the independent re-implementation
# below, then written here as literals so that a change to either shows up.
VECTORS = {
    "TF1-D1N-AAAAAAA": (
        [
            ["8C"], ["JD", "TS"], ["9S", "3H", "8S"], ["2C", "AS", "QC", "3D"],
            ["2H", "JS", "KD", "5S", "4C"], ["QH", "7S", "5D", "AD", "TH", "8D"],
            ["6C", "9D", "2S", "6S", "5H", "8H", "AH"],
        ],
        [
            "QD", "TC", "QS", "JH", "3C", "4H", "2D", "9H", "3S", "KH", "AC", "7C",
            "9C", "7H", "JC", "6D", "KC", "4S", "7D", "5C", "6H", "4D", "KS", "TD",
        ],
    ),
    "TF1-D1N-AAAAAAB": (
        [
            ["7H"], ["9S", "6H"], ["4H", "9C", "2H"], ["8D", "JS", "JD", "2S"],
            ["8H", "5H", "5D", "AH", "KD"], ["5C", "KH", "7D", "6C", "TD", "JC"],
            ["JH", "3S", "4D", "KS", "TC", "TH", "8C"],
        ],
        [
            "QS", "4C", "6S", "7S", "AC", "5S", "AD", "KC", "6D", "QC", "QD", "QH",
            "9H", "3H", "3C", "AS", "4S", "2D", "8S", "TS", "3D", "2C", "9D", "7C",
        ],
    ),
    "TF1-D1N-ZZZZZZZ": (
        [
            ["6C"], ["5C", "7H"], ["JD", "9S", "6D"], ["4H", "TS", "8D", "2D"],
            ["4C", "AD", "TD", "QS", "8H"], ["2C", "KC", "JC", "2H", "8S", "6S"],
            ["AS", "3S", "6H", "8C", "9H", "JS", "9C"],
        ],
        [
            "KD", "4S", "5D", "9D", "3C", "KH", "2S", "KS", "QD", "7C", "5S", "4D",
            "JH", "3H", "AC", "QC", "AH", "7S", "TC", "TH", "7D", "5H", "QH", "3D",
        ],
    ),
}


# -- an independent implementation, written from the text of RULES.md only ------

def _splitmix64(seed):
    state = seed
    while True:
        state = (state + 0x9E3779B97F4A7C15) & MASK
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        yield z ^ (z >> 31)


def _reference_deal(number):
    deck = [rank + suit for suit in "SHDC" for rank in "A23456789TJQK"]
    rng = _splitmix64(number)
    for i in range(51, 0, -1):
        j = next(rng) % (i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    columns = [[] for _ in range(7)]
    position = 0
    for row in range(7):
        for col in range(row, 7):
            columns[col].append(deck[position])
            position += 1
    return columns, deck[28:]


def _deal_number(letters):
    number = 0
    for letter in letters:
        number = number * 26 + "ABCDEFGHIJKLMNOPQRSTUVWXYZ".index(letter)
    return number


@pytest.mark.parametrize("code", sorted(VECTORS))
def test_pinned_vectors(code):
    tableau, stock = VECTORS[code]
    number = _deal_number(code[-7:])
    assert _reference_deal(number) == (tableau, stock)
    columns, engine_stock = deal_cards(GameCode.parse(code).deal)
    assert [format_cards(c) for c in columns] == tableau
    assert format_cards(engine_stock) == stock
    # the game starts from that deal, and stock[0] (deck[28]) is drawn first
    game = Game.from_code(code)
    assert game.view()["tableau"] == tableau
    assert game.to_state()["stock"] == stock


VECTORS_FILE = json.loads((Path(__file__).parent / "deal_vectors.json").read_text())


def test_vectors_json_file_holds_the_same_codes():
    assert set(VECTORS_FILE) == set(VECTORS)


@pytest.mark.parametrize("code", VECTORS)
def test_vectors_json_file_agrees(code):
    tableau, stock = VECTORS[code]
    assert VECTORS_FILE[code] == {"tableau": tableau, "stock": stock}


@pytest.mark.parametrize("number", [2, 3, 25, 26, 12345, 987654321, DEAL_COUNT - 2])
def test_engine_matches_reference(number):
    columns, stock = deal_cards(number)
    assert ([format_cards(c) for c in columns], format_cards(stock)) == _reference_deal(number)
    deck = shuffled_deck(number)
    assert sorted(deck) == list(range(52))


def test_first_draw_is_deck_28():
    game = Game.from_code("TF1-D1N-AAAAAAB")
    from service.engine import Action

    outcome = game.apply(Action.draw())
    assert [str(c) for c in outcome.cards] == ["QS"]
    assert game.view()["waste"] == ["QS"]


def test_draw_modes_share_cards():
    d1, d3 = Game.from_code("TF1-D1N-QWERTYU"), Game.from_code("TF1-D3N-QWERTYU")
    assert d1.view()["tableau"] == d3.view()["tableau"]
    assert d1.to_state()["stock"] == d3.to_state()["stock"]
    assert (d1.draw_count, d3.draw_count) == (1, 3)


# -- parsing -------------------------------------------------------------------

@pytest.mark.parametrize(
    ("text", "canonical", "draw", "deal"),
    [
        ("TF1-D1N-AAAAAAB", "TF1-D1N-AAAAAAB", 1, 1),
        ("tf1-d3n-aaaaaab", "TF1-D3N-AAAAAAB", 3, 1),
        ("Tf1-D1n-zZzZzZz", "TF1-D1N-ZZZZZZZ", 1, DEAL_COUNT - 1),
        ("TF1-D1N-AAAAAAA", "TF1-D1N-AAAAAAA", 1, 0),
        ("TF1-D3N-AAAAABA", "TF1-D3N-AAAAABA", 3, 26),
        ("TF1-D1N-BAAAAAA", "TF1-D1N-BAAAAAA", 1, 26**6),
    ],
)
def test_code_parse(text, canonical, draw, deal):
    code = GameCode.parse(text)
    assert (str(code), code.draw, code.deal, code.scoring) == (canonical, draw, deal, "N")
    assert GameCode.parse(str(code)) == code
    assert str(Game.from_code(text).code) == canonical


@pytest.mark.parametrize(
    "text",
    [
        "", "garbage", "TF1-D1N-AAAAAA", "TF1-D1N-AAAAAAAA", "TF2-D1N-AAAAAAB", "TF1-D2N-AAAAAAB",
        "TF1-D0N-AAAAAAB", "TF1-D1X-AAAAAAB", "TF1-D1S-AAAAAAB", "TF1-D1A-AAAAAAB", "TF1-D1-AAAAAAB",
        "TF1-D1N-AAAAAA1", "TF1-D1NAAAAAAB", "TF1_D1N_AAAAAAB", " TF1-D1N-AAAAAAB", "TF1-D1N-AAAAAAB ",
        "TF1-D1N-AAAAAAB\n", "TF1-D13N-AAAAAAB", "TF1-D1N-AAAAAA\u0131", "TF1-D1N-AAAAA\ufb00",
        "TF1-D1N-ÄAAAAAB", None, 1, b"TF1-D1N-AAAAAAB",
    ],
)
def test_code_rejects_garbage(text):
    with pytest.raises(Rejection) as info:
        GameCode.parse(text)
    assert info.value.code == "INVALID_GAME_CODE"
    assert set(info.value.params) == {"code"}
    with pytest.raises(Rejection):
        Game.from_code(text)


def test_code_rejection_param_is_the_text():
    with pytest.raises(Rejection) as info:
        GameCode.parse("tf2-d1n-aaaaaab")
    assert info.value.params == {"code": "tf2-d1n-aaaaaab"}


def test_code_constructor_validates():
    with pytest.raises(ValueError):
        GameCode(draw=2, deal=0)
    with pytest.raises(ValueError):
        GameCode(draw=1, deal=DEAL_COUNT)
    with pytest.raises(ValueError):
        GameCode(draw=1, deal=0, scoring="X")


def test_random_code_is_valid():
    for draw in (1, 3):
        code = GameCode.random(draw)
        assert code.draw == draw and 0 <= code.deal < DEAL_COUNT
        assert GameCode.parse(str(code)) == code

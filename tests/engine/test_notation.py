"""The one-line action notation, card and pile names (fine points 1 and 2)."""

from __future__ import annotations

import pytest

from service.engine import CARDS, Action, Card, Game, NotationError, Pile, format_action, parse_action, replay
from service.engine.notation import DRAW, KINDS


@pytest.mark.parametrize(
    "text",
    [
        "t3>t5", "t3>t5:9C", "waste>foundation", "waste>t1", "waste>t1:KD", "t1>fH", "t7>foundation:AS",
        "fH>t4", "fS>t1", "fC>t7", "draw", "recycle", "undo", "tap:t3", "tap:t3:9C", "tap:waste",
        "dtap:waste", "dtap:t3:9C", "dtap:t1", "t3>stock", "t3>waste", "t3>t3", "waste>waste",
        "fH>fH", "fH>foundation", "fD>stock", "t2>t5:TH",
    ],
)
def test_round_trip(text):
    action = Action.parse(text)
    assert str(action) == text == format_action(action)
    assert parse_action(text) == action
    assert Action.parse(str(action)) == action


def test_every_kind_is_covered():
    kinds = {Action.parse(t).kind for t in ("t1>t2", "draw", "recycle", "undo", "fH>t1", "tap:t1")}
    assert kinds == set(KINDS)


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("t3>t5:9c", "t3>t5:9C"), ("t3>t5:10h", "t3>t5:TH"), ("t3>t5:10H", "t3>t5:TH"),
        ("t3>t5:th", "t3>t5:TH"), ("tap:t3:qs", "tap:t3:QS"), ("dtap:t3:10s", "dtap:t3:TS"),
        ("waste>foundation:aD", "waste>foundation:AD"),
    ],
)
def test_cards_any_case_output_canonical(text, canonical):
    assert str(Action.parse(text)) == canonical


@pytest.mark.parametrize(
    "text",
    [
        "", "T3>t5", "t3>T5", "t3>t5:9X", "t3>t5:1H", "t3>t5:11H", "Draw", "DRAW", " draw", "draw ", "t3",
        "t3>", ">t5", "stock>t1", "foundation>t1", "fH>t4:AH", "tap:fH", "tap:stock", "tap:foundation",
        "dtap:t3:9C:x", "t8>t1", "t0>t1", "tap", "dtap", "t3>t5>t6", "fh>t4", "FH>t4", "Tap:t1", "t3-t5",
        "t1>Foundation", "t1>FOUNDATION", "t1>fs", "waste>Waste", "t3>t5:", "tap:t3:", "dtap:", "undo:t1",
        "draw>t1", "t1>t2:AS:", "t1>t2:aſ",
    ],
)
def test_notation_errors(text):
    with pytest.raises(NotationError):
        Action.parse(text)


@pytest.mark.parametrize("value", [None, 5, b"draw", ["draw"]])
def test_notation_rejects_non_text(value):
    with pytest.raises(NotationError):
        Action.parse(value)


def test_notation_error_is_a_value_error():
    assert issubclass(NotationError, ValueError)


def test_constructors_agree_with_parse():
    assert Action.move("t3", "t5", "9c") == Action.parse("t3>t5:9C")
    assert Action.move(Pile.T3, Pile.T5, Card.parse("9C")) == Action.parse("t3>t5:9C")
    assert Action.move("waste", "foundation") == Action.parse("waste>foundation")
    assert Action.take_back("fH", "t4") == Action.parse("fH>t4")
    assert Action.tap("t3", "9C", double=True) == Action.parse("dtap:t3:9C")
    assert Action.tap("waste") == Action.parse("tap:waste")
    assert Action.draw() == Action.parse("draw") == Action(DRAW)
    assert Action.recycle() == Action.parse("recycle")
    assert Action.undo() == Action.parse("undo")


@pytest.mark.parametrize(
    "build",
    [
        lambda: Action.move("stock", "t1"), lambda: Action.move("fH", "t1"), lambda: Action.move("T1", "t2"),
        lambda: Action.move("t1", "t9"), lambda: Action.move("t1", "t2", "ZZ"),
        lambda: Action.take_back("t1", "t2"), lambda: Action.take_back("foundation", "t1"),
        lambda: Action.take_back("waste", "t1"), lambda: Action.tap("fH"), lambda: Action.tap("stock"),
        lambda: Action("bogus"), lambda: Action(DRAW, source=Pile.T1), lambda: Action("undo", double=True),
        lambda: Action("move", Pile.T1, None), lambda: Action("tap", Pile.T1, Pile.T2),
        lambda: Action("take-back", Pile.FH, Pile.T1, Card.parse("AH")),
        lambda: Action("move", Pile.T1, Pile.T2, None, True),
    ],
)
def test_invalid_combinations(build):
    with pytest.raises(NotationError):
        build()


def test_to_json():
    assert Action.parse("t3>t5:9C").to_json() == {"action": "move", "from": "t3", "to": "t5", "card": "9C"}
    assert Action.parse("waste>foundation").to_json() == {"action": "move", "from": "waste", "to": "foundation"}
    assert Action.parse("fH>t4").to_json() == {"action": "take-back", "from": "fH", "to": "t4"}
    assert Action.parse("draw").to_json() == {"action": "draw"}
    assert Action.parse("tap:t1").to_json() == {"action": "tap", "from": "t1", "double": False}
    assert Action.parse("dtap:t1:KS").to_json() == {"action": "tap", "from": "t1", "card": "KS", "double": True}


@pytest.mark.parametrize("card", CARDS, ids=str)
def test_card_names(card):
    name = str(card)
    assert Card.parse(name) == card == Card.parse(name.lower()) == Card.parse(name[0].lower() + name[1])
    assert repr(card) == f"Card('{name}')"
    assert Card.of(card.rank, card.suit) == card


@pytest.mark.parametrize("suit", "SHDC")
def test_a_ten_is_10_or_t(suit):
    assert Card.parse("10" + suit) == Card.parse("T" + suit) == Card.parse("10" + suit.lower())


def test_card_properties():
    assert [Card.parse(n).rank for n in ("AS", "TD", "JH", "QC", "KS")] == [1, 10, 11, 12, 13]
    assert [Card.parse(n).is_red for n in ("AS", "AH", "AD", "AC")] == [False, True, True, False]
    assert [Card.parse(n).suit_index for n in ("KS", "KH", "KD", "KC")] == [0, 1, 2, 3]


@pytest.mark.parametrize(
    "text", ["", "A", "1H", "11H", "010H", "1OH", "ASS", " AS", "AS ", "A S", "ZS", "AX", "aſ", "ＡＳ", None, 3],
)
def test_card_errors(text):
    with pytest.raises(NotationError):
        Card.parse(text)


@pytest.mark.parametrize("pile", Pile, ids=str)
def test_pile_names_are_exact(pile):
    assert Pile.parse(pile.value) is pile and str(pile) == pile.value


@pytest.mark.parametrize("text", ["T1", "fh", "FH", "Foundation", "Stock", "t8", "t0", "", " t1", "f", "tableau"])
def test_pile_errors(text):
    with pytest.raises(NotationError):
        Pile.parse(text)


def test_pile_properties():
    assert [p.is_column for p in (Pile.T1, Pile.WASTE, Pile.FH)] == [True, False, False]
    assert [p.is_foundation for p in (Pile.FOUNDATION, Pile.FC, Pile.STOCK)] == [True, True, False]
    assert (Pile.T7.column, Pile.FD.suit_index) == (6, 2)


def test_replay_accepts_notation_and_actions():
    history = ["draw", "draw", "undo", Action.draw(), "draw"]
    game = replay("TF1-D3N-AAAAAAB", history)
    assert (game.moves, game.undos, game.version) == (4, 1, 5)
    live = Game.from_code("TF1-D3N-AAAAAAB")
    for item in history:
        live.apply(item if isinstance(item, Action) else Action.parse(item))
    assert live == game


def test_outcome_to_json():
    game = Game.from_code("TF1-D3N-AAAAAAB")
    assert game.apply(Action.draw()).to_json() == {
        "action": "draw", "points": 0, "cards": ["QS", "4C", "6S"], "moved_from": "stock", "moved_to": "waste",
    }
    assert game.apply(Action.undo()).to_json() == {
        "action": "undo", "points": 0, "cards": ["QS", "4C", "6S"], "moved_from": "waste",
        "moved_to": "stock", "undone": "draw",
    }

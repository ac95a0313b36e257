"""Every rule and every rejection code of RULES.md, on hand-built positions."""

from __future__ import annotations

import pytest
from engine_helpers import c, position, reject, state_without_counters

from service.engine import PRECEDENCE, UNDO_LIMIT, Action, Game, Pile
from service.engine.rejections import ACTION_CODES, RULE_PARAMS

M, D, R, U = Action.move, Action.draw(), Action.recycle(), Action.undo()
TB, TAP = Action.take_back, Action.tap
EMPTY = ("",) * 7


def cols(*columns):
    return tuple(columns) + ("",) * (7 - len(columns))


def texts(game):
    return game.view()["tableau"]


# -- the code tables --------------------------------------------------------------

def test_precedence_table_matches_rules_md():
    assert PRECEDENCE == (
        "GAME_FINISHED", "SOURCE_EMPTY", "CARD_NOT_IN_PILE", "WASTE_TOP_ONLY", "SAME_PILE",
        "INVALID_TARGET", "GROUP_NOT_ORDERED", "FOUNDATION_ONE_CARD", "FOUNDATION_WRONG_SUIT",
        "FOUNDATION_SEQUENCE", "EMPTY_COLUMN_KING_ONLY", "TABLEAU_COLOUR", "TABLEAU_RANK",
    )
    assert set(ACTION_CODES) == {
        "STOCK_EMPTY", "STOCK_NOT_EMPTY", "NOTHING_TO_RECYCLE", "NOTHING_TO_UNDO",
        "UNDO_LIMIT_REACHED", "NO_DESTINATION",
    }
    assert set(RULE_PARAMS) == set(PRECEDENCE) | set(ACTION_CODES) | {"INVALID_GAME_CODE"}


# -- moves onto a column ------------------------------------------------------------

def test_card_onto_other_colour_one_rank_higher():
    game = position(cols("8S", "7H", "8C"))
    outcome = game.apply(M("t2", "t1"))
    assert (outcome.points, [str(x) for x in outcome.cards]) == (0, ["7H"])
    assert (outcome.source, outcome.target) == (Pile.T2, Pile.T1)
    assert texts(game)[:3] == [["8S", "7H"], [], ["8C"]]
    assert (game.score, game.moves, game.version) == (0, 1, 1)


@pytest.mark.parametrize(
    ("card", "onto", "code"),
    [("7S", "8C", "TABLEAU_COLOUR"), ("7H", "8D", "TABLEAU_COLOUR"), ("6H", "8S", "TABLEAU_RANK"),
     ("9H", "8S", "TABLEAU_RANK"), ("8H", "8S", "TABLEAU_RANK"), ("7D", "8D", "TABLEAU_COLOUR"),
     ("5C", "8C", "TABLEAU_COLOUR"), ("KH", "AS", "TABLEAU_RANK")],
)
def test_column_rules(card, onto, code):
    game = position(cols(onto, card))
    reject(game, M("t2", "t1"), code, card=card, onto=onto)


def test_colour_and_rank_both_wrong_is_colour():
    game = position(cols("8S", "3C"))
    reject(game, M("t2", "t1"), "TABLEAU_COLOUR", card="3C", onto="8S")


def test_group_move_and_its_rules():
    game = position(cols("KD", "QS", "9C 8H 7S 6D"))
    reject(game, M("t3", "t1", "8H"), "TABLEAU_COLOUR", card="8H", onto="KD")
    reject(game, M("t3", "t2", "9C"), "TABLEAU_COLOUR", card="9C", onto="QS")
    game = position(cols("TD", "QS", "9C 8H 7S 6D"))
    outcome = game.apply(M("t3", "t1", "9C"))
    assert [str(x) for x in outcome.cards] == ["9C", "8H", "7S", "6D"]
    assert texts(game)[:3] == [["TD", "9C", "8H", "7S", "6D"], ["QS"], []]
    assert outcome.points == 0


def test_group_not_ordered_params():
    game = position(cols("TD", "9C 8H 7H 6S"))
    reject(game, M("t2", "t1", "9C"), "GROUP_NOT_ORDERED", card="9C", pile="t2", below="8H", above="7H")
    game = position(cols("TD", "9C 8H 6S"))
    reject(game, M("t2", "t1", "9C"), "GROUP_NOT_ORDERED", card="9C", pile="t2", below="8H", above="6S")


def test_seeing_a_card_does_not_make_it_movable():
    game = position(cols("TD", "5S 9C 4H"))
    reject(game, M("t2", "t1", "9C"), "GROUP_NOT_ORDERED", card="9C", pile="t2", below="9C", above="4H")


def test_empty_column_takes_only_kings():
    game = position(cols("", "QH"))
    reject(game, M("t2", "t1"), "EMPTY_COLUMN_KING_ONLY", card="QH", column="t1")
    game = position(cols("", "5C KS QH JC"))
    outcome = game.apply(M("t2", "t1", "KS"))
    assert [str(x) for x in outcome.cards] == ["KS", "QH", "JC"]
    assert texts(game)[:2] == [["KS", "QH", "JC"], ["5C"]]
    # a lone king that is the bottom of its column may still be moved by a move
    game = position(cols("", "KS"))
    game.apply(M("t2", "t1"))
    assert texts(game)[:2] == [["KS"], []]


def test_default_card_is_the_top_card():
    game = position(cols("8S", "9D 7H"))
    assert [str(x) for x in game.apply(M("t2", "t1")).cards] == ["7H"]


# -- the waste ---------------------------------------------------------------------

def test_waste_to_column_scores_five():
    game = position(cols("8S"), waste="2C 7H")
    outcome = game.apply(M("waste", "t1"))
    assert (outcome.points, game.score, outcome.source, outcome.target) == (5, 5, Pile.WASTE, Pile.T1)
    assert game.view()["waste"] == ["2C"]


def test_waste_top_only_and_card_not_in_pile():
    game = position(cols("8S"), waste="7H 2C")
    reject(game, M("waste", "t1", "7H"), "WASTE_TOP_ONLY", card="7H", top="2C")
    reject(game, M("waste", "t1", "8S"), "CARD_NOT_IN_PILE", card="8S", pile="waste")
    reject(game, TAP("waste", "7H"), "WASTE_TOP_ONLY", card="7H", top="2C")
    reject(game, TAP("waste", "8S", double=True), "CARD_NOT_IN_PILE", card="8S", pile="waste")
    reject(game, M("t1", "t2", "7H"), "CARD_NOT_IN_PILE", card="7H", pile="t1")


def test_waste_to_foundation_scores_ten():
    game = position(cols(), waste="9D AS")
    outcome = game.apply(M("waste", "foundation"))
    assert (outcome.points, outcome.target, game.foundations) == (10, Pile.FS, [1, 0, 0, 0])


# -- foundations -------------------------------------------------------------------

def test_foundation_named_or_generic():
    game = position(cols("AH", "2H"))
    assert game.apply(M("t1", "fH")).points == 10
    outcome = game.apply(M("t2", "foundation"))
    assert (outcome.points, outcome.target, game.foundations, game.score) == (10, Pile.FH, [0, 2, 0, 0], 20)


def test_foundation_rejections():
    game = position(cols("3H", "2S", "5D 4C", "QC JD"), foundations=(0, 1, 0, 0))
    reject(game, M("t1", "fH"), "FOUNDATION_SEQUENCE", card="3H", foundation="fH", needs="2")
    reject(game, M("t2", "foundation"), "FOUNDATION_SEQUENCE", card="2S", foundation="fS", needs="A")
    reject(game, M("t1", "fS"), "FOUNDATION_WRONG_SUIT", card="3H", foundation="fS")
    reject(game, M("t3", "foundation", "5D"), "FOUNDATION_ONE_CARD", card="5D", count=2)


def test_foundation_judged_on_named_card():
    # fine point 4: an ordered group of two is FOUNDATION_ONE_CARD whatever its suit
    game = position(cols("2S AH"), foundations=(1, 0, 0, 0))
    reject(game, M("t1", "fC", "2S"), "FOUNDATION_ONE_CARD", card="2S", count=2)
    reject(game, M("t1", "fS", "2S"), "FOUNDATION_ONE_CARD", card="2S", count=2)
    reject(game, M("t1", "foundation", "2S"), "FOUNDATION_ONE_CARD", card="2S", count=2)
    # an unordered group is GROUP_NOT_ORDERED first
    game = position(cols("2S AS"), foundations=(0, 0, 0, 0))
    reject(game, M("t1", "fS", "2S"), "GROUP_NOT_ORDERED", card="2S", pile="t1", below="2S", above="AS")


# -- take-back ---------------------------------------------------------------------

def test_take_back_scores_nothing_and_counts_as_a_move():
    game = position(cols("4S"), foundations=(0, 3, 0, 0))
    outcome = game.apply(TB("fH", "t1"))
    assert (outcome.points, [str(x) for x in outcome.cards]) == (0, ["3H"])
    assert (outcome.source, outcome.target) == (Pile.FH, Pile.T1)
    assert (game.foundations, game.moves, texts(game)[0]) == ([0, 2, 0, 0], 1, ["4S", "3H"])
    # put back up: it earned its +10 already
    assert game.apply(M("t1", "fH")).points == 0
    assert game.score == 0


def test_take_back_follows_column_rules():
    game = position(cols("4D", "", "5S", "4S"), foundations=(0, 3, 0, 13))
    reject(game, TB("fH", "t1"), "TABLEAU_COLOUR", card="3H", onto="4D")
    reject(game, TB("fH", "t3"), "TABLEAU_RANK", card="3H", onto="5S")
    reject(game, TB("fH", "t2"), "EMPTY_COLUMN_KING_ONLY", card="3H", column="t2")
    reject(game, TB("fS", "t2"), "SOURCE_EMPTY", pile="fS")
    assert game.apply(TB("fC", "t2")).cards == (c("KC"),)


def test_take_back_targets():
    game = position(cols("4S"), foundations=(1, 3, 0, 0))
    reject(game, TB("fH", "fH"), "SAME_PILE", pile="fH")
    for target in ("fS", "fD", "fC", "foundation", "stock", "waste"):
        reject(game, TB("fH", target), "INVALID_TARGET", pile=target)
    # fine point 3: an empty source is reported before anything else
    reject(game, TB("fD", "fD"), "SOURCE_EMPTY", pile="fD")
    reject(game, TB("fD", "foundation"), "SOURCE_EMPTY", pile="fD")


# -- precedence (two rules broken at once) -----------------------------------------------

def test_precedence_cases():
    game = position(cols("", "9C 8H", "TD"), waste="", foundations=(0, 0, 0, 0))
    # empty source although the card lies elsewhere
    reject(game, M("t1", "t3", "9C"), "SOURCE_EMPTY", pile="t1")
    reject(game, M("waste", "waste"), "SOURCE_EMPTY", pile="waste")
    reject(game, M("waste", "t3", "9C"), "SOURCE_EMPTY", pile="waste")
    reject(game, TAP("t1", "9C", double=True), "SOURCE_EMPTY", pile="t1")
    # card not in pile beats same pile and invalid target
    reject(game, M("t2", "t2", "TD"), "CARD_NOT_IN_PILE", card="TD", pile="t2")
    reject(game, M("t2", "stock", "TD"), "CARD_NOT_IN_PILE", card="TD", pile="t2")
    # same pile beats invalid target and group order
    reject(game, M("t2", "t2"), "SAME_PILE", pile="t2")
    game = position(cols("9C 7H", "TD"), waste="5S 3D")
    reject(game, M("waste", "waste"), "SAME_PILE", pile="waste")
    reject(game, M("waste", "waste", "5S"), "WASTE_TOP_ONLY", card="5S", top="3D")
    reject(game, M("t1", "t1", "9C"), "SAME_PILE", pile="t1")
    # invalid target beats group order
    reject(game, M("t1", "stock", "9C"), "INVALID_TARGET", pile="stock")
    reject(game, M("t1", "waste", "9C"), "INVALID_TARGET", pile="waste")
    reject(game, M("waste", "stock"), "INVALID_TARGET", pile="stock")
    # group order beats the foundation and column rules
    reject(game, M("t1", "t2", "9C"), "GROUP_NOT_ORDERED", card="9C", pile="t1", below="9C", above="7H")
    reject(game, M("t1", "fD", "9C"), "GROUP_NOT_ORDERED", card="9C", pile="t1", below="9C", above="7H")
    # one card beats wrong suit and sequence; wrong suit beats sequence
    game = position(cols("9C 8H", "KD"), waste="5S")
    reject(game, M("t1", "fD", "9C"), "FOUNDATION_ONE_CARD", card="9C", count=2)
    reject(game, M("t1", "fD"), "FOUNDATION_WRONG_SUIT", card="8H", foundation="fD")
    reject(game, M("waste", "fH"), "FOUNDATION_WRONG_SUIT", card="5S", foundation="fH")
    reject(game, M("waste", "foundation"), "FOUNDATION_SEQUENCE", card="5S", foundation="fS", needs="A")
    # king-only beats colour and rank; colour beats rank
    reject(game, M("waste", "t3"), "EMPTY_COLUMN_KING_ONLY", card="5S", column="t3")
    reject(game, M("t1", "t2", "9C"), "TABLEAU_RANK", card="9C", onto="KD")
    reject(game, M("waste", "t2"), "TABLEAU_RANK", card="5S", onto="KD")
    game = position(cols("9C 8H", "KH"), waste="5D")
    reject(game, M("waste", "t2"), "TABLEAU_COLOUR", card="5D", onto="KH")


# -- draw and recycle ----------------------------------------------------------------

def test_draw_one():
    game = Game.from_code("TF1-D1N-AAAAAAB")
    outcome = game.apply(D)
    assert ([str(x) for x in outcome.cards], outcome.points) == (["QS"], 0)
    assert (outcome.source, outcome.target) == (Pile.STOCK, Pile.WASTE)
    view = game.view()
    assert (view["waste"], view["waste_fan"], view["stock"]) == (["QS"], 1, 23)
    game.apply(D)
    assert (game.view()["waste"], game.waste_fan) == (["QS", "4C"], 1)


def test_draw_three_fan_and_short_stock():
    game = position(stock="6D 5C 4D 3C 2D", draw=3, rest="waste")
    waste_before = game.view()["waste"]
    outcome = game.apply(D)
    assert [str(x) for x in outcome.cards] == ["6D", "5C", "4D"]
    assert (game.view()["waste"][-3:], game.waste_fan, len(game.stock)) == (["6D", "5C", "4D"], 3, 2)
    reject(game, M("waste", "t2", "5C"), "WASTE_TOP_ONLY", card="5C", top="4D")
    outcome = game.apply(D)  # only two left: a partial draw of 2
    assert [str(x) for x in outcome.cards] == ["3C", "2D"]
    assert (game.view()["waste"][-2:], game.waste_fan, game.stock) == (["3C", "2D"], 2, [])
    reject(game, D, "STOCK_EMPTY")
    game.apply(U)
    game.apply(U)
    assert (game.view()["waste"], game.waste_fan, len(game.stock)) == (waste_before, 0, 5)
    # a partial draw of 1
    game = position(stock="9H", draw=3, rest="waste")
    outcome = game.apply(D)
    assert ([str(x) for x in outcome.cards], game.waste_fan, game.stock) == (["9H"], 1, [])
    assert game.view()["waste"][-1] == "9H"


def test_draw_sets_fan_and_leaving_cards_lower_it():
    game = position(cols("9S", "6D", "", "", "", "", ""), foundations=(2, 0, 0, 0), stock="3S 4H 5C", draw=3)
    assert game.waste_fan == 0
    game.apply(D)
    assert (game.view()["waste"], game.waste_fan) == (["3S", "4H", "5C"], 3)
    game.apply(M("waste", "t2"))  # 5C onto 6D: fan 3 -> 2, +5
    assert (game.waste_fan, game.score) == (2, 5)
    game.apply(M("waste", "t2"))  # 4H onto 5C
    game.apply(M("waste", "foundation"))  # 3S
    assert (game.waste_fan, game.score, game.waste) == (0, 20, [])
    game.apply(D)
    game.apply(D)
    assert game.waste_fan == 3
    game.apply(U)
    game.apply(U)
    assert game.waste_fan == 0
    game.apply(U)
    assert (game.waste_fan, game.view()["waste"]) == (1, ["3S"])
    # draw 1 sets the fan to 1; a card leaving a fan of 1 makes it 0, never below
    game = position(cols("9S"), stock="8H", draw=1)
    game.apply(D)
    assert game.waste_fan == 1
    game.apply(M("waste", "t1"))
    assert game.waste_fan == 0


def test_recycle_keeps_the_order_of_the_pass():
    for draw in (1, 3):
        game = Game.from_code(f"TF1-D{draw}N-AAAAAAB")
        stock = game.to_state()["stock"]
        assert stock[0] == "QS"  # deck[28] is drawn first
        reject(game, R, "STOCK_NOT_EMPTY", stock=24)
        seen = []
        while game.stock:
            seen += [str(x) for x in game.apply(D).cards]
        assert seen == stock and game.view()["waste"] == stock
        outcome = game.apply(R)
        assert (outcome.points, game.waste_fan, game.view()["stock"], game.waste) == (0, 0, 24, [])
        assert (outcome.source, outcome.target) == (Pile.WASTE, Pile.STOCK)
        assert game.to_state()["stock"] == stock
        again = []
        while game.stock:
            again += [str(x) for x in game.apply(D).cards]
        assert again == stock


def test_recycle_after_cards_left_the_waste():
    game = position(cols("9S"), stock="8H 2C 3D", draw=1, rest="waste")
    first_pass = game.view()["waste"] + ["8H", "2C", "3D"]
    game.apply(D)
    game.apply(M("waste", "t1"))
    while game.stock:
        game.apply(D)
    game.apply(R)
    first_pass.remove("8H")
    assert game.to_state()["stock"] == first_pass


def test_recycle_rejections():
    game = position(stock="", rest="waste")
    game.waste, game.tableau[0] = [], game.waste
    reject(game, R, "NOTHING_TO_RECYCLE")
    reject(game, D, "STOCK_EMPTY")
    game = Game.from_code("TF1-D1N-AAAAAAB")
    reject(game, R, "STOCK_NOT_EMPTY", stock=24)
    game.apply(D)
    reject(game, R, "STOCK_NOT_EMPTY", stock=23)


# -- tap -------------------------------------------------------------------------------

def test_single_tap_goes_to_the_foundation_only():
    game = position(cols("AH", "3S 2D"), waste="AS")
    outcome = game.apply(TAP("t1"))
    assert (outcome.points, outcome.source, outcome.target, game.foundations) == (10, Pile.T1, Pile.FH, [0, 1, 0, 0])
    outcome = game.apply(TAP("waste"))
    assert (outcome.points, outcome.source, outcome.target) == (10, Pile.WASTE, Pile.FS)
    # not the last card of its column: a single tap never looks at the tableau
    reject(game, TAP("t2", "3S"), "NO_DESTINATION", card="3S", pile="t2")
    reject(game, TAP("t2"), "NO_DESTINATION", card="2D", pile="t2")


def test_single_tap_on_a_non_last_card_is_no_destination_even_if_a_column_accepts():
    game = position(cols("TS", "9D 8C"))
    reject(game, TAP("t2", "9D"), "NO_DESTINATION", card="9D", pile="t2")
    assert game.apply(TAP("t2", "9D", double=True)).target == Pile.T1


def test_double_tap_prefers_the_foundation():
    game = position(cols("3H", "2H", "4S"), foundations=(0, 1, 0, 0))
    outcome = game.apply(TAP("t2", double=True))
    assert (outcome.target, outcome.points) == (Pile.FH, 10)


def test_double_tap_picks_most_cards_then_leftmost():
    game = position(cols("9S", "2D TC", "", "3C 4D 6S 9C", "8D", "8H", "4C 7H"))
    outcome = game.apply(TAP("t5", double=True))  # 8D: t1 (1 card), t4 (4 cards) -> t4
    assert (outcome.source, outcome.target, outcome.points) == (Pile.T5, Pile.T4, 0)
    game = position(cols("9S", "2D TC", "", "3C 4D 9C", "8D", "8H", "4C 7H"))
    outcome = game.apply(TAP("t5", double=True))  # 8D: t1 (1), t4 (3) -> t4
    assert outcome.target == Pile.T4
    game = position(cols("4D 9S", "2D TC", "", "3C 9C", "8D", "8H", "4C 7H"))
    outcome = game.apply(TAP("t5", double=True))  # tie t1/t4 (2 cards each) -> leftmost t1
    assert outcome.target == Pile.T1
    # its own column never counts, and the group above goes along
    game = position(cols("TD", "2C TH 9S 8H", "4C TC"))
    outcome = game.apply(TAP("t2", "9S", double=True))
    assert (outcome.target, [str(x) for x in outcome.cards]) == (Pile.T1, ["9S", "8H"])


def test_double_tap_from_the_waste_scores_like_a_move():
    game = position(cols("8S", "3C 8C"), waste="7D")
    outcome = game.apply(TAP("waste", double=True))
    assert (outcome.source, outcome.target, outcome.points, game.score) == (Pile.WASTE, Pile.T2, 5, 5)


def test_double_tap_king_goes_to_the_leftmost_empty_column():
    game = position(cols("5C", "2D KH QS", "", "", "7D"))
    outcome = game.apply(TAP("t2", "KH", double=True))
    assert (outcome.target, [str(x) for x in outcome.cards]) == (Pile.T3, ["KH", "QS"])
    game = position(cols("5C", "", "", "KH"), waste="KS")
    assert game.apply(TAP("waste", double=True)).target == Pile.T2
    # a king that is already the bottom of its column stays: NO_DESTINATION
    reject(game, TAP("t4", double=True), "NO_DESTINATION", card="KH", pile="t4")
    reject(game, TAP("t4", "KH", double=True), "NO_DESTINATION", card="KH", pile="t4")
    # no empty column
    game = position(cols("5C", "2D KH", "3C", "4C", "6C", "7C", "8C"))
    reject(game, TAP("t2", double=True), "NO_DESTINATION", card="KH", pile="t2")


def test_double_tap_no_destination_and_group_order():
    game = position(cols("5C", "9C 8H 7H", "2D"), waste="4S")
    reject(game, TAP("t2", "9C", double=True), "GROUP_NOT_ORDERED", card="9C", pile="t2", below="8H", above="7H")
    reject(game, TAP("t2", "9C"), "GROUP_NOT_ORDERED", card="9C", pile="t2", below="8H", above="7H")
    reject(game, TAP("t2", double=True), "NO_DESTINATION", card="7H", pile="t2")
    reject(game, TAP("waste"), "NO_DESTINATION", card="4S", pile="waste")
    reject(game, TAP("waste", double=True), "NO_DESTINATION", card="4S", pile="waste")


def test_tap_precedence_rules_one_to_four():
    game = position(cols("", "9C"), waste="5S 3D")
    reject(game, TAP("t1"), "SOURCE_EMPTY", pile="t1")
    reject(game, TAP("t2", "5S"), "CARD_NOT_IN_PILE", card="5S", pile="t2")
    reject(game, TAP("waste", "5S", double=True), "WASTE_TOP_ONLY", card="5S", top="3D")
    game = position(cols("AS"))
    game.waste = []
    game.stock = game.stock  # waste empty
    reject(game, TAP("waste", double=True), "SOURCE_EMPTY", pile="waste")


# -- undo ------------------------------------------------------------------------------

def test_undo_restores_everything_and_reports_minus_points():
    game = position(cols("AH", "8S", "9D 8C", "3C", "", "", "9H"), waste="3D 7H", stock="2H 5C")
    game.score = 30
    script = [
        (M("t1", "fH"), 10), (M("waste", "t2"), 5), (D, 0), (M("waste", "foundation"), 10),
        (TB("fH", "t4"), 0), (M("t2", "t7", "8S"), 0), (TAP("t4"), 0), (D, 0),
    ]
    for action, points in script:
        before = state_without_counters(game)
        moves, undos = game.moves, game.undos
        outcome = game.apply(action)
        assert outcome.points == points, action
        undo = game.apply(U)
        assert (undo.points, undo.cards) == (-points, outcome.cards)
        assert (undo.source, undo.target) == (outcome.target, outcome.source)
        assert state_without_counters(game) == before
        assert (game.moves, game.undos) == (moves + 1, undos + 1)
        game.apply(action)
    assert game.score == 55
    assert texts(game)[6] == ["9H", "8S", "7H"]


def test_undo_forgets_the_first_arrival():
    game = position(cols("AH"))
    assert game.apply(M("t1", "fH")).points == 10
    assert game.apply(U).points == -10
    assert (game.score, game.arrived) == (0, 0)
    assert game.apply(M("t1", "fH")).points == 10
    assert game.score == 10


def test_undo_of_each_kind_names_the_plain_move():
    game = position(cols("AH", "8S", "", "", "", "", "3C"), waste="7D")
    game.apply(TAP("t1"))
    assert str(game.apply(U).undone) == "t1>fH:AH"
    game.apply(TAP("waste", double=True))
    assert str(game.apply(U).undone) == "waste>t2:7D"
    game.apply(D)
    assert str(game.apply(U).undone) == "draw"
    game.apply(M("t1", "foundation"))
    outcome = game.apply(U)
    assert (str(outcome.undone), outcome.source, outcome.target) == ("t1>fH:AH", Pile.FH, Pile.T1)


def test_undo_recycle_gives_the_points_back():
    game = position(stock="", rest="waste")
    game.score = 40
    outcome = game.apply(R)
    assert (outcome.points, game.score) == (-40, 0)
    outcome = game.apply(U)
    assert (outcome.points, game.score, game.stock, str(outcome.undone)) == (40, 40, [], "recycle")
    game.score = 150
    assert game.apply(R).points == -100
    assert game.score == 50
    game.apply(U)
    game.score = 0
    assert game.apply(R).points == 0


def test_undo_counters_and_can_undo():
    game = Game.from_code("TF1-D3N-AAAAAAB")
    reject(game, U, "NOTHING_TO_UNDO")
    assert not game.can_undo and game.version == 0
    game.apply(D)
    game.apply(D)
    assert game.can_undo and (game.moves, game.undos, game.version) == (2, 0, 2)
    game.apply(U)
    assert (game.moves, game.undos, game.version) == (2, 1, 3)
    game.apply(U)
    assert (game.moves, game.undos, game.version, game.can_undo) == (2, 2, 4, False)
    reject(game, U, "NOTHING_TO_UNDO")
    view = game.view()
    assert (view["moves"], view["undos"], view["version"], view["can_undo"]) == (2, 2, 4, False)


def test_undo_window_of_one_hundred():
    game = Game.from_code("TF1-D1N-AAAAAAB")
    for _ in range(UNDO_LIMIT):
        game.apply(D if game.stock else R)
    for _ in range(UNDO_LIMIT):
        game.apply(U)
    reject(game, U, "NOTHING_TO_UNDO")  # exactly 100: nothing was dropped
    assert game.version == 2 * UNDO_LIMIT
    game = Game.from_code("TF1-D1N-AAAAAAB")
    for _ in range(UNDO_LIMIT + 1):
        game.apply(D if game.stock else R)
    for _ in range(UNDO_LIMIT):
        game.apply(U)
    assert game.to_state()["stock"][:1] == ["4C"]  # back to after the first draw
    reject(game, U, "UNDO_LIMIT_REACHED", limit=UNDO_LIMIT)
    # a new action can be undone, then the limit shows again
    game.apply(D)
    game.apply(U)
    reject(game, U, "UNDO_LIMIT_REACHED", limit=UNDO_LIMIT)
    assert not game.can_undo


# -- the win ---------------------------------------------------------------------------

def _nearly_won():
    game = position(cols("KS", "KH"), foundations=(12, 12, 13, 13), stock="", arrived="")
    game.arrived = (1 << 52) - 1  # every card has arrived before (score 0 keeps it simple)
    game.arrived &= ~(1 << c("KS")) & ~(1 << c("KH"))
    return game


def test_win_finishes_the_game():
    game = _nearly_won()
    game.apply(M("t1", "fS"))
    assert game.status == "playing"
    outcome = game.apply(TAP("t2"))
    assert (outcome.points, game.status, game.won, game.can_undo) == (10, "won", True, False)
    assert game.view()["status"] == "won" and game.view()["can_undo"] is False
    assert game.legal_actions() == []
    for action in (U, D, R, M("t1", "t2"), M("waste", "foundation"), TB("fH", "t1"), TB("fS", "fS"),
                   TAP("t1"), TAP("waste", "AS", double=True), M("t3", "t3", "9C")):
        reject(game, action, "GAME_FINISHED")
    assert game.score == 20


# -- scoring ---------------------------------------------------------------------------

def test_take_back_then_replace_earns_nothing_and_column_moves_score_zero():
    game = position(cols("4S", "", "6C"), foundations=(0, 3, 0, 0), arrived="AH 2H 3H")
    game.apply(TB("fH", "t1"))
    assert game.apply(M("t1", "foundation")).points == 0
    game.apply(TB("fH", "t1"))
    assert game.apply(TAP("t1")).points == 0
    assert game.score == 0


def test_moves_counts_every_accepted_action_but_undo():
    game = position(cols("AH", "8S", "2C"), waste="7D", stock="9C")
    for action in (D, U, M("t1", "fH"), TAP("waste", double=True), TB("fH", "t3")):
        game.apply(action)
    assert (game.moves, game.undos, game.version) == (4, 1, 5)
    reject(game, M("t3", "t3"), "SAME_PILE", pile="t3")
    assert game.version == 5


# -- tables and legal actions ------------------------------------------------------------

def test_step_table_agrees_with_the_column_rule():
    from service.engine.cards import CARDS, STEP, is_sequence_step

    for lower in CARDS:
        for upper in CARDS:
            expected = upper.is_red != lower.is_red and upper.rank == lower.rank - 1
            assert bool(STEP[lower][upper]) == is_sequence_step(lower, upper) == expected


def test_legal_actions_are_exactly_the_accepted_moves_and_take_backs():
    import random

    rng = random.Random(7)
    targets = [p.value for p in Pile if p is not Pile.FOUNDATION]  # legal_actions names the foundation
    for deal in range(6):
        game = Game.from_code(f"TF1-D{1 + 2 * (deal % 2)}N-AAAAAB{'ABCDEF'[deal]}")
        for _ in range(40):
            legal = game.legal_actions()
            for action in legal:
                game.check(action)
            offered = {a for a in legal if a.kind in ("move", "take-back")}
            accepted = set()
            sources = [(f"t{i + 1}", column) for i, column in enumerate(game.tableau)]
            for source, pile in [*sources, ("waste", game.waste[-1:])]:
                for card in pile:
                    accepted |= {M(source, t, card) for t in targets if game.is_legal(M(source, t, card))}
            for source in ("fS", "fH", "fD", "fC"):
                accepted |= {TB(source, t) for t in targets if game.is_legal(TB(source, t))}
            assert accepted == offered
            if not legal:
                break
            game.apply(rng.choice(legal))

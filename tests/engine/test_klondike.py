"""The literature's variant in the engine: dealt cards face down until uncovered, everything else as ours."""

from __future__ import annotations

import random

import pytest
from engine_helpers import position, reject

from service.engine import KLONDIKE, PRECEDENCE, Action, Game, GameCode, Rejection, replay
from service.engine.deal import DEAL_COUNT
from service.engine.rejections import FACE_DOWN_CODE, KLONDIKE_PARAMS, KLONDIKE_PRECEDENCE, RULE_PARAMS

EXAMPLE = "TF1-D3N-SFEKBMA"  # t2 is TS 9D (TS face down), t7 ends with JD
M, U = Action.move, Action.undo()


def klondike(tableau, face_down, draw=1, **piles) -> Game:
    """A hand-built position under the variant (cards as text, bottom first)."""
    tableau, face_down = tuple(tableau) + ("",) * (7 - len(tableau)), list(face_down) + [0] * (7 - len(face_down))
    state = position(tableau, draw=draw, **piles).to_state()
    return Game.from_state({**state, "variant": KLONDIKE, "face_down": face_down})


def test_a_deal_has_the_classic_face_down_cards():
    game = Game.from_code(EXAMPLE, KLONDIKE)
    assert game.face_down == [0, 1, 2, 3, 4, 5, 6]
    assert game.view()["face_down"] == [0, 1, 2, 3, 4, 5, 6] and game.view()["variant"] == KLONDIKE
    assert game.tableau == Game.from_code(EXAMPLE).tableau  # the same cards, all known


def test_our_variant_keeps_its_state_and_view():
    game = Game.from_code(EXAMPLE)
    assert game.face_down is None
    assert "variant" not in game.to_state() and "face_down" not in game.to_state()
    assert "variant" not in game.view()
    game.apply(M("t2", "t7", "TS"))
    assert all(len(record) == 7 for record in game.undo_stack)


def test_a_dealt_run_cannot_move_until_its_top_card_is_uncovered():
    game = Game.from_code(EXAMPLE, KLONDIKE)
    reject(game, M("t2", "t7", "TS"), FACE_DOWN_CODE, card="TS", pile="t2")
    assert Action.parse("t2>t7:TS") not in game.legal_actions()
    Game.from_code(EXAMPLE).check(M("t2", "t7", "TS"))  # ours moves it


def test_once_uncovered_a_run_moves_as_ours():
    # t1: 5C 9H TS (face down) 9D; TS 9D is a dealt run, as in TF1-D3N-SFEKBMA
    game = klondike(("5C 9H TS 9D", "JD", "TC", "TH"), (3, 0, 0, 0))
    reject(game, M("t1", "t2", "TS"), FACE_DOWN_CODE, card="TS", pile="t1")
    game.apply(M("t1", "t3"))  # 9D onto TC: TS is the last card, it turns up
    assert game.face_down[0] == 2
    game.apply(M("t3", "t1"))  # 9D back onto TS
    outcome = game.apply(M("t1", "t2", "TS"))  # the ordered group TS 9D, as ours would
    assert [str(card) for card in outcome.cards] == ["TS", "9D"]
    assert game.view()["tableau"][:2] == [["5C", "9H"], ["JD", "TS", "9D"]]
    assert game.face_down[0] == 1  # 9H turned up, 5C stays face down
    reject(game, M("t1", "t4", "5C"), FACE_DOWN_CODE, card="5C", pile="t1")


def test_undo_turns_the_uncovered_card_face_down_again():
    game = klondike(("5C 9H TS", "JD"), (2, 0))
    before = game.to_state()
    game.apply(M("t1", "t2", "TS"))
    assert game.face_down[0] == 1 and game.undo_stack[-1][7] == 1
    restored = Game.from_state(game.to_state())
    restored.apply(U)
    game.apply(U)
    assert game.face_down[0] == 2 and restored.face_down[0] == 2
    assert {**game.to_state(), "moves": 0, "undos": 0} == {**before, "moves": 0, "undos": 0}


def test_the_face_down_code_comes_after_waste_top_only():
    assert KLONDIKE_PRECEDENCE.index(FACE_DOWN_CODE) == KLONDIKE_PRECEDENCE.index("WASTE_TOP_ONLY") + 1
    assert tuple(code for code in KLONDIKE_PRECEDENCE if code != FACE_DOWN_CODE) == PRECEDENCE
    assert FACE_DOWN_CODE not in RULE_PARAMS and KLONDIKE_PARAMS[FACE_DOWN_CODE] == ("card", "pile")
    game = Game.from_code(EXAMPLE, KLONDIKE)
    # after the source checks...
    reject(game, M("t2", "t7", "AS"), "CARD_NOT_IN_PILE", card="AS", pile="t2")
    # ...before every target check
    reject(game, M("t2", "t2", "TS"), FACE_DOWN_CODE, card="TS", pile="t2")
    reject(game, M("t2", "stock", "TS"), FACE_DOWN_CODE, card="TS", pile="t2")
    reject(game, M("t2", "foundation", "TS"), FACE_DOWN_CODE, card="TS", pile="t2")
    reject(game, Action.tap("t2", "TS", double=True), FACE_DOWN_CODE, card="TS", pile="t2")


@pytest.mark.parametrize("draw", [1, 3])
def test_random_play_under_the_variant(draw):
    """Every legal action applies, nothing face down ever moves, undo restores everything."""
    rng = random.Random(41 + draw)
    for _ in range(30):
        code = GameCode(draw=draw, deal=rng.randrange(DEAL_COUNT))
        game = Game.from_code(code, KLONDIKE)
        played = []
        for _ in range(120):
            actions = game.legal_actions()
            if not actions:
                break
            action = rng.choice(actions)
            before = game.to_state()
            game.apply(action)
            for column, down in zip(game.tableau, game.face_down, strict=True):
                assert down < len(column) or down == 0
            if action.kind == "undo":
                played.pop()
            else:
                played.append(action)
                if rng.random() < 0.2:
                    game.apply(U)
                    assert {**game.to_state(), "undos": before["undos"]} == {**before, "moves": game.moves}
                    game.apply(action)
        assert replay(code, played, variant=KLONDIKE).to_state()["tableau"] == game.to_state()["tableau"]
        assert Game.from_state(game.to_state()) == game


def test_face_down_cards_are_never_offered_and_always_refused():
    rng = random.Random(7)
    for _ in range(40):
        game = Game.from_code(GameCode(draw=1, deal=rng.randrange(DEAL_COUNT)), KLONDIKE)
        for src, (column, down) in enumerate(zip(game.tableau, game.face_down, strict=True)):
            for card in column[:down]:
                action = Action.move(f"t{src + 1}", f"t{(src + 1) % 7 + 1}", str(card))
                with pytest.raises(Rejection) as refused:
                    game.check(action)
                assert refused.value.code == FACE_DOWN_CODE
                assert action not in game.legal_actions()


def test_an_unknown_variant_is_refused():
    with pytest.raises(ValueError):
        Game.from_code(EXAMPLE, "spider")

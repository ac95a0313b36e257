"""Random legal and illegal play over many deals, checking the invariants of RULES.md."""

from __future__ import annotations

import json

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from service.engine import CARDS, DEAL_COUNT, UNDO_LIMIT, Action, Game, GameCode, Pile, Rejection, replay
from service.engine.rejections import RULE_PARAMS

PLAY_SOURCES = [p.value for p in Pile if p.is_column] + ["waste"]
ALL_PILES = [p.value for p in Pile]
CARD_NAMES = [str(c) for c in CARDS]


def _without_counters(state: dict) -> dict:
    return {k: v for k, v in state.items() if k not in ("moves", "undos")}


class GameMachine(RuleBasedStateMachine):
    """Mixes legal actions, random (mostly illegal) actions and undos on one game."""

    @initialize(deal=st.integers(0, DEAL_COUNT - 1), draw=st.sampled_from([1, 3]))
    def deal(self, deal, draw):
        self.code = str(GameCode(draw=draw, deal=deal))
        self.game = Game.from_code(self.code)
        self.history: list[str] = []
        self.points = 0
        self.before: list[dict] = []  # states before each undoable action still undoable

    # -- acting ---------------------------------------------------------------------

    def _act(self, action: Action) -> None:
        game = self.game
        before = game.to_state()
        legal_before = game.legal_actions()
        try:
            outcome = game.apply(action)
        except Rejection as error:
            assert error.code in RULE_PARAMS and set(error.params) == set(RULE_PARAMS[error.code])
            assert game.to_state() == before, "a rejection changed the game"
            assert action not in legal_before
            assert not game.is_legal(action)
            return
        assert Action.parse(str(action)) == action
        self.history.append(str(action))
        self.points += outcome.points
        if action.kind == "undo":
            undone_before = self.before.pop()
            after = game.to_state()
            assert (after["moves"], after["undos"]) == (before["moves"], before["undos"] + 1)
            assert _without_counters(after) == _without_counters(undone_before)
            assert outcome.undone is not None and outcome.undone.kind != "undo"
            return
        assert (game.moves, game.undos) == (before["moves"] + 1, before["undos"])
        if len(self.before) == UNDO_LIMIT:
            self.before.pop(0)
        self.before.append(before)
        if action.kind in ("move", "take-back"):
            # every accepted move was offered by legal_actions(), naming its card and pile
            if action.kind == "take-back":
                named = Action.take_back(outcome.source, outcome.target)
            else:
                named = Action.move(outcome.source, outcome.target, outcome.cards[0])
            assert named in legal_before
        if action.kind in ("draw", "recycle"):
            assert action in legal_before

    @rule(data=st.data())
    def play_legal(self, data):
        actions = self.game.legal_actions()
        if actions:
            self._act(data.draw(st.sampled_from(actions)))

    @rule(
        source=st.sampled_from(PLAY_SOURCES), dest=st.sampled_from(ALL_PILES),
        card=st.none() | st.sampled_from(CARD_NAMES), data=st.data(),
    )
    def play_move(self, source, dest, card, data):
        pile = self.game.waste if source == "waste" else self.game.tableau[int(source[1]) - 1]
        if pile and card is not None and data.draw(st.booleans()):
            card = str(data.draw(st.sampled_from(pile)))  # often a card that is there
        self._act(Action.move(source, dest, card))

    @rule(source=st.sampled_from(["fS", "fH", "fD", "fC"]), dest=st.sampled_from(ALL_PILES))
    def play_take_back(self, source, dest):
        self._act(Action.take_back(source, dest))

    @rule(source=st.sampled_from(PLAY_SOURCES), double=st.booleans(), data=st.data())
    def play_tap(self, source, double, data):
        pile = self.game.waste if source == "waste" else self.game.tableau[int(source[1]) - 1]
        card = str(data.draw(st.sampled_from(pile))) if pile and data.draw(st.booleans()) else None
        self._act(Action.tap(source, card, double))

    @rule(kind=st.sampled_from(["draw", "recycle", "undo", "undo"]))
    def play_bare(self, kind):
        self._act(Action.parse(kind))

    @precondition(lambda self: len(self.history) > 0)
    @rule()
    def reload_through_json(self):
        # the service stores the state as JSON and loads it back before each action
        self.game = Game.from_state(json.loads(json.dumps(self.game.to_state())))

    # -- invariants -----------------------------------------------------------------

    @invariant()
    def fifty_two_distinct_cards(self):
        game = self.game
        cards = [c for column in game.tableau for c in column] + game.stock + game.waste
        cards += [CARDS[s * 13 + r] for s in range(4) for r in range(game.foundations[s])]
        assert sorted(cards) == list(range(52))

    @invariant()
    def score_is_the_sum_of_points(self):
        assert self.game.score >= 0
        assert self.game.score == self.points

    @invariant()
    def counters_and_fan(self):
        game = self.game
        assert game.version == game.moves + game.undos == len(self.history)
        assert 0 <= game.waste_fan <= min(3, len(game.waste)) and game.waste_fan <= game.code.draw
        assert game.can_undo == (bool(self.before) and not game.won)
        assert len(game.undo_stack) == len(self.before)

    @invariant()
    def state_round_trip(self):
        assert Game.from_state(self.game.to_state()) == self.game

    @invariant()
    def view_hides_the_stock(self):
        game = self.game
        view = game.view()
        assert view["stock"] == len(game.stock) and isinstance(view["stock"], int)
        shown = json.dumps(view)
        hidden = {str(c) for c in game.stock}
        assert not any(f'"{name}"' in shown for name in hidden)
        assert view["version"] == game.version and view["score"] == game.score

    def teardown(self):
        if hasattr(self, "game"):
            assert replay(self.code, self.history) == self.game


GameMachine.TestCase.settings = settings(max_examples=80, stateful_step_count=60, deadline=None)
TestGame = GameMachine.TestCase

"""The game state, every action of ``RULES.md``, scoring and undo.

Checking and applying are separate, as in python-chess: :meth:`Game.check`
raises the :class:`Rejection` an action would get and changes nothing;
:meth:`Game.apply` checks, then applies and returns an :class:`Outcome`.
Each applied action pushes one small integer record on the undo stack, so an
action never copies the game and undo never replays the history.

>>> game = Game.from_code("TF1-D1N-AAAAAAB")
>>> game.apply(Action.draw()).points, game.moves, game.version
(0, 1, 1)
>>> game.apply(Action.undo()).points, game.moves, game.undos, game.version
(0, 1, 1, 2)
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from .cards import CARDS, COLUMNS, FOUNDATIONS, SUITS, Card, Pile, format_cards, is_sequence_step
from .deal import GameCode, deal_cards
from .notation import DRAW, MOVE, RECYCLE, TAKE_BACK, TAP, UNDO, Action
from .rules import Rejection

UNDO_LIMIT = 100
STATE_VERSION = 1

POINTS_FOUNDATION = 10
POINTS_WASTE_TO_COLUMN = 5
POINTS_RECYCLE = -100

# Operations of the undo records ``(op, a, b, n, applied, arrived, fan_before)``:
# a and b are column indexes (0–6) or suit indexes (0–3) depending on the op,
# n the number of cards, applied the points applied, arrived the card whose
# first foundation arrival the op recorded (-1: none).
OP_COLUMN_TO_COLUMN = 0
OP_COLUMN_TO_FOUNDATION = 1
OP_WASTE_TO_COLUMN = 2
OP_WASTE_TO_FOUNDATION = 3
OP_FOUNDATION_TO_COLUMN = 4
OP_DRAW = 5
OP_RECYCLE = 6


@dataclass(frozen=True, slots=True)
class Outcome:
    """What an accepted action did: points applied, the cards it moved, where from and to.

    For a tap, ``source``/``target`` say where the card went; for an undo,
    ``undone`` is the action it reverted, written as the plain move it was.
    """

    action: Action
    points: int
    cards: tuple[Card, ...]
    source: Pile | None = None
    target: Pile | None = None
    undone: Action | None = None

    def to_json(self) -> dict:
        out = self.action.to_json()
        out["points"] = self.points
        out["cards"] = format_cards(self.cards)
        if self.source is not None:
            out["from"] = self.source.value
        if self.target is not None:
            out["to"] = self.target.value
        if self.undone is not None:
            out["undone"] = str(self.undone)
        return out


class Game:
    """A game of Solitaire Réfléchi: the piles, the counters and the undo stack."""

    __slots__ = (
        "code", "tableau", "stock", "waste", "waste_fan", "foundations",
        "score", "moves", "undos", "arrived", "undo_stack", "undo_dropped",
    )

    def __init__(self, code: GameCode) -> None:
        self.code = code
        tableau, stock = deal_cards(code.deal)
        self.tableau: list[list[Card]] = tableau
        # The next card to draw is the last element, so a draw is a pop().
        self.stock: list[Card] = stock[::-1]
        self.waste: list[Card] = []
        self.waste_fan = 0
        self.foundations = [0, 0, 0, 0]
        self.score = 0
        self.moves = 0
        self.undos = 0
        self.arrived = 0  # bitmask of cards that have reached a foundation once
        self.undo_stack: deque[tuple[int, ...]] = deque(maxlen=UNDO_LIMIT)
        self.undo_dropped = False

    @classmethod
    def from_code(cls, code: str | GameCode) -> Game:
        """A new game dealt from a game code (text or parsed)."""
        return cls(code if isinstance(code, GameCode) else GameCode.parse(code))

    # -- derived state --------------------------------------------------------

    @property
    def draw_count(self) -> int:
        return self.code.draw

    @property
    def won(self) -> bool:
        return self.foundations == [13, 13, 13, 13]

    @property
    def status(self) -> str:
        return "won" if self.won else "playing"

    @property
    def version(self) -> int:
        """Accepted actions, undos included."""
        return self.moves + self.undos

    @property
    def can_undo(self) -> bool:
        return bool(self.undo_stack) and not self.won

    def foundation_top(self, suit: int) -> Card | None:
        count = self.foundations[suit]
        return CARDS[suit * 13 + count - 1] if count else None

    # -- the public interface -------------------------------------------------

    def check(self, action: Action) -> None:
        """Raise the Rejection ``action`` would get now; change nothing."""
        if action.kind == UNDO:
            self._check_undo()
        else:
            self._plan(action)

    def apply(self, action: Action) -> Outcome:
        """Check ``action``, apply it and return its outcome; a rejection changes nothing."""
        if action.kind == UNDO:
            return self._undo(action)
        op, a, b, n = self._plan(action)
        fan_before = self.waste_fan
        cards, points, arrived = self._execute(op, a, b, n)
        self.undo_dropped |= len(self.undo_stack) == UNDO_LIMIT
        self.undo_stack.append((op, a, b, n, points, arrived, fan_before))
        self.moves += 1
        source, target = _piles_of(op, a, b)
        return Outcome(action, points, cards, source, target)

    def is_legal(self, action: Action) -> bool:
        try:
            self.check(action)
        except Rejection:
            return False
        return True

    def legal_actions(self) -> list[Action]:
        """Every action legal now: moves, take-backs, draw or recycle, and undo."""
        if self.won:
            return []
        actions: list[Action] = []
        foundations = self.foundations
        for src, column in enumerate(self.tableau):
            if not column:
                continue
            start = len(column) - 1
            while start > 0 and is_sequence_step(column[start - 1], column[start]):
                start -= 1
            for index in range(start, len(column)):
                card = column[index]
                for dst, other in enumerate(self.tableau):
                    if dst != src and _column_accepts(other, card):
                        actions.append(Action.move(COLUMNS[src], COLUMNS[dst], card))
                if index == len(column) - 1 and foundations[card // 13] == card % 13:
                    actions.append(Action.move(COLUMNS[src], FOUNDATIONS[card // 13], card))
        if self.waste:
            card = self.waste[-1]
            for dst, other in enumerate(self.tableau):
                if _column_accepts(other, card):
                    actions.append(Action.move(Pile.WASTE, COLUMNS[dst], card))
            if foundations[card // 13] == card % 13:
                actions.append(Action.move(Pile.WASTE, FOUNDATIONS[card // 13], card))
        for suit, count in enumerate(foundations):
            if count:
                card = CARDS[suit * 13 + count - 1]
                for dst, other in enumerate(self.tableau):
                    if _column_accepts(other, card):
                        actions.append(Action.take_back(FOUNDATIONS[suit], COLUMNS[dst]))
        if self.stock:
            actions.append(Action.draw())
        elif self.waste:
            actions.append(Action.recycle())
        if self.undo_stack:
            actions.append(Action.undo())
        return actions

    # -- checking: each returns an operation or raises in the table's order ----

    def _plan(self, action: Action) -> tuple[int, int, int, int]:
        if self.won:
            raise Rejection("GAME_FINISHED")
        kind = action.kind
        if kind == MOVE:
            return self._plan_move(action.source, action.target, action.card)
        if kind == DRAW:
            if not self.stock:
                raise Rejection("STOCK_EMPTY")
            return OP_DRAW, 0, 0, min(self.code.draw, len(self.stock))
        if kind == RECYCLE:
            if self.stock:
                raise Rejection("STOCK_NOT_EMPTY", stock=len(self.stock))
            if not self.waste:
                raise Rejection("NOTHING_TO_RECYCLE")
            return OP_RECYCLE, 0, 0, len(self.waste)
        if kind == TAKE_BACK:
            return self._plan_take_back(action.source, action.target)
        if kind == TAP:
            return self._plan_tap(action.source, action.card, action.double)
        raise AssertionError(kind)

    def _locate(self, source: Pile, card: Card | None) -> tuple[list[Card], int]:
        """The source pile and the index of the named card (rules 2–4 and 7)."""
        pile = self.waste if source is Pile.WASTE else self.tableau[source.column]
        if not pile:
            raise Rejection("SOURCE_EMPTY", pile=source.value)
        if card is None:
            return pile, len(pile) - 1
        try:
            index = pile.index(card)
        except ValueError:
            raise Rejection("CARD_NOT_IN_PILE", card=str(card), pile=source.value) from None
        if source is Pile.WASTE and index != len(pile) - 1:
            raise Rejection("WASTE_TOP_ONLY", card=str(card), top=str(pile[-1]))
        return pile, index

    @staticmethod
    def _check_ordered(pile: list[Card], index: int, source: Pile) -> None:
        for i in range(index, len(pile) - 1):
            if not is_sequence_step(pile[i], pile[i + 1]):
                raise Rejection(
                    "GROUP_NOT_ORDERED", card=str(pile[index]), pile=source.value,
                    below=str(pile[i]), above=str(pile[i + 1]),
                )

    def _plan_move(self, source: Pile, target: Pile, card: Card | None) -> tuple[int, int, int, int]:
        pile, index = self._locate(source, card)
        if target is source:
            raise Rejection("SAME_PILE", pile=source.value)
        if target is Pile.STOCK or target is Pile.WASTE:
            raise Rejection("INVALID_TARGET", pile=target.value)
        self._check_ordered(pile, index, source)
        card = pile[index]
        count = len(pile) - index
        from_waste = source is Pile.WASTE
        if target.is_foundation:
            if count > 1:
                raise Rejection("FOUNDATION_ONE_CARD", card=str(card), count=count)
            suit = card // 13
            if target is not Pile.FOUNDATION and target.suit_index != suit:
                raise Rejection("FOUNDATION_WRONG_SUIT", card=str(card), foundation=target.value)
            self._check_foundation_accepts(card)
            if from_waste:
                return OP_WASTE_TO_FOUNDATION, 0, suit, 1
            return OP_COLUMN_TO_FOUNDATION, source.column, suit, 1
        self._check_column_accepts(card, target)
        if from_waste:
            return OP_WASTE_TO_COLUMN, 0, target.column, 1
        return OP_COLUMN_TO_COLUMN, source.column, target.column, count

    def _plan_take_back(self, source: Pile, target: Pile) -> tuple[int, int, int, int]:
        suit = source.suit_index
        if not self.foundations[suit]:
            raise Rejection("SOURCE_EMPTY", pile=source.value)
        if target is source:
            raise Rejection("SAME_PILE", pile=source.value)
        if not target.is_column:
            raise Rejection("INVALID_TARGET", pile=target.value)
        self._check_column_accepts(self.foundation_top(suit), target)
        return OP_FOUNDATION_TO_COLUMN, suit, target.column, 1

    def _plan_tap(self, source: Pile, card: Card | None, double: bool) -> tuple[int, int, int, int]:
        pile, index = self._locate(source, card)
        self._check_ordered(pile, index, source)
        card = pile[index]
        from_waste = source is Pile.WASTE
        suit = card // 13
        if index == len(pile) - 1 and self.foundations[suit] == card % 13:
            if from_waste:
                return OP_WASTE_TO_FOUNDATION, 0, suit, 1
            return OP_COLUMN_TO_FOUNDATION, source.column, suit, 1
        if double:
            own = -1 if from_waste else source.column
            best = -1
            for dst, column in enumerate(self.tableau):
                accepts = dst != own and column and is_sequence_step(column[-1], card)
                if accepts and (best < 0 or len(column) > len(self.tableau[best])):
                    best = dst
            if best < 0 and card % 13 == 12 and (from_waste or index > 0):
                best = next((dst for dst, column in enumerate(self.tableau) if not column), -1)
            if best >= 0:
                if from_waste:
                    return OP_WASTE_TO_COLUMN, 0, best, 1
                return OP_COLUMN_TO_COLUMN, own, best, len(pile) - index
        raise Rejection("NO_DESTINATION", card=str(card), pile=source.value)

    def _check_foundation_accepts(self, card: Card) -> None:
        suit = card // 13
        count = self.foundations[suit]
        if count != card % 13:
            raise Rejection(
                "FOUNDATION_SEQUENCE", card=str(card), foundation=FOUNDATIONS[suit].value,
                expected=str(CARDS[suit * 13 + count]),
            )

    def _check_column_accepts(self, card: Card, target: Pile) -> None:
        column = self.tableau[target.column]
        if not column:
            if card % 13 != 12:
                raise Rejection("EMPTY_COLUMN_KING_ONLY", card=str(card), column=target.value)
            return
        last = column[-1]
        if card.is_red == last.is_red:
            raise Rejection("TABLEAU_COLOUR", card=str(card), onto=str(last))
        if last % 13 != card % 13 + 1:
            raise Rejection("TABLEAU_RANK", card=str(card), onto=str(last))

    # -- applying and undoing -------------------------------------------------

    def _execute(self, op: int, a: int, b: int, n: int) -> tuple[tuple[Card, ...], int, int]:
        """Apply a checked operation; return the cards moved, points applied, arrived card."""
        points = 0
        arrived = -1
        if op == OP_COLUMN_TO_COLUMN:
            source = self.tableau[a]
            cards = tuple(source[-n:])
            del source[-n:]
            self.tableau[b].extend(cards)
        elif op == OP_WASTE_TO_COLUMN:
            card = self.waste.pop()
            self.tableau[b].append(card)
            self.waste_fan = max(0, self.waste_fan - 1)
            cards = (card,)
            points = POINTS_WASTE_TO_COLUMN
        elif op in (OP_COLUMN_TO_FOUNDATION, OP_WASTE_TO_FOUNDATION):
            if op == OP_WASTE_TO_FOUNDATION:
                card = self.waste.pop()
                self.waste_fan = max(0, self.waste_fan - 1)
            else:
                card = self.tableau[a].pop()
            self.foundations[b] += 1
            bit = 1 << card
            if not self.arrived & bit:
                self.arrived |= bit
                arrived = card
                points = POINTS_FOUNDATION
            cards = (card,)
        elif op == OP_FOUNDATION_TO_COLUMN:
            card = CARDS[a * 13 + self.foundations[a] - 1]
            self.foundations[a] -= 1
            self.tableau[b].append(card)
            cards = (card,)
        elif op == OP_DRAW:
            stock, waste = self.stock, self.waste
            for _ in range(n):
                waste.append(stock.pop())
            cards = tuple(waste[-n:])
            self.waste_fan = n
        else:  # OP_RECYCLE
            cards = tuple(self.waste)
            self.stock = self.waste[::-1]
            self.waste = []
            self.waste_fan = 0
            points = max(POINTS_RECYCLE, -self.score)
        self.score += points
        return cards, points, arrived

    def _check_undo(self) -> None:
        if self.won:
            raise Rejection("GAME_FINISHED")
        if not self.undo_stack:
            if self.undo_dropped:
                raise Rejection("UNDO_LIMIT_REACHED", limit=UNDO_LIMIT)
            raise Rejection("NOTHING_TO_UNDO")

    def _undo(self, action: Action) -> Outcome:
        self._check_undo()
        op, a, b, n, points, arrived, fan_before = self.undo_stack.pop()
        tableau = self.tableau
        if op == OP_COLUMN_TO_COLUMN:
            target = tableau[b]
            cards = tuple(target[-n:])
            del target[-n:]
            tableau[a].extend(cards)
            undone = Action.move(COLUMNS[a], COLUMNS[b], cards[0])
        elif op == OP_WASTE_TO_COLUMN:
            cards = (tableau[b].pop(),)
            self.waste.append(cards[0])
            undone = Action.move(Pile.WASTE, COLUMNS[b], cards[0])
        elif op in (OP_COLUMN_TO_FOUNDATION, OP_WASTE_TO_FOUNDATION):
            card = CARDS[b * 13 + self.foundations[b] - 1]
            self.foundations[b] -= 1
            if op == OP_WASTE_TO_FOUNDATION:
                self.waste.append(card)
                undone = Action.move(Pile.WASTE, FOUNDATIONS[b], card)
            else:
                tableau[a].append(card)
                undone = Action.move(COLUMNS[a], FOUNDATIONS[b], card)
            cards = (card,)
        elif op == OP_FOUNDATION_TO_COLUMN:
            cards = (tableau[b].pop(),)
            self.foundations[a] += 1
            undone = Action.take_back(FOUNDATIONS[a], COLUMNS[b])
        elif op == OP_DRAW:
            waste, stock = self.waste, self.stock
            cards = tuple(waste[-n:])
            for _ in range(n):
                stock.append(waste.pop())
            undone = Action.draw()
        else:  # OP_RECYCLE
            self.waste = self.stock[::-1]
            self.stock = []
            cards = tuple(self.waste)
            undone = Action.recycle()
        if arrived >= 0:
            self.arrived &= ~(1 << arrived)
        self.score -= points
        self.waste_fan = fan_before
        self.undos += 1
        source, target = _piles_of(op, a, b)
        return Outcome(action, -points, cards, target, source, undone)

    # -- serialized forms -------------------------------------------------------

    def to_state(self) -> dict:
        """The whole state as JSON-ready data that :meth:`from_state` restores exactly."""
        return {
            "v": STATE_VERSION,
            "code": str(self.code),
            "tableau": [format_cards(column) for column in self.tableau],
            "stock": format_cards(reversed(self.stock)),
            "waste": format_cards(self.waste),
            "waste_fan": self.waste_fan,
            "foundations": list(self.foundations),
            "score": self.score,
            "moves": self.moves,
            "undos": self.undos,
            "arrived": self.arrived,
            "undo_stack": [list(record) for record in self.undo_stack],
            "undo_dropped": self.undo_dropped,
        }

    @classmethod
    def from_state(cls, state: dict) -> Game:
        """Rebuild a game from :meth:`to_state` data without dealing or replaying."""
        if state.get("v") != STATE_VERSION:
            raise ValueError(f"unknown state version: {state.get('v')!r}")
        game = cls.__new__(cls)
        game.code = GameCode.parse(state["code"])
        game.tableau = [[Card.parse(name) for name in column] for column in state["tableau"]]
        game.stock = [Card.parse(name) for name in reversed(state["stock"])]
        game.waste = [Card.parse(name) for name in state["waste"]]
        game.waste_fan = state["waste_fan"]
        game.foundations = list(state["foundations"])
        game.score = state["score"]
        game.moves = state["moves"]
        game.undos = state["undos"]
        game.arrived = state["arrived"]
        game.undo_stack = deque((tuple(r) for r in state["undo_stack"]), maxlen=UNDO_LIMIT)
        game.undo_dropped = state["undo_dropped"]
        return game

    def view(self) -> dict:
        """The public view of API.md: the stock is a count, its order never shown."""
        return {
            "code": str(self.code),
            "draw": self.code.draw,
            "status": self.status,
            "score": self.score,
            "moves": self.moves,
            "undos": self.undos,
            "version": self.version,
            "tableau": [format_cards(column) for column in self.tableau],
            "foundations": dict(zip(SUITS, self.foundations, strict=True)),
            "stock": len(self.stock),
            "waste": format_cards(self.waste),
            "waste_fan": self.waste_fan,
            "can_undo": self.can_undo,
        }

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Game) and self.to_state() == other.to_state()

    __hash__ = None  # mutable

    def __repr__(self) -> str:
        return f"<Game {self.code} score={self.score} version={self.version} {self.status}>"


def _column_accepts(column: list[Card], card: int) -> bool:
    if column:
        return is_sequence_step(column[-1], card)
    return card % 13 == 12


def _piles_of(op: int, a: int, b: int) -> tuple[Pile | None, Pile | None]:
    """Source and target piles of an operation record."""
    if op == OP_COLUMN_TO_COLUMN:
        return COLUMNS[a], COLUMNS[b]
    if op == OP_COLUMN_TO_FOUNDATION:
        return COLUMNS[a], FOUNDATIONS[b]
    if op == OP_WASTE_TO_COLUMN:
        return Pile.WASTE, COLUMNS[b]
    if op == OP_WASTE_TO_FOUNDATION:
        return Pile.WASTE, FOUNDATIONS[b]
    if op == OP_FOUNDATION_TO_COLUMN:
        return FOUNDATIONS[a], COLUMNS[b]
    if op == OP_DRAW:
        return Pile.STOCK, Pile.WASTE
    return Pile.WASTE, Pile.STOCK


def replay(code: str | GameCode, actions) -> Game:
    """Rebuild a game from its code and its history (actions or their notation)."""
    game = Game.from_code(code)
    for action in actions:
        game.apply(action if isinstance(action, Action) else Action.parse(action))
    return game

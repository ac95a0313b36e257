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

from .cards import CARDS, COLUMNS, FOUNDATIONS, RANKS, STEP, SUITS, Card, Pile, cards_named, format_cards
from .deal import GameCode, deal_cards
from .notation import DRAW, MOVE, RECYCLE, TAKE_BACK, TAP, UNDO, Action
from .rejections import FACE_DOWN_CODE, Rejection

UNDO_LIMIT = 100
STATE_VERSION = 1
#: The version of the rules this engine plays: raised whenever an accepted action, its outcome,
#: a rejection (code or params), a deal or the legal actions could change for some game, so that a
#: client can refuse to judge locally with an older engine (GET /v1/rules answers it as
#: ``rules_version``; clients/js exports the same constant). tests/engine/rules_fingerprints.json
#: holds the fingerprint of each version's behaviour (service/vectors/fingerprint.py).
RULES_VERSION = 1

#: The rules played: ours (every tableau card face up, the only variant the service offers), or
#: the literature's "thoughtful" Klondike, for the solver and its benchmarks: every card is known,
#: but the cards dealt under each column's last card stay face down, and cannot move, until they
#: become their column's last card (then they turn face up for good). Everything else is ours.
REFLECHI, KLONDIKE = "reflechi", "klondike"
VARIANTS = (REFLECHI, KLONDIKE)

POINTS_FOUNDATION = 10
POINTS_WASTE_TO_COLUMN = 5
POINTS_RECYCLE = -100

# Operations of the undo records ``(op, a, b, n, applied, arrived, fan_before)``:
# a and b are column indexes (0–6) or suit indexes (0–3) depending on the op,
# n the number of cards, applied the points applied, arrived the card whose
# first foundation arrival the op recorded (-1: none).  In the klondike variant a
# record has an eighth field, ``turned``: 1 when the op turned column a's next
# face-down card up (undo turns it down again), else 0.
OP_COLUMN_TO_COLUMN = 0
OP_COLUMN_TO_FOUNDATION = 1
OP_WASTE_TO_COLUMN = 2
OP_WASTE_TO_FOUNDATION = 3
OP_FOUNDATION_TO_COLUMN = 4
OP_DRAW = 5
OP_RECYCLE = 6


@dataclass(slots=True, unsafe_hash=True)
class Outcome:
    """What an accepted action did: points applied, the cards it moved, where from and to.

    For a tap, ``source``/``target`` say where the card went; for an undo,
    ``undone`` is the action it reverted, written as the plain move it was.
    Treat it as read-only (it is not frozen only because a frozen dataclass
    costs a microsecond more per action).
    """

    action: Action
    points: int
    cards: tuple[Card, ...]
    source: Pile | None = None
    target: Pile | None = None
    undone: Action | None = None

    def to_json(self) -> dict:
        """The action's arguments as sent (``from``, ``to``, ``card``, ``double``), then what it did.

        The arguments alone replay the action; ``moved_from``/``moved_to`` say where the
        cards actually went (a tap's column, the foundation behind ``foundation``).
        """
        out = self.action.to_json()
        out["points"] = self.points
        out["cards"] = format_cards(self.cards)
        if self.source is not None:
            out["moved_from"] = self.source.value
        if self.target is not None:
            out["moved_to"] = self.target.value
        if self.undone is not None:
            out["undone"] = str(self.undone)
        return out


_WON = [13, 13, 13, 13]
_WASTE, _STOCK, _FOUNDATION = Pile.WASTE, Pile.STOCK, Pile.FOUNDATION
_KING = 12  # card % 13 of a king

#: Source and target piles of each operation, indexed ``[op][a]`` and ``[op][b]``.
_SOURCES = (COLUMNS, COLUMNS, (_WASTE,), (_WASTE,), FOUNDATIONS, (_STOCK,), (_WASTE,))
_TARGETS = (COLUMNS, FOUNDATIONS, COLUMNS, FOUNDATIONS, COLUMNS, (Pile.WASTE,), (_STOCK,))


class Game:
    """A game of Solitaire Réfléchi: the piles, the counters and the undo stack."""

    __slots__ = (
        "code", "tableau", "stock", "waste", "waste_fan", "foundations",
        "score", "moves", "undos", "arrived", "undo_stack", "undo_dropped", "variant", "face_down",
    )

    def __init__(self, code: GameCode, variant: str = REFLECHI) -> None:
        if variant not in VARIANTS:
            raise ValueError(f"unknown variant: {variant!r}")
        self.code = code
        self.variant = variant
        #: klondike only: per column, how many of its first cards are face down (column i is dealt
        #: with i of them); None in our variant, where every tableau card is face up
        self.face_down: list[int] | None = list(range(7)) if variant == KLONDIKE else None
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
    def from_code(cls, code: str | GameCode, variant: str = REFLECHI) -> Game:
        """A new game dealt from a game code (text or parsed), played under ``variant``."""
        return cls(code if isinstance(code, GameCode) else GameCode.parse(code), variant)

    # -- derived state --------------------------------------------------------

    @property
    def draw_count(self) -> int:
        return self.code.draw

    @property
    def won(self) -> bool:
        return self.foundations == _WON

    @property
    def status(self) -> str:
        return "won" if self.foundations == _WON else "playing"

    @property
    def version(self) -> int:
        """Accepted actions, undos included."""
        return self.moves + self.undos

    @property
    def can_undo(self) -> bool:
        return bool(self.undo_stack) and self.foundations != _WON

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
        # The hot path of the service, the solver and the bench: plan and execute
        # inline, with the operations in order of frequency.
        kind = action.kind
        if kind == UNDO:
            return self._undo(action)
        if self.foundations == _WON:
            raise Rejection("GAME_FINISHED")
        if kind == MOVE:
            op, a, b, n = self._plan_move(action.source, action.target, action.card)
        elif kind == DRAW:
            stock = self.stock
            if not stock:
                raise Rejection("STOCK_EMPTY")
            # executed right here: the most frequent action of all
            n = self.code.draw
            waste = self.waste
            if n == 1 or len(stock) == 1:
                n = 1
                cards = (stock.pop(),)
                waste.append(cards[0])
            else:
                if n > len(stock):
                    n = len(stock)
                cards = tuple(stock[: -n - 1 : -1])
                del stock[-n:]
                waste.extend(cards)
            stack = self.undo_stack
            if len(stack) == UNDO_LIMIT:
                self.undo_dropped = True
            if self.face_down is None:
                stack.append((OP_DRAW, 0, 0, n, 0, -1, self.waste_fan))
            else:
                stack.append((OP_DRAW, 0, 0, n, 0, -1, self.waste_fan, 0))
            self.waste_fan = n
            self.moves += 1
            return Outcome(action, 0, cards, _STOCK, _WASTE)
        elif kind == TAKE_BACK:
            op, a, b, n = self._plan_take_back(action.source, action.target)
        elif kind == TAP:
            op, a, b, n = self._plan_tap(action.source, action.card, action.double)
        elif kind == RECYCLE:
            op, a, b, n = self._plan_recycle()
        else:
            raise AssertionError(kind)
        # execute the checked operation (inline: this is the hot path)
        fan_before = self.waste_fan
        points = 0
        arrived = -1
        if op == OP_COLUMN_TO_COLUMN:
            source = self.tableau[a]
            if n == 1:
                card = source.pop()
                self.tableau[b].append(card)
                cards = (card,)
            else:
                cards = tuple(source[-n:])
                del source[-n:]
                self.tableau[b].extend(cards)
        elif op in (OP_COLUMN_TO_FOUNDATION, OP_WASTE_TO_FOUNDATION):
            if op == OP_WASTE_TO_FOUNDATION:
                card = self.waste.pop()
                if fan_before:
                    self.waste_fan = fan_before - 1
            else:
                card = self.tableau[a].pop()
            self.foundations[b] += 1
            cards = (card,)
            bit = 1 << card
            if not self.arrived & bit:
                self.arrived |= bit
                arrived = card
                points = POINTS_FOUNDATION
                self.score += POINTS_FOUNDATION
        elif op == OP_WASTE_TO_COLUMN:
            card = self.waste.pop()
            self.tableau[b].append(card)
            cards = (card,)
            if fan_before:
                self.waste_fan = fan_before - 1
            points = POINTS_WASTE_TO_COLUMN
            self.score += POINTS_WASTE_TO_COLUMN
        elif op == OP_FOUNDATION_TO_COLUMN:
            card = CARDS[a * 13 + self.foundations[a] - 1]
            self.foundations[a] -= 1
            self.tableau[b].append(card)
            cards = (card,)
        else:  # OP_RECYCLE (a draw never gets here)
            cards = tuple(self.waste)
            self.stock = self.waste[::-1]
            self.waste = []
            self.waste_fan = 0
            points = max(POINTS_RECYCLE, -self.score)
            self.score += points
        stack = self.undo_stack
        if len(stack) == UNDO_LIMIT:
            self.undo_dropped = True
        face_down = self.face_down
        if face_down is None:
            stack.append((op, a, b, n, points, arrived, fan_before))
        else:
            # klondike: a column that lost cards down to its face-down ones turns the next one up
            turned = 0
            if op <= OP_COLUMN_TO_FOUNDATION and face_down[a] and face_down[a] >= len(self.tableau[a]):
                face_down[a] -= 1
                turned = 1
            stack.append((op, a, b, n, points, arrived, fan_before, turned))
        self.moves += 1
        return Outcome(action, points, cards, _SOURCES[op][a], _TARGETS[op][b])

    def is_legal(self, action: Action) -> bool:
        try:
            self.check(action)
        except Rejection:
            return False
        return True

    def legal_actions(self) -> list[Action]:
        """Every action legal now: moves, take-backs, draw or recycle, and undo."""
        if self.foundations == _WON:
            return []
        actions: list[Action] = []
        append = actions.append
        foundations = self.foundations
        tableau = self.tableau
        for src, column in enumerate(tableau):
            if not column:
                continue
            start = len(column) - 1
            while start > 0 and STEP[column[start - 1]][column[start]]:
                start -= 1
            if self.face_down is not None and start < self.face_down[src]:
                start = self.face_down[src]
            for index in range(start, len(column)):
                card = column[index]
                for dst, other in enumerate(tableau):
                    if dst != src and (STEP[other[-1]][card] if other else card % 13 == _KING):
                        append(_move_action(src, dst, card))
                if index == len(column) - 1 and foundations[card // 13] == card % 13:
                    append(_move_action(src, 7 + card // 13, card))
        if self.waste:
            card = self.waste[-1]
            for dst, other in enumerate(tableau):
                if STEP[other[-1]][card] if other else card % 13 == _KING:
                    append(_move_action(_WASTE_INDEX, dst, card))
            if foundations[card // 13] == card % 13:
                append(_move_action(_WASTE_INDEX, 7 + card // 13, card))
        for suit, count in enumerate(foundations):
            if count:
                card = suit * 13 + count - 1
                for dst, other in enumerate(tableau):
                    if STEP[other[-1]][card] if other else card % 13 == _KING:
                        append(_take_back_action(suit, dst))
        if self.stock:
            append(_DRAW)
        elif self.waste:
            append(_RECYCLE)
        if self.undo_stack:
            append(_UNDO)
        return actions

    # -- checking: each returns an operation or raises in the table's order ----

    def _plan(self, action: Action) -> tuple[int, int, int, int]:
        if self.foundations == _WON:
            raise Rejection("GAME_FINISHED")
        kind = action.kind
        if kind == MOVE:
            return self._plan_move(action.source, action.target, action.card)
        if kind == DRAW:
            if not self.stock:
                raise Rejection("STOCK_EMPTY")
            return OP_DRAW, 0, 0, min(self.code.draw, len(self.stock))
        if kind == RECYCLE:
            return self._plan_recycle()
        if kind == TAKE_BACK:
            return self._plan_take_back(action.source, action.target)
        if kind == TAP:
            return self._plan_tap(action.source, action.card, action.double)
        raise AssertionError(kind)

    def _plan_recycle(self) -> tuple[int, int, int, int]:
        if self.stock:
            raise Rejection("STOCK_NOT_EMPTY", stock=len(self.stock))
        if not self.waste:
            raise Rejection("NOTHING_TO_RECYCLE")
        return OP_RECYCLE, 0, 0, len(self.waste)

    def _locate(self, source: Pile, card: Card | None) -> tuple[list[Card], int]:
        """The source pile and the index of the named card (rules 2–4)."""
        col = source._col
        pile = self.waste if col < 0 else self.tableau[col]
        if not pile:
            raise Rejection("SOURCE_EMPTY", pile=source.value)
        if card is None:
            return pile, len(pile) - 1
        top = len(pile) - 1
        if pile[top] == card:
            return pile, top
        try:
            index = pile.index(card)
        except ValueError:
            raise Rejection("CARD_NOT_IN_PILE", card=str(card), pile=source.value) from None
        if col < 0:
            raise Rejection("WASTE_TOP_ONLY", card=str(card), top=str(pile[-1]))
        if self.face_down is not None and index < self.face_down[col]:
            raise Rejection(FACE_DOWN_CODE, card=str(card), pile=source.value)
        return pile, index

    @staticmethod
    def _check_ordered(pile: list[Card], index: int, source: Pile) -> None:
        """Rule 7: every card above ``pile[index]`` continues the sequence."""
        for i in range(index, len(pile) - 1):
            if not STEP[pile[i]][pile[i + 1]]:
                raise Rejection(
                    "GROUP_NOT_ORDERED", card=str(pile[index]), pile=source.value,
                    below=str(pile[i]), above=str(pile[i + 1]),
                )

    def _plan_move(self, source: Pile, target: Pile, card: Card | None) -> tuple[int, int, int, int]:
        # _locate inlined for the common cases: no card named, or the top card named
        col = source._col
        pile = self.waste if col < 0 else self.tableau[col]
        top = len(pile) - 1
        if top >= 0 and (card is None or pile[top] == card):
            index = top
        else:
            pile, index = self._locate(source, card)
        if target is source:
            raise Rejection("SAME_PILE", pile=source.value)
        if target is _STOCK or target is _WASTE:
            raise Rejection("INVALID_TARGET", pile=target.value)
        if index != top:
            self._check_ordered(pile, index, source)
        card = pile[index]
        dst = target._col
        if dst >= 0:
            column = self.tableau[dst]
            if not column or not STEP[column[-1]][card]:
                self._check_column_accepts(card, dst, target)
            if col < 0:
                return OP_WASTE_TO_COLUMN, 0, dst, 1
            return OP_COLUMN_TO_COLUMN, col, dst, top + 1 - index
        # a foundation, named or generic
        if index != top:
            raise Rejection("FOUNDATION_ONE_CARD", card=str(card), count=top + 1 - index)
        suit = card // 13
        named = target._suit
        if named != suit and named != 4:
            raise Rejection("FOUNDATION_WRONG_SUIT", card=str(card), foundation=target.value)
        if self.foundations[suit] != card % 13:
            self._reject_foundation(card)
        if col < 0:
            return OP_WASTE_TO_FOUNDATION, 0, suit, 1
        return OP_COLUMN_TO_FOUNDATION, col, suit, 1

    def _plan_take_back(self, source: Pile, target: Pile) -> tuple[int, int, int, int]:
        suit = source._suit
        count = self.foundations[suit]
        if not count:
            raise Rejection("SOURCE_EMPTY", pile=source.value)
        if target is source:
            raise Rejection("SAME_PILE", pile=source.value)
        dst = target._col
        if dst < 0:
            raise Rejection("INVALID_TARGET", pile=target.value)
        self._check_column_accepts(CARDS[suit * 13 + count - 1], dst, target)
        return OP_FOUNDATION_TO_COLUMN, suit, dst, 1

    def _plan_tap(self, source: Pile, card: Card | None, double: bool) -> tuple[int, int, int, int]:
        pile, index = self._locate(source, card)
        self._check_ordered(pile, index, source)
        card = pile[index]
        col = source._col
        from_waste = col < 0
        suit = card // 13
        if index == len(pile) - 1 and self.foundations[suit] == card % 13:
            if from_waste:
                return OP_WASTE_TO_FOUNDATION, 0, suit, 1
            return OP_COLUMN_TO_FOUNDATION, col, suit, 1
        if double:
            best = -1
            best_size = 0
            for dst, column in enumerate(self.tableau):
                # strictly more cards wins, so ties go to the leftmost column
                if dst != col and len(column) > best_size and STEP[column[-1]][card]:
                    best, best_size = dst, len(column)
            if best < 0 and card % 13 == _KING and (from_waste or index > 0):
                best = next((dst for dst, column in enumerate(self.tableau) if not column), -1)
            if best >= 0:
                if from_waste:
                    return OP_WASTE_TO_COLUMN, 0, best, 1
                return OP_COLUMN_TO_COLUMN, col, best, len(pile) - index
        raise Rejection("NO_DESTINATION", card=str(card), pile=source.value)

    def _reject_foundation(self, card: Card) -> None:
        suit = card // 13
        raise Rejection(
            "FOUNDATION_SEQUENCE", card=str(card), foundation=FOUNDATIONS[suit].value,
            # The rank, not the card: its name could be one still face down in the stock.
            needs=RANKS[self.foundations[suit]],
        )

    def _check_column_accepts(self, card: Card, dst: int, target: Pile) -> None:
        """Rules 11–13 for ``card`` onto column ``dst`` (named ``target``)."""
        column = self.tableau[dst]
        if not column:
            if card % 13 != _KING:
                raise Rejection("EMPTY_COLUMN_KING_ONLY", card=str(card), column=target.value)
            return
        last = column[-1]
        if STEP[last][card]:
            return
        if (13 <= card < 39) == (13 <= last < 39):
            raise Rejection("TABLEAU_COLOUR", card=str(card), onto=str(last))
        raise Rejection("TABLEAU_RANK", card=str(card), onto=str(last))

    # -- applying and undoing -------------------------------------------------

    def _check_undo(self) -> None:
        if self.foundations == _WON:
            raise Rejection("GAME_FINISHED")
        if not self.undo_stack:
            if self.undo_dropped:
                raise Rejection("UNDO_LIMIT_REACHED", limit=UNDO_LIMIT)
            raise Rejection("NOTHING_TO_UNDO")

    def _undo(self, action: Action) -> Outcome:
        stack = self.undo_stack
        if not stack or self.foundations == _WON:
            self._check_undo()
        record = stack.pop()
        op, a, b, n, points, arrived, fan_before = record[:7]
        if len(record) > 7 and record[7]:
            self.face_down[a] += 1  # klondike: the card the op turned up goes face down again
        if op == OP_DRAW:
            waste, stock = self.waste, self.stock
            if n == 1:
                card = waste.pop()
                stock.append(card)
                cards = (card,)
            else:
                cards = tuple(waste[-n:])
                del waste[-n:]
                stock.extend(cards[::-1])
            undone = _DRAW
        elif op == OP_COLUMN_TO_COLUMN:
            tableau = self.tableau
            target = tableau[b]
            if n == 1:
                cards = (target.pop(),)
                tableau[a].append(cards[0])
            else:
                cards = tuple(target[-n:])
                del target[-n:]
                tableau[a].extend(cards)
            undone = _move_action(a, b, cards[0])
        elif op == OP_WASTE_TO_COLUMN:
            card = self.tableau[b].pop()
            self.waste.append(card)
            cards = (card,)
            undone = _move_action(_WASTE_INDEX, b, card)
        elif op in (OP_COLUMN_TO_FOUNDATION, OP_WASTE_TO_FOUNDATION):
            card = CARDS[b * 13 + self.foundations[b] - 1]
            self.foundations[b] -= 1
            if op == OP_WASTE_TO_FOUNDATION:
                self.waste.append(card)
                undone = _move_action(_WASTE_INDEX, 7 + b, card)
            else:
                self.tableau[a].append(card)
                undone = _move_action(a, 7 + b, card)
            cards = (card,)
            if arrived >= 0:
                self.arrived &= ~(1 << arrived)
        elif op == OP_FOUNDATION_TO_COLUMN:
            cards = (self.tableau[b].pop(),)
            self.foundations[a] += 1
            undone = _take_back_action(a, b)
        else:  # OP_RECYCLE
            self.waste = self.stock[::-1]
            self.stock = []
            cards = tuple(self.waste)
            undone = _RECYCLE
        if points:
            self.score -= points
        self.waste_fan = fan_before
        self.undos += 1
        return Outcome(action, -points, cards, _TARGETS[op][b], _SOURCES[op][a], undone)

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
            "undo_stack": list(map(list, self.undo_stack)),
            "undo_dropped": self.undo_dropped,
            # the variant's fields only when it is not ours, so that stored games never change
            **({} if self.face_down is None else {"variant": self.variant, "face_down": list(self.face_down)}),
        }

    @classmethod
    def from_state(cls, state: dict) -> Game:
        """Rebuild a game from :meth:`to_state` data without dealing or replaying."""
        if state.get("v") != STATE_VERSION:
            raise ValueError(f"unknown state version: {state.get('v')!r}")
        game = cls.__new__(cls)
        game.code = GameCode.parse(state["code"])
        game.tableau = [cards_named(column) for column in state["tableau"]]
        game.stock = cards_named(state["stock"][::-1])
        game.waste = cards_named(state["waste"])
        game.waste_fan = state["waste_fan"]
        game.foundations = list(state["foundations"])
        game.score = state["score"]
        game.moves = state["moves"]
        game.undos = state["undos"]
        game.arrived = state["arrived"]
        game.undo_stack = deque(map(tuple, state["undo_stack"]), maxlen=UNDO_LIMIT)
        game.undo_dropped = state["undo_dropped"]
        game.variant = state.get("variant", REFLECHI)
        if game.variant not in VARIANTS:
            raise ValueError(f"unknown variant: {game.variant!r}")
        game.face_down = list(state["face_down"]) if game.variant == KLONDIKE else None
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
            **({} if self.face_down is None else {"variant": self.variant, "face_down": list(self.face_down)}),
        }

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Game) and self.to_state() == other.to_state()

    __hash__ = None  # mutable

    def __repr__(self) -> str:
        return f"<Game {self.code} score={self.score} version={self.version} {self.status}>"


_DRAW, _RECYCLE, _UNDO = Action.draw(), Action.recycle(), Action.undo()
_WASTE_INDEX = 11  # in _PLACES: t1…t7 are 0–6, fS…fC 7–10, then the waste
_PLACES = (*COLUMNS, *FOUNDATIONS, Pile.WASTE)
_MOVES: dict[int, Action] = {}
_TAKE_BACKS: dict[int, Action] = {}


def _move_action(src: int, dst: int, card: int) -> Action:
    """The move ``_PLACES[src]`` > ``_PLACES[dst]`` naming ``card``, built once and shared."""
    key = (src * 16 + dst) * 64 + card
    action = _MOVES.get(key)
    if action is None:
        action = _MOVES[key] = Action.move(_PLACES[src], _PLACES[dst], CARDS[card])
    return action


def _take_back_action(suit: int, dst: int) -> Action:
    """The take-back from foundation ``suit`` onto column ``dst``, built once and shared."""
    key = suit * 8 + dst
    action = _TAKE_BACKS.get(key)
    if action is None:
        action = _TAKE_BACKS[key] = Action.take_back(FOUNDATIONS[suit], COLUMNS[dst])
    return action


def replay(code: str | GameCode, actions, variant: str = REFLECHI) -> Game:
    """Rebuild a game from its code and its history (actions or their notation), played under ``variant``."""
    game = Game.from_code(code, variant)
    for action in actions:
        game.apply(action if isinstance(action, Action) else Action.parse(action))
    return game

"""Conformance vectors: what the Python engine does, as JSONL that any other engine must reproduce.

    flask --app service vectors [--out FILE] [--seed N] [--actions N]

Every line is one JSON object (compact, UTF-8), by ``kind``:

- ``{"kind": "deal", "code", "tableau", "stock"}``: the deal of each of the first 1,000 deal
  numbers (then of the last and of 24 others), the stock in full (first card drawn first).
- ``{"kind": "game", "code", "actions", "results", "outcomes"}``: a game as notations and, per
  action, exactly what a conformance runner prints (``{"ok": true, "game": …}`` or
  ``{"ok": false, "code", "params"}``) and the accepted action's outcome (the API's ``last``,
  null when rejected). A bad code has ``"error"`` instead of ``results``: the runner's one line.
  So a runner's output line must equal the vector line less ``kind``, ``code``, ``actions`` and
  ``outcomes``.
- ``{"kind": "legal", "code", "actions", "legal"}``: every legal action after the actions, in
  the engine's order.
- ``{"kind": "state", "code", "actions", "state"}``: the engine's ``to_state()`` after them
  (another engine reads it and writes the same).

Games are random legal play interleaved with probes aimed at whatever is still rare (every
rejection code, every scoring entry, taps and double taps, the undo limit, malformed
notations), and the solver's winning lines, each probed along the way and then refused after
the win. The solver runs on a node budget and a clock that counts its slices, so the vectors
depend on the seed only (and on the solver's build: its C core and its pure-Python fallback
find different lines). The command prints the coverage to stderr and fails when a minimum
(:data:`MINIMUMS`) is not met.

:func:`fingerprint` hashes a small, systematic set of the engine's answers: a test holds it to
``tests/engine/rules_fingerprints.json`` for the current ``RULES_VERSION``.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import random
import sys
from collections import Counter
from collections.abc import Iterator

import click

from .engine import (
    ACTION_CODES,
    COLUMNS,
    FOUNDATIONS,
    PRECEDENCE,
    Action,
    Game,
    GameCode,
    NotationError,
    Outcome,
    Pile,
    Rejection,
    deal_cards,
    shuffled_deck,
)
from .engine.cards import STEP, format_cards
from .engine.deal import DEAL_COUNT

DEAL_LINES = 1000
DEFAULT_ACTIONS = 20_000
WINS = 50
#: positions a solve may expand; enough for most deals, and far under a second each
SOLVER_NODES = 200_000
#: the share of the steps of a game at which a probe is tried
PROBE_SHARE = 0.3
LEGAL_SHARE = 0.03
STATE_SHARE = 0.01
#: random games played at most after the solver's: a bound for a generator that can no longer
#: reach a minimum (the command then says which)
MAX_RANDOM_GAMES = 5_000

PILES = [pile.value for pile in Pile]
PLAY_SOURCES = [*(pile.value for pile in COLUMNS), Pile.WASTE.value]
_FOUNDATION_PILES = {pile.value for pile in FOUNDATIONS} | {Pile.FOUNDATION.value}
_KING = 12

INVALID_REQUEST = "INVALID_REQUEST"
# Coverage entries besides the codes (every code of the engine, INVALID_GAME_CODE and the
# runner's INVALID_REQUEST for a notation that does not parse).
FIRST_ARRIVAL = "score +10: a card's first arrival on a foundation"
ARRIVED_AGAIN = "score 0: a card on a foundation again"
WASTE_TO_COLUMN = "score +5: waste to column"
RECYCLE_FULL = "score -100: recycle"
RECYCLE_CLIPPED = "score -1..-99: recycle clipped at 0"
RECYCLE_FREE = "score 0: recycle at score 0"
COLUMN_TO_COLUMN = "score 0: column to column"
TAKE_BACK = "score 0: take-back"
DRAW = "score 0: draw"
UNDO_POINTS = "undo taking points back"
SHORT_DRAW = "draw 3 with fewer than 3 cards left"
TAP = "tap to a foundation"
DOUBLE_TO_FOUNDATION = "double tap to a foundation"
DOUBLE_TO_COLUMN = "double tap to a column"
DOUBLE_TIE = "double tap: a tie between columns of equal length"
DOUBLE_KING = "double tap: a king to an empty column"
DOUBLE_KING_AT_BOTTOM = "double tap: a king at the bottom of its column, an empty column free"
WON = "games won (solver lines)"
ACTIONS = "actions"

#: The least count of each entry (ACTIONS: the --actions option).
MINIMUMS: dict[str, int] = {
    **{code: 20 for code in (*PRECEDENCE, *ACTION_CODES, "INVALID_GAME_CODE", INVALID_REQUEST)},
    **{entry: 20 for entry in (
        FIRST_ARRIVAL, ARRIVED_AGAIN, WASTE_TO_COLUMN, RECYCLE_FULL, RECYCLE_CLIPPED, RECYCLE_FREE,
        COLUMN_TO_COLUMN, TAKE_BACK, DRAW, UNDO_POINTS, SHORT_DRAW, TAP, DOUBLE_TO_FOUNDATION,
        DOUBLE_TO_COLUMN, DOUBLE_TIE, DOUBLE_KING, DOUBLE_KING_AT_BOTTOM)},
    WON: WINS,
    "draw 1 actions": 5_000,
    "draw 3 actions": 5_000,
}

#: Notations that do not parse, or parse to no action (RULES.md fine point 2).
MALFORMED = (
    "", "DRAW", " draw", "draw ", "T3>t5", "t3>t5:", "t3>t5:1H", "t8>t1", "t0>t1", "fX>t1", "tap:", "tap:t3:",
    "dtap:stock", "tap:fH", "waste>t1:AS:", "t1->t2", "t1>>t2", "foundation>t1", "fH>t1:AH", "stock>waste",
    "t3>t5:10♥", "t3>t5:ᴋs", "t1>t2:ks ", "tap:t1:t2", "undo:t1", "t1>foundation:XS", "fS>", ">t1", "tap",
    "t1>t2:AS:KS",
)

#: Codes that are not game codes (RULES.md), some long (params keep 64 code points).
BAD_CODES = (
    "", "TF1-D1N-AAAAAA", "TF1-D1N-AAAAAAAA", "TF1-D2N-AAAAAAB", "TF1-D1X-AAAAAAB", "TF2-D1N-AAAAAAB",
    "TF1-D1N-AAAAAA1", " TF1-D1N-AAAAAAB", "TF1-D1N-AAAAAAB ", "TF1-D1N-AAAAAAB\n", "TF1_D1N_AAAAAAB",
    "TF1-D1N-ÀAAAAAB", "tf1-d1n-aaaaaaſ", "ＴＦ1-D1N-AAAAAAB", "TF1-D3N-", "TF1-D1NAAAAAAB", "null",
    "x" * 100, "🂡" * 70, "TF1-D1N-AAAAAAB" + "é" * 60, "TF1-D3S-AAAAAAB", "TF1-D0N-AAAAAAB",
)


def action_result(game: Game, notation: str) -> tuple[dict, Outcome | None]:
    """Apply one notation: the runner's result for it, and the outcome when accepted."""
    try:
        action = Action.parse(notation)
    except NotationError:
        return {"ok": False, "code": INVALID_REQUEST, "params": {"notation": notation}}, None
    try:
        outcome = game.apply(action)
    except Rejection as rejection:
        return {"ok": False, "code": rejection.code, "params": rejection.params}, None
    return {"ok": True, "game": game.view()}, outcome


def replay_results(code: str, notations: list[str]) -> dict:
    """What a conformance runner prints for one game: ``{"results": […]}`` or ``{"error": …}``."""
    try:
        game = Game.from_code(code)
    except Rejection as rejection:
        return {"error": {"code": rejection.code, "params": rejection.params}}
    return {"results": [action_result(game, notation)[0] for notation in notations]}


def dumps(line: dict) -> str:
    """One line as the vectors write it: compact JSON, UTF-8, keys in the engine's order."""
    return json.dumps(line, separators=(",", ":"), ensure_ascii=False)


def deal_line(deal: int) -> dict:
    tableau, stock = deal_cards(deal)
    return {"kind": "deal", "code": str(GameCode(draw=1, deal=deal)),
            "tableau": [format_cards(column) for column in tableau], "stock": format_cards(stock)}


class _Recording:
    """One game line being written: the game, its notations, results and outcomes."""

    def __init__(self, code: GameCode) -> None:
        self.code = code
        self.game = Game.from_code(code)
        self.actions: list[str] = []
        self.results: list[dict] = []
        self.outcomes: list[dict | None] = []

    def line(self) -> dict:
        return {"kind": "game", "code": str(self.code), "actions": self.actions, "results": self.results,
                "outcomes": self.outcomes}


class _StepClock:
    """A clock for the solver that advances a millisecond per reading: its time budget and the
    share of each of its searches then follow the slices run, not the machine's speed."""

    def __init__(self) -> None:
        self._ticks = itertools.count()

    def __call__(self) -> float:
        return next(self._ticks) / 1000.0


class VectorWriter:
    """Generates the lines; :attr:`coverage` counts what they exercise."""

    def __init__(self, seed: int = 1, actions: int = DEFAULT_ACTIONS, minimums: dict[str, int] | None = None) -> None:
        self.rng = random.Random(seed)
        self.minimums = {**(MINIMUMS if minimums is None else minimums), ACTIONS: actions}
        self.coverage: Counter[str] = Counter()
        self._pending: list[dict] = []
        self._games = 0

    # -- the whole set -------------------------------------------------------------

    def lines(self) -> Iterator[dict]:
        # the first deal numbers, then the last and a few anywhere (every bit of SplitMix64 at work)
        for deal in (*range(DEAL_LINES), DEAL_COUNT - 1, *(self.rng.randrange(DEAL_COUNT) for _ in range(24))):
            yield deal_line(deal)
            self.coverage["deals"] += 1
        for code in (*BAD_CODES, *self._mutated_codes(10)):
            notations = ["draw"] if self.rng.random() < 0.5 else []
            answer = replay_results(code, notations)
            self.coverage[answer["error"]["code"]] += 1
            yield {"kind": "game", "code": code, "actions": notations, "error": answer["error"]}
        yield from self._won_games()
        # Random games until every minimum is met
        for _ in range(MAX_RANDOM_GAMES):
            if not self.missing():
                break
            self._random_game()
            yield from self._flush()

    def missing(self) -> dict[str, tuple[int, int]]:
        """The entries under their minimum: ``{entry: (count, minimum)}``."""
        return {entry: (self.coverage[entry], least) for entry, least in self.minimums.items()
                if self.coverage[entry] < least}

    def _flush(self) -> Iterator[dict]:
        yield from self._pending
        self._pending.clear()

    def _mutated_codes(self, count: int) -> list[str]:
        codes: list[str] = []
        alphabet = "TFDN13-ABZ0x ſ"
        while len(codes) < count:
            text = list(str(GameCode(draw=self.rng.choice((1, 3)), deal=self.rng.randrange(DEAL_COUNT))))
            text[self.rng.randrange(len(text))] = self.rng.choice(alphabet)
            candidate = "".join(text)
            try:
                GameCode.parse(candidate)
            except Rejection:
                codes.append(candidate)
        return codes

    # -- playing and counting ---------------------------------------------------------

    def _play(self, recording: _Recording, notation: str) -> tuple[dict, Outcome | None]:
        game = recording.game
        facts = self._double_tap_facts(game, notation)
        result, outcome = action_result(game, notation)
        recording.actions.append(notation)
        recording.results.append(result)
        recording.outcomes.append(outcome.to_json() if outcome is not None else None)
        self._count(recording.code.draw, result, outcome, facts)
        return result, outcome

    def _count(self, draw: int, result: dict, outcome: Outcome | None, facts: set[str]) -> None:
        counted = self.coverage
        counted[ACTIONS] += 1
        counted[f"draw {draw} actions"] += 1
        if outcome is None:
            counted[result["code"]] += 1
            if result["code"] == "NO_DESTINATION" and "king at bottom" in facts:
                counted[DOUBLE_KING_AT_BOTTOM] += 1
            return
        kind = outcome.action.kind
        source = outcome.source.value if outcome.source else None
        target = outcome.target.value if outcome.target else None
        if kind == "undo":
            if outcome.points:
                counted[UNDO_POINTS] += 1
        elif kind == "draw":
            counted[DRAW] += 1
            if draw == 3 and len(outcome.cards) < 3:
                counted[SHORT_DRAW] += 1
        elif kind == "recycle":
            if outcome.points == -100:
                counted[RECYCLE_FULL] += 1
            elif outcome.points:
                counted[RECYCLE_CLIPPED] += 1
            else:
                counted[RECYCLE_FREE] += 1
        elif kind == "take-back":
            counted[TAKE_BACK] += 1
        else:
            if target in _FOUNDATION_PILES:
                counted[FIRST_ARRIVAL if outcome.points else ARRIVED_AGAIN] += 1
            elif source == "waste":
                counted[WASTE_TO_COLUMN] += 1
            else:
                counted[COLUMN_TO_COLUMN] += 1
            if kind == "tap":
                to_column = target not in _FOUNDATION_PILES
                if not outcome.action.double:
                    counted[TAP] += 1
                else:
                    counted[DOUBLE_TO_COLUMN if to_column else DOUBLE_TO_FOUNDATION] += 1
                if to_column and "tie" in facts:
                    counted[DOUBLE_TIE] += 1
                if to_column and "king" in facts:
                    counted[DOUBLE_KING] += 1

    @staticmethod
    def _double_tap_facts(game: Game, notation: str) -> set[str]:
        """What makes a double tap interesting here: a tie, a king and an empty column."""
        if not notation.startswith("dtap:"):
            return set()
        try:
            action = Action.parse(notation)
        except NotationError:
            return set()
        column = action.source.value != "waste"
        pile = game.tableau[action.source.column] if column else game.waste
        if not pile or (action.card is not None and action.card not in pile):
            return set()
        index = len(pile) - 1 if action.card is None else pile.index(action.card)
        card = pile[index]
        own = action.source.column if column else -1
        accepting = [len(other) for dst, other in enumerate(game.tableau)
                     if dst != own and other and STEP[other[-1]][card]]
        facts = set()
        if len(accepting) > 1 and accepting.count(max(accepting)) > 1:
            facts.add("tie")
        if card % 13 == _KING and any(not other for other in game.tableau):
            facts.add("king at bottom" if column and index == 0 else "king")
        return facts

    def _sample_position(self, recording: _Recording, state: bool = False) -> None:
        if self.rng.random() < LEGAL_SHARE:
            self._pending.append({"kind": "legal", "code": str(recording.code), "actions": list(recording.actions),
                                  "legal": [str(action) for action in recording.game.legal_actions()]})
            self.coverage["legal positions"] += 1
        if state or self.rng.random() < STATE_SHARE:
            self._pending.append({"kind": "state", "code": str(recording.code), "actions": list(recording.actions),
                                  "state": recording.game.to_state()})
            self.coverage["states"] += 1

    # -- probes: actions aimed at what is still rare, each leaving the position as it was --

    def _probe(self, recording: _Recording) -> None:
        game = recording.game
        near_win = sum(game.foundations) >= 51  # a legal probe could win: refused probes only
        builders = [(entry, build) for entry, build in self._targeted()
                    if self.coverage[entry] < self.minimums.get(entry, 0)]
        self.rng.shuffle(builders)
        for _, build in builders:
            notations = None if near_win else build(game)
            if notations:
                break
        else:
            notations = self._random_probe(game, legal_allowed=not near_win)
        for notation in notations:
            self._play(recording, notation)

    def _targeted(self):
        return ((DOUBLE_TIE, self._probe_tie), (DOUBLE_KING, self._probe_king),
                (DOUBLE_KING_AT_BOTTOM, self._probe_king_at_bottom), (ARRIVED_AGAIN, self._probe_resend),
                (RECYCLE_FULL, self._probe_recycle), (RECYCLE_CLIPPED, self._probe_recycle),
                (RECYCLE_FREE, self._probe_recycle), ("NOTHING_TO_RECYCLE", self._probe_empty_talon),
                ("STOCK_EMPTY", self._probe_empty_talon), (SHORT_DRAW, self._probe_draw))

    def _double_taps(self, game: Game) -> Iterator[str]:
        """Every double tap on a card whose group above is in sequence."""
        for col, column in enumerate(game.tableau):
            for index in range(len(column) - 1, -1, -1):
                yield f"dtap:{COLUMNS[col].value}:{format_cards([column[index]])[0]}"
                if index and not STEP[column[index - 1]][column[index]]:
                    break
        if game.waste:
            yield "dtap:waste"

    def _probe_tie(self, game: Game) -> list[str] | None:
        for notation in self._double_taps(game):
            if "tie" in self._double_tap_facts(game, notation) and game.is_legal(Action.parse(notation)):
                return [notation, "undo"]
        return None

    def _probe_king(self, game: Game) -> list[str] | None:
        for notation in self._double_taps(game):
            if "king" in self._double_tap_facts(game, notation) and game.is_legal(Action.parse(notation)):
                return [notation, "undo"]  # the undo takes back the probe, never the line's action
        return None

    def _probe_king_at_bottom(self, game: Game) -> list[str] | None:
        for notation in self._double_taps(game):
            if "king at bottom" in self._double_tap_facts(game, notation) and not game.is_legal(Action.parse(notation)):
                return [notation]
        return None

    def _probe_resend(self, game: Game) -> list[str] | None:
        for action in game.legal_actions():
            if action.kind == "take-back":
                return [str(action), f"{action.target}>{action.source}"]
        return None

    def _probe_recycle(self, game: Game) -> list[str] | None:
        return ["recycle", "undo"] if not game.stock and game.waste else None

    def _probe_empty_talon(self, game: Game) -> list[str] | None:
        return ["recycle", "draw"] if not game.stock and not game.waste else None

    def _probe_draw(self, game: Game) -> list[str] | None:
        return ["draw", "undo"] if game.code.draw == 3 and 0 < len(game.stock) < 3 else None

    def _random_probe(self, game: Game, legal_allowed: bool) -> list[str]:
        """Of a few random notations, the one whose answer is the least covered."""
        best, best_need = None, None
        for _ in range(24):
            notation = self._random_notation(game)
            try:
                action = Action.parse(notation)
                game.check(action)
                entry = "legal"
            except NotationError:
                entry = INVALID_REQUEST
            except Rejection as rejection:
                entry = rejection.code
            if entry == "legal" and (not legal_allowed or action.kind == "undo"):
                continue  # a probe leaves the position as it was: an accepted undo would not
            need = self.coverage[entry] - self.minimums.get(entry, 0)  # under its minimum: < 0
            if best_need is None or need < best_need:
                best, best_need = (notation, entry), need
        if best is None:
            return ["t1>stock"]
        notation, entry = best
        return [notation, "undo"] if entry == "legal" else [notation]

    def _random_notation(self, game: Game) -> str:
        rng = self.rng
        roll = rng.random()
        if roll < 0.06:
            return rng.choice(MALFORMED)
        if roll < 0.12:
            return rng.choice(("draw", "recycle", "undo"))
        if roll < 0.2:
            return f"{rng.choice(FOUNDATIONS).value}>{rng.choice(PILES)}"
        source = rng.choice(PLAY_SOURCES)
        pile = game.waste if source == "waste" else game.tableau[int(source[1]) - 1]
        pick = rng.random()
        if pile and pick >= 0.4:
            card = rng.choice(pile)  # a card of the pile
        elif pick < 0.3:
            card = None  # its top card
        else:
            card = rng.randrange(52)  # most often a card of another pile
        suffix = "" if card is None else ":" + self._card_text(card)
        if roll < 0.4:
            return f"{rng.choice(('tap', 'dtap'))}:{source}{suffix}"
        return f"{source}>{rng.choice(PILES)}{suffix}"

    def _card_text(self, card: int) -> str:
        """A card's name as clients may write it: canonical mostly, else lower case or with 10."""
        name = format_cards([card])[0]
        roll = self.rng.random()
        if roll < 0.1:
            return name.lower()
        if roll < 0.15 and name[0] == "T":
            return "10" + name[1]
        return name

    # -- whole games ---------------------------------------------------------------------

    def _won_games(self) -> Iterator[dict]:
        from .solver import solve

        draws = itertools.cycle((1, 3))
        wins = 0
        while wins < self.minimums.get(WON, 0):
            code = GameCode(draw=next(draws), deal=self.rng.randrange(DEAL_COUNT))
            solution = solve(Game.from_code(code), budget_ms=10**9, max_nodes=SOLVER_NODES, clock=_StepClock())
            if solution.verdict != "winnable":
                continue
            wins += 1
            self._solver_game(code, [str(action) for action in solution.line])
            yield from self._flush()

    def _solver_game(self, code: GameCode, line: list[str]) -> None:
        recording = _Recording(code)
        game = recording.game
        if self.rng.random() < 0.3:
            self._play(recording, "undo")
        for notation in line:
            if self.rng.random() < PROBE_SHARE:
                self._probe(recording)
            self._sample_position(recording)
            result, _ = self._play(recording, self._as_tap(game, notation))
            if not result["ok"]:  # pragma: no cover - the solver's lines are replayed before use
                raise AssertionError(f"{code}: the solver's {notation} was refused: {result}")
        if not game.won:  # pragma: no cover
            raise AssertionError(f"{code}: the solver's line does not win")
        self.coverage[WON] += 1
        after = ["undo", "draw", "recycle", "t1>foundation", "tap:t2", "dtap:waste", "fS>t1", "waste>t3",
                 self.rng.choice(MALFORMED)]
        for notation in self.rng.sample(after, self.rng.randint(3, 6)):
            self._play(recording, notation)
        self._sample_position(recording, state=self.rng.random() < 0.2)
        self._pending.append(recording.line())

    def _as_tap(self, game: Game, notation: str) -> str:
        """The same action as a tap, sometimes, when a tap does exactly what the move does."""
        if self.rng.random() >= 0.3 or ">" not in notation or notation.startswith("f"):
            return notation
        action = Action.parse(notation)
        card = format_cards([action.card])[0] if action.card is not None else None
        if action.target.is_foundation:
            return self.rng.choice([f"tap:{action.source}", f"tap:{action.source}:{card}",
                                    f"dtap:{action.source}:{card}"] if card else [f"tap:{action.source}"])
        tap = f"dtap:{action.source}" + (f":{card}" if card else "")
        moved, tapped = Game.from_state(game.to_state()), Game.from_state(game.to_state())
        moved.apply(action)
        try:
            tapped.apply(Action.parse(tap))
        except Rejection:
            return notation
        return tap if tapped == moved else notation

    def _random_game(self) -> None:
        rng = self.rng
        self._games += 1
        draw = 1 + 2 * (self._games % 2)
        recording = _Recording(GameCode(draw=draw, deal=rng.randrange(DEAL_COUNT)))
        game = recording.game
        if rng.random() < 0.5:
            self._play(recording, "undo")
        storm = self.coverage["UNDO_LIMIT_REACHED"] < self.minimums.get("UNDO_LIMIT_REACHED", 0) and rng.random() < 0.4
        for _ in range(rng.randint(150, 350) if storm else rng.randint(40, 300)):
            if game.won:
                break
            if rng.random() < PROBE_SHARE:
                self._probe(recording)
            self._sample_position(recording)
            self._play(recording, self._random_legal(game))
        if storm and game.undo_dropped and not game.won:
            self._sample_position(recording, state=True)
            for _ in range(len(game.undo_stack) + rng.randint(1, 4)):
                self._play(recording, "undo")
            self._play(recording, self._random_legal(game))
        self._pending.append(recording.line())

    def _random_legal(self, game: Game) -> str:
        """A legal action, favouring those that make progress, sometimes played as a tap."""
        rng = self.rng
        actions = game.legal_actions()
        weights = []
        for action in actions:
            if action.kind == "move":
                if action.target.is_foundation:
                    weight = 10.0
                elif action.source is Pile.WASTE:
                    weight = 5.0
                else:
                    pile = game.tableau[action.source.column]
                    weight = 0.2 if pile[0] == action.card and not game.tableau[action.target.column] else 2.0
            else:
                weight = {"draw": 3.0, "recycle": 2.0, "undo": 0.4, "take-back": 0.3}[action.kind]
            weights.append(weight)
        action = rng.choices(actions, weights)[0]
        if action.kind == "move" and rng.random() < 0.15:
            card = format_cards([action.card])[0]
            return f"{rng.choice(('tap', 'dtap'))}:{action.source}:{card}"
        return str(action)


def generate(seed: int = 1, actions: int = DEFAULT_ACTIONS,
             minimums: dict[str, int] | None = None) -> tuple[list[dict], VectorWriter]:
    """Every line of a vector set, and the writer whose coverage counts them."""
    writer = VectorWriter(seed, actions, minimums)
    return list(writer.lines()), writer


def coverage_report(writer: VectorWriter) -> str:
    """The coverage, one entry a line with its minimum, then the other counts."""
    rows = []
    for entry, least in writer.minimums.items():
        count = writer.coverage[entry]
        rows.append(f"{'ok  ' if count >= least else 'LOW '} {count:7d}  (min {least:5d})  {entry}")
    for entry in sorted(set(writer.coverage) - set(writer.minimums)):
        rows.append(f"     {writer.coverage[entry]:7d}               {entry}")
    return "\n".join(rows)


@click.command("vectors")
@click.option("--out", "out_path", type=click.Path(dir_okay=False, writable=True), default="-", show_default=True,
              help="The JSONL file to write ('-': stdout).")
@click.option("--seed", type=int, default=1, show_default=True, help="Seed of the random play and probes.")
@click.option("--actions", type=click.IntRange(min=1, max=1_000_000), default=DEFAULT_ACTIONS, show_default=True,
              help="Least number of actions in the game lines.")
def vectors_command(out_path: str, seed: int, actions: int) -> None:
    """Write conformance vectors (JSONL) from the Python engine; coverage on stderr."""
    writer = VectorWriter(seed, actions)
    with click.open_file(out_path, "w", encoding="utf-8") as out:
        for line in writer.lines():
            out.write(dumps(line) + "\n")
    click.echo(coverage_report(writer), err=True)
    missing = writer.missing()
    if missing:
        raise click.ClickException("minimums not met: " + "; ".join(
            f"{entry} {count}/{least}" for entry, (count, least) in missing.items()))


# -- the rules fingerprint ---------------------------------------------------------------

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


def main() -> None:  # pragma: no cover - `python -m service.vectors`, without Flask
    vectors_command.main(sys.argv[1:], prog_name="vectors")


if __name__ == "__main__":  # pragma: no cover
    main()

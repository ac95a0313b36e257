"""The vector writer: deals, bad codes, the solver's won games, then random games until the minimums are met."""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Iterator

from ..engine import Action, Game, GameCode, Outcome, Pile, Rejection
from ..engine.cards import format_cards
from ..engine.deal import DEAL_COUNT
from .coverage import ACTIONS, MINIMUMS, WON, count_action, double_tap_facts
from .probes import BAD_CODES, MALFORMED, mutated_codes, probe
from .results import action_result, deal_line, replay_results

DEAL_LINES = 1000
DEFAULT_ACTIONS = 20_000
#: positions a solve may expand; enough for most deals, and far under a second each
SOLVER_NODES = 200_000
#: the share of the steps of a game at which a probe is tried
PROBE_SHARE = 0.3
LEGAL_SHARE = 0.03
STATE_SHARE = 0.01
#: random games played at most after the solver's: a bound for a generator that can no longer
#: reach a minimum (the command then says which)
MAX_RANDOM_GAMES = 5_000


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
        for code in (*BAD_CODES, *mutated_codes(self.rng, 10)):
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

    # -- playing and counting ---------------------------------------------------------

    def _play(self, recording: _Recording, notation: str) -> tuple[dict, Outcome | None]:
        game = recording.game
        facts = double_tap_facts(game, notation)
        result, outcome = action_result(game, notation)
        recording.actions.append(notation)
        recording.results.append(result)
        recording.outcomes.append(outcome.to_json() if outcome is not None else None)
        count_action(self.coverage, recording.code.draw, result, outcome, facts)
        return result, outcome

    def _probe(self, recording: _Recording) -> None:
        for notation in probe(recording.game, self.rng, self.coverage, self.minimums):
            self._play(recording, notation)

    def _sample_position(self, recording: _Recording, state: bool = False) -> None:
        if self.rng.random() < LEGAL_SHARE:
            self._pending.append({"kind": "legal", "code": str(recording.code), "actions": list(recording.actions),
                                  "legal": [str(action) for action in recording.game.legal_actions()]})
            self.coverage["legal positions"] += 1
        if state or self.rng.random() < STATE_SHARE:
            self._pending.append({"kind": "state", "code": str(recording.code), "actions": list(recording.actions),
                                  "state": recording.game.to_state()})
            self.coverage["states"] += 1

    # -- whole games ---------------------------------------------------------------------

    def _won_games(self) -> Iterator[dict]:
        from ..solver import solve

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

"""A batch of actions (``POST /v1/games/{game_id}/actions``): all of them in one transaction, or none.

The steps are :func:`.actions.play`'s, around a loop over the engine:

1. :func:`~.actions.lock_game` — the game, locked until commit (404, 401, 403);
2. :func:`~.idempotency.answered_action` — a batch already answered under this
   ``Idempotency-Key`` is that answer again: a repeated batch is a replay, never applied twice;
3. ``If-Match`` is required here (428 ``IF_MATCH_REQUIRED``): the version the client's
   actions start from. A stale one is 412 ``VERSION_MISMATCH`` carrying what a rebase
   needs (:class:`Stale`: the current version and the actions after the client's base);
4. a body that did not parse is refused now (400, ``INVALID_NOTATION`` with its index);
5. the engine applies the actions one after the other to the one game read from the
   row (incrementally: no replay of the history per action). The first refusal stops
   the batch and nothing is stored: its rule code and params plus ``index`` (422, or 409
   ``GAME_FINISHED``). Otherwise the game is stored once and the history rows appended in
   one insert (``store.games.store_actions``);
6. with a key, the answer (the game, or the refusal) is stored in the same transaction.
"""

from __future__ import annotations

from ..engine import Action, Game, NotationError, Rejection
from ..store import action_transaction, games
from ..store.games import Step
from ..telemetry import metrics, spans
from .actions import GameWrite, Played, Replayed, check_version, counted, lock_game
from .cursors import HISTORY_CURSOR
from .errors import ServiceError
from .idempotency import answered_action, keep_action_answer

#: The most actions one batch may carry (and a new game born offline).
MAX_BATCH = 500
#: The most actions a 412 lists after the client's base (the history link has them all).
MAX_REBASE_ACTIONS = 1000

#: A batch as the request carried it: parsed, or the refusal its body got (raised after the checks that come first).
RequestedBatch = list[Action] | ServiceError


class Refused(Rejection):
    """The engine's refusal of the action at ``index`` of a batch: its code and params, plus ``index``."""

    def __init__(self, rejection: Rejection, index: int) -> None:
        super().__init__(rejection.code, **rejection.params, index=index)
        self.index = index


class Stale(Exception):
    """412: the game has moved on since ``base``; ``actions`` (notation) lead from there to ``current``.

    Not a dataclass: ``contextlib`` sets ``__traceback__`` on an exception leaving a ``with``.
    """

    def __init__(self, game_id: str, sent: str, current: int, base: int, actions: list[str]) -> None:
        super().__init__(game_id, current)
        self.game_id, self.sent, self.current, self.base, self.actions = game_id, sent, current, base, actions

    @property
    def cursor(self) -> str | None:
        """The history's cursor after ``base`` (None: from the start)."""
        return HISTORY_CURSOR.encode({"seq": self.base}) if self.base else None

    def params(self) -> dict:
        return {"sent": self.sent, "current": self.current, "version": self.current, "base": self.base,
                "actions": self.actions}


def play_batch(write: GameWrite, batch: RequestedBatch) -> Played | Replayed:
    """Apply every action of ``batch`` to the game in one transaction; the game after them, or a replay.

    Raises :class:`ServiceError` for the checks, :class:`Stale` for a stale ``If-Match``
    and :class:`Refused` for the first action a rule refuses (nothing applied).
    """
    with spans.span("store.transaction"), action_transaction() as connection:
        record = lock_game(connection, write)
        stored = answered_action(connection, record.id, write.idempotency)
        if stored is not None:
            return Replayed(stored)
        if write.if_match is None:
            raise ServiceError("IF_MATCH_REQUIRED")
        try:
            check_version(record.version, write.if_match)
        except ServiceError as error:
            if error.code != "VERSION_MISMATCH":
                raise
            base = _base_version(write.if_match, record.version)
            raise Stale(record.id, error.params["sent"], record.version, base,
                        games.notations_after(connection, record.id, base, MAX_REBASE_ACTIONS)) from None
        if isinstance(batch, ServiceError):
            raise batch
        game = Game.from_state(record.state)
        outcome = apply_all(game, batch)
        if isinstance(outcome, list):
            record = games.store_actions(connection, record, game, outcome)
            outcome = Played(record, game, outcome[-1].detail)
        keep_action_answer(connection, record.id, write.idempotency, outcome)
    counted_all(batch, outcome)
    if isinstance(outcome, Refused):
        raise outcome
    return outcome


def counted_all(batch: list[Action], outcome: Played | Refused) -> None:
    """Count a committed batch in the metrics as the single actions are: each action applied and a win,
    or the refused one (nothing else of a refused batch is stored)."""
    if isinstance(outcome, Refused):
        counted(batch[outcome.index], outcome)
        return
    for action in batch[:-1]:
        metrics.action(action.kind, "applied")
    counted(batch[-1], outcome)


def parse_batch(notations: list[str]) -> list[Action]:
    """The actions of a batch's notations; the first that does not parse is 400 ``INVALID_NOTATION`` with its index."""
    parsed = []
    for index, notation in enumerate(notations):
        try:
            parsed.append(Action.parse(notation))
        except NotationError:
            raise ServiceError("INVALID_NOTATION", index=index, notation=notation[:40]) from None
    return parsed


def apply_all(game: Game, batch: list[Action]) -> list[Step] | Refused:
    """Apply the actions in order to ``game`` (changed in place); their history steps, or the first refusal."""
    steps = []
    for index, action in enumerate(batch):
        try:
            outcome = game.apply(action)
        except Rejection as rejection:
            return Refused(rejection, index)
        steps.append(Step(str(action), outcome.to_json(), outcome.points, game.score, game.version))
    return steps


def _base_version(if_match: str, current: int) -> int:
    """The version a stale If-Match names: its first entity tag's number, if the game ever had it; else 0.

    ASCII digits only: ``"²".isdigit()`` is true, but ``int("²")`` raises.
    """
    tag = if_match.split(",")[0].strip().removeprefix("W/").strip('"')
    return int(tag) if tag.isascii() and tag.isdigit() and len(tag) < 10 and int(tag) <= current else 0

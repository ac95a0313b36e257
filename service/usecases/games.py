"""The games' use cases: deal one, read it, its history, the actions legal now, a hint.

Playing an action is :mod:`.actions`'.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from ..engine import Action, Game, GameCode
from ..store import ActionRow, GameRecord, PlayerRow, end_read, games, write_transaction
from ..store.games import Step
from ..telemetry import metrics, spans
from .actions import Played
from .batch import Refused, apply_all, counted_all
from .cursors import HISTORY_CURSOR
from .errors import ServiceError, invalid
from .idempotency import Idempotency, StoredAnswer, created_once
from .players import player_by_token
from .solving import Solving
from .tokens import hash_token, is_id, new_id, new_token, require_owner


@dataclass(frozen=True, slots=True)
class NewGame:
    """What a new game asks for: exactly this ``code``, a ``draw`` mode, a deal proven ``winnable``."""

    code: str | None = None
    draw: int | None = None
    winnable: bool = False
    #: A game born offline: the actions its client played (parsed), and ``(started_at, seconds)`` as reported.
    actions: list[Action] | None = None
    client: tuple[datetime, int] | None = None


@dataclass(frozen=True, slots=True)
class Dealt:
    """A game just dealt: its row, the engine's game, and an anonymous game's own token (shown once)."""

    record: GameRecord
    game: Game
    token: str | None


@dataclass(frozen=True, slots=True)
class HistoryPage:
    """A page of a game's accepted actions; ``next``: the cursor of the page after it (None: the last)."""

    record: GameRecord
    actions: list[ActionRow]
    next: str | None


@dataclass(frozen=True, slots=True)
class LegalActions:
    record: GameRecord
    actions: list[Action]


@dataclass(frozen=True, slots=True)
class Hint:
    """A hint for the game at ``version`` (:meth:`service.usecases.solving.Solving.hint`'s answer), and the
    game's hints counted so far."""

    game_id: str
    version: int
    answer: dict
    hints: int


def read_game(game_id: str) -> GameRecord:
    """A game as it is now, in the session's read transaction; 404 when there is none."""
    return _found(game_id, games.read_game(game_id) if is_id(game_id) else None)


def watch_game(game_id: str) -> GameRecord:
    """A game as it is now, for a request that reads nothing else (a poll); 404 when there is none."""
    return _found(game_id, games.read_game_alone(game_id) if is_id(game_id) else None)


def _found(game_id: str, record: GameRecord | None) -> GameRecord:
    if record is None:
        raise ServiceError("GAME_NOT_FOUND", game=game_id)
    return record


def deal(asked: NewGame, *, player_token: str | None, solving: Solving,
         idempotency: Idempotency | None = None) -> Dealt | StoredAnswer:
    """Deal a new game: the token's player's, or anonymous with a token of its own.

    401 for a token that is no player's. With an ``Idempotency-Key``, a retry gets the
    first answer (a :class:`StoredAnswer`) instead of another game.
    """
    player = player_by_token(player_token)
    owner = player.token_hash if player else None
    check_born_offline(asked)
    return created_once(idempotency, owner, lambda keep: _create_game(asked, player, solving, keep))


def _create_game(asked: NewGame, player: PlayerRow | None, solving: Solving, keep: Callable) -> Dealt:
    token = None if player else new_token()
    player_id, token_hash = (player.id, player.token_hash) if player else (None, hash_token(token))
    code = _choose_code(asked, solving)  # may search for a winnable deal: before taking the write lock
    game = Game(code)
    steps = _played_offline(asked, game)
    with spans.span("store.transaction"), write_transaction():
        record = games.insert_game(game, game_id=new_id(), player_id=player_id, token_hash=token_hash,
                                   winnable=True if asked.winnable else None, steps=steps, client=asked.client)
        dealt = Dealt(record, game, token)
        keep(dealt)
    metrics.game_created(code.draw, "given" if asked.code is not None else "winnable" if asked.winnable else "random")
    if steps:
        counted_all(asked.actions, Played(record, game, steps[-1].detail))
    return dealt


#: How far ahead of the server's clock a client's ``started_at`` may be, and how long ago at most.
CLIENT_CLOCK_SKEW = timedelta(minutes=5)
CLIENT_MAX_AGE = timedelta(days=7)


def check_born_offline(asked: NewGame, now: datetime | None = None) -> None:
    """A game born offline names its deal and says when it started; what the client reports is bounded (400)."""
    if asked.actions is not None and asked.client is None:
        raise invalid("client", "Required with actions: when the game started and how long it was played.")
    if asked.client is None:
        return
    if asked.code is None or asked.winnable:
        raise invalid("code", "Required with client or actions: the deal the client played.")
    now = now or datetime.now(UTC)
    started, seconds = asked.client
    if started > now + CLIENT_CLOCK_SKEW:
        raise invalid("client", "started_at: in the future.")
    if started < now - CLIENT_MAX_AGE:
        raise invalid("client", f"started_at: more than {CLIENT_MAX_AGE.days} days ago.")
    if timedelta(seconds=seconds) > now - started + CLIENT_CLOCK_SKEW:
        raise invalid("client", "seconds: more than the time since started_at.")


def _played_offline(asked: NewGame, game: Game) -> list[Step] | None:
    """The actions of a game born offline applied to ``game``; the first refused is 422 (or 409) with its index."""
    if not asked.actions:
        return None
    steps = apply_all(game, asked.actions)
    if isinstance(steps, Refused):
        counted_all(asked.actions, steps)
        raise steps
    return steps


def _choose_code(asked: NewGame, solving: Solving) -> GameCode:
    """The game code of a new game: the one asked for, a proven-winnable one, or a random one."""
    if asked.code is not None:
        if asked.winnable:
            raise invalid("winnable", "Not with a code: the code fixes the deal.")
        code = GameCode.parse(asked.code)  # a Rejection (422 INVALID_GAME_CODE) when it is not one
        if asked.draw is not None and asked.draw != code.draw:
            raise invalid("draw", f"The code {code} is played with draw {code.draw}.")
        return code
    if asked.winnable:
        return solving.winnable_code(asked.draw or 1)
    return GameCode.random(asked.draw or 1)


def history(game_id: str, cursor: str | None, limit: int) -> HistoryPage:
    """Up to ``limit`` of a game's accepted actions after ``cursor`` (404 first, then a malformed cursor's 400)."""
    record = read_game(game_id)
    after = (HISTORY_CURSOR.decode(cursor) or {"seq": 0})["seq"]
    rows = games.history_page(game_id, after, limit)
    following = HISTORY_CURSOR.encode({"seq": rows[limit - 1].seq}) if len(rows) > limit else None
    return HistoryPage(record, rows[:limit], following)


def legal_actions(game_id: str) -> LegalActions:
    """Every action legal in the game now (none once won)."""
    record = watch_game(game_id)
    return LegalActions(record, Game.from_state(record.state).legal_actions())


def hint(game_id: str, *, owner_token: str | None, solving: Solving) -> Hint:
    """The owner asks for a hint: searched outside any transaction, then counted in the game's ``hints``."""
    record = read_game(game_id)
    require_owner(owner_token, record.token_hash)
    if record.status == "won":
        raise ServiceError("GAME_FINISHED")
    end_read()  # no transaction stays open during the search
    answer = solving.hint(record.state)
    hints = games.count_hint(game_id)
    if hints is None:  # purged during the search
        raise ServiceError("GAME_NOT_FOUND", game=game_id)
    return Hint(game_id, record.version, answer, hints)

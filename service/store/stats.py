"""Player statistics kept as games are dealt and won, so reading them is one short query.

One ``player_stats`` row per player and mode: 0 for all games, 1 and 3 per draw mode.
Dealing a game adds it to ``started`` and to ``trailing`` (the newest games still being
played, which count neither way in the streaks). A win updates the counters and:

* when the game is the oldest of the trailing games, the decided part grows by a win
  (``current_streak + 1``);
* when it is a later one, the older trailing games, still unfinished, now break the
  streak (``current_streak = 1``);
* when it is older than every trailing game (a game left unfinished long ago, won
  now), the streaks are counted again over the player's statuses: rare, and only on
  that write, never on a read.

Each change runs inside the game's write transaction, on its connection (``connection``:
the session's for a deal or a new player, the action's own for a win), with the stats
rows locked in a fixed order (mode 0 first), so concurrent wins of one player serialize
without deadlock.
"""

from __future__ import annotations

from sqlalchemy import and_, func, insert, or_, select, update
from sqlalchemy.engine import Connection

from ..extensions import db
from .models import GameRow, PlayerStats

MODES = (0, 1, 3)
_S = PlayerStats.__table__
_SC = _S.c
_G = GameRow.__table__.c


def streaks(statuses: list[str]) -> tuple[int, int]:
    """``(current, best)`` winning streaks over statuses in creation order.

    A won game extends the streak; any other game breaks it, except the games
    still being played at the end of the list (the most recent ones, not yet
    decided: they count neither way until they are won). So a game left unfinished
    while the player deals newer ones breaks the streak, and becomes part of one if
    it is won later. ``current`` is the run of wins that ends the decided part.

    >>> streaks(["won", "won", "playing", "won", "won", "won", "playing"])
    (3, 3)
    """
    end = len(statuses) - trailing(statuses)
    best = run = 0
    for status in statuses[:end]:
        run = run + 1 if status == "won" else 0
        best = max(best, run)
    return run, best


def trailing(statuses: list[str]) -> int:
    """How many of the newest games are still being played (they count neither way in the streaks yet).

    >>> trailing(["won", "playing", "won", "playing", "playing"])
    2
    """
    count = 0
    while count < len(statuses) and statuses[-1 - count] == "playing":
        count += 1
    return count


def _modes(draw: int) -> tuple[int, int]:
    return (0, draw)


def create(connection: Connection, player_id: str) -> None:
    """Inside the player's creating transaction: empty statistics for every mode."""
    connection.execute(insert(_S), [{"player_id": player_id, "mode": mode, "started": 0, "won": 0,
                                                  "current_streak": 0, "best_streak": 0, "trailing": 0}
                                                 for mode in MODES])


def game_dealt(connection: Connection, player_id: str, draw: int) -> None:
    """Inside the game's creating transaction: one more game started, still being played."""
    connection.execute(
        update(_S).where(_SC.player_id == player_id, _SC.mode.in_(_modes(draw)))
        .values(started=_SC.started + 1, trailing=_SC.trailing + 1))


def game_won(connection: Connection, game, score: int, moves: int, duration_ms: int) -> None:
    """Inside the winning action's transaction (``game``: its locked row, still as before the win)."""
    for mode in _modes(game.draw):
        stats = connection.execute(
            select(_S).where(_SC.player_id == game.player_id, _SC.mode == mode).with_for_update()).first()
        if stats is None:  # pragma: no cover - every player gets its rows when created (or by migration 0004)
            continue
        newer = connection.execute(
            select(func.count()).select_from(GameRow.__table__).where(
                _G.player_id == game.player_id, *((_G.draw == mode,) if mode else ()),
                or_(_G.created_at > game.created_at, and_(_G.created_at == game.created_at, _G.id > game.id)))
        ).scalar_one()
        changes = {
            "won": stats.won + 1,
            "best_score": score if stats.best_score is None else max(stats.best_score, score),
            "fewest_moves": moves if stats.fewest_moves is None else min(stats.fewest_moves, moves),
            "fastest_ms": duration_ms if stats.fastest_ms is None else min(stats.fastest_ms, duration_ms),
        }
        if newer < stats.trailing:  # one of the trailing games: the decided part ends with this win
            current = stats.current_streak + 1 if newer == stats.trailing - 1 else 1
            changes.update(current_streak=current, best_streak=max(stats.best_streak, current), trailing=newer)
        else:  # an old unfinished game won late: it may join two runs
            current, best = streaks(_statuses(connection, game.player_id, mode, game.id))
            changes.update(current_streak=current, best_streak=best)
        connection.execute(update(_S).where(_SC.player_id == game.player_id, _SC.mode == mode).values(**changes))


def _statuses(connection: Connection, player_id: str, mode: int, winning: str) -> list[str]:
    """The player's statuses in creation order, with ``winning`` (not yet stored as won) as won."""
    rows = connection.execute(
        select(_G.id, _G.status).where(_G.player_id == player_id, *((_G.draw == mode,) if mode else ()))
        .order_by(_G.created_at, _G.id)).all()
    return ["won" if game == winning else status for game, status in rows]


def recount(connection: Connection, player_id: str) -> None:
    """Count a player's statistics again from all their games (migration 0004, hand-made data)."""
    games = connection.execute(
        select(_G.draw, _G.status, _G.score, _G.moves, _G.duration_ms)
        .where(_G.player_id == player_id).order_by(_G.created_at, _G.id)).all()
    connection.execute(_S.delete().where(_SC.player_id == player_id))
    for mode in MODES:
        chosen = [game for game in games if not mode or game.draw == mode]
        won = [game for game in chosen if game.status == "won"]
        statuses = [game.status for game in chosen]
        current, best = streaks(statuses)
        connection.execute(insert(_S).values(
            player_id=player_id, mode=mode, started=len(chosen), won=len(won),
            best_score=max((g.score for g in won), default=None),
            fewest_moves=min((g.moves for g in won), default=None),
            fastest_ms=min((g.duration_ms for g in won if g.duration_ms is not None), default=None),
            current_streak=current, best_streak=best, trailing=trailing(statuses)))


def read(player_id: str) -> dict[int, PlayerStats]:
    """The player's rows by mode: one indexed read, whatever the number of games."""
    rows = db.session.execute(select(_S).where(_SC.player_id == player_id)).all()
    return {row.mode: row for row in rows}

"""Leaderboards of won games, overall and per deal, and the daily deal.

Ranking: score (highest first), then moves (fewest), then time to win
(``duration_ms``, shortest); among entries equal on those three, the earliest win
(``finished_at``) and then the game id come first, so the order is total and a
keyset cursor over ``(score, moves, duration_ms, finished_at, id)`` never skips
nor repeats an entry while new wins arrive between pages.

``rank`` is standard competition ranking ("1224") over ``(score, moves,
duration_ms)``: one plus the number of entries, under the same filters, that are
strictly better. The first page needs no count; on a later page two COUNTs over
the partial index that serves the page (see migration 0002) ride along in the
page's own statement.

Every query repeats ``games.status = 'won'`` as a literal, not a bound
parameter, so that SQLite and PostgreSQL's generic plans can prove the partial
indexes apply.
"""

from __future__ import annotations

import hashlib
from datetime import UTC, date, datetime, time
from functools import lru_cache

from marshmallow import ValidationError, fields, validate
from sqlalchemy import and_, func, literal_column, or_, select

from ..engine import Game as EngineGame
from ..engine import GameCode
from ..engine.deal import DEAL_COUNT
from ..extensions import db
from ..store import Game, Player
from .auth import ID_PATTERN
from .present import decode_cursor, encode_cursor, iso, json_response
from .problems import ApiProblem, Blueprint
from .schemas import StrictSchema

blp = Blueprint("leaderboards", __name__, url_prefix="/v1",
                description="Leaderboards of won games, overall and per deal, and the daily deal.")

WON = Game.status == literal_column("'won'")
ORDER = (Game.score.desc(), Game.moves, Game.duration_ms, Game.finished_at, Game.id)
CURSOR_KEYS = ("score", "moves", "ms", "finished", "game")
ENTRY_COLUMNS = (Game.id, Game.code, Game.draw, Game.player_id, Player.name, Game.score, Game.moves,
                 Game.duration_ms, Game.finished_at)


# -- query strings ----------------------------------------------------------------


class MomentField(fields.String):
    """An ISO 8601 date-time with a time zone, or a date alone (midnight UTC)."""

    def _deserialize(self, value, attr, data, **kwargs) -> datetime:
        text = super()._deserialize(value, attr, data, **kwargs).strip()
        # An unencoded "+01:00" in a query string arrives as " 01:00".
        if len(text) > 19 and text[-6] == " ":
            text = f"{text[:-6]}+{text[-5:]}"
        try:
            if len(text) == 10:
                return datetime.combine(date.fromisoformat(text), time(), UTC)
            moment = datetime.fromisoformat(text)
        except ValueError:
            raise ValidationError("Not an ISO 8601 date-time, e.g. 2026-11-29T18:00:00Z.") from None
        if moment.tzinfo is None:
            raise ValidationError("Give a time zone, e.g. 2026-11-29T18:00:00Z.")
        return moment.astimezone(UTC)


_MOMENT_DOC = "ISO 8601 date-time with a time zone (e.g. `2026-11-29T18:00:00Z`) or a date (midnight UTC)."


class DealBoardQuerySchema(StrictSchema):
    since = MomentField(metadata={"description": f"Wins at or after this moment. {_MOMENT_DOC}",
                                  "example": "2026-11-29T00:00:00Z"})
    until = MomentField(metadata={"description": f"Wins before this moment. {_MOMENT_DOC}",
                                  "example": "2026-11-30"})
    player = fields.String(validate=validate.Regexp(ID_PATTERN, error="Not a player id."),
                           metadata={"description": "Only this player's wins (an unknown player is 404)."})
    limit = fields.Integer(strict=False, load_default=50, validate=validate.Range(min=1, max=200))
    cursor = fields.String(validate=validate.Length(max=200))


class BoardQuerySchema(DealBoardQuerySchema):
    draw = fields.Integer(strict=False, validate=validate.OneOf([1, 3]),
                          metadata={"description": "Only this draw mode; both when absent."})


class DailyQuerySchema(StrictSchema):
    draw = fields.Integer(strict=False, load_default=1, validate=validate.OneOf([1, 3]))
    date = fields.Date(metadata={"description": "A past day's deal (UTC date); today by default. "
                                                "Not a future date."})


# -- answers (documentation) ------------------------------------------------------


class LeaderboardEntrySchema(StrictSchema):
    rank = fields.Integer(metadata={"description": "Competition rank (1224): equal score, moves and "
                                                   "time share a rank."})
    game = fields.String(metadata={"description": "The game id."})
    code = fields.String(metadata={"example": "TF1-D1N-AAAAAAB"})
    draw = fields.Integer(metadata={"enum": [1, 3]})
    player = fields.String(allow_none=True, metadata={"description": "The player id; null when anonymous."})
    player_name = fields.String(allow_none=True)
    score = fields.Integer()
    moves = fields.Integer()
    seconds = fields.Float(metadata={"description": "Time from the deal to the win."})
    finished_at = fields.DateTime()


class LeaderboardPageSchema(StrictSchema):
    items = fields.List(fields.Nested(LeaderboardEntrySchema))
    next = fields.String(allow_none=True, metadata={"description": "Send as `cursor` for the next page."})


class DailySchema(StrictSchema):
    date = fields.Date()
    draw = fields.Integer(metadata={"enum": [1, 3]})
    code = fields.String(metadata={"description": "Play it with `POST /v1/games {\"code\": ...}`."})
    winnable = fields.Boolean(allow_none=True, metadata={"description": "true: the solver proved it "
                                                                        "winnable; null: not proven."})
    leaderboard = fields.String(metadata={"description": "The deal's leaderboard."})


# -- the queries --------------------------------------------------------------------


def board_filters(*, draw: int | None = None, code: str | None = None, player: str | None = None,
                  since: datetime | None = None, until: datetime | None = None) -> list:
    """The WHERE terms of one leaderboard: won games, then each filter given."""
    terms = [WON]
    if draw is not None:
        terms.append(Game.draw == draw)
    if code is not None:
        terms.append(Game.code == code)
    if player is not None:
        terms.append(Game.player_id == player)
    if since is not None:
        terms.append(Game.finished_at >= since)
    if until is not None:
        terms.append(Game.finished_at < until)
    return terms


def _better(score: int, moves: int, ms: int):
    """Entries strictly better on (score, moves, time): the ones that outrank this key."""
    return and_(Game.score >= score, or_(
        Game.score > score,
        and_(Game.score == score, or_(Game.moves < moves, and_(Game.moves == moves, Game.duration_ms < ms))),
    ))


def _at_or_before(p: dict):
    """Entries at the position ``p`` or ahead of it in the full order."""
    return and_(Game.score >= p["score"], or_(
        _better(p["score"], p["moves"], p["ms"]),
        and_(Game.score == p["score"], Game.moves == p["moves"], Game.duration_ms == p["ms"],
             or_(Game.finished_at < p["finished"],
                 and_(Game.finished_at == p["finished"], Game.id <= p["game"]))),
    ))


def _after(p: dict):
    """Entries behind the position ``p`` in the full order: the keyset of the next page."""
    return and_(Game.score <= p["score"], or_(
        Game.score < p["score"],
        and_(Game.score == p["score"], or_(
            Game.moves > p["moves"],
            and_(Game.moves == p["moves"], or_(
                Game.duration_ms > p["ms"],
                and_(Game.duration_ms == p["ms"], or_(
                    Game.finished_at > p["finished"],
                    and_(Game.finished_at == p["finished"], Game.id > p["game"]),
                )),
            )),
        )),
    ))


def page_statement(terms: list, after: dict | None, limit: int):
    """One page of entries (``limit + 1`` rows, to know whether another page follows).

    After a cursor, each row also carries ``ahead`` (entries at or before the cursor)
    and ``better`` (entries strictly better than the cursor's score, moves and
    time): uncorrelated subqueries, evaluated once, in the same statement and so
    the same snapshot as the page. They rank the page's first entry.
    """
    query = (select(*ENTRY_COLUMNS).outerjoin(Player, Player.id == Game.player_id)
             .where(*terms).order_by(*ORDER).limit(limit + 1))
    if after is not None:
        counted = select(func.count()).select_from(Game)
        query = query.add_columns(
            counted.where(*terms, _at_or_before(after)).scalar_subquery().label("ahead"),
            counted.where(*terms, _better(after["score"], after["moves"], after["ms"])).scalar_subquery()
            .label("better"),
        ).where(_after(after))
    return query


def _position(row) -> dict:
    finished = row.finished_at if row.finished_at.tzinfo else row.finished_at.replace(tzinfo=UTC)
    return {"score": row.score, "moves": row.moves, "ms": row.duration_ms, "finished": finished,
            "game": row.id}


def _encode(position: dict) -> str:
    return encode_cursor({**position, "finished": position["finished"].astimezone(UTC).isoformat()})


def _decode(cursor: str | None) -> dict | None:
    position = decode_cursor(cursor, *CURSOR_KEYS)
    if position is None:
        return None
    try:
        if not all(isinstance(position[k], int) and not isinstance(position[k], bool)
                   for k in ("score", "moves", "ms")) or not isinstance(position["game"], str):
            raise ValueError
        position["finished"] = datetime.fromisoformat(position["finished"])
        if position["finished"].tzinfo is None:
            raise ValueError
    except (TypeError, ValueError):
        raise ApiProblem("INVALID_REQUEST", errors={"cursor": ["Not a cursor this API gave out."]}) from None
    return position


def _read():
    """The session's connection for a one-statement read.

    On PostgreSQL in autocommit: no BEGIN and ROLLBACK round trips around the
    one SELECT, which is its own snapshot anyway. SQLite keeps the app's own
    transaction handling (``store.db``).
    """
    session = db.session
    if session.get_bind().dialect.name == "postgresql":
        return session.connection(execution_options={"isolation_level": "AUTOCOMMIT"})
    return session.connection()


def leaderboard_page(terms: list, cursor: str | None, limit: int) -> dict:
    """The answer of a leaderboard endpoint: ``{"items": [...], "next": cursor|null}``."""
    after = _decode(cursor)
    rows = _read().execute(page_statement(terms, after, limit)).all()
    more = len(rows) > limit
    rows = rows[:limit]
    items = []
    ahead = 0  # entries before the page
    previous = None
    if rows and after is not None:
        ahead = rows[0].ahead
        previous = (after["score"], after["moves"], after["ms"])
        rank = rows[0].better + 1  # if the first entry ties with the cursor's
    for index, row in enumerate(rows):
        key = (row.score, row.moves, row.duration_ms)
        if key != previous:
            rank = ahead + index + 1
        previous = key
        items.append({
            "rank": rank, "game": row.id, "code": row.code, "draw": row.draw,
            "player": row.player_id, "player_name": row.name, "score": row.score,
            "moves": row.moves, "seconds": row.duration_ms / 1000, "finished_at": iso(row.finished_at),
        })
    next_cursor = _encode(_position(rows[-1])) if more else None
    return {"items": items, "next": next_cursor}


def _board(query: dict, **fixed):
    """The answer of a leaderboard endpoint for its query string and fixed filters."""
    player = query.get("player")
    terms = board_filters(player=player, since=query.get("since"), until=query.get("until"), **fixed)
    page = leaderboard_page(terms, query.get("cursor"), query["limit"])
    # Entries prove the player exists; only an empty page costs the extra look-up.
    if player is not None and not page["items"] and db.session.get(Player, player) is None:
        raise ApiProblem("PLAYER_NOT_FOUND", player=player)
    return json_response(page)




@blp.route("/leaderboard")
@blp.arguments(BoardQuerySchema, location="query")
@blp.response(200, LeaderboardPageSchema)
@blp.problem(400, "INVALID_REQUEST: a malformed draw, since, until, limit or cursor (see `errors`).")
@blp.problem(404, "PLAYER_NOT_FOUND: the `player` filter names no player.")
def leaderboard(query):
    """List the best won games

    Won games only, best first: score (highest), moves (fewest), time to win
    (shortest), then the earliest win. `rank` is competition ranking ("1224") over
    score, moves and time, correct on every page. `since` (inclusive) and `until`
    (exclusive) filter on the moment of the win. `player` keeps one player's wins;
    an unknown player id is 404 `PLAYER_NOT_FOUND` (a typo should not look like a
    player without wins). Pages are keyset cursors: wins arriving between two pages
    never make an entry repeat or vanish (they appear in their place, and the ranks
    after them move down).
    """
    return _board(query, draw=query.get("draw"))



@blp.route("/deals/<code>/leaderboard")
@blp.arguments(DealBoardQuerySchema, location="query")
@blp.response(200, LeaderboardPageSchema)
@blp.problem(400, "INVALID_REQUEST: a malformed since, until, limit or cursor (see `errors`).")
@blp.problem(404, "PLAYER_NOT_FOUND: the `player` filter names no player.")
@blp.problem(422, "INVALID_GAME_CODE: the path holds no game code.")
def deal_leaderboard(query, code):
    """List the best wins of one deal

    The code may be written in any letter case. Everyone who played this code
    (e.g. the daily deal) is ranked together; the draw mode is part of the code.

    Won games only, best first: score (highest), moves (fewest), time to win
    (shortest), then the earliest win. `rank` is competition ranking ("1224") over
    score, moves and time, correct on every page. `since` (inclusive) and `until`
    (exclusive) filter on the moment of the win. `player` keeps one player's wins;
    an unknown player id is 404 `PLAYER_NOT_FOUND` (a typo should not look like a
    player without wins). Pages are keyset cursors: wins arriving between two pages
    never make an entry repeat or vanish (they appear in their place, and the ranks
    after them move down).
    """
    return _board(query, code=str(GameCode.parse(code)))



# -- the daily deal -------------------------------------------------------------------

#: The solver's budget per candidate, in positions: a node count, not wall time, so
#: every worker on every machine reaches the same verdicts and picks the same deal.
DAILY_MAX_NODES = 2000
DAILY_CANDIDATES = 64


def daily_candidate(day: date, draw: int, counter: int) -> GameCode:
    """The ``counter``-th candidate deal of a day: SHA-256 of ``daily:YYYY-MM-DD:dN:counter``."""
    digest = hashlib.sha256(f"daily:{day.isoformat()}:d{draw}:{counter}".encode()).digest()
    return GameCode(draw=draw, deal=int.from_bytes(digest[:8], "big") % DEAL_COUNT)


@lru_cache(maxsize=256)
def daily_deal(day: date, draw: int) -> tuple[GameCode, bool | None]:
    """The day's deal: the first candidate the solver proves winnable within its node budget.

    Computed once per (day, draw) and process. If no candidate is proven (never seen
    in practice), the first candidate, with ``winnable`` unknown (None).
    """
    from ..solver import solve

    for counter in range(DAILY_CANDIDATES):
        code = daily_candidate(day, draw, counter)
        # The wall-clock budget is far beyond what DAILY_MAX_NODES takes: only nodes decide.
        if solve(EngineGame.from_code(code), budget_ms=3_600_000, max_nodes=DAILY_MAX_NODES).verdict == "winnable":
            return code, True
    return daily_candidate(day, draw, 0), None


@blp.route("/daily")
@blp.arguments(DailyQuerySchema, location="query")
@blp.response(200, DailySchema)
@blp.problem(400, "INVALID_REQUEST: a malformed draw or date, or a future date (see `errors`).")
def daily(query):
    """Today's deal, the same for everyone

    A deal proven winnable, chosen from the UTC date alone: every server gives the
    same one all day. Play it with `POST /v1/games {"code": ...}` and compare at
    `leaderboard`. `date` shows an earlier day's deal; a future date is 400.
    """
    today = datetime.now(UTC).date()
    day = query.get("date") or today
    if day > today:
        raise ApiProblem("INVALID_REQUEST", errors={"date": [f"Not a future date: today is {today} (UTC)."]})
    code, winnable = daily_deal(day, query["draw"])
    return json_response({"date": day.isoformat(), "draw": code.draw, "code": str(code), "winnable": winnable,
                          "leaderboard": f"/v1/deals/{code}/leaderboard"})


"""Leaderboards of won games, overall and per deal, and the daily deal.

The ranking and its queries: :mod:`service.store.leaderboards`.
"""

from __future__ import annotations

import inspect
from datetime import UTC, date, datetime, time

from flask import current_app
from marshmallow import ValidationError, fields, validate

from ..engine import GameCode
from ..usecases import boards
from ..usecases.tokens import ID_PATTERN
from .present import board_json, cache_headers, json_response, known_tags, not_modified
from .problems import Blueprint
from .schemas import DRAW_CHOICES, TIMING_CHOICES, PageQuerySchema, StrictSchema

blp = Blueprint("leaderboards", __name__, url_prefix="/v1",
                description="Leaderboards of won games, overall and per deal, and the daily deal.")


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
        try:
            return moment.astimezone(UTC)
        except OverflowError:  # 0001-01-01T00:00:00+14:00 is before year 1 in UTC
            raise ValidationError("Out of range: between years 1 and 9999 in UTC.") from None


MOMENT_DOC = "ISO 8601 date-time with a time zone (e.g. `2026-11-29T18:00:00Z`) or a date (midnight UTC)."


def timing_field() -> fields.String:
    """The ``timing`` filter of a board or of the feed: absent, every game."""
    return fields.String(validate=validate.OneOf(TIMING_CHOICES), metadata={"description": (
        "Only games timed this way: `server` (the server timed the game from its deal) or `client` (a game "
        "born offline, timed by its client's report); every game when absent. Send it again with each "
        "`cursor`: a cursor is a position, valid under any filter.")})


class DealBoardQuerySchema(PageQuerySchema):
    since = MomentField(metadata={"description": f"Wins at or after this moment. {MOMENT_DOC}",
                                  "example": "2026-11-29T00:00:00Z"})
    until = MomentField(metadata={"description": f"Wins before this moment. {MOMENT_DOC}",
                                  "example": "2026-11-30"})
    player = fields.String(validate=validate.Regexp(ID_PATTERN, error="Not a player id."),
                           metadata={"description": "Only this player's wins (an unknown player is 404)."})
    timing = timing_field()


class BoardQuerySchema(DealBoardQuerySchema):
    draw = fields.Integer(strict=False, validate=validate.OneOf(DRAW_CHOICES),
                          metadata={"description": "Only this draw mode; both when absent."})


class DailyQuerySchema(StrictSchema):
    draw = fields.Integer(strict=False, load_default=1, validate=validate.OneOf(DRAW_CHOICES))
    date = fields.Date(metadata={"description": "A past day's deal (UTC date); today by default. "
                                                "Not a future date."})


# -- answers (documentation) ------------------------------------------------------


class LeaderboardEntrySchema(StrictSchema):
    rank = fields.Integer(required=True, metadata={"description": "Competition rank (1224): equal score, moves and "
                                                   "time share a rank."})
    game = fields.String(required=True, metadata={"description": "The game id."})
    code = fields.String(required=True, metadata={"example": "TF1-D1N-AAAAAAB"})
    draw = fields.Integer(required=True, metadata={"enum": DRAW_CHOICES})
    player = fields.String(required=True, allow_none=True,
                           metadata={"description": "The player id; null when anonymous."})
    player_name = fields.String(required=True, allow_none=True)
    score = fields.Integer(required=True)
    moves = fields.Integer(required=True)
    seconds = fields.Float(required=True, metadata={"description": "Time from the deal to the win."})
    finished_at = fields.DateTime(required=True)
    timing = fields.String(required=True, metadata={"enum": TIMING_CHOICES, "description": (
        "`server`: the server timed the game from its deal. `client`: a game born offline, whose time "
        "includes the seconds its client reported (docs/API.md, \"Games born offline\").")})


class LeaderboardPageSchema(StrictSchema):
    items = fields.List(fields.Nested(LeaderboardEntrySchema), required=True)
    next = fields.String(required=True, allow_none=True,
                         metadata={"description": "Send as `cursor` for the next page."})


class DailySchema(StrictSchema):
    date = fields.Date(required=True)
    draw = fields.Integer(required=True, metadata={"enum": DRAW_CHOICES})
    code = fields.String(required=True, metadata={"description": "Play it with `POST /v1/games {\"code\": ...}`."})
    winnable = fields.Boolean(required=True, allow_none=True, metadata={"description": "true: the solver proved it "
                                                                        "winnable; null: not proven."})
    leaderboard = fields.String(required=True, metadata={"description": "The deal's leaderboard."})


def _board(query: dict, **fixed):
    filters = {**fixed, "player": query.get("player"), "since": query.get("since"), "until": query.get("until"),
               "timing": query.get("timing")}
    config = current_app.config
    page = boards.board(filters, query.get("cursor"), query["limit"], known_tags=known_tags(),
                        settle_ms=config["FEED_SETTLE_MS"], remember_tags=config["BOARD_TAG_CACHE"])
    if isinstance(page, boards.Unchanged):
        return not_modified(cache_headers(page.tag))
    return json_response(board_json(page.ranked, page.next), headers=cache_headers(page.tag))


_RANKING_DOC = """Won games only, best first: score (highest), moves (fewest), time to win
(shortest), then the earliest win. `rank` is competition ranking ("1224") over
score, moves and time, correct on every page. `since` (inclusive) and `until`
(exclusive) filter on the moment of the win. `timing=server` keeps the games the
server timed (leaving out games born offline, whose time their client reported),
`timing=client` only those; ranks are then counted within the filtered board.
`player` keeps one player's wins;
an unknown player id is 404 `PLAYER_NOT_FOUND` (a typo should not look like a
player without wins). Pages are keyset cursors: wins arriving between two pages
never make an entry repeat or vanish (they appear in their place, and the ranks
after them move down).

Poll it cheaply: the `ETag` changes exactly when a new win enters the board
(whatever the page), and `If-None-Match` with the current tag answers 304
without building the page. `Cache-Control: public, max-age=N` lets shared caches
keep a page for N seconds (`PUBLIC_CACHE_SECONDS`)."""

NOT_MODIFIED_DOC = "If-None-Match named the current ETag: nothing new since (no body)."


def _ranked(view):
    """Append the ranking rules both leaderboards share to the view's docstring (and so to the docs)."""
    view.__doc__ = f"{inspect.cleandoc(view.__doc__)}\n\n{_RANKING_DOC}"
    return view


# Schema instances, not classes: webargs would build a schema (deep-copying its fields) per request.
@blp.route("/leaderboard")
@blp.arguments(BoardQuerySchema(), location="query")
@blp.response(200, LeaderboardPageSchema, headers={"ETag": "BoardETag"})
@blp.alt_response(304, description=NOT_MODIFIED_DOC, headers={"ETag": "BoardETag"})
@blp.request_headers("IfNoneMatch")
@blp.problem(400, "INVALID_REQUEST: a malformed draw, since, until, timing, limit or cursor (see `errors`).")
@blp.problem(404, "PLAYER_NOT_FOUND: the `player` filter names no player.")
@blp.doc(operationId="getLeaderboard")
@_ranked
def leaderboard(query):
    """List the best won games"""
    return _board(query, draw=query.get("draw"))


@blp.route("/deals/<code>/leaderboard")
@blp.arguments(DealBoardQuerySchema(), location="query")
@blp.response(200, LeaderboardPageSchema, headers={"ETag": "BoardETag"})
@blp.alt_response(304, description=NOT_MODIFIED_DOC, headers={"ETag": "BoardETag"})
@blp.request_headers("IfNoneMatch")
@blp.problem(400, "INVALID_REQUEST: a malformed since, until, timing, limit or cursor (see `errors`).")
@blp.problem(404, "PLAYER_NOT_FOUND: the `player` filter names no player.")
@blp.problem(422, "INVALID_GAME_CODE: the path holds no game code.")
@blp.doc(operationId="getDealLeaderboard")
@_ranked
def deal_leaderboard(query, code):
    """List the best wins of one deal

    The game code may be written in any letter case. Everyone who played this game
    code (e.g. the daily deal) is ranked together; the draw mode is part of the code.
    """
    return _board(query, code=str(GameCode.parse(code)))


# -- the daily deal -------------------------------------------------------------------

@blp.route("/daily")
@blp.arguments(DailyQuerySchema(), location="query")
@blp.response(200, DailySchema)
@blp.problem(400, "INVALID_REQUEST: a malformed draw or date, or a future date (see `errors`).")
@blp.doc(operationId="getDailyDeal")
def daily(query):
    """Today's deal, the same for everyone

    A deal proven winnable, chosen from the UTC date alone: every server gives the
    same one all day. Play it with `POST /v1/games {"code": ...}` and compare at
    `leaderboard`. `date` shows an earlier day's deal; a future date is 400.
    """
    deal = boards.daily(query.get("date"), query["draw"])
    return json_response({"date": deal.day.isoformat(), "draw": deal.code.draw, "code": str(deal.code),
                          "winnable": deal.winnable, "leaderboard": f"/v1/deals/{deal.code}/leaderboard"})


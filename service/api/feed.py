"""For leaderboard tools: the feed of finished games and per-game verification.

A tool mirrors the results into its own database by reading the feed once from
the start, then polling it with the cursor it was last given (``resume``); it can
check any game offline by dealing its ``code`` and replaying its ``line``, or ask
the server with ``/verification``.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Iterator

from flask import Response, current_app, request
from marshmallow import fields, missing, validate

from ..telemetry import metrics
from ..usecases import boards
from ..usecases.errors import invalid
from .leaderboards import MOMENT_DOC, NOT_MODIFIED_DOC, MomentField, timing_field
from .paging import cursor_field, limit_field
from .present import cache_headers, feed_entry, json_response, known_tags, not_modified
from .problems import Blueprint
from .schemas import DRAW_CHOICES, TIMING_CHOICES, PageQuerySchema, StrictSchema

blp = Blueprint("feed", __name__, url_prefix="/v1/games",
                description="For leaderboard tools: every finished game in order, and per-game verification.")

NDJSON = "application/x-ndjson"
PAGE_LIMIT = 200  # a JSON page, as every list of the API
# An NDJSON stream: lines by default and at most. A tool continues from the last line's `resume`.
STREAM_DEFAULT = 10_000
STREAM_LIMIT = 100_000


class FeedQuerySchema(PageQuerySchema):
    draw = fields.Integer(strict=False, validate=validate.OneOf(DRAW_CHOICES),
                          metadata={"description": "Only this draw mode; both when absent."})
    since = MomentField(metadata={"description": f"Wins at or after this moment. {MOMENT_DOC}",
                                  "example": "2026-11-29T00:00:00Z"})
    timing = timing_field()
    limit = limit_field(load_default=missing, validate=validate.Range(min=1, max=STREAM_LIMIT),
                        metadata={"description": f"A JSON page: 1 to {PAGE_LIMIT}, default 50. An NDJSON "
                                                 f"stream: 1 to {STREAM_LIMIT:,} entries, default "
                                                 f"{STREAM_DEFAULT:,}."})
    cursor = cursor_field(metadata={"description": "`next` or `resume` of an earlier answer: continue after it."})


class FeedPlayerSchema(StrictSchema):
    id = fields.String()
    name = fields.String()


class FeedEntrySchema(StrictSchema):
    id = fields.String(metadata={"description": "The game id."})
    code = fields.String(metadata={"example": "TF1-D1N-AAAAAAB", "description": "Deal it with the published "
                                                                               "deal function (FAQ)."})
    draw = fields.Integer(metadata={"enum": DRAW_CHOICES})
    player = fields.Nested(FeedPlayerSchema, allow_none=True, metadata={"description": "null: anonymous."})
    score = fields.Integer()
    moves = fields.Integer()
    undos = fields.Integer()
    hints = fields.Integer()
    duration_ms = fields.Integer(metadata={"description": "From the deal to the win."})
    finished_at = fields.DateTime()
    line = fields.String(metadata={
        "description": "Every accepted action in the engine's notation, undos included, separated by single "
                       "spaces: replayed from the code it reaches this score and move count.",
        "example": "draw t7>t2 waste>foundation undo tap:t3"})
    timing = fields.String(required=True, metadata={"enum": TIMING_CHOICES, "description": (
        "`server`: the server timed the game from its deal. `client`: a game born offline, whose time "
        "includes the seconds its client reported (docs/API.md, \"Games born offline\").")})


class FeedPageSchema(StrictSchema):
    items = fields.List(fields.Nested(FeedEntrySchema))
    next = fields.String(allow_none=True, metadata={"description": "Send as `cursor` for the next page; null "
                                                                   "on the last page."})
    resume = fields.String(allow_none=True, metadata={
        "description": "Where this answer ends: send it as `cursor` later to get only what finished since "
                       "(also on the last page). Null only when nothing has been listed yet."})


class FeedEndSchema(StrictSchema):
    """The last line of an NDJSON stream (every line before it is a feed entry)."""

    resume = fields.String(allow_none=True, metadata={"description": "Send as `cursor` to continue."})
    count = fields.Integer(metadata={"description": "Entries in this stream."})
    more = fields.Boolean(metadata={"description": "true: the stream stopped at its bound (`limit`, or "
                                                   "`FEED_STREAM_SECONDS`) before the end of the data: continue "
                                                   "from `resume`."})


class DifferenceSchema(StrictSchema):
    field = fields.String(metadata={"description": "`history`, `state`, `score`, `moves`, `undos`, `version`, "
                                                   "`status`, `actions` or `line`."})
    stored = fields.Raw(metadata={"description": "The stored value."})
    replayed = fields.Raw(metadata={"description": "What the replay gives."})
    parts = fields.List(fields.String(), metadata={"description": "`state`: the parts that differ (never cards)."})
    seq = fields.Integer(metadata={"description": "`history`: the first action that does not replay."})
    action = fields.String(metadata={"description": "`history`: that action's notation."})
    code = fields.String(metadata={"description": "`history`: the engine's rejection code."})


class ReplayedSchema(StrictSchema):
    score = fields.Integer()
    moves = fields.Integer()
    undos = fields.Integer()
    version = fields.Integer()
    status = fields.String(metadata={"enum": ["playing", "won"]})


class VerificationSchema(StrictSchema):
    game = fields.String()
    code = fields.String()
    consistent = fields.Boolean(metadata={"description": "true: the replay reaches the stored state, score and "
                                                         "moves exactly."})
    actions = fields.Integer(metadata={"description": "Stored actions replayed."})
    replayed = fields.Nested(ReplayedSchema)
    differences = fields.List(fields.Nested(DifferenceSchema))


@blp.route("/finished")
@blp.arguments(FeedQuerySchema(), location="query")
@blp.response(200, FeedPageSchema, headers={"ETag": "BoardETag"})
@blp.alt_response(304, description=NOT_MODIFIED_DOC, headers={"ETag": "BoardETag"})
@blp.doc(operationId="listFinishedGames")
@blp.request_headers("IfNoneMatch")
@blp.alt_response(200, schema={"oneOf": [FeedEntrySchema, FeedEndSchema]}, content_type=NDJSON,
                  description="A page (JSON), or a stream of entries then the resume line (NDJSON).")
@blp.problem(400, "INVALID_REQUEST: a malformed draw, since, timing, limit or cursor (see `errors`).")
def finished_games(query):
    """List finished games in the order they finished

    Won games in the order they finished (then by id), oldest first: everything a
    tool needs to mirror the results, including the players' names and each game's
    `line`. Deal the `code` with the published deal function and replay the `line`
    to check a result offline (or ask `/verification`).

    Sync: read the feed from the start (`next` page by page), keep the last
    `resume`, and later send it as `cursor` to get only what finished since. Wins
    arriving between two pages never make an entry repeat or vanish. The feed ends
    `FEED_SETTLE_MS` (2 s by default) before now: a win shows a moment after it
    happened, but a cursor never skips one.

    `Accept: application/x-ndjson` streams the same entries, one JSON object a line,
    in constant memory, then ends with a line `{"resume", "count", "more"}`. A
    stream is bounded: `limit` entries (10,000 by default, at most 100,000), and
    `FEED_STREAM_SECONDS` (30 s by default) after which it ends early; `more: true`
    says a bound cut it, so send `resume` as `cursor` for the rest. A reader too
    slow to take what was sent by then is cut off (the server holds no thread or
    snapshot for it longer). A stream without that last line was cut short: resume
    from your previous cursor (entries are keyed by `id`).

    `timing=server` lists only the games the server timed, `timing=client` only
    games born offline (send the same filters with each `cursor`).

    JSON pages carry an `ETag` that changes exactly when a new win enters the feed
    (under its `draw`, `since` and `timing`), and `Cache-Control: public, max-age=N`;
    `If-None-Match` with the current tag answers 304.
    """
    filters = {"draw": query.get("draw"), "since": query.get("since"), "timing": query.get("timing")}
    cursor = query.get("cursor")
    config = current_app.config
    if request.accept_mimetypes.best_match(["application/json", NDJSON]) == NDJSON:
        stream = boards.stream_finished_games(filters, cursor, query.get("limit", STREAM_DEFAULT),
                                              settle_ms=config["FEED_SETTLE_MS"], seconds=config["FEED_STREAM_SECONDS"])
        sending = _SendBound(request.environ.get("gunicorn.socket"), stream.deadline)
        return _vary(Response(_ndjson(stream, sending), mimetype=NDJSON, headers={"Cache-Control": "no-store"}))
    limit = query.get("limit", 50)
    if limit > PAGE_LIMIT:
        raise invalid("limit", f"At most {PAGE_LIMIT} a JSON page; an NDJSON stream (Accept: {NDJSON}) takes more.")
    page = boards.finished_games(filters, cursor, limit, known_tags=known_tags(), settle_ms=config["FEED_SETTLE_MS"],
                                 remember_tags=config["BOARD_TAG_CACHE"])
    if isinstance(page, boards.Unchanged):
        return _vary(not_modified(cache_headers(page.tag)))
    body = {"items": [feed_entry(row) for row in page.rows], "next": page.next, "resume": page.resume}
    return _vary(json_response(body, headers=cache_headers(page.tag)))


#: The least time the end line (or a chunk after the deadline) may take to be sent, in seconds.
SEND_GRACE_SECONDS = 1.0


class _SendBound:
    """Bounds the time gunicorn may spend writing a stream to a slow reader.

    FeedStream checks its deadline between batches, but a reader that takes a byte a second
    blocks the worker's write of a batch: the thread and the stream's database snapshot
    would wait with it. Before each chunk is handed to gunicorn, its socket's timeout is set
    to the time left until the stream's deadline (at least :data:`SEND_GRACE_SECONDS`): a
    write still blocked then fails, gunicorn closes the connection and the stream (its
    server-side cursor and connection) is closed. The reader gets a stream without its end
    line, which says "resume from your previous cursor". gunicorn sets the socket back to
    blocking for the connection's next request. Without gunicorn's socket (tests), nothing.
    """

    def __init__(self, sock, deadline: float) -> None:
        self.sock, self.deadline = sock, deadline

    def __call__(self) -> None:
        if self.sock is not None:
            with contextlib.suppress(OSError):
                self.sock.settimeout(max(SEND_GRACE_SECONDS, self.deadline - time.monotonic()))


def _ndjson(stream: boards.FeedStream, bound=lambda: None) -> Iterator[bytes]:
    """The stream's entries, one JSON line each, a batch a chunk; then its end line ``{"resume", "count", "more"}``."""
    dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
    metrics.STREAMS_OPEN.inc()
    try:
        for rows in stream:
            bound()
            yield ("\n".join(dumps(feed_entry(row)) for row in rows) + "\n").encode()
        bound()
        yield (dumps(stream.end) + "\n").encode()
    finally:  # also when the reader goes away (the server closes the generator)
        metrics.STREAMS_OPEN.dec()


def _vary(response: Response) -> Response:
    response.headers["Vary"] = "Accept"
    return response


@blp.route("/<game_id>/verification")
@blp.response(200, VerificationSchema)
@blp.doc(operationId="verifyGame")
@blp.problem(404, "GAME_NOT_FOUND")
def verification(game_id):
    """Check a game against the replay of its history

    Public, for any game, played or won: the stored actions are replayed by the
    engine from the game's code, and the result compared with the stored state,
    score, moves, undos, version and status (and, once won, the feed's `line`).
    `consistent` is true when nothing differs; `differences` says what does.
    """
    return json_response(boards.verification(game_id))

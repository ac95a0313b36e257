"""Players: an identity whose token owns games and whose wins go on the leaderboards; their statistics.

Each view turns its request into a call of ``service.usecases.players`` and the result into an answer.
"""

from __future__ import annotations

from flask import Response
from flask.views import MethodView
from marshmallow import Schema, fields, validate

from ..usecases import players as usecases
from ..usecases.idempotency import StoredAnswer
from ..usecases.players import Registered
from .answer_schemas import PlayerAnswerSchema
from .contract import headers
from .idempotency import replay, request_idempotency
from .present import game_summary_json, iso, json_response, player_stats_json
from .problems import Blueprint
from .schemas import DRAW_CHOICES, NewPlayerSchema, PageQuerySchema

blp = Blueprint("players", __name__, url_prefix="/v1/players", description="Players and their tokens.")


@blp.route("")
class Players(MethodView):
    @blp.arguments(NewPlayerSchema)
    @blp.response(201, PlayerAnswerSchema, headers=headers("Location"))
    @blp.doc(operationId="createPlayer", parameters=["IdempotencyKey"])
    @blp.problem(400, "INVALID_REQUEST: a malformed name or Idempotency-Key (see `errors`).")
    @blp.problem(422, "IDEMPOTENCY_KEY_REUSED: the key came with another name.")
    def post(self, args):
        """Register a player

        The answer's `token` is shown once and stored only as a hash: send it as
        `Authorization: Bearer <token>` to create games the player owns. With an
        `Idempotency-Key`, a retry returns the first answer instead of a second player.
        """
        registered = usecases.register(args["name"], idempotency=request_idempotency(_registered_answer))
        return replay(registered) if isinstance(registered, StoredAnswer) else _registered_answer(registered)


def _registered_answer(registered: Registered) -> Response:
    player = registered.player
    body = {"id": player.id, "name": player.name, "token": registered.token, "created_at": iso(player.created_at)}
    return json_response(body, 201, headers={"Location": f"/v1/players/{body['id']}"})


# -- statistics and the list of a player's games -------------------------------------


class StatsSchema(Schema):
    started = fields.Integer(required=True, metadata={"description": "Games dealt to the player."})
    won = fields.Integer(required=True)
    win_rate = fields.Float(required=True, metadata={"description": "won / started, 0 when none started."})
    best_score = fields.Integer(required=True, allow_none=True,
                                metadata={"description": "Highest score of a won game."})
    fewest_moves = fields.Integer(required=True, allow_none=True,
                                  metadata={"description": "Fewest moves of a won game."})
    fastest_win = fields.Float(required=True, allow_none=True, metadata={"description": "Seconds of the quickest win."})
    current_streak = fields.Integer(required=True, metadata={"description": "Wins in a row up to the latest game."})
    best_streak = fields.Integer(required=True, metadata={"description": "Longest run of wins in a row."})


class PlayerStatsSchema(Schema):
    all = fields.Nested(StatsSchema, required=True)
    draw1 = fields.Nested(StatsSchema, required=True)
    draw3 = fields.Nested(StatsSchema, required=True)


class PlayerSchema(Schema):
    id = fields.String(required=True)
    name = fields.String(required=True)
    created_at = fields.DateTime(required=True)
    stats = fields.Nested(PlayerStatsSchema, required=True)


class PlayerGamesQuerySchema(PageQuerySchema):
    status = fields.String(validate=validate.OneOf(["playing", "won"]))


class GameSummarySchema(Schema):
    id = fields.String(required=True)
    code = fields.String(required=True)
    draw = fields.Integer(required=True, metadata={"enum": DRAW_CHOICES})
    status = fields.String(required=True, metadata={"enum": ["playing", "won"]})
    score = fields.Integer(required=True)
    moves = fields.Integer(required=True)
    created_at = fields.DateTime(required=True)
    finished_at = fields.DateTime(required=True, allow_none=True)
    seconds = fields.Float(required=True, allow_none=True)


class PlayerGamesPageSchema(Schema):
    items = fields.List(fields.Nested(GameSummarySchema), required=True)
    next = fields.String(required=True, allow_none=True)


@blp.route("/<player_id>")
@blp.response(200, PlayerSchema)
@blp.problem(404, "PLAYER_NOT_FOUND")
@blp.doc(operationId="getPlayer")
def player(player_id):
    """Read a player and their statistics

    Public. `stats` has the same figures over all games (`all`) and per draw mode
    (`draw1`, `draw3`): games started and won, win rate, best score, fewest moves
    and fastest win (of won games), and winning streaks. Streaks run over the
    player's games in the order they were dealt: a win extends the streak, any
    other game breaks it — except the most recent games that are still being
    played, which are not decided yet and count neither way. `current_streak` is
    the run of wins ending at the latest decided game; `best_streak` the longest.
    """
    found = usecases.read(player_id)
    player = found.player
    return json_response({"id": player.id, "name": player.name, "created_at": iso(player.created_at),
                          "stats": player_stats_json(found.stats)})


@blp.route("/<player_id>/games")
@blp.arguments(PlayerGamesQuerySchema, location="query")
@blp.response(200, PlayerGamesPageSchema)
@blp.problem(400, "INVALID_REQUEST: a malformed status, limit or cursor (see `errors`).")
@blp.problem(404, "PLAYER_NOT_FOUND")
@blp.doc(operationId="listPlayerGames")
def player_games(query, player_id):
    """List a player's games, newest first

    Public; `status` keeps only games being played or only won games. Paginated by
    cursor: games dealt between two pages never make an entry repeat or vanish.
    """
    page = usecases.list_games(player_id, query.get("status"), query.get("cursor"), query["limit"])
    return json_response({"items": [game_summary_json(row) for row in page.games], "next": page.next})

"""Players: an identity whose token owns games and whose wins go on the leaderboards; their statistics."""

from __future__ import annotations

from flask.views import MethodView
from marshmallow import Schema, fields, validate

from ..store import PlayerRow, games, players, stats, write_transaction
from . import idempotency
from .answers import PlayerAnswerSchema
from .auth import hash_token, is_id, new_id, new_token
from .contract import headers
from .paging import PLAYER_GAMES_CURSOR, cursor_field, limit_field
from .present import iso, json_response, seconds
from .problems import ApiProblem, Blueprint
from .schemas import DRAW_CHOICES, NewPlayerSchema, StrictSchema

blp = Blueprint("players", __name__, url_prefix="/v1/players", description="Players and their tokens.")


def get_player(player_id: str) -> PlayerRow:
    player = players.read_player(player_id) if is_id(player_id) else None
    if player is None:
        raise ApiProblem("PLAYER_NOT_FOUND", player=player_id)
    return player


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
        return idempotency.idempotent_create(None, lambda stage: _create_player(args["name"].strip(), stage))


def _create_player(name: str, stage):
    token = new_token()
    with write_transaction():
        player = players.insert_player(new_id(), name, hash_token(token))
        body = {"id": player.id, "name": player.name, "token": token, "created_at": iso(player.created_at)}
        response = json_response(body, 201, headers={"Location": f"/v1/players/{body['id']}"})
        stage(response)
    return response


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


class PlayerGamesQuerySchema(StrictSchema):
    status = fields.String(validate=validate.OneOf(["playing", "won"]))
    limit = limit_field()
    cursor = cursor_field()


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


def _stats(row) -> dict:
    started = row.started if row else 0
    won = row.won if row else 0
    return {
        "started": started,
        "won": won,
        "win_rate": round(won / started, 4) if started else 0,
        "best_score": row.best_score if row else None,
        "fewest_moves": row.fewest_moves if row else None,
        "fastest_win": seconds(row.fastest_ms) if row else None,
        "current_streak": row.current_streak if row else 0,
        "best_streak": row.best_streak if row else 0,
    }


def player_stats(player_id: str) -> dict:
    """Statistics over all the player's games, and per draw mode: kept as games finish (store/stats.py)."""
    rows = stats.read(player_id)
    return {"all": _stats(rows.get(0)), "draw1": _stats(rows.get(1)), "draw3": _stats(rows.get(3))}


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
    row = get_player(player_id)
    return json_response({"id": row.id, "name": row.name, "created_at": iso(row.created_at),
                          "stats": player_stats(row.id)})


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
    get_player(player_id)
    limit = query["limit"]
    position = PLAYER_GAMES_CURSOR.decode(query.get("cursor"))
    after = None if position is None else (position["created"], position["game"])
    rows = games.player_games_page(player_id, query.get("status"), after, limit)
    items = [{"id": r.id, "code": r.code, "draw": r.draw, "status": r.status, "score": r.score,
              "moves": r.moves, "created_at": iso(r.created_at), "finished_at": iso(r.finished_at),
              "seconds": seconds(r.duration_ms)} for r in rows[:limit]]
    next_cursor = None
    if len(rows) > limit:
        last = rows[limit - 1]
        next_cursor = PLAYER_GAMES_CURSOR.encode({"created": last.created_at, "game": last.id})
    return json_response({"items": items, "next": next_cursor})

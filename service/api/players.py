"""Players: an identity whose token owns games and whose wins go on the leaderboards."""

from __future__ import annotations

from flask.views import MethodView

from ..extensions import db
from ..store import Player
from .auth import hash_token, new_id, new_token
from .present import iso, json_response
from .problems import ApiProblem, Blueprint
from .schemas import NewPlayerSchema, PlayerAnswerSchema

blp = Blueprint("players", __name__, url_prefix="/v1/players", description="Players and their tokens.")


def get_player(player_id: str) -> Player:
    player = db.session.get(Player, player_id)
    if player is None:
        raise ApiProblem("PLAYER_NOT_FOUND", player=player_id)
    return player


@blp.route("")
class Players(MethodView):
    @blp.arguments(NewPlayerSchema)
    @blp.response(201, PlayerAnswerSchema)
    def post(self, args):
        """Register a player

        The answer's `token` is shown once and stored only as a hash: send it as
        `Authorization: Bearer <token>` to create games the player owns.
        """
        token = new_token()
        player = Player(id=new_id(), name=args["name"].strip(), token_hash=hash_token(token))
        db.session.add(player)
        db.session.flush()
        body = {"id": player.id, "name": player.name, "token": token, "created_at": iso(player.created_at)}
        db.session.commit()
        return json_response(body, 201, headers={"Location": f"/v1/players/{body['id']}"})

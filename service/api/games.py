"""Games: create, read, play every action, history, legal moves and hints.

Each view turns its request into a use case's plain arguments (``service.usecases.games``,
``service.usecases.actions``) and the result into an answer.
"""

from __future__ import annotations

from flask import Response, request
from flask.views import MethodView
from werkzeug.exceptions import HTTPException

from ..engine import Action, Game, NotationError, Rejection
from ..store import ActionRow
from ..usecases import actions
from ..usecases import games as usecases
from ..usecases.batch import parse_batch
from ..usecases.errors import ServiceError
from ..usecases.games import Dealt, NewGame
from ..usecases.idempotency import StoredAnswer
from .answer_schemas import GameSchema, HintSchema, HistoryPageSchema, LegalActionsSchema
from .auth import bearer_token, presented_token
from .contract import headers
from .idempotency import replay, request_idempotency
from .present import etag, game_headers, game_json, if_none_match, iso, json_response, not_modified
from .problem_schemas import batch_problem_name, ref
from .problems import Blueprint, malformed_request, problem_response
from .schemas import EmptyBodySchema, MoveSchema, NewGameSchema, PageQuerySchema, TakeBackSchema, TapSchema
from .solving import solving

blp = Blueprint("games", __name__, url_prefix="/v1/games",
                description="Deal games and play them: every action needs the owner's token.")

ACTION_ERRORS = [400, 401, 403, 404, 409, 412, 422]
OWNER_ONLY = [{"bearer": []}]
ACTION_HEADERS = ["IfMatch", "IdempotencyKey"]  # components of contract.PARAMETERS


@blp.route("")
class Games(MethodView):
    @blp.arguments(NewGameSchema, required=False)
    @blp.response(201, "NewGameAnswer", headers=headers("Location", "ETag", "Rules-Version"))
    @blp.doc(operationId="createGame", security=[{}, {"bearer": []}], parameters=["IdempotencyKey"])
    @blp.problem(400, "INVALID_REQUEST: a malformed body or Idempotency-Key (see `errors`).")
    @blp.problem(401, "The Authorization header holds no valid player token.")
    @blp.problem(409, "GAME_FINISHED: a game born offline whose `actions` go on after the win "
                      "(`params.index`).", schema=ref(batch_problem_name("GAME_FINISHED")))
    @blp.problem(422, "INVALID_GAME_CODE (the code is not a game code), IDEMPOTENCY_KEY_REUSED "
                      "(the key came with another body), or the first of `actions` a rule refuses "
                      "(its code and params plus `params.index`).", schema=ref("CreateProblem422"))
    @blp.problem(429, "SOLVER_RATE_LIMITED: too many `winnable` deals asked (with `Retry-After`).")
    @blp.problem(503, "WINNABLE_DEAL_TIMEOUT or SOLVER_BUSY: no proven-winnable deal ready in time.")
    def post(self, args):
        """Deal a new game

        With a player's bearer token the game is that player's; without one it is
        anonymous and the answer carries the game's own `token`, shown once.
        With an `Idempotency-Key`, a retry returns the first answer (the same game,
        byte for byte) instead of dealing another. A game born offline sends its `code`,
        the `actions` its client played and `client` (when it started, how long it took):
        the server replays the actions (score, moves, status are the server's) and keeps
        the client's figures as reported (`timing: "client"`).
        """
        client = args.get("client")
        asked = NewGame(code=args.get("code"), draw=args.get("draw"), winnable=bool(args.get("winnable")),
                        actions=None if args.get("actions") is None else parse_batch(args["actions"]),
                        client=None if client is None else (client["started_at"], client["seconds"]))
        dealt = usecases.deal(asked, player_token=bearer_token(), solving=solving(),
                              idempotency=request_idempotency(_dealt_answer))
        return replay(dealt) if isinstance(dealt, StoredAnswer) else _dealt_answer(dealt)


def _dealt_answer(dealt: Dealt) -> Response:
    body = game_json(dealt.record, dealt.game)
    if dealt.token:
        body["token"] = dealt.token
    return json_response(body, 201, version=0, headers={"Location": f"/v1/games/{body['id']}"})


@blp.route("/<game_id>")
class GameResource(MethodView):
    @blp.response(200, GameSchema, headers=headers("ETag", "Rules-Version"))
    @blp.alt_response(304, description="If-None-Match named the current version.",
                      headers=headers("ETag", "Rules-Version"))
    @blp.problem(404, "GAME_NOT_FOUND")
    @blp.doc(operationId="getGame", parameters=["IfNoneMatch"])
    def get(self, game_id):
        """Read a game

        Public: anyone may watch a game. The stock is a count; its order is never shown.
        The `ETag` is the game's version; send it as `If-None-Match` to poll cheaply.
        """
        row = usecases.watch_game(game_id)
        if if_none_match(etag(row.version)):
            return not_modified(game_headers(row.version))
        return json_response(game_json(row, Game.from_state(row.state)), version=row.version)


def _action_route(path: str, operation_id: str, schema, summary: str, description: str):
    """Register one action endpoint: documented, its body parsed, then played under the game's lock."""
    required = schema is not EmptyBodySchema
    parser = schema()  # one schema instance for every request: webargs builds a new one per request from a class

    def register(build_action):
        def read_action() -> actions.Requested:
            # The body is parsed before the game is locked, so that the lock is held for the
            # database work only; a malformed body is refused after the checks that come first.
            try:
                if not required and request.get_data(cache=True) in _NO_FIELDS:
                    return build_action({})  # the parser's answer to these bodies, without its work
                return build_action(blp.parse_body(parser))
            except (HTTPException, ServiceError, NotationError) as malformed:
                return malformed_request(malformed)

        def action_view(game_id):
            write = actions.GameWrite(game_id, presented_token(), request.headers.get("If-Match"),
                                      request_idempotency(_action_answer))
            played = actions.play(write, read_action())
            return replay(played.answer) if isinstance(played, actions.Replayed) else _action_answer(played)

        action_view.__name__ = build_action.__name__
        action_view.__doc__ = f"{summary}\n\n{description}"
        documented = blp.response(200, "ActionAnswer", headers=headers("ETag", "Rules-Version",
                                                                           "Idempotent-Replayed"))(action_view)
        for status in ACTION_ERRORS:
            documented = blp.problem(status, _ERROR_TEXT[status])(documented)
        documented = blp.doc(operationId=operation_id, security=OWNER_ONLY, parameters=ACTION_HEADERS)(documented)
        documented = blp.body(schema, required=required)(documented)
        documented.game_action = True  # rate limited per token (see rate_limits.py)
        blp.route(path, methods=["POST"])(documented)
        return build_action

    return register


def _action_answer(outcome: actions.Played | Rejection) -> Response:
    """The answer to a played action (or to a rule's rejection, kept for an Idempotency-Key's retry)."""
    if isinstance(outcome, Rejection):
        return problem_response(outcome.code, outcome.params)
    return json_response({**game_json(outcome.record, outcome.game), "last": outcome.last},
                         version=outcome.game.version)


#: The bodies of an action without fields (draw, recycle, undo) that every client sends.
_NO_FIELDS = (b"", b"{}")

_ERROR_TEXT = {
    400: "INVALID_REQUEST: a malformed body, pile or card name (see `errors`).",
    401: "AUTH_REQUIRED: no bearer token.",
    403: "FORBIDDEN: the token is not the owner's.",
    404: "GAME_NOT_FOUND",
    409: "GAME_FINISHED: the game is won and accepts nothing.",
    412: "VERSION_MISMATCH: If-Match names an older version.",
    422: "A rule rejection (see `code` and `params`) or IDEMPOTENCY_KEY_REUSED.",
}


@_action_route("/<game_id>/moves", "moveCards", MoveSchema, "Move a card or an ordered group",
               "From a column or the waste to a column or a foundation (`foundation`: the card's own). "
               "`card` names the bottom card of the group; by default the pile's top card.")
def move(args):
    return Action.move(args["source"], args["target"], args.get("card"))


@_action_route("/<game_id>/draw", "drawCards", EmptyBodySchema, "Draw from the stock",
               "Moves one card (draw 1) or up to three (draw 3) from the stock to the waste.")
def draw(args):
    return Action.draw()


@_action_route("/<game_id>/recycle", "recycleWaste", EmptyBodySchema, "Turn the waste back into the stock",
               "Only with an empty stock; costs up to 100 points (the score never goes below 0).")
def recycle(args):
    return Action.recycle()


@_action_route("/<game_id>/undo", "undoAction", EmptyBodySchema, "Undo the most recent action",
               "Restores everything as it was, score included; `moves` never goes down. "
               "Up to the 100 most recent actions.")
def undo(args):
    return Action.undo()


@_action_route("/<game_id>/take-back", "takeBackCard", TakeBackSchema,
               "Take a foundation's top card back onto a column",
               "Follows the column rules; scores nothing.")
def take_back(args):
    return Action.take_back(args["source"], args["target"])


@_action_route("/<game_id>/tap", "tapCard", TapSchema, "Tap a card: the app's one-tap play",
               "A tap sends the card to its foundation; a double tap (`double: true`) otherwise looks "
               "for the fullest column that accepts it (ties: leftmost), or the leftmost empty column "
               "for a king.")
def tap(args):
    return Action.tap(args["source"], args.get("card"), args.get("double", False))


@blp.route("/<game_id>/actions")
@blp.arguments(PageQuerySchema, location="query")
@blp.response(200, HistoryPageSchema, headers=headers("ETag", "Rules-Version"))
@blp.problem(404, "GAME_NOT_FOUND")
@blp.doc(operationId="listGameActions")
def history(query, game_id):
    """List a game's accepted actions

    In order, undos included. The game's `code` and these actions alone replay the game
    (`notation` is the engine's one-line form of each action).
    """
    page = usecases.history(game_id, query.get("cursor"), query["limit"])
    row = page.record
    items = [_history_item(action) for action in page.actions]
    return json_response({"game": row.id, "code": row.code, "items": items, "next": page.next}, version=row.version)


def _history_item(action: ActionRow) -> dict:
    return {"seq": action.seq, **action.detail, "notation": action.notation,
            "score_after": action.score_after, "at": iso(action.at)}


@blp.route("/<game_id>/legal-moves")
@blp.response(200, LegalActionsSchema, headers=headers("ETag", "Rules-Version"))
@blp.problem(404, "GAME_NOT_FOUND")
@blp.doc(operationId="listLegalMoves")
def legal_moves(game_id):
    """List every action legal now

    Moves, take-backs, draw or recycle, and undo when there is one to undo. Empty once won.
    """
    legal = usecases.legal_actions(game_id)
    items = [{**action.to_json(), "notation": str(action)} for action in legal.actions]
    return json_response({"version": legal.record.version, "items": items}, version=legal.record.version)


@blp.route("/<game_id>/hint")
@blp.response(200, HintSchema)
@blp.doc(operationId="getHint", security=[{"bearer": []}])
@blp.problem(401, "AUTH_REQUIRED: no bearer token.")
@blp.problem(403, "FORBIDDEN: the token is not the owner's.")
@blp.problem(404, "GAME_NOT_FOUND")
@blp.problem(409, "GAME_FINISHED: a won game needs no hint.")
@blp.problem(429, "SOLVER_RATE_LIMITED: too many hints from this address or token (with `Retry-After`).")
@blp.problem(503, "SOLVER_BUSY: every search slot is taken (with `Retry-After`).")
def game_hint(game_id):
    """Hint the next action of a winning line

    Owner only. `verdict` is `winnable` (with `action`, the first step of a complete
    winning line from the current position), `unwinnable` (the search proved no line
    exists) or `unknown` (the search ran out of budget). With `unknown`, `action` is
    still the best first action the search found, with `proven: false`; `proven` is
    true when the verdict is a proof. Answers are cached by position, so asking again
    (or after an undo, or in another game of the same deal) costs no search: `cached`.
    Each request counts in the game's `hints`.
    """
    hint = usecases.hint(game_id, owner_token=presented_token(), solving=solving())
    return json_response({"game": hint.game_id, "version": hint.version, **hint.answer, "hints": hint.hints})

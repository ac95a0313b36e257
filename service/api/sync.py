"""Batch sync: ``POST /v1/games/{game_id}/actions``, many actions in one request (``service.usecases.batch``).

On the games blueprint, beside the history (``GET`` on the same path): the view parses
the body before the game is locked, the use case decides, and the answer is the game
(the same schema as ``GET /v1/games/{game_id}``) or a problem.
"""

from __future__ import annotations

from flask import Response, request
from werkzeug.exceptions import HTTPException

from .. import jsonin
from ..usecases import actions, batch
from ..usecases.errors import ServiceError
from .answer_schemas import GameSchema
from .auth import presented_token
from .contract import headers
from .games import OWNER_ONLY, blp
from .idempotency import replay, request_idempotency
from .present import game_json, json_response
from .problem_schemas import batch_problem_name, ref
from .problems import malformed_request, problem_response
from .schemas import ActionBatchSchema

_PARSER = ActionBatchSchema()


def read_batch() -> batch.RequestedBatch:
    """The body's actions, parsed; or the refusal the body gets (raised by the use case after its checks)."""
    try:
        return batch.parse_batch(blp.parse_body(_PARSER)["actions"])
    except (HTTPException, ServiceError) as malformed:
        return malformed_request(malformed)


def action_cost() -> int:
    """What the request counts for in the write rate limit: its number of actions (1 for a malformed body)."""
    try:
        body = jsonin.loads(request.get_data(cache=True))
    except ValueError:
        return 1
    sent = body.get("actions") if isinstance(body, dict) else None
    well_formed = isinstance(sent, list) and 0 < len(sent) <= batch.MAX_BATCH and all(isinstance(item, str)
                                                                                     for item in sent)
    return len(sent) if well_formed else 1


def _answer(outcome: actions.Played | batch.Refused) -> Response:
    """The game after the batch (or the refusal, kept for an Idempotency-Key's retry)."""
    if isinstance(outcome, batch.Refused):
        return problem_response(outcome.code, outcome.params)
    return json_response(game_json(outcome.record, outcome.game), version=outcome.game.version)


def _stale(stale: batch.Stale) -> Response:
    history = f"/v1/games/{stale.game_id}/actions" + (f"?cursor={stale.cursor}" if stale.cursor else "")
    return problem_response("VERSION_MISMATCH", stale.params(), headers={"ETag": f'"{stale.current}"'},
                            members={"history": history})


def _plays_actions() -> bool:
    body = request.get_json(silent=True)
    return request.method == "POST" and isinstance(body, dict) and "actions" in body


def mark_born_offline_creates(app) -> None:
    """A create that carries a game born offline pays the write limit for its actions, as a batch does."""
    view = app.view_functions["games.Games"]
    view.write_request = _plays_actions
    view.action_cost = action_cost


def _action_view(view):
    """Rate limited per token like every action view, a batch of n counting n (see rate_limits.py)."""
    view.game_action = True
    view.action_cost = action_cost
    return view


@blp.route("/<game_id>/actions", methods=["POST"])
@_action_view
@blp.response(200, GameSchema, headers=headers("ETag", "Rules-Version", "Idempotent-Replayed"))
@blp.problem(400, "INVALID_REQUEST (a body that is not `{\"actions\": [...]}` with 1 to 500 strings, see "
                  "`errors`; a malformed If-Match or Idempotency-Key) or INVALID_NOTATION (`params.index`: "
                  "the first action that does not parse).")
@blp.problem(401, "AUTH_REQUIRED: no bearer token.")
@blp.problem(403, "FORBIDDEN: the token is not the owner's.")
@blp.problem(404, "GAME_NOT_FOUND")
@blp.problem(409, "GAME_FINISHED: the game is won (`params.index`: the action that met the won game).",
             schema=ref(batch_problem_name("GAME_FINISHED")))
@blp.problem(412, "VERSION_MISMATCH: the game has moved on since If-Match. `params.actions` are the actions "
                  "after the client's base (`params.base`), `params.version` the current version, `history` "
                  "the link to them all.", schema=ref("VersionMismatchRebaseProblem"))
@blp.problem(422, "The first refused action's rule code and params, plus `params.index` (nothing applied); "
                  "or IDEMPOTENCY_KEY_REUSED.", schema=ref("BatchProblem422"))
@blp.problem(428, "IF_MATCH_REQUIRED: a batch must say which version its actions start from.")
@blp.doc(operationId="syncActions", security=OWNER_ONLY,
         parameters=["IfMatchRequired", "IdempotencyKey"])
@blp.body(ActionBatchSchema)
def sync_actions(game_id):
    """Play a batch of actions: all or nothing

    Up to 500 actions in the engine's notation, applied in order in one transaction,
    from the version `If-Match` names (required). Every action applies and the answer
    is the game after them, or nothing is stored: 422 (409 for a won game) with the
    first refused action's code and params plus its 0-based `params.index`. A stale
    `If-Match` is 412 with the actions played since. With an `Idempotency-Key` a
    repeated batch is answered again, never applied twice. Counts as one action per
    action in the write rate limit.
    """
    write = actions.GameWrite(game_id, presented_token(), request.headers.get("If-Match"),
                              request_idempotency(_answer))
    try:
        played = batch.play_batch(write, read_batch())
    except batch.Stale as stale:
        return _stale(stale)
    return replay(played.answer) if isinstance(played, actions.Replayed) else _answer(played)

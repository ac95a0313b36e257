"""The HTTP layer: one flask-smorest blueprint per resource, problem+json errors."""

from __future__ import annotations

from flask import request

from . import games, leaderboards, meta, players, solving  # noqa: F401  (solving adds /hint to games)
from .problems import ApiProblem, ProblemApi, register_error_handlers

API_DESCRIPTION = """\
The reference game service of **Solitaire Réfléchi**, a Klondike in which every
tableau card is dealt face up. Rules: `RULES.md`; examples: [/examples](/examples);
FAQ (game codes, deal algorithm): [/faq](/faq); play page: [/](/).

Errors are RFC 9457 `application/problem+json` with a stable `code`, `params`
naming the cards and piles, and a `detail` in the language of `Accept-Language`
(en, de, da, ro, ja). Every game has a `version`, sent as a strong `ETag`;
actions accept `If-Match` and `Idempotency-Key`.
"""


def require_json_body() -> None:
    """A body that is not JSON is 415, not a confusing "field missing" 400."""
    if request.method != "POST" or not request.path.startswith("/v1/"):
        return
    mimetype = request.mimetype
    if mimetype == "application/json" or mimetype.endswith("+json"):
        return
    if request.get_data(cache=True):  # bounded by MAX_CONTENT_LENGTH (413 beyond)
        raise ApiProblem("UNSUPPORTED_MEDIA_TYPE")


def init_api(app) -> ProblemApi:
    api = ProblemApi(app, spec_kwargs={
        "info": {"description": API_DESCRIPTION},
        "components": {"securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}}},
    })
    app.extensions["problem_api"] = api
    for blueprint in (games.blp, players.blp, leaderboards.blp, meta.blp, meta.probes):
        api.register_blueprint(blueprint)
    solving.mark_solver_requests(app)
    app.before_request(require_json_body)
    register_error_handlers(app)
    return api

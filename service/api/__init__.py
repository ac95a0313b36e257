"""The HTTP layer: one flask-smorest blueprint per resource, problem+json errors."""

from __future__ import annotations

from pathlib import Path

import flask_swagger_ui
from flask import send_from_directory

from . import feed, games, leaderboards, meta, players, solving, sync  # sync: its routes are on games.blp
from .answer_schemas import register_answer_components
from .bodies import require_json_body
from .problems import ProblemApi, register_error_handlers

API_DESCRIPTION = """\
The reference game service of **Solitaire Réfléchi**, a Klondike in which every
tableau card is dealt face up. The rules: [/docs/rules](/docs/rules) (`docs/RULES.md`
in the repository); the HTTP conventions: [/docs/api](/docs/api) (`docs/API.md`);
examples: [/examples](/examples); FAQ (game codes, deal algorithm): [/faq](/faq);
play page: [/](/).

Errors are RFC 9457 `application/problem+json` with a stable `code`, typed `params`
naming the cards and piles, and a `detail` in the language of `Accept-Language`
(en, de, da, ro, ja). Each code has its own schema (`TableauColourProblem` …);
`Problem` is their union, discriminated by `code`. Every game has a `version`,
sent as a strong `ETag`; actions accept `If-Match` and `Idempotency-Key`.

Answers may gain fields in later versions: ignore the ones you do not know. Any
path answers a method it does not have with 405 (`components.responses.MethodNotAllowed`).
"""

#: Where the OpenAPI `servers` point: the server the document came from, then `make serve`'s.
SERVERS = [
    {"url": "/", "description": "The server this document was fetched from."},
    {"url": "http://127.0.0.1:8000", "description": "`make serve` on this machine."},
]

SWAGGER_UI_DIST = Path(flask_swagger_ui.__file__).resolve().parent / "dist"


def docs_assets(filename: str):
    """Swagger UI's own files, from the installed package."""
    return send_from_directory(SWAGGER_UI_DIST, filename, max_age=86400)


def init_api(app) -> ProblemApi:
    api = ProblemApi(app, spec_kwargs={
        "info": {
            "description": API_DESCRIPTION,
            "contact": {"name": "The Solitaire Réfléchi game service"},
        },
        "servers": SERVERS,
        "components": {"securitySchemes": {"bearer": {
            "type": "http", "scheme": "bearer",
            "description": "A player's token (`POST /v1/players`) or an anonymous game's own token.",
        }}},
    })
    # The composed answers (NewGameAnswer, ActionAnswer, Action …) and the schemas they name,
    # registered here, at set-up, before the blueprints that refer to them.
    register_answer_components(api.spec)
    app.add_url_rule("/docs/assets/<path:filename>", "docs_assets", docs_assets)
    app.extensions["problem_api"] = api
    for blueprint in (games.blp, feed.blp, players.blp, leaderboards.blp, meta.blp, meta.probes):
        api.register_blueprint(blueprint)
    solving.mark_solver_requests(app)
    sync.mark_born_offline_creates(app)
    app.before_request(require_json_body)  # after the hooks create_app added: 413 before 415
    register_error_handlers(app)
    return api

"""Every stable error code the service answers with: its HTTP status and its params.

Rule codes come from the engine; request codes belong to the HTTP layer. The
message catalogs (``service/i18n``) and ``GET /v1/rules`` are checked against
this one table, so a code cannot exist without a status and five messages.
"""

from __future__ import annotations

from .engine.rejections import RULE_PARAMS

#: Codes of the HTTP layer, with the params their problem bodies always carry.
REQUEST_PARAMS: dict[str, tuple[str, ...]] = {
    "INVALID_REQUEST": (),
    "AUTH_REQUIRED": (),
    "TOKEN_IN_QUERY": ("param",),
    "FORBIDDEN": (),
    "GAME_NOT_FOUND": ("game",),
    "PLAYER_NOT_FOUND": ("player",),
    "NOT_FOUND": (),
    "METHOD_NOT_ALLOWED": ("method",),
    "VERSION_MISMATCH": ("sent", "current"),
    "IDEMPOTENCY_KEY_REUSED": (),
    "IF_MATCH_REQUIRED": (),
    "INVALID_NOTATION": ("index", "notation"),
    "PAYLOAD_TOO_LARGE": ("limit",),
    "UNSUPPORTED_MEDIA_TYPE": (),
    "REQUEST_TIMEOUT": (),
    "URI_TOO_LONG": ("limit",),
    "HEADERS_TOO_LARGE": ("limit",),
    "RATE_LIMITED": ("retry_after",),
    "SOLVER_RATE_LIMITED": ("retry_after",),
    "SOLVER_BUSY": ("retry_after",),
    "WINNABLE_DEAL_TIMEOUT": ("draw",),
    "SERVICE_UNAVAILABLE": (),
    "BAD_GATEWAY": (),
    "GATEWAY_TIMEOUT": (),
    "INTERNAL_ERROR": (),
}

#: Every code with the names of its params.
PARAMS: dict[str, tuple[str, ...]] = {**RULE_PARAMS, **REQUEST_PARAMS}

#: Every code with its HTTP status.
STATUS: dict[str, int] = {
    **{code: 422 for code in RULE_PARAMS},
    "GAME_FINISHED": 409,
    "INVALID_REQUEST": 400,
    "AUTH_REQUIRED": 401,
    "TOKEN_IN_QUERY": 400,
    "FORBIDDEN": 403,
    "GAME_NOT_FOUND": 404,
    "PLAYER_NOT_FOUND": 404,
    "NOT_FOUND": 404,
    "METHOD_NOT_ALLOWED": 405,
    "VERSION_MISMATCH": 412,
    "IDEMPOTENCY_KEY_REUSED": 422,
    "IF_MATCH_REQUIRED": 428,
    "INVALID_NOTATION": 400,
    "PAYLOAD_TOO_LARGE": 413,
    "UNSUPPORTED_MEDIA_TYPE": 415,
    "REQUEST_TIMEOUT": 408,
    "URI_TOO_LONG": 414,
    "HEADERS_TOO_LARGE": 431,
    "RATE_LIMITED": 429,
    "SOLVER_RATE_LIMITED": 429,
    "SOLVER_BUSY": 503,
    "WINNABLE_DEAL_TIMEOUT": 503,
    "SERVICE_UNAVAILABLE": 503,
    "BAD_GATEWAY": 502,
    "GATEWAY_TIMEOUT": 504,
    "INTERNAL_ERROR": 500,
}

assert STATUS.keys() == PARAMS.keys()

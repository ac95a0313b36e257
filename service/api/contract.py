"""The OpenAPI contract beyond what the schemas say: shared enums, headers, parameters, common answers.

Everything here is derived from the code's own tables, so a new code, param or route is
documented without anyone writing it out again:

- the problem schemas (:mod:`.problem_schemas`), registered with the rest;
- the named enums the request and answer schemas share (piles, cards, action kinds),
  so that an answer's ``from`` can be sent back as a request's ``from`` without a cast;
- :class:`ContractPlugin`, an apispec plugin that gives every operation its
  ``operationId`` fallback, ``security: []`` when public, ``Accept-Language``, the
  problem headers and the answers every route can give (413, 415, 429, 503).
"""

from __future__ import annotations

from apispec import BasePlugin

from .. import i18n
from ..engine import COLUMNS, FOUNDATIONS, Pile
from ..engine.cards import RANKS
from ..engine.notation import KINDS
from ..problem_codes import PARAMS
from ..usecases.actions import IF_MATCH_PATTERN
from .problem_schemas import PROBLEM_MEDIA_TYPE, REQUEST_ID_SCHEMA, problem_components, problem_schema_ref, ref

#: Named enums and patterns shared by requests and answers.
ENUMS: dict[str, dict] = {
    "Pile": {"type": "string", "enum": [pile.value for pile in Pile],
             "description": "A pile: columns `t1`…`t7`, `stock`, `waste`, foundations `fS fH fD fC`, "
                            "and the target `foundation` (the moved card's own)."},
    "PlaySource": {"type": "string", "enum": [pile.value for pile in COLUMNS] + [Pile.WASTE.value],
                   "description": "Where a move or a tap takes its card from."},
    "FoundationPile": {"type": "string", "enum": [pile.value for pile in FOUNDATIONS],
                       "description": "A foundation: a take-back's source."},
    "Card": {"type": "string", "pattern": "^[A2-9TJQK][SHDC]$",
             "description": "A card as the service writes it: rank (`T` for ten) then suit.", "examples": ["TH"]},
    "Rank": {"type": "string", "enum": list(RANKS)},
    "ActionKind": {"type": "string", "enum": list(KINDS)},
    "Language": {"type": "string", "enum": list(i18n.LANGUAGES)},
    "ProblemCode": {"type": "string", "enum": list(PARAMS),
                    "description": "Every stable code; `GET /v1/rules/{code}` describes each."},
}


# -- headers and parameters ---------------------------------------------------------

HEADERS: dict[str, dict] = {
    "ETag": {"description": 'The game\'s version as a strong entity tag, e.g. `"12"`.',
             "schema": {"type": "string", "pattern": '^"[0-9]+"$'}},
    "Rules-Version": {"description": "The version of the rules the server judges by (`rules_version` of "
                                     "`GET /v1/rules`): a client's engine older than this must not judge "
                                     "locally (docs/CLIENTS.md).",
                      "schema": {"type": "string", "pattern": "^[0-9]+$", "examples": ["1"]}},
    "BoardETag": {"description": "An opaque strong entity tag of the board: it changes exactly when a new win "
                               "enters it.", "schema": {"type": "string", "pattern": '^"[0-9a-f]+"$'}},
    "Location": {"description": "The new resource's path.", "schema": {"type": "string"}},
    "Content-Language": {"description": "The language of `detail` (negotiated from `Accept-Language`).",
                         "schema": ref("Language")},
    "Vary": {"description": "`Accept-Language`: the answer depends on it.", "schema": {"type": "string"}},
    "Retry-After": {"description": "Seconds to wait before trying again.",
                    "schema": {"type": "string", "pattern": "^[0-9]+$"}},
    "WWW-Authenticate": {"description": "The bearer challenge.", "schema": {"type": "string"}},
    "Allow": {"description": "The methods the path accepts.", "schema": {"type": "string"}},
    "Idempotent-Replayed": {"description": "`true` when this is the stored answer to an earlier request "
                                           "with the same `Idempotency-Key`.",
                            "schema": {"type": "string", "enum": ["true"]}},
    "X-RateLimit-Limit": {"description": "Requests allowed in the tightest window.",
                          "schema": {"type": "string", "pattern": "^[0-9]+$"}},
    "X-RateLimit-Remaining": {"description": "Requests left in that window.",
                              "schema": {"type": "string", "pattern": "^[0-9]+$"}},
    "X-RateLimit-Reset": {"description": "When that window resets, in seconds since the Unix epoch.",
                          "schema": {"type": "string", "pattern": "^[0-9]+$"}},
}
RATE_LIMIT_HEADERS = ("X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset")
HEADERS["X-Request-ID"] = {
    "description": "The request's id: the client's own `X-Request-ID` when it was valid, else one the service "
                   "(or its proxy) made. Every answer carries it, every problem document as `request_id`, every "
                   "log line of the request too: quote it when reporting a problem.",
    "schema": REQUEST_ID_SCHEMA,
}


PARAMETERS: dict[str, dict] = {
    "AcceptLanguage": {
        "in": "header", "name": "Accept-Language", "required": False,
        "schema": {"type": "string", "maxLength": 4096, "examples": ["de-CH, de;q=0.9, en;q=0.5"]},
        "description": "The language of a problem's `detail`: en, de, da, ro or ja (RFC 9110 "
                       "negotiation, `de-CH` is de); English otherwise. Codes and params never change.",
    },
    "IfMatch": {
        "in": "header", "name": "If-Match", "required": False,
        "schema": {"type": "string", "pattern": IF_MATCH_PATTERN, "maxLength": 1024, "examples": ['"12"']},
        "description": 'The version the action is meant for, as an entity tag (`"12"`) or `*`: 412 '
                       "`VERSION_MISMATCH` if the game has moved on; a value that is not an entity tag is 400.",
    },
    "IfMatchRequired": {
        "in": "header", "name": "If-Match", "required": True,
        "schema": {"type": "string", "pattern": IF_MATCH_PATTERN, "maxLength": 1024, "examples": ['"12"']},
        "description": 'The version the actions start from, as an entity tag (`"12"`): 428 `IF_MATCH_REQUIRED` '
                       "without it, 412 `VERSION_MISMATCH` (with the actions played since) if the game has "
                       "moved on.",
    },
    "IfNoneMatch": {
        "in": "header", "name": "If-None-Match", "required": False,
        "schema": {"type": "string", "maxLength": 1024, "examples": ['"12"']},
        "description": "The `ETag` last seen: 304 without a body while it is still current (the game "
                       "at that version, no new win on the board).",
    },
    "RequestId": {
        "in": "header", "name": "X-Request-ID", "required": False,
        "schema": {"type": "string", "maxLength": 64, "examples": ["7f9c2ba4e88f827d616045507605853e"]},
        "description": "An id of the client's for this request (8 to 64 letters, digits and `._:-`): the answer "
                       "and the service's logs carry it. Any other value is replaced by one of the service's.",
    },
    "IdempotencyKey": {
        "in": "header", "name": "Idempotency-Key", "required": False,
        "schema": {"type": "string", "minLength": 1, "maxLength": 128},
        "description": "A retry with the same key returns the first answer and applies nothing twice; "
                       "the same key with another body is 422 `IDEMPOTENCY_KEY_REUSED`. An action's key is "
                       "scoped to its game; a create's to the bearer token, or without one to the key "
                       "alone, which must then be at least 16 characters (a UUID).",
    },
}


def headers(*names: str) -> dict:
    """Response headers by component name, for ``blp.response(..., headers=...)``."""
    return {name: name for name in names}


def problem_response_doc(status: int, description: str, *extra: str) -> dict:
    """A problem answer of ``status``, with the headers every problem (and rate-limited answer) has."""
    return {
        "description": description,
        "headers": headers("Content-Language", "Vary", *extra, *RATE_LIMIT_HEADERS, "X-Request-ID"),
        "content": {PROBLEM_MEDIA_TYPE: {"schema": problem_schema_ref(status)}},
    }


#: Answers any route may give, declared once and referenced by :class:`ContractPlugin`.
RESPONSES: dict[str, dict] = {
    "PayloadTooLarge": problem_response_doc(413, "`PAYLOAD_TOO_LARGE`: the body is over `params.limit` bytes."),
    "UnsupportedMediaType": problem_response_doc(415, "`UNSUPPORTED_MEDIA_TYPE`: a body that is not JSON."),
    "TooManyRequests": problem_response_doc(429, "`RATE_LIMITED`: wait `Retry-After` seconds.", "Retry-After"),
    "ServiceUnavailable": problem_response_doc(503, "`SERVICE_UNAVAILABLE` (the database does not answer) "
                                                 "or `WINNABLE_DEAL_TIMEOUT`: retry after `Retry-After`.",
                                            "Retry-After"),
    # Any path answers a method it does not have with 405; OpenAPI cannot attach that to
    # an operation that does not exist, so it is declared here, for clients and the checks.
    "MethodNotAllowed": problem_response_doc(405, "`METHOD_NOT_ALLOWED`: `Allow` lists the path's methods.",
                                          "Allow"),
    "DEFAULT_ERROR": {"description": "Any other problem; a 5xx other than 503 is a bug.",
                      "headers": headers("Content-Language", "Vary", *RATE_LIMIT_HEADERS, "X-Request-ID"),
                      "content": {PROBLEM_MEDIA_TYPE: {"schema": ref("Problem")}}},
    # What nginx (deploy/stack.py) or gunicorn (service/serving.py) answer on any path, before
    # or instead of the app: the same problem documents, without `instance`.
    "RequestTimeout": problem_response_doc(408, "`REQUEST_TIMEOUT`: the request's headers or body did not "
                                                "arrive in time (nginx)."),
    "UriTooLong": problem_response_doc(414, "`URI_TOO_LONG`: the request line is over `params.limit` bytes."),
    "HeadersTooLarge": problem_response_doc(431, "`HEADERS_TOO_LARGE`: a header line, or all of them, over "
                                                 "`params.limit` bytes."),
    "BadGateway": problem_response_doc(502, "`BAD_GATEWAY`: no app instance answered (nginx): retry after "
                                            "`Retry-After`.", "Retry-After"),
    "GatewayTimeout": problem_response_doc(504, "`GATEWAY_TIMEOUT`: the app did not answer in time (nginx): "
                                                "retry after `Retry-After`.", "Retry-After"),
    # flask-smorest documents a failed @arguments under the status's name.
    "BAD_REQUEST": problem_response_doc(400, "`INVALID_REQUEST`: a malformed body, query or header "
                                             "(see `errors`)."),
}


def register_components(spec) -> None:
    """Add the shared enums, problem schemas, headers, parameters and answers to ``spec``."""
    for name, schema in {**ENUMS, **problem_components()}.items():
        spec.components.schema(name, component=schema)
    for name, header in HEADERS.items():
        spec.components.header(name, header)
    for name, parameter in PARAMETERS.items():
        spec.components.parameter(name, parameter["in"], component=parameter)
    for name, response in RESPONSES.items():
        spec.components.response(name, response)


# -- marshmallow fields that point at a named enum ------------------------------------


def ref_attribute(self, field, ret: dict, **kwargs) -> dict:
    """apispec attribute function: a field with ``metadata["x-ref"]`` becomes a ``$ref`` (+ description)."""
    name = field.metadata.get("x-ref")
    if not name:
        return {}
    description = ret.get("description")
    nullable = field.allow_none
    ret.clear()
    out: dict = ref(name)
    if nullable:
        out = {"anyOf": [out, {"type": "null"}]}
    if description:
        out["description"] = description
    return out


# -- the plugin -----------------------------------------------------------------------


def _operation_id(endpoint: str, method: str) -> str:
    """A fallback from the Flask endpoint (``games.legal_moves`` → ``legalMoves``; a MethodView: ``getGames``)."""
    name = endpoint.rsplit(".", 1)[-1]
    if name[:1].isupper():
        return method + name
    head, *rest = name.split("_")
    return head + "".join(part.capitalize() for part in rest)


def _add(responses: dict, status: int, response) -> None:
    if status not in responses and str(status) not in responses:
        responses[status] = response


#: The paths nginx proxies without a rate limit of its own: its probes.
PROBES = ("/healthz", "/readyz")


def _add_edge_answers(responses: dict, path: str | None) -> None:
    """The answers nginx or gunicorn may give on any path (deploy/nginx.conf.template)."""
    _add(responses, 400, "BAD_REQUEST")  # a request line or header it cannot parse
    _add(responses, 408, "RequestTimeout")
    _add(responses, 413, "PayloadTooLarge")  # any method: the body limit is nginx's
    _add(responses, 414, "UriTooLong")
    _add(responses, 431, "HeadersTooLarge")
    if path not in PROBES:
        _add(responses, 429, "TooManyRequests")
    _add(responses, 502, "BadGateway")
    _add(responses, 503, "ServiceUnavailable")
    _add(responses, 504, "GatewayTimeout")


#: The operation's key, taken out by :class:`ContractPlugin`, under which ``Blueprint.request_headers`` names
#: request headers (components/parameters) to document.
REQUEST_HEADERS_KEY = "x-request-headers"


class ContractPlugin(BasePlugin):
    """Completes every operation: operationId, security, Accept-Language, common answers and headers."""

    def operation_helper(self, path=None, operations=None, **kwargs) -> None:
        rule = kwargs.get("rule")
        on_v1 = bool(path and path.startswith("/v1/"))
        for method, operation in (operations or {}).items():
            if rule is not None:
                operation.setdefault("operationId", _operation_id(rule.endpoint, method))
            operation.setdefault("security", [])  # public unless the route says otherwise
            parameters = operation.setdefault("parameters", [])
            # Headers named by Blueprint.request_headers, after the query's parameters (which a
            # doc(parameters=...) would have replaced).
            for header in operation.pop(REQUEST_HEADERS_KEY, ()):
                if header not in parameters:
                    parameters.append(header)
            for common in ("AcceptLanguage", "RequestId"):
                if common not in parameters:
                    parameters.append(common)
            responses = operation.setdefault("responses", {})
            if on_v1:
                _add(responses, 429, "TooManyRequests")
                _add(responses, 503, "ServiceUnavailable")
            if method == "post" and on_v1:
                _add(responses, 415, "UnsupportedMediaType")
            _add_edge_answers(responses, path)
            # A replay repeats any stored answer, with Idempotent-Replayed.
            replayable = any(parameter == "IdempotencyKey" or (isinstance(parameter, dict)
                                                               and parameter.get("name") == "Idempotency-Key")
                             for parameter in parameters)
            for response in responses.values():
                if not isinstance(response, dict):
                    continue
                answer_headers = response.setdefault("headers", {})
                if replayable and response.get("content"):
                    answer_headers.setdefault("Idempotent-Replayed", "Idempotent-Replayed")
                if PROBLEM_MEDIA_TYPE in response.get("content", {}):
                    answer_headers.setdefault("Content-Language", "Content-Language")
                    answer_headers.setdefault("Vary", "Vary")
                if on_v1:
                    for name in RATE_LIMIT_HEADERS:
                        answer_headers.setdefault(name, name)
                answer_headers.setdefault("X-Request-ID", "X-Request-ID")  # every answer
                if not answer_headers:
                    del response["headers"]

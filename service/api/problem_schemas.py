"""The problem schemas of the OpenAPI contract, derived from the code's own tables.

One problem schema per code of :data:`service.problem_codes.PARAMS` (``code`` and ``status`` as
constants, ``params`` typed by :func:`param_schema`), one union per HTTP status, and
``Problem``, the union of them all, discriminated by ``code``: a new code or param is
typed without anyone writing it out again.
"""

from __future__ import annotations

import re

from .. import i18n
from ..engine.rejections import RULE_PARAMS
from ..problem_codes import PARAMS, STATUS

PROBLEM_MEDIA_TYPE = "application/problem+json"


def ref(name: str, kind: str = "schemas") -> dict:
    """A ``$ref`` to the named component."""
    return {"$ref": f"#/components/{kind}/{name}"}


#: The JSON type of each integer param; pile, card and rank params come from the catalogs' own sets.
INTEGER_PARAMS = frozenset({"count", "stock", "limit", "retry_after", "current", "draw", "index"})
STRING_PARAMS = {
    "sent": "The `If-Match` header as sent (at most 40 characters).",
    "game": "The game id of the request.",
    "player": "The player id of the request.",
    "method": "The HTTP method of the request.",
    "code": "The game code as sent (at most 64 characters).",
    "param": "The query parameter that carried a credential (at most 40 characters).",
    "notation": "The action as sent (at most 40 characters).",
}


def param_schema(name: str) -> dict | None:
    """The schema of a problem param, or None for a name nobody typed yet (a test lists them)."""
    if name in i18n.PILE_PARAMS:
        return ref("Pile")
    if name in i18n.CARD_PARAMS:
        return ref("Card")
    if name in i18n.RANK_PARAMS:
        return ref("Rank")
    if name in INTEGER_PARAMS:
        return {"type": "integer", "minimum": 0}
    if name in STRING_PARAMS:
        return {"type": "string", "description": STRING_PARAMS[name]}
    return None


def camel(code: str) -> str:
    """``TABLEAU_COLOUR`` → ``TableauColour``; ``take-back`` → ``TakeBack``."""
    return "".join(part.capitalize() for part in re.split(r"[_-]", code))


def problem_type(code: str) -> str:
    """The problem ``type`` URI: the code's entry in ``GET /v1/rules/{code}``."""
    return f"/v1/rules/{code}"


def problem_title(code: str, lang: str = i18n.DEFAULT_LANGUAGE) -> str:
    """The problem's short ``title`` in ``lang`` (the catalogs' ``_titles``), like its ``detail``."""
    return i18n.title(code, lang)


#: The codes nginx or gunicorn answer themselves, before (or instead of) the app
#: (deploy/stack.py's NGINX_PROBLEMS and LIMITED_LOCATIONS, service/serving.py): their
#: documents have no ``instance`` (the edge has no request path it could quote safely, or
#: none at all for a request line it could not parse), so the contract requires it of none
#: of them. tests/deploy/test_stack_contract.py checks the list against deploy/stack.py.
EDGE_CODES = frozenset({
    "INVALID_REQUEST", "TOKEN_IN_QUERY", "REQUEST_TIMEOUT", "PAYLOAD_TOO_LARGE", "URI_TOO_LONG",
    "HEADERS_TOO_LARGE", "RATE_LIMITED", "SOLVER_RATE_LIMITED", "INTERNAL_ERROR", "BAD_GATEWAY",
    "SERVICE_UNAVAILABLE", "GATEWAY_TIMEOUT", "NOT_FOUND",  # NOT_FOUND: nginx hides /metrics
})
#: ``instance``'s description, by whether the edge may answer the code.
_INSTANCE = "The request's path."
_EDGE_INSTANCE = ("The request's path, when the app answered; absent when nginx or gunicorn answered "
                  "(a malformed or oversized request, the edge's rate limit, no app reachable).")


#: The ``request_id`` member of every problem document: the answer's ``X-Request-ID``.
REQUEST_ID_SCHEMA = {
    "type": "string", "minLength": 8, "maxLength": 64, "pattern": "^[A-Za-z0-9][A-Za-z0-9._:-]{7,63}$",
    "description": "The request's id, as in the answer's `X-Request-ID` header and the service's log lines: "
                   "the client's own `X-Request-ID` when it was valid, else one the service made. "
                   "Quote it when reporting a problem.",
}


def problem_document(code: str, params: dict, lang: str) -> dict:
    """The problem document of ``code`` without a request: the app adds ``instance``, and
    nginx's and gunicorn's own answers (deploy/stack.py, service/serving.py) have none.

    ``INVALID_REQUEST`` carries ``errors`` as the app's does: the request as a whole
    (``_request``) with the sentence of ``detail``."""
    document = {"type": problem_type(code), "title": problem_title(code, lang), "status": STATUS[code],
                "detail": i18n.message(code, params, lang), "code": code, "params": params}
    if code == "INVALID_REQUEST":
        document["errors"] = {"_request": [document["detail"]]}
    return document


def problem_schema_name(code: str) -> str:
    return f"{camel(code)}Problem"


def status_union_name(status: int) -> str:
    return f"Problem{status}"


def problem_components() -> dict[str, dict]:
    components: dict[str, dict] = {
        "NoParams": {"type": "object", "properties": {}, "additionalProperties": False,
                     "description": "This code carries no params."},
        "FieldErrors": {"type": "object", "additionalProperties": {"type": "array", "items": {"type": "string"}},
                        "description": "Per field (or header, or `_request`/`_body`), its messages.",
                        "examples": [{"from": ["Must be one of: t1, t2, t3, t4, t5, t6, t7, waste."]}]},
    }
    for code, names in PARAMS.items():
        if names:
            components[f"{camel(code)}Params"] = _params_schema(names)
        components[problem_schema_name(code)] = _problem_schema(code, f"{camel(code)}Params" if names else "NoParams")
    components.update(batch_problem_components())
    for status in sorted(set(STATUS.values())):
        codes = [code for code in PARAMS if STATUS[code] == status]
        if len(codes) > 1:
            components[status_union_name(status)] = _union(codes, f"Every problem answered with {status}.")
    components["Problem"] = _union(list(PARAMS), "An RFC 9457 problem document; `code` says which.")
    return components


def _params_schema(names, extra: dict | None = None) -> dict:
    properties = {name: param_schema(name) or {} for name in names}
    properties.update(extra or {})
    return {"type": "object", "required": list(properties), "properties": properties, "additionalProperties": False}


def _problem_schema(code: str, params: str, description: str = "") -> dict:
    properties = {
        "type": {"type": "string", "const": problem_type(code),
                 "description": "A relative URI: the code's entry in `GET /v1/rules/{code}`."},
        "title": {"type": "string", "description": "A short title in the `Content-Language`."},
        "status": {"type": "integer", "const": STATUS[code]},
        "detail": {"type": "string", "description": "A sentence in the `Content-Language`."},
        "code": {"type": "string", "const": code},
        "params": ref(params),
        "instance": {"type": "string", "description": _EDGE_INSTANCE if code in EDGE_CODES else _INSTANCE},
        "request_id": REQUEST_ID_SCHEMA,
    }
    required = ["type", "title", "status", "detail", "code", "params", "request_id"]
    if code not in EDGE_CODES:
        required.append("instance")
    if code == "INVALID_REQUEST":
        properties["errors"] = ref("FieldErrors")
        required.append("errors")
    # RFC 9457 lets problem documents grow: extra members are allowed.
    return {"type": "object", "required": required, "properties": properties,
            "description": description or f"`{code}` ({STATUS[code]})."}


# -- the batch of actions (POST /v1/games/{game_id}/actions) -------------------------------

#: The rule codes a batch's action can meet (INVALID_GAME_CODE is a deal's, not an action's).
BATCH_RULE_CODES = tuple(code for code in RULE_PARAMS if code != "INVALID_GAME_CODE")
INDEX_PARAM = {"index": {"type": "integer", "minimum": 0, "maximum": 499,
                         "description": "The 0-based position of the refused action in the batch."}}
#: Past the client's base version, the actions a 412 lists at most (the history has them all).
REBASE_PARAMS = {
    "version": {"type": "integer", "minimum": 0, "description": "The game's current version (`current`)."},
    "base": {"type": "integer", "minimum": 0, "description": "The version `actions` start from: the "
                                                             "client's If-Match, or 0 if the game never had it."},
    "actions": {"type": "array", "items": {"type": "string"}, "maxItems": 1000,
                "description": "The actions applied after `base`, in the engine's notation, in order "
                               "(at most 1000: the `history` link lists them all)."},
}


def batch_problem_name(code: str) -> str:
    return f"{camel(code)}AtIndexProblem"


def batch_problem_components() -> dict[str, dict]:
    """The problems of a batch: a rule's refusal with ``params.index``, and 412 with what a rebase needs."""
    components: dict[str, dict] = {}
    for code in BATCH_RULE_CODES:
        components[f"{camel(code)}AtIndexParams"] = _params_schema(RULE_PARAMS[code], INDEX_PARAM)
        components[batch_problem_name(code)] = _problem_schema(
            code, f"{camel(code)}AtIndexParams", f"`{code}` ({STATUS[code]}) refusing the action at `params.index`.")
    refused = [code for code in BATCH_RULE_CODES if STATUS[code] == 422]
    mapping = {code: ref(batch_problem_name(code))["$ref"] for code in refused}
    mapping["IDEMPOTENCY_KEY_REUSED"] = ref(problem_schema_name("IDEMPOTENCY_KEY_REUSED"))["$ref"]
    components["BatchProblem422"] = {
        "oneOf": [{"$ref": target} for target in mapping.values()],
        "discriminator": {"propertyName": "code", "mapping": mapping},
        "description": "The first refused action's rule code and params, with its `index`; or "
                       "IDEMPOTENCY_KEY_REUSED.",
    }
    create = {**mapping, "INVALID_GAME_CODE": ref(problem_schema_name("INVALID_GAME_CODE"))["$ref"]}
    components["CreateProblem422"] = {
        "oneOf": [{"$ref": target} for target in create.values()],
        "discriminator": {"propertyName": "code", "mapping": create},
        "description": "INVALID_GAME_CODE, IDEMPOTENCY_KEY_REUSED, or the first refused action of a game born "
                       "offline (its code and params, with its `index`).",
    }
    components["VersionMismatchRebaseParams"] = _params_schema(PARAMS["VERSION_MISMATCH"], REBASE_PARAMS)
    rebase = _problem_schema("VERSION_MISMATCH", "VersionMismatchRebaseParams",
                             "`VERSION_MISMATCH` (412) with what a rebase needs.")
    rebase["properties"]["history"] = {"type": "string", "description": "The game's history after `base`: "
                                                                         "`GET` it for every action."}
    rebase["required"].append("history")
    components["VersionMismatchRebaseProblem"] = rebase
    return components


def _union(codes: list[str], description: str) -> dict:
    return {
        "oneOf": [ref(problem_schema_name(code)) for code in codes],
        "discriminator": {"propertyName": "code",
                          "mapping": {code: ref(problem_schema_name(code))["$ref"] for code in codes}},
        "description": description,
    }


def problem_schema_ref(status: int) -> dict:
    """The schema of the problems a status can carry: one code's, or the status's union."""
    codes = [code for code in PARAMS if STATUS[code] == status]
    if not codes:
        return ref("Problem")
    return ref(problem_schema_name(codes[0]) if len(codes) == 1 else status_union_name(status))


"""The problem schemas of the OpenAPI contract, derived from the code's own tables.

One problem schema per code of :data:`service.problem_codes.PARAMS` (``code`` and ``status`` as
constants, ``params`` typed by :func:`param_schema`), one union per HTTP status, and
``Problem``, the union of them all, discriminated by ``code``: a new code or param is
typed without anyone writing it out again.
"""

from __future__ import annotations

import re

from .. import i18n
from ..problem_codes import PARAMS, STATUS

PROBLEM_MEDIA_TYPE = "application/problem+json"


def ref(name: str, kind: str = "schemas") -> dict:
    """A ``$ref`` to the named component."""
    return {"$ref": f"#/components/{kind}/{name}"}


#: The JSON type of each integer param; pile, card and rank params come from the catalogs' own sets.
INTEGER_PARAMS = frozenset({"count", "stock", "limit", "retry_after", "current", "draw"})
STRING_PARAMS = {
    "sent": "The `If-Match` header as sent (at most 40 characters).",
    "game": "The game id of the request.",
    "player": "The player id of the request.",
    "method": "The HTTP method of the request.",
    "code": "The game code as sent (at most 64 characters).",
    "param": "The query parameter that carried a credential (at most 40 characters).",
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


def problem_title(code: str) -> str:
    return code.replace("_", " ").capitalize()


#: The ``request_id`` member of every problem document: the answer's ``X-Request-ID``.
REQUEST_ID_SCHEMA = {
    "type": "string", "minLength": 8, "maxLength": 64, "pattern": "^[A-Za-z0-9][A-Za-z0-9._:-]{7,63}$",
    "description": "The request's id, as in the answer's `X-Request-ID` header and the service's log lines: "
                   "the client's own `X-Request-ID` when it was valid, else one the service made. "
                   "Quote it when reporting a problem.",
}


def problem_document(code: str, params: dict, lang: str) -> dict:
    """The problem document of ``code`` without a request: the app adds ``instance``, and
    nginx's and gunicorn's own answers (deploy/stack.py, service/serving.py) have none."""
    return {"type": problem_type(code), "title": problem_title(code), "status": STATUS[code],
            "detail": i18n.message(code, params, lang), "code": code, "params": params}


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
            properties = {name: param_schema(name) or {} for name in names}
            params = {"type": "object", "required": list(names), "properties": properties,
                      "additionalProperties": False}
            components[f"{camel(code)}Params"] = params
        properties = {
            "type": {"type": "string", "const": problem_type(code),
                     "description": "A relative URI: the code's entry in `GET /v1/rules/{code}`."},
            "title": {"type": "string"},
            "status": {"type": "integer", "const": STATUS[code]},
            "detail": {"type": "string", "description": "A sentence in the `Content-Language`."},
            "code": {"type": "string", "const": code},
            "params": ref(f"{camel(code)}Params" if names else "NoParams"),
            "instance": {"type": "string", "description": "The request's path."},
            "request_id": REQUEST_ID_SCHEMA,
        }
        required = ["type", "title", "status", "detail", "code", "params", "instance", "request_id"]
        if code == "INVALID_REQUEST":
            properties["errors"] = ref("FieldErrors")
            required.append("errors")
        # RFC 9457 lets problem documents grow: extra members are allowed.
        components[problem_schema_name(code)] = {
            "type": "object", "required": required, "properties": properties,
            "description": f"`{code}` ({STATUS[code]}).",
        }
    for status in sorted(set(STATUS.values())):
        codes = [code for code in PARAMS if STATUS[code] == status]
        if len(codes) > 1:
            components[status_union_name(status)] = _union(codes, f"Every problem answered with {status}.")
    components["Problem"] = _union(list(PARAMS), "An RFC 9457 problem document; `code` says which.")
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


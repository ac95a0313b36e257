"""Response conformance: every status, header and body the app sends is declared in openapi.yaml.

:func:`recording` records each answer of an app while a test runs; :func:`violations` checks
them against the checked-in spec (tests/api/test_openapi.py keeps it equal to the code's).
The ``app`` fixture of tests/conftest.py (and the rate-limited apps of
tests/reliability/test_abuse.py) apply both through :func:`conforming`, so the suite's traffic
is checked, and a test fails on the undeclared answers it provokes.

Checked per answer of a documented path: the status is declared for the operation (only a
500 may fall under its ``default``); the media type is declared for that status; the body validates against
the declared schema, with every object closed (a field the spec does not name is a
violation, though the published schemas stay open for clients); every header is declared for
that status, and its value fits the header's schema — except the generic headers of
:data:`GENERIC_HEADERS`. A method a path does not have must answer
``components.responses.MethodNotAllowed``; an unrouted path a 404 problem, or what any
request may be refused with before routing (:data:`_UNROUTED`). OPTIONS and HEAD
(answered by Flask itself), and pages outside the spec (``/``, ``/docs``…), are not checked.
"""

from __future__ import annotations

import copy
import json
import re
from contextlib import contextmanager
from functools import cache

import yaml
from flask import request, request_finished
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from tests.contract.tools import OPENAPI

#: Headers any answer may carry without the spec naming them: transport (HTTP/1.1 framing,
#: set by the server), caching and CORS (added at the app's edge for every route), and the
#: browser security headers. Everything else must be declared on the answer.
GENERIC_HEADERS = frozenset({
    "content-type", "content-length", "date", "server", "connection", "keep-alive", "transfer-encoding",
    "cache-control", "vary", "access-control-allow-origin", "access-control-allow-credentials",
    "access-control-allow-methods", "access-control-allow-headers", "access-control-expose-headers",
    "access-control-max-age", "x-content-type-options", "x-frame-options", "content-security-policy",
    "strict-transport-security", "referrer-policy", "permissions-policy", "cross-origin-opener-policy",
    "cross-origin-resource-policy", "cross-origin-embedder-policy",
})
BASE = "urn:openapi"
_CONVERTER = re.compile(r"<(?:[^:<>]+:)?([^<>]+)>")


@cache
def _spec() -> tuple[dict, Registry]:
    spec = yaml.safe_load(OPENAPI.read_text(encoding="utf-8"))
    strict = copy.deepcopy(spec)
    composed = {item["$ref"] for schema in strict["components"]["schemas"].values()
                for item in schema.get("allOf", ()) if "$ref" in item}
    for name, schema in strict["components"]["schemas"].items():
        if f"#/components/schemas/{name}" not in composed:
            _close(schema)
    resource = Resource.from_contents(strict, default_specification=DRAFT202012)
    return spec, Registry().with_resource(BASE, resource)


def _close(schema) -> None:
    """Close every object schema in place (the members of an allOf are closed by their parent)."""
    if isinstance(schema, list):
        for item in schema:
            _close(item)
        return
    if not isinstance(schema, dict):
        return
    if ("properties" in schema or "allOf" in schema) and "additionalProperties" not in schema:
        schema.setdefault("unevaluatedProperties", False)
    for key, value in schema.items():
        if key == "allOf":
            for item in value:
                if "$ref" not in item:
                    item.pop("unevaluatedProperties", None)
                    for inner in item.get("properties", {}).values():
                        _close(inner)
        elif isinstance(value, dict | list):
            _close(value)


def _validate(schema: dict, instance, where: str) -> list[str]:
    spec, registry = _spec()
    wrapped = {**_absolute(schema), "unevaluatedProperties": False} if "$ref" in schema else _absolute(schema)
    validator = Draft202012Validator({"$id": f"{BASE}/check", **wrapped}, registry=registry)
    return [f"{where}: {error.json_path}: {error.message}" for error in validator.iter_errors(instance)][:5]


def _absolute(schema):
    if isinstance(schema, dict):
        return {key: (f"{BASE}{value}" if key == "$ref" and value.startswith("#") else _absolute(value))
                for key, value in schema.items()}
    if isinstance(schema, list):
        return [_absolute(item) for item in schema]
    return schema


def _resolve(spec: dict, obj: dict) -> dict:
    while isinstance(obj, dict) and "$ref" in obj:
        node = spec
        for part in obj["$ref"].lstrip("#/").split("/"):
            node = node[part.replace("~1", "/").replace("~0", "~")]
        obj = node
    return obj


#: What a request no route matches may answer besides its 404: refused before routing
#: (a token in the query string), by method, or by its address's rate limit.
_UNROUTED = {400: "BAD_REQUEST", 405: "MethodNotAllowed", 429: "TooManyRequests"}


def violations(records: list[dict]) -> list[str]:
    """What in ``records`` the spec does not declare, one line each."""
    spec, _ = _spec()
    found: list[str] = []
    for record in records:
        method, status = record["method"].lower(), record["status"]
        where = f"{record['method']} {record['path']} → {status}"
        if method in ("options", "head"):
            continue
        if record["rule"] is None:
            # No operation to declare them: the answers every path may give, rate limits included.
            if status in _UNROUTED:
                response = spec["components"]["responses"][_UNROUTED[status]]
            elif status == 404:
                response = {"content": {"application/problem+json": {"schema": {
                    "$ref": "#/components/schemas/NotFoundProblem"}}},
                    "headers": {name: {"$ref": f"#/components/headers/{name}"} for name in (
                        "Content-Language", "Vary", "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset",
                        "X-Request-ID")}}
            else:
                found.append(f"{where}: an unrouted request answered {status}")
                continue
        else:
            path = _CONVERTER.sub(r"{\1}", record["rule"])
            if path not in spec["paths"]:
                continue
            operation = spec["paths"][path].get(method)
            if operation is None:
                response = spec["components"]["responses"]["MethodNotAllowed"]
                if status != 405:
                    found.append(f"{where}: {method.upper()} is not an operation of {path}")
                    continue
            else:
                responses = operation["responses"]
                # `default` documents the 500 of a bug; every other status must be named.
                response = responses.get(str(status)) or (responses.get("default") if status == 500 else None)
                if response is None:
                    found.append(f"{where}: status {status} is not declared")
                    continue
        response = _resolve(spec, response)
        found += _check_response(spec, response, record, where)
    return found


def _check_response(spec: dict, response: dict, record: dict, where: str) -> list[str]:
    found = []
    declared = {name.lower(): _resolve(spec, header) for name, header in response.get("headers", {}).items()}
    for name, value in record["headers"]:
        key = name.lower()
        if key in declared:
            found += _validate(declared[key].get("schema", {}), value, f"{where} header {name}")
        elif key not in GENERIC_HEADERS:
            found.append(f"{where}: header {name} is not declared")
    content = response.get("content", {})
    body = record["body"]
    if not content:
        if body:
            found.append(f"{where}: a body where the spec declares none")
        return found
    media = content.get(record["mimetype"])
    if media is None:
        return [*found, f"{where}: media type {record['mimetype']} is not declared ({', '.join(content)})"]
    try:
        document = json.loads(body)
    except ValueError:
        return [*found, f"{where}: the body is not JSON"]
    return found + _validate(media.get("schema", {}), document, f"{where} body")


@contextmanager
def recording(app):
    """Record every answer ``app`` sends inside the block; yield the list of records."""
    records: list[dict] = []

    def record(sender, response, **extra) -> None:
        if response.direct_passthrough or response.is_streamed:
            return  # files (Swagger UI's assets), never an API answer
        records.append({
            "method": request.method, "path": request.path,
            "rule": request.url_rule.rule if request.url_rule is not None else None,
            "status": response.status_code, "headers": list(response.headers.items()),
            "mimetype": response.mimetype, "body": response.get_data(),
        })

    request_finished.connect(record, app)
    try:
        yield records
    finally:
        request_finished.disconnect(record, app)


@contextmanager
def conforming(app):
    """Run the block; then fail if ``app`` sent any answer the spec does not declare."""
    with recording(app) as records:
        yield app
    undeclared = violations(records)
    assert not undeclared, "answers the spec does not declare:\n" + "\n".join(undeclared[:20])

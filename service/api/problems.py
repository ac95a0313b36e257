"""RFC 9457 problem+json answers for every error, localized from the message catalogs."""

from __future__ import annotations

import http
import logging
from copy import deepcopy

import sqlalchemy.exc
from flask import Response, current_app, json, request
from flask_smorest import Api
from flask_smorest import Blueprint as SmorestBlueprint
from marshmallow import missing
from webargs.flaskparser import FlaskParser, abort, is_json_request
from werkzeug.exceptions import HTTPException

from .. import i18n, jsonin
from ..engine import NotationError, Rejection
from ..problem_codes import PARAMS, STATUS
from ..store.db import database_unavailable
from ..telemetry import metrics, request_ids
from ..usecases.errors import ServiceError
from .contract import REQUEST_HEADERS_KEY, ContractPlugin, ref_attribute, register_components
from .links import LinksPlugin
from .problem_schemas import PROBLEM_MEDIA_TYPE, problem_document, problem_schema_ref

log = logging.getLogger(__name__)

#: The code of each HTTP error status that no view raised itself.
_HTTP_CODES = {
    400: "INVALID_REQUEST",
    404: "NOT_FOUND",
    405: "METHOD_NOT_ALLOWED",
    413: "PAYLOAD_TOO_LARGE",
    415: "UNSUPPORTED_MEDIA_TYPE",
    422: "INVALID_REQUEST",
    429: "RATE_LIMITED",
    503: "SERVICE_UNAVAILABLE",
}


#: The challenge every 401 carries.
CHALLENGE = 'Bearer realm="solitaire"'


def problem_headers(code: str, params: dict) -> dict:
    """The headers a problem of ``code`` carries besides Content-Language and Vary (see :data:`_PROBLEM_HEADERS`)."""
    if code == "AUTH_REQUIRED":
        return {"WWW-Authenticate": CHALLENGE}
    if code == "VERSION_MISMATCH":
        return {"ETag": f'"{params["current"]}"'}
    if code in ("SOLVER_BUSY", "WINNABLE_DEAL_TIMEOUT"):
        return {"Retry-After": "1"}
    return {}


def problem_body(code: str, params: dict | None = None, errors: dict | None = None,
                 lang: str | None = None) -> tuple[dict, str]:
    """The problem document for ``code`` and the language its detail is written in."""
    lang = lang or i18n.negotiate(request.headers.get("Accept-Language"))
    body = {**problem_document(code, params or {}, lang), "instance": request.path,
            "request_id": request_ids.current() or request_ids.begin(None)}
    if errors is not None:
        body["errors"] = errors
    return body, lang


def problem_response(code: str, params: dict | None = None, *, errors: dict | None = None,
                     headers: dict | None = None, members: dict | None = None) -> Response:
    """The problem+json answer of ``code``; ``members``: extra members of the document (RFC 9457 §3.2)."""
    body, lang = problem_body(code, params, errors)
    body.update(members or {})
    response = Response(json.dumps(body), status=STATUS[code], mimetype=PROBLEM_MEDIA_TYPE)
    response.headers["Content-Language"] = lang
    response.headers["Vary"] = "Accept-Language"
    for name, value in (headers or {}).items():
        response.headers[name] = value
    return response


def _validation_errors(error: HTTPException) -> dict | None:
    data = getattr(error, "data", None) or {}
    messages = data.get("errors") or data.get("messages")
    if not isinstance(messages, dict):
        return None
    # webargs nests by location ({"json": {...}}); clients want the fields.
    flat: dict = {}
    for location, fields in messages.items():
        if isinstance(fields, dict):
            flat.update(fields)
        else:  # the body as a whole, e.g. not JSON at all
            flat["_body" if location == "json" else location] = fields
    return flat


class ProblemApi(Api):
    """flask-smorest's Api answering, and documenting, every error as problem+json."""

    def _init_spec(self, *, extra_plugins=None, **options):
        # LinksPlugin: OpenAPI links from a new game to playing it.
        plugins = [*(extra_plugins or ()), LinksPlugin(), ContractPlugin()]
        super()._init_spec(extra_plugins=plugins, **options)
        # Before any schema is registered (init_api's answers, then the blueprints'):
        # a field with metadata["x-ref"] points at its named enum.
        self.ma_plugin.converter.add_attribute_function(ref_attribute)

    def _register_pagination_header(self) -> None:
        """Nothing: pages are cursors in the body, not flask-smorest's page-number header."""

    def _register_responses(self) -> None:
        register_components(self.spec)

    def handle_http_exception(self, error: HTTPException):
        refusal = refusal_of(error)
        status = error.code or 500
        if status >= 500:
            log.error("HTTP %s on %s %s", status, request.method, _route())
        headers = dict(error.get_headers())
        headers.pop("Content-Type", None)
        data = getattr(error, "data", None) or {}
        headers.update(data.get("headers") or {})
        if status == 429:
            headers.setdefault("Retry-After", str(refusal.params["retry_after"]))
        return problem_response(refusal.code, refusal.params, errors=refusal.errors, headers=headers)


def refusal_of(error: HTTPException) -> ServiceError:
    """The problem an HTTP error (werkzeug's, webargs') stands for: its code, params and field errors."""
    status = error.code or 500
    code = _HTTP_CODES.get(status, "INTERNAL_ERROR" if status >= 500 else "INVALID_REQUEST")
    params: dict = {}
    errors = None
    if code == "INVALID_REQUEST":
        errors = _validation_errors(error) or {"_request": [error.description or "Malformed request."]}
    elif code == "METHOD_NOT_ALLOWED":
        params = {"method": request.method}
    elif code == "PAYLOAD_TOO_LARGE":
        params = {"limit": current_app.config.get("MAX_CONTENT_LENGTH") or 0}
    elif code == "RATE_LIMITED":
        code = getattr(error, "problem_code", code)  # SOLVER_RATE_LIMITED: rate_limits.py names the limit spent
        params = {"retry_after": _retry_after(error)}
    return ServiceError(code, errors=errors, **params)


def malformed_request(error: Exception) -> ServiceError:
    """What parsing a request's body raised, as the refusal to answer (a view may answer it later)."""
    if isinstance(error, ServiceError):
        return error
    if isinstance(error, HTTPException):
        return refusal_of(error)
    # NotationError: the schemas should catch every malformed card or pile first; if one slips
    # by, it is still the client's malformed request, never a 500.
    return ServiceError("INVALID_REQUEST", errors={"_request": [str(error)]})


def _retry_after(error: HTTPException) -> int:
    for name, value in error.get_headers():
        if name.lower() == "retry-after":
            return int(value)
    return 1


class _Parser(FlaskParser):
    # Our contract answers malformed requests with 400; 422 is for rule rejections.
    DEFAULT_VALIDATION_STATUS = 400

    def _raw_load_json(self, req):
        if not is_json_request(req):
            return missing
        return jsonin.loads(req.get_data(cache=True))

    def _handle_invalid_json_error(self, error, req, *args, **kwargs):
        reason = getattr(error, "msg", None) or str(error)
        abort(400, exc=error, messages={"json": [f"Invalid JSON body: {reason}"]})


class Blueprint(SmorestBlueprint):
    ARGUMENTS_PARSER = _Parser()

    def body(self, schema, *, required: bool = True):
        """Document ``schema`` as the request body exactly as :meth:`arguments` does, for a view that parses it itself.

        The action views parse their body before the game is locked but refuse a
        malformed one only after the checks that come first (``service.usecases.actions``).
        """
        status = self.ARGUMENTS_PARSER.DEFAULT_VALIDATION_STATUS

        def decorator(view):
            view._apidoc = deepcopy(getattr(view, "_apidoc", {}))
            documented = view._apidoc.setdefault("arguments", {})
            documented.setdefault("parameters", []).append({"in": "json", "required": required, "schema": schema})
            documented.setdefault("responses", {})[status] = http.HTTPStatus(status).name
            return view

        return decorator

    def parse_body(self, schema) -> dict:
        """The request's JSON body loaded by ``schema`` (one instance for every request), as :meth:`arguments` would."""
        return self.ARGUMENTS_PARSER.parse(schema, location="json")

    def request_headers(self, *names: str):
        """Document request headers (components/parameters of ``service.api.contract``) after the query's
        parameters: ``doc(parameters=[...])`` replaces the list, and with it what :meth:`arguments` put there."""
        return self.doc(**{REQUEST_HEADERS_KEY: list(names)})

    def problem(self, status: int, description: str, schema: dict | None = None):
        """Document an error answer of this endpoint as problem+json, typed by the codes of ``status``
        (or by ``schema``, a ``$ref`` to a problem schema of this endpoint's own)."""
        extra = _PROBLEM_HEADERS.get(status, {})
        return self.alt_response(status, schema=schema or problem_schema_ref(status), content_type=PROBLEM_MEDIA_TYPE,
                                 description=description, headers={**extra})


#: Headers a problem of this status carries besides Content-Language and Vary.
_PROBLEM_HEADERS = {
    401: {"WWW-Authenticate": "WWW-Authenticate"},
    412: {"ETag": "ETag"},
    503: {"Retry-After": "Retry-After"},
}


def register_error_handlers(app) -> None:
    """Answer the use cases' refusals, engine rejections and unexpected failures as problems."""

    @app.errorhandler(ServiceError)
    def _refusal(error: ServiceError):
        return problem_response(error.code, error.params, errors=error.errors,
                                headers=problem_headers(error.code, error.params))

    @app.errorhandler(Rejection)
    def _rejection(error: Rejection):
        return problem_response(error.code, error.params)

    @app.errorhandler(NotationError)
    def _notation(error: NotationError):
        # The schemas should catch every malformed card or pile first; if one slips by,
        # it is still the client's malformed request, never a 500.
        return problem_response("INVALID_REQUEST", errors={"_request": [str(error)]})

    @app.errorhandler(Exception)
    def _unexpected(error: Exception):
        if isinstance(error, HTTPException):
            return app.extensions["problem_api"].handle_http_exception(error)
        if database_unavailable(error):
            if isinstance(error, sqlalchemy.exc.TimeoutError):  # no pooled connection came free in time
                metrics.POOL_TIMEOUTS.inc()
            log.warning("database unavailable: %s", error)
            return problem_response("SERVICE_UNAVAILABLE", headers={"Retry-After": "1"})
        log.exception("unhandled error on %s %s", request.method, _route())
        return problem_response("INTERNAL_ERROR")


def _route() -> str:
    """The request's route template for a log line: never its path, which may carry anything a client put in it."""
    return request.url_rule.rule if request.url_rule is not None else "(no route)"


assert set(_HTTP_CODES.values()) <= PARAMS.keys()

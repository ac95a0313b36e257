"""Each request in and out: its id, its metrics, its one log line; ``/metrics`` of this instance.

:func:`init_http` adds, before every other hook, the request's start (its id accepted or
made, its timers reset) and, after every other hook, its end: the ``X-Request-ID`` header,
``solitaire_http_requests_total`` and the duration histogram by *operation* (the OpenAPI
operationId, or the endpoint of a page; ``unmatched`` for a path no route knows: never the
path itself), and with ``LOG_REQUESTS`` one log line (JSON under ``LOG_FORMAT=json``).

``/metrics`` answers this instance's metrics, summed over its workers; it is for the
scraper on the instance's own address: a request that came through the proxy (it carries
``X-Forwarded-For``) gets 404 like any unknown path, and nginx answers it 404 itself.
"""

from __future__ import annotations

import logging
import time

from flask import Flask, Response, current_app, request
from werkzeug.exceptions import NotFound

from . import metrics, request_ids, timing

log = logging.getLogger("service.requests")

UNMATCHED = "unmatched"
_STARTED = "solitaire.started"


def init_http(app: Flask) -> None:
    """Register the request hooks (call before any other hook is added) and ``/metrics``."""
    app.config.setdefault("REQUEST_IDS", True)
    app.config.setdefault("METRICS_ENABLED", True)
    app.config.setdefault("LOG_REQUESTS", False)
    app.before_request(_begin)
    app.after_request(_end)  # after_request hooks run last-registered first: this one runs last
    app.teardown_request(_teardown)
    app.extensions["operations"] = None  # built on the first request, once the routes exist
    if app.config["METRICS_ENABLED"]:
        metrics.mark_started()
        app.add_url_rule("/metrics", "metrics", metrics_view)


def metrics_view():
    if "HTTP_X_FORWARDED_FOR" in request.environ:
        raise NotFound()  # answered as every unknown path is (problem+json)
    return Response(metrics.exposition(), mimetype="text/plain", headers={"Cache-Control": "no-store"})


def _begin() -> None:
    environ = request.environ
    environ[_STARTED] = time.perf_counter()
    timing.reset()
    if current_app.config["REQUEST_IDS"]:
        request_ids.begin(environ.get(request_ids.ENVIRON))


def _teardown(_error=None) -> None:
    request_ids.end()


def operation_of(app: Flask, endpoint: str | None, method: str) -> str:
    """The operationId of ``endpoint`` for ``method``, the endpoint's name for a page, ``unmatched`` for none."""
    if endpoint is None:
        return UNMATCHED
    operations = app.extensions.get("operations")
    if operations is None:
        operations = app.extensions["operations"] = _operations(app)
    return operations.get((endpoint, method)) or operations.get((endpoint, "GET" if method == "HEAD" else method)) \
        or endpoint


def _operations(app: Flask) -> dict[tuple[str, str], str]:
    """(endpoint, method) → operationId, from the OpenAPI document the app serves."""
    api = app.extensions.get("problem_api")
    found: dict[tuple[str, str], str] = {}
    if api is None:
        return found
    paths = api.spec.to_dict().get("paths", {})
    for rule in app.url_map.iter_rules():
        path = rule.rule
        for argument in rule.arguments:
            path = path.replace(f"<{argument}>", f"{{{argument}}}")
        path = _strip_converters(path)
        for method in rule.methods or ():
            operation = (paths.get(path) or {}).get(method.lower(), {}).get("operationId")
            if operation:
                found[(rule.endpoint, method)] = operation
    return found


def _strip_converters(path: str) -> str:
    """``/v1/rules/<string:code>`` → ``/v1/rules/{code}``."""
    import re

    return re.sub(r"<(?:[a-z_]+(?:\([^)]*\))?:)?([a-z_]+)>", r"{\1}", path)


def _end(response: Response) -> Response:
    app = current_app._get_current_object()
    config = app.config
    request_id = request_ids.current()
    if request_id is not None:
        response.headers[request_ids.HEADER] = request_id
    started = request.environ.get(_STARTED)
    if started is None:
        return response
    seconds = time.perf_counter() - started
    method = request.method
    operation = operation_of(app, request.endpoint if request.url_rule is not None else None, method)
    if config["METRICS_ENABLED"]:
        metrics.REQUESTS.labels(operation, metrics.closed(method, metrics.METHODS),
                                metrics.closed(response.status_code, metrics.STATUSES)).inc()
        metrics.DURATION.labels(operation).observe(seconds)
    if config["LOG_REQUESTS"]:
        db_seconds, solver_seconds = timing.spent()
        level = logging.ERROR if response.status_code >= 500 else logging.INFO
        log.log(level, "%s %s %s", method, request.url_rule.rule if request.url_rule else "-", response.status_code,
                extra={"operation": operation, "method": method,
                       "route": request.url_rule.rule if request.url_rule else None,
                       "status": response.status_code, "duration_ms": round(seconds * 1000, 2),
                       "db_ms": round(db_seconds * 1000, 2), "solver_ms": round(solver_seconds * 1000, 2),
                       "client": request.remote_addr})
    return response

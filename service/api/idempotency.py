"""Idempotency-Key over HTTP: the request's key and fingerprint, its answer kept as sent, a replay.

The rules (one answer per key, 422 for a key reused with another body, stored in the
same transaction as the change) are the use cases' (``service.usecases.idempotency``);
here the answer is the exact bytes and headers sent:

* a replay carries the first answer's exact bytes and headers, plus
  ``Idempotent-Replayed: true``; a problem answer is written again in the replay's
  ``Accept-Language`` (its code, params and errors unchanged), with
  ``Content-Language`` and ``Vary``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable

from flask import Response, request

from .. import jsonin
from ..telemetry import metrics
from ..usecases.idempotency import Idempotency, StoredAnswer
from .present import RULES_HEADER, json_response
from .problem_schemas import PROBLEM_MEDIA_TYPE
from .problems import problem_response

#: headers never stored: the server computes them afresh for every answer
_NOT_STORED = {"content-length", "date", "server", "connection"}


def request_idempotency(answer: Callable[[object], Response]) -> Idempotency | None:
    """The request's ``Idempotency-Key`` for a use case, None without one; ``answer`` writes an outcome down."""
    key = request.headers.get("Idempotency-Key")
    if key is None:
        return None
    return Idempotency(key, fingerprint, lambda outcome: captured(answer(outcome)), endpoint=request.path)


def fingerprint() -> str:
    """What makes two requests "the same": the endpoint and the body's JSON value."""
    raw = request.get_data(cache=True)
    try:
        body = json.dumps(jsonin.loads(raw), sort_keys=True, separators=(",", ":")) if raw.strip() else "{}"
    except ValueError:
        body = raw.decode("utf-8", "replace")
    return hashlib.sha256(f"{request.method} {request.path}\n{body}".encode()).hexdigest()


def captured(response: Response) -> StoredAnswer:
    """What a replay needs of ``response``: status, headers (as pairs) and exact body bytes."""
    headers = [[name, value] for name, value in response.headers.items() if name.lower() not in _NOT_STORED]
    return StoredAnswer(response.status_code, headers, response.get_data())


def replay(answer: StoredAnswer) -> Response:
    """The stored answer again; a problem in the language this request asks for."""
    metrics.IDEMPOTENT_REPLAYS.inc()
    if answer.raw is None:
        return _rebuilt(answer)
    if answer.status >= 400:
        document = json.loads(answer.raw)
        response = problem_response(document["code"], document.get("params"), errors=document.get("errors"))
        for name, value in answer.headers:
            if name.lower() not in ("content-type", "content-language", "vary"):
                response.headers[name] = value
    else:
        response = Response(answer.raw, status=answer.status)
        response.headers.clear()
        for name, value in answer.headers:
            response.headers.add(name, value)
        if "ETag" in response.headers and "Rules-Version" not in response.headers:
            # a game's answer stored before games carried their rules' version (kept a day at most)
            response.headers["Rules-Version"] = RULES_HEADER
    response.headers["Idempotent-Replayed"] = "true"
    return response


def _rebuilt(answer: StoredAnswer) -> Response:
    """An action's answer stored before migration 0004 added the exact bytes (kept at most
    IDEMPOTENCY_RETENTION_HOURS): rebuilt from its JSON."""
    headers = {"Idempotent-Replayed": "true"}
    if answer.status == 200:
        return json_response(answer.body, version=answer.body["version"], headers=headers)
    response = json_response(answer.body, answer.status, headers=headers)
    response.mimetype = PROBLEM_MEDIA_TYPE
    return response

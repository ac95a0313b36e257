"""Idempotency-Key: a retried request gets the first answer, byte for byte, and changes nothing.

Actions (``usecases.play``) and creates (``POST /v1/games``, ``POST /v1/players``)
share the key's rules, the request's fingerprint and the replay:

* the key is 1 to 128 printable characters; the same key with another request
  (another endpoint or body) is 422 ``IDEMPOTENCY_KEY_REUSED``;
* a replay carries the first answer's exact bytes and headers, plus
  ``Idempotent-Replayed: true``; a problem answer is written again in the
  replay's ``Accept-Language`` (its code, params and errors unchanged), with
  ``Content-Language`` and ``Vary``;
* a create's answer holds a new token: it is stored masked with a keystream
  derived from the key, and looked up by a hash of the key, so the table alone
  gives neither the key nor the token away.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable

from flask import Response, request
from sqlalchemy.exc import IntegrityError

from ..store.idempotent_answers import find_created, stage_created
from . import jsonin
from .problems import ApiProblem, problem_response
from .rate_limits import client_address

MAX_KEY_LENGTH = 128
#: headers never stored: the server computes them afresh for every answer
_NOT_STORED = {"content-length", "date", "server", "connection"}


def request_key() -> str | None:
    """The request's Idempotency-Key, or None; a malformed one is 400."""
    key = request.headers.get("Idempotency-Key")
    if key is None:
        return None
    key = key.strip()
    if not key or len(key) > MAX_KEY_LENGTH or not key.isprintable():
        raise ApiProblem("INVALID_REQUEST",
                         errors={"Idempotency-Key": [f"1 to {MAX_KEY_LENGTH} printable characters."]})
    return key


def fingerprint() -> str:
    """What makes two requests "the same": the endpoint and the body's JSON value."""
    raw = request.get_data(cache=True)
    try:
        body = json.dumps(jsonin.loads(raw), sort_keys=True, separators=(",", ":")) if raw.strip() else "{}"
    except ValueError:
        body = raw.decode("utf-8", "replace")
    return hashlib.sha256(f"{request.method} {request.path}\n{body}".encode()).hexdigest()


def captured(response: Response) -> tuple[int, list, bytes]:
    """What a replay needs of ``response``: status, headers (as pairs) and exact body bytes."""
    headers = [[name, value] for name, value in response.headers.items() if name.lower() not in _NOT_STORED]
    return response.status_code, headers, response.get_data()


def replay(status: int, headers: list, raw: bytes) -> Response:
    """The stored answer again; a problem in the language this request asks for."""
    if status >= 400:
        document = json.loads(raw)
        response = problem_response(document["code"], document.get("params"), errors=document.get("errors"))
        for name, value in headers:
            if name.lower() not in ("content-type", "content-language", "vary"):
                response.headers[name] = value
    else:
        response = Response(raw, status=status)
        response.headers.clear()
        for name, value in headers:
            response.headers.add(name, value)
    response.headers["Idempotent-Replayed"] = "true"
    return response


# -- creates ---------------------------------------------------------------------------


def create_scope(key: str, owner: str | None) -> str:
    """The stored row's id: who asked, where, and the key — hashed.

    "Who" is the bearer token's hash; without a token, the client's address: an
    anonymous answer holds a fresh token, and another client that happens to send the
    same key (and body) must get a game of its own, not that token.
    """
    who = owner or f"address:{client_address()}"
    return hashlib.sha256(f"{who}\n{request.path}\n{key}".encode()).hexdigest()


def mask(data: bytes, key: str) -> bytes:
    """XOR ``data`` with a SHAKE-256 keystream of the key: masking and unmasking are the same call.

    >>> mask(mask(b'{"token": "t"}', "k1"), "k1")
    b'{"token": "t"}'
    """
    stream = hashlib.shake_256(b"solitaire idempotent create\0" + key.encode()).digest(len(data))
    return (int.from_bytes(data, "big") ^ int.from_bytes(stream, "big")).to_bytes(len(data), "big")


def idempotent_create(owner: str | None, build: Callable[[Callable[[Response], None]], Response]) -> Response:
    """Run a create once per Idempotency-Key: ``build(stage)`` makes the row and its answer.

    ``build`` must call ``stage(response)`` inside its write transaction, so the answer
    is stored in the same commit as the row it describes. Without a key it simply runs.
    ``owner``: the bearer token's hash (None: anonymous), so two clients' keys never meet.
    """
    key = request_key()
    if key is None:
        return build(lambda response: None)
    scope, print_ = create_scope(key, owner), fingerprint()
    replayed = _replay_created(scope, print_, key)
    if replayed is not None:
        return replayed

    def stage(response: Response) -> None:
        status, headers, raw = captured(response)
        stage_created(scope, print_, status, headers, mask(raw, key))

    try:
        return build(stage)
    except IntegrityError:
        # A concurrent request with the same key committed first (PostgreSQL): answer as it did.
        replayed = _replay_created(scope, print_, key)
        if replayed is None:
            raise
        return replayed


def _replay_created(scope: str, print_: str, key: str) -> Response | None:
    stored = find_created(scope)
    if stored is None:
        return None
    if stored.fingerprint != print_:
        raise ApiProblem("IDEMPOTENCY_KEY_REUSED")
    return replay(stored.status, stored.headers, mask(stored.body, key))

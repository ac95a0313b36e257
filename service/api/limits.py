"""Rate limits (Flask-Limiter): per client address on every request, per token on actions.

- ``RATELIMIT_DEFAULT`` (e.g. "600 per minute"): all requests of one address, every
  endpoint counted together; the health probes are exempt.
- ``RATELIMIT_WRITE`` (e.g. "300 per minute"): the actions of one bearer token, all
  action endpoints counted together (keyed by the token's hash, never the token).
- ``RATELIMIT_STORAGE_URI``: ``memory://`` by default, where each process counts
  alone and so enforces its share of each limit: the limit divided by
  ``RATELIMIT_PROCESSES`` (gunicorn.conf.py sets it to its worker count), so the
  server as a whole never lets more through than configured. ``redis://…`` shares
  the counters between every worker and instance: the limits hold as configured.
  While that store is unreachable the limiter counts in memory and logs it.
- ``SOLVER_RATELIMIT`` (e.g. "10 per minute"): the requests that may run the solver
  (hints, ``{"winnable": true}`` deals), per address and per bearer token, each key
  counted once for both endpoints; a breach is 429 ``SOLVER_RATE_LIMITED``.
- ``RATELIMIT_ENABLED`` false turns them all off.

Each named limit is one entry of :data:`LIMITS`; a new one is a setting, a line there and
the views it limits (:func:`limit_views`). A request pays only for the limits of its view.

Bodies are capped at ``MAX_CONTENT_LENGTH`` (413) with or without Content-Length.

A breach is 429 problem+json ``RATE_LIMITED`` with ``params.retry_after`` and the
same number of seconds in ``Retry-After``; every limited answer carries the
``X-RateLimit-Limit``/``-Remaining``/``-Reset`` headers of its view's own limit
(write, solver) if it has one, else of the address limit.
"""

from __future__ import annotations

import functools
import hashlib
import io
import math
import time

from flask import current_app, g, request
from flask_limiter import ApplicationLimit, HeaderNames, Limit, Limiter
from flask_limiter.util import get_remote_address
from limits import parse_many
from limits.storage import MemoryStorage
from werkzeug.exceptions import BadRequest, RequestEntityTooLarge

from .auth import presented_token

_RESET_SECONDS = "X-RateLimit-Retry-After"
_SOLVER_SCOPE = "solver-"


class SweepingMemoryStorage(MemoryStorage):
    """``memory://`` without a thread per hit: expired keys are swept inline, once a second.

    limits' MemoryStorage starts a fresh ``threading.Timer`` on every hit once the last
    one (10 ms) has run: measured, that was most of the limiter's cost per request.
    Counters expire on read anyway; the sweep only frees memory. The two name-mangled
    methods are limits' private API: pyproject.toml bounds its version, and
    tests/api/test_limits_hook.py fails if they are gone.
    """

    STORAGE_SCHEME = ["solitaire-memory"]  # registered with limits by its metaclass
    _next_sweep = 0.0

    def _MemoryStorage__schedule_expiry(self) -> None:  # replaces the timer-per-hit
        now = time.monotonic()
        if now >= self._next_sweep:
            self._next_sweep = now + 1.0
            self._MemoryStorage__expire_events()


#: Setting name of each named limit.
LIMITS = {"address": "RATELIMIT_DEFAULT", "write": "RATELIMIT_WRITE", "solver": "SOLVER_RATELIMIT"}


def _shares_memory(config) -> bool:
    return _storage_uri(config.get("RATELIMIT_STORAGE_URI")).startswith("solitaire-memory")


@functools.lru_cache(maxsize=64)  # read on every request; the settings rarely change
def process_share(limit: str, processes: int) -> str:
    """This process's share of ``limit`` when ``processes`` count apart, never below 1.

    >>> process_share("120 per minute", 2)
    '60 per 1 minute'
    >>> process_share("120/minute;1000/2 hours", 8)
    '15 per 1 minute;125 per 2 hour'
    >>> process_share("5 per second", 8)
    '1 per 1 second'
    """
    if processes <= 1:
        return limit
    return ";".join(f"{max(1, item.amount // processes)} per {item.multiples} {item.GRANULARITY.name}"
                    for item in parse_many(limit))


def limit_value(name: str):
    """The named limit of :data:`LIMITS` as Flask-Limiter reads it: per request, from the config."""
    setting = LIMITS[name]

    def value() -> str:
        config = current_app.config
        processes = config.get("RATELIMIT_PROCESSES", 1) if _shares_memory(config) else 1
        return process_share(config[setting], processes)

    return value


def _address() -> str:
    return get_remote_address() or "unknown"


def client_address() -> str:
    """The client's address as the limits see it (idempotency.py scopes anonymous keys by it)."""
    return _address()


def _token_key() -> str:
    """The bearer token's hash; requests without one share their address's bucket."""
    token = presented_token()
    if token is not None:
        # Salted: the stored token_hash is sha256(token); the limiter's store must not hold part of it.
        return "token:" + hashlib.sha256(b"ratelimit\0" + token.encode()).hexdigest()[:32]
    return "address:" + _address()


def _is_probe() -> bool:
    return request.blueprint == "probes"


def _on_breach(limit) -> None:
    # Seconds until the window resets, rounded up so that retrying then succeeds.
    g.rate_limit_retry_after = max(1, math.ceil(limit.reset_at - time.time()))
    if _SOLVER_SCOPE in limit.key:
        g.rate_limit_code = "SOLVER_RATE_LIMITED"


def _drop_reset_seconds(response):
    # Flask-Limiter writes the seconds to its window's reset on every answer; under its
    # own name (see init_limits) so that it never overwrites a 503's Retry-After. Only a
    # 429 needs them, and problems.py sends them there as Retry-After.
    response.headers.pop(_RESET_SECONDS, None)
    return response


def _cap_streamed_body() -> None:
    """A chunked body longer than MAX_CONTENT_LENGTH is 413, like one with a Content-Length.

    werkzeug caps a stream the server terminates (gunicorn de-chunks and sets
    ``wsgi.input_terminated``) at the limit, but one ``read()`` then returns the first
    MAX_CONTENT_LENGTH bytes without complaint: a truncated body, answered as malformed
    JSON. Read it here, at most one byte past the limit, and keep it for the view.
    """
    environ = request.environ
    if "HTTP_TRANSFER_ENCODING" not in environ and environ.get("SERVER_PROTOCOL", "").startswith("HTTP/1."):
        return  # in HTTP/1.x a body without Transfer-Encoding has a Content-Length, which werkzeug enforces
    limit = current_app.config.get("MAX_CONTENT_LENGTH")
    if not limit or request.content_length is not None or "wsgi.input_terminated" not in environ:
        return
    raw, chunks, size = environ["wsgi.input"], [], 0
    while size <= limit:
        try:
            chunk = raw.read(limit + 1 - size)
        except Exception as error:
            # The server de-chunks as it reads, and raises its own errors for a malformed
            # chunked body (gunicorn's InvalidChunkSize, ChunkMissingTerminator, …): the
            # client's fault, 400, not a 500 of ours.
            raise BadRequest() from error
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    if size > limit:
        raise RequestEntityTooLarge()
    environ["wsgi.input"] = io.BytesIO(b"".join(chunks))


_STORE_TIMEOUTS = {"socket_timeout": 0.25, "socket_connect_timeout": 0.25}


def _storage_uri(uri: str | None) -> str:
    if not uri or uri.startswith("memory://"):
        return "solitaire-memory://"
    return uri


def init_limits(app) -> Limiter:
    """Bind a limiter to ``app`` (one per app, so that test apps never share counters).

    Here only the address limit, which every request pays for; :func:`limit_views`
    adds the others to the views they concern once those are registered.
    """
    app.before_request(_cap_streamed_body)  # the body limit holds with rate limits off too
    config = app.config
    limiter = Limiter(
        key_func=_address,
        application_limits=[ApplicationLimit(limit_value("address"), key_function=_address, scope="address",
                                             exempt_when=_is_probe)],
        # RATELIMIT_DEFAULT is ours (the address limit above); with no default limits of its
        # own, Flask-Limiter would read it as one, per endpoint. This one is empty.
        default_limits=[Limit("")],
        storage_uri=_storage_uri(config.get("RATELIMIT_STORAGE_URI")),
        # A shared store that stops answering must not stop the game: count in memory meanwhile.
        storage_options=_STORE_TIMEOUTS if not _shares_memory(config) else {},
        in_memory_fallback_enabled=not _shares_memory(config),
        swallow_errors=True,
        headers_enabled=True,
        header_name_mapping={HeaderNames.RETRY_AFTER: _RESET_SECONDS},
        on_breach=_on_breach,
        key_prefix=config.get("RATELIMIT_KEY_PREFIX") or "solitaire",
    )
    app.extensions["rate_limiter"] = limiter
    if not config.setdefault("RATELIMIT_ENABLED", True):  # as Flask-Limiter's init_app reads it
        limiter.init_app(app)
        return limiter  # no limits, no headers of them: none of the hooks below has work to do
    app.after_request(_drop_reset_seconds)  # registered first, so it runs after the limiter's
    limiter.init_app(app)
    # Registered after the limiter's hooks: the first runs after its check, the second before its headers.
    app.before_request(_remember_address_limit)
    app.after_request(_headers_of_the_address_limit_at_least)
    return limiter


_ADDRESS_LIMIT = "solitaire.address_rate_limit"  # per request: in its environ, not in g (app-context wide)


def _remember_address_limit() -> None:
    request.environ[_ADDRESS_LIMIT] = current_app.extensions["rate_limiter"].current_limit


def _headers_of_the_address_limit_at_least(response):
    # A view whose own limits were all exempt for this request (a create that runs no
    # solver) leaves Flask-Limiter with no limit to describe: it clears the address
    # limit's, and the answer would carry no X-RateLimit-* headers.
    limiter = current_app.extensions["rate_limiter"]
    address_limit = request.environ.get(_ADDRESS_LIMIT)
    if limiter.current_limit is None and address_limit is not None:
        limiter.context.view_rate_limit = address_limit
    return response


def limit_views(app) -> None:
    """Put the write limit on the action views and the solver limit on the solver requests' views.

    As limits of those views only (Flask-Limiter's route limits), not as default limits
    that every request would evaluate and find exempt: a leaderboard read then checks
    the address limit alone. A view marks itself with ``game_action = True`` or with
    ``solver_request``, a callable telling whether this request runs the solver. The
    views' limits are checked as they are called, after the request hooks (a body
    refused with 415 or 413 spends none of them).
    """
    limiter = app.extensions["rate_limiter"]
    if not limiter.enabled:
        return
    for endpoint, view in list(app.view_functions.items()):
        limits = []
        if getattr(view, "game_action", False):
            limits.append(limiter.shared_limit(limit_value("write"), scope="write", key_func=_token_key))
        solver_request = getattr(view, "solver_request", None)
        if solver_request is not None:
            limits += [limiter.shared_limit(limit_value("solver"), scope=_SOLVER_SCOPE + name, key_func=key,
                                            exempt_when=functools.partial(_not_true, solver_request))
                       for name, key in (("address", _address), ("token", _token_key))]
        for limit in limits:
            view = limit(view)
        app.view_functions[endpoint] = view


def _not_true(question) -> bool:
    return not question()

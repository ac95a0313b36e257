"""Rate limits (the ``limits`` library): per client address on every request, per token on actions.

- ``RATELIMIT_DEFAULT`` (e.g. "600 per minute"): all requests of one address, every
  endpoint counted together, and requests no route matches (a scanner's 404s); the health
  probes are exempt.
- ``RATELIMIT_WRITE`` (e.g. "300 per minute"): the actions of one bearer token, all
  action endpoints counted together (keyed by the token's hash, never the token).
- ``RATELIMIT_STORAGE_URI``: ``memory://`` by default, where one process counts alone
  (``RATELIMIT_PROCESSES`` of them enforce the limit divided by that many each); under
  gunicorn with several workers, gunicorn.conf.py turns ``memory://`` into
  ``solitaire-file://`` (:mod:`.file_counters`), one file every worker counts in, so the
  limit enforced and announced is the configured one. ``redis://…`` shares
  the counters between every worker and instance: the limits hold as configured.
  While that store is unreachable each process counts its share in memory, logs it,
  and tries the store again every :data:`STORE_RETRY_SECONDS`. A request is counted
  once, never twice: the one the store fails on (whose increment may have landed, as on
  a timeout) is not counted again in memory; it passes, and the next ones count there.
- ``SOLVER_RATELIMIT`` (e.g. "10 per minute"): the requests that may run the solver
  (hints, ``{"winnable": true}`` deals), per address and per bearer token, each key
  counted once for both endpoints; a breach is 429 ``SOLVER_RATE_LIMITED``.
- ``RATELIMIT_ENABLED`` false turns them all off.

Each named limit is one entry of :data:`LIMITS`; a new one is a setting, a line there and
the views it limits (:func:`limit_views`). A request pays only for the limits of its view.
Every window is a fixed window (limits' ``FixedWindowRateLimiter``).

Why not Flask-Limiter: it resolved every request's limits through its generic machinery
(decorated, blueprint, default, application and meta limits, exemption scopes), which
measured 37 % of the CPU of a leaderboard's 304; the three limits here are known
when the app is built (docs/PERFORMANCE.md).

A breach is 429 problem+json ``RATE_LIMITED`` with ``params.retry_after`` and the
same number of seconds in ``Retry-After``; every limited answer carries the
``X-RateLimit-Limit``/``-Remaining``/``-Reset`` headers of its view's own limit
(write, solver) if one applied, else of the address limit (of the window with the
fewest requests left, for a limit of several). An empty setting is no limit; a
malformed one stops the app at startup.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import math
import threading
import time
from dataclasses import dataclass

from flask import current_app, request
from limits import RateLimitItem, parse_many
from limits.storage import storage_from_string
from limits.strategies import FixedWindowRateLimiter
from werkzeug.exceptions import TooManyRequests

from ..telemetry import metrics
from . import file_counters  # noqa: F401  (registers solitaire-file:// with limits)
from .auth import presented_token
from .memory_counters import SweepingMemoryStorage

log = logging.getLogger(__name__)

#: how long a process counts in memory after its shared store failed, before trying it again
STORE_RETRY_SECONDS = 5.0


#: Setting name of each named limit.
LIMITS = {"address": "RATELIMIT_DEFAULT", "write": "RATELIMIT_WRITE", "solver": "SOLVER_RATELIMIT"}


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


@functools.lru_cache(maxsize=64)
def _items(limit: str) -> tuple[RateLimitItem, ...]:
    """The windows of a limit setting; an empty setting is no limit."""
    return tuple(parse_many(limit)) if limit.strip() else ()


def client_address() -> str:
    """The client's address as the limits see it (idempotency.py scopes anonymous keys by it)."""
    return request.remote_addr or "unknown"


def _token_key() -> str:
    """The bearer token's hash; requests without one share their address's bucket."""
    token = presented_token()
    if token is not None:
        # Salted: the stored token_hash is sha256(token); the limiter's store must not hold part of it.
        return "token:" + hashlib.sha256(b"ratelimit\0" + token.encode()).hexdigest()[:32]
    return "address:" + client_address()


@dataclass(frozen=True, slots=True)
class _Hit:
    """One window a request counted in: what its X-RateLimit-* headers describe."""

    counter: FixedWindowRateLimiter
    item: RateLimitItem
    identifiers: tuple[str, ...]


class RateLimited(TooManyRequests):
    """429: a limit of this request is spent (``Retry-After`` says for how long)."""

    def __init__(self, problem_code: str, retry_after: int) -> None:
        super().__init__(retry_after=retry_after)
        self.problem_code = problem_code


_HITS = "solitaire.rate_limits"  # per request: in its environ (g is shared by a test's app context)


class RateLimits:
    """The app's rate limits: counts each request in the windows of the limits it is subject to."""

    def __init__(self, config, clock=time.monotonic) -> None:
        for setting in LIMITS.values():  # a malformed setting stops the app here, not every request later
            try:
                _items(config[setting])
            except ValueError as error:
                raise ValueError(f"{setting}={config[setting]!r} is not a rate limit: {error}") from None
        uri = _storage_uri(config.get("RATELIMIT_STORAGE_URI"))
        self._in_memory = uri.startswith("solitaire-memory")
        # A shared store that stops answering must not stop the game: count in memory meanwhile.
        storage = storage_from_string(uri, **({} if self._in_memory else _STORE_TIMEOUTS))
        self._store = FixedWindowRateLimiter(storage)
        # In memory each process counts its share (RATELIMIT_PROCESSES): by design, or while the store fails.
        self._memory = self._store if self._in_memory else FixedWindowRateLimiter(SweepingMemoryStorage())
        self._clock = clock
        self._store_retry_at = 0.0  # on the clock; after a failure the store is left alone until then
        self._lock = threading.Lock()
        self._prefix = config.get("RATELIMIT_KEY_PREFIX") or "solitaire"

    def count(self, name: str, scope: str, key: str, cost: int = 1) -> tuple[_Hit, ...]:
        """Count this request in every window of the named limit; 429 when one is spent.

        ``cost``: what the request counts for (a batch of n actions: n), at most a whole
        window, so that a batch larger than a window's share is not refused forever.

        Returns the windows counted in (none for an empty setting); a failure of the
        limits themselves lets the request through, logged.
        """
        identifiers = (self._prefix, key, scope)
        if not self._in_memory and self._clock() >= self._store_retry_at:
            confirmed: list[_Hit] = []
            try:
                return self._count(self._store, name, identifiers, processes=1, cost=cost, confirmed=confirmed)
            except RateLimited:
                raise
            except Exception:  # the store's client raises its own errors (redis.ConnectionError, timeouts, …)
                metrics.LIMIT_STORAGE_ERRORS.inc()
                with self._lock:
                    if self._clock() >= self._store_retry_at:
                        log.warning("rate-limit store unreachable: counting in memory for %.0f s",
                                    STORE_RETRY_SECONDS)
                    self._store_retry_at = self._clock() + STORE_RETRY_SECONDS
                # Counted once, never twice: the store may have applied the increment it failed
                # to confirm (a timeout), so this request is not counted again in memory; it
                # passes with the windows the store confirmed. The next ones count in memory.
                return tuple(confirmed)
        try:
            return self._count(self._memory, name, identifiers, current_app.config.get("RATELIMIT_PROCESSES", 1),
                               cost)
        except RateLimited:
            raise
        except Exception:  # a bug of ours or of limits must not refuse the game
            log.exception("rate limit %s not counted", name)
            return ()

    def _count(self, counter: FixedWindowRateLimiter, name: str, identifiers: tuple[str, ...],
               processes: int, cost: int = 1, confirmed: list | None = None) -> tuple[_Hit, ...]:
        hits = [] if confirmed is None else confirmed
        for item in _items(process_share(current_app.config[LIMITS[name]], processes)):
            hit = _Hit(counter, item, identifiers)
            if not counter.hit(item, *identifiers, cost=max(1, min(cost, item.amount))):
                request.environ[_HITS] = (hit,)
                window = _window(hit)
                # From the reset the headers announce (a second past the window's end: Redis
                # rounds its TTL), so that retrying then succeeds.
                seconds = 1 if window is None else max(1, math.ceil(_reset_at(window) - time.time()))
                metrics.limit_refused(identifiers[2])
                raise RateLimited("SOLVER_RATE_LIMITED" if name == "solver" else "RATE_LIMITED", seconds)
            hits.append(hit)
        return tuple(hits)


def _reset_at(window) -> int:
    return int(window.reset_time + 1)


def _window(hit: _Hit):
    try:
        return hit.counter.get_window_stats(hit.item, *hit.identifiers)
    except Exception:  # the store failed since the hit: the answer goes without the headers
        metrics.LIMIT_STORAGE_ERRORS.inc()
        log.warning("rate-limit store unreachable while reading a window", exc_info=True)
        return None


def _check_address_limit() -> None:
    if request.blueprint == "probes":
        return
    request.environ[_HITS] = current_app.extensions["rate_limits"].count("address", "address", client_address())


def _limit_headers(response):
    """The X-RateLimit-* headers of the window with the fewest requests left among those described."""
    described = None
    for hit in request.environ.get(_HITS, ()):
        window = _window(hit)
        if window is not None and (described is None or window.remaining < described[1].remaining):
            described = hit, window
    if described is not None:
        hit, window = described
        response.headers["X-RateLimit-Limit"] = str(hit.item.amount)
        response.headers["X-RateLimit-Remaining"] = str(window.remaining)
        response.headers["X-RateLimit-Reset"] = str(_reset_at(window))
    return response


_STORE_TIMEOUTS = {"socket_timeout": 0.25, "socket_connect_timeout": 0.25}


def _storage_uri(uri: str | None) -> str:
    if not uri or uri.startswith("memory://"):
        return "solitaire-memory://"
    return uri


def init_rate_limits(app) -> None:
    """Count every request but the probes against its address's limit, and describe a limit in every answer.

    Here only the address limit, which every request pays for; :func:`limit_views`
    adds the others to the views they concern once those are registered.
    """
    if app.config.setdefault("RATELIMIT_ENABLED", True):  # off: no limits, no headers of them
        app.extensions["rate_limits"] = RateLimits(app.config)
        app.before_request(_check_address_limit)  # before anything that may refuse the request
        app.after_request(_limit_headers)


def limit_views(app) -> None:
    """Put the write limit on the action views and the solver limit on the solver requests' views.

    As limits of those views only, checked as they are called, after the request hooks
    (a body refused with 415 or 413 spends none of them): a leaderboard read counts in
    the address limit alone. A view marks itself with ``game_action = True`` (or
    ``write_request``, a callable telling whether this request plays actions) or with
    ``solver_request``, a callable telling whether this request runs the solver; an action
    view's ``action_cost``, if it has one, says how many actions the request counts for.
    """
    limits = app.extensions.get("rate_limits")
    if limits is None:
        return
    for endpoint, view in list(app.view_functions.items()):
        checks = []
        write_request = getattr(view, "write_request", None)
        if getattr(view, "game_action", False) or write_request is not None:
            checks.append(("write", "write", _token_key, write_request, getattr(view, "action_cost", None)))
        solver_request = getattr(view, "solver_request", None)
        if solver_request is not None:
            checks += [("solver", "solver-" + name, key, solver_request, None)
                       for name, key in (("address", client_address), ("token", _token_key))]
        if checks:
            app.view_functions[endpoint] = _limited(view, limits, tuple(checks))


def _limited(view, limits: RateLimits, checks: tuple):
    @functools.wraps(view)
    def limited_view(*args, **kwargs):
        counted = tuple(hit for name, scope, key, applies, cost in checks if applies is None or applies()
                        for hit in limits.count(name, scope, key(), 1 if cost is None else cost()))
        if counted:  # the view's own limits are what the answer describes
            request.environ[_HITS] = counted
        return view(*args, **kwargs)

    return limited_view

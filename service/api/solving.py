"""Hints and proven-winnable deals: the solver behind the HTTP layer, on a budget.

A search can take a good fraction of a second of CPU, so:

* it never runs under a game's write lock: the hint is computed for the version
  read, and only the hint counter is updated in a short transaction of its own;
* its budget is CPU time of the request's thread (``SOLVER_HINT_BUDGET_MS``) and
  positions (``SOLVER_HINT_MAX_NODES``), never wall time, so a loaded machine
  does not turn into longer searches;
* answers are cached by position (:mod:`service.solver.cache`): in Redis when
  ``REDIS_URL`` (or a ``redis://`` limiter store) names one, else per process;
* at most ``SOLVER_MAX_IN_FLIGHT`` searches run at once per worker; a request
  waits ``SOLVER_QUEUE_MS`` for a slot, then gets 503 ``SOLVER_BUSY``;
* hints and winnable deals have their own low rate limit (``SOLVER_RATELIMIT``,
  see rate_limits.py);
* a winnable deal comes from the pool (:mod:`service.store.winnable_deals`), refilled in
  the background when it runs low; only an empty pool makes a request search.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time

from flask import Flask, current_app, request

from ..engine import GameCode
from ..solver import winnable_deal
from ..solver.cache import cache_for
from ..solver.hints import SolverBusy, SolverGate, cached_hint
from ..store import winnable_deals
from .problems import ApiProblem

log = logging.getLogger(__name__)


@contextlib.contextmanager
def _slot_or_503():
    """A search that found every slot taken answers 503 ``SOLVER_BUSY``."""
    try:
        yield
    except SolverBusy:
        raise ApiProblem("SOLVER_BUSY", retry_after=1, headers={"Retry-After": "1"}) from None


def _solver(app: Flask) -> dict:
    """This app's gate and cache, made on first use (after gunicorn's fork: no shared sockets)."""
    found = app.extensions.get("solver")
    if found is None:
        config = app.config
        url = config.get("REDIS_URL") or config.get("RATELIMIT_STORAGE_URI")
        found = app.extensions.setdefault("solver", {
            "gate": SolverGate(config["SOLVER_MAX_IN_FLIGHT"], config["SOLVER_QUEUE_MS"] / 1000),
            "cache": cache_for(url, config["SOLVER_CACHE_TTL_S"]),
            "refilling": threading.Lock(),
        })
    return found


# -- winnable deals --------------------------------------------------------------------


def proven_winnable_code(draw: int) -> GameCode:
    """A deal the solver has proven winnable: from the pool, else searched now (503 when none is found in time)."""
    app = current_app._get_current_object()
    code = winnable_deals.take(draw)
    if winnable_deals.size(draw) < app.config["WINNABLE_POOL_LOW"]:
        refill_in_background(app, draw)
    if code is not None:
        return code
    with _slot_or_503(), _solver(app)["gate"]:
        found = winnable_deal(draw, deadline_s=app.config["WINNABLE_DEAL_DEADLINE_MS"] / 1000,
                              memory_bytes=app.config["SOLVER_MEMORY_MB"] << 20, clock=time.thread_time)
    if found is None:
        raise ApiProblem("WINNABLE_DEAL_TIMEOUT", draw=draw, headers={"Retry-After": "1"})
    return found[0]


def refill_in_background(app: Flask, draw: int) -> threading.Thread | None:
    """Start one low-priority thread per process that tops the pool up to WINNABLE_POOL_TARGET.

    None when one already runs, or when refills are off (``WINNABLE_POOL_REFILL``,
    and always in tests, whose databases vanish under a thread).
    """
    if not app.config["WINNABLE_POOL_REFILL"] or app.testing:
        return None
    running = _solver(app)["refilling"]
    if not running.acquire(blocking=False):
        return None
    thread = threading.Thread(target=_refill, args=(app, draw, running), name=f"pool-refill-d{draw}", daemon=True)
    thread.start()
    return thread


def _refill(app: Flask, draw: int, running: threading.Lock) -> None:
    try:
        with contextlib.suppress(AttributeError, OSError):  # Linux: a thread has its own nice value
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 19)
        with app.app_context():
            added = winnable_deals.fill(draw, app.config["WINNABLE_POOL_TARGET"], deadline_s=120.0)
        log.info("winnable pool: %d draw-%d deals added", added, draw)
    except Exception:
        log.exception("winnable pool refill failed")
    finally:
        running.release()


def _is_winnable_request() -> bool:
    body = request.get_json(silent=True)
    return isinstance(body, dict) and body.get("winnable") is True


# -- hints ------------------------------------------------------------------------------


def solve_hint(state: dict) -> dict:
    """The hint for a stored game state, within this app's budget (:func:`service.solver.hints.cached_hint`)."""
    config = current_app.config
    solver = _solver(current_app._get_current_object())
    with _slot_or_503():
        return cached_hint(state, cache=solver["cache"], gate=solver["gate"],
                           budget_ms=config["SOLVER_HINT_BUDGET_MS"], max_nodes=config["SOLVER_HINT_MAX_NODES"],
                           memory_bytes=config["SOLVER_MEMORY_MB"] << 20)


def mark_solver_requests(app: Flask) -> None:
    """Give hints and winnable deals their own rate limit (rate_limits.py reads ``solver_request``)."""
    app.view_functions["games.game_hint"].solver_request = lambda: True
    app.view_functions["games.Games"].solver_request = _is_winnable_request


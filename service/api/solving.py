"""The solver in the app: one :class:`~service.usecases.solving.Solving` per process, its pool refills, its limit.

* :func:`solving` gives this app's, from the settings (its gate and cache made once per
  process, after gunicorn's fork: no shared sockets): ``SOLVER_MAX_IN_FLIGHT`` searches
  at once, a wait of ``SOLVER_QUEUE_MS`` for a slot, budgets of ``SOLVER_HINT_BUDGET_MS``
  of CPU and ``SOLVER_HINT_MAX_NODES`` positions, ``SOLVER_MEMORY_MB`` of tables; answers
  cached in Redis when ``REDIS_URL`` (or a ``redis://`` limiter store) names one, else
  per process;
* :func:`refill_in_background` tops the pool of winnable deals up in a low-priority thread;
* hints and winnable deals have their own low rate limit (``SOLVER_RATELIMIT``, see
  rate_limits.py): :func:`mark_solver_requests`.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
from functools import partial

from flask import Flask, current_app, request

from ..solver.cache import cache_for
from ..solver.hints import SolverGate
from ..store import winnable_deals
from ..telemetry import metrics, timing
from ..usecases.solving import Solving

log = logging.getLogger(__name__)


def solving() -> Solving:
    """This app's solver: its process's gate and cache, the budgets the settings give now."""
    return app_solving(current_app._get_current_object())


def app_solving(app: Flask) -> Solving:
    config = app.config
    gate, cache = _gate_and_cache(app)
    return Solving(gate=gate, cache=cache, hint_budget_ms=config["SOLVER_HINT_BUDGET_MS"],
                   hint_max_nodes=config["SOLVER_HINT_MAX_NODES"], memory_bytes=config["SOLVER_MEMORY_MB"] << 20,
                   winnable_deadline_s=config["WINNABLE_DEAL_DEADLINE_MS"] / 1000,
                   pool_low=config["WINNABLE_POOL_LOW"], refill=partial(refill_in_background, app))


def solver_gate(app: Flask) -> SolverGate:
    """This process's search slots (made now if no search ran yet: readiness reports them all free)."""
    return _gate_and_cache(app)[0]


def _gate_and_cache(app: Flask) -> tuple[SolverGate, object]:
    """This app's search slots and answer cache, made on first use (after gunicorn's fork: no shared sockets)."""
    found = app.extensions.get("solver")
    if found is None:
        config = app.config
        url = config.get("REDIS_URL") or config.get("RATELIMIT_STORAGE_URI")
        found = app.extensions.setdefault("solver", (
            SolverGate(config["SOLVER_MAX_IN_FLIGHT"], config["SOLVER_QUEUE_MS"] / 1000),
            cache_for(url, config["SOLVER_CACHE_TTL_S"])))
    return found


def refill_in_background(app: Flask, draw: int) -> threading.Thread | None:
    """Start one low-priority thread per process that tops the pool up to WINNABLE_POOL_TARGET.

    None when one already runs, or when refills are off (``WINNABLE_POOL_REFILL``,
    and always in tests, whose databases vanish under a thread).
    """
    if not app.config["WINNABLE_POOL_REFILL"] or app.testing:
        return None
    running = app.extensions.setdefault("solver_refilling", threading.Lock())
    if not running.acquire(blocking=False):
        return None
    thread = threading.Thread(target=_refill, args=(app, draw, running), name=f"pool-refill-d{draw}", daemon=True)
    thread.start()
    return thread


def _refill(app: Flask, draw: int, running: threading.Lock) -> None:
    try:
        with contextlib.suppress(AttributeError, OSError):  # Linux: a thread has its own nice value
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 19)
        with app.app_context(), timing.solver_time() as measured:
            added = winnable_deals.fill(draw, app.config["WINNABLE_POOL_TARGET"], deadline_s=120.0)
        metrics.solver_ran("pool_refill", measured[0])
        log.info("winnable pool: %d draw-%d deals added", added, draw)
    except Exception:
        log.exception("winnable pool refill failed")
    finally:
        running.release()


def _is_winnable_request() -> bool:
    body = request.get_json(silent=True)
    return isinstance(body, dict) and body.get("winnable") is True


def mark_solver_requests(app: Flask) -> None:
    """Give hints and winnable deals their own rate limit (rate_limits.py reads ``solver_request``)."""
    app.view_functions["games.game_hint"].solver_request = lambda: True
    app.view_functions["games.Games"].solver_request = _is_winnable_request

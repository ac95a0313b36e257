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
  see limits.py);
* a winnable deal comes from the pool (:mod:`service.store.pool`), refilled in
  the background when it runs low; only an empty pool makes a request search.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time

from flask import Flask, current_app, request

from ..engine import Game, GameCode
from ..solver import hint, winnable_deal
from ..solver.cache import cache_for, position_key
from ..store import end_read, games, pool
from .auth import require_owner
from .games import blp, get_game
from .present import json_response
from .problems import ApiProblem
from .schemas import HintSchema

log = logging.getLogger(__name__)


def _busy() -> ApiProblem:
    return ApiProblem("SOLVER_BUSY", retry_after=1, headers={"Retry-After": "1"})


class SolverGate:
    """At most ``slots`` searches at once in this process; the rest wait up to ``wait_s``, then 503."""

    def __init__(self, slots: int, wait_s: float) -> None:
        self._slots = threading.BoundedSemaphore(max(1, slots))
        self._wait_s = wait_s

    def __enter__(self) -> None:
        if not self._slots.acquire(timeout=self._wait_s):
            raise _busy()

    def __exit__(self, *exc) -> None:
        self._slots.release()


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
    code = pool.take(draw)
    if pool.size(draw) < app.config["WINNABLE_POOL_LOW"]:
        refill_in_background(app, draw)
    if code is not None:
        return code
    with _solver(app)["gate"]:
        found = winnable_deal(draw, deadline_s=app.config["WINNABLE_DEAL_DEADLINE_MS"] / 1000,
                              clock=time.thread_time)
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
            added = pool.fill(draw, app.config["WINNABLE_POOL_TARGET"], deadline_s=120.0)
        log.info("winnable pool: %d draw-%d deals added", added, draw)
    except Exception:
        log.exception("winnable pool refill failed")
    finally:
        running.release()


def _is_winnable_request() -> bool:
    body = request.get_json(silent=True)
    return isinstance(body, dict) and body.get("winnable") is True


# -- hints ------------------------------------------------------------------------------


def _solve_hint(state: dict) -> dict:
    """The hint for a position: cached by position, else searched within the budget and cached."""
    app = current_app._get_current_object()
    config = app.config
    budget, nodes = config["SOLVER_HINT_BUDGET_MS"], config["SOLVER_HINT_MAX_NODES"]
    solver = _solver(app)
    tag = f"{budget}:{nodes}"
    key = position_key(state, tag)
    answer = solver["cache"].get(key)
    if answer is not None:
        return {**answer, "cached": True}
    with solver["gate"]:
        answer = solver["cache"].get(key)  # computed while this request waited for the gate?
        if answer is not None:
            return {**answer, "cached": True}
        solution = hint(Game.from_state(state), budget_ms=budget, max_nodes=nodes, clock=time.thread_time)
    first = solution.line[0] if solution.line else solution.guess  # a guess only with "unknown"
    answer = _answer(solution.verdict, first, len(solution.line), solution.nodes, solution.ms)
    answers = {key: answer}
    if solution.verdict == "winnable":
        # Every position along the line is proven too: a player who follows the hints finds
        # each next one cached instead of searching again.
        game = Game.from_state(state)
        for index, action in enumerate(solution.line[:-1]):
            game.apply(action)
            following = solution.line[index + 1]
            answers[position_key(game.to_state(), tag)] = _answer(
                "winnable", following, len(solution.line) - index - 1, solution.nodes, solution.ms)
    solver["cache"].put_many(answers)
    return {**answer, "cached": False}


def _answer(verdict: str, action, line_length: int, nodes: int, ms: float) -> dict:
    return {
        "verdict": verdict,
        "proven": verdict != "unknown",
        "action": action.to_json() if action else None,
        "notation": str(action) if action else None,
        "line_length": line_length,
        "nodes": nodes,
        "ms": round(ms, 1),
    }


@blp.route("/<game_id>/hint")
@blp.response(200, HintSchema)
@blp.doc(operationId="getHint", security=[{"bearer": []}])
@blp.problem(401, "AUTH_REQUIRED: no bearer token.")
@blp.problem(403, "FORBIDDEN: the token is not the owner's.")
@blp.problem(404, "GAME_NOT_FOUND")
@blp.problem(409, "GAME_FINISHED: a won game needs no hint.")
@blp.problem(429, "SOLVER_RATE_LIMITED: too many hints from this address or token (with `Retry-After`).")
@blp.problem(503, "SOLVER_BUSY: every search slot is taken (with `Retry-After`).")
def game_hint(game_id):
    """Hint the next action of a winning line

    Owner only. `verdict` is `winnable` (with `action`, the first step of a complete
    winning line from the current position), `unwinnable` (the search proved no line
    exists) or `unknown` (the search ran out of budget). With `unknown`, `action` is
    still the best first action the search found, with `proven: false`; `proven` is
    true when the verdict is a proof. Answers are cached by position, so asking again
    (or after an undo, or in another game of the same deal) costs no search: `cached`.
    Each request counts in the game's `hints`.
    """
    row = get_game(game_id)
    require_owner(row.token_hash)
    if row.status == "won":
        raise ApiProblem("GAME_FINISHED")
    version, state = row.version, row.state
    end_read()  # no transaction stays open during the search
    answer = _solve_hint(state)
    hints = games.count_hint(game_id)
    return json_response({"game": game_id, "version": version, **answer, "hints": hints})



def mark_solver_requests(app: Flask) -> None:
    """Give hints and winnable deals their own rate limit (limits.py reads ``solver_request``)."""
    app.view_functions["games.game_hint"].solver_request = lambda: True
    app.view_functions["games.Games"].solver_request = _is_winnable_request


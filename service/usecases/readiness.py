"""Readiness, dependency by dependency: the database, Redis, the solver and its pool of winnable deals.

Only the database decides: without it nothing works (503). Without Redis the service goes on
(the limits count in memory, the solver caches per process): ``degraded``, still 200, so an
orchestrator keeps the instance while the operator sees which dependency is down. The solver
reports its free search slots and the winnable deals waiting per draw mode.
"""

from __future__ import annotations

from collections.abc import Callable

from ..engine.deal import DRAW_MODES
from ..solver.hints import SolverGate
from ..store import ping, winnable_deals
from .errors import ServiceError


def readiness(redis: Callable[[], bool] | None, gate: SolverGate) -> dict:
    """Each dependency by name with its state; 503 ``SERVICE_UNAVAILABLE`` when the database does not answer.

    ``redis``: a ping of the configured Redis (None: none configured); ``gate``: this process's
    solver slots.
    """
    if not ping():
        raise ServiceError("SERVICE_UNAVAILABLE")
    redis_state = "not_configured" if redis is None else "ok" if redis() else "down"
    slots, free = gate.slots, gate.free()
    pool = {str(draw): winnable_deals.size(draw) for draw in DRAW_MODES}
    solver = {"status": "busy" if free == 0 else "ok", "slots": slots, "free_slots": free, "winnable_pool": pool}
    return {
        "status": "degraded" if redis_state == "down" else "ok",
        "database": "ok",
        "checks": {"database": {"status": "ok"}, "redis": {"status": redis_state}, "solver": solver},
    }

"""Time one request spends in the database and in the solver, per thread (gthread: one request a thread).

No Flask here: the store and the solver's callers add to it, the request's log line and
its metrics read it. :func:`reset` at the start of every request.
"""

from __future__ import annotations

import threading
import time
from contextlib import contextmanager

_local = threading.local()


def reset() -> None:
    _local.db = 0.0
    _local.solver = 0.0


def add_db(seconds: float) -> None:
    _local.db = getattr(_local, "db", 0.0) + seconds


def add_solver(seconds: float) -> None:
    _local.solver = getattr(_local, "solver", 0.0) + seconds


def spent() -> tuple[float, float]:
    """Seconds in the database and in the solver since :func:`reset`."""
    return getattr(_local, "db", 0.0), getattr(_local, "solver", 0.0)


@contextmanager
def solver_time():
    """Count the block's wall time as the solver's; yields a list that gets the seconds."""
    started = time.perf_counter()
    measured: list[float] = []
    try:
        yield measured
    finally:
        seconds = time.perf_counter() - started
        add_solver(seconds)
        measured.append(seconds)

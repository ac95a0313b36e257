"""The database seen from the metrics and the request's log line: time in statements, the pool's use.

SQLAlchemy's cursor events time each statement (added to the request's ``db_ms``); the
pool's checkout and checkin events set the pool gauges of this process (summed over the
live workers by ``/metrics``).
"""

from __future__ import annotations

import time

from sqlalchemy import event
from sqlalchemy.engine import Engine

from . import metrics, timing

_STARTS = "solitaire.statement_started"


def instrument_engine(engine: Engine, *, pool_metrics: bool = True) -> None:
    """Time ``engine``'s statements for the request's log line; with ``pool_metrics`` its pool's gauges."""
    if getattr(engine, "_solitaire_instrumented", False):
        return
    engine._solitaire_instrumented = True

    @event.listens_for(engine, "before_cursor_execute")
    def _before(connection, cursor, statement, parameters, context, executemany) -> None:
        connection.info.setdefault(_STARTS, []).append(time.perf_counter())

    @event.listens_for(engine, "after_cursor_execute")
    def _after(connection, cursor, statement, parameters, context, executemany) -> None:
        starts = connection.info.get(_STARTS)
        if starts:
            timing.add_db(time.perf_counter() - starts.pop())

    @event.listens_for(engine, "handle_error")
    def _failed(context) -> None:
        connection = context.connection
        starts = connection.info.get(_STARTS) if connection is not None else None
        if starts:
            timing.add_db(time.perf_counter() - starts.pop())

    if not pool_metrics:
        return
    pool = engine.pool

    def _gauges(*_args) -> None:
        for gauge, reading in ((metrics.POOL_CHECKED_OUT, "checkedout"), (metrics.POOL_OVERFLOW, "overflow"),
                               (metrics.POOL_SIZE, "size")):
            read = getattr(pool, reading, None)
            if read is not None:
                gauge.set(max(0, read()))

    event.listen(pool, "checkout", _gauges)
    event.listen(pool, "checkin", _gauges)
    _gauges()

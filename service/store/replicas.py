"""Reads that may be a little stale, on a PostgreSQL streaming replica; everything else on the primary.

``DATABASE_REPLICA_URLS`` (a comma-separated list; empty: one database, as without it)
names the replicas. The reads routed here are the boards (leaderboards, per-deal and daily
boards) and the feed's pages: :func:`stale_tolerant_engine` answers a replica whose
replay lag is at most ``REPLICA_MAX_LAG_SECONDS`` (default 2), else the primary. Every
write and everything about a game in play use ``db.engine`` (the primary) and never come
here.

The lag is measured on the replica every :data:`CHECK_SECONDS` at most (per process):
0 while it has replayed all it received, else the age of the last transaction it
replayed (``pg_last_xact_replay_timestamp``). A replica that fails the check, or a read,
is skipped until the next check. Round robin over the healthy ones.
"""

from __future__ import annotations

import itertools
import logging
import threading
import time

import sqlalchemy as sa
from sqlalchemy.engine import Engine

log = logging.getLogger(__name__)

#: How often (seconds) a process measures each replica's lag.
CHECK_SECONDS = 1.0
LAG = sa.text(
    "SELECT CASE WHEN NOT pg_is_in_recovery() THEN 0 "
    "WHEN pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn() THEN 0 "
    "ELSE COALESCE(EXTRACT(EPOCH FROM now() - pg_last_xact_replay_timestamp()), 1e9) END")


class Replica:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.healthy = False
        self.checked_at = float("-inf")
        self.lag: float | None = None
        self.reads = 0  # reads routed here (tests and benches)


class Replicas:
    """The replicas of one app and its lag setting; :meth:`choose` picks the engine of a read that may be stale."""

    def __init__(self, urls: list[str], max_lag: float, engine_options: dict, clock=time.monotonic) -> None:
        self.max_lag = max_lag
        self.replicas = [Replica(sa.create_engine(url, **engine_options)) for url in urls]
        self._next = itertools.cycle(range(len(self.replicas))) if self.replicas else None
        self._clock = clock
        self._lock = threading.Lock()
        self.primary_reads = 0  # stale-tolerant reads the primary served (no healthy replica)

    def _check(self, replica: Replica) -> None:
        try:
            with replica.engine.connect() as connection:
                replica.lag = float(connection.execute(LAG).scalar_one())
            healthy = replica.lag <= self.max_lag
        except Exception:  # down, refusing, or in the middle of a restart
            replica.lag, healthy = None, False
        if healthy != replica.healthy:
            log.warning("replica %s: %s (lag %s s)", replica.engine.url.render_as_string(hide_password=True),
                        "serving" if healthy else "skipped", replica.lag)
        replica.healthy, replica.checked_at = healthy, self._clock()

    def choose(self) -> Replica | None:
        """A replica fit to serve a stale-tolerant read now, or None (the primary serves)."""
        if not self.replicas:
            return None
        for _ in range(len(self.replicas)):
            with self._lock:
                replica = self.replicas[next(self._next)]
                due = self._clock() - replica.checked_at >= CHECK_SECONDS
            if due:
                self._check(replica)
            if replica.healthy:
                return replica
        return None

    def failed(self, replica: Replica) -> None:
        """A read on ``replica`` failed: skip it until its next check."""
        replica.healthy, replica.checked_at = False, self._clock()

    def dispose(self) -> None:
        for replica in self.replicas:
            replica.engine.dispose()


#: The replicas of each primary engine (one per app): no Flask here, the engine is the key.
_OF_PRIMARY: dict[Engine, Replicas] = {}


def attach(primary: Engine, replicas: Replicas) -> None:
    _OF_PRIMARY[primary] = replicas


def of(primary: Engine) -> Replicas | None:
    return _OF_PRIMARY.get(primary)


def on_a_replica(primary: Engine, work):
    """``work(connection)`` on a replica fit to serve it: (True, its result); (False, None) when none is."""
    replicas = _OF_PRIMARY.get(primary)
    replica = replicas.choose() if replicas is not None else None
    if replica is None:
        if replicas is not None:
            replicas.primary_reads += 1
        return False, None
    try:
        with replica.engine.connect() as connection:
            result = work(connection)
    except sa.exc.OperationalError:  # went down since its check: the primary serves this one
        log.warning("replica read failed: the primary serves it", exc_info=True)
        replicas.failed(replica)
        replicas.primary_reads += 1
        return False, None
    replica.reads += 1
    return True, result

"""Settings from the environment, with defaults that serve a local SQLite file."""

from __future__ import annotations

import os


def _int(name: str, default: int) -> int:
    return int(os.environ.get(name, default))


def from_environment() -> dict:
    """The app's settings; every one can be overridden by an environment variable."""
    return {
        # None means: an SQLite file in the app's instance folder.
        "DATABASE_URL": os.environ.get("DATABASE_URL"),
        "MAX_CONTENT_LENGTH": _int("MAX_BODY_BYTES", 16 * 1024),
        # CPU milliseconds of the request's thread, not wall time: a loaded machine must not
        # turn into longer searches.
        "SOLVER_HINT_BUDGET_MS": _int("SOLVER_HINT_BUDGET_MS", 300),
        # Bounds a hint's memory whatever its time budget (1.2M positions: about 35 MB of tables).
        "SOLVER_HINT_MAX_NODES": _int("SOLVER_HINT_MAX_NODES", 1_200_000),
        # CPU milliseconds for a winnable deal searched on request (only when the pool is empty).
        "WINNABLE_DEAL_DEADLINE_MS": _int("WINNABLE_DEAL_DEADLINE_MS", 1000),
        # Searches running at once per worker process; a request waits SOLVER_QUEUE_MS for a
        # free slot, then gets 503 SOLVER_BUSY.
        "SOLVER_MAX_IN_FLIGHT": _int("SOLVER_MAX_IN_FLIGHT", 1),
        "SOLVER_QUEUE_MS": _int("SOLVER_QUEUE_MS", 250),
        # Where solver answers are cached by position: a redis:// URL shares them across workers
        # and instances; unset, the rate limiter's store if it is Redis, else per process.
        "REDIS_URL": os.environ.get("REDIS_URL"),
        "SOLVER_CACHE_TTL_S": _int("SOLVER_CACHE_TTL_S", 7 * 24 * 3600),
        # Proven-winnable deals kept ready per draw mode: refilled in the background below LOW.
        "WINNABLE_POOL_TARGET": _int("WINNABLE_POOL_TARGET", 200),
        "WINNABLE_POOL_LOW": _int("WINNABLE_POOL_LOW", 50),
        "WINNABLE_POOL_REFILL": os.environ.get("WINNABLE_POOL_REFILL", "1") not in ("0", "false", "no"),
        # Retention (flask --app service purge): unfinished anonymous games idle this long go,
        # and stored Idempotency-Key answers after IDEMPOTENCY_RETENTION_HOURS.
        "RETENTION_DAYS": _int("RETENTION_DAYS", 30),
        "IDEMPOTENCY_RETENTION_HOURS": _int("IDEMPOTENCY_RETENTION_HOURS", 24),
        "RATELIMIT_ENABLED": os.environ.get("RATELIMIT_ENABLED", "1") not in ("0", "false", "no"),
        "RATELIMIT_STORAGE_URI": os.environ.get("RATELIMIT_STORAGE_URI", "memory://"),
        # Generous defaults: no player (nor a client's test suite on one address) comes
        # near them, a runaway bot does; tighten per deployment.
        "RATELIMIT_DEFAULT": os.environ.get("RATELIMIT_DEFAULT", "6000 per minute"),
        "RATELIMIT_WRITE": os.environ.get("RATELIMIT_WRITE", "1200 per minute"),
        # Requests that may run the solver (hints, winnable deals), per address and per token.
        "SOLVER_RATELIMIT": os.environ.get("SOLVER_RATELIMIT", "20 per minute"),
    }

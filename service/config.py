"""Settings from the environment, with defaults that serve a local SQLite file."""

from __future__ import annotations

import os


def _int(name: str, default: int) -> int:
    return int(os.environ.get(name, default))


def _list(name: str, default: str = "") -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


def from_environment() -> dict:
    """The app's settings; every one can be overridden by an environment variable."""
    return {
        # None means: an SQLite file in the app's instance folder.
        "DATABASE_URL": os.environ.get("DATABASE_URL"),
        # PostgreSQL streaming replicas for the reads that may be a little stale (boards, feed pages),
        # skipped while their replay lags more than REPLICA_MAX_LAG_SECONDS: service/store/replicas.py.
        "DATABASE_REPLICA_URLS": _list("DATABASE_REPLICA_URLS"),
        "REPLICA_MAX_LAG_SECONDS": float(os.environ.get("REPLICA_MAX_LAG_SECONDS", "2")),
        "MAX_CONTENT_LENGTH": _int("MAX_BODY_BYTES", 16 * 1024),
        # CPU milliseconds of the request's thread, not wall time: a loaded machine must not
        # turn into longer searches.
        "SOLVER_HINT_BUDGET_MS": _int("SOLVER_HINT_BUDGET_MS", 300),
        # Positions a hint may meet. Measured at this cap (python bench/solver --hint-memory 3):
        # up to 7 MiB of tables (max RSS +1-7 MiB) in draw 1, 9-13 MiB (RSS +6-14 MiB) in draw 3.
        "SOLVER_HINT_MAX_NODES": _int("SOLVER_HINT_MAX_NODES", 1_200_000),
        # Bytes (MiB) the tables of one solver run (hint or winnable deal) may hold, all its
        # searches together: past it the search stops, "unknown" with reason "memory".
        "SOLVER_MEMORY_MB": _int("SOLVER_MEMORY_MB", 96),
        # The feed ends this long before now, so that a win stamped earlier but committed
        # later is never skipped by a cursor (see service/store/feed.py).
        "FEED_SETTLE_MS": _int("FEED_SETTLE_MS", 2000),
        # An NDJSON stream of the feed ends (with its resume line) after this long: a slow reader
        # holds an app thread and a database snapshot no longer.
        "FEED_STREAM_SECONDS": _int("FEED_STREAM_SECONDS", 30),
        # PostgreSQL: each process remembers the boards' ETags until a win is signalled
        # (service/store/board_tags.py), so that a 304 runs no query. 0 reads the tag every time.
        "BOARD_TAG_CACHE": os.environ.get("BOARD_TAG_CACHE", "1") not in ("0", "false", "no"),
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
        # With memory:// each process counts alone; this many processes share the server's
        # limit, so each enforces its share of it (gunicorn.conf.py sets it to its workers).
        "RATELIMIT_PROCESSES": _int("RATELIMIT_PROCESSES", 1),
        # Prefix of the counters' keys: services sharing one Redis keep apart by it.
        "RATELIMIT_KEY_PREFIX": os.environ.get("RATELIMIT_KEY_PREFIX", "solitaire"),
        # How many proxies in front of the app append to X-Forwarded-For (nginx: 1). Zero trusts
        # no header: the client address is the socket's peer.
        "PROXY_HOPS": _int("PROXY_HOPS", 0),
        # Origins (scheme://host[:port]) whose pages may call /v1 from a browser; "*" for any.
        # Empty (the default): only the service's own pages, which need no CORS.
        "CORS_ORIGINS": _list("CORS_ORIGINS"),
        "CORS_MAX_AGE": _int("CORS_MAX_AGE", 600),
        # Cache-Control max-age of public reads (lists, leaderboards, rules); 0 = revalidate.
        "PUBLIC_CACHE_SECONDS": _int("PUBLIC_CACHE_SECONDS", 5),
        # Public game reads change with every action: by default a cache revalidates (ETag).
        "GAME_CACHE_SECONDS": _int("GAME_CACHE_SECONDS", 0),
        # Requests that may run the solver (hints, winnable deals), per address and per token.
        "SOLVER_RATELIMIT": os.environ.get("SOLVER_RATELIMIT", "20 per minute"),
        **_telemetry(),
    }


def _on(name: str, default: str) -> bool:
    return os.environ.get(name, default) not in ("0", "false", "no", "off")


def _telemetry() -> dict:
    """What operators see (service/telemetry, docs/OPERATIONS.md)."""
    log_format = "json" if os.environ.get("LOG_FORMAT", "text").lower() == "json" else "text"
    return {
        # json: one JSON object a line (the stack's); text: readable lines for `make serve`.
        "LOG_FORMAT": log_format,
        "LOG_LEVEL": os.environ.get("LOG_LEVEL"),  # default INFO with json, WARNING with text
        # One line per request (operation, route, status, times, client): on by default with json.
        "LOG_REQUESTS": _on("LOG_REQUESTS", "1" if log_format == "json" else "0"),
        # X-Request-ID accepted or made, sent back, in every log line and problem document.
        "REQUEST_IDS": _on("REQUEST_IDS", "1"),
        # /metrics and the counting behind it.
        "METRICS_ENABLED": _on("METRICS_ENABLED", "1"),
        # Traces go to this OTLP/HTTP collector when it is set (and the `traces` extra is installed).
        "OTEL_EXPORTER_OTLP_ENDPOINT": os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT"),
    }

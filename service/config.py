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
        "SOLVER_HINT_BUDGET_MS": _int("SOLVER_HINT_BUDGET_MS", 2000),
        # Bounds a hint's memory whatever its time budget (1.2M positions: about 35 MB of tables).
        "SOLVER_HINT_MAX_NODES": _int("SOLVER_HINT_MAX_NODES", 1_200_000),
        "WINNABLE_DEAL_DEADLINE_MS": _int("WINNABLE_DEAL_DEADLINE_MS", 5000),
        # The feed ends this long before now, so that a win stamped earlier but committed
        # later is never skipped by a cursor (see service/store/feed.py).
        "FEED_SETTLE_MS": _int("FEED_SETTLE_MS", 2000),
        # Cache-Control max-age (seconds) of the leaderboards and the feed's pages.
        "BOARD_MAX_AGE": _int("BOARD_MAX_AGE", 5),
        "RATELIMIT_ENABLED": os.environ.get("RATELIMIT_ENABLED", "1") not in ("0", "false", "no"),
        "RATELIMIT_STORAGE_URI": os.environ.get("RATELIMIT_STORAGE_URI", "memory://"),
        # Generous defaults: no player (nor a client's test suite on one address) comes
        # near them, a runaway bot does; tighten per deployment.
        "RATELIMIT_DEFAULT": os.environ.get("RATELIMIT_DEFAULT", "6000 per minute"),
        "RATELIMIT_WRITE": os.environ.get("RATELIMIT_WRITE", "1200 per minute"),
    }

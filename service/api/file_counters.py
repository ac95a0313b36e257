"""The rate limits' counters in one SQLite file that every worker of one server shares (``solitaire-file://``).

With ``memory://`` each gunicorn worker counted alone, so it enforced (and announced in
``X-RateLimit-Limit``) its share of each limit: 3,000 reads a minute where the README
says 6,000. Counted in one file on the machine's own disk, every worker sees the same
windows: the limit enforced and announced is the configured one, as with Redis in the
stack. gunicorn.conf.py picks a file in a directory of its own (the master's) for the
default ``memory://``; the file is scratch, removed when the master exits.

Each window is a row (key, count, expiry), incremented in one statement (an upsert with
``RETURNING``, SQLite ≥ 3.35): a window whose expiry passed starts again at the amount.
Journal WAL, synchronous off: a counter lost in a machine crash is a window forgiven.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from urllib.parse import urlparse

from limits.storage import Storage

_SCHEMA = "CREATE TABLE IF NOT EXISTS counters (key TEXT PRIMARY KEY, count INTEGER NOT NULL, expiry REAL NOT NULL)"
_INCR = ("INSERT INTO counters (key, count, expiry) VALUES (:key, :amount, :now + :window) "
         "ON CONFLICT (key) DO UPDATE SET "
         "count = CASE WHEN expiry <= :now THEN :amount ELSE count + :amount END, "
         "expiry = CASE WHEN expiry <= :now THEN :now + :window ELSE expiry END "
         "RETURNING count")
#: Expired rows are deleted at most this often (seconds), by whichever hit comes first.
SWEEP_SECONDS = 10.0


class FileStorage(Storage):
    """``solitaire-file:///path/counters.db``: fixed-window counters shared by every process on the file."""

    STORAGE_SCHEME = ["solitaire-file"]  # registered with limits by its metaclass

    def __init__(self, uri: str, wrap_exceptions: bool = False, **options) -> None:
        self.path = urlparse(uri).path
        self._local = threading.local()
        self._next_sweep = 0.0
        super().__init__(uri, wrap_exceptions=wrap_exceptions, **options)
        self._connection().execute(_SCHEMA)

    @property
    def base_exceptions(self):
        return sqlite3.Error

    def _connection(self) -> sqlite3.Connection:
        connection = getattr(self._local, "connection", None)
        if connection is None:
            connection = sqlite3.connect(self.path, timeout=5.0, isolation_level=None, check_same_thread=False)
            connection.execute("PRAGMA journal_mode=WAL")
            connection.execute("PRAGMA synchronous=OFF")
            connection.execute(_SCHEMA)
            self._local.connection = connection
        return connection

    def incr(self, key: str, expiry: float, amount: int = 1) -> int:
        now = time.time()
        connection = self._connection()
        (count,) = connection.execute(_INCR, {"key": key, "amount": amount, "now": now, "window": expiry}).fetchone()
        if now >= self._next_sweep:
            self._next_sweep = now + SWEEP_SECONDS
            connection.execute("DELETE FROM counters WHERE expiry <= ?", (now,))
        return count

    def get(self, key: str) -> int:
        row = self._connection().execute("SELECT count FROM counters WHERE key = ? AND expiry > ?",
                                         (key, time.time())).fetchone()
        return row[0] if row else 0

    def get_expiry(self, key: str) -> float:
        row = self._connection().execute("SELECT expiry FROM counters WHERE key = ?", (key,)).fetchone()
        return row[0] if row and row[0] > time.time() else time.time()

    def check(self) -> bool:
        try:
            self._connection().execute("SELECT 1").fetchone()
        except sqlite3.Error:
            return False
        return True

    def reset(self) -> int | None:
        return self._connection().execute("DELETE FROM counters").rowcount

    def clear(self, key: str) -> None:
        self._connection().execute("DELETE FROM counters WHERE key = ?", (key,))

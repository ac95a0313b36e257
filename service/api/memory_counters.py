"""The rate limits' counters in process memory (``memory://``), swept inline instead of by timers."""

from __future__ import annotations

import time

from limits.storage import MemoryStorage


class SweepingMemoryStorage(MemoryStorage):
    """``memory://`` without a thread per hit: expired counters are swept inline, once a second.

    limits' MemoryStorage starts a fresh ``threading.Timer`` on every hit once the last
    one (10 ms) has run: measured, that was most of the limiter's cost per request.
    Counters expire on read anyway; the sweep only frees memory. Its own sweep would
    index a key that another thread's read has just removed (a KeyError, here in a
    request), so this one looks each key up once. ``_MemoryStorage__schedule_expiry``
    is limits' private API: pyproject.toml bounds its version, and
    tests/api/test_limits_hook.py fails if it is gone.
    """

    STORAGE_SCHEME = ["solitaire-memory"]  # registered with limits by its metaclass
    _next_sweep = 0.0

    def _MemoryStorage__schedule_expiry(self) -> None:  # replaces the timer-per-hit
        now = time.monotonic()
        if now >= self._next_sweep:
            self._next_sweep = now + 1.0
            self.sweep()

    def sweep(self) -> None:
        """Forget the counters whose window has ended (fixed windows: the only ones counted here)."""
        now = time.time()
        for key, expiry in list(self.expirations.items()):
            if expiry <= now:
                self.storage.pop(key, None)
                self.expirations.pop(key, None)
                self.locks.pop(key, None)

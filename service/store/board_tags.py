"""Boards' tags known without a query: cached per process until PostgreSQL signals a change of wins.

Migration 0006 makes every change to a won game (a win, above all) and every
``TRUNCATE games`` send ``NOTIFY solitaire_wins`` when its transaction commits, to
every process of every instance. Each process listens on one connection of its
own, in a daemon thread (:class:`WinSignal`, one per database), and counts what it
hears (``generation``). A tag read under one generation is remembered
(:class:`TagCache`) and holds until the next notification: an ``If-None-Match``
that names it is 304 with no query at all.

The read's generation is taken *before* its query: a win that commits after the
query's snapshot sends its notification after that, so it outdates the tag. A
win is seen by a cache a moment after its commit (the notification's trip, about
a millisecond), as by a request that came that moment earlier. While the
listener is not connected (starting, or PostgreSQL gone), nothing is known and
every tag is read; any reconnection starts a new generation. SQLite has no
signal: its tags are always read (in-process, they are cheap).

The feed's tag also moves with time (the feed ends ``settle`` before now): one is
remembered only once every win signalled so far is older than that.
"""

from __future__ import annotations

import logging
import threading
import time
import weakref

import psycopg
from sqlalchemy.engine import Engine

from ..extensions import db

log = logging.getLogger(__name__)

CHANNEL = "solitaire_wins"  # migrations/versions/0006_win_signal.py
#: Tags remembered per process; all go at the next win anyway.
MAX_TAGS = 4096
#: With no notification for this long the listener checks its connection with a query.
CHECK_SECONDS = 5.0


class WinSignal:
    """Counts the win notifications of one database; ``generation`` is None while not listening.

    One per database and process (:func:`tag_cache`), for the life of the process.
    """

    def __init__(self, conninfo: str) -> None:
        self._conninfo = conninfo
        self._generation = 0
        self.listening = False
        #: ``time.time()`` of the last notification (or of the start of listening).
        self.changed_at = time.time()
        self._started = threading.Event()
        threading.Thread(target=self._listen, daemon=True, name="win-signal").start()

    @property
    def generation(self) -> int | None:
        return self._generation if self.listening else None

    def wait_listening(self, timeout: float) -> bool:
        """Whether the listener is connected, waiting up to ``timeout`` seconds for its first try."""
        self._started.wait(timeout)
        return self.listening

    def _changed(self, listening: bool) -> None:
        self.changed_at = time.time()
        self._generation += 1
        self.listening = listening

    def _listen(self) -> None:
        """LISTEN, count notifications, check a quiet connection, reconnect with back-off."""
        delay = 0.5
        while True:
            try:
                with psycopg.connect(self._conninfo, autocommit=True, connect_timeout=5) as connection:
                    connection.execute(f"LISTEN {CHANNEL}")
                    self._changed(listening=True)
                    self._started.set()
                    delay = 0.5
                    while True:
                        if any(True for _ in connection.notifies(timeout=CHECK_SECONDS, stop_after=1)):
                            self._changed(listening=True)
                        else:
                            connection.execute("SELECT 1")  # a connection that died silently raises here
            except Exception as error:  # noqa: BLE001 - the listener never dies: it reconnects
                log.warning("win signal: not listening (%s); boards' tags are read until it is back",
                            type(error).__name__)
            self._changed(listening=False)
            self._started.set()
            time.sleep(delay)
            delay = min(delay * 2, 10.0)


class TagCache:
    """Tags of boards read under a generation of the win signal, valid while it lasts."""

    def __init__(self, signal: WinSignal | None) -> None:
        self.signal = signal
        self._tags: dict = {}
        self._lock = threading.Lock()

    def before_read(self) -> tuple[int | None, float]:
        """What :meth:`remember` needs, taken before the tag's query: the generation and the time."""
        return self.generation_now(), time.time()

    def known(self, key) -> str | None:
        """The tag remembered for ``key`` if no win has been signalled since it was read."""
        found = self._tags.get(key)
        if found is None or self.signal is None or found[1] != self.signal.generation:
            return None
        return found[0]

    def remember(self, key, tag: str, before: tuple[int | None, float], settle_ms: int | None = None) -> None:
        """Keep ``tag``, read after :meth:`before_read` gave ``before``; ``settle_ms``: a feed's (see module)."""
        generation, read_at = before
        if generation is None or generation != self.generation_now():
            return
        if settle_ms is not None and read_at < self.signal.changed_at + settle_ms / 1000:
            return
        with self._lock:
            if len(self._tags) >= MAX_TAGS:
                self._tags.clear()
            self._tags[key] = (tag, generation)

    def generation_now(self) -> int | None:
        return None if self.signal is None else self.signal.generation


def app_tag_cache(remember: bool = True) -> TagCache:
    """The tag cache of the app's database (:func:`tag_cache`); one that remembers nothing when not ``remember``."""
    return tag_cache(db.engine) if remember else TagCache(None)


_caches: weakref.WeakKeyDictionary[Engine, TagCache] = weakref.WeakKeyDictionary()
_signals: dict[str, WinSignal] = {}
_lock = threading.Lock()


def tag_cache(engine: Engine) -> TagCache:
    """The engine's tag cache; on PostgreSQL it shares its database's listener with the process."""
    cache = _caches.get(engine)
    if cache is not None:
        return cache
    with _lock:
        cache = _caches.get(engine)
        if cache is None:
            signal = None
            if engine.dialect.name == "postgresql":
                conninfo = engine.url.set(drivername="postgresql").render_as_string(hide_password=False)
                signal = _signals.get(conninfo)
                if signal is None:
                    signal = _signals[conninfo] = WinSignal(conninfo)
            cache = _caches[engine] = TagCache(signal)
    return cache

"""Solver answers cached by canonical position: across games, versions, workers and instances.

A hint depends only on the position — the tableau, the foundations, the waste and
the stock in order, and the draw mode — never on the game, its score or its
history. So :func:`position_key` hashes exactly that: a draw followed by an undo,
or a fresh game of the same code, finds the answer already computed.

Two stores behind one interface (``get``/``put`` of small JSON documents):

* :class:`RedisCache` — shared by every worker and instance that names the same
  Redis (``redis://host:port/db``); entries expire after ``ttl`` seconds. A Redis
  that cannot be reached costs a search, never an error: the cache falls back to
  its process-local store until Redis answers again.
* :class:`LocalCache` — a bounded LRU per process (the default without Redis).

The Redis client is imported only when a Redis URL is configured, so the solver
itself keeps needing only the engine and the standard library.
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
import time
from collections import OrderedDict

log = logging.getLogger(__name__)

#: bump when the cached document or the search changes meaning
VERSION = "h1"


def position_key(state: dict, tag: str = "") -> str:
    """The cache key of a stored game state's position (``tag``: what else the answer depends on).

    >>> from service.engine import Game
    >>> game = Game.from_code("TF1-D1N-AAAAAAA")
    >>> before = position_key(game.to_state())
    >>> from service.engine import Action
    >>> _ = game.apply(Action.draw()); _ = game.apply(Action.undo())
    >>> position_key(game.to_state()) == before
    True
    """
    draw = state["code"].upper()[5]  # TF1-D1N-…: the draw mode is part of the position's rules
    position = [draw, state["tableau"], state["foundations"], state["waste"], state["stock"]]
    if "face_down" in state:  # the klondike variant (never served): its face-down cards change the answer
        position.append(state["face_down"])
    digest = hashlib.sha256(json.dumps(position, separators=(",", ":")).encode()).hexdigest()[:40]
    return f"solitaire:solver:{VERSION}:{tag}:{digest}"


class LocalCache:
    """A per-process LRU of at most ``size`` answers."""

    def __init__(self, size: int = 4096) -> None:
        self._entries: OrderedDict[str, dict] = OrderedDict()
        self._size = size
        self._lock = threading.Lock()

    def get(self, key: str) -> dict | None:
        with self._lock:
            value = self._entries.get(key)
            if value is not None:
                self._entries.move_to_end(key)
            return value

    def put(self, key: str, value: dict) -> None:
        self.put_many({key: value})

    def put_many(self, values: dict[str, dict]) -> None:
        with self._lock:
            for key, value in values.items():
                self._entries[key] = value
                self._entries.move_to_end(key)
            while len(self._entries) > self._size:
                self._entries.popitem(last=False)


class RedisCache:
    """Answers in Redis for ``ttl`` seconds; a local LRU while Redis cannot be reached."""

    #: after a failure, Redis is left alone this long (seconds) so no request waits on a dead server
    BACK_OFF = 5.0

    def __init__(self, url: str, ttl: int = 7 * 24 * 3600) -> None:
        import redis  # only when configured

        self._client = redis.Redis.from_url(url, socket_timeout=0.25, socket_connect_timeout=0.25)
        self._errors = (redis.RedisError, OSError)
        self._ttl = ttl
        self._fallback = LocalCache()
        self._down_until = 0.0

    def _up(self) -> bool:
        return time.monotonic() >= self._down_until

    def _failed(self, error: Exception) -> None:
        log.warning("solver cache: Redis unavailable (%s); caching per process for %.0f s", error, self.BACK_OFF)
        self._down_until = time.monotonic() + self.BACK_OFF

    def get(self, key: str) -> dict | None:
        if self._up():
            try:
                raw = self._client.get(key)
            except self._errors as error:
                self._failed(error)
            else:
                return json.loads(raw) if raw else None
        return self._fallback.get(key)

    def put(self, key: str, value: dict) -> None:
        self.put_many({key: value})

    def put_many(self, values: dict[str, dict]) -> None:
        if self._up():
            try:
                with self._client.pipeline(transaction=False) as pipe:
                    for key, value in values.items():
                        pipe.set(key, json.dumps(value, separators=(",", ":")), ex=self._ttl)
                    pipe.execute()
                return
            except self._errors as error:
                self._failed(error)
        self._fallback.put_many(values)


def cache_for(url: str | None, ttl: int = 7 * 24 * 3600) -> LocalCache | RedisCache:
    """The cache a URL names: Redis for ``redis://``/``rediss://``/``unix://``, else a per-process LRU."""
    if url and url.split("://", 1)[0] in ("redis", "rediss", "unix"):
        return RedisCache(url, ttl)
    return LocalCache()

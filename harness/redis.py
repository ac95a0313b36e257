"""A key prefix of one's own on the shared Redis, and the clean-up of its keys (never anyone else's, never FLUSHALL)."""

from __future__ import annotations

import os
import uuid

#: The Redis database the tests and benches use by default (the app's own default is 0).
REDIS_URL = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/1")


def reachable(url: str = REDIS_URL) -> str | None:
    """None when Redis answers at ``url``, else why not."""
    import redis

    try:
        redis.Redis.from_url(url, socket_connect_timeout=1).ping()
    except redis.RedisError as error:
        return f"Redis unreachable at {url}: {error}"
    return None


class RedisKeys:
    """A unique prefix for ``RATELIMIT_KEY_PREFIX`` (``name`` and a random part) on the Redis at ``url``.

    :meth:`clean` deletes the keys that hold the prefix (the rate limits put it inside their
    keys): what a test or a bench counted goes with it.
    """

    def __init__(self, name: str, url: str = REDIS_URL) -> None:
        self.url = url
        self.prefix = f"{name}-{uuid.uuid4().hex[:12]}"

    def clean(self) -> int:
        """Delete this prefix's keys; how many there were."""
        import redis

        client = redis.Redis.from_url(self.url, socket_connect_timeout=1)
        try:
            keys = list(client.scan_iter(match=f"*{self.prefix}*", count=1000))
            return client.delete(*keys) if keys else 0
        finally:
            client.close()

    def __enter__(self) -> RedisKeys:
        return self

    def __exit__(self, *exc) -> None:
        self.clean()

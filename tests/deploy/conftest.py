"""What the deploy tests share: the stack as deployed, started for a module, and a raw HTTP exchange.

:func:`deployed_stack` is the set-up every module that runs the whole stack (nginx in
front of two gunicorn masters on PostgreSQL and Redis) used to write out for itself;
each module keeps its own fixture, which says only how its stack differs.
"""

from __future__ import annotations

import contextlib
import socket
from collections.abc import Iterator

from harness import nginx
from harness.nginx import stack
from harness.ports import free_ports, port_range
from harness.redis import REDIS_URL, RedisKeys
from harness.redis import reachable as redis_unreachable
from tests.databases import missing, scratch_postgres


def stack_ports(count: int, within: tuple[int, int] | None = None) -> list[int]:
    """``count`` free ports of ``within`` (default ``STACK_TEST_PORTS``, else 18080-18099); none: missing."""
    try:
        return free_ports(count, within or port_range("STACK_TEST_PORTS") or (18080, 18099))
    except RuntimeError as error:
        missing(str(error))


@contextlib.contextmanager
def deployed_stack(tmp_path_factory, name: str, ports: list[int], *, environment: dict | None = None,
                   **settings) -> Iterator[stack.StackSettings]:
    """The stack up for the ``with``; its value is the ``StackSettings`` it runs with.

    nginx on ``ports[0]`` in front of app masters on ``ports[1:3]``, one worker each unless
    ``settings`` (any other ``StackSettings`` field) say otherwise, run from a fresh
    ``name`` directory, on a scratch PostgreSQL database ``solitaire_<name>`` and Redis
    keys of their own (prefix ``<name>-test``, passed to the apps with ``environment``).
    Without nginx or Redis: missing (a skip; under CI a failure).
    """
    if not nginx.installed():
        missing("nginx is not installed (apt-get install nginx)")
    unreachable = redis_unreachable()
    if unreachable:
        missing(unreachable)
    with scratch_postgres(f"solitaire_{name}") as url, RedisKeys(f"{name}-test") as keys:
        deployed = stack.StackSettings(
            port=ports[0], app_ports=ports[1:3], run_dir=tmp_path_factory.mktemp(name), database_url=url,
            redis_url=REDIS_URL, **{"workers": 1, **settings},
            environment={"RATELIMIT_KEY_PREFIX": keys.prefix, **(environment or {})})
        stack.up(deployed)
        try:
            yield deployed
        finally:
            stack.down(deployed.run_dir)


def exchange(port: int, data: bytes) -> tuple[int, dict, bytes]:
    """Send ``data`` as it is, read the answer to the end (the server closes): status, headers, body."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(data)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    head, _, body = b"".join(chunks).partition(b"\r\n\r\n")
    status_line, *lines = head.decode("latin-1").split("\r\n")
    headers = {name.lower(): value.strip() for name, _, value in (line.partition(":") for line in lines)}
    return int(status_line.split()[1]), headers, body

"""Free ports on 127.0.0.1: any port the OS gives, or one of a range (``HARNESS_PORTS``, e.g. ``18080-18099``)."""

from __future__ import annotations

import os
import socket

#: Ports handed out by this process, so that a range never gives one twice before it is bound.
_taken: set[int] = set()


def _free(port: int) -> int | None:
    """``port`` when nothing listens on it (0: whatever port the OS picks), else None."""
    with socket.socket() as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return None
        return sock.getsockname()[1]


def port_range(variable: str = "HARNESS_PORTS") -> tuple[int, int] | None:
    """The range ``LOW-HIGH`` an environment variable sets, or None."""
    value = os.environ.get(variable)
    if not value:
        return None
    low, _, high = value.partition("-")
    return int(low), int(high or low)


def free_port(within: tuple[int, int] | None = None) -> int:
    """A free port of 127.0.0.1: one of ``within`` (default ``HARNESS_PORTS``) if a range is set, else any."""
    within = within or port_range()
    if within is None:
        port = _free(0)
        _taken.add(port)
        return port
    for port in range(within[0], within[1] + 1):
        if port not in _taken and _free(port) is not None:
            _taken.add(port)
            return port
    raise RuntimeError(f"no free port in {within[0]}-{within[1]}")


def free_ports(count: int, within: tuple[int, int] | None = None) -> list[int]:
    """``count`` distinct free ports (see :func:`free_port`)."""
    return [free_port(within) for _ in range(count)]

"""One request id from nginx to the logs: accepted when valid, made when missing, sent back on every answer.

nginx passes a valid ``X-Request-ID`` of the client's or its own ``$request_id`` (32 hex
digits; deploy/nginx.conf.template); ``make serve`` gets the client's or none. The app keeps
a valid one (:data:`VALID`: 8 to 64 characters of letters, digits and ``._:-``, so a log
line or a header can never be split or bloated by it) and otherwise makes one like nginx's.
No Flask here: the log filter and the problem documents read it from
:func:`current` (the request's thread).
"""

from __future__ import annotations

import re
import threading
import uuid

HEADER = "X-Request-ID"
ENVIRON = "HTTP_X_REQUEST_ID"
#: What an incoming request id must look like to be kept (nginx's map checks the same).
PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._:-]{7,63}$"
VALID = re.compile(PATTERN)

_local = threading.local()


def new() -> str:
    """A fresh request id: 32 hex digits, as nginx's ``$request_id``."""
    return uuid.uuid4().hex


def accept(sent: str | None) -> str:
    """``sent`` when it is a valid request id, else a new one.

    >>> accept("0123456789abcdef0123456789abcdef")
    '0123456789abcdef0123456789abcdef'
    >>> len(accept("bad id\\r\\nX-Evil: 1"))
    32
    """
    if sent is not None and VALID.match(sent):
        return sent
    return new()


def begin(sent: str | None) -> str:
    """Start a request on this thread: its id (``sent`` if valid) from now on for :func:`current`."""
    _local.id = accept(sent)
    return _local.id


def end() -> None:
    _local.id = None


def current() -> str | None:
    """The id of the request this thread serves (None outside a request)."""
    return getattr(_local, "id", None)

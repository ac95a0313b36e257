"""Bounded JSON input: every request body and cursor is parsed here, never by a bare ``json.loads``.

(Flask's ``request.get_json`` parses with it too: ``service.api.json_provider``.)

Python's parser accepts documents no endpoint needs and several that break later:
nesting deep enough for a ``RecursionError``, integers of thousands of digits
(a ``ValueError`` outside ``JSONDecodeError``, or an overflow in the database),
``NaN``/``Infinity``, and lone surrogates (``"\\ud800"``), which no database and
no UTF-8 answer can hold. :func:`loads` refuses all of them with
:class:`InvalidJson`, a ``ValueError`` whose message says what was wrong.
"""

from __future__ import annotations

import json
import math

#: Deeper than any body or cursor of the API (a move is depth 1).
MAX_DEPTH = 16
#: The widest integer column (BIGINT); a number beyond it is refused before any field sees it.
INT64 = 2**63
_MAX_INT_CHARS = 20  # "-9223372036854775808"


class InvalidJson(json.JSONDecodeError):
    """A document that is not JSON, or JSON this service refuses (``msg`` says why)."""

    def __init__(self, msg: str, doc: str = "-", pos: int = 0) -> None:
        # A non-empty doc: webargs takes an exception with doc == "" for an empty body.
        super().__init__(msg, doc or "-", pos)


def _integer(text: str) -> int:
    if len(text) > _MAX_INT_CHARS:
        raise InvalidJson(f"Integer out of range: {text[:12]}… ({len(text)} digits).")
    value = int(text)
    if not -INT64 <= value < INT64:
        raise InvalidJson(f"Integer out of range: {text}.")
    return value


def _number(text: str) -> float:
    if len(text) > 64:
        raise InvalidJson(f"Number too long: {text[:12]}… ({len(text)} characters).")
    value = float(text)
    if not math.isfinite(value):
        raise InvalidJson(f"Number out of range: {text}.")
    return value


def _constant(name: str):
    raise InvalidJson(f"{name} is not JSON.")


def bad_text(text: str) -> str | None:
    """Why ``text`` cannot be stored or answered (a lone surrogate), or None when it can."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        return f"Lone surrogate \\u{ord(text[error.start]):04x} at character {error.start}: not Unicode text."
    return None


def check(value, max_depth: int = MAX_DEPTH) -> None:
    """Refuse a parsed document nested deeper than ``max_depth`` or holding a lone surrogate.

    Iterative, so that it can look at any document the parser returned.
    """
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            problem = bad_text(item)
            if problem:
                raise InvalidJson(problem)
        elif isinstance(item, dict | list):
            if depth > max_depth:
                raise InvalidJson(f"Nested deeper than {max_depth} levels.")
            if isinstance(item, dict):
                stack.extend((key, depth) for key in item)
                stack.extend((child, depth + 1) for child in item.values())
            else:
                stack.extend((child, depth + 1) for child in item)


def loads(data: str | bytes, max_depth: int = MAX_DEPTH):
    """Parse ``data`` as bounded JSON (see the module docstring); :class:`InvalidJson` otherwise.

    >>> loads(b'{"draw": 3}')
    {'draw': 3}
    >>> loads('[' * 5000 + ']' * 5000)
    Traceback (most recent call last):
    ...
    service.jsonin.InvalidJson: Nested deeper than 16 levels.: line 1 column 1 (char 0)
    """
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError as error:
            raise InvalidJson(f"Not UTF-8: byte {error.start}.") from None
    try:
        value = json.loads(data, parse_int=_integer, parse_float=_number, parse_constant=_constant)
    except RecursionError:
        raise InvalidJson(f"Nested deeper than {max_depth} levels.") from None
    check(value, max_depth)
    return value

"""Every list's cursor: the position of a page's last entry, given out and read back.

A cursor is that position as compact JSON in URL-safe base64. Each list declares its
position as a marshmallow schema (:class:`Cursor`), which both writes it and checks one
sent back: the keys exactly, integers that fit their columns (a larger one is an error
on PostgreSQL), printable strings, moments with a time zone. Anything else is 400 "Not
a cursor this API gave out.": a hand-made cursor never reaches the database.
"""

from __future__ import annotations

import base64
import binascii
import json
from datetime import UTC, datetime

from marshmallow import RAISE, Schema, ValidationError, fields, validate

from .. import jsonin
from .errors import invalid

NOT_A_CURSOR = "Not a cursor this API gave out."
#: Cursor integers fit the INTEGER columns they are compared with, unless wide (BIGINT).
INT32 = 2**31


def utc(moment: datetime) -> datetime:
    """``moment`` in UTC (columns read back aware: see ``store.models.UtcDateTime``)."""
    return moment.astimezone(UTC)


def encode_cursor(position: dict) -> str:
    """Any JSON object as a cursor's text (a list's :class:`Cursor` says what it holds)."""
    raw = json.dumps(position, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


class _Integer(fields.Integer):
    """A JSON integer (not a boolean, not a float) within ``[-bound, bound)``."""

    def __init__(self, bound: int = INT32, **kwargs) -> None:
        super().__init__(strict=True, required=True, validate=validate.Range(min=-bound, max=bound,
                                                                             max_inclusive=False), **kwargs)

    def _deserialize(self, value, attr, data, **kwargs):
        if isinstance(value, bool):
            raise ValidationError(NOT_A_CURSOR)
        return super()._deserialize(value, attr, data, **kwargs)


class _Text(fields.String):
    def __init__(self, **kwargs) -> None:
        super().__init__(required=True, validate=validate.Predicate("isprintable", error=NOT_A_CURSOR), **kwargs)


class _Moment(fields.Field):
    """A moment as UTC ISO 8601 to the microsecond; one sent back must carry its time zone."""

    def _serialize(self, value: datetime, attr, obj, **kwargs) -> str:
        return utc(value).isoformat()

    def _deserialize(self, value, attr, data, **kwargs) -> datetime:
        if not isinstance(value, str) or not value.isprintable():
            raise ValidationError(NOT_A_CURSOR)
        try:
            moment = datetime.fromisoformat(value)
            if moment.tzinfo is None:
                raise ValueError
            return moment.astimezone(UTC)
        except (ValueError, OverflowError):
            raise ValidationError(NOT_A_CURSOR) from None


class Cursor(Schema):
    """A list's position: :meth:`encode` writes a cursor, :meth:`decode` reads one back (400 if it is not one)."""

    class Meta:
        unknown = RAISE

    def encode(self, position: dict) -> str:
        return encode_cursor(self.dump(position))

    def decode(self, cursor: str | None) -> dict | None:
        """The position ``cursor`` stands for; None without one."""
        if cursor is None:
            return None
        try:
            raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
            position = jsonin.loads(raw, max_depth=1)
            if not isinstance(position, dict):
                raise ValueError
            return self.load(position)
        except (ValueError, binascii.Error, ValidationError):
            raise invalid("cursor", NOT_A_CURSOR) from None


class HistoryCursor(Cursor):
    seq = _Integer()


class PlayerGamesCursor(Cursor):
    created = _Moment(required=True)
    game = _Text()


class FeedCursor(Cursor):
    at = _Moment(required=True)
    game = _Text()


class BoardCursor(Cursor):
    """A leaderboard position: its keys are :data:`service.store.leaderboards.CURSOR_KEYS`."""

    score = _Integer()
    moves = _Integer()
    ms = _Integer(bound=jsonin.INT64)
    finished = _Moment(required=True)
    game = _Text()


HISTORY_CURSOR = HistoryCursor()
PLAYER_GAMES_CURSOR = PlayerGamesCursor()
FEED_CURSOR = FeedCursor()
BOARD_CURSOR = BoardCursor()

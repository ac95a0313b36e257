"""The ``limit`` and ``cursor`` query fields every list shares (the cursors: ``service.usecases.cursors``)."""

from __future__ import annotations

from marshmallow import fields, validate


def limit_field(**kwargs) -> fields.Integer:
    """A page's ``limit``: 1 to 200, 50 by default (a list may widen the range or drop the default)."""
    kwargs.setdefault("load_default", 50)
    kwargs.setdefault("validate", validate.Range(min=1, max=200))
    return fields.Integer(strict=False, **kwargs)


def cursor_field(**kwargs) -> fields.String:
    """A page's ``cursor``: the ``next`` of an earlier page, checked by the list's :class:`Cursor`."""
    return fields.String(validate=validate.Length(max=200), **kwargs)

"""The app's JSON: :func:`service.jsonin.loads` for input (``request.get_json`` is bounded too), orjson for output."""

from __future__ import annotations

import orjson
from flask.json.provider import DefaultJSONProvider

from ..jsonin import loads

#: Dates and dataclasses go to Flask's default, as with the stdlib (a date is an HTTP date there).
_FLASK_TYPES = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS
_COMPACT = (",", ":")


class BoundedJSONProvider(DefaultJSONProvider):
    """Flask's JSON with :func:`loads` for input (``request.get_json`` is bounded too), orjson for output."""

    def dumps(self, obj, **kwargs) -> str:
        # A bare dumps (json_response, problem bodies) and jsonify's compact one: orjson, compact,
        # UTF-8, keys in order, for a fraction of the stdlib's CPU (a tenth of a 50-entry board's).
        # Any other argument (indent in debug, sort_keys from Jinja's tojson) goes to the stdlib
        # unchanged, and so does what orjson refuses (an integer beyond 64 bits, a key that is not
        # a string, a lone surrogate). Unlike the stdlib, NaN and infinities become null.
        if kwargs.keys() - {"separators"} or kwargs.get("separators", _COMPACT) != _COMPACT \
                or self.sort_keys or self.ensure_ascii:
            return super().dumps(obj, **kwargs)
        try:
            return orjson.dumps(obj, default=self.default, option=_FLASK_TYPES).decode()
        except TypeError:
            return super().dumps(obj, separators=_COMPACT)

    def loads(self, s, **kwargs):
        return loads(s)

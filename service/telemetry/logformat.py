"""The service's log lines: JSON (``LOG_FORMAT=json``, the stack's) or readable text (``make serve``).

Every record of the ``service`` loggers carries the request id of the request its thread
serves (:class:`RequestIdFilter`; ``-`` outside a request). With ``json`` each record is one
line: ``time``, ``level``, ``logger``, ``message``, ``request_id``, the fields the request
line adds (:mod:`.http`: ``operation``, ``method``, ``route``, ``status``, ``duration_ms``,
``db_ms``, ``solver_ms``, ``client``) and, for an error, its ``traceback`` inside the same line.
Nothing a client sent is logged raw: the route template, never the path or the query
(tests/telemetry/test_logs.py puts a token everywhere a client can).
"""

from __future__ import annotations

import json
import logging
import sys
import time

from . import request_ids

#: The fields of a record that are not the log's own (logging.LogRecord's attributes).
_RECORD_FIELDS = frozenset(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {"message", "asctime",
                                                                                      "request_id"}
TEXT_FORMAT = "%(asctime)s %(levelname)s [%(request_id)s] %(name)s: %(message)s"


class RequestIdFilter(logging.Filter):
    """Put the request id of this thread's request on every record (``-`` outside a request)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, "request_id"):
            record.request_id = request_ids.current() or "-"
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object a line; a traceback stays inside its record's line."""

    def format(self, record: logging.LogRecord) -> str:
        line = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created)) + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "request_id": getattr(record, "request_id", None) or request_ids.current(),
            "message": record.getMessage(),
        }
        for name, value in vars(record).items():
            if name not in _RECORD_FIELDS and not name.startswith("_"):
                line[name] = value
        if record.exc_info:
            line["traceback"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False, default=str)


_HANDLER = "solitaire_handler"


def configure(log_format: str, level: str = "INFO", stream=None) -> logging.Handler:
    """One handler on the ``service`` logger, in ``log_format`` (``json`` or ``text``); once per process.

    A second call (another app in the same process: the tests) replaces the first's handler.
    """
    logger = logging.getLogger("service")
    for handler in list(logger.handlers):
        if getattr(handler, _HANDLER, False):
            logger.removeHandler(handler)
    handler = logging.StreamHandler(stream or sys.stderr)
    setattr(handler, _HANDLER, True)
    handler.addFilter(RequestIdFilter())
    handler.setFormatter(JsonFormatter() if log_format == "json" else logging.Formatter(TEXT_FORMAT))
    logger.addHandler(handler)
    logger.setLevel(level.upper())
    return handler

"""Logs without secrets: a database error is logged by its kind and statement, never its values.

SQLAlchemy's ``hide_parameters`` (create_app) drops the bound parameters from the
message, but the driver's own text can still quote a row (PostgreSQL's ``DETAIL: Key
(token_hash)=(…) already exists``). :class:`DatabaseErrorRedactor` replaces such an
error in a log record by its class, SQLSTATE and SQL statement, keeping the traceback.
"""

from __future__ import annotations

import logging

from sqlalchemy.exc import DBAPIError

#: Every logger of the service that logs a failure with its exception. A logger's filter does
#: not see the records its children pass up, so each one is named (a test checks the list).
LOGGERS = ("service", "service.api.rate_limits", "service.api.problems", "service.api.solving", "service.solver.cache",
           "service.solver.fast", "service.store.board_tags", "service.store.replicas")


class RedactedDatabaseError(Exception):
    """A database error reduced to what is safe to log."""


def redact(error: DBAPIError) -> RedactedDatabaseError:
    """``error`` as its driver class, SQLSTATE and statement (placeholders only).

    >>> from sqlalchemy.exc import IntegrityError
    >>> str(redact(IntegrityError("INSERT INTO players (name) VALUES (%(name)s)", {"name": "Ann"},
    ...                           ValueError("DETAIL: Key (name)=(Ann) already exists"))))
    'ValueError (SQLSTATE ?) in: INSERT INTO players (name) VALUES (%(name)s)'
    """
    original = error.orig
    state = getattr(original, "sqlstate", None) or getattr(original, "pgcode", None) or "?"
    return RedactedDatabaseError(f"{type(original).__name__} (SQLSTATE {state}) in: {error.statement}")


class DatabaseErrorRedactor(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info and isinstance(record.exc_info[1], DBAPIError):
            redacted = redact(record.exc_info[1])
            record.exc_info = (RedactedDatabaseError, redacted, record.exc_info[2])
            record.exc_text = None
        if isinstance(record.args, tuple) and any(isinstance(arg, DBAPIError) for arg in record.args):
            record.args = tuple(redact(arg) if isinstance(arg, DBAPIError) else arg for arg in record.args)
        return True


def install() -> None:
    """Put the redactor on the loggers that log request failures (once per process)."""
    for name in LOGGERS:
        logger = logging.getLogger(name)
        if not any(isinstance(f, DatabaseErrorRedactor) for f in logger.filters):
            logger.addFilter(DatabaseErrorRedactor())

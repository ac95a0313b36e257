"""Connection set-up and the write transaction that serializes actions on one game.

SQLite: WAL, a busy timeout, foreign keys, and ``BEGIN IMMEDIATE`` for writes
only, so that two writers never both read a game and then race to update it.
A per-process lock in front of SQLite's own keeps waiting writers from spinning
in its back-off sleeps. PostgreSQL: ``SELECT … FOR UPDATE`` on the game row.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from sqlalchemy import event, text
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import DBAPIError, OperationalError

from ..extensions import db

_immediate: ContextVar[bool] = ContextVar("immediate", default=False)
#: Execution option of a connection whose reads need no transaction (:func:`read_alone`, SQLite).
SINGLE_STATEMENT = "solitaire_single_statement"
_sqlite_writer = threading.Lock()


def configure_engine(engine: Engine) -> None:
    """Install the SQLite pragmas and the BEGIN handling, or PostgreSQL's handling of a dead connection."""
    if engine.dialect.name == "postgresql":
        event.listen(engine, "handle_error", _on_postgresql_error)
    if engine.dialect.name != "sqlite":
        return

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection, _record) -> None:
        # Let SQLAlchemy's "begin" event, not the driver, decide how to BEGIN.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA busy_timeout = 10000")
        for attempt in range(50):
            try:
                cursor.execute("PRAGMA journal_mode = WAL")
                break
            except Exception:  # two workers switching a new file at once: retry
                if attempt == 49:
                    raise
                time.sleep(0.02)
        cursor.execute("PRAGMA synchronous = NORMAL")
        cursor.execute("PRAGMA foreign_keys = ON")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection) -> None:
        if _immediate.get():
            _begin_immediate(connection.connection.dbapi_connection)
        elif not connection.get_execution_options().get(SINGLE_STATEMENT):
            connection.exec_driver_sql("BEGIN")


#: What psycopg raises when the socket hangs up before it has read why (a server that ended
#: the session): it does not mark the connection broken then.
_SOCKET_CLOSED = "connection socket closed"


def _on_postgresql_error(context) -> None:
    """A dead connection is a disconnect, and its stream's server-side cursor is closed."""
    # SQLAlchemy's psycopg dialect asks only whether psycopg marked the connection closed or
    # broken. A hung-up socket is as dead, but unmarked: the failed first statement was not
    # run again (on_live_connection), and the ROLLBACK sent on it failed in its turn.
    if not context.is_disconnect and _SOCKET_CLOSED in str(context.original_exception):
        context.is_disconnect = True
    # A server-side cursor whose DECLARE met the dead connection cannot send its CLOSE, and
    # SQLAlchemy leaves it open on a disconnect: psycopg would warn when it is collected. The
    # connection is invalidated anyway; closed first, it lets the cursor close.
    # (ExceptionContext.cursor is never set in SQLAlchemy 2.1: the execution context has it.)
    cursor = getattr(context.execution_context, "cursor", None)
    if context.is_disconnect and getattr(cursor, "name", None):
        cursor.connection.close()
        cursor.close()


def _begin_immediate(dbapi_connection, timeout: float = 10.0) -> None:
    """``BEGIN IMMEDIATE``, waiting for another process's writer in short, even steps.

    SQLite's busy handler sleeps 1, 2, 5, 10 … 100 ms between tries: a writer of the
    other gunicorn worker could sleep on long after the lock was free, and p99 rose to
    6-8 x p50. Polling every 0.2-2 ms costs a few failed BEGINs instead.
    """
    dbapi_connection.execute("PRAGMA busy_timeout = 0")
    try:
        deadline = time.monotonic() + timeout
        pause = 0.0002
        while True:
            try:
                dbapi_connection.execute("BEGIN IMMEDIATE")
                return
            except sqlite3.OperationalError as error:
                if "locked" not in str(error) or time.monotonic() > deadline:
                    raise
            time.sleep(pause)
            pause = min(pause * 2, 0.002)
    finally:
        dbapi_connection.execute("PRAGMA busy_timeout = 10000")


@contextmanager
def read_alone() -> Iterator[Connection]:
    """A pooled connection whose reads need no transaction: each statement is its own snapshot.

    SQLite: no BEGIN, a second trip through SQLAlchemy's execute path. PostgreSQL: the
    driver in autocommit, so no BEGIN and ROLLBACK round trips around a SELECT. The switch
    is the driver's own attribute, set back before the pool gets the connection again (an
    action's ``SELECT … FOR UPDATE`` needs a transaction): SQLAlchemy's isolation-level
    option did the same for more CPU than the switch itself (its checks, then its reset
    at checkin).
    """
    with db.engine.connect() as connection:
        if is_sqlite():
            yield connection.execution_options(**{SINGLE_STATEMENT: True})
            return
        driver = connection.connection.dbapi_connection
        driver.autocommit = True
        try:
            yield connection
        finally:
            if not driver.closed:  # a dead connection is closed and invalidated: the pool drops it
                driver.autocommit = False


def is_sqlite() -> bool:
    return db.engine.dialect.name == "sqlite"


@contextmanager
def _write_lock():
    """The block's transactions take the write lock up front (SQLite: one writer per process too)."""
    sqlite = is_sqlite()
    token = _immediate.set(True)
    if sqlite:
        _sqlite_writer.acquire()
    try:
        yield
    finally:
        if sqlite:
            _sqlite_writer.release()
        _immediate.reset(token)


@contextmanager
def write_transaction():
    """A transaction that takes the write lock up front; commits on success."""
    session = db.session
    # A read earlier in the request may have begun a plain transaction.
    session.rollback()
    with _write_lock():
        try:
            yield session
            session.commit()
        except BaseException:
            session.rollback()
            raise


@contextmanager
def action_transaction() -> Iterator[Connection]:
    """:func:`write_transaction` on a pooled Core connection, for an action's few statements.

    The ORM session's bookkeeping (its transaction, the connection lookup on every
    statement, flush and close) cost more CPU than an action's three statements. Every
    write of the block goes through the connection it yields (the game, its history row,
    a win's statistics and line, an Idempotency-Key's stored answer): one write path,
    one transaction, committed at the end of the block.
    """
    if db.session.registry.has():  # a read earlier in the request may have begun a plain transaction
        db.session.remove()
    with _write_lock(), db.engine.connect() as connection:
        try:
            connection.begin()
            yield connection
            connection.commit()
        except BaseException:
            connection.rollback()
            raise


def first_statement_on(connection: Connection, statement, parameters: dict):
    """:func:`on_live_connection` for the first statement of :func:`action_transaction`: its first row.

    ``statement`` is a :class:`~.driver.DriverStatement`.
    """
    def begin_again() -> None:
        connection.rollback()
        connection.begin()

    return on_live_connection(lambda: statement.first(connection, parameters), start_again=begin_again)


def on_live_connection(first_statement, start_again=None):
    """``first_statement()``, run once more if the pooled connection it ran on was dead.

    The pool hands out connections without pinging them first (a round trip on every
    request, create_app): a connection the server dropped, e.g. in a restart, fails at
    the transaction's first statement. Nothing was written yet, and the pool has
    replaced every connection as old as the dead one: running the statement again in a
    new transaction is safe. Wrap only a transaction's first statement. ``start_again``
    ends the failed transaction and begins the new one (default: the session's rollback).
    """
    try:
        return first_statement()
    except DBAPIError as error:
        if not error.connection_invalidated:
            raise
        (start_again or db.session.rollback)()
        return first_statement()


def end_read() -> None:
    """End the session's read transaction: no snapshot stays open during a long computation."""
    db.session.rollback()


def ping() -> bool:
    """Whether the database answers a ``SELECT 1`` now."""
    try:
        on_live_connection(lambda: db.session.execute(text("SELECT 1")))
        return True
    except Exception:
        return False
    finally:
        db.session.rollback()


def database_unavailable(error: BaseException) -> bool:
    """True when an error means the database cannot be reached or is too busy right now."""
    return isinstance(error, OperationalError)

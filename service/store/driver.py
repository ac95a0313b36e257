"""The hot path's statements, run on the driver's own cursor.

For an indexed one-row statement, SQLAlchemy's execute path (cache key, execution
context, result object) cost about five times the driver's own work
(``bench/api``'s raw floor does without it). A :class:`DriverStatement` stays a Core
construct: SQLAlchemy compiles it for the connection's dialect, once per set of
parameter names, and its bind and result processors convert the values exactly as
``Connection.execute`` would (JSON through the engine's orjson functions, SQLite's
datetimes as text, UTC); only the per-call machinery is left out. The connection is an
SQLAlchemy :class:`~sqlalchemy.engine.Connection` from the pool: its isolation options
and error handling are SQLAlchemy's, and its ``before_cursor_execute`` and
``after_cursor_execute`` listeners see each statement (tracing, the tests' statement
counts), without the power to rewrite it. It begins no transaction of its own: a read
runs in whatever the connection is in (autocommit for a read alone, see
``db.read_alone``), and a write refuses to run outside a begun one.

What the plan cannot carry is refused when the statement is first compiled: columns
with Python-side defaults, expanding (``IN``) or literal-execute parameters, and bind
names the dialect must escape.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace

from sqlalchemy.engine import Connection, Dialect
from sqlalchemy.sql import ClauseElement


@dataclass(frozen=True, slots=True)
class _Plan:
    """A statement compiled for one dialect and one set of parameter names."""

    sql: str
    compiled: object
    positions: tuple[str, ...] | None  # the bind names in order (qmark/format), None for named styles
    bind_processors: dict
    result_processors: tuple[tuple[int, object], ...]  # (column index, processor) of the columns that have one


class DriverStatement:
    """A Core statement executed on the driver's cursor of a pooled connection (see the module)."""

    def __init__(self, statement: ClauseElement) -> None:
        self.statement = statement
        # By dialect object: an engine's dialect lives as long as the engine, and each plan's
        # compiled form holds its dialect anyway (a test process keeps its apps' few plans).
        self._plans: dict[tuple[Dialect, frozenset], _Plan] = {}

    def _plan(self, dialect: Dialect, names: frozenset) -> _Plan:
        key = (dialect, names)
        plan = self._plans.get(key)
        if plan is None:
            # column_keys: an UPDATE's SET clause (an INSERT's columns) are the parameters given.
            compiled = self.statement.compile(dialect=dialect, column_keys=sorted(names))
            if compiled.insert_prefetch or compiled.update_prefetch:
                # A Python-side default would be computed by the execution context this path skips.
                raise ValueError(f"columns with Python defaults need values: {self.statement}")
            if compiled.post_compile_params or compiled.literal_execute_params or compiled.escaped_bind_names:
                raise ValueError(f"expanding, literal or escaped parameters need Connection.execute: {self.statement}")
            types = [column[3] for column in getattr(compiled, "_result_columns", ())]
            plan = _Plan(
                sql=compiled.string, compiled=compiled,
                positions=tuple(compiled.positiontup) if compiled.positional else None,
                bind_processors=compiled._bind_processors,
                result_processors=tuple((index, process) for index, process in enumerate(
                    type_._cached_result_processor(dialect, None) for type_ in types) if process is not None))
            self._plans[key] = plan
        return plan

    def _parameters(self, plan: _Plan, parameters: dict):
        values = plan.compiled.construct_params(parameters)
        for name, process in plan.bind_processors.items():
            if name in values:
                values[name] = process(values[name])
        return values if plan.positions is None else tuple(values[name] for name in plan.positions)

    def _execute(self, connection: Connection, parameters: dict, fetch, many: list | None = None) -> list:
        plan = self._plan(connection.dialect, frozenset(parameters))
        values = self._parameters(plan, parameters)
        if many is not None:  # executemany: every row has the first one's parameter names
            values = [values, *(self._parameters(plan, row) for row in many)]
        dbapi_connection = connection.connection.dbapi_connection  # SQLAlchemy's errors for a closed one
        events = connection.dispatch
        cursor = None
        # The statement's context for the listeners: a bare object where they may keep their own
        # state across before and after (OpenTelemetry's keeps its span), as on an ExecutionContext.
        context = SimpleNamespace() if events.before_cursor_execute else None
        try:
            cursor = dbapi_connection.cursor()
            for listener in events.before_cursor_execute:
                listener(connection, cursor, plan.sql, values, context, many is not None)
            if many is None:
                cursor.execute(plan.sql, values)
            else:
                cursor.executemany(plan.sql, values)
            rows = fetch(cursor)
            for listener in events.after_cursor_execute:
                listener(connection, cursor, plan.sql, values, context, many is not None)
        except BaseException as error:
            # SQLAlchemy's own handling: the error wrapped as Connection.execute raises it
            # (OperationalError …, parameters hidden), the cursor closed, the pool invalidated
            # on a disconnect (or an exit exception mid-statement).
            connection._handle_dbapi_exception(error, plan.sql, values, cursor, None)
        cursor.close()
        processors = plan.result_processors
        if not processors:
            return [tuple(row) for row in rows]
        # Only the few columns with a processor (a board row: its datetime) are touched: a
        # call per value was a sixth of a 50-row board's CPU.
        processed = []
        for row in rows:
            columns = list(row)
            for index, process in processors:
                columns[index] = process(columns[index])
            processed.append(tuple(columns))
        return processed

    def first(self, connection: Connection, parameters: dict) -> tuple | None:
        """The first row of the statement's result on ``connection``, its values processed; None without one."""
        rows = self._execute(connection, parameters, lambda cursor: [row] if (row := cursor.fetchone()) else [])
        return rows[0] if rows else None

    def all(self, connection: Connection, parameters: dict) -> list[tuple]:
        """Every row of the statement's result on ``connection``, their values processed."""
        return self._execute(connection, parameters, lambda cursor: cursor.fetchall())

    def run(self, connection: Connection, parameters: dict) -> None:
        """Execute the statement on ``connection`` (an UPDATE, an INSERT), in the transaction it has begun."""
        if not connection.in_transaction():
            # Outside one, SQLite would write without BEGIN IMMEDIATE and PostgreSQL's pool
            # would roll the write back on checkin: a write goes in an action_transaction.
            raise RuntimeError("a write needs a begun transaction")
        self._execute(connection, parameters, lambda cursor: ())

    def run_many(self, connection: Connection, rows: list[dict]) -> None:
        """:meth:`run` for several rows of the same parameter names, in one ``executemany``."""
        if not rows:
            return
        if not connection.in_transaction():
            raise RuntimeError("a write needs a begun transaction")
        self._execute(connection, rows[0], lambda cursor: (), many=rows[1:])

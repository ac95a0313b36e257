"""The service's Prometheus metrics: one prefix (``solitaire_``), label values from closed sets only.

No Flask here: the use cases count what they do (actions, games, solver runs), the HTTP
layer its requests (:mod:`.http`). Under gunicorn every worker writes its values to
files in ``PROMETHEUS_MULTIPROC_DIR`` (prometheus_client's multiprocess mode; the
directory is made and wiped by whatever starts gunicorn: gunicorn.conf.py's hooks) and
``/metrics`` sums them; without it (tests, ``flask run``) the process's own registry.

Every label value goes through :func:`closed`: a value outside its set becomes ``other``,
so no game id, player id, path or header can ever make a new series (docs/OPERATIONS.md
lists the metrics; tests/telemetry/test_cardinality.py sends 10,000 random ones).
"""

from __future__ import annotations

import os
from importlib import metadata

import prometheus_client
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest, multiprocess

from ..engine import RULES_VERSION
from ..engine.notation import KINDS
from ..problem_codes import PARAMS

PREFIX = "solitaire_"
OTHER = "other"
#: The service's metrics only (no process or GC collectors: one prefix); in multiprocess
#: mode /metrics reads the workers' files instead.
REGISTRY = CollectorRegistry(auto_describe=True)
# No `_created` series beside every counter: half the lines of a scrape, for nothing an alert uses.
prometheus_client.disable_created_metrics()

METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
DRAWS = frozenset({"1", "3"})
#: How a new game's code was chosen: asked for, random, proven winnable (pool or search).
CODE_CHOICES = frozenset({"given", "random", "winnable"})
OUTCOMES = frozenset({"applied", "rejected"})
#: What the solver ran for: a player's hint, a winnable deal a request waits for, the pool's
#: background refill (a verdict on a deal nobody waits for).
PURPOSES = frozenset({"hint", "winnable_deal", "pool_refill"})
#: Why a search stopped without a verdict (service.solver.search: time, nodes, memory).
EXHAUSTIONS = frozenset({"time", "nodes", "memory"})
#: The limits' scopes (service/api/rate_limits.py).
SCOPES = frozenset({"address", "write", "solver-address", "solver-token"})
RESULTS = frozenset({"won"})
STATUSES = frozenset(str(status) for status in range(100, 600))

_LATENCY = (0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
_SOLVER = (0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 120.0)


def _counter(name: str, documentation: str, labels=()) -> Counter:
    return Counter(PREFIX + name, documentation, list(labels), registry=REGISTRY)


def _gauge(name: str, documentation: str, labels=(), mode: str = "livesum") -> Gauge:
    """A gauge; under gunicorn summed over the live workers (``livesum``) unless ``mode`` says otherwise."""
    return Gauge(PREFIX + name, documentation, list(labels), multiprocess_mode=mode, registry=REGISTRY)


def _histogram(name: str, documentation: str, labels, buckets) -> Histogram:
    return Histogram(PREFIX + name, documentation, list(labels), buckets=buckets, registry=REGISTRY)


REQUESTS = _counter("http_requests", "HTTP requests answered, by operation, method and status.",
                    ["operation", "method", "status"])
DURATION = _histogram("http_request_duration_seconds",
                      "Time from the request's arrival in the app to its answer's headers, by operation.",
                      ["operation"], _LATENCY)
ACTIONS = _counter("actions", "Game actions played, by kind and outcome (applied or rejected by a rule).",
                   ["kind", "outcome"])
RULE_REJECTIONS = _counter("rule_rejections", "Actions a rule refused, by the rule's code.", ["code"])
GAMES_CREATED = _counter("games_created", "Games dealt, by draw mode and how the code was chosen.",
                         ["draw", "chosen"])
GAMES_FINISHED = _counter("games_finished", "Games finished, by draw mode and result.", ["draw", "result"])
SOLVER_SECONDS = _histogram("solver_seconds", "Wall time of solver searches, by purpose.", ["purpose"], _SOLVER)
SOLVER_EXHAUSTED = _counter("solver_budget_exhausted",
                            "Solver searches that ran out of budget without a verdict, by purpose and budget.",
                            ["purpose", "budget"])
SOLVER_BUSY = _counter("solver_busy", "Searches refused because every solver slot stayed taken (503).", ["purpose"])
LIMIT_REFUSALS = _counter("limit_refusals", "Requests refused by a rate limit (429), by the limit's scope.",
                          ["scope"])
LIMIT_STORAGE_ERRORS = _counter("limit_storage_errors",
                                "Failures of the shared rate-limit store (counted in memory meanwhile).")
IDEMPOTENT_REPLAYS = _counter("idempotent_replays", "Requests answered again from their Idempotency-Key.")
POOL_CHECKED_OUT = _gauge("db_pool_checked_out", "Database connections in use.")
POOL_OVERFLOW = _gauge("db_pool_overflow", "Database connections open beyond the pools' size.")
POOL_SIZE = _gauge("db_pool_size", "Database connections the pools keep (without overflow).")
POOL_TIMEOUTS = _counter("db_pool_timeouts", "Requests that waited for a database connection in vain.")
STREAMS_OPEN = _gauge("ndjson_streams_open", "NDJSON feed streams being sent.")
BUILD_INFO = _gauge("build_info", "The service's version and the rules version it judges by (always 1).",
                    ["version", "rules_version"], mode="max")


def closed(value, allowed: frozenset[str] | set[str] | dict) -> str:
    """``value`` as a label when it is in ``allowed``, else ``other``.

    >>> closed(3, DRAWS), closed("/v1/games/x", METHODS)
    ('3', 'other')
    """
    text = str(value)
    return text if text in allowed else OTHER


def version() -> str:
    try:
        return metadata.version("solitaire-reflechi")
    except metadata.PackageNotFoundError:
        return "unknown"


def action(kind: str, outcome: str, rejection_code: str | None = None) -> None:
    ACTIONS.labels(closed(kind, KINDS), closed(outcome, OUTCOMES)).inc()
    if rejection_code is not None:
        RULE_REJECTIONS.labels(closed(rejection_code, PARAMS)).inc()


def game_created(draw: int, chosen: str) -> None:
    GAMES_CREATED.labels(closed(draw, DRAWS), closed(chosen, CODE_CHOICES)).inc()


def game_finished(draw: int, result: str) -> None:
    GAMES_FINISHED.labels(closed(draw, DRAWS), closed(result, RESULTS)).inc()


def solver_ran(purpose: str, seconds: float, exhausted: str | None = None) -> None:
    purpose = closed(purpose, PURPOSES)
    SOLVER_SECONDS.labels(purpose).observe(seconds)
    if exhausted:
        SOLVER_EXHAUSTED.labels(purpose, closed(exhausted, EXHAUSTIONS)).inc()


def solver_busy(purpose: str) -> None:
    SOLVER_BUSY.labels(closed(purpose, PURPOSES)).inc()


def limit_refused(scope: str) -> None:
    LIMIT_REFUSALS.labels(closed(scope, SCOPES)).inc()


def multiprocess_dir() -> str | None:
    return os.environ.get("PROMETHEUS_MULTIPROC_DIR")


def exposition() -> bytes:
    """The metrics in the Prometheus text format: summed over gunicorn's workers when in multiprocess mode."""
    if multiprocess_dir():
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
        return generate_latest(registry)
    return generate_latest(REGISTRY)


def mark_started() -> None:
    """Once per process: the build info series."""
    BUILD_INFO.labels(version(), str(RULES_VERSION)).set(1)

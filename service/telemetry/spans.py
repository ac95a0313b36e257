"""Spans of the service's own work in a request's trace: the store's transaction, the solver's searches.

No Flask and no OpenTelemetry import here: when traces are on, :mod:`.traces` puts the
app's tracer in a context variable for each request (and takes it away at its end); the
store and the use cases open :func:`span` around their work. Off (no tracer), a span is
a context variable read and nothing else.
"""

from __future__ import annotations

import contextlib
import contextvars

_tracer: contextvars.ContextVar = contextvars.ContextVar("solitaire_tracer", default=None)


def use(tracer) -> None:
    """The tracer of the request now running (None: traces off, or no request)."""
    _tracer.set(tracer)


@contextlib.contextmanager
def span(name: str, **attributes):
    """A span named ``name`` around the block, child of the current one; yields it (None when off)."""
    tracer = _tracer.get()
    if tracer is None:
        yield None
        return
    with tracer.start_as_current_span(name, attributes=attributes) as current:
        yield current

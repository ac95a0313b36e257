"""OpenTelemetry traces, optional (``pip install '.[traces]'``): on only when ``OTEL_EXPORTER_OTLP_ENDPOINT`` is set.

The tracer provider is built in :func:`init_traces`, called by create_app, which gunicorn runs
in each worker after its fork (``preload_app`` stays off): no exporter thread or socket
crosses a fork. A request's span (Flask's instrumentation) holds the store transaction's
span (``store.transaction``, opened by the use cases) and that one the SQL statements'
spans (SQLAlchemy's); a hint's search is a ``solver.hint`` span with ``solver.nodes``
(see :mod:`.spans`). Off (the default) nothing is imported and nothing is wrapped: free.
Tests pass their own exporter as the setting ``TRACE_EXPORTER``.

The statements are traced per engine, with the app's own provider (:func:`trace_engine`),
not through ``SQLAlchemyInstrumentor().instrument()``: that one is a process-wide
singleton which also wraps ``sqlalchemy.create_engine``. A second app in the process (the
tests' PostgreSQL run after their SQLite one) got no listeners of its own ("already
instrumented"), and its engine, made after the wrap, sent its spans to the first app's
provider and exporter.
"""

from __future__ import annotations

from flask import Flask


def init_traces(app: Flask, engine) -> None:
    from opentelemetry import trace
    from opentelemetry.instrumentation.flask import FlaskInstrumentor
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor

    exporter = app.config.get("TRACE_EXPORTER")
    provider = TracerProvider(resource=Resource.create({"service.name": "solitaire-reflechi"}))
    if exporter is not None:
        provider.add_span_processor(SimpleSpanProcessor(exporter))
    else:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

        provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))  # reads OTEL_EXPORTER_OTLP_* itself
    app.extensions["tracer_provider"] = provider
    FlaskInstrumentor().instrument_app(app, tracer_provider=provider)
    trace_engine(provider, engine)
    # The store's transaction and the solver's searches (service.telemetry.spans), by request.
    from . import spans

    tracer = provider.get_tracer("solitaire-reflechi")
    app.before_request(lambda: spans.use(tracer))
    app.teardown_request(lambda error: spans.use(None))
    if exporter is None:  # the process's one app (a gunicorn worker); tests keep the global untouched
        trace.set_tracer_provider(provider)


def trace_engine(provider, engine) -> None:
    """A span per statement run on ``engine`` (``Connection.execute`` and the store's DriverStatement alike)."""
    from opentelemetry.instrumentation.sqlalchemy import __version__
    from opentelemetry.instrumentation.sqlalchemy.engine import EngineTracer
    from opentelemetry.metrics import NoOpMeterProvider

    # Its declared range stops below SQLAlchemy 2.1, whose engine events it uses unchanged.
    # The pool-usage counter goes nowhere: /metrics has the pool's own gauges.
    usage = NoOpMeterProvider().get_meter(__name__).create_up_down_counter("db.client.connections.usage")
    EngineTracer(provider.get_tracer("opentelemetry.instrumentation.sqlalchemy", __version__), engine, usage)

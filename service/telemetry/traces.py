"""OpenTelemetry traces, optional (``pip install '.[traces]'``): on only when ``OTEL_EXPORTER_OTLP_ENDPOINT`` is set.

The tracer provider is built in :func:`init_traces`, called by create_app, which gunicorn runs
in each worker after its fork (``preload_app`` stays off): no exporter thread or socket
crosses a fork. A request's span (Flask's instrumentation) holds the SQL statements'
spans (SQLAlchemy's). Off (the default) nothing is imported and nothing is wrapped: free.
Tests pass their own exporter as the setting ``TRACE_EXPORTER``.
"""

from __future__ import annotations

from flask import Flask


def init_traces(app: Flask, engine) -> None:
    from opentelemetry import trace
    from opentelemetry.instrumentation.flask import FlaskInstrumentor
    from opentelemetry.instrumentation.sqlalchemy import SQLAlchemyInstrumentor
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
    # Its declared range stops below SQLAlchemy 2.1, whose engine events it uses unchanged.
    SQLAlchemyInstrumentor().instrument(engine=engine, tracer_provider=provider, skip_dep_check=True)
    trace.set_tracer_provider(provider)

"""All of :mod:`service.telemetry` on an app (create_app calls :func:`init_telemetry` first)."""

from __future__ import annotations

from flask import Flask


def init_telemetry(app: Flask, engine) -> None:
    """Log format, request hooks, ``/metrics``, the engine's timers; traces when configured.

    Call before any other request hook is added: the request's start runs first and its
    end last.
    """
    from . import http, logformat
    from .database import instrument_engine

    config = app.config
    logformat.configure(config.get("LOG_FORMAT", "text"), config.get("LOG_LEVEL") or
                        ("INFO" if config.get("LOG_FORMAT") == "json" else "WARNING"))
    http.init_http(app)
    instrument_engine(engine, pool_metrics=config["METRICS_ENABLED"])
    if config.get("OTEL_EXPORTER_OTLP_ENDPOINT") or config.get("TRACE_EXPORTER"):
        from .traces import init_traces

        init_traces(app, engine)

"""What operators see of the service: request ids, metrics, log lines, traces (docs/OPERATIONS.md).

* :mod:`.request_ids` — one id a request, from nginx (or the client) to every log line,
  answer and problem document;
* :mod:`.metrics` — the Prometheus metrics (``solitaire_*``), summed over gunicorn's
  workers; :mod:`.http` — the request hooks and ``/metrics``; :mod:`.database` — time in
  statements and the pool's gauges; :mod:`.timing` — a request's time in the database and
  the solver;
* :mod:`.logformat` — JSON or text log lines, each with its request id;
* :mod:`.traces` — OpenTelemetry, only when ``OTEL_EXPORTER_OTLP_ENDPOINT`` is set;
* :mod:`.setup` — all of it on an app.

:mod:`.metrics`, :mod:`.timing` and :mod:`.request_ids` import no Flask: the use cases count
with them (tests/structure/test_layout.py).
"""

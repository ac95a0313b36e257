"""Traces (optional extra): a move's request span holds its SQL statements' spans; off by default."""

from __future__ import annotations

import pytest

pytest.importorskip("opentelemetry.sdk")


def test_a_move_traces_request_and_statements(database_url, make_app):
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()

    app = make_app({"DATABASE_URL": database_url, "TESTING": True, "RATELIMIT_ENABLED": False,
                      "TRACE_EXPORTER": exporter})
    client = app.test_client()
    created = client.post("/v1/games", json={"code": "TF1-D1N-AAAAAAA"}).get_json()
    exporter.clear()
    moved = client.post(f"/v1/games/{created['id']}/draw", json={},
                        headers={"Authorization": f"Bearer {created['token']}"})
    assert moved.status_code == 200
    spans = exporter.get_finished_spans()
    requests = [span for span in spans if span.parent is None]
    assert len(requests) == 1 and "draw" in requests[0].name
    statements = [span for span in spans if span.attributes.get("db.statement")]
    assert statements and all(span.context.trace_id == requests[0].context.trace_id for span in statements)


def test_off_by_default(app):
    assert "tracer_provider" not in app.extensions

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


def _traced(make_app, database_url, exporter):
    return make_app({"DATABASE_URL": database_url, "TESTING": True, "RATELIMIT_ENABLED": False,
                     "TRACE_EXPORTER": exporter})


def test_a_moves_statements_are_inside_its_store_transaction(database_url, make_app):
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    client = _traced(make_app, database_url, exporter).test_client()
    created = client.post("/v1/games", json={"code": "TF1-D1N-AAAAAAA"}).get_json()
    exporter.clear()
    assert client.post(f"/v1/games/{created['id']}/draw", json={},
                       headers={"Authorization": f"Bearer {created['token']}"}).status_code == 200
    spans = exporter.get_finished_spans()
    request = next(span for span in spans if span.parent is None)
    transactions = [span for span in spans if span.name == "store.transaction"]
    assert len(transactions) == 1 and transactions[0].parent.span_id == request.context.span_id
    inside = [span for span in spans if span.attributes.get("db.statement")
              and span.parent.span_id == transactions[0].context.span_id]
    assert any(span.attributes["db.statement"].lstrip().upper().startswith("UPDATE") for span in inside)


def test_a_hints_search_is_a_span_with_its_node_count(database_url, make_app):
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    client = _traced(make_app, database_url, exporter).test_client()
    created = client.post("/v1/games", json={"code": "TF1-D1N-AAAAAAA"}).get_json()
    exporter.clear()
    hinted = client.get(f"/v1/games/{created['id']}/hint", headers={"Authorization": f"Bearer {created['token']}"})
    assert hinted.status_code == 200
    spans = exporter.get_finished_spans()
    request = next(span for span in spans if span.parent is None)
    solver = [span for span in spans if span.name == "solver.hint"]
    assert len(solver) == 1 and solver[0].context.trace_id == request.context.trace_id
    assert solver[0].attributes["solver.nodes"] == hinted.get_json()["nodes"] > 0
    assert solver[0].attributes["solver.cached"] is False


def test_a_winnable_deal_searched_now_is_a_span_with_its_node_count(database_url, make_app):
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    client = _traced(make_app, database_url, exporter).test_client()
    created = client.post("/v1/games", json={"winnable": True, "draw": 1})  # the test pool is empty
    assert created.status_code == 201
    spans = exporter.get_finished_spans()
    request = next(span for span in spans if span.parent is None)
    [search] = [span for span in spans if span.name == "solver.winnable_deal"]
    assert search.context.trace_id == request.context.trace_id
    assert search.attributes["solver.draw"] == 1 and search.attributes["solver.found"] is True
    assert search.attributes["solver.nodes"] > 0


def test_an_app_without_traces_opens_no_span(client):
    from service.telemetry import spans

    assert client.get("/v1/rules").status_code == 200
    with spans.span("anything") as span:
        assert span is None

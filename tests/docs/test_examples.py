"""docs/EXAMPLES.md is executable: every example is replayed against a fresh app.

Each example deals its game code, plays its setup line through the API and sends
the documented requests; the documented status, headers and every JSON field
shown must match (see ``examples.py`` for the format). Runs on SQLite and
PostgreSQL through the ``client`` fixture.
"""

from __future__ import annotations

import pytest

from service.engine import ACTION_CODES, PRECEDENCE
from tests.docs import examples

EXAMPLES = examples.load_examples()


@pytest.mark.parametrize("example", EXAMPLES, ids=[example.title for example in EXAMPLES])
def test_example_answers_as_documented(client, example):
    assert example.exchanges, f"{example.title}: no request"
    failures = examples.run_example(client, example)
    assert not failures, f"{example.title}:\n" + "\n".join(failures)


def test_every_rejection_code_has_an_example():
    shown = {exchange.expected.get("code") for example in EXAMPLES for exchange in example.exchanges
             if exchange.status >= 400}
    required = {*PRECEDENCE, *ACTION_CODES, "INVALID_GAME_CODE", "INVALID_REQUEST"}
    assert required - shown == set()


def test_every_error_shows_its_code():
    for example in EXAMPLES:
        for exchange in example.exchanges:
            if exchange.status >= 400:
                assert "code" in exchange.expected, f"{example.title}: the error shows no code"


def test_the_required_situations_are_shown():
    by_title = {example.title: example for example in EXAMPLES}
    first = by_title["GROUP_NOT_ORDERED in the very first deal"]
    assert first.code == "TF1-D1N-AAAAAAA" and first.setup == []
    assert "tableau" in first.exchanges[0].expected
    king = by_title["EMPTY_COLUMN_KING_ONLY, then the king"]
    assert king.setup, "an actual game: the empty column comes from real play"
    assert [exchange.status for exchange in king.exchanges] == [422, 200]
    finished = by_title["GAME_FINISHED"]
    assert finished.exchanges[0].expected["status"] == "won"


def test_setup_lines_expand():
    assert examples.expand_setup("draw ×3, t7>fH,\n  recycle") == ["draw", "draw", "draw", "t7>fH", "recycle"]
    assert examples.request_for("t3>t5:9C") == ("moves", {"from": "t3", "to": "t5", "card": "9C"})
    assert examples.request_for("fH>t4") == ("take-back", {"from": "fH", "to": "t4"})
    assert examples.request_for("dtap:t3:9C") == ("tap", {"from": "t3", "card": "9C", "double": True})
    assert examples.request_for("tap:waste") == ("tap", {"from": "waste", "double": False})
    assert examples.request_for("undo") == ("undo", None)


def test_mismatches_compare_only_the_fields_shown():
    actual = {"a": 1, "b": {"c": [1, 2], "d": 3}}
    assert examples.mismatches({"b": {"c": [1, 2]}}, actual) == []
    assert examples.mismatches({"b": {"c": [1]}}, actual) == [".b.c: documented [1], got [1, 2]"]
    assert examples.mismatches({"e": 1}, actual) == [".e: missing"]


def test_the_index_lists_every_example():
    index = examples.EXAMPLES_MD.read_text(encoding="utf-8").split("## Index", 1)[1].split("\n## ", 1)[0]
    for example in EXAMPLES:
        assert f"[{example.title}](/examples#" in index, example.title

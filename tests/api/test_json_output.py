"""The answers' JSON encoder: orjson, which writes what the stdlib would (compact), and the stdlib where it refuses."""

from __future__ import annotations

import dataclasses
import json
from datetime import UTC, datetime

import orjson
import pytest
from flask import Flask
from hypothesis import given
from hypothesis import strategies as st

from service.api.json_provider import BoundedJSONProvider


@pytest.fixture(scope="module")
def bare_app() -> Flask:
    app = Flask(__name__)
    app.json = BoundedJSONProvider(app)
    app.json.sort_keys = False  # as create_app sets them (checked below on the service)
    app.json.ensure_ascii = False
    return app


@pytest.fixture(scope="module")
def provider(bare_app) -> BoundedJSONProvider:
    return bare_app.json


def test_the_service_answers_through_orjson(client, monkeypatch):
    encoded = []
    dumps = orjson.dumps
    monkeypatch.setattr(orjson, "dumps", lambda *args, **kwargs: encoded.append(args[0]) or dumps(*args, **kwargs))
    rules = client.get("/v1/rules")
    problem = client.get("/v1/games/nothing-here")
    assert rules.status_code == 200 and problem.status_code == 404
    assert rules.get_json() in encoded and problem.get_json() in encoded


def _stdlib(value) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


_SCALARS = st.none() | st.booleans() | st.integers(min_value=-2**63, max_value=2**63 - 1) | st.text()
_DOCUMENTS = st.recursive(_SCALARS, lambda inner: st.lists(inner, max_size=4)
                          | st.dictionaries(st.text(max_size=8), inner, max_size=4), max_leaves=20)


@given(_DOCUMENTS)
def test_the_same_bytes_as_the_stdlib_compact(provider, document):
    assert provider.dumps(document) == _stdlib(document)


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_floats_read_back_the_same(provider, number):
    assert json.loads(provider.dumps({"seconds": number})) == {"seconds": number}


def test_jsonify_the_same_way(bare_app):
    """flask-smorest answers through jsonify, which asks for the compact separators."""
    with bare_app.app_context():
        assert bare_app.json.response({"card": "10♥", "n": [1, None]}).get_data(as_text=True) == \
            '{"card":"10♥","n":[1,null]}\n'


def test_not_a_number_is_null(provider):
    """Unlike the stdlib's NaN, which no JSON parser has to accept (no answer holds one)."""
    assert provider.dumps({"x": float("nan"), "y": float("inf")}) == '{"x":null,"y":null}'


def test_an_answer_keeps_its_key_order_and_its_unicode(provider):
    assert provider.dumps({"card": "10♥", "a": 1}) == '{"card":"10♥","a":1}'


@pytest.mark.parametrize("value", [2**70, {1: "a"}, "\ud800", {"deep": [-(2**64)]}])
def test_what_orjson_refuses_the_stdlib_writes(provider, value):
    assert provider.dumps(value) == _stdlib(value)


def test_dates_and_dataclasses_as_flask_writes_them(provider):
    @dataclasses.dataclass
    class Point:
        x: int

    moment = datetime(2026, 12, 1, 9, 30, tzinfo=UTC)
    assert json.loads(provider.dumps({"at": moment, "p": Point(3)})) == {
        "at": "Tue, 01 Dec 2026 09:30:00 GMT", "p": {"x": 3}}


def test_other_settings_go_to_the_stdlib(provider):
    assert provider.dumps({"b": 1, "a": "é"}, sort_keys=True, ensure_ascii=True) == '{"a": "\\u00e9", "b": 1}'

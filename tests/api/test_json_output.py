"""The answers' JSON encoder: orjson where it writes what the stdlib would, the stdlib elsewhere."""

from __future__ import annotations

import dataclasses
import json
from datetime import UTC, datetime

import pytest
from flask import Flask
from hypothesis import given
from hypothesis import strategies as st

from service.api.jsonin import BoundedJSONProvider


@pytest.fixture(scope="module")
def app() -> Flask:
    app = Flask(__name__)
    app.json = BoundedJSONProvider(app)
    app.json.sort_keys = False  # as create_app sets them
    app.json.ensure_ascii = False
    return app


@pytest.fixture(scope="module")
def provider(app) -> BoundedJSONProvider:
    return app.json


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


def test_jsonify_the_same_way(app):
    """flask-smorest answers through jsonify, which asks for the compact separators."""
    with app.app_context():
        assert app.json.response({"card": "10♥", "n": [1, None]}).get_data(as_text=True) == \
            '{"card":"10♥","n":[1,null]}\n'


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

"""/static/engine/: the JavaScript rules engine's modules (clients/js/src), served to the play page."""

from __future__ import annotations

from pathlib import Path

import pytest

SOURCE = Path(__file__).resolve().parents[2] / "clients" / "js" / "src"


def fetch(client, path: str, **headers):
    """Status, headers and body of a GET, the response closed (a served file is a stream)."""
    with client.get(path, headers=headers) as response:
        return response.status_code, response.headers, response.get_data()


def test_the_engine_modules_are_served_as_javascript_and_cached_like_the_page(client):
    status, headers, body = fetch(client, "/static/engine/index.js")
    assert status == 200
    assert headers["Content-Type"].split(";")[0] == "text/javascript"
    assert body == (SOURCE / "index.js").read_bytes()
    assert headers["Cache-Control"] == fetch(client, "/static/app.js")[1]["Cache-Control"]
    assert fetch(client, "/static/engine/index.js", **{"If-None-Match": headers["ETag"]})[0] == 304
    for imported in ("cards.js", "deal.js", "game.js", "notation.js", "rejections.js", "conformance.js"):
        assert f'from "./{imported}"' in body.decode()
        assert fetch(client, f"/static/engine/{imported}")[0] == 200


@pytest.mark.parametrize("path", [
    "/static/engine/../engine/index.js", "/static/engine/..%2F..%2Fpackage.json", "/static/engine/..%2Fdeal.js",
    "/static/engine/%2E%2E/README.md", "/static/engine/nope.js", "/static/engine/index.d.ts", "/static/engine/",
    "/static/engine/..%2F..%2F..%2Fservice%2F__init__.py",
])
def test_nothing_else_is_served_from_there(client, path):
    assert fetch(client, path)[0] == 404

"""An app logging JSON lines into a buffer the test reads (service/telemetry/logformat.py)."""

from __future__ import annotations

import io
import json
import logging

import pytest


class LogLines:
    """The JSON lines the ``service`` loggers wrote since the app was made."""

    def __init__(self, handler: logging.StreamHandler) -> None:
        self.buffer = io.StringIO()
        handler.setStream(self.buffer)

    def text(self) -> str:
        return self.buffer.getvalue()

    def lines(self) -> list[dict]:
        return [json.loads(line) for line in self.text().splitlines() if line.strip()]

    def requests(self) -> list[dict]:
        return [line for line in self.lines() if line["logger"] == "service.requests"]


def json_logged_app(make_app, database_url: str, **overrides):
    app = make_app({"DATABASE_URL": database_url, "TESTING": True, "RATELIMIT_ENABLED": False,
                      "LOG_FORMAT": "json", "LOG_REQUESTS": True, "LOG_LEVEL": "INFO", **overrides})
    handler = next(h for h in logging.getLogger("service").handlers if getattr(h, "solitaire_handler", False))
    return app, LogLines(handler)


@pytest.fixture
def logged(database_url, make_app):
    """(test client, LogLines) of an app logging JSON."""
    app, lines = json_logged_app(make_app, database_url)
    yield app.test_client(), lines

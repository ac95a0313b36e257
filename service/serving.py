"""gunicorn's gthread worker, answering in problem+json the requests gunicorn refuses itself.

gunicorn refuses some requests before the app sees them: a request line over
``limit_request_line`` (414), a header over ``limit_request_field_size`` or too many
headers (431), a malformed request line, header or chunk (400). Its answer is an HTML
page; a client of this API reads problem+json with a stable ``code`` on every error,
as nginx sends for the same refusals in production (deploy/stack.py). gunicorn.conf.py
names this worker, so ``make serve`` answers them as the app would.

gunicorn keeps its own decisions (which status, its warning and access log lines);
only the page it writes is replaced, through the one function it writes with, in the
worker process alone.
"""

from __future__ import annotations

import functools
import json
from http import HTTPStatus

from gunicorn import util
from gunicorn.workers.gthread import ThreadWorker

from . import i18n
from .api.problem_schemas import PROBLEM_MEDIA_TYPE, problem_document

#: gunicorn's status of a refusal, and the code and params of the answer (from its settings).
_CODES = {
    414: ("URI_TOO_LONG", lambda cfg: {"limit": cfg.limit_request_line}),
    431: ("HEADERS_TOO_LARGE", lambda cfg: {"limit": cfg.limit_request_field_size}),
    403: ("FORBIDDEN", lambda cfg: {}),
    500: ("INTERNAL_ERROR", lambda cfg: {}),
}
#: Every other refusal (a malformed request; 501 and 417 included, as nginx's become 400).
_MALFORMED = ("INVALID_REQUEST", lambda cfg: {})


def problem_answer(cfg, status: int) -> bytes:
    """The whole HTTP answer to a request gunicorn refused with ``status``, in English.

    The request's headers were not read (or not all): its Accept-Language is unknown.
    """
    code, params_of = _CODES.get(status, _MALFORMED)
    document = problem_document(code, params_of(cfg), i18n.DEFAULT_LANGUAGE)
    body = json.dumps(document, ensure_ascii=False).encode()
    status = document["status"]
    head = (f"HTTP/1.1 {status} {HTTPStatus(status).phrase}\r\n"
            "Connection: close\r\n"
            f"Content-Type: {PROBLEM_MEDIA_TYPE}\r\n"
            f"Content-Language: {i18n.DEFAULT_LANGUAGE}\r\n"
            f"Content-Length: {len(body)}\r\n"
            "Cache-Control: no-store\r\n"
            "X-Content-Type-Options: nosniff\r\n"
            "\r\n")
    return head.encode("latin-1") + body


def _write_problem(cfg, sock, status_int: int, reason: str, mesg: str) -> None:
    # gunicorn's util.write_error(sock, status_int, reason, mesg); its mesg is for its log.
    util.write_nonblock(sock, problem_answer(cfg, status_int))


class ProblemThreadWorker(ThreadWorker):
    """gunicorn's ``gthread`` worker whose own refusals are problem+json."""

    def init_process(self) -> None:
        util.write_error = functools.partial(_write_problem, self.cfg)
        super().init_process()

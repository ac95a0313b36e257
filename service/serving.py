"""gunicorn's own refusals answered in problem+json, as the app answers every error.

gunicorn refuses some requests before the app sees them: a request line over
``limit_request_line`` (414), a header over ``limit_request_field_size`` (431), a
malformed request line or header (400). Its answer is an HTML page; a client of this
API reads problem+json with a stable ``code`` on every error, as nginx sends for the
same refusals in production (deploy/stack.py). gunicorn.conf.py's worker calls
:func:`answer_refusals_in_problem_json` in each worker process, so ``make serve``
answers them as the app would.

gunicorn keeps its warning and access log lines (they show its own status); only the
page it writes is replaced, through the one function it writes with. A refusal without
a code of its own here (too many header fields, a transfer coding or an expectation
gunicorn does not support, a refused PROXY line) is 400 ``INVALID_REQUEST``, as nginx's
411, 501 and 505 are.
"""

from __future__ import annotations

import functools
import json
from http import HTTPStatus

from gunicorn import util

from . import i18n
from .api.problem_schemas import PROBLEM_MEDIA_TYPE, problem_document
from .telemetry import request_ids


def problem_answer(cfg, status: int, mesg: str = "") -> bytes:
    """The whole HTTP answer to a request gunicorn refused with ``status`` (``mesg``: its reason), in English.

    The request's headers were not read (or not all): its Accept-Language is unknown.
    """
    code, params = "INVALID_REQUEST", {}
    if status == 414:
        code, params = "URI_TOO_LONG", {"limit": cfg.limit_request_line}
    elif status == 431 and "fields size" in mesg:  # gunicorn's 431 is also its count of fields
        code, params = "HEADERS_TOO_LARGE", {"limit": cfg.limit_request_field_size}
    elif status == 500:  # not the client's fault (its 501 is a transfer coding it does not support)
        code = "INTERNAL_ERROR"
    request_id = request_ids.new()  # the request was not read: its own id, if it sent one, is unknown
    document = {**problem_document(code, params, i18n.DEFAULT_LANGUAGE), "request_id": request_id}
    body = json.dumps(document, ensure_ascii=False).encode()
    answered = document["status"]  # 400 for the refusals without a code of their own
    head = (f"HTTP/1.1 {answered} {HTTPStatus(answered).phrase}\r\n"
            "Connection: close\r\n"
            f"Content-Type: {PROBLEM_MEDIA_TYPE}\r\n"
            f"Content-Language: {i18n.DEFAULT_LANGUAGE}\r\n"
            f"Content-Length: {len(body)}\r\n"
            "Cache-Control: no-store\r\n"
            "X-Content-Type-Options: nosniff\r\n"
            f"X-Request-ID: {request_id}\r\n"
            "\r\n")
    return head.encode("latin-1") + body


def _write_problem(cfg, sock, status_int: int, reason: str, mesg: str) -> None:
    # In place of gunicorn's util.write_error(sock, status_int, reason, mesg).
    util.write_nonblock(sock, problem_answer(cfg, status_int, mesg))


def answer_refusals_in_problem_json(cfg) -> None:
    """In a worker process: gunicorn writes its refusals with :func:`problem_answer` from now on."""
    util.write_error = functools.partial(_write_problem, cfg)

"""Request bodies, before any view reads them: bounded in size, JSON or nothing.

* ``MAX_CONTENT_LENGTH`` (``MAX_BODY_BYTES``) caps every body, 413 ``PAYLOAD_TOO_LARGE``,
  with a Content-Length or chunked (:func:`cap_streamed_body`, a hook of create_app's,
  which holds with the rate limits off too);
* a transfer coding other than ``chunked`` alone is 400, as at the proxy;
* a ``POST`` to ``/v1`` with a body that is not JSON is 415 ``UNSUPPORTED_MEDIA_TYPE``
  (:func:`require_json_body`), not a confusing "field missing" 400.
"""

from __future__ import annotations

import io

from flask import current_app, request
from werkzeug.exceptions import BadRequest, RequestEntityTooLarge

from ..usecases.errors import ServiceError


def cap_streamed_body() -> None:
    """A chunked body longer than MAX_CONTENT_LENGTH is 413, like one with a Content-Length.

    werkzeug caps a stream the server terminates (gunicorn de-chunks and sets
    ``wsgi.input_terminated``) at the limit, but one ``read()`` then returns the first
    MAX_CONTENT_LENGTH bytes without complaint: a truncated body, answered as malformed
    JSON. Read it here, at most one byte past the limit, and keep it for the view.
    A transfer coding other than ``chunked`` alone is 400: the body would be read as it came.
    """
    environ = request.environ
    codings = environ.get("HTTP_TRANSFER_ENCODING")
    if codings is None and environ.get("SERVER_PROTOCOL", "").startswith("HTTP/1."):
        return  # in HTTP/1.x a body without Transfer-Encoding has a Content-Length, which werkzeug enforces
    if codings is not None and [c.strip().lower() for c in codings.split(",")] != ["chunked"]:
        # gunicorn de-chunks and passes the rest through: "gzip, chunked" would reach the parser
        # as if it were plain JSON. The proxy of the deployment answers 400 for it; so does the app.
        raise BadRequest(f"Transfer-Encoding {codings!r}: only 'chunked' is supported.")
    limit = current_app.config.get("MAX_CONTENT_LENGTH")
    if not limit or request.content_length is not None or "wsgi.input_terminated" not in environ:
        return
    raw, chunks, size = environ["wsgi.input"], [], 0
    while size <= limit:
        try:
            chunk = raw.read(limit + 1 - size)
        except Exception as error:
            # The server de-chunks as it reads, and raises its own errors for a malformed
            # chunked body (gunicorn's InvalidChunkSize, ChunkMissingTerminator, …): the
            # client's fault, 400, not a 500 of ours.
            raise BadRequest() from error
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    if size > limit:
        raise RequestEntityTooLarge()
    environ["wsgi.input"] = io.BytesIO(b"".join(chunks))


def require_json_body() -> None:
    """A body that is not JSON is 415, not a confusing "field missing" 400."""
    if request.method != "POST" or not request.path.startswith("/v1/"):
        return
    mimetype = request.mimetype
    if mimetype == "application/json" or mimetype.endswith("+json"):
        return
    if request.get_data(cache=True):  # bounded by MAX_CONTENT_LENGTH (413 beyond)
        raise ServiceError("UNSUPPORTED_MEDIA_TYPE")

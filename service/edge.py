"""What every answer needs at the edge: client address behind proxies, CORS, cache and security headers.

- ``PROXY_HOPS`` proxies are trusted (werkzeug's ProxyFix): the client address is the
  one the nearest proxy saw, so a forged ``X-Forwarded-For`` changes nothing.
- CORS for ``/v1`` from ``CORS_ORIGINS`` (none by default), without credentials: the
  token travels only in ``Authorization``.
- ``Cache-Control``: ``no-store`` on every answer that may carry a token or a hint
  (any request with credentials, any write, any error, the probes); public reads get
  ``public, max-age=PUBLIC_CACHE_SECONDS`` (game reads ``GAME_CACHE_SECONDS``, revalidated
  by their ETag by default). A view that sets its own Cache-Control keeps it.
- Every answer: ``X-Content-Type-Options: nosniff`` and ``Referrer-Policy``; HTML pages
  also a Content-Security-Policy without inline script and ``frame-ancestors 'none'``.
"""

from __future__ import annotations

import base64
import hashlib
import re
from urllib.parse import urlsplit

from flask import Flask, current_app, request
from flask_cors import CORS
from werkzeug.middleware.proxy_fix import ProxyFix

#: Request headers a browser front-end may send, and answer headers it may read.
CORS_ALLOW_HEADERS = ["Authorization", "Content-Type", "If-Match", "If-None-Match", "Idempotency-Key",
                      "Accept-Language", "X-Request-ID"]
CORS_EXPOSE_HEADERS = ["ETag", "Rules-Version", "Location", "Retry-After", "Content-Language", "Idempotent-Replayed",
                       "WWW-Authenticate", "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset",
                       "X-Request-ID"]

_BASE_CSP = {
    "default-src": ["'self'"],
    "script-src": ["'self'"],
    "style-src": ["'self'"],
    "img-src": ["'self'", "data:"],
    "connect-src": ["'self'"],
    "object-src": ["'none'"],
    "base-uri": ["'none'"],
    "form-action": ["'self'"],
    "frame-ancestors": ["'none'"],
}
_INLINE = re.compile(r"<(script|style)(\s[^>]*)?>(.*?)</\1>", re.S | re.I)
#: Pages whose inline blocks come from fixed templates (never from request data): those
#: blocks, and nothing else inline, are allowed by their hash.
_FIXED_TEMPLATE_PAGES = ("api-docs.", "pages.docs_")


def init_edge(app: Flask) -> None:
    """Wrap ``app`` for its proxies and add CORS and the cache and security headers."""
    hops = app.config.get("PROXY_HOPS", 0)
    if hops > 0:
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=hops, x_proto=hops, x_host=0, x_port=0, x_prefix=0)
    origins = app.config.get("CORS_ORIGINS") or []
    if origins:
        CORS(app, resources={r"/v1/*": {"origins": "*" if "*" in origins else origins}},
             allow_headers=CORS_ALLOW_HEADERS, expose_headers=CORS_EXPOSE_HEADERS,
             methods=["GET", "HEAD", "POST", "OPTIONS"], supports_credentials=False,
             max_age=app.config.get("CORS_MAX_AGE", 600), vary_header=True)
    app.extensions["edge_csp"] = {}
    app.after_request(_edge_headers)


def cache_control(status: int, method: str, has_credentials: bool, etag: str | None, blueprint: str | None,
                  config) -> str:
    """The Cache-Control for an answer that did not choose its own.

    >>> cache_control(200, "GET", False, None, "leaderboards", {"PUBLIC_CACHE_SECONDS": 5})
    'public, max-age=5'
    >>> cache_control(200, "GET", False, '"3"', "games", {"GAME_CACHE_SECONDS": 0})
    'public, no-cache'
    >>> cache_control(200, "GET", True, '"3"', "games", {})
    'no-store'
    >>> cache_control(201, "POST", False, None, "games", {})
    'no-store'
    """
    if has_credentials or method not in ("GET", "HEAD") or status >= 400 or blueprint == "probes":
        return "no-store"
    # Reads with a validator (a game) change with every action: revalidated by default.
    seconds = config.get("GAME_CACHE_SECONDS", 0) if etag is not None else config.get("PUBLIC_CACHE_SECONDS", 5)
    return f"public, max-age={seconds}" if seconds > 0 else "public, no-cache"


def _edge_headers(response):
    headers = response.headers
    headers.setdefault("X-Content-Type-Options", "nosniff")
    headers.setdefault("Referrer-Policy", "no-referrer")
    # The environ, not request.method and request.headers: this runs on every answer.
    environ = request.environ
    method = environ["REQUEST_METHOD"].upper()
    if method == "OPTIONS":
        return response
    credentials = "HTTP_AUTHORIZATION" in environ
    if credentials or "Cache-Control" not in headers or response.status_code >= 400:
        headers["Cache-Control"] = cache_control(response.status_code, method, credentials,
                                                 headers.get("ETag"), request.blueprint, current_app.config)
    if (response.mimetype or "").lower() == "text/html":  # Werkzeug keeps the header's case
        headers["Content-Security-Policy"] = _page_csp(response)
        headers["X-Frame-Options"] = "DENY"
        headers["Cross-Origin-Opener-Policy"] = "same-origin"
    return response


def _page_csp(response) -> str:
    endpoint = request.endpoint or ""
    if not endpoint.startswith(_FIXED_TEMPLATE_PAGES) or response.status_code != 200 or response.is_streamed:
        return _render_csp(_BASE_CSP)
    cached = current_app.extensions["edge_csp"]
    if endpoint not in cached:
        cached[endpoint] = _render_csp(_fixed_page_policy(response.get_data(as_text=True)))
    return cached[endpoint]


def _fixed_page_policy(html: str) -> dict:
    """The base policy plus the hashes of the page's inline blocks and the origin of its CDN assets."""
    policy = {name: list(sources) for name, sources in _BASE_CSP.items()}
    for tag, attributes, content in _INLINE.findall(html):
        if tag.lower() == "script" and "src=" in (attributes or ""):
            continue
        digest = base64.b64encode(hashlib.sha256(content.encode()).digest()).decode()
        policy["script-src" if tag.lower() == "script" else "style-src"].append(f"'sha256-{digest}'")
    cdn = current_app.config.get("OPENAPI_SWAGGER_UI_URL") or ""
    if request.endpoint == "api-docs.openapi_swagger_ui" and cdn.startswith("https://"):
        origin = "https://" + urlsplit(cdn).netloc
        policy["script-src"].append(origin)
        policy["style-src"].append(origin)
    return policy


def _render_csp(policy: dict) -> str:
    return "; ".join(f"{name} {' '.join(sources)}" for name, sources in policy.items())

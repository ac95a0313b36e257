"""Bearer tokens in requests: read only from ``Authorization``, never from a URL.

Tokens themselves (minting, hashing, the owner's check) are ``service.usecases.tokens``'.
"""

from __future__ import annotations

from flask import request

from ..usecases.errors import ServiceError

#: Query parameters that would carry a credential: refused, so that no token reaches a URL
#: (access logs, browser history, Referer headers).
CREDENTIAL_PARAMS = frozenset({"token", "access_token", "auth", "auth_token", "authorization", "bearer",
                                "api_key", "apikey"})


def refuse_query_token() -> None:
    """A credential in the query string is 400 ``TOKEN_IN_QUERY``: tokens travel only in ``Authorization``."""
    if not request.environ.get("QUERY_STRING"):
        return  # most requests: no query string to parse
    for name, value in request.args.items(multi=True):
        if name.lower() in CREDENTIAL_PARAMS or value[:7].lower() == "bearer ":
            raise ServiceError("TOKEN_IN_QUERY", param=name[:40])


def presented_token() -> str | None:
    """The bearer token of a well-formed ``Authorization`` header, else None (never raises: rate limits key by it).

    An owner-only request without a well-formed one is 401 all the same (the use case's
    owner check).
    """
    scheme, _, token = request.headers.get("Authorization", "").strip().partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token or len(token) > 200:
        return None
    return token


def bearer_token() -> str | None:
    """The request's bearer token, None without an ``Authorization`` header; a malformed one is 401."""
    if "Authorization" not in request.headers:
        return None
    token = presented_token()
    if token is None:
        raise ServiceError("AUTH_REQUIRED")
    return token

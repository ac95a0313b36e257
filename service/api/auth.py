"""Bearer tokens: minted once, stored as SHA-256 hashes, compared in constant time."""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets

from flask import request

from ..store import PlayerRow, players
from .problems import ApiProblem

_CHALLENGE = {"WWW-Authenticate": 'Bearer realm="solitaire"'}


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
            raise ApiProblem("TOKEN_IN_QUERY", param=name[:40])


def new_token() -> str:
    return secrets.token_urlsafe(32)


#: What :func:`new_id` makes; anything else names no game or player and is never queried
#: (PostgreSQL refuses a NUL in a string, for one).
ID_PATTERN = r"^[A-Za-z0-9_-]{1,24}$"
_ID = re.compile(ID_PATTERN)


def new_id() -> str:
    return secrets.token_urlsafe(12)


def is_id(text: str) -> bool:
    return _ID.match(text) is not None


def hash_token(token: str) -> str:
    # Tokens carry 256 random bits, so a plain digest is as good as a slow KDF here.
    return hashlib.sha256(token.encode()).hexdigest()


def presented_token() -> str | None:
    """The bearer token of a well-formed ``Authorization`` header, else None (never raises: rate limits key by it)."""
    scheme, _, token = request.headers.get("Authorization", "").strip().partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token or len(token) > 200:
        return None
    return token


def bearer_token() -> str | None:
    """The request's bearer token, None without one; a malformed header is 401."""
    if "Authorization" not in request.headers:
        return None
    token = presented_token()
    if token is None:
        raise ApiProblem("AUTH_REQUIRED", headers=_CHALLENGE)
    return token


def require_owner(token_hash: str | None) -> None:
    """Let the request through only with the token whose hash is ``token_hash``."""
    token = bearer_token()
    if token is None:
        raise ApiProblem("AUTH_REQUIRED", headers=_CHALLENGE)
    if token_hash is None or not hmac.compare_digest(hash_token(token), token_hash):
        raise ApiProblem("FORBIDDEN")


def optional_player() -> PlayerRow | None:
    """The player whose token the request carries, None without a token; an unknown one is 401."""
    token = bearer_token()
    if token is None:
        return None
    digest = hash_token(token)
    player = players.player_by_token_hash(digest)
    if player is None or not hmac.compare_digest(player.token_hash, digest):
        raise ApiProblem("AUTH_REQUIRED", headers=_CHALLENGE)
    return player

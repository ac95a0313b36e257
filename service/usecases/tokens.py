"""Ids and bearer tokens: minted once, stored as SHA-256 hashes, compared in constant time."""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets

from .errors import ServiceError

#: What :func:`new_id` makes; anything else names no game or player and is never queried
#: (PostgreSQL refuses a NUL in a string, for one).
ID_PATTERN = r"^[A-Za-z0-9_-]{1,24}$"
_ID = re.compile(ID_PATTERN)


def new_token() -> str:
    return secrets.token_urlsafe(32)


def new_id() -> str:
    return secrets.token_urlsafe(12)


def is_id(text: str) -> bool:
    return _ID.match(text) is not None


def hash_token(token: str) -> str:
    # Tokens carry 256 random bits, so a plain digest is as good as a slow KDF here.
    return hashlib.sha256(token.encode()).hexdigest()


def require_owner(token: str | None, token_hash: str | None) -> None:
    """Let a write through only with the token whose hash is ``token_hash``: 401 without a token, else 403."""
    if token is None:
        raise ServiceError("AUTH_REQUIRED")
    if token_hash is None or not hmac.compare_digest(hash_token(token), token_hash):
        raise ServiceError("FORBIDDEN")

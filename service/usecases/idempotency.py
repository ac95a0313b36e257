"""Idempotency-Key: a retried request gets the first answer, and changes nothing.

Actions (:mod:`.actions`) and creates (a new game, a new player) share the key's
rules: the key is 1 to 128 printable characters; the same key with another request
(another endpoint or body: another ``fingerprint``) is 422 ``IDEMPOTENCY_KEY_REUSED``.
The first answer is stored in the same transaction as the change it describes, so a
retry finds either both or neither. What is stored is the answer as the caller wrote
it (``Idempotency.present``): the HTTP layer keeps the exact bytes it sent.

A create's answer holds a new token: it is stored masked with a keystream derived
from the key, and looked up by a hash of the key, so the table alone gives neither
the key nor the token away.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass

from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError

from ..store import idempotent_answers
from .errors import ServiceError, invalid

MAX_KEY_LENGTH = 128


@dataclass(frozen=True, slots=True)
class StoredAnswer:
    """An answer as kept for a retry: status, headers (as pairs) and the exact body bytes.

    ``raw`` is None for an action answered before migration 0004 kept the bytes: its
    ``body`` (JSON) is all there is.
    """

    status: int
    headers: list
    raw: bytes | None
    body: dict | None = None


@dataclass(frozen=True, slots=True)
class Idempotency:
    """A request sent with an ``Idempotency-Key``: answered once, that answer replayed to every retry.

    ``key``: the header as sent (checked by the use case, after the checks that come first);
    ``fingerprint``: what makes two requests the same (their endpoint and body), asked
    for when the key is looked up; ``present``: how the caller writes an outcome down
    (the use case keeps it with the key); ``endpoint``: for a create, where it was sent.
    """

    key: str
    fingerprint: Callable[[], str]
    present: Callable[[object], StoredAnswer]
    endpoint: str = ""

    def checked_key(self) -> str:
        """The key without its surrounding blanks; a malformed one is 400."""
        key = self.key.strip()
        if not key or len(key) > MAX_KEY_LENGTH or not key.isprintable():
            raise invalid("Idempotency-Key", f"1 to {MAX_KEY_LENGTH} printable characters.")
        return key


# -- actions: under the game's lock -------------------------------------------------------


def answered_action(connection: Connection, game_id: str, idempotency: Idempotency | None) -> StoredAnswer | None:
    """The stored answer of this action's key on this game, or None (then the action runs)."""
    if idempotency is None:
        return None
    key, fingerprint = idempotency.checked_key(), idempotency.fingerprint()
    stored = idempotent_answers.find_answer(connection, game_id, key)
    if stored is None:
        return None
    if stored.fingerprint != fingerprint:
        raise ServiceError("IDEMPOTENCY_KEY_REUSED")
    return StoredAnswer(stored.status, stored.headers, stored.raw, stored.body)


def keep_action_answer(connection: Connection, game_id: str, idempotency: Idempotency | None, outcome) -> None:
    """Store the answer to ``outcome`` with the key, in the action's transaction (nothing without a key)."""
    if idempotency is None:
        return
    answer = idempotency.present(outcome)
    idempotent_answers.stage_answer(connection, game_id, idempotency.checked_key(), idempotency.fingerprint(),
                                    answer.status, answer.headers, answer.raw)


# -- creates: keyed by who asked, where, and the key ------------------------------------------


#: An anonymous create's key is all that tells its client apart (an address is shared behind a
#: NAT and changes with a phone's network): it must be unguessable, as a UUID is.
MIN_ANONYMOUS_KEY_LENGTH = 16


def create_scope(key: str, owner: str | None, endpoint: str) -> str:
    """The stored row's id: who asked, where, and the key — hashed.

    "Who" is the bearer token's hash; without a token, nobody but the key itself: the
    key is scoped to what it protects, the one resource its create makes, not to the
    client's address (two players behind one NAT never meet; a retry from another
    address finds its first answer). Such a key must be unguessable
    (:data:`MIN_ANONYMOUS_KEY_LENGTH`), and the stored answer, with its fresh token, is
    masked with it (:func:`mask`).
    """
    who = owner or "anonymous"
    return hashlib.sha256(f"{who}\n{endpoint}\n{key}".encode()).hexdigest()


def mask(data: bytes, key: str) -> bytes:
    """XOR ``data`` with a SHAKE-256 keystream of the key: masking and unmasking are the same call.

    >>> mask(mask(b'{"token": "t"}', "k1"), "k1")
    b'{"token": "t"}'
    """
    stream = hashlib.shake_256(b"solitaire idempotent create\0" + key.encode()).digest(len(data))
    return (int.from_bytes(data, "big") ^ int.from_bytes(stream, "big")).to_bytes(len(data), "big")


def created_once(idempotency: Idempotency | None, owner: str | None, create: Callable[[Callable], object]):
    """Run a create once per key: ``create(keep)`` makes the row and returns its result.

    ``create`` must call ``keep(result)`` inside its write transaction, so that the answer
    is stored in the same commit as the row it describes. Returns the result, or the
    :class:`StoredAnswer` of the first request with this key. Without a key it simply
    runs. ``owner``: the bearer token's hash (None: anonymous), so two clients' keys never meet.
    """
    if idempotency is None:
        return create(lambda result: None)
    key = idempotency.checked_key()
    if owner is None and len(key) < MIN_ANONYMOUS_KEY_LENGTH:
        raise invalid("Idempotency-Key", f"Without a bearer token, at least {MIN_ANONYMOUS_KEY_LENGTH} "
                                         "characters (a UUID): the key alone identifies the create.")
    scope = create_scope(key, owner, idempotency.endpoint)
    fingerprint = idempotency.fingerprint()
    replayed = _created(scope, fingerprint, key)
    if replayed is not None:
        return replayed

    def keep(result) -> None:
        answer = idempotency.present(result)
        idempotent_answers.stage_created(scope, fingerprint, answer.status, answer.headers, mask(answer.raw, key))

    try:
        return create(keep)
    except IntegrityError:
        # A concurrent request with the same key committed first (PostgreSQL): answer as it did.
        replayed = _created(scope, fingerprint, key)
        if replayed is None:
            raise
        return replayed


def _created(scope: str, fingerprint: str, key: str) -> StoredAnswer | None:
    stored = idempotent_answers.find_created(scope)
    if stored is None:
        return None
    if stored.fingerprint != fingerprint:
        raise ServiceError("IDEMPOTENCY_KEY_REUSED")
    return StoredAnswer(stored.status, stored.headers, mask(stored.body, key))

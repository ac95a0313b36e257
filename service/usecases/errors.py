"""The use cases' refusals: a stable problem code with its params, answered by the HTTP layer as problem+json."""

from __future__ import annotations

from ..problem_codes import PARAMS


class ServiceError(Exception):
    """A refusal with a code of :data:`service.problem_codes.PARAMS` and its params (and, for a malformed
    request, ``errors``: each field's messages).

    >>> error = ServiceError("GAME_NOT_FOUND", game="g1")
    >>> error.code, error.params
    ('GAME_NOT_FOUND', {'game': 'g1'})
    """

    def __init__(self, code: str, *, errors: dict | None = None, **params) -> None:
        if code not in PARAMS:
            raise ValueError(f"not a problem code: {code}")
        super().__init__(code)
        self.code = code
        self.params = params
        self.errors = errors


def invalid(field: str, message: str) -> ServiceError:
    """400 ``INVALID_REQUEST`` naming one field (or header) and what is wrong with it."""
    return ServiceError("INVALID_REQUEST", errors={field: [message]})

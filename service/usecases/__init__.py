"""What the service does, one plain function a use case: no HTTP, no Flask.

A use case takes plain arguments (ids, the bearer token presented, an action, a
cursor, an :class:`~.idempotency.Idempotency`…), works through the store and the
engine in one pass, and returns a plain result (a dataclass or a store record) or
raises :class:`~.errors.ServiceError` (a problem code and its params) or the engine's
:class:`~service.engine.Rejection`. The HTTP layer (``service.api``) turns a request
into the call and the result into an answer; tests call them directly.

* :mod:`.actions` — play an action on a game (``play``), under the game's lock;
* :mod:`.games` — deal a game, read it, its history, its legal actions, a hint;
* :mod:`.players` — register, read with statistics, list a player's games;
* :mod:`.boards` — leaderboards, the daily deal, the feed of finished games, a game's verification.

They need an app context (the store's database), never a request.
"""

"""Conformance vectors: what the Python engine does, as JSONL that any other engine must reproduce.

    flask --app service vectors [--out FILE] [--seed N] [--actions N]
    python -m service.vectors [--out FILE] [--seed N] [--actions N]     (the same, without Flask)

Every line is one JSON object (compact, UTF-8), by ``kind``:

- ``{"kind": "deal", "code", "tableau", "stock"}``: the deal of each of the first 1,000 deal
  numbers (then of the last and of 24 others), the stock in full (first card drawn first).
- ``{"kind": "game", "code", "actions", "results", "outcomes"}``: a game as notations and, per
  action, exactly what a conformance runner prints (``{"ok": true, "game": …}`` or
  ``{"ok": false, "code", "params"}``) and the accepted action's outcome (the API's ``last``,
  null when rejected). A bad code has ``"error"`` instead of ``results``: the runner's one line.
  So a runner's output line must equal the vector line less ``kind``, ``code``, ``actions`` and
  ``outcomes``.
- ``{"kind": "legal", "code", "actions", "legal"}``: every legal action after the actions, in
  the engine's order.
- ``{"kind": "state", "code", "actions", "state"}``: the engine's ``to_state()`` after them
  (another engine reads it and writes the same).

Games are random legal play interleaved with probes aimed at whatever is still rare (every
rejection code, every scoring entry, taps and double taps, the undo limit, malformed
notations), and the solver's winning lines, each probed along the way and then refused after
the win. The solver runs on a node budget and a clock that counts its slices, so the vectors
depend on the seed only (and on the solver's build: its C core and its pure-Python fallback
find different lines). The command prints the coverage to stderr and fails when a minimum
(:data:`MINIMUMS`) is not met.

:func:`fingerprint` hashes a small, systematic set of the engine's answers: a test holds it to
``tests/engine/rules_fingerprints.json`` for the current ``RULES_VERSION``.

The package, a job a module: :mod:`.results` (the runner's lines: a game's results, a deal,
compact JSON), :mod:`.coverage` (the entries, their minimums and how an action counts),
:mod:`.probes` (the malformed notations, bad codes and targeted probes), :mod:`.writer` (the
lines in order: deals, bad codes, the solver's games, random games), :mod:`.command` (the
click command and its report), :mod:`.fingerprint`.
"""

from __future__ import annotations

from .command import coverage_report, generate, vectors_command
from .coverage import ACTIONS, MINIMUMS, WON
from .fingerprint import fingerprint
from .probes import BAD_CODES, MALFORMED
from .results import INVALID_REQUEST, action_result, deal_line, dumps, replay_results
from .writer import DEFAULT_ACTIONS, VectorWriter

__all__ = ["ACTIONS", "BAD_CODES", "DEFAULT_ACTIONS", "INVALID_REQUEST", "MALFORMED", "MINIMUMS", "WON",
           "VectorWriter", "action_result", "coverage_report", "deal_line", "dumps", "fingerprint", "generate",
           "replay_results", "vectors_command"]

"""The C core of the searches (``_csearch``), behind the interface of :class:`Searcher`.

:class:`CSearcher` is a :class:`~service.solver.search.Searcher` whose
:meth:`~CSearcher.dfs` and :meth:`~CSearcher.best_first` run in the compiled
module ``service.solver._csearch``
(built by ``pip install``; see ``pyproject.toml``): the same positions, moves,
automatic safe plays, transposition key and pruning, about fifty times faster.
The Python search stays the reference; :data:`BACKEND` says which one
:func:`service.solver.solve` uses (``"c"``, or ``"python"`` when the module did
not build or import, so that a broken build never breaks the service).

The C search keeps an exact 24-byte encoding of the canonical key of every
position it has met (``make_key`` in ``_csearch.c``; a hash only picks the slot),
so a hash collision cannot prune a position.  A win it
finds comes back as moves, replayed here through :meth:`Searcher.apply` into the
usual ``(state_before, move)`` path, which the caller then replays through the
engine.
"""

from __future__ import annotations

import logging

from .search import MEMORY, NODES, Budget, Searcher, doomed

try:
    from . import _csearch
except ImportError:  # pragma: no cover - a machine where the extension did not build
    _csearch = None

log = logging.getLogger(__name__)

#: the depth-first search in use: "c" (the compiled core) or "python"
BACKEND = "c" if _csearch is not None else "python"

#: positions per slice between two yields (a slice takes a few milliseconds)
SLICE = 4096
#: what Search.step answers besides "still running" (0)
WON, EXHAUSTED, OVER_MEMORY = 1, 2, 3
#: the C core's error when make_key meets a position its encoding does not cover
OUTSIDE_THE_KEY = "a position outside its root's reach"
#: the C core's refusal of a root whose columns could grow past its fixed size (``MAXCOL``)
TOO_TALL = "a column could outgrow the C core's columns"
#: the C core's refusal of a klondike root with more face-down cards in a column than a deal has
TOO_MANY_DOWN = "more face-down cards in a column than the C core's keys hold"


class CSearcher(Searcher):
    """:class:`Searcher` with :meth:`dfs` and :meth:`best_first` in C (needs ``_csearch``)."""

    def dfs(self):
        """The same generator as :meth:`Searcher.dfs`: yields between slices, returns the path or None.

        Raises :class:`Budget` when ``max_nodes`` is reached.
        """
        return self._search(best_first=False)

    def best_first(self):
        """The same generator as :meth:`Searcher.best_first`, in C."""
        return self._search(best_first=True)

    def _search(self, *, best_first: bool):
        record: list = []
        state = self.autoplay(self.root, record)
        if sum(state[1]) == 52:
            return record
        self.nodes = 1
        max_nodes = self.max_nodes if self.max_nodes is not None else float("inf")
        if max_nodes <= 1:
            raise Budget(NODES)
        yield
        if doomed(state[0], state[1], state[2], state[4] if len(state) > 4 else None):
            return None
        try:
            search = _csearch.Search(list(state[0]), state[1], state[2], state[3], self.draw, self.streamline,
                                     self.whole_groups, best_first, bool(self.pend_kinds), self.max_bytes or 0,
                                     self.low_autoplay, self.autoplays, self.shuffle,
                                     # by name, and only under the klondike variant: other builds of
                                     # the core (bench/solver --core) still search ours
                                     **({"down": state[4]} if len(state) > 4 else {}))
        except ValueError as error:
            if str(error) not in (TOO_TALL, TOO_MANY_DOWN):
                raise
            # Not a position of a game (its columns are at most 19 cards, and stay so; at most 6
            # cards are dealt face down): one built by hand, past the C core's fixed sizes.
            return (yield from self._in_python(best_first))
        while True:
            try:
                status = search.step(int(min(self.nodes + SLICE, max_nodes)))
            except RuntimeError as error:
                if str(error) != OUTSIDE_THE_KEY:
                    raise
                # make_key met a position outside what its exact encoding covers (docs/SOLVER.md
                # §5): never seen, but a verdict must not rest on it. The Python search's keys
                # are the positions themselves; it starts over from the root with the nodes left.
                log.exception("the C search left its key's domain; searching again in Python")
                if self.max_nodes is not None:
                    self.max_nodes = max(1, self.max_nodes - self.nodes)
                return (yield from self._in_python(best_first))
            self.nodes, self.table_bytes = search.nodes, search.bytes
            if status == WON:
                return record + self._replay(state, search.path())
            if status == EXHAUSTED:
                return None
            if status == OVER_MEMORY:
                raise Budget(MEMORY)
            if self.nodes >= max_nodes:
                raise Budget(NODES)
            yield

    def _in_python(self, best_first: bool):
        return Searcher.best_first(self) if best_first else Searcher.dfs(self)

    def _replay(self, state, moves) -> list:
        """The ``(state_before, move)`` path of ``moves`` played from ``state``; it must win."""
        path = []
        for move in moves:
            path.append((state, move))
            state = self.apply(state, move)
        if sum(state[1]) != 52:
            raise AssertionError("C search line does not win")
        return path

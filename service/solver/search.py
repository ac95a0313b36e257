"""Depth-first search for a win, with a transposition table and only provably safe pruning.

Internal state
--------------
A position is the tuple ``(cols, found, talon, p)``:

* ``cols`` — 7 ``bytes`` (card numbers, bottom first), in the real column order;
* ``found`` — 4 foundation counts (S, H, D, C);
* ``talon`` — ``bytes``: the waste (bottom to top) followed by the stock in the
  order it will be drawn, i.e. the whole stock+waste as one pass of the cycle;
* ``p`` — how many talon cards are on the waste; the playable card is
  ``talon[p - 1]`` when ``p > 0``;
* in the klondike variant only (the literature's, ``down=`` given), a fifth
  item ``down``: per column, how many of its first cards are still face down.
  A group moves only from a face-up card, and a column that loses its cards
  down to the face-down ones turns the next one up (:meth:`Searcher.apply`).

A draw moves ``p`` to ``min(p + N, len(talon))``; a recycle (only when
``p == len(talon)``) moves it back to 0 without changing the order, exactly as
the engine does.  Drawing and recycling change nothing but ``p``, and passes are
unlimited, so the search never makes them alone: a talon move is the macro move
"draw/recycle until card *i* is on top, then play it", generated for every
reachable *i* (draw 1: every card; draw N: ``p``, ``p+N``, … up to the end of
the stock, then ``N``, ``2N``, … after a recycle).  Playing ``talon[i]`` leaves
``talon[:i] + talon[i+1:]`` with ``p = i``, which is where the draw grouping
shifts.  The macro move is expanded back into real ``draw``/``recycle``
actions when the line is written out.

Transpositions
--------------
The key of a position ignores what cannot change its winnability:

* the column order (columns are sorted in the key) — the rules treat all
  seven columns alike;
* the foundations (they are implied by the cards still in play);
* in draw 1, the talon order and ``p``: every talon card is reachable at any
  time by drawing and recycling, so the talon is just a set of free cards;
* in draw N, ``p`` (the key leaves it out; see :meth:`Searcher.visit`): from
  ``p`` the player reaches ``p + N``, ``p + 2N``, … by drawing, and ``p = 0`` by
  drawing to the end and recycling, so a position already met with a ``p'``
  no greater than ``p`` and equal to it modulo N reaches everything this one
  reaches, and so does any position with the same key when ``p`` is a multiple
  of N or the end of the talon (which reach nothing more than ``p = 0``).  The
  table keeps, per key, the least ``p`` met of each residue.

Pruning (each rule is safe for *our* rules; see the argument next to it)
----------------------------------------------------------------------
(Each is safe under the klondike variant too, where an ordered group is the
face-up part of a column's top run: docs/SOLVER.md, section 8, re-reads every
argument for it.)
1. Safe foundation plays are made automatically (``_safe``).
2. A king that is already the bottom card of its column is never moved to an
   empty column, and a king goes only to the first empty column: both
   give a position whose key is one already generated (columns are sorted).
3. A take-back of a card that the safe rule would play straight back is not
   generated: auto-play would undo it, giving the parent position again.
4. Transpositions and the waste's dominance (above).
5. A position that :func:`doomed` proves lost is not searched (always the root;
   every position only with ``prune=True``, which costs more than it saves).
6. With ``whole_groups=True`` (the complete search of :func:`service.solver.solve`),
   part of an ordered group moves only when the card it uncovers can go to its
   foundation at once.  Blake & Gent prove this for thoughtful Klondike; the
   proof carries over because it uses only what our rules share with it: any
   ordered group may move, a card goes onto either of its two parents (same
   rank, same colour), and an empty column takes only a king.  Say part of a
   group, G (base Y), moves off X: its only other place is X', the other card
   of X's rank and colour.  Compare the line that plays it (T') with one that
   does not (T): they differ only in which of X and X' carries which stack.
   Every later move of T' has a twin in T — a move of (part of) a stack or of
   X or X' with what lies on and under them is made from the twin card, which
   is legal because the stacks' bases fit X and X' alike, and a card placed on
   one goes on the other — and no twin changes what the moved group uncovers,
   so it is partial and bad exactly when the original is.  A whole stack can
   leave X or X' only for the other one (its base's only parents) or, as one
   card, for its foundation; the first makes T equal to T' at no cost.  The
   twinning fails only when X (or X') goes to its foundation in T' while it
   carries a stack in T: there T first moves that stack onto the other card,
   a partial move whose uncovered card goes to its foundation at once, and
   the two positions are equal again.  So the last bad partial move of a
   winning line can be removed without lengthening it, and a winnable position
   has a winning line with none.  (tests/solver checks the restricted search
   against the unrestricted one and against a brute force over the engine.)

7. With ``pending=True`` (the complete search too), a *free card* is put down
   only to be used at once.  Free cards are a foundation's top card and, in
   draw 1, a talon card: either can be had at any time, and putting it down
   onto a column changes nothing else.  So a take-back of X must be followed by
   a move that puts a card on X (from a column, the talon or a foundation) or
   takes back the card under X in its foundation; a draw-1 talon card C put on
   a column, by a move that puts a card on C.  Proof: in a winning line, move
   such a put-down later, past every move that neither uses its card nor moves
   it.  Each of those is as legal without it (nothing could go on the card it
   covers; its foundation or the talon keeps what they need) and it stays legal
   after them.  The move that stops it uses the card (done), or moves it alone
   to its foundation or another column (one shorter move does the same), or
   moves the card under it along with it (move that card alone first and put
   the free card down after it: same length, the put-down later).  In a
   shortest line with put-downs as late as possible, every put-down is used by
   the next move, except two put-downs waiting for the one move that uses both:
   a take-back of the card under one of them in its foundation onto the other.
   So after a put-down the search allows a second one only when the two can be
   used that way (same rank, other colour, one of them a take-back), and then
   only that take-back.  Auto-play does nothing after a put-down (a taken-back
   card is not safe, by rule 3; the foundations only went down), and a
   restricted position is neither recorded in the table, where it would hide
   the same position met without the restriction, nor looked up
   (:meth:`Searcher.fresh`).  (tests/solver checks the rule against the search
   without it and against a brute force over the engine.)

Nothing else is pruned: every whole ordered group onto any column that accepts
it, every take-back onto any column that rule 7 allows, every talon play.

How these rules combine — auto-play, rules 3, 6 and 7, the table and the waste
dominance together — is argued in docs/SOLVER.md, for the complete search as
solve() runs it (``low_autoplay=True``: only what :func:`low_card` names is auto-played).
"""

from __future__ import annotations

import heapq
import sys
import time

# -- card tables -------------------------------------------------------------

RANK = tuple(c % 13 for c in range(52))  # 0 (ace) … 12 (king)
SUIT = tuple(c // 13 for c in range(52))
RED = tuple(13 <= c < 39 for c in range(52))
_OPPOSITE = {0: (1, 2), 3: (1, 2), 1: (0, 3), 2: (0, 3)}
_SAME_OTHER = {0: 3, 3: 0, 1: 2, 2: 1}
OPPOSITE = tuple(_OPPOSITE[s] for s in range(4))
SAME_OTHER = tuple(_SAME_OTHER[s] for s in range(4))
#: the (two) cards a card may be placed on in a column: one rank higher, other colour
PARENTS = tuple(
    () if RANK[c] == 12 else tuple(s * 13 + RANK[c] + 1 for s in OPPOSITE[SUIT[c]]) for c in range(52)
)
KING = 12
#: the (two) cards that may be placed on a card: one rank lower, other colour
CHILDREN = tuple(tuple(x for x in range(52) if c in PARENTS[x]) for c in range(52))
KINGS = (12, 25, 38, 51)

#: rule 7's pending cards: the card, | PEND_FC when it came from a foundation
PEND_FC, PEND_CARD = 0x80, 0x3F

# Move kinds.
CC = 0  # column src, from index i, onto column dst
CF = 1  # top of column src to its foundation
TC = 2  # talon card i onto column dst
TF = 3  # talon card i to its foundation
FC = 4  # top of foundation s back onto column dst


def safe_to_foundation(card: int, found) -> bool:
    """True when playing ``card`` (already playable) to its foundation can never hurt.

    Aces and twos always; a card of rank r (1-based) when both foundations of
    the other colour hold at least r-2 cards and the other foundation of its
    colour at least r-3.  This is the bound proven safe when foundation cards
    may come back to the tableau (Blake & Gent); the popular "both opposite
    r-1 are up" rule is *not* safe with take-backs and is not used.
    """
    r = RANK[card] + 1
    if r <= 2:
        return True
    o1, o2 = OPPOSITE[SUIT[card]]
    return found[o1] >= r - 2 and found[o2] >= r - 2 and found[SAME_OTHER[SUIT[card]]] >= r - 3


def eager_to_foundation(card: int, found) -> bool:
    """The popular rule (both opposite-colour r-1 up): NOT safe here, used only to streamline."""
    r = RANK[card] + 1
    if r <= 2:
        return True
    o1, o2 = OPPOSITE[SUIT[card]]
    return found[o1] >= r - 1 and found[o2] >= r - 1


def low_card(card: int, found) -> bool:
    """True for aces, twos, and a card nothing in play can need: the only cards the complete search auto-plays.

    It qualifies when every card of the other colour below its rank and every card of its
    own colour two ranks below it or lower are on the foundations: docs/SOLVER.md proves
    (L1, L1') that playing such a card never lengthens a win.
    """
    rank = RANK[card]  # 0 for an ace: a foundation of `rank` cards holds every rank below this card's
    if rank <= 1:
        return True
    o1, o2 = OPPOSITE[SUIT[card]]
    return found[o1] >= rank and found[o2] >= rank and found[SAME_OTHER[SUIT[card]]] >= rank - 1


def talon_reach(n_talon: int, p: int, draw: int) -> list[int]:
    """Indexes of the talon cards that can be brought to the top of the waste."""
    if draw == 1:
        return list(range(n_talon))
    seen = []
    if p > 0:
        seen.append(p - 1)
    q = p
    while q < n_talon:
        q = min(q + draw, n_talon)
        seen.append(q - 1)
    q = 0
    while q < n_talon:
        q = min(q + draw, n_talon)
        if q - 1 not in seen:
            seen.append(q - 1)
    return seen


def talon_steps(n_talon: int, p: int, draw: int, index: int) -> tuple[list[str], int]:
    """The draws/recycles that bring talon card ``index`` to the top, and the new ``p``."""
    steps: list[str] = []
    for _ in range(2 * n_talon + 4):
        if p - 1 == index:
            return steps, p
        if p == n_talon:
            steps.append("recycle")
            p = 0
        else:
            steps.append("draw")
            p = min(p + draw, n_talon)
    raise AssertionError(f"talon card {index} not reachable from p={p}")


def doomed(cols, found, talon, down=None) -> bool:
    """True when the position is provably lost: some card can never reach its foundation.

    A necessary-condition analysis, sound for our rules (take-backs included).
    Split each column into *blocks*, its maximal ordered runs.  Times are future
    moments; for a card X, U(X) is the first time X reaches its foundation, T(X)
    the first time X is the last card of a column, and for the bottom card W of a
    block (not the column's first card), L(W) the first time W leaves its column.

    * U(X), X not up yet: the next lower card of X's suit must be up before, so
      U(lower) < U(X).  If X lies in a column, X must be the last card of some
      column then; the cards of the blocks above X's block cannot travel with X
      (the card under each such block's bottom stays the same while that bottom is
      there, and it does not take it), so each of those bottoms B has left first:
      L(B) < U(X).  X in the talon: nothing more is required (over-estimate).
    * T(P), P in a column: likewise L(B) < T(P) for each bottom B above P's block.
      P in the talon or on a foundation: assumed possible (it may be played or
      taken back onto a column).
    * L(W): W leaves only as the base of a moved group (the card under W is not its
      parent and cannot change while W is there, so W never moves with a card
      under it), or alone to its foundation.  So W goes to its foundation
      (U(W) = L(W): needs U(lower) and the blocks above gone, as above), or onto one
      of its two parents P, which is the last card of a column just before:
      T(P) < L(W); or W is a king, to an empty column (assumed possible).

    Each requirement is strictly earlier, so an event whose every way needs itself
    earlier (a cycle) never happens.  The least fixed point below marks the events
    that have a way without such a cycle (an over-estimate of what can happen);
    when some card's U is not marked, that card never reaches its foundation and
    the position is lost.

    ``down`` (the klondike variant: each column's face-down count): a card that lies on a
    face-down card starts a block of its own too, the card under it being unable to move
    with it (it is face down until the card leaves); the rest of the argument is unchanged.
    """
    loc = {}
    bottoms = []
    for c, col in enumerate(cols):
        prev = -1
        under = down[c] if down is not None else 0
        for i, card in enumerate(col):
            loc[card] = (c, i)
            if i and (prev not in PARENTS[card] or i <= under) and RANK[card] != KING:
                bottoms.append((c, i, card))
            prev = card
    if not bottoms:
        return False
    upto = list(found)
    while True:
        # stuck[c]: highest index of a bottom of column c whose L is not (yet) possible;
        # the card at index i of column c can become a last card only if i >= stuck[c].
        stuck = [-1] * 7
        for c, i, _card in bottoms:
            if i > stuck[c]:
                stuck[c] = i
        for s in range(4):
            n = upto[s]
            while n < 13:
                where = loc.get(s * 13 + n)
                if where is not None and where[1] < stuck[where[0]]:
                    break
                n += 1
            upto[s] = n
        still = []
        for bottom in bottoms:
            card = bottom[2]
            if RANK[card] < upto[SUIT[card]]:
                continue
            for parent in PARENTS[card]:
                where = loc.get(parent)
                if where is None or where[1] >= stuck[where[0]]:
                    break
            else:
                still.append(bottom)
        if len(still) == len(bottoms):
            return upto != [13, 13, 13, 13]
        bottoms = still
        if not bottoms:
            return False


#: the noise :func:`shuffle_noise` adds to a move's score is below this (the C core's
#: SHUFFLE_SPREAD must be the same): a strong shuffle that still leans on the scores, whose
#: neighbours are closer than 60 (on random streamlined positions about a third of the move
#: pairs swap, a random order would swap half). Chosen in a first experiment, restarts alone
#: for 1 s on the 28 slow draw-1 deals of bench/solver not proven lost: 60 won 12, 120
#: won 11, 30 won 8 (to rerun, rebuild the C core with another value)
SHUFFLE_SPREAD = 60
_WORD = 0xFFFFFFFF


def shuffle_noise(seed: int, move: tuple) -> int:
    """A move's noise for a seed, in ``range(SHUFFLE_SPREAD)``: a 32-bit hash the C core computes alike."""
    kind, a, b, c = (*move, 0, 0)[:4]
    h = ((seed * 0x9E3779B1) ^ (kind * 0x85EBCA77 + a * 0xC2B2AE3D + b * 0x27D4EB2F + c * 0x165667B1)) & _WORD
    h ^= h >> 15
    h = (h * 0x2C1B3C6D) & _WORD
    h ^= h >> 12
    h = (h * 0x297A2D39) & _WORD
    h ^= h >> 15
    return h % SHUFFLE_SPREAD


#: why a search stopped without a verdict (:attr:`Budget.reason`)
TIME, NODES, MEMORY = "time", "nodes", "memory"

#: bytes a recorded position costs the Python table beyond its key: the dict slot (about
#: 3 words at the dict's load) and its ``[0, p, p]`` list (small ints are shared)
PY_ENTRY_BYTES = 3 * 8 + sys.getsizeof([0, 255, 255])
#: bytes a position met costs the Python best-first search beyond its table entry: its state
#: (new tuples and columns), its record in ``met`` and its queue item (tracemalloc: tests/solver/test_memory.py)
BEST_FIRST_NODE_BYTES = 500


class Budget(Exception):
    """Raised inside the search when a budget is spent; ``reason``: TIME, NODES or MEMORY."""

    def __init__(self, reason: str = NODES) -> None:
        super().__init__(reason)
        self.reason = reason


class Searcher:
    """One search from one position; :meth:`run` returns the winning move path or None."""

    @classmethod
    def from_game(cls, game, draw: int | None = None, **options):
        """A search from ``game``'s current position, in ``draw`` (by default the game's own mode).

        The talon is the waste from its bottom then the stock from its top, the order the cards
        come out in after a recycle; ``p``, where the stock starts, is the waste's length.
        Under the game's variant: klondike's face-down cards come along (``down``).
        """
        talon = list(game.waste) + list(reversed(game.stock))
        return cls(game.tableau, game.foundations, talon, len(game.waste),
                   game.code.draw if draw is None else draw, down=game.face_down, **options)

    def __init__(
        self, cols, found, talon, p, draw, *, deadline: float = float("inf"), max_nodes: int | None = None,
        max_bytes: int | None = None, streamline: bool = False, prune: bool = False, whole_groups: bool = False,
        pending: bool = False, low_autoplay: bool = False, autoplay: bool = True, shuffle: int = 0,
        down=None,
    ):
        #: streamline: a search for a *quick win* with unsafe restrictions (no take-backs,
        #: partial groups only to uncover a foundation card, eager auto-play).  Its
        #: "no win found" proves nothing; the caller then runs the complete search.
        self.streamline = streamline
        #: prune: drop every position that :func:`doomed` proves lost (sound, but it costs
        #: more time than it saves in measurements; the root is always checked)
        self.prune = prune
        #: whole_groups: rule 6 (part of a group moves only to uncover a foundation card)
        self.whole_groups = whole_groups or streamline
        #: pending: rule 7 (a free card is put down only to be used at once); the moves that put
        #: one down: take-backs, and talon cards in draw 1
        self.pend_kinds = (FC,) + ((TC,) if draw == 1 else ()) if pending else ()
        #: low_autoplay: only what low_card names is played automatically (and rule 3 holds only it back),
        #: the foundation plays whose safety docs/SOLVER.md proves in the form its argument needs
        self.low_autoplay = low_autoplay and not streamline
        #: autoplay=False: nothing is played automatically (and rule 3 holds nothing back): the
        #: reference that tests/solver holds the complete search to
        self.autoplays = autoplay or streamline
        #: shuffle: a seed (1 to 2**32 - 1) whose noise (:func:`shuffle_noise`) is added to the moves'
        #: scores, so that a restarted search tries them in another order; 0: the scores alone
        self.shuffle = shuffle & _WORD  # as the C core reads it
        self._plays_up = (eager_to_foundation if streamline else _never if not autoplay
                          else low_card if self.low_autoplay else safe_to_foundation)
        self.root = (tuple(bytes(c) for c in cols), tuple(found), bytes(talon), p)
        #: the klondike variant: per column, its face-down cards (the position's fifth item); None: ours
        self.down = None if down is None else tuple(down)
        if self.down is not None:
            if len(self.down) != 7 or any(not 0 <= d < max(1, len(c)) for d, c in zip(self.down, cols, strict=True)):
                raise ValueError("down: 7 counts, each below its column's length (0 for an empty one)")
            self.root += (self.down,)
        self.draw = draw
        self.deadline = deadline
        self.max_nodes = max_nodes
        #: memory budget of the search's tables (its transposition table, and the best-first
        #: search's queue and parents), in bytes; None: unbounded
        self.max_bytes = max_bytes
        #: bytes those tables hold (the Python search estimates them per entry, see visit)
        self.table_bytes = 0
        self.nodes = 0
        self._run_start: dict[bytes, tuple[int, int]] = {}
        self._reach: dict[tuple[int, int], frozenset[int]] = {}
        self._col_score: dict[bytes, int] = {}

    # -- position helpers ------------------------------------------------------

    def key(self, state) -> bytes:
        cols, talon = state[0], state[2]
        if len(state) > 4:  # klondike: a column's face-down count is part of it
            cols = [bytes((64 + down,)) + col for down, col in zip(state[4], cols, strict=True)]
        k = b"\xff".join(sorted(cols)) + b"\xfe"
        if self.draw == 1:
            return k + bytes(sorted(talon))
        return k + talon

    def phase(self, state) -> int:
        """Where the waste stands, as far as it matters: 0 at a multiple of the draw, at the end, or in draw 1."""
        talon, p = state[2], state[3]
        if self.draw == 1 or p == len(talon) or p % self.draw == 0:
            return 0
        return p

    def visit(self, visited: dict, k: bytes, phase: int) -> bool:
        """Whether a position (key, phase) must be expanded; records it (rule 4).

        ``visited[k]`` holds, per residue of p modulo the draw, the least p met.
        A restricted position (rule 7) never comes here: see :meth:`fresh`.
        """
        entry = visited.get(k)
        if entry is not None:
            if not phase or entry[phase % self.draw] <= phase:
                return False
            entry[phase % self.draw] = phase
            return True
        self.spend(sys.getsizeof(k) + PY_ENTRY_BYTES)
        entry = visited[k] = [0, 255, 255]
        if phase:
            entry[phase % self.draw] = phase
        return True

    def fresh(self, visited: dict, child, pend: tuple) -> bool:
        """Whether a child position must be expanded: :meth:`visit`, except for a restricted one.

        A restricted position (a free card pending, rule 7) is neither looked up nor
        recorded: a lookup pruned about one in a hundred of them, for a key on each (most
        positions of a draw-1 proof), and recorded, it would hide the same position met
        without the restriction.
        """
        return bool(pend) or self.visit(visited, self.key(child), self.phase(child))

    def spend(self, size: int) -> None:
        """Count ``size`` more bytes in the tables; :class:`Budget` (MEMORY) when they would pass ``max_bytes``."""
        if self.max_bytes is not None and self.table_bytes + size > self.max_bytes:
            raise Budget(MEMORY)
        self.table_bytes += size

    def run_start(self, col: bytes) -> int:
        """Index of the first card of the longest ordered group at the top of ``col``."""
        return self.column_info(col)[0]

    def column_info(self, col: bytes) -> tuple[int, int]:
        """``(run start, lowest rank under the run)`` of a non-empty ``col``; cached."""
        cache = self._run_start
        info = cache.get(col)
        if info is None:
            start = len(col) - 1
            while start > 0 and col[start - 1] in PARENTS[col[start]]:
                start -= 1
            info = cache[col] = (start, min((RANK[x] for x in col[:start]), default=13))
        return info

    @staticmethod
    def apply(state, move):
        cols, found, talon, p = state[:4]
        kind = move[0]
        if kind == CC:
            _, src, i, dst = move
            cols = list(cols)
            moved = cols[src][i:]
            cols[dst] = cols[dst] + moved
            cols[src] = cols[src][:i]
            if len(state) > 4:
                return tuple(cols), found, talon, p, _turned_up(state[4], src, i)
            return tuple(cols), found, talon, p
        if kind == CF:
            src = move[1]
            card = cols[src][-1]
            cols = list(cols)
            cols[src] = cols[src][:-1]
            found = list(found)
            found[SUIT[card]] += 1
            if len(state) > 4:
                return tuple(cols), tuple(found), talon, p, _turned_up(state[4], src, len(cols[src]))
            return tuple(cols), tuple(found), talon, p
        if kind == TC:
            _, i, dst = move
            cols = list(cols)
            cols[dst] = cols[dst] + talon[i : i + 1]
            return (tuple(cols), found, talon[:i] + talon[i + 1 :], i) + state[4:]
        if kind == TF:
            i = move[1]
            found = list(found)
            found[SUIT[talon[i]]] += 1
            return (cols, tuple(found), talon[:i] + talon[i + 1 :], i) + state[4:]
        # FC
        _, s, dst = move
        cols = list(cols)
        cols[dst] = cols[dst] + bytes((s * 13 + found[s] - 1,))
        found = list(found)
        found[s] -= 1
        return (tuple(cols), tuple(found), talon, p) + state[4:]

    def autoplay(self, state, record: list) -> tuple:
        """Play every safe foundation move; append each ``(state_before, move)`` to ``record``."""
        talon_too = self.draw == 1
        safe = self._plays_up
        while True:
            cols, found, talon = state[:3]
            tops = [col[-1] if col else -1 for col in cols]
            for s in range(4):
                count = found[s]
                if count == 13:
                    continue
                card = s * 13 + count
                if card in tops:
                    if safe(card, found):
                        move = (CF, tops.index(card))
                        break
                # Draw 1 only: every talon card is free at any time and taking one out
                # changes nothing for the others, so the safe rule applies to it as to
                # a column's top card.  (In draw 3 removing a card shifts the grouping
                # of the others, so talon cards are never auto-played there.)
                elif talon_too:
                    i = talon.find(card)
                    if i >= 0 and safe(card, found):
                        move = (TF, i)
                        break
            else:
                return state
            record.append((state, move))
            state = self.apply(state, move)

    def moves(self, state, pend: tuple = ()) -> list:
        """Candidate moves, best first; ``pend``: the free cards just put down that must be used (rule 7)."""
        cols, found, talon, p = state[:4]
        down = state[4] if len(state) > 4 else None
        scored = []
        add = scored.append
        tops = {}
        first_empty = -1
        for c in range(7):
            col = cols[c]
            if col:
                tops[col[-1]] = c
            elif first_empty < 0:
                first_empty = c
        column_info = self.column_info
        whole_groups = self.whole_groups
        for src in range(7):
            col = cols[src]
            if not col:
                continue
            top = col[-1]
            if found[SUIT[top]] == RANK[top]:
                add((90 - RANK[top], (CF, src)))
            start, lowest = column_info(col)
            if down is not None and down[src] > start:
                # klondike: the group that moves starts at the first face-up card
                start = down[src]
                lowest = min(RANK[x] for x in col[:start])
            n = len(col)
            for i in range(start, n):
                card = col[i]
                if RANK[card] == KING:
                    # Rule 2: a king at the bottom stays; otherwise only the first empty column.
                    if i > 0 and first_empty >= 0:
                        add((50 + 2 * n, (CC, src, i, first_empty)))
                    continue
                for parent in PARENTS[card]:
                    dst = tops.get(parent)
                    if dst is None:
                        continue
                    if i == 0:
                        score = 70  # empties a column
                    elif i == start:
                        under = col[i - 1]
                        # uncover toward the lowest card buried in the column
                        score = 40 + 2 * (12 - lowest) + n
                        if found[SUIT[under]] == RANK[under]:
                            score += 30
                    else:
                        under = col[i - 1]
                        if whole_groups and found[SUIT[under]] != RANK[under]:
                            continue
                        score = 5 + (40 if found[SUIT[under]] == RANK[under] else 0)
                    add((score, (CC, src, i, dst)))
        if talon:
            # Look the talon up from the few cards it could go to, not card by card.
            if self.draw == 1:
                reach = None
            else:
                reach = self._reach.get((len(talon), p))
                if reach is None:
                    reach = self._reach[len(talon), p] = frozenset(talon_reach(len(talon), p, self.draw))
            find = talon.find
            for s in range(4):
                if found[s] < 13:
                    i = find(s * 13 + found[s])
                    if i >= 0 and (reach is None or i in reach):
                        add((85 - found[s], (TF, i)))
            for top, dst in tops.items():
                for card in CHILDREN[top]:
                    i = find(card)
                    if i >= 0 and (reach is None or i in reach):
                        add((38, (TC, i, dst)))
            if first_empty >= 0:
                for card in KINGS:
                    i = find(card)
                    if i >= 0 and (reach is None or i in reach):
                        add((35, (TC, i, first_empty)))
        for s in range(4 if not self.streamline else 0):
            count = found[s]
            if not count:
                continue
            card = s * 13 + count - 1
            reduced = list(found)
            reduced[s] -= 1
            if self._plays_up(card, reduced):
                continue  # rule 3: auto-play would put it straight back
            if RANK[card] == KING:
                if first_empty >= 0:
                    add((1, (FC, s, first_empty)))
                continue
            for parent in PARENTS[card]:
                dst = tops.get(parent)
                if dst is not None:
                    add((2, (FC, s, dst)))
        if pend:
            scored = [item for item in scored if self._uses(item[1], pend, tops, found, talon)]
        if self.shuffle:
            scored = [(score + shuffle_noise(self.shuffle, move), move) for score, move in scored]
        scored.sort(key=_first, reverse=True)
        return [m for _, m in scored]

    def _uses(self, move, pend: tuple, tops: dict, found, talon) -> bool:
        """Rule 7: may ``move`` follow the putting down of the free cards ``pend``?"""
        kind = move[0]
        x, x_fc = pend[0] & PEND_CARD, pend[0] & PEND_FC
        if len(pend) == 2:  # only a take-back that uses both
            w, w_fc = pend[1] & PEND_CARD, pend[1] & PEND_FC
            return kind == FC and (
                (x_fc and move[1] == SUIT[x] and move[2] == tops[w])
                or (w_fc and move[1] == SUIT[w] and move[2] == tops[x])
            )
        dst = move[3] if kind == CC else move[2] if kind in (TC, FC) else None
        if dst == tops[x] or (x_fc and kind == FC and move[1] == SUIT[x]):
            return True
        if kind not in self.pend_kinds:
            return False
        # a second free card: only the twin-rank one that a single take-back can then use with x
        w = move[1] * 13 + found[move[1]] - 1 if kind == FC else talon[move[1]]
        return RANK[w] == RANK[x] and RED[w] != RED[x] and (bool(x_fc) or kind == FC)

    def pending_after(self, pend: tuple, child, move, autoplayed: bool) -> tuple:
        """The free cards pending after ``move`` (``child``: the position it gives, before auto-play)."""
        kind = move[0]
        if autoplayed or kind not in self.pend_kinds:
            return ()
        column = child[0][move[2]]
        put, under = column[-1], (column[-2] if len(column) > 1 else -1)
        kept = tuple(
            item for item in pend
            if (item & PEND_CARD) != under and not (item & PEND_FC and kind == FC and move[1] == SUIT[item & PEND_CARD])
        )
        return (put | (PEND_FC if kind == FC else 0),) + kept[:1]

    # -- the search ---------------------------------------------------------------

    def run(self):
        """Return the list of ``(state_before, move)`` of a win, or None when none exists.

        Raises :class:`Budget` when the budget (``deadline``, ``max_nodes``) runs out first.
        """
        return self.drive(self.dfs())

    def drive(self, steps):
        """Run a search generator (:meth:`dfs`, :meth:`best_first`) to its end or the deadline."""
        clock, deadline = time.perf_counter, self.deadline
        try:
            while True:
                if clock() > deadline:
                    raise Budget(TIME)
                next(steps)
        except StopIteration as stop:
            return stop.value

    def dfs(self):
        """Depth-first search, as a generator: yields every 256 positions, returns the path or None.

        Raises :class:`Budget` when ``max_nodes`` is reached.
        """
        record: list = []
        state = self.autoplay(self.root, record)
        if sum(state[1]) == 52:
            return record
        root_record = record
        visited: dict = {}
        self.visit(visited, self.key(state), self.phase(state))
        self.nodes = 1
        if self.max_nodes is not None and self.max_nodes <= 1:
            raise Budget(NODES)
        yield
        if doomed(state[0], state[1], state[2], state[4] if len(state) > 4 else None):
            return None
        stack = [[state, self.moves(state), 0, root_record, ()]]
        fresh, apply, autoplay = self.fresh, self.apply, self.autoplay
        moves, pending_after = self.moves, self.pending_after
        max_nodes = self.max_nodes if self.max_nodes is not None else float("inf")
        prune = self.prune
        nodes = 1
        while stack:
            frame = stack[-1]
            children = frame[1]
            i = frame[2]
            if i >= len(children):
                stack.pop()
                continue
            frame[2] = i + 1
            parent = frame[0]
            move = children[i]
            record = [(parent, move)]
            raw = apply(parent, move)
            child = autoplay(raw, record)
            pend = pending_after(frame[4], raw, move, len(record) > 1)
            if sum(child[1]) == 52:
                self.nodes = nodes
                path = []
                for fr in stack:
                    path.extend(fr[3])
                path.extend(record)
                return path
            if not fresh(visited, child, pend):
                continue
            nodes += 1
            if nodes >= max_nodes:
                self.nodes = nodes
                raise Budget(NODES)
            if not nodes & 255:
                self.nodes = nodes
                yield
            if prune and doomed(child[0], child[1], child[2], child[4] if len(child) > 4 else None):
                continue
            stack.append([child, moves(child, pend), 0, record, pend])
        self.nodes = nodes
        return None

    # -- best-first (quick-win phase only) ------------------------------------

    def column_score(self, col: bytes) -> int:
        """How well ordered ``col`` is (higher is better); cached per column.

        Cards in the ordered run that starts with a king at the bottom count
        +1 each (they never need to move again); every other card -1, and
        every card lying above a lower card of its own suit -2 more (it must
        leave the column before that card can go up).
        """
        cache = self._col_score
        score = cache.get(col)
        if score is None:
            n = len(col)
            good = 0
            if n and RANK[col[0]] == KING:
                good = 1
                while good < n and col[good - 1] in PARENTS[col[good]]:
                    good += 1
            score = good - (n - good)
            low = [13, 13, 13, 13]
            for i in range(n):
                card = col[i]
                s = SUIT[card]
                if i >= good and low[s] < RANK[card]:
                    score -= 2
                if RANK[card] < low[s]:
                    low[s] = RANK[card]
            cache[col] = score
        return score

    def score(self, state) -> int:
        cols, found, talon = state[:3]
        column_score = self.column_score
        total = 6 * (found[0] + found[1] + found[2] + found[3]) - len(talon) // 2
        for col in cols:
            if col:
                total += column_score(col)
            else:
                total += 2
        return total

    def best_first(self):
        """Greedy best-first search for a win: always expand the best-scored position.

        A generator like :meth:`dfs`: returns the ``(state_before, move)`` path of a
        win or None when the (possibly streamlined) space is exhausted.
        """
        record: list = []
        state = self.autoplay(self.root, record)
        if sum(state[1]) == 52:
            return record
        fresh, apply, autoplay, moves, score = self.fresh, self.apply, self.autoplay, self.moves, self.score
        pending_after = self.pending_after
        visited: dict = {}
        self.visit(visited, self.key(state), self.phase(state))
        # every position met: (index of its parent, the record of the move that led to it)
        met: list = [(-1, record)]
        heap = [(0, 0, state, 0, ())]
        max_nodes = self.max_nodes if self.max_nodes is not None else float("inf")
        nodes = self.nodes = 1
        seq = 0
        push, pop = heapq.heappush, heapq.heappop
        if nodes >= max_nodes:
            raise Budget(NODES)
        yield
        if doomed(state[0], state[1], state[2], state[4] if len(state) > 4 else None):
            return None
        prune = self.prune
        while heap:
            _, _, parent, index, parent_pend = pop(heap)
            for move in moves(parent, parent_pend):
                record = [(parent, move)]
                raw = apply(parent, move)
                child = autoplay(raw, record)
                pend = pending_after(parent_pend, raw, move, len(record) > 1)
                if sum(child[1]) == 52:
                    self.nodes = nodes
                    path = record
                    while index >= 0:
                        index, rec = met[index]
                        path = rec + path
                    return path
                if not fresh(visited, child, pend):
                    continue
                self.spend(BEST_FIRST_NODE_BYTES)
                met.append((index, record))
                nodes += 1
                if nodes >= max_nodes:
                    self.nodes = nodes
                    raise Budget(NODES)
                if not nodes & 255:
                    self.nodes = nodes
                    yield
                if prune and doomed(child[0], child[1], child[2], child[4] if len(child) > 4 else None):
                    continue
                seq -= 1
                push(heap, (-score(child), seq, child, len(met) - 1, pend))
        self.nodes = nodes
        return None


def _first(item):
    return item[0]


def _turned_up(down: tuple, src: int, left: int) -> tuple:
    """Klondike: the face-down counts after column ``src`` kept only its first ``left`` cards.

    A group moves only from a face-up card, so ``left`` is at least the column's face-down
    count; when it is that count, the last of them turns up.
    """
    if not down[src] or left > down[src]:
        return down
    turned = list(down)
    turned[src] = left - 1
    return tuple(turned)


def _never(card: int, found) -> bool:
    return False

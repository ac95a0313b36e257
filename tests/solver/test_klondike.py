"""The solver under the literature's variant (``klondike``: dealt cards face down until uncovered).

docs/SOLVER.md section 8 re-reads every pruning rule's proof for the variant; these tests hold
the complete search as solve() runs it to a brute force written from the variant's rules alone
(itself checked against the engine's), on endgames where face-down cards lie inside ordered
groups, as in the deal ``TF1-D3N-SFEKBMA``.
"""

from __future__ import annotations

import random

import pytest

from service.engine import KLONDIKE, Action, Game, GameCode, Rejection, replay
from service.engine.deal import DEAL_COUNT
from service.solver import fast, solve
from service.solver.search import PARENTS, RANK, SUIT, Budget, Searcher, doomed
from tests.solver.test_combined import interaction_endgame, ordered
from tests.solver.test_solver import TooLarge, random_endgame, random_play, tight_endgame

KING = 12
EXAMPLE = "TF1-D3N-SFEKBMA"  # column t2 is TS 9D; our winning line opens with t2>t7, moving both onto JD
REFERENCE = fast.CSearcher if fast.BACKEND == "c" else Searcher


def face_down(game: Game, rng: random.Random) -> Game:
    """``game`` under the variant, with some of each column's first cards face down."""
    state = game.to_state()
    # at most 6, as dealt (the C core's keys hold 7; more is searched in Python)
    downs = [min(6, rng.randint(0, len(column) - 1)) if column and rng.random() < 0.8 else 0
             for column in game.tableau]
    return Game.from_state({**state, "variant": KLONDIKE, "face_down": downs})


def plain_winnable(game: Game, limit: int = 20_000) -> bool:
    """Every legal action of the variant, no pruning, no auto-play, positions told apart exactly."""
    draw = game.code.draw
    start = (tuple(tuple(int(c) for c in col) for col in game.tableau), tuple(game.foundations),
             tuple(int(c) for c in reversed(game.stock)), tuple(int(c) for c in game.waste), tuple(game.face_down))
    seen, todo = {start}, [start]
    while todo:
        state = todo.pop()
        if sum(state[1]) == 52:
            return True
        for child in sorted(plain_moves(state, draw), key=lambda child: sum(child[1])):
            if child not in seen:
                seen.add(child)
                todo.append(child)
        if len(seen) > limit:
            raise TooLarge
    return False


def plain_moves(state, draw: int):
    """The variant's rules: a group moves only from a face-up card; a column uncovered turns its next card up."""
    cols, found, stock, waste, down = state
    tops = [col[-1] if col else None for col in cols]

    def fits(card, dst):
        return tops[dst] in PARENTS[card] if tops[dst] is not None else RANK[card] == KING

    def shrunk(src, left):
        turned = list(down)
        if turned[src] and left == turned[src]:
            turned[src] -= 1
        return tuple(turned)

    for src, col in enumerate(cols):
        for i in range(down[src], len(col)):
            if not ordered(col[i:]):
                continue
            for dst in range(7):
                if dst != src and fits(col[i], dst):
                    new = list(cols)
                    new[src], new[dst] = col[:i], cols[dst] + col[i:]
                    yield tuple(new), found, stock, waste, shrunk(src, i)
        if col and found[SUIT[col[-1]]] == RANK[col[-1]]:
            new, up = list(cols), list(found)
            new[src] = col[:-1]
            up[SUIT[col[-1]]] += 1
            yield tuple(new), tuple(up), stock, waste, shrunk(src, len(col) - 1)
    if waste:
        card = waste[-1]
        for dst in range(7):
            if fits(card, dst):
                new = list(cols)
                new[dst] = cols[dst] + (card,)
                yield tuple(new), found, stock, waste[:-1], down
        if found[SUIT[card]] == RANK[card]:
            up = list(found)
            up[SUIT[card]] += 1
            yield cols, tuple(up), stock, waste[:-1], down
    for suit in range(4):
        if found[suit]:
            card = suit * 13 + found[suit] - 1
            for dst in range(7):
                if fits(card, dst):
                    new, less = list(cols), list(found)
                    new[dst] = cols[dst] + (card,)
                    less[suit] -= 1
                    yield tuple(new), tuple(less), stock, waste, down
    if stock:
        n = min(draw, len(stock))
        yield cols, found, stock[n:], waste + stock[:n], down
    elif waste:
        yield cols, found, waste, (), down


def engine_winnable(game: Game, limit: int = 20_000) -> bool:
    """Exhaustive search over the engine's own legal actions under the variant."""
    seen = {_key(game)}
    todo = [game.to_state()]
    while todo:
        game = Game.from_state(todo.pop())
        if game.won:
            return True
        # Order only (nothing is left out): take-backs pushed first, foundation moves last (tried first).
        actions = sorted((a for a in game.legal_actions() if a.kind != "undo"),
                         key=lambda a: (a.kind != "take-back", a.target is not None and a.target.is_foundation))
        for action in actions:
            game.apply(action)
            if game.won:
                return True
            if _key(game) not in seen:
                seen.add(_key(game))
                todo.append(game.to_state())
            game.apply(Action.undo())
        if len(seen) > limit:
            raise TooLarge
    return False


def _key(game: Game):
    """The position up to the order of the columns (each with its face-down count)."""
    columns = sorted(zip(game.face_down, map(tuple, game.tableau), strict=True))
    return tuple(columns), tuple(game.stock), tuple(game.waste), tuple(game.foundations)


def _search(game: Game, cls, **options):
    return cls.from_game(game, max_nodes=100_000, **options)


def _verdict(game: Game, cls, **options) -> bool:
    return _search(game, cls, **options).run() is not None


# -- the rules, as the search sees them -------------------------------------------------------


def test_the_example_deal_is_won_by_ours_and_lost_under_the_variant():
    ours = solve(Game.from_code(EXAMPLE), budget_ms=20_000)
    assert ours.verdict == "winnable" and str(ours.line[0]) == "t2>t7:TS"
    game = Game.from_code(EXAMPLE, KLONDIKE)
    assert game.view()["tableau"][1] == ["TS", "9D"] and game.face_down[1] == 1
    assert solve(game, budget_ms=20_000).verdict == "unwinnable"


def test_a_line_of_ours_that_needs_a_face_down_move_is_refused_under_the_variant():
    line = solve(Game.from_code(EXAMPLE), budget_ms=20_000).line
    assert replay(EXAMPLE, line).won
    with pytest.raises(Rejection) as refused:
        replay(EXAMPLE, line, variant=KLONDIKE)
    assert (refused.value.code, refused.value.params) == ("CARD_FACE_DOWN", {"card": "TS", "pile": "t2"})


@pytest.mark.parametrize("draw", [1, 3])
def test_lines_found_under_the_variant_replay_under_it(draw):
    rng = random.Random(41 + draw)
    won = 0
    for _ in range(12):
        code = GameCode(draw=draw, deal=rng.randrange(DEAL_COUNT))
        solution = solve(Game.from_code(code, KLONDIKE), budget_ms=5_000)
        if solution.verdict == "winnable":
            assert replay(code, solution.line, variant=KLONDIKE).won
            won += 1
    assert won >= 6


def test_the_variant_never_has_more_wins_than_ours():
    """The variant only takes moves away: a deal it wins, ours wins (the same line replays)."""
    rng = random.Random(4141)
    for _ in range(10):
        code = GameCode(draw=3, deal=rng.randrange(DEAL_COUNT))
        solution = solve(Game.from_code(code, KLONDIKE), budget_ms=5_000)
        if solution.verdict == "winnable":
            assert replay(code, solution.line).won


# -- the interaction tests, under the variant ---------------------------------------------------


def test_the_plain_brute_force_is_the_engine_brute_force():
    rng = random.Random(8150)
    compared = 0
    for n in range(40):
        game = face_down(random_endgame(rng, rng.randint(8, 10), 1 + 2 * (n % 2)), rng)
        try:
            expected = engine_winnable(game)
        except TooLarge:
            continue
        assert plain_winnable(game) == expected, game.to_state()
        compared += 1
    assert compared >= 20


@pytest.mark.parametrize("draw", [1, 3])
def test_the_reference_search_is_the_plain_brute_force(draw):
    rng = random.Random(8150 + draw)
    counts = {"winnable": 0, "unwinnable": 0}
    for _ in range(300):
        game = face_down(random_endgame(rng, rng.randint(8, 12), draw), rng)
        try:
            expected = plain_winnable(game)
        except TooLarge:
            continue
        for cls in {Searcher, REFERENCE}:
            assert _verdict(game, cls, autoplay=False) == expected, game.to_state()
        counts["winnable" if expected else "unwinnable"] += 1
    assert counts["winnable"] >= 20 and counts["unwinnable"] >= 10, counts


def _buries_a_run(game: Game) -> bool:
    """Some column has a face-down card that is part of the ordered group at its top (a dealt run)."""
    for column, down in zip(game.tableau, game.face_down, strict=True):
        start = len(column) - 1
        while start > 0 and int(column[start - 1]) in PARENTS[int(column[start])]:
            start -= 1
        if start < down:
            return True
    return False


@pytest.mark.parametrize("draw", [1, 3])
def test_no_verdict_differs_under_the_variant(draw):
    """The complete search as solve() runs it (rules 2-7, low auto-play, the table) against the unpruned one."""
    rng = random.Random(8700 + draw)
    counts = {"winnable": 0, "unwinnable": 0, "dealt run face down": 0, "won by ours only": 0, "too large": 0}
    for n in range(2000):
        ours = interaction_endgame(rng, draw)
        game = face_down(ours, rng)
        try:
            expected = _verdict(game, REFERENCE, autoplay=False)
            counts["won by ours only"] += not expected and _verdict(ours, REFERENCE, autoplay=False)
            classes = (REFERENCE, Searcher) if n % 10 == 0 else (REFERENCE,)
            for cls in classes:
                for options in ({"whole_groups": True, "pending": True, "low_autoplay": True},
                                {"whole_groups": True, "pending": True}):
                    assert _verdict(game, cls, **options) == expected, (cls, options, game.to_state())
        except Budget:
            counts["too large"] += 1
            continue
        counts["winnable" if expected else "unwinnable"] += 1
        counts["dealt run face down"] += _buries_a_run(game)
    # Aimed, not hoped for: many positions where the face-down cards decide.
    assert counts["winnable"] >= 100 and counts["unwinnable"] >= 100, counts
    assert counts["dealt run face down"] >= 100 and counts["won by ours only"] >= 25, counts


@pytest.mark.skipif(fast.BACKEND != "c", reason="the C core is not built (pip install -e .)")
@pytest.mark.parametrize("draw", [1, 3])
def test_the_c_search_is_the_python_search_under_the_variant(draw):
    rng = random.Random(9000 + draw)
    seen = {"winnable": 0, "unwinnable": 0, "unknown": 0}
    for n in range(90):
        game = Game.from_code(GameCode(draw=draw, deal=rng.randrange(DEAL_COUNT)), KLONDIKE)
        if n % 3 == 1:
            game = random_play(game, rng)
        elif n % 3 == 2:
            game = face_down(interaction_endgame(rng, draw), rng)
        for options in ({}, {"whole_groups": True, "pending": True, "low_autoplay": True}, {"streamline": True},
                        {"streamline": True, "shuffle": 77}):
            outcomes = []
            for cls in (Searcher, fast.CSearcher):
                searcher = cls.from_game(game, max_nodes=2500, **options)
                try:
                    path = searcher.run()
                except Budget:
                    outcomes.append(("unknown", searcher.nodes, None))
                    continue
                outcomes.append(("winnable" if path is not None else "unwinnable", searcher.nodes, path))
            assert outcomes[0] == outcomes[1], (options, game.to_state())
            if not options:
                seen[outcomes[0][0]] += 1
        results = []  # the best-first search (the quick phase's), whose positions are packed in C
        for cls in (Searcher, fast.CSearcher):
            searcher = cls.from_game(game, max_nodes=2500, streamline=True)
            try:
                results.append((searcher.drive(searcher.best_first()), searcher.nodes))
            except Budget:
                results.append(("unknown", searcher.nodes))
        assert results[0] == results[1], game.to_state()
    assert seen["winnable"] >= 10 and seen["unwinnable"] >= 3, seen


@pytest.mark.parametrize("draw", [1, 3])
def test_positions_doomed_under_the_variant_are_lost_by_brute_force(draw):
    """doomed() with the face-down counts (a card on a face-down card starts a block of its own) is a proof."""
    rng = random.Random(300 + draw)
    counts = {"doomed only under the variant": 0, "doomed": 0, "not doomed": 0}
    for _ in range(1200):
        game = face_down(tight_endgame(rng, draw), rng)
        root = Searcher.from_game(game).root
        verdict = doomed(root[0], root[1], root[2], root[4])
        try:
            winnable = plain_winnable(game)
        except TooLarge:
            continue
        if verdict:
            assert not winnable, game.to_state()
            counts["doomed only under the variant"] += not doomed(root[0], root[1], root[2])
        counts["doomed" if verdict else "not doomed"] += 1
        # the search that prunes every doomed position agrees with the brute force too
        assert (Searcher.from_game(game, prune=True).run() is not None) == winnable, game.to_state()
    assert counts["doomed only under the variant"] >= 4 and counts["not doomed"] >= 100, counts

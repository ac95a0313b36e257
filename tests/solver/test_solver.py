"""The solver: every winnable line wins in the engine, and no verdict is ever wrong.

The reference for "wrong" is a plain exhaustive search over engine positions
(``legal_actions``/``apply`` only, no pruning, no macro moves), run on small
endgames where it finishes quickly.
"""

from __future__ import annotations

import random

import pytest

from service.engine import CARDS, Action, Game, GameCode
from service.solver import Solution, hint, solve, winnable_deal
from service.solver.fast import BACKEND, CSearcher
from service.solver.search import (
    PARENTS,
    Budget,
    Searcher,
    doomed,
    safe_to_foundation,
    talon_reach,
    talon_steps,
)

# -- helpers -------------------------------------------------------------------------


def replay_wins(game: Game, line) -> bool:
    """Replay ``line`` on a copy of ``game`` through the engine; True when it ends won."""
    copy = Game.from_state(game.to_state())
    for action in line:
        copy.apply(action if isinstance(action, Action) else Action.parse(action))
    return copy.won


def position(tableau, foundations, stock=(), waste=(), draw=1) -> Game:
    """A game with the given piles (card numbers; stock first-drawn first, waste top last)."""
    game = Game.from_code(GameCode(draw=draw, deal=0))
    game.tableau = [[CARDS[c] for c in column] for column in tableau]
    game.stock = [CARDS[c] for c in reversed(stock)]
    game.waste = [CARDS[c] for c in waste]
    game.foundations = list(foundations)
    game.waste_fan = 0
    in_play = sorted([c for col in tableau for c in col] + list(stock) + list(waste))
    up = [s * 13 + r for s in range(4) for r in range(foundations[s])]
    assert sorted(in_play + up) == list(range(52)), "a position must hold the 52 cards once"
    return game


def _restore(code: GameCode, key) -> Game:
    tableau, stock, waste, foundations = key
    game = Game.from_code(code)
    game.tableau = [list(col) for col in tableau]
    game.stock, game.waste, game.foundations = list(stock), list(waste), list(foundations)
    return game


def _key(game: Game):
    return (
        tuple(tuple(col) for col in game.tableau), tuple(game.stock), tuple(game.waste),
        tuple(game.foundations),
    )


class TooLarge(Exception):
    """The brute force met more positions than a test can afford."""


def brute_force_winnable(game: Game, limit: int = 100_000) -> bool:
    """Exhaustive search over engine positions (legal_actions/apply/undo), no pruning at all.

    Raises TooLarge past ``limit`` positions.
    """
    _UNDO = Action.undo()
    start = _key(game)
    seen = {start}
    todo = [start]
    while todo:
        game = _restore(game.code, todo.pop())
        if game.won:
            return True
        # Order only (nothing is left out): take-backs pushed first, so popped last,
        # foundation moves pushed last, so tried first.
        actions = sorted(
            (a for a in game.legal_actions() if a.kind != "undo"),
            key=lambda a: (a.kind != "take-back", a.target is not None and a.target.is_foundation),
        )
        for action in actions:
            game.apply(action)
            if game.won:
                return True
            key = _key(game)
            game.apply(_UNDO)
            if key not in seen:
                seen.add(key)
                todo.append(key)
        if len(seen) > limit:
            raise TooLarge
    return False


def foundations_leaving(rng: random.Random, cards_left: int, suits: list[int]) -> list[int]:
    """Random foundation counts that leave ``cards_left`` cards in play, all of ``suits``."""
    while True:
        left = [0, 0, 0, 0]
        for _ in range(cards_left):
            left[rng.choice(suits)] += 1
        if max(left) <= 13:
            return [13 - n for n in left]


def random_endgame(rng: random.Random, cards_left: int, draw: int) -> Game:
    """Random foundations leaving ``cards_left`` cards, dealt at random to columns and talon."""
    # Few suits in play make tight positions (the complete suits' kings can come
    # back only to an empty column), so that both answers show up.
    foundations = foundations_leaving(rng, cards_left, rng.sample(range(4), rng.choice((1, 1, 1, 2, 2, 3))))
    cards = [s * 13 + r for s in range(4) for r in range(foundations[s], 13)]
    rng.shuffle(cards)
    n_talon = rng.randint(0, min(6, len(cards)))
    talon, rest = cards[:n_talon], cards[n_talon:]
    n_waste = rng.randint(0, len(talon))
    waste, stock = talon[:n_waste], talon[n_waste:]
    tableau = [[] for _ in range(7)]
    used = rng.randint(5, 7)
    for index, card in enumerate(rest):
        tableau[index if index < used else rng.randrange(used)].append(card)
    for column in tableau:
        if rng.random() < 0.6:
            column.sort(key=lambda card: card % 13)  # low cards buried: blocked columns
    return position(tableau, foundations, stock, waste, draw)


def random_play(game: Game, rng: random.Random) -> Game:
    """``game`` after 5 to 60 random actions, never an undo (fewer where it runs out of moves)."""
    for _ in range(rng.randint(5, 60)):
        actions = [a for a in game.legal_actions() if a.kind != "undo"]
        if not actions:
            break
        game.apply(rng.choice(actions))
    return game


def check(game: Game, solution: Solution) -> None:
    """Every winnable line the tests see must win in the engine."""
    assert solution.verdict in ("winnable", "unwinnable", "unknown")
    if solution.verdict == "winnable":
        assert replay_wins(game, solution.line)
    else:
        assert solution.line == ()


# -- talon arithmetic ------------------------------------------------------------------


def test_talon_reach_draw_three():
    # 8 cards, nothing drawn: draws reach positions 3, 6, 8 → indexes 2, 5, 7.
    assert sorted(talon_reach(8, 0, 3)) == [2, 5, 7]
    # After playing index 2 (p = 2): 1 now, then 5→4, 8→… (7 cards: 2+3=5, 7), recycle 3, 6.
    assert sorted(talon_reach(7, 2, 3)) == [1, 2, 4, 5, 6]
    assert sorted(talon_reach(5, 0, 1)) == [0, 1, 2, 3, 4]


@pytest.mark.parametrize("draw", [1, 3])
def test_talon_steps_match_the_engine(draw):
    rng = random.Random(draw)
    for _ in range(50):
        n = rng.randint(1, 12)
        p = rng.randint(0, n)
        talon = rng.sample(range(52), n)
        for index in talon_reach(n, p, draw):
            game = Game.from_code(GameCode(draw=draw, deal=0))
            game.waste = [CARDS[c] for c in talon[:p]]
            game.stock = [CARDS[c] for c in reversed(talon[p:])]
            steps, new_p = talon_steps(n, p, draw, index)
            for step in steps:
                game.apply(Action.parse(step))
            assert game.waste[-1] == talon[index]
            assert len(game.waste) == new_p


def test_safe_rule_is_the_proven_bound_not_the_popular_one():
    card = 4  # 5S
    assert safe_to_foundation(card, [4, 3, 3, 2])  # H, D >= 3 and C >= 2
    assert not safe_to_foundation(card, [4, 4, 4, 1])  # C too low
    assert not safe_to_foundation(card, [4, 2, 4, 4])  # one red too low
    assert safe_to_foundation(0, [0, 0, 0, 0]) and safe_to_foundation(14, [0, 1, 0, 0])


# -- whole deals -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "code", ["TF1-D1N-AAAAAAC", "TF1-D3N-AAAAAAD", "TF1-D1N-AAAAAAY", "TF1-D3N-AAAAAAX", "TF1-D3N-AAAAAAZ"]
)
def test_deal_lines_replay_to_a_win(code):
    game = Game.from_code(code)
    solution = solve(game, budget_ms=5000)
    check(game, solution)
    assert solution.verdict in ("winnable", "unwinnable")
    data = solution.to_json()
    assert set(data) == {"verdict", "reason", "line", "nodes", "ms", "table_bytes"} and data["reason"] is None
    assert [Action.parse(text) for text in data["line"]] == list(solution.line)


@pytest.mark.parametrize("code", ["TF1-D3N-AAAAAAC", "TF1-D3N-AAAAAAV"])
def test_stuck_deals_are_unwinnable_by_brute_force_too(code):
    game = Game.from_code(code)
    assert solve(game, budget_ms=2000).verdict == "unwinnable"
    assert not brute_force_winnable(game)


def test_solve_does_not_touch_the_game():
    game = Game.from_code("TF1-D3N-AAAAAAX")
    before = game.to_state()
    solve(game, budget_ms=2000)
    assert game.to_state() == before


def test_tiny_budget_gives_unknown():
    game = Game.from_code("TF1-D1N-SBLMSUC")  # a deal the solver cannot decide quickly
    solution = solve(game, max_nodes=1)
    assert solution.verdict == "unknown" and solution.line == ()
    assert solve(game, budget_ms=0).verdict == "unknown"


def test_won_game_is_winnable_with_an_empty_line():
    game = position([[] for _ in range(7)], [13, 13, 13, 13])
    assert game.won
    assert solve(game).verdict == "winnable" and solve(game).line == ()
    assert hint(game).line == ()


def test_hint_first_action_is_legal():
    game = Game.from_code("TF1-D1N-AAAAAAY")
    solution = hint(game, budget_ms=3000)
    assert solution.verdict == "winnable"
    assert game.is_legal(solution.line[0])


@pytest.mark.parametrize("draw", [1, 3])
def test_winnable_deal(draw):
    found = winnable_deal(draw, deadline_s=20, rng=random.Random(7))
    assert found is not None
    code, solution = found
    assert code.draw == draw and solution.verdict == "winnable"
    assert replay_wins(Game.from_code(code), solution.line)


def test_winnable_deal_gives_up_at_the_deadline():
    assert winnable_deal(1, deadline_s=0.0) is None


# -- hand-built positions with a known answer --------------------------------------------------


def test_buried_ace_under_same_colour_two_is_unwinnable():
    # Spades only are left, every column is full of spades: 2S covers AS and can go
    # nowhere (no red 3 in play, no empty column; hearts/diamonds/clubs are complete
    # and their kings need an empty column to come back).
    game = position([[0, 1], [2, 3], [4, 5], [6, 7], [8, 9], [10, 11], [12]], [0, 13, 13, 13])
    solution = solve(game, budget_ms=2000)
    assert solution.verdict == "unwinnable"
    assert not brute_force_winnable(game)


def test_take_back_is_needed_and_used():
    # 2S covers AS; the only way out: take 3H back onto 4S, put 2S on it.
    # Hearts at 3 (3H on top), 4S at the bottom of t2 with nothing on it.
    tableau = [[0, 1], [3], [2], [], [], [], []]  # t1 AS 2S, t2 4S, t3 3S
    foundations = [0, 3, 13, 13]
    rest = [s * 13 + r for s in (0,) for r in range(4, 13)] + [13 + r for r in range(3, 13)]
    tableau[3], tableau[4] = rest[:10], rest[10:]
    game = position(tableau, foundations)
    expected = brute_force_winnable(game)
    solution = solve(game, budget_ms=5000)
    check(game, solution)
    assert solution.verdict == ("winnable" if expected else "unwinnable")


def test_draw_three_needs_the_right_grouping():
    # Draw 3, only the talon is left, no column can take anything (all empty,
    # no king in the talon): the cards come out only to the foundations.
    # Talon AS 2S 3S … : the reachable card each time must be next.
    stock = [2, 0, 1]  # 3S, AS, 2S: draw 3 shows 2S first; recycle games needed
    foundations = [0, 13, 13, 13]
    tableau = [[s] for s in range(3, 10)]
    tableau[6] = [9, 10, 11, 12]  # TS JS QS KS not ordered: KS on top
    game = position(tableau, foundations, stock=stock, draw=3)
    expected = brute_force_winnable(game)
    solution = solve(game, budget_ms=5000)
    check(game, solution)
    assert solution.verdict == ("winnable" if expected else "unwinnable")


# -- small endgames against the brute force -------------------------------------------------


@pytest.mark.parametrize("draw", [1, 3])
def test_endgames_agree_with_brute_force(draw):
    rng = random.Random(1000 + draw)
    verdicts = {"winnable": 0, "unwinnable": 0, "too large": 0}
    for _ in range(150):
        game = random_endgame(rng, rng.randint(8, 12), draw)
        solution = solve(game, budget_ms=10_000)
        check(game, solution)
        assert solution.verdict != "unknown"
        try:
            expected = "winnable" if brute_force_winnable(game, limit=20_000) else "unwinnable"
        except TooLarge:
            verdicts["too large"] += 1
            continue
        assert solution.verdict == expected, game.to_state()
        verdicts[solution.verdict] += 1
    # The sample must exercise both answers, or the comparison proves little.
    assert verdicts["winnable"] >= 50 and verdicts["unwinnable"] >= 5, verdicts


# -- rule 6: part of a group moves only to uncover a foundation card ---------------------------


def runs_endgame(rng: random.Random, cards_left: int, draw: int, *, suits=(2, 2, 3, 4), columns=(3, 5),
                 loose=4, chain=0.75) -> Game:
    """Columns built of ordered groups (so that partial moves are possible) plus loose cards.

    ``suits``: how many suits may still be in play (one is picked); ``columns``: the range of
    columns used; at most ``loose`` cards stay in the talon; ``chain``: the chance that a
    group grows by one more card.
    """
    foundations = foundations_leaving(rng, cards_left, rng.sample(range(4), rng.choice(suits)))
    free = {s * 13 + r for s in range(4) for r in range(foundations[s], 13)}
    tableau: list[list[int]] = [[] for _ in range(7)]
    used = rng.randint(*columns)  # few columns: blocked positions are common
    while len(free) > rng.randint(0, loose):
        card = rng.choice(sorted(free))
        free.discard(card)
        group = [card]
        while rng.random() < chain:
            children = [c for c in sorted(free) if group[-1] in PARENTS[c]]
            if not children:
                break
            group.append(rng.choice(children))
            free.discard(group[-1])
        tableau[rng.randrange(used)].extend(group)
    for column in tableau:
        if column and rng.random() < 0.9:  # its lowest card buried at the bottom: blocked columns
            lowest = min(column, key=lambda card: card % 13)
            column.remove(lowest)
            column.insert(0, lowest)
    talon = sorted(free)
    rng.shuffle(talon)
    return position(tableau, foundations, talon, (), draw)


def restriction_keeps_verdicts(games, plain: dict, restricted: dict, *, fast: bool = False) -> dict:
    """Search every game with options ``plain`` and ``restricted`` (40,000 positions each): decided verdicts agree.

    Counts the verdicts and the games where the restricted search met fewer positions.
    """
    counts = {"winnable": 0, "unwinnable": 0, "positions cut": 0}
    for game in games:
        plain_search = _searcher(game, fast=fast, max_nodes=40_000, **plain)
        restricted_search = _searcher(game, fast=fast, max_nodes=40_000, **restricted)
        try:
            expected = plain_search.run() is not None
            got = restricted_search.run() is not None
        except Budget:
            continue
        assert got == expected, game.to_state()
        counts["winnable" if expected else "unwinnable"] += 1
        counts["positions cut"] += restricted_search.nodes < plain_search.nodes
    return counts


def agrees_with_brute_force(games, **options) -> dict:
    """The search with ``options`` against the brute force on every game small enough for it; the verdicts."""
    counts = {"winnable": 0, "unwinnable": 0}
    for game in games:
        try:
            expected = brute_force_winnable(game, limit=20_000)
        except TooLarge:
            continue
        assert (_searcher(game, **options).run() is not None) == expected, game.to_state()
        counts["winnable" if expected else "unwinnable"] += 1
    return counts


@pytest.mark.parametrize("draw", [1, 3])
def test_whole_groups_rule_keeps_every_verdict(draw):
    """Rule 6 never turns a winnable position into an unwinnable one, nor the reverse."""
    rng = random.Random(600 + draw)
    games = (runs_endgame(rng, rng.randint(10, 22), draw) for _ in range(300))
    counts = restriction_keeps_verdicts(games, {}, {"whole_groups": True})
    assert min(counts.values()) >= 20, counts


@pytest.mark.parametrize("draw", [1, 3])
def test_whole_groups_rule_agrees_with_brute_force(draw):
    rng = random.Random(700 + draw)
    counts = agrees_with_brute_force((runs_endgame(rng, rng.randint(9, 13), draw) for _ in range(400)),
                                     whole_groups=True)
    assert counts["winnable"] >= 100 and counts["unwinnable"] >= 5, counts


# -- rule 7: a free card (take-back, draw-1 talon card) is put down only to be used at once ------


def mixed_endgame(rng: random.Random, lowest: int, draw: int) -> Game:
    """Every suit up to ``lowest`` or more, the rest piled on the columns and the talon: take-backs matter."""
    foundations = [rng.randint(lowest, 11) for _ in range(4)]
    cards = [s * 13 + r for s in range(4) for r in range(foundations[s], 13)]
    rng.shuffle(cards)
    n_talon = rng.randint(0, min(5, len(cards) // 3))
    talon, rest = cards[:n_talon], cards[n_talon:]
    tableau = [[] for _ in range(7)]
    used = rng.randint(4, 7)  # few empty columns: blocked positions are common
    for index, card in enumerate(rest):
        tableau[index if index < used else rng.randrange(used)].append(card)
    for column in tableau:
        if rng.random() < 0.8:
            column.sort(key=lambda card: card % 13)  # low cards buried
    n_waste = rng.randint(0, len(talon))
    return position(tableau, foundations, talon[n_waste:], talon[:n_waste], draw)


@pytest.mark.parametrize("draw", [1, 3])
def test_free_cards_rule_keeps_every_verdict(draw):
    """Rule 7 never turns a winnable position into an unwinnable one, nor the reverse."""
    rng = random.Random(800 + draw)

    def games():
        for n in range(1500):  # the C core when built: the comparison is cheap
            maker, size = (runs_endgame, rng.randint(10, 20)) if n % 2 else (mixed_endgame, rng.randint(6, 9))
            yield maker(rng, size, draw)

    counts = restriction_keeps_verdicts(games(), {"whole_groups": True}, {"whole_groups": True, "pending": True},
                                        fast=True)
    assert min(counts.values()) >= 20, counts


@pytest.mark.parametrize("draw", [1, 3])
def test_free_cards_rule_agrees_with_brute_force(draw):
    rng = random.Random(900 + draw)

    def games():
        for n in range(450):
            if n % 3 == 0:
                yield mixed_endgame(rng, 8, draw)  # take-backs needed, mostly winnable
            elif n % 3 == 1:
                yield runs_endgame(rng, rng.randint(9, 13), draw)
            else:
                yield random_endgame(rng, rng.randint(8, 12), draw)

    counts = agrees_with_brute_force(games(), whole_groups=True, pending=True)
    assert counts["winnable"] >= 150 and counts["unwinnable"] >= 5, counts


def test_waste_dominance_skips_only_what_drawing_reaches():
    """Draw 3: the same columns and talon met again with a later p of the same residue are not searched."""
    searcher = Searcher([b""] * 7, (13, 13, 13, 13), b"", 0, 3)
    visited: dict = {}
    assert searcher.visit(visited, b"k", 4)  # first time
    assert not searcher.visit(visited, b"k", 7)  # 7 = 4 + 3: drawn to from 4
    assert searcher.visit(visited, b"k", 5)  # another residue
    assert searcher.visit(visited, b"k", 1)  # earlier: reaches 4 and 7 too
    assert not searcher.visit(visited, b"k", 4)
    assert not searcher.visit(visited, b"k", 0)  # phase 0: reached from any p by recycling


def test_a_restricted_position_is_neither_looked_up_nor_recorded():
    searcher = Searcher([b""] * 7, (13, 13, 13, 13), b"", 0, 3)
    root, visited = searcher.root, {}
    assert searcher.fresh(visited, root, (5,)) and not visited
    assert searcher.fresh(visited, root, ())  # met without a pending card: recorded
    assert searcher.fresh(visited, root, (5,))  # not looked up
    assert not searcher.fresh(visited, root, ())


# -- positions from actual play ---------------------------------------------------------------


@pytest.mark.parametrize("draw", [1, 3])
def test_positions_from_random_play(draw):
    rng = random.Random(50 + draw)
    decided = 0
    for deal in range(12):
        game = random_play(Game.from_code(GameCode(draw=draw, deal=rng.randrange(26**7))), rng)
        solution = solve(game, budget_ms=400)
        check(game, solution)
        decided += solution.verdict != "unknown"
        if solution.verdict == "winnable" and solution.line:
            assert game.is_legal(solution.line[0])
        del deal
    assert decided >= 6


# -- the static deadlock proof ----------------------------------------------------------------


def _searcher(game: Game, *, fast: bool = False, **options) -> Searcher:
    """The search from ``game``'s position; ``fast``: in the C core when it is built (the same search)."""
    return (CSearcher if fast and BACKEND == "c" else Searcher).from_game(game, **options)


def tight_endgame(rng: random.Random, draw: int) -> Game:
    """2 to 5 high cards left in every suit, piled on few columns: blocked columns are common."""
    foundations = [rng.randint(8, 11) for _ in range(4)]
    cards = [s * 13 + r for s in range(4) for r in range(foundations[s], 13)]
    rng.shuffle(cards)
    n_talon = rng.randint(0, 2)
    talon, rest = cards[:n_talon], cards[n_talon:]
    tableau = [[] for _ in range(7)]
    used = rng.randint(3, 5)
    for index, card in enumerate(rest):
        tableau[index if index < used else rng.randrange(used)].append(card)
    return position(tableau, foundations, talon, (), draw)


@pytest.mark.parametrize("draw", [1, 3])
def test_doomed_positions_are_lost_by_brute_force(draw):
    rng = random.Random(300 + draw)
    counts = {"doomed": 0, "not doomed": 0}
    while counts["doomed"] < 8 or counts["not doomed"] < 25:
        game = tight_endgame(rng, draw)
        root = _searcher(game).root
        verdict = doomed(root[0], root[1], root[2])
        if counts["doomed" if verdict else "not doomed"] >= (8 if verdict else 25):
            continue
        try:
            winnable = brute_force_winnable(game, limit=20_000)
        except TooLarge:
            continue
        if verdict:
            assert not winnable, game.to_state()
        counts["doomed" if verdict else "not doomed"] += 1
        # The search that prunes every doomed position agrees with the brute force too.
        assert (_searcher(game, prune=True).run() is not None) == winnable, game.to_state()


def test_doomed_needs_both_parents_blocked():
    # QS lies on JS (its own suit, lower) and both red kings lie under them: QS can
    # go neither up nor onto a king, so JS never comes out.
    foundations = [10, 12, 12, 13]  # up to TS, QH, QD, all clubs
    blocked = [[38, 25, 10, 11], [12], [], [], [], [], []]  # KD KH JS QS | KS
    game = position(blocked, foundations)
    root = _searcher(game).root
    assert doomed(root[0], root[1], root[2])
    assert not brute_force_winnable(game) and solve(game).verdict == "unwinnable"
    # With the king of diamonds elsewhere, QS can move onto it: not doomed (and winnable).
    free = [[25, 10, 11], [12], [38], [], [], [], []]
    game = position(free, foundations)
    root = _searcher(game).root
    assert not doomed(root[0], root[1], root[2])
    assert brute_force_winnable(game) and solve(game).verdict == "winnable"


def test_doomed_deal_is_unwinnable_at_once():
    # A deal whose starting tableau already holds a cycle of blocks (found by scanning deals).
    game = Game.from_code(GameCode(draw=1, deal=12464506))
    root = _searcher(game).root
    assert doomed(root[0], root[1], root[2])
    solution = solve(game, budget_ms=2000)
    assert solution.verdict == "unwinnable" and solution.nodes <= 3

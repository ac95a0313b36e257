"""Playing through the API: engine actions as HTTP requests, won games, rejection finders.

The engine decides what to send (it is tested on its own in ``tests/engine``);
these helpers only translate its actions into requests and pick positions.
"""

from __future__ import annotations

from functools import cache

from service.engine import CARDS, COLUMNS, FOUNDATIONS, Action, Game, Pile, Rejection

#: A deal the solver wins in a fraction of a second (182 actions, draw 1;
#: stock and waste are both empty four actions before the win).
WINNABLE_CODE = "TF1-D1N-AAAAAAG"

ENDPOINT = {"move": "moves", "draw": "draw", "recycle": "recycle", "undo": "undo",
            "take-back": "take-back", "tap": "tap"}


def request_of(action: Action) -> tuple[str, dict | None]:
    """The endpoint (after ``/v1/games/{id}/``) and JSON body of an engine action."""
    body = action.to_json()
    kind = body.pop("action")
    return ENDPOINT[kind], (body or None)


def post_action(client, game_id: str, headers: dict, action: Action, **extra_headers):
    endpoint, body = request_of(action)
    return client.post(f"/v1/games/{game_id}/{endpoint}", json=body, headers={**headers, **extra_headers})


@cache
def winning_line(code: str = WINNABLE_CODE) -> tuple[Action, ...]:
    """A complete line of engine actions that wins ``code``."""
    from service.solver import solve

    solution = solve(Game.from_code(code), budget_ms=20000)
    assert solution.verdict == "winnable", (code, solution.verdict)
    return tuple(solution.line)


def candidate_actions(game: Game) -> list[Action]:
    """Many well-formed actions, legal or not, for hunting rejections in a position."""
    sources = [*COLUMNS, Pile.WASTE]
    targets = list(Pile)
    found: list[Action] = [Action.draw(), Action.recycle(), Action.undo()]
    for source in sources:
        pile = game.waste if source is Pile.WASTE else game.tableau[COLUMNS.index(source)]
        names = [None, *(CARDS[card] for card in pile)]
        # one card that is not in this pile
        names.append(next(CARDS[card] for card in range(52) if card not in pile))
        for card in names:
            for target in targets:
                found.append(Action.move(source, target, card))
            found.append(Action.tap(source, card))
            found.append(Action.tap(source, card, double=True))
    for source in FOUNDATIONS:
        for target in targets:
            found.append(Action.take_back(source, target))
    return found


@cache
def first_rejections(code: str, line: tuple[Action, ...], wanted: frozenset[str]) -> dict:
    """For each wanted rejection code met along ``line``: the first (prefix length, action, params).

    Stops as soon as every wanted code is found.
    """
    game = Game.from_code(code)
    found: dict[str, tuple[int, Action, dict]] = {}
    for index in range(len(line) + 1):
        for action in candidate_actions(game):
            try:
                game.check(action)
            except Rejection as rejection:
                if rejection.code in wanted:
                    found.setdefault(rejection.code, (index, action, rejection.params))
        if found.keys() >= wanted or index == len(line):
            return found
        game.apply(line[index])
    return found

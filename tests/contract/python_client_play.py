"""A game played through the Python client that openapi-python-client generates from openapi.yaml.

tests/contract/test_python_client.py generates the client, type-checks this file with
``mypy --strict`` and runs :func:`play` against a live server: so the spec must give a
client enough types to play without a cast, and its answers must parse.
"""

from __future__ import annotations

from solitaire_reflechi_api_client import AuthenticatedClient, Client
from solitaire_reflechi_api_client.api.games import (
    create_game,
    draw_cards,
    get_hint,
    list_game_actions,
    move_cards,
    recycle_waste,
    sync_actions,
    take_back_card,
    tap_card,
    undo_action,
)
from solitaire_reflechi_api_client.api.players import create_player
from solitaire_reflechi_api_client.models import (
    ActionAnswer,
    ActionBatch,
    DrawAction,
    Game,
    GameFinishedAtIndexProblem,
    GameFinishedProblem,
    GameStatus,
    Hint,
    HintVerdict,
    HistoryPage,
    Move,
    MoveAction,
    NewGame,
    NewGameAnswer,
    NewPlayer,
    Pile,
    PlayerAnswer,
    PlaySource,
    RecycleAction,
    SamePileAtIndexProblem,
    SourceEmptyProblem,
    TakeBack,
    TakeBackAction,
    Tap,
    TapAction,
    UndoAction,
    VersionMismatchProblem,
    VersionMismatchRebaseProblem,
)
from solitaire_reflechi_api_client.types import UNSET

WINNABLE_CODE = "TF1-D1N-AAAAAAG"  # proven winnable (tests/api/gameplay.py)
Step = DrawAction | MoveAction | RecycleAction | TakeBackAction | TapAction | UndoAction


def follow(game_id: str, client: AuthenticatedClient, step: Step) -> ActionAnswer:
    """Send a hinted action back as it came: its fields are the request bodies' own types."""
    if isinstance(step, MoveAction):
        answer = move_cards.sync(game_id, client=client, body=Move(from_=step.from_, to=step.to, card=step.card))
    elif isinstance(step, TakeBackAction):
        answer = take_back_card.sync(game_id, client=client, body=TakeBack(from_=step.from_, to=step.to))
    elif isinstance(step, TapAction):
        answer = tap_card.sync(game_id, client=client, body=Tap(from_=step.from_, card=step.card, double=step.double))
    elif isinstance(step, DrawAction):
        answer = draw_cards.sync(game_id, client=client)
    elif isinstance(step, RecycleAction):
        answer = recycle_waste.sync(game_id, client=client)
    else:
        answer = undo_action.sync(game_id, client=client)
    assert isinstance(answer, ActionAnswer), answer
    return answer


def play(base_url: str) -> dict[str, int]:
    """Register, deal, check a rejection, a 412 and a replay, then follow hints to the win."""
    public = Client(base_url=base_url, raise_on_unexpected_status=True)
    player = create_player.sync(client=public, body=NewPlayer(name="Generated client"))
    assert isinstance(player, PlayerAnswer)
    client = AuthenticatedClient(base_url=base_url, token=player.token, raise_on_unexpected_status=True)

    dealt = create_game.sync_detailed(client=client, body=NewGame(code=WINNABLE_CODE))
    game = dealt.parsed
    assert dealt.status_code == 201 and isinstance(game, NewGameAnswer)
    assert dealt.headers["Location"] == f"/v1/games/{game.id}" and dealt.headers["ETag"] == '"0"'
    assert len(game.tableau) == 7 and game.foundations.s == 0 and game.foundations.d == 0
    assert game.player == player.id and game.finished_at is None

    # A typed rejection: its code and params, no dict lookups.
    refused = move_cards.sync_detailed(game.id, client=client, body=Move(from_=PlaySource.WASTE, to=Pile.T1),
                                       accept_language="de")
    problem = refused.parsed
    assert refused.status_code == 422 and isinstance(problem, SourceEmptyProblem)
    assert problem.code == "SOURCE_EMPTY" and problem.params.pile == Pile.WASTE
    assert refused.headers["Content-Language"] == "de"

    # A stale If-Match: 412 with the current version, typed.
    stale = draw_cards.sync_detailed(game.id, client=client, if_match='"7"')
    mismatch = stale.parsed
    assert stale.status_code == 412 and isinstance(mismatch, VersionMismatchProblem)
    assert mismatch.params.current == 0 and mismatch.params.sent == '"7"'

    # The same Idempotency-Key twice: one draw, the first answer replayed.
    first = draw_cards.sync_detailed(game.id, client=client, idempotency_key="draw-once")
    again = draw_cards.sync_detailed(game.id, client=client, idempotency_key="draw-once")
    assert isinstance(first.parsed, ActionAnswer) and isinstance(again.parsed, ActionAnswer)
    assert again.headers["Idempotent-Replayed"] == "true"
    assert first.parsed.version == again.parsed.version == 1 and first.parsed.last.cards == again.parsed.last.cards

    # Follow the hints to the win.
    hints = 0
    status = GameStatus.PLAYING
    while status != GameStatus.WON:
        hint = get_hint.sync(game.id, client=client)
        assert isinstance(hint, Hint) and hint.verdict == HintVerdict.WINNABLE and hint.action is not None
        hints += 1
        assert hints < 400, "the hints never reach a win"
        answer = follow(game.id, client, hint.action)
        status = answer.status
    assert answer.foundations.s == answer.foundations.h == answer.foundations.d == answer.foundations.c == 13

    finished = draw_cards.sync_detailed(game.id, client=client)
    assert finished.status_code == 409 and isinstance(finished.parsed, GameFinishedProblem)
    synced = replay_in_batches(client, game.id)
    assert synced.score == answer.score and synced.moves == answer.moves
    return {"hints": hints, "score": answer.score, "batched": synced.version}


def notations(client: AuthenticatedClient, game_id: str) -> list[str]:
    """Every action of a game, in notation, from its history's pages."""
    found: list[str] = []
    cursor: str | None = None
    while True:
        page = list_game_actions.sync(game_id, client=client, limit=200, cursor=cursor if cursor else UNSET)
        assert isinstance(page, HistoryPage), page
        found += [item.notation for item in page.items]
        cursor = page.next_ if isinstance(page.next_, str) else None
        if cursor is None:
            return found


def replay_in_batches(client: AuthenticatedClient, won_id: str) -> Game:
    """The won game's actions played again on a new game of the same deal through syncActions, 50 a batch."""
    line = notations(client, won_id)
    dealt = create_game.sync(client=client, body=NewGame(code=WINNABLE_CODE))
    assert isinstance(dealt, NewGameAnswer)

    # A refused action refuses the batch: typed, with its index; nothing applied.
    refused = sync_actions.sync_detailed(dealt.id, client=client, body=ActionBatch(actions=["draw", "t1>t1"]),
                                         if_match='"0"')
    assert refused.status_code == 422 and isinstance(refused.parsed, SamePileAtIndexProblem)
    assert refused.parsed.params.index == 1

    version = 0
    synced: Game | None = None
    for start in range(0, len(line), 50):
        answer = sync_actions.sync_detailed(dealt.id, client=client, body=ActionBatch(actions=line[start:start + 50]),
                                            if_match=f'"{version}"', idempotency_key=f"batch-{start}")
        assert answer.status_code == 200 and isinstance(answer.parsed, Game), answer.content
        synced = answer.parsed
        version = synced.version
    assert synced is not None and synced.status == GameStatus.WON and version == len(line)

    # A stale base: the actions played since, typed, to rebase on.
    stale = sync_actions.sync_detailed(dealt.id, client=client, body=ActionBatch(actions=["draw"]),
                                       if_match=f'"{version - 3}"')
    assert stale.status_code == 412 and isinstance(stale.parsed, VersionMismatchRebaseProblem)
    assert stale.parsed.params.actions == line[-3:] and stale.parsed.params.version == version
    won = sync_actions.sync_detailed(dealt.id, client=client, body=ActionBatch(actions=["undo"]),
                                     if_match=f'"{version}"')
    assert won.status_code == 409 and isinstance(won.parsed, GameFinishedAtIndexProblem)
    assert won.parsed.params.index == 0
    return synced

"""Eight clients acting on one game at once, through a real threaded server.

Without If-Match the actions must be applied one after the other: every accepted
action gets its own version, the history has no gap, and it replays to the state.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import requests

from service.cli import verify_game
from service.extensions import db
from service.store import ActionRow, GameRow

THREADS = 8
ROUNDS = 12


def new_game(base: str) -> tuple[str, dict]:
    response = requests.post(f"{base}/v1/games", json={"code": "TF1-D3N-AAAAAAG"}, timeout=30)
    assert response.status_code == 201, response.text
    game = response.json()
    return game["id"], {"Authorization": f"Bearer {game['token']}"}


def act_concurrently(base: str, game_id: str, auth: dict, threads: int = THREADS,
                     rounds: int = ROUNDS) -> list[tuple[int, dict]]:
    """``threads`` clients at once, each ``rounds`` of draw, recycle or undo on one game: the answers."""
    barrier = threading.Barrier(threads)

    def worker(number: int) -> list[tuple[int, dict]]:
        answers = []
        with requests.Session() as session:
            session.headers.update(auth)
            barrier.wait(30)
            for round_ in range(rounds):
                # draw, recycle or undo: always legal or cleanly rejected
                action = ("draw", "draw", "recycle", "undo")[(number + round_) % 4]
                response = session.post(f"{base}/v1/games/{game_id}/{action}", timeout=60)
                answers.append((response.status_code, response.json()))
        return answers

    with ThreadPoolExecutor(threads) as pool:
        return [answer for answers in pool.map(worker, range(threads)) for answer in answers]


def test_concurrent_actions_are_serialized(app, live_server):
    game_id, auth = new_game(live_server)
    results = act_concurrently(live_server, game_id, auth)

    assert len(results) == THREADS * ROUNDS
    statuses = {status for status, _ in results}
    assert statuses <= {200, 422}, [body for status, body in results if status not in (200, 422)]
    accepted = [body for status, body in results if status == 200]
    rejected = [body["code"] for status, body in results if status == 422]
    assert set(rejected) <= {"STOCK_EMPTY", "STOCK_NOT_EMPTY", "NOTHING_TO_UNDO", "NOTHING_TO_RECYCLE"}
    versions = [body["version"] for body in accepted]
    assert len(set(versions)) == len(versions), "two answers with one version"
    assert sorted(versions) == list(range(1, len(accepted) + 1))
    final = requests.get(f"{live_server}/v1/games/{game_id}", timeout=30).json()
    assert final["version"] == len(accepted)
    with app.app_context():
        seqs = db.session.execute(
            db.select(ActionRow.seq).where(ActionRow.game_id == game_id).order_by(ActionRow.seq)
        ).scalars().all()
        assert seqs == list(range(1, len(accepted) + 1))
        assert verify_game(db.session.get(GameRow, game_id)) == []
        db.session.remove()


def test_if_match_from_eight_threads_lets_exactly_one_through(app, live_server):
    game_id, auth = new_game(live_server)
    requests.post(f"{live_server}/v1/games/{game_id}/draw", headers=auth, timeout=30).raise_for_status()
    barrier = threading.Barrier(THREADS)

    def worker(_):
        with requests.Session() as session:
            barrier.wait(30)
            response = session.post(f"{live_server}/v1/games/{game_id}/draw",
                                    headers={**auth, "If-Match": '"1"'}, timeout=60)
            return response.status_code, response.json()

    with ThreadPoolExecutor(THREADS) as pool:
        results = list(pool.map(worker, range(THREADS)))
    statuses = sorted(status for status, _ in results)
    assert statuses == [200] + [412] * (THREADS - 1), results
    for status, body in results:
        if status == 412:
            assert body["code"] == "VERSION_MISMATCH" and body["params"]["current"] == 2
    final = requests.get(f"{live_server}/v1/games/{game_id}", timeout=30).json()
    assert final["version"] == 2
    with app.app_context():
        assert verify_game(db.session.get(GameRow, game_id)) == []
        db.session.remove()


def test_batches_from_eight_threads_on_one_base_let_exactly_one_through(app, live_server):
    """Two tabs (here eight) syncing the same base: one batch applies, the others get 412 with its actions."""
    game_id, auth = new_game(live_server)
    barrier = threading.Barrier(THREADS)

    def worker(number):
        batch = ["draw"] * (number % 5 + 1) + ["undo"]  # legal from version 0 (the stock holds 8 draws of 3)
        with requests.Session() as session:
            barrier.wait(30)
            response = session.post(f"{live_server}/v1/games/{game_id}/actions", json={"actions": batch},
                                    headers={**auth, "If-Match": '"0"', "Idempotency-Key": f"tab-{number}"},
                                    timeout=60)
            return response.status_code, response.json(), batch

    with ThreadPoolExecutor(THREADS) as pool:
        results = list(pool.map(worker, range(THREADS)))
    statuses = sorted(status for status, _, _ in results)
    assert statuses == [200] + [412] * (THREADS - 1), [(status, body.get("code")) for status, body, _ in results]
    applied = next(batch for status, _, batch in results if status == 200)
    for status, body, _ in results:
        if status == 412:
            assert body["params"]["actions"] == applied and body["params"]["version"] == len(applied)
    with app.app_context():
        assert verify_game(db.session.get(GameRow, game_id)) == []
        db.session.remove()

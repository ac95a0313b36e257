"""Stale-tolerant reads on a streaming replica (service/store/replicas.py), on a private primary + replica.

The boards and the feed's pages are served by the replica while its lag is within
REPLICA_MAX_LAG_SECONDS; a lagging or stopped replica is skipped and the primary serves;
writes never go there (a replica refuses them). Shown by what each read sees: with the
replica's replay paused, a win committed on the primary is missing from what the replica
serves and present in what the primary serves.
"""

from __future__ import annotations

import time

import pytest
import sqlalchemy as sa

from harness.postgres import PrivateCluster, binaries
from harness.servers import migrate
from service.extensions import db
from service.store import replicas

WIN = ("INSERT INTO games (id, code, deal, draw, status, score, moves, undos, version, hints, state, created_at, "
       "updated_at, finished_at, duration_ms, line) VALUES (:id, 'TF1-D1N-AAAAAAB', 1, 1, 'won', 500, 100, 0, 100, 0, "
       "'{}', now() - interval '2 hours', now() - interval '1 hour', now() - interval '1 hour', 60000, 't7>fH:AH')")


@pytest.fixture(scope="module")
def clusters():
    if binaries() is None:
        pytest.skip("no PostgreSQL binaries under /usr/lib/postgresql/*/bin")
    with PrivateCluster() as primary:
        replica = primary.replica()
        migrate(primary.url)
        yield primary, replica


def _win(url: str, game_id: str) -> None:
    engine = sa.create_engine(url)
    with engine.begin() as connection:
        connection.execute(sa.text(WIN), {"id": game_id})
    engine.dispose()


def _replayed(url: str, game_id: str, timeout: float = 20.0) -> None:
    engine = sa.create_engine(url)
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            with engine.connect() as connection:
                if connection.execute(sa.text("SELECT 1 FROM games WHERE id = :id"), {"id": game_id}).first():
                    return
            time.sleep(0.1)
        raise AssertionError(f"{game_id} never reached the replica")
    finally:
        engine.dispose()


def _on(url: str, statement: str) -> None:
    engine = sa.create_engine(url, isolation_level="AUTOCOMMIT")
    with engine.connect() as connection:
        connection.execute(sa.text(statement))
    engine.dispose()


def _seen(client) -> set[str]:
    feed = client.get("/v1/games/finished?limit=50").get_json()["items"]
    board = client.get("/v1/deals/TF1-D1N-AAAAAAB/leaderboard").get_json()["items"]
    feed_ids = {item["id"] for item in feed}
    board_ids = {item.get("id") or item.get("game") for item in board}
    assert feed_ids == board_ids, (feed_ids, board_ids)
    return feed_ids


def test_stale_tolerant_reads_go_to_the_replica_lag_and_outage_to_the_primary(clusters, make_app):
    primary, replica = clusters
    app = make_app({"DATABASE_URL": primary.url, "DATABASE_REPLICA_URLS": [replica.url],
                      "REPLICA_MAX_LAG_SECONDS": 3600, "RATELIMIT_ENABLED": False, "TESTING": True})
    client = app.test_client()
    with app.app_context():
        router = replicas.of(db.engine)
    _win(primary.url, "first")
    _replayed(replica.url, "first")
    assert _seen(client) == {"first"}
    assert router.replicas[0].reads == 2 and router.primary_reads == 0, "both reads by the replica"

    _on(replica.url, "SELECT pg_wal_replay_pause()")
    try:
        _win(primary.url, "second")
        time.sleep(0.5)
        assert _seen(client) == {"first"}, "served by the paused replica: the second win is not there yet"
        # A write and a game in play: the primary (a replica would refuse the write), none routed.
        reads = router.replicas[0].reads
        created = client.post("/v1/games", json={"code": "TF1-D1N-AAAAAAB"})
        assert created.status_code == 201
        game = created.get_json()
        auth = {"Authorization": f"Bearer {game['token']}"}
        assert client.post(f"/v1/games/{game['id']}/draw", headers=auth).status_code == 200
        assert client.get(f"/v1/games/{game['id']}").status_code == 200
        assert router.replicas[0].reads == reads, "nothing about a game in play went to the replica"

        # The replica now lags more than the setting: skipped, the primary serves the win.
        router.max_lag = 0.5
        time.sleep(1.0)
        router.replicas[0].checked_at = float("-inf")
        assert _seen(client) == {"first", "second"}
        assert router.replicas[0].lag > 0.5 and not router.replicas[0].healthy
    finally:
        _on(replica.url, "SELECT pg_wal_replay_resume()")

    # Caught up: the replica serves again.
    _replayed(replica.url, "second")
    router.replicas[0].checked_at = float("-inf")
    reads = router.replicas[0].reads
    assert _seen(client) == {"first", "second"} and router.replicas[0].reads == reads + 2

    # Down: skipped, the primary serves, no error.
    replica.stop()
    try:
        router.replicas[0].checked_at = float("-inf")
        primary_reads = router.primary_reads
        assert _seen(client) == {"first", "second"}
        assert router.primary_reads == primary_reads + 2
    finally:
        replica.start()
        router.dispose()
        with app.app_context():
            db.engine.dispose()

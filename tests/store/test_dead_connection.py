"""A pooled connection the server dropped costs no request: the pool pings nothing, the first statement retries.

PostgreSQL only: the test ends every other session of the database, as a server
restart would, between requests.
"""

from __future__ import annotations

import gc
import json

import psycopg
import pytest
import sqlalchemy as sa


@pytest.fixture
def drop_connections(app, database_url):
    if not database_url.startswith("postgresql"):
        pytest.skip("a dropped connection is PostgreSQL's case")
    admin = sa.create_engine(database_url)

    def drop() -> int:
        with admin.connect() as connection:
            return connection.exec_driver_sql(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                "WHERE datname = current_database() AND pid <> pg_backend_pid()").scalar_one()

    yield drop
    admin.dispose()


def test_every_request_after_the_connections_dropped_is_answered(client, drop_connections):
    game = client.post("/v1/games", json={"draw": 1}).get_json()
    auth = {"Authorization": f"Bearer {game['token']}"}
    requests = [
        lambda: client.post(f"/v1/games/{game['id']}/draw", headers=auth),
        lambda: client.get(f"/v1/games/{game['id']}"),
        lambda: client.get(f"/v1/games/{game['id']}/legal-moves"),
        lambda: client.post("/v1/games", json={"draw": 3}),
        lambda: client.get("/readyz"),
        lambda: client.get("/v1/leaderboard"),
        lambda: client.get(f"/v1/deals/{game['code']}/leaderboard"),
        lambda: client.get("/v1/games/finished"),
    ]
    for send in requests:
        assert drop_connections() >= 1  # the app's pooled connection, idle between requests
        response = send()
        assert response.status_code < 300, response.get_json()
    assert client.get(f"/v1/games/{game['id']}").get_json()["version"] == 1


# The stream's DECLARE meets the dead connection first: the retry is tested here, and that the
# server-side cursor of the failed attempt is closed, not left for psycopg to warn about when
# it is collected (the session's warnings are errors).
def test_a_stream_after_the_connections_dropped_runs_to_its_end(client, drop_connections):
    game = client.post("/v1/games", json={"draw": 1}).get_json()
    for _ in range(2):  # the second stream checks out the connection the first one returned
        assert drop_connections() >= 1
        response = client.get("/v1/games/finished", headers={"Accept": "application/x-ndjson"})
        lines = response.get_data(as_text=True).splitlines()  # the stream's first statement runs here
        assert response.status_code == 200
        assert json.loads(lines[-1]) == {"resume": None, "count": 0, "more": False}
    assert client.get(f"/v1/games/{game['id']}").status_code == 200
    gc.collect()  # a cursor left open would warn here, in this test


@pytest.fixture
def hang_up_once(monkeypatch):
    """Make the next statement sent (a query, a stream's DECLARE) fail as a hung-up socket does.

    psycopg raises "connection socket closed" when the socket of a session the server ended
    hangs up before it reads why, and leaves the connection unmarked: a race, rare in a test,
    that CI met once. Here it happens on purpose, on a connection the test also drops.
    """
    armed = []
    real_wait = psycopg.Connection.wait

    def wait(self, gen, *args, **kwargs):
        if armed and getattr(gen, "__name__", "") in ("_execute_gen", "_declare_gen"):
            armed.clear()
            gen.close()
            raise psycopg.OperationalError("connection socket closed")
        return real_wait(self, gen, *args, **kwargs)

    monkeypatch.setattr(psycopg.Connection, "wait", wait)
    return lambda: armed.append(True)


def test_a_hung_up_socket_under_the_first_statement_is_a_dead_connection(client, drop_connections, hang_up_once):
    game = client.post("/v1/games", json={"draw": 1}).get_json()
    auth = {"Authorization": f"Bearer {game['token']}"}
    requests = [
        lambda: client.get(f"/v1/games/{game['id']}"),
        lambda: client.post(f"/v1/games/{game['id']}/draw", headers=auth),
        lambda: client.get("/v1/leaderboard"),
        lambda: client.get("/v1/games/finished", headers={"Accept": "application/x-ndjson"}),
    ]
    for send in requests:
        assert drop_connections() >= 1
        hang_up_once()
        response = send()
        response.get_data()  # a stream's first statement runs here
        assert response.status_code == 200, response.get_data(as_text=True)[:300]
    assert client.get(f"/v1/games/{game['id']}").get_json()["version"] == 1
    gc.collect()  # no server-side cursor left open

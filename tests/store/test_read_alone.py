"""A read alone (a game, its legal moves, a board, a feed page) runs without a transaction.

The pool must get its connection back as it was: on PostgreSQL the read runs in
autocommit, and a pooled connection left so would run an action's ``SELECT … FOR
UPDATE`` outside any transaction, where its lock would not hold.
"""

from __future__ import annotations

from contextlib import ExitStack

import psycopg

from service.extensions import db
from tests.api.helpers import act, new_game


def test_a_read_alone_gives_back_a_connection_that_begins_transactions(app, client):
    game, headers = new_game(client)
    for path in (f"/v1/games/{game['id']}", f"/v1/games/{game['id']}/legal-moves", "/v1/leaderboard",
                 f"/v1/deals/{game['code']}/leaderboard", "/v1/games/finished"):
        assert client.get(path).status_code == 200
    with app.app_context(), ExitStack() as stack:
        # More connections than the test client's sequential requests ever put in the pool: every pooled one.
        connections = [stack.enter_context(db.engine.connect()) for _ in range(3)]
        for connection in connections:
            # What an action needs of its connection: a begun transaction is open on the server.
            with connection.begin():
                connection.exec_driver_sql("SELECT 1")
                assert _in_transaction(connection.connection.dbapi_connection)
    assert act(client, game, headers, "draw").status_code == 200
    assert client.get(f"/v1/games/{game['id']}").get_json()["version"] == 1


def _in_transaction(dbapi_connection) -> bool:
    if hasattr(dbapi_connection, "in_transaction"):  # sqlite3
        return dbapi_connection.in_transaction
    # psycopg: in autocommit the SELECT would have run and left the connection idle
    return dbapi_connection.info.transaction_status != psycopg.pq.TransactionStatus.IDLE

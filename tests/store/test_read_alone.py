"""A game read alone (GET /v1/games/{id}, /legal-moves) runs without a transaction.

The pool must get its connection back as it was: on PostgreSQL the read runs in
autocommit, and a pooled connection left so would run an action's ``SELECT … FOR
UPDATE`` outside any transaction, where its lock would not hold.
"""

from __future__ import annotations

from contextlib import ExitStack

from service.extensions import db
from service.store.db import SINGLE_STATEMENT
from tests.api.helpers import act, new_game


def test_a_read_alone_gives_back_a_connection_that_begins_transactions(app, client):
    game, headers = new_game(client)
    for path in ("", "/legal-moves"):
        assert client.get(f"/v1/games/{game['id']}{path}").status_code == 200
    with app.app_context(), ExitStack() as stack:
        # More connections than the test client's sequential requests ever put in the pool: every pooled one.
        connections = [stack.enter_context(db.engine.connect()) for _ in range(3)]
        for connection in connections:
            # The driver's own flag (psycopg); SQLAlchemy's get_isolation_level asks the server instead.
            assert getattr(connection.connection.dbapi_connection, "autocommit", None) is not True
            assert not connection.get_execution_options().get(SINGLE_STATEMENT)
    assert act(client, game, headers, "draw").status_code == 200
    assert client.get(f"/v1/games/{game['id']}").get_json()["version"] == 1

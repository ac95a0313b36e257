"""A statement on the driver's cursor (store/driver.py) reads and writes what Connection.execute would."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
import sqlalchemy as sa
from sqlalchemy import bindparam, insert, select, update

from service.extensions import db
from service.store.driver import DriverStatement
from service.store.models import ActionRow, GameRow
from tests.api.helpers import act, new_game

GAMES = GameRow.__table__
ACTIONS = ActionRow.__table__


def test_a_row_holds_the_values_connection_execute_gives(app, client):
    game, headers = new_game(client)
    act(client, game, headers, "draw")
    select_game = select(GAMES).where(GAMES.c.id == bindparam("game"))
    with app.app_context(), db.engine.connect() as connection:
        expected = tuple(connection.execute(select_game, {"game": game["id"]}).one())
        got = DriverStatement(select_game).first(connection, {"game": game["id"]})
        assert DriverStatement(select_game).first(connection, {"game": "nothing"}) is None
    assert got == expected
    # Of the same types too (== alone takes 0 for False and 1 for True).
    assert [type(value) for value in got] == [type(value) for value in expected]
    by_name = dict(zip(GAMES.c.keys(), got, strict=True))
    # The processors ran: a dict from the JSON column, aware UTC datetimes.
    assert isinstance(by_name["state"], dict) and by_name["state"]["moves"] == 1
    assert by_name["created_at"].tzinfo is not None and by_name["created_at"].utcoffset().total_seconds() == 0


def test_writes_are_read_back_by_connection_execute(app, client):
    game, _ = new_game(client)
    moment = datetime(2026, 11, 30, 23, 59, 58, 123000, tzinfo=UTC)
    detail = {"kind": "draw", "cards": ["10♥"], "points": 0}
    with app.app_context(), db.engine.connect() as connection:
        with connection.begin():
            DriverStatement(update(GAMES).where(GAMES.c.id == bindparam("game"))).run(
                connection, {"game": game["id"], "hints": 7, "updated_at": moment})
            DriverStatement(insert(ACTIONS)).run(connection, {
                "game_id": game["id"], "seq": 1, "notation": "draw", "detail": detail, "points": 0,
                "score_after": 0, "at": moment})
        hints, updated = connection.execute(
            select(GAMES.c.hints, GAMES.c.updated_at).where(GAMES.c.id == game["id"])).one()
        stored = connection.execute(select(ACTIONS.c.detail, ACTIONS.c.at).where(ACTIONS.c.game_id == game["id"])).one()
    assert (hints, updated) == (7, moment)
    assert tuple(stored) == (detail, moment)


def test_a_database_error_is_sqlalchemys_with_its_parameters_hidden(app, client):
    game, _ = new_game(client)
    append = DriverStatement(insert(ACTIONS))
    row = {"game_id": game["id"], "seq": 1, "notation": "draw", "detail": {}, "points": 0, "score_after": 0,
           "at": datetime.now(UTC)}
    with app.app_context(), db.engine.connect() as connection, connection.begin():
        append.run(connection, row)
        with pytest.raises(sa.exc.IntegrityError) as raised:
            append.run(connection, {**row, "notation": "secret-value"})
    assert "secret-value" not in str(raised.value)


def test_a_column_left_to_a_python_default_is_refused(app):
    with app.app_context(), db.engine.connect() as connection, connection.begin():
        statement = DriverStatement(insert(ACTIONS))
        with pytest.raises(ValueError, match="Python defaults"):
            statement.run(connection, {"game_id": "x", "seq": 1, "notation": "draw", "detail": {}, "points": 0,
                                       "score_after": 0})  # no "at": its default is utcnow, in Python


def test_a_write_outside_a_begun_transaction_is_refused(app, client):
    game, _ = new_game(client)
    store = DriverStatement(update(GAMES).where(GAMES.c.id == bindparam("game")))
    with app.app_context(), db.engine.connect() as connection:
        with pytest.raises(RuntimeError, match="begun transaction"):
            store.run(connection, {"game": game["id"], "hints": 3})
        assert connection.execute(select(GAMES.c.hints).where(GAMES.c.id == game["id"])).scalar_one() == 0


def test_what_the_plan_cannot_carry_is_refused(app):
    expanding = select(GAMES.c.id).where(GAMES.c.id.in_(bindparam("ids", expanding=True)))
    escaped = select(GAMES.c.id).where(GAMES.c.id == bindparam("a.b"))
    with app.app_context(), db.engine.connect() as connection:
        for statement, parameters in ((expanding, {"ids": ["x"]}), (escaped, {"a.b": "x"})):
            with pytest.raises(ValueError, match="Connection.execute"):
                DriverStatement(statement).first(connection, parameters)


def test_cursor_listeners_see_each_statement(app, client):
    game, _ = new_game(client)
    seen = []
    read = DriverStatement(select(GAMES.c.id).where(GAMES.c.id == bindparam("game")))
    with app.app_context(), db.engine.connect() as connection:
        sa.event.listen(connection, "before_cursor_execute", lambda *args: seen.append(("before", args[2])))
        sa.event.listen(connection, "after_cursor_execute", lambda *args: seen.append(("after", args[2])))
        assert read.first(connection, {"game": game["id"]}) == (game["id"],)
    assert [when for when, _ in seen] == ["before", "after"]
    assert seen[0][1] == seen[1][1] and "FROM games" in seen[0][1]

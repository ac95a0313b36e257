"""Migration 0003 fills in the line of every game won before it, from the game's history."""

from __future__ import annotations

from datetime import UTC, datetime

import sqlalchemy as sa
from flask_migrate import upgrade

from service import create_app
from service.extensions import db
from tests.store.test_migrations import empty_database  # noqa: F401  (the fixture: an empty database of each backend)

NOW = datetime(2026, 11, 1, tzinfo=UTC)


def test_upgrade_fills_the_lines_of_games_already_won(empty_database):  # noqa: F811
    app = create_app({"DATABASE_URL": empty_database, "TESTING": True, "RATELIMIT_ENABLED": False})
    with app.app_context():
        try:
            upgrade(revision="0002")
            games = sa.table("games", *(sa.column(name) for name in (
                "id", "code", "deal", "draw", "status", "score", "moves", "undos", "version", "hints", "state",
                "created_at", "updated_at")))
            actions = sa.table("actions", *(sa.column(name) for name in (
                "game_id", "seq", "notation", "detail", "points", "score_after", "at")))
            with db.engine.begin() as connection:
                for game_id, status in (("won1", "won"), ("play1", "playing")):
                    connection.execute(sa.insert(games).values(
                        id=game_id, code="TF1-D1N-AAAAAAB", deal=1, draw=1, status=status, score=0, moves=3,
                        undos=1, version=4, hints=0, state="{}", created_at=NOW, updated_at=NOW))
                    # Inserted out of order: the line follows seq.
                    for seq, notation in ((3, "undo"), (1, "draw"), (4, "t1>t2"), (2, "draw")):
                        connection.execute(sa.insert(actions).values(
                            game_id=game_id, seq=seq, notation=notation, detail="{}", points=0, score_after=0,
                            at=NOW))
            upgrade()
            with db.engine.connect() as connection:
                lines = dict(connection.execute(sa.text("SELECT id, line FROM games")).all())
            assert lines == {"won1": "draw draw undo t1>t2", "play1": None}
        finally:
            db.session.remove()
            db.engine.dispose()

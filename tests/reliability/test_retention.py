"""Retention: ``flask purge`` deletes abandoned anonymous games and old stored answers, nothing else."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import sqlalchemy as sa

from service.extensions import db
from tests.api.helpers import act, new_game

LONG_AGO = datetime.now(UTC) - timedelta(days=31)


def _age(app, table: str, column: str, ids: list[str], when: datetime) -> None:
    key = "id" if table == "games" else "game_id"
    with app.app_context():
        db.session.execute(sa.text(f"UPDATE {table} SET {column} = :when WHERE {key} IN :ids")
                           .bindparams(sa.bindparam("ids", expanding=True)), {"when": when, "ids": ids})
        db.session.commit()


def _ids(app, sql: str) -> set:
    with app.app_context():
        return set(db.session.execute(sa.text(sql)).scalars().all())


def _win(client, game, headers) -> None:
    while True:
        hint = client.get(f"/v1/games/{game['id']}/hint", headers=headers).get_json()
        if hint.get("code") == "GAME_FINISHED":
            return
        action = hint["action"]
        endpoint = {"move": "moves", "draw": "draw", "recycle": "recycle", "take-back": "take-back"}[action["action"]]
        assert act(client, game, headers, endpoint, {k: v for k, v in action.items() if k != "action"} or None
                   ).status_code == 200


def test_purge_deletes_only_idle_unfinished_anonymous_games_and_old_answers(app, client):
    idle, idle_auth = new_game(client)
    assert act(client, idle, idle_auth, "draw", **{"Idempotency-Key": "a"}).status_code == 200
    fresh, fresh_auth = new_game(client)
    assert act(client, fresh, fresh_auth, "draw", **{"Idempotency-Key": "b"}).status_code == 200
    won, won_auth = new_game(client, code="TF1-D1N-AAAAAAC")
    _win(client, won, won_auth)
    player = client.post("/v1/players", json={"name": "P"}).get_json()
    owned = client.post("/v1/games", json={}, headers={"Authorization": f"Bearer {player['token']}"}).get_json()
    created = client.post("/v1/games", json={}, headers={"Idempotency-Key": "c" * 16}).get_json()
    _age(app, "games", "updated_at", [idle["id"], won["id"], owned["id"]], LONG_AGO)
    _age(app, "idempotent_answers", "created_at", [fresh["id"]], LONG_AGO)
    with app.app_context():
        db.session.execute(sa.text("UPDATE created_answers SET created_at = :when"), {"when": LONG_AGO})
        db.session.commit()

    result = app.test_cli_runner().invoke(args=["purge"])
    assert result.exit_code == 0, result.output
    assert "purged 1 idle anonymous games and 2 stored answers" in result.output
    assert _ids(app, "SELECT id FROM games") == {fresh["id"], won["id"], owned["id"], created["id"]}
    assert _ids(app, "SELECT game_id FROM actions") == {fresh["id"], won["id"]}
    assert _ids(app, "SELECT game_id FROM idempotent_answers") == set()
    assert _ids(app, "SELECT scope FROM created_answers") == set()
    assert client.get(f"/v1/games/{idle['id']}").status_code == 404
    # a second run finds nothing; a shorter period takes the games idle since the test began
    assert "purged 0 idle anonymous games and 0 stored answers" in app.test_cli_runner().invoke(args=["purge"]).output


def test_pool_commands(app):
    runner = app.test_cli_runner()
    result = runner.invoke(args=["pool", "fill", "--draw", "1", "--target", "2"])
    assert result.exit_code == 0, result.output
    assert "draw 1: added 2, 2 waiting" in result.output
    status = runner.invoke(args=["pool", "status"]).output
    assert "draw 1: 2 deals" in status and "draw 3: 0 deals" in status

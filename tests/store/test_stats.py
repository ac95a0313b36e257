"""Player statistics kept as games are dealt and won: equal to a full count after any history, and O(1) to read."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta

import sqlalchemy as sa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.extensions import db
from service.store import GameRow, PlayerRow, stats

T0 = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)
_numbers = itertools.count()
FIELDS = ("started", "won", "best_score", "fewest_moves", "fastest_ms", "current_streak", "best_streak",
          "trailing")


def _player() -> str:
    player_id = f"p{next(_numbers):07d}"
    db.session.add(PlayerRow(id=player_id, name="P", token_hash=player_id))
    db.session.flush()
    stats.create(db.session.connection(), player_id)
    return player_id


def _snapshot(player_id: str) -> dict:
    return {mode: {name: getattr(row, name) for name in FIELDS} for mode, row in stats.read(player_id).items()}


OPS = st.lists(st.one_of(st.tuples(st.just("deal"), st.sampled_from([1, 3]), st.integers(0, 2)),
                         st.tuples(st.just("win"), st.integers(0, 50), st.integers(0, 500))), max_size=30)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=OPS)
def test_kept_statistics_equal_a_full_count(app, ops):
    with app.app_context():
        player = _player()
        playing: list[str] = []
        moment = T0
        for op in ops:
            if op[0] == "deal":
                _, draw, step = op
                moment += timedelta(seconds=step)  # a step of 0: two games dealt in the same instant
                game_id = f"g{next(_numbers):07d}"
                db.session.add(GameRow(id=game_id, code=f"TF1-D{draw}N-AAAAAAB", deal=1, draw=draw, player_id=player,
                                    token_hash=None, state={}, created_at=moment, updated_at=moment))
                db.session.flush()
                stats.game_dealt(db.session.connection(), player, draw)
                playing.append(game_id)
            elif playing:
                _, pick, score = op
                game_id = playing.pop(pick % len(playing))
                row = db.session.connection().execute(sa.select(GameRow.__table__).where(GameRow.id == game_id)).first()
                stats.game_won(db.session.connection(), row, score, 300 - score, 1000 + score)
                db.session.execute(sa.update(GameRow).where(GameRow.id == game_id).values(
                    status="won", score=score, moves=300 - score, duration_ms=1000 + score))
                db.session.flush()
        kept = _snapshot(player)
        stats.recount(db.session.connection(), player)
        assert kept == _snapshot(player)
        db.session.rollback()


def _statements(app, client, path: str) -> list[str]:
    seen: list[str] = []

    def record(conn, cursor, statement, *args):
        seen.append(statement)

    with app.app_context():
        engine = db.engine
    sa.event.listen(engine, "before_cursor_execute", record)
    try:
        assert client.get(path).status_code == 200
    finally:
        sa.event.remove(engine, "before_cursor_execute", record)
    return seen


def test_reading_statistics_does_not_depend_on_the_number_of_games(app, client):
    players = {}
    with app.app_context():
        for count in (10, 10_000):
            player = _player()
            db.session.execute(sa.insert(GameRow.__table__), [
                {"id": f"b{count}-{i}", "code": "TF1-D1N-AAAAAAB", "deal": 1, "draw": 1 + 2 * (i % 2),
                 "player_id": player, "token_hash": None, "status": "won" if i % 3 else "playing",
                 "score": i % 700, "moves": 100 + i % 50, "undos": 0, "version": 0, "hints": 0, "state": {},
                 "created_at": T0 + timedelta(seconds=i), "updated_at": T0, "duration_ms": 1000 + i}
                for i in range(count)])
            stats.recount(db.session.connection(), player)
            players[count] = player
        db.session.commit()
    small, large = (_statements(app, client, f"/v1/players/{players[n]}") for n in (10, 10_000))
    assert len(small) == len(large)
    assert not any("games" in statement for statement in large)
    body = client.get(f"/v1/players/{players[10_000]}").get_json()["stats"]
    assert body["all"]["started"] == 10_000 and body["all"]["won"] == 6_666
    assert body["draw1"]["started"] == body["draw3"]["started"] == 5_000

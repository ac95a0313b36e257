"""The feed of finished games, per-game verification and pollable boards, on SQLite and PostgreSQL.

Most wins are rows inserted with chosen times (``add_win``); two tests win games
through the API with the solver's line and replay the feed's entries through the
engine. The feed's settling delay is 0 here except where a test is about it.
"""

from __future__ import annotations

import json
import time
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import event, update

from service import create_app
from service.api import feed as feed_api
from service.api.feed import STREAM_LIMIT
from service.engine import Action, GameCode, replay
from service.extensions import db
from service.store import ActionRow, GameRow
from service.store.board_tags import tag_cache
from service.usecases import boards
from tests.api.gameplay import WINNABLE_CODE, post_action, winning_line
from tests.api.helpers import new_game, problem
from tests.api.test_leaderboards import T0, add_player
from tests.api.test_leaderboards import add_win as insert_win
from tests.conftest import _upgrade, dispose_app
from tests.databases import scratch_postgres

NDJSON = "application/x-ndjson"


@pytest.fixture
def app(database_url):
    app = create_app({"DATABASE_URL": database_url, "TESTING": True, "RATELIMIT_ENABLED": False,
                      "FEED_SETTLE_MS": 0, "PUBLIC_CACHE_SECONDS": 7})
    signal = tags_of(app).signal
    assert signal is None or signal.wait_listening(10), "PostgreSQL: the win signal should be listening"
    yield app
    with app.app_context():
        db.engine.dispose()


def tags_of(app):
    with app.app_context():
        return tag_cache(db.engine)


@contextmanager
def heard(app):
    """On PostgreSQL, wait at the end of the block until the app's win signal has heard a win of it.

    A process sees a win a moment after its commit (the notification's trip); the tests
    wait for it, as a client polling a moment later would.
    """
    cache = tags_of(app)
    before = cache.generation_now()
    yield
    deadline = time.monotonic() + 5
    while before is not None and cache.generation_now() == before:
        assert time.monotonic() < deadline, "no notification of the win"
        time.sleep(0.002)


def add_win(app, **kwargs) -> str:
    if kwargs.get("status", "won") != "won":
        return insert_win(app, **kwargs)
    with heard(app):
        return insert_win(app, **kwargs)


def feed(client, **query) -> dict:
    response = client.get("/v1/games/finished", query_string=query)
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def stream(client, **query) -> tuple[list[dict], dict]:
    """The entries of an NDJSON stream and its last line."""
    response = client.get("/v1/games/finished", query_string=query, headers={"Accept": NDJSON})
    assert response.status_code == 200, response.get_data(as_text=True)
    assert response.mimetype == NDJSON
    lines = [json.loads(line) for line in response.get_data(as_text=True).splitlines()]
    assert all("id" in line for line in lines[:-1]) and "resume" in lines[-1]
    return lines[:-1], lines[-1]


def ids(items: list[dict]) -> list[str]:
    return [item["id"] for item in items]


def set_line(app, game_id: str, line: str) -> None:
    with app.app_context():
        db.session.execute(update(GameRow).where(GameRow.id == game_id).values(line=line))
        db.session.commit()


def test_entry_shape_order_and_only_wins(app, client):
    player = add_player(app, "Zoë")
    late = add_win(app, score=10, finished=T0 + timedelta(hours=1), deal=7)
    early = add_win(app, score=640, moves=123, ms=95_250, player=player, draw=3, deal=42)
    add_win(app, score=999, status="playing")
    set_line(app, early, "draw t1>fH undo")
    page = feed(client)
    assert ids(page["items"]) == [early, late]
    assert page["items"][0] == {
        "id": early, "code": str(GameCode(draw=3, deal=42)), "draw": 3, "player": {"id": player, "name": "Zoë"},
        "score": 640, "moves": 123, "undos": 0, "hints": 0, "duration_ms": 95_250,
        "finished_at": "2026-11-01T12:00:00.000Z", "line": "draw t1>fH undo", "timing": "server",
    }
    assert page["items"][1]["player"] is None
    assert page["next"] is None and page["resume"] is not None
    # Equal finish times are ordered by id.
    a, b = add_win(app, score=1, finished=T0, game_id="gzzz1a"), add_win(app, score=1, finished=T0, game_id="gzzz1b")
    assert ids(feed(client)["items"]) == [early, a, b, late]


def test_pages_are_stable_while_wins_arrive(app, client):
    expected = [add_win(app, score=s, finished=T0 + timedelta(minutes=s)) for s in range(5)]
    seen, cursor, minute = [], None, 100
    while True:
        page = feed(client, limit=2, **({"cursor": cursor} if cursor else {}))
        seen += ids(page["items"])
        if page["next"] is None:
            break
        # A win arrives between every two pages; it is listed once, after the others.
        if minute < 104:
            expected.append(add_win(app, score=1, finished=T0 + timedelta(minutes=minute)))
            minute += 1
        cursor = page["next"]
    assert seen == expected
    # The last page's resume cursor lists only what finished later.
    resume = page["resume"]
    assert feed(client, cursor=resume)["items"] == []
    newer = add_win(app, score=3, finished=T0 + timedelta(days=1))
    again = feed(client, cursor=resume)
    assert ids(again["items"]) == [newer] and again["next"] is None


def test_filters_draw_and_since(app, client):
    one = add_win(app, score=1, draw=1, finished=T0)
    three = add_win(app, score=1, draw=3, finished=T0 + timedelta(hours=1))
    later = add_win(app, score=1, draw=1, finished=T0 + timedelta(days=2))
    assert ids(feed(client, draw=1)["items"]) == [one, later]
    assert ids(feed(client, draw=3)["items"]) == [three]
    assert ids(feed(client, since="2026-11-01T12:30:00Z")["items"]) == [three, later]
    assert ids(feed(client, since="2026-11-02", draw=1)["items"]) == [later]


def test_settling_delay_hides_the_newest_wins(app, client, database_url):
    settled = add_win(app, score=1, finished=datetime.now(UTC) - timedelta(minutes=5))
    fresh = add_win(app, score=1, finished=datetime.now(UTC) - timedelta(seconds=1))
    assert ids(feed(client)["items"]) == [settled, fresh]
    slow = create_app({"DATABASE_URL": database_url, "RATELIMIT_ENABLED": False, "FEED_SETTLE_MS": 60_000})
    try:
        assert ids(feed(slow.test_client())["items"]) == [settled]
    finally:
        with slow.app_context():
            db.engine.dispose()


def test_ndjson_stream_ends_with_the_resume_line(app, client):
    games = [add_win(app, score=s, finished=T0 + timedelta(minutes=s)) for s in range(5)]
    entries, end = stream(client)
    assert ids(entries) == games
    assert end == {"resume": feed(client)["resume"], "count": 5, "more": False}
    assert entries == feed(client)["items"]
    # A limit cuts the stream; the resume line continues exactly there.
    first, end = stream(client, limit=3)
    assert ids(first) == games[:3] and end["count"] == 3 and end["more"] is True
    rest, end = stream(client, cursor=end["resume"])
    assert ids(rest) == games[3:] and end["more"] is False
    newer = add_win(app, score=1, finished=T0 + timedelta(days=1))
    last, _ = stream(client, cursor=end["resume"])
    assert ids(last) == [newer]
    # Nothing new: no entries, and the cursor given comes back to resume from.
    empty, end_empty = stream(client, cursor=stream(client)[1]["resume"])
    assert empty == [] and end_empty["count"] == 0 and end_empty["resume"] is not None


def test_empty_feed(client):
    assert feed(client) == {"items": [], "next": None, "resume": None}
    assert stream(client) == ([], {"resume": None, "count": 0, "more": False})


@pytest.mark.parametrize("query", [
    {"limit": 0}, {"limit": 201}, {"limit": "x"}, {"draw": 2}, {"since": "yesterday"},
    {"cursor": "not-a-cursor"}, {"cursor": "eyJhdCI6IjEiLCJnYW1lIjoxfQ"},
])
def test_bad_queries_are_400(client, query):
    body = problem(client.get("/v1/games/finished", query_string=query), 400, "INVALID_REQUEST")
    assert body["errors"]


def test_a_stream_takes_a_larger_limit_but_not_an_unbounded_one(app, client):
    add_win(app, score=1)
    assert stream(client, limit=STREAM_LIMIT)[1]["count"] == 1
    problem(client.get(f"/v1/games/finished?limit={STREAM_LIMIT + 1}", headers={"Accept": NDJSON}), 400,
            "INVALID_REQUEST")


def test_a_stream_stops_at_its_default_bound_with_a_resume_line(app, client, monkeypatch):
    monkeypatch.setattr(feed_api, "STREAM_DEFAULT", 3)
    games = [add_win(app, score=s, finished=T0 + timedelta(minutes=s)) for s in range(4)]
    first, end = stream(client)
    assert ids(first) == games[:3] and end["count"] == 3 and end["more"] is True
    rest, end = stream(client, cursor=end["resume"])
    assert ids(rest) == games[3:] and end["count"] == 1 and end["more"] is False


def test_a_stream_stops_when_its_time_is_up_with_a_resume_line(app, client, monkeypatch):
    monkeypatch.setattr(boards, "STREAM_BATCH", 2)
    app.config["FEED_STREAM_SECONDS"] = 0  # up after the first batch
    games = [add_win(app, score=s, finished=T0 + timedelta(minutes=s)) for s in range(5)]
    seen, cursor = [], None
    for expected_count in (2, 2, 1):
        entries, end = stream(client, **({"cursor": cursor} if cursor else {}))
        assert end["count"] == len(entries) == expected_count
        assert end["more"] is (expected_count == 2)  # a full batch may have more behind it
        seen += ids(entries)
        cursor = end["resume"]
    assert seen == games
    assert stream(client, cursor=cursor) == ([], {"resume": cursor, "count": 0, "more": False})


def win_through_api(client, with_undo: bool) -> str:
    game, headers = new_game(client, code=WINNABLE_CODE)
    line = list(winning_line())
    if with_undo:  # a detour taken back: the feed's line keeps both
        line[0:0] = [Action.draw(), Action.undo()]
    for action in line:
        response = post_action(client, game["id"], headers, action)
        assert response.status_code == 200, response.get_json()
    assert response.get_json()["status"] == "won"
    return game["id"]


def test_every_entry_of_games_won_through_the_api_replays(app, client):
    won = [win_through_api(client, with_undo=False), win_through_api(client, with_undo=True)]
    new_game(client)  # still being played: not in the feed
    entries = feed(client)["items"]
    assert sorted(ids(entries)) == sorted(won)
    assert entries == stream(client)[0]
    for entry in entries:
        game = replay(entry["code"], entry["line"].split(" "))
        assert game.won
        assert (game.score, game.moves, game.undos) == (entry["score"], entry["moves"], entry["undos"])
    assert {entry["undos"] for entry in entries} == {0, 1}


def test_verification_of_played_won_and_tampered_games(app, client):
    game, headers = new_game(client, code=WINNABLE_CODE)
    for action in winning_line()[:20]:
        assert post_action(client, game["id"], headers, action).status_code == 200
    report = client.get(f"/v1/games/{game['id']}/verification").get_json()
    assert report["consistent"] is True and report["differences"] == [] and report["actions"] == 20
    assert report["replayed"]["status"] == "playing"

    won = win_through_api(client, with_undo=True)
    report = client.get(f"/v1/games/{won}/verification").get_json()
    assert report["consistent"] is True and report["replayed"]["status"] == "won"

    # Tamper with the stored state: a tableau column loses its last card, the score gains 5.
    with app.app_context():
        row = db.session.get(GameRow, game["id"])
        state = json.loads(json.dumps(row.state))
        column = next(column for column in state["tableau"] if column)
        column.pop()
        db.session.execute(update(GameRow).where(GameRow.id == game["id"]).values(state=state, score=row.score + 5))
        db.session.commit()
    report = client.get(f"/v1/games/{game['id']}/verification").get_json()
    assert report["consistent"] is False
    assert {"field": "state", "parts": ["tableau"]} in report["differences"]
    score = next(d for d in report["differences"] if d["field"] == "score")
    assert score["stored"] == score["replayed"] + 5
    # No difference names a stock card: the stock's order stays secret.
    assert "stock" not in json.dumps(report["differences"])

    # A won game whose line was altered after the win.
    set_line(app, won, "draw")
    report = client.get(f"/v1/games/{won}/verification").get_json()
    assert report["consistent"] is False and [d["field"] for d in report["differences"]] == ["line"]


def test_verification_of_a_history_that_does_not_replay(app, client):
    game, headers = new_game(client, code=WINNABLE_CODE)
    assert post_action(client, game["id"], headers, winning_line()[0]).status_code == 200

    with app.app_context():
        db.session.execute(update(ActionRow).where(ActionRow.game_id == game["id"]).values(notation="recycle"))
        db.session.commit()
    report = client.get(f"/v1/games/{game['id']}/verification").get_json()
    assert report["consistent"] is False
    assert report["differences"][0]["field"] == "history" and report["differences"][0]["seq"] == 1


def test_verification_of_an_unknown_game_is_404(client):
    problem(client.get("/v1/games/nope/verification"), 404, "GAME_NOT_FOUND")


# -- pollable boards ------------------------------------------------------------------

BOARDS = {
    "all": "/v1/leaderboard",
    "draw 1": "/v1/leaderboard?draw=1",
    "draw 3": "/v1/leaderboard?draw=3",
    "deal 5": f"/v1/deals/{GameCode(draw=1, deal=5)}/leaderboard",
    "deal 6": f"/v1/deals/{GameCode(draw=1, deal=6)}/leaderboard",
    "player P": "/v1/leaderboard?player={P}",
    "player Q": "/v1/leaderboard?player={Q}",
    "November 1": "/v1/leaderboard?since=2026-11-01&until=2026-11-02",
    "feed": "/v1/games/finished",
    "feed draw 3": "/v1/games/finished?draw=3",
    "feed page 2": "/v1/games/finished?limit=1&cursor={C}",
}


def tags(client, **names) -> dict:
    found = {}
    for board, path in BOARDS.items():
        response = client.get(path.format(**names))
        assert response.status_code == 200, (board, response.get_json())
        assert response.headers["Cache-Control"] == "public, max-age=7"
        found[board] = response.headers["ETag"]
    return found


def test_a_new_win_changes_the_tag_of_every_board_it_enters_and_of_no_other(app, client):
    p, q = add_player(app, "P"), add_player(app, "Q")
    add_win(app, score=100, deal=5, player=p)
    add_win(app, score=100, deal=6, player=q, draw=1)
    add_win(app, score=100, deal=9, draw=3)
    cursor = feed(client, limit=1)["next"]
    names = {"P": p, "Q": q, "C": cursor}
    before = tags(client, **names)
    assert tags(client, **names) == before  # nothing new: the same tags
    # A win of P on deal 5, draw 1, on November 1.
    add_win(app, score=50, deal=5, player=p, finished=T0 + timedelta(hours=1))
    after = tags(client, **names)
    changed = {board for board in BOARDS if after[board] != before[board]}
    assert changed == {"all", "draw 1", "deal 5", "player P", "November 1", "feed", "feed page 2"}
    # An anonymous draw 3 win on November 2: another set of boards.
    add_win(app, score=50, deal=9, draw=3, finished=T0 + timedelta(days=1))
    last = tags(client, **names)
    assert {board for board in BOARDS if last[board] != after[board]} == {
        "all", "draw 3", "feed", "feed draw 3", "feed page 2"}


def test_a_win_through_the_api_changes_the_tag(app, client):
    first = client.get("/v1/leaderboard").headers["ETag"]
    with heard(app):
        win_through_api(client, with_undo=False)
    assert client.get("/v1/leaderboard").headers["ETag"] != first
    assert client.get(f"/v1/deals/{WINNABLE_CODE}/leaderboard").headers["ETag"] != first


@pytest.mark.parametrize("path", ["/v1/leaderboard?draw=1", f"/v1/deals/{GameCode(draw=1, deal=5)}/leaderboard",
                                  "/v1/games/finished?limit=2"])
def test_if_none_match_answers_304_until_a_win_enters(app, client, path):
    add_win(app, score=100, deal=5)
    tag = client.get(path).headers["ETag"]
    for sent in (tag, f"W/{tag}", f'"other", {tag}', "*"):
        response = client.get(path, headers={"If-None-Match": sent})
        assert response.status_code == 304, sent
        assert response.get_data() == b""
        assert response.headers["ETag"] == tag and response.headers["Cache-Control"] == "public, max-age=7"
    assert client.get(path, headers={"If-None-Match": '"other"'}).status_code == 200
    add_win(app, score=1, deal=5, finished=T0 + timedelta(minutes=1))
    response = client.get(path, headers={"If-None-Match": tag})
    assert response.status_code == 200 and response.headers["ETag"] != tag


def test_a_remembered_tag_answers_304_without_a_query(app, client, database_url):
    """PostgreSQL: a tag read once holds, with no query, until the win signal says a win arrived."""
    if not database_url.startswith("postgresql"):
        pytest.skip("PostgreSQL only: SQLite reads its tags every time")
    add_win(app, score=100, deal=5)
    statements = []
    with app.app_context():
        engine = db.engine
    event.listen(engine, "before_cursor_execute", lambda *args: statements.append(args[2]))
    paths = ["/v1/leaderboard?draw=1", f"/v1/deals/{GameCode(draw=1, deal=5)}/leaderboard", "/v1/games/finished"]
    for path in paths:
        tag = client.get(path).headers["ETag"]  # read, and remembered
        statements.clear()
        response = client.get(path, headers={"If-None-Match": tag})
        assert response.status_code == 304 and response.headers["ETag"] == tag
        assert statements == [], path
    add_win(app, score=1, deal=5, finished=T0 + timedelta(minutes=1))
    for path in paths:
        response = client.get(path, headers={"If-None-Match": tag})
        assert response.status_code == 200 and response.headers["ETag"] != tag


def test_a_feed_tag_is_not_remembered_while_a_win_may_still_enter_the_feed(database_url):
    """The feed ends FEED_SETTLE_MS before now: a win heard less than that ago has yet to enter it."""
    if not database_url.startswith("postgresql"):
        pytest.skip("PostgreSQL only")
    settled = create_app({"DATABASE_URL": database_url, "RATELIMIT_ENABLED": False, "FEED_SETTLE_MS": 60_000})
    try:
        client = settled.test_client()
        with heard(settled):
            insert_win(settled, score=1, finished=datetime.now(UTC))
        statements = []
        with settled.app_context():
            event.listen(db.engine, "before_cursor_execute", lambda *args: statements.append(args[2]))
        tag = client.get("/v1/games/finished").headers["ETag"]
        statements.clear()
        assert client.get("/v1/games/finished", headers={"If-None-Match": tag}).status_code == 304
        assert statements, "read again, not remembered"
    finally:
        with settled.app_context():
            db.engine.dispose()


def test_a_tag_read_on_a_lagging_replica_is_not_remembered(database_url):
    """A replica may not yet have replayed a win whose notification has arrived: the older tag it gives
    must not be remembered under the new generation, or a client polling with it gets 304 until the next win."""
    if not database_url.startswith("postgresql"):
        pytest.skip("PostgreSQL only: SQLite has no win signal and no replica")
    with scratch_postgres("replica") as replica_url:
        _upgrade(replica_url)
        # The "replica": another database (not in recovery, so its lag is 0) that gets each win later.
        replica = create_app({"DATABASE_URL": replica_url, "RATELIMIT_ENABLED": False})
        app = create_app({"DATABASE_URL": database_url, "DATABASE_REPLICA_URLS": [replica_url], "TESTING": True,
                          "RATELIMIT_ENABLED": False, "FEED_SETTLE_MS": 0})
        try:
            assert tags_of(app).signal.wait_listening(10)
            client = app.test_client()
            paths = ["/v1/leaderboard", "/v1/games/finished"]
            for target in (app, replica):
                insert_win(target, score=100, game_id="g-first")
            old = {path: client.get(path).headers["ETag"] for path in paths}
            add_win(app, score=200, game_id="g-second", finished=T0 + timedelta(minutes=1))  # heard, not replayed
            for path in paths:  # polled during the lag: the replica's older page and tag
                assert client.get(path).headers["ETag"] == old[path]
            insert_win(replica, score=200, game_id="g-second", finished=T0 + timedelta(minutes=1))  # replayed
            for path in paths:
                response = client.get(path, headers={"If-None-Match": old[path]})
                assert response.status_code == 200, path
                assert "g-second" in [item.get("game", item.get("id")) for item in response.get_json()["items"]]
        finally:
            dispose_app(app)
            dispose_app(replica)


def test_conditional_requests_still_validate(app, client):
    add_win(app, score=100)
    tag = client.get("/v1/leaderboard").headers["ETag"]
    problem(client.get("/v1/leaderboard?cursor=bad", headers={"If-None-Match": tag}), 400, "INVALID_REQUEST")
    # An unknown player's board is empty, like a player without wins: still 404, never 304.
    empty = client.get(f"/v1/leaderboard?player={add_player(app)}").headers["ETag"]
    problem(client.get("/v1/leaderboard?player=nobody", headers={"If-None-Match": empty}), 404, "PLAYER_NOT_FOUND")


def test_a_late_commit_within_the_settling_delay_changes_the_tag(app, client, database_url):
    """PostgreSQL: a win stamped before the latest one but committed after it still moves the tag.

    (SQLite stamps wins under its single writer lock: they commit in the order stamped.)
    """
    if not database_url.startswith("postgresql"):
        pytest.skip("PostgreSQL only")
    add_win(app, score=100, finished=T0 + timedelta(seconds=10))
    settled = create_app({"DATABASE_URL": database_url, "RATELIMIT_ENABLED": False, "FEED_SETTLE_MS": 5000})
    try:
        other = settled.test_client()
        tag = other.get("/v1/leaderboard").headers["ETag"]
        add_win(app, score=90, finished=T0 + timedelta(seconds=8))  # committed now, stamped 2 s earlier
        assert other.get("/v1/leaderboard").headers["ETag"] != tag
    finally:
        with settled.app_context():
            db.engine.dispose()


def test_headers_of_pages_and_streams(app, client):
    add_win(app, score=1)
    page = client.get("/v1/games/finished")
    assert page.headers["Vary"] == "Accept" and page.headers["ETag"]
    streamed = client.get("/v1/games/finished", headers={"Accept": NDJSON})
    assert streamed.headers["Vary"] == "Accept" and streamed.headers["Cache-Control"] == "no-store"
    assert "ETag" not in streamed.headers
    # A bad query is a problem document before any line is streamed.
    problem(client.get("/v1/games/finished?cursor=x", headers={"Accept": NDJSON}), 400, "INVALID_REQUEST")


def test_since_and_cursor_together(app, client):
    old = add_win(app, score=1, finished=T0 - timedelta(days=3))
    first, second = (add_win(app, score=1, finished=T0 + timedelta(minutes=m)) for m in (1, 2))
    page = feed(client, since="2026-11-01", limit=1)
    assert ids(page["items"]) == [first]
    assert ids(feed(client, since="2026-11-01", cursor=page["next"])["items"]) == [second]
    assert old not in ids(stream(client, since="2026-11-01")[0])

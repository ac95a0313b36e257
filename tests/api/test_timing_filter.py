"""``timing=server|client`` on every board and on the feed, on SQLite and PostgreSQL.

A game born offline is client-timed: its time includes the seconds its client reported,
``seconds: 0`` included, which would win every time tie-break. ``timing=server`` keeps
only the games the server timed. Most wins are rows inserted with chosen values
(``add_win``, ``client_started`` for a client-timed one); one test plays through the API.
"""

from __future__ import annotations

import json
from datetime import timedelta

import pytest

from service.engine import GameCode
from tests.api.gameplay import WINNABLE_CODE
from tests.api.helpers import problem
from tests.api.test_born_offline import born, line
from tests.api.test_feed import heard, set_line, tags_of
from tests.api.test_leaderboards import T0
from tests.api.test_leaderboards import add_win as insert_win
from tests.contract.conformance import conforming

NDJSON = "application/x-ndjson"
OFFLINE = T0 - timedelta(hours=1)  # when a client-timed game's client says it started
TIMINGS = ("server", "client")


@pytest.fixture
def app(make_app, database_url):
    app = make_app({"DATABASE_URL": database_url, "TESTING": True, "RATELIMIT_ENABLED": False,
                    "FEED_SETTLE_MS": 0})
    signal = tags_of(app).signal
    assert signal is None or signal.wait_listening(10), "PostgreSQL: the win signal should be listening"
    with conforming(app):  # every answer declared in openapi.yaml
        yield app


@pytest.fixture
def client(app):
    return app.test_client()


def add_win(app, *, client_timed: bool = False, **kwargs) -> str:
    """A won row (with a line, as the feed's entries have), client-timed or not; heard on PostgreSQL."""
    with heard(app):
        game_id = insert_win(app, client_started=OFFLINE if client_timed else None, **kwargs)
    set_line(app, game_id, "draw")
    return game_id


def board_of(client, kind: str) -> tuple[str, dict]:
    """A board's path and the ``add_win`` arguments of a win on it: the general board, a deal's, the daily deal's."""
    if kind == "all":
        return "/v1/leaderboard", {"deal": 11}
    if kind == "deal":
        code = GameCode(draw=3, deal=7)
        return f"/v1/deals/{code}/leaderboard", {"deal": 7, "draw": 3}
    daily = client.get("/v1/daily").get_json()
    code = GameCode.parse(daily["code"])
    return daily["leaderboard"], {"deal": code.deal, "draw": code.draw}


BOARDS = ("all", "deal", "daily")


def get(client, path: str, **query) -> dict:
    response = client.get(path, query_string=query)
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def entries(page: dict) -> list[tuple[int, str, str]]:
    return [(entry["rank"], entry["game"], entry["timing"]) for entry in page["items"]]


def every_entry(client, path: str, **query) -> list[tuple[int, str, str]]:
    """All of a board's entries, page by page, sending the query again with each cursor."""
    found, cursor = [], None
    while True:
        page = get(client, path, **query, **({"cursor": cursor} if cursor else {}))
        found += entries(page)
        cursor = page["next"]
        if cursor is None:
            return found


@pytest.mark.parametrize("kind", BOARDS)
def test_a_board_keeps_one_timing_and_ranks_within_it(app, client, kind):
    path, on_board = board_of(client, kind)
    s1 = add_win(app, score=500, moves=90, ms=60_000, **on_board)
    c0 = add_win(app, score=500, moves=90, ms=0, client_timed=True, **on_board)  # "seconds: 0"
    c1 = add_win(app, score=400, ms=30_000, client_timed=True, **on_board)
    s2 = add_win(app, score=300, **on_board)
    s3 = add_win(app, score=500, moves=90, ms=60_000, finished=T0 + timedelta(minutes=1), **on_board)
    assert entries(get(client, path)) == [(1, c0, "client"), (2, s1, "server"), (2, s3, "server"),
                                          (4, c1, "client"), (5, s2, "server")]
    assert entries(get(client, path, timing="server")) == [(1, s1, "server"), (1, s3, "server"), (3, s2, "server")]
    assert entries(get(client, path, timing="client")) == [(1, c0, "client"), (2, c1, "client")]


@pytest.mark.parametrize("kind", BOARDS)
def test_pages_of_a_filtered_board(app, client, kind):
    path, on_board = board_of(client, kind)
    for n in range(14):  # ties on score, moves and time across pages
        add_win(app, score=100 * (n % 4), moves=50 + n % 2, ms=1000 * (n % 3), client_timed=n % 3 == 0,
                finished=T0 + timedelta(minutes=n), **on_board)
    for timing in TIMINGS:
        whole = entries(get(client, path, timing=timing))
        assert {entry[2] for entry in whole} == {timing} and len(whole) == (5 if timing == "client" else 9)
        for limit in (1, 2, 4):
            assert every_entry(client, path, timing=timing, limit=limit) == whole, (timing, limit)
    # A cursor is a position, whatever the filter it came from: sent with timing=server, a cursor of
    # the whole board continues the server-timed board after that position, ranked within it.
    servers = entries(get(client, path, timing="server"))
    first = get(client, path, limit=3)
    last_game = first["items"][-1]["game"]
    everything = [game for _, game, _ in entries(get(client, path))]
    behind = set(everything[everything.index(last_game) + 1:])
    rest = get(client, path, timing="server", cursor=first["next"])
    assert entries(rest) == [entry for entry in servers if entry[1] in behind]


def test_the_feed_keeps_one_timing_in_pages_and_streams(app, client):
    won = [add_win(app, score=10, deal=n, client_timed=n % 3 == 1, finished=T0 + timedelta(minutes=n))
           for n in range(9)]
    timing_of = {game: "client" if n % 3 == 1 else "server" for n, game in enumerate(won)}
    assert [entry["id"] for entry in get(client, "/v1/games/finished")["items"]] == won
    for timing in TIMINGS:
        wanted = [game for game in won if timing_of[game] == timing]
        listed, cursor = [], None
        while True:  # JSON pages, each sent with the filter and the previous page's next
            page = get(client, "/v1/games/finished", timing=timing, limit=2, **({"cursor": cursor} if cursor else {}))
            listed += page["items"]
            cursor = page["next"]
            if cursor is None:
                break
        assert [entry["id"] for entry in listed] == wanted
        assert {entry["timing"] for entry in listed} == {timing}
        # the NDJSON stream, in two parts: the second from the first's resume
        streamed, resume = [], None
        for _ in range(2):
            response = client.get("/v1/games/finished", headers={"Accept": NDJSON},
                                  query_string={"timing": timing, "limit": 2, **({"cursor": resume} if resume else {})})
            assert response.status_code == 200 and response.mimetype == NDJSON
            lines = [json.loads(text) for text in response.get_data(as_text=True).splitlines()]
            streamed += lines[:-1]
            resume = lines[-1]["resume"]
        assert [entry["id"] for entry in streamed] == wanted[:4]
        assert {entry["timing"] for entry in streamed} == {timing}
    # a client-timed win after the last resume of timing=server is not news there
    resume = get(client, "/v1/games/finished", timing="server")["resume"]
    add_win(app, score=10, deal=99, client_timed=True, finished=T0 + timedelta(hours=1))
    assert get(client, "/v1/games/finished", timing="server", cursor=resume)["items"] == []
    assert len(get(client, "/v1/games/finished", timing="client", cursor=resume)["items"]) == 1


@pytest.mark.parametrize("path", ["/v1/leaderboard", f"/v1/deals/{GameCode(draw=1, deal=5)}/leaderboard",
                                  "/v1/games/finished", "ndjson"])
@pytest.mark.parametrize("value", ["SERVER", "both", "", "server ", "1"])
def test_a_bad_timing_is_400(client, path, value):
    headers = {}
    if path == "ndjson":
        path, headers = "/v1/games/finished", {"Accept": NDJSON}
    body = problem(client.get(path, query_string={"timing": value}, headers=headers), 400, "INVALID_REQUEST")
    assert "timing" in body["errors"], body


@pytest.mark.parametrize("path", ["/v1/leaderboard", f"/v1/deals/{GameCode(draw=1, deal=5)}/leaderboard",
                                  "/v1/games/finished"])
def test_a_filtered_board_has_its_own_tag(app, client, path):
    add_win(app, score=100, deal=5, client_timed=True)
    add_win(app, score=90, deal=5, finished=T0 + timedelta(minutes=1))  # the latest win of both boards
    tags = {timing: client.get(path, query_string={"timing": timing} if timing else {}).headers["ETag"]
            for timing in (None, "server", "client")}
    assert len(set(tags.values())) == 3, tags
    # read first (on PostgreSQL: remembered), the whole board's tag is no 304 for a filtered one
    for timing in TIMINGS:
        response = client.get(path, query_string={"timing": timing}, headers={"If-None-Match": tags[None]})
        assert response.status_code == 200 and response.headers["ETag"] == tags[timing]
        assert client.get(path, query_string={"timing": timing},
                          headers={"If-None-Match": tags[timing]}).status_code == 304
    # a client-timed win moves the whole board's tag and the client-timed one, not the server-timed one
    add_win(app, score=80, deal=5, client_timed=True, finished=T0 + timedelta(minutes=2))
    assert client.get(path, headers={"If-None-Match": tags[None]}).status_code == 200
    for timing, status in (("client", 200), ("server", 304)):
        sent = {"If-None-Match": tags[timing]}
        assert client.get(path, query_string={"timing": timing}, headers=sent).status_code == status, timing


def test_a_game_born_offline_in_0_seconds_is_not_on_the_server_timed_boards(app, client):
    offline = born(client, line(), seconds=0)
    assert offline.status_code == 201, offline.get_json()
    offline = offline.get_json()
    assert offline["status"] == "won" and offline["seconds"] == 0 and offline["timing"] == "client"
    with heard(app):
        served = client.post("/v1/games", json={"code": WINNABLE_CODE}).get_json()
        won = client.post(f"/v1/games/{served['id']}/actions", json={"actions": line()},
                          headers={"Authorization": f"Bearer {served['token']}", "If-Match": '"0"'})
        assert won.status_code == 200 and won.get_json()["status"] == "won"
    for path in ("/v1/leaderboard", f"/v1/deals/{WINNABLE_CODE}/leaderboard"):
        # unfiltered, its 0 seconds win the time tie-break against the same line played on the server
        assert [entry["game"] for entry in get(client, path)["items"]] == [offline["id"], served["id"]]
        server_timed = get(client, path, timing="server")["items"]
        assert [(entry["rank"], entry["game"]) for entry in server_timed] == [(1, served["id"])]
        assert [entry["game"] for entry in get(client, path, timing="client")["items"]] == [offline["id"]]
    assert [entry["id"] for entry in get(client, "/v1/games/finished", timing="server")["items"]] == [served["id"]]
    response = client.get("/v1/games/finished?timing=server", headers={"Accept": NDJSON})
    assert [json.loads(text).get("id") for text in response.get_data(as_text=True).splitlines()] == [served["id"], None]

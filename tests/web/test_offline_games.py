"""No game's pending actions are lost: games left offline, and two tabs on two games.

* Game A played offline, game B dealt and played while still offline, a reload: the
  indicator counts A's and B's waiting actions; back online, A's batch goes first, then B
  is created with its actions; the server has both games one for one.
* Two tabs on two games, both offline; one tab leaves its game for a third: back online,
  every game reaches the server once (no Idempotency-Key answered twice), and a reload of
  a tab shows that tab's own game, not the one the other tab played last.
* Past MAX_UNSENT (store.js) unsent games, the oldest one left behind is dropped and the
  player is told; the others are all created once the server answers again.
"""

from __future__ import annotations

import json
import re

import pytest
import requests

from service.engine import Action, Game
from tests.web.test_offline_play import CODE, RECORD, close_clean, desktop, open_game, opening, play, wait_synced
from tests.web.test_play_page import wait_until

pytestmark = pytest.mark.browser

CODE_B = "TF1-D1N-AAAAAAA"
CODE_C = "TF1-D1N-AAAAAAC"
TAB_RECORD = "JSON.parse(sessionStorage.getItem('sr.tab'))"
NO_UNSENT = "Object.keys(localStorage).every((key) => !key.startsWith('sr.games.'))"
MAX_UNSENT = 20  # store.js


def history(url: str, game_id: str) -> list[str]:
    items = requests.get(f"{url}/v1/games/{game_id}/actions?limit=200", timeout=10).json()["items"]
    return [item["notation"] for item in items]


def deal(page, code: str) -> None:
    """A new game from ``code`` through the menu, confirming the abandon of a game in progress."""
    page.click("#menu-button")
    page.fill("#code-input", code)
    page.click("#new-game")
    if page.is_visible("#confirm-dialog[open]"):
        page.click("#confirm-yes")
    wait_until(page, f"document.querySelector('#code').textContent === {code!r}")


def writes(context) -> list[tuple[str, str, int]]:
    """Every answered write of the context: (path, Idempotency-Key, status)."""
    seen: list[tuple[str, str, int]] = []

    def answered(response):
        request = response.request
        if request.method == "POST" and "/v1/games" in request.url:
            seen.append((request.url.split("/v1", 1)[1], request.headers.get("idempotency-key", ""),
                         response.status))

    context.on("response", answered)
    return seen


def test_a_game_left_offline_is_sent_when_the_network_returns(browser, served):
    url, _ = served
    context = browser.new_context(viewport={"width": 1100, "height": 860})
    sent = writes(context)
    page = open_game(context, url)
    wait_until(page, "navigator.serviceWorker.controller !== null && "
                     "document.querySelector('#sync').dataset.state === 'synced'")
    a_id = page.evaluate(f"{RECORD}.id")
    context.set_offline(True)
    a = Game.from_code(CODE)
    for action in opening(a):
        play(page, a, action)
    a_actions = [str(x) for x in opening(Game.from_code(CODE))]

    deal(page, CODE_B)  # still offline: A's six actions stay on the device
    b = Game.from_code(CODE_B)
    for action in (Action.draw(), Action.draw(), Action.draw()):
        play(page, b, action)
    wait_until(page, "document.querySelector('#sync').dataset.state === 'offline'")

    page.reload()  # offline: the service worker serves the page; B on screen, A kept aside
    page.wait_for_selector("#board[data-version='3'] [data-card]")
    assert page.inner_text("#code") == CODE_B
    page.evaluate("window.dispatchEvent(new Event('offline'))")
    wait_until(page, "document.querySelector('#sync').dataset.state === 'offline'")
    context.set_offline(False)
    page.evaluate("window.dispatchEvent(new Event('online'))")
    wait_synced(page)
    wait_until(page, NO_UNSENT)

    assert history(url, a_id) == a_actions  # A: nothing lost, nothing twice
    b_id = page.evaluate(f"{RECORD}.id")
    assert b_id and b_id != a_id and history(url, b_id) == ["draw"] * 3
    posts = [path for path, _, status in sent if status < 300]
    b_created = len(posts) - 1 - posts[::-1].index("/games")
    assert posts.index(f"/games/{a_id}/actions") < b_created  # oldest first: A's batch, then B's creation
    close_clean(context, page)


def test_the_indicator_counts_every_games_waiting_actions(browser, served):
    url, _ = served
    context = desktop(browser)
    page = open_game(context, url)
    context.set_offline(True)
    a = Game.from_code(CODE)
    for action in opening(a):
        play(page, a, action)
    deal(page, CODE_B)
    b = Game.from_code(CODE_B)
    play(page, b, Action.draw())
    wait_until(page, "document.querySelector('#sync').dataset.state === 'offline'")

    held, released = [], []

    def hold(route):
        if released:
            route.continue_()
        else:
            held.append(route)

    page.route(re.compile(r".*/v1/games.*"), hold)  # the server's answers are held back
    context.set_offline(False)
    page.evaluate("window.dispatchEvent(new Event('online'))")
    wait_until(page, "document.querySelector('#sync').dataset.state === 'waiting'")
    assert page.inner_text("#sync") == "7 waiting"  # A's six and B's one
    released.append(True)
    for route in held:
        route.continue_()
    wait_synced(page)
    wait_until(page, NO_UNSENT)
    close_clean(context, page)


def test_two_tabs_on_two_games_keep_each_others_pending_actions(browser, served):
    url, _ = served
    context = desktop(browser)
    sent = writes(context)
    first = open_game(context, url, CODE)
    a_id = first.evaluate(f"{RECORD}.id")  # read before the second tab writes the last game shown
    second = open_game(context, url, CODE_B)
    b_id = second.evaluate(f"{RECORD}.id")
    assert a_id != b_id
    context.set_offline(True)
    a, b = Game.from_code(CODE), Game.from_code(CODE_B)
    a_actions = opening(a)
    for action in a_actions[:3]:
        play(first, a, action)
    play(second, b, Action.draw())
    for action in a_actions[3:]:
        play(first, a, action)
    play(second, b, Action.draw())
    deal(first, CODE_C)  # the first tab leaves A, still offline
    c = Game.from_code(CODE_C)
    play(first, c, Action.draw())
    play(second, b, Action.draw())  # the second tab writes last
    assert first.inner_text("#code") == CODE_C and second.inner_text("#code") == CODE_B

    context.set_offline(False)
    for page in (first, second):
        page.evaluate("window.dispatchEvent(new Event('online'))")
    for page in (first, second):
        wait_synced(page)
        wait_until(page, NO_UNSENT)
    assert history(url, a_id) == [str(x) for x in opening(Game.from_code(CODE))]
    assert history(url, b_id) == ["draw"] * 3
    c_id = first.evaluate(f"{TAB_RECORD}.id")  # the tab's own game (sr.game is the last shown in any tab)
    assert c_id not in (a_id, b_id) and history(url, c_id) == ["draw"]
    keys = [key for _, key, status in sent if status < 300]
    assert len(keys) == len(set(keys)), sent  # no batch was answered twice

    # a reload shows the tab's own game, though the other tab played last
    play(first, c, Action.draw())
    second.reload()
    second.wait_for_selector("#board[data-version='3'] [data-card]")
    assert second.inner_text("#code") == CODE_B
    first.reload()
    first.wait_for_selector("#board[data-version='2'] [data-card]")
    assert first.inner_text("#code") == CODE_C
    close_clean(context, first, second)


def test_past_the_limit_the_oldest_game_left_is_dropped_and_the_player_told(browser, served):
    url, _ = served
    context = desktop(browser)
    sent = writes(context)
    stored = {f"sr.games.old{i:02d}": {"lid": f"old{i:02d}", "id": None, "token": None, "code": CODE,
                                       "startedAt": 1_700_000_000_000 + i, "wonAt": None, "actions": ["draw"],
                                       "synced": 0, "sending": None, "creating": None}
              for i in range(MAX_UNSENT)}
    page = context.new_page()
    page.set_default_timeout(15_000)
    page.route(re.compile(r".*/v1/games.*"), lambda route: route.abort())  # the server cannot be reached
    page.add_init_script("if (!sessionStorage.getItem('seeded')) {" + "".join(
        f"localStorage.setItem({k!r}, {json.dumps(json.dumps(v))});" for k, v in stored.items())
        + "sessionStorage.setItem('seeded', '1');}")
    page.goto(url + "/")  # no game to resume: a new one is dealt, the 21st unsent game
    page.wait_for_selector("#board[data-version] [data-card]")
    wait_until(page, "document.querySelector('#message').textContent.includes('Too many unsaved games')")
    assert "(at most 20)" in page.inner_text("#message") and "being saved: 1." in page.inner_text("#message")
    left = page.evaluate("Object.keys(localStorage).filter((k) => k.startsWith('sr.games.')).sort()")
    assert "sr.games.old00" not in left and len(left) == MAX_UNSENT
    assert page.evaluate("document.querySelector('#sync').textContent") in (f"{MAX_UNSENT - 1} waiting", "Offline")

    page.unroute(re.compile(r".*/v1/games.*"))
    page.evaluate("window.dispatchEvent(new Event('online'))")
    wait_until(page, NO_UNSENT, 30)
    created = [key for path, key, status in sent if path == "/games" and status == 201]
    assert len(created) == MAX_UNSENT == len(set(created))  # 19 left behind and the new one, each once
    context.close()

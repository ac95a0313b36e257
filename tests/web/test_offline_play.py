"""The optimistic, offline play page (issue #38) in the system Chromium, against the real app.

* Answers held back: a draw, a move, a double tap, an undo and a take-back are on the board
  before the server answers any of them; released, the server's history is the page's.
* Offline: 40 actions (undo, take-back, recycle among them), a reload while offline shows the
  same board (the service worker), 10 more, back online: the server's history equals the
  page's actions one for one and the verification says consistent.
* Two tabs on one game both play offline and reconnect: no 5xx, one tab keeps its moves, the
  other shows the server's game and says so.
* A tampered local engine that lets an illegal move through: the page adopts the server's game.

No timing assertion: every wait is for a state of the page or the server.
"""

from __future__ import annotations

import re
import time

import pytest
import requests

from service.engine import Action, Game
from tests.web.test_play_page import DOM_STATE, card, column_target, drag, wait_until

pytestmark = pytest.mark.browser

CODE = "TF1-D1N-AAAAAAB"  # t1>t7:7H empties column 1 for KD, then AH goes up and can come back onto t4
RECORD = "JSON.parse(localStorage.getItem('sr.game'))"


def desktop(browser):
    """A laptop-sized context with no service worker (these tests hold and drop the API's answers)."""
    return browser.new_context(viewport={"width": 1100, "height": 860}, service_workers="block")


def close_clean(context, *pages) -> None:
    """Close ``context`` after checking that none of ``pages`` met a script error or a 5xx."""
    for page in pages:
        assert page.errors == [] and page.server_errors == []
    context.close()


def open_game(context, url: str, code: str = CODE):
    """A page of ``context`` with a new game dealt from ``code`` and known to the server."""
    page = context.new_page()
    page.set_default_timeout(15_000)
    page.errors = []
    page.server_errors = []
    page.on("pageerror", lambda error: page.errors.append(str(error)))
    page.on("response", lambda r: page.server_errors.append(r.url) if r.status >= 500 else None)
    page.goto(url + "/")
    page.wait_for_selector("#board[data-version] [data-card]")
    page.click("#menu-button")
    page.fill("#code-input", code)
    page.click("#new-game")
    wait_until(page, f"document.querySelector('#code').textContent === {code!r}")
    wait_synced(page)
    return page


def wait_synced(page, timeout_s: float = 20.0) -> None:
    wait_until(page, "document.querySelector('#board').dataset.sync === 'synced' && "
                     f"{RECORD}.id && {RECORD}.synced === {RECORD}.actions.length", timeout_s)


def shows(page, engine: Game) -> None:
    """The DOM shows the engine's game now (no waiting: the page draws in the same frame)."""
    dom = page.evaluate(DOM_STATE)
    view = engine.view()
    assert dom["version"] == str(view["version"])
    assert dom["tableau"] == view["tableau"]
    assert dom["score"] == str(view["score"]) and dom["moves"] == str(view["moves"])
    assert dom["waste"] == view["waste"][len(view["waste"]) - len(dom["waste"]):]
    for suit, count in view["foundations"].items():
        assert len(dom["foundations"][suit]) == min(count, 2), suit


def play(page, engine: Game, action: Action) -> None:
    """Play ``action`` with the mouse as a player would, apply it to ``engine``, check the board at once."""
    assert engine.is_legal(action), action
    kind = action.kind
    if kind in ("draw", "recycle"):
        page.click('[data-pile="stock"]')
    elif kind == "undo":
        page.click("#undo")
    elif kind == "tap":
        page.dblclick(card(action.source.value, str(action.card)))
    elif kind == "take-back":
        suit = action.source.value[1]
        top = "A23456789TJQK"[engine.view()["foundations"][suit] - 1] + suit
        drag(page, card(action.source.value, top), column_target(engine, action.target.value))
    else:
        target = action.target.value
        goal = f'[data-pile="{target}"]' if target.startswith("f") else column_target(engine, target)
        drag(page, card(action.source.value, str(action.card)), goal)
    engine.apply(action)
    shows(page, engine)


def server(url: str, page) -> tuple[dict, list[str], dict]:
    """The server's game, its history's notations and its verification."""
    game_id = page.evaluate(f"{RECORD}.id")
    game = requests.get(f"{url}/v1/games/{game_id}", timeout=10).json()
    history = requests.get(f"{url}/v1/games/{game_id}/actions?limit=200", timeout=10).json()
    verification = requests.get(f"{url}/v1/games/{game_id}/verification", timeout=10).json()
    return game, [item["notation"] for item in history["items"]], verification


def opening(engine: Game) -> list[Action]:
    """A draw, a move, a double tap onto a column and one up, a take-back and an undo."""
    return [Action.draw(), Action.move("t1", "t7", "7H"), Action.tap("t5", "KD", double=True),
            Action.tap("t5", "AH", double=True), Action.take_back("fH", "t4"), Action.undo()]


def test_actions_are_on_the_board_before_the_server_answers(browser, served):
    url, _ = served
    context = desktop(browser)
    page = open_game(context, url)
    held, released = [], []

    def hold(route):
        if route.request.method == "POST" and not released:
            held.append(route)
        else:
            route.continue_()

    page.route(re.compile(r".*/v1/games/[^/]+/.+"), hold)
    engine = Game.from_code(CODE)
    for action in opening(engine):
        play(page, engine, action)  # each checked on the board at once, with every answer held back
    wait_until(page, "document.querySelector('#board').dataset.sync !== 'synced'")
    assert held, "the batch was sent"
    assert page.evaluate(f"{RECORD}.synced") == 0
    released.append(True)
    for route in held:
        route.continue_()
    wait_synced(page)
    game, history, verification = server(url, page)
    assert history == page.evaluate(f"{RECORD}.actions")
    assert game["version"] == engine.version and game["tableau"] == engine.view()["tableau"]
    assert verification["consistent"] is True
    close_clean(context, page)


def next_action(engine: Game, step: int) -> Action:
    """A fixed policy: an undo now and then, else a card up, else the stock (draws lead to a recycle)."""
    legal = engine.legal_actions()
    if step % 9 == 8 and engine.can_undo:
        return Action.undo()
    for action in legal:
        if action.kind == "move" and action.target.value.startswith("f") and action.source.value.startswith("t"):
            return Action.tap(action.source.value, str(action.card), double=True)
    for kind in ("draw", "recycle"):
        for action in legal:
            if action.kind == kind:
                return action
    return next(a for a in legal if a.kind != "undo")


def test_offline_play_survives_a_reload_and_syncs_one_for_one(browser, served):
    url, _ = served
    context = browser.new_context(viewport={"width": 1100, "height": 860})
    page = open_game(context, url)
    wait_until(page, "navigator.serviceWorker.controller !== null && "
                     "document.querySelector('#sync').dataset.state === 'synced'")
    context.set_offline(True)
    engine = Game.from_code(CODE)
    kinds = set()
    actions = opening(engine)
    for step in range(40):
        action = actions[step] if step < len(actions) else next_action(engine, step)
        kinds.add(action.kind)
        play(page, engine, action)
    assert {"undo", "take-back", "recycle", "tap", "draw", "move"} <= kinds, kinds
    wait_until(page, "document.querySelector('#sync').dataset.state === 'offline'")
    assert page.evaluate(f"{RECORD}.synced") == 0

    page.reload()  # offline: the service worker serves the page, the record replays the game
    page.wait_for_selector(f"#board[data-version='{engine.version}'] [data-card]")
    shows(page, engine)
    for step in range(40, 50):
        play(page, engine, next_action(engine, step))

    context.set_offline(False)
    wait_synced(page)
    game, history, verification = server(url, page)
    assert history == page.evaluate(f"{RECORD}.actions")  # one for one: nothing lost, nothing twice
    assert len(history) == 50 == game["version"]
    assert game["score"] == engine.score and game["tableau"] == engine.view()["tableau"]
    assert verification["consistent"] is True
    close_clean(context, page)


def test_two_tabs_offline_on_one_game_one_adopts_the_servers_game(browser, served):
    url, _ = served
    context = desktop(browser)
    first = open_game(context, url)
    second = context.new_page()
    second.set_default_timeout(15_000)
    second.errors, second.server_errors = [], []
    second.on("pageerror", lambda error: second.errors.append(str(error)))
    second.on("response", lambda r: second.server_errors.append(r.url) if r.status >= 500 else None)
    second.goto(url + "/")
    second.wait_for_selector("#board[data-version='0'] [data-card]")
    context.set_offline(True)
    play(first, Game.from_code(CODE), Action.move("t1", "t7", "7H"))
    other = Game.from_code(CODE)
    play(second, other, Action.draw())
    play(second, other, Action.move("t1", "t7", "7H"))
    context.set_offline(False)
    for page in (first, second):
        page.evaluate("window.dispatchEvent(new Event('online'))")
    for page in (first, second):
        wait_synced(page)
    game, history, verification = server(url, first)
    assert verification["consistent"] is True
    assert history in (["t1>t7:7H"], ["draw", "t1>t7:7H"])
    losers = [page for page in (first, second) if "elsewhere" in page.inner_text("#message")]
    assert len(losers) == 1
    for page in (first, second):
        assert page.evaluate(f"{RECORD}.actions") == history or page is not losers[0]
        wait_until(page, f"document.querySelector('#board').dataset.version === '{game['version']}'")
        assert page.evaluate(DOM_STATE)["tableau"] == game["tableau"]
    close_clean(context, first, second)


def colour_only_move(engine: Game) -> tuple[str, str, str]:
    """A column's last card onto a column whose last card is one rank higher, in the same colour."""
    ranks = "A23456789TJQK"
    for s, source in enumerate(engine.tableau):
        for d, onto in enumerate(engine.tableau):
            if s != d and source and onto:
                mover, under = str(source[-1]), str(onto[-1])
                same = (mover[1] in "HD") == (under[1] in "HD")
                if same and ranks.index(mover[0]) + 1 == ranks.index(under[0]):
                    return f"t{s + 1}", f"t{d + 1}", mover
    raise AssertionError("no such move on this deal")


def test_a_tampered_engine_is_overruled_by_the_server(browser, served):
    url, _ = served
    context = desktop(browser)

    def tamper(route):
        source = route.fetch().text()
        # one rank lower in any colour: red on red passes
        lenient = source.replace("if (STEP[last * 52 + card]) return;",
                                 "if (STEP[last * 52 + card] || card % 13 + 1 === last % 13) return;")
        assert lenient != source
        route.fulfill(body=lenient, content_type="text/javascript")

    context.route("**/static/engine/game.js", tamper)
    page = open_game(context, url)
    engine = Game.from_code(CODE)
    source, onto, name = colour_only_move(engine)
    drag(page, card(source, name), column_target(engine, onto))
    assert page.get_attribute("#board", "data-version") == "1"  # the tampered engine let it through
    wait_until(page, "document.querySelector('#board').dataset.version === '0'")
    wait_synced(page)
    assert "server" in page.inner_text("#message")
    game, history, _ = server(url, page)
    assert history == [] and page.evaluate(DOM_STATE)["tableau"] == game["tableau"] == engine.view()["tableau"]
    assert page.server_errors == []
    context.close()


def evaluate_across_reloads(page, expression: str):
    from playwright.sync_api import Error

    try:
        return page.evaluate(expression)
    except Error:  # the page reloaded under the evaluation
        return None


def test_a_new_version_is_picked_up_without_a_stuck_cache(browser, served, monkeypatch):
    from service.web import offline

    url, _ = served
    context = browser.new_context(viewport={"width": 1100, "height": 860})
    page = open_game(context, url)
    first = f"sr-{offline.static_version()}"
    wait_until(page, "navigator.serviceWorker.controller !== null")
    wait_until(page, f"caches.keys().then((keys) => JSON.stringify(keys) === '[\"{first}\"]')")
    cached = page.evaluate(f"caches.open('{first}').then((c) => c.keys()).then((ks) => ks.map((r) => r.url))")
    for path in ("/", "/static/app.js", "/static/engine/game.js", "/v1/rules?lang=ja", "/help/faq?lang=de",
                 "/manifest.webmanifest", "/icons/icon-192.png"):
        assert url + path in cached, path

    # a release: any cached file changes, so sw.js changes; the page takes the new one and reloads
    monkeypatch.setattr(offline, "static_version", lambda: "0123456789ab")
    page.evaluate("window.oldVersion = true")
    page.evaluate("navigator.serviceWorker.getRegistration().then((r) => r.update())")
    expected = "caches.keys().then((keys) => JSON.stringify(keys) === '[\"sr-0123456789ab\"]')"
    reloaded = "window.oldVersion === undefined && document.querySelector('[data-card]') !== null"
    deadline = time.monotonic() + 15
    while not evaluate_across_reloads(page, f"{expected}.then((ok) => ok && ({reloaded}))"):
        assert time.monotonic() < deadline, "the new version did not take over"
        time.sleep(0.1)
    assert page.evaluate("fetch('/sw.js').then((r) => r.text())").count("0123456789ab") == 1
    assert page.errors == []
    context.close()

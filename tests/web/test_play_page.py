"""The play page at ``/`` in a real browser (the system Chromium), against the real app.

One game from a fixed code is played with clicks and drags; after every step the DOM
must show what ``GET /v1/games/{id}`` says, and the server must agree with the engine
replaying the same actions. A rejected drag must show the server's localized rule in
``#message``, in English and then in German.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from service.engine import Action, Game, Rejection

CODE = "TF1-D3N-AAAAAER"  # draw 3: the first draw fans three cards on the waste
ROOT = Path(__file__).resolve().parents[2]
SCREENSHOT = ROOT / "test-results" / "play-page.png"
DOM_STATE = """() => {
  const cards = (pile) => [...document.querySelectorAll(`[data-pile="${pile}"] [data-card]`)]
    .map((el) => el.dataset.card);
  const text = (sel) => document.querySelector(sel).textContent.trim();
  return {
    tableau: [1, 2, 3, 4, 5, 6, 7].map((i) => cards(`t${i}`)),
    waste: cards("waste"),
    foundations: Object.fromEntries(["S", "H", "D", "C"].map((s) => [s, cards(`f${s}`)])),
    stock: document.querySelector('[data-pile="stock"]').dataset.count,
    score: text("#score"), moves: text("#moves"), code: text("#code"), timer: text("#timer"),
    version: document.querySelector("#board").dataset.version,
  };
}"""


@pytest.fixture
def page(served, browser):
    url, _ = served
    context = browser.new_context(viewport={"width": 1100, "height": 860}, locale="en-US")
    page = context.new_page()
    page.set_default_timeout(10_000)
    page.errors = []
    page.on("pageerror", lambda error: page.errors.append(str(error)))
    page.base = url
    yield page
    context.close()


# ---- helpers ---------------------------------------------------------------------------


def server_game(page) -> dict:
    import requests

    game_id = page.get_attribute("#board", "data-game-id")
    answer = requests.get(f"{page.base}/v1/games/{game_id}", timeout=10)
    assert answer.status_code == 200, answer.text
    return answer.json()


def rejection_detail(page, body: dict, lang: str) -> str:
    """The server's own localized detail for a move it rejects (a rejection changes nothing)."""
    import requests

    saved = page.evaluate("() => JSON.parse(localStorage.getItem('sr.game'))")
    answer = requests.post(
        f"{page.base}/v1/games/{saved['id']}/moves", json=body, timeout=10,
        headers={"Authorization": f"Bearer {saved['token']}", "Accept-Language": lang},
    )
    assert answer.status_code == 422, answer.text
    problem = answer.json()
    assert problem["code"] == "TABLEAU_COLOUR"
    return problem["detail"]


def wait_until(page, expression: str, timeout_s: float = 10.0) -> None:
    """Poll ``expression`` until it is truthy.

    Not ``page.wait_for_function``: it polls by evaluating a string inside the page,
    which the pages' CSP (no eval) refuses; ``page.evaluate`` runs outside it.
    """
    deadline = time.monotonic() + timeout_s
    while not page.evaluate(expression):
        assert time.monotonic() < deadline, f"still false after {timeout_s} s: {expression}"
        time.sleep(0.05)


def wait_version(page, version: int) -> None:
    """The page shows ``version`` and the server has every action played (the indicator says synced)."""
    page.wait_for_selector(f'#board[data-version="{version}"][data-sync="synced"]', state="attached")


def assert_page_shows(page, engine: Game) -> dict:
    """The DOM equals the server's game, and the server's game equals the engine's."""
    dom = page.evaluate(DOM_STATE)
    game = server_game(page)
    expected = engine.view()
    for key in ("code", "tableau", "foundations", "stock", "waste", "waste_fan", "score", "moves", "version"):
        assert game[key] == expected[key], key
    assert dom["version"] == str(game["version"])
    assert dom["code"] == game["code"]
    assert dom["tableau"] == game["tableau"]
    assert dom["score"] == str(game["score"])
    assert dom["moves"] == str(game["moves"])
    assert re.fullmatch(r"\d+:\d\d(:\d\d)?", dom["timer"])
    assert dom["stock"] == (str(game["stock"]) if game["stock"] else ("↻" if game["waste"] else ""))
    # the waste shows its top cards (the fan) and at most one card under them, in order
    shown = dom["waste"]
    assert len(shown) <= len(game["waste"])
    assert game["waste"][len(game["waste"]) - len(shown):] == shown
    if game["waste"]:
        fan = max(1, game["waste_fan"]) if game["draw"] == 3 else 1
        assert len(shown) in (fan, fan + 1)
    ranks = "A23456789TJQK"
    for suit, count in game["foundations"].items():
        top = dom["foundations"][suit][-1:] or [None]
        assert top[0] == (f"{ranks[count - 1]}{suit}" if count else None), suit
    return game


def drag(page, source: str, target: str) -> None:
    """Drag with real mouse events: grab the visible top strip of the card, drop on the target."""
    # Measure once the cards have stopped sliding (a loaded machine draws the last move slowly);
    # endless animations (a hint's pulse) never stop and do not move cards.
    wait_until(page, "document.getAnimations().every(a => a.effect.getTiming().iterations === Infinity)")
    box = page.locator(source).bounding_box()
    goal = page.locator(target).bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + 8)
    page.mouse.down()
    page.mouse.move(box["x"] + box["width"] / 2 + 5, box["y"] + 14, steps=3)
    page.mouse.move(goal["x"] + goal["width"] / 2, goal["y"] + goal["height"] / 2, steps=12)
    page.mouse.up()


def card(pile: str, name: str) -> str:
    return f'[data-pile="{pile}"] [data-card="{name}"]'


def column_target(engine: Game, column: str) -> str:
    cards = engine.tableau[int(column[1]) - 1]
    return card(column, str(cards[-1])) if cards else f'[data-pile="{column}"]'


def illegal_colour_move(engine: Game) -> tuple[str, str, str]:
    """A column's last card dropped on a column whose last card has the same colour."""
    for s, source in enumerate(engine.tableau):
        for d, onto in enumerate(engine.tableau):
            if s == d or not source or not onto:
                continue
            action = Action.move(f"t{s + 1}", f"t{d + 1}", str(source[-1]))
            try:
                engine.check(action)
            except Rejection as rejection:
                if rejection.code == "TABLEAU_COLOUR":
                    return f"t{s + 1}", f"t{d + 1}", str(source[-1])
    raise AssertionError("no same-colour drop in this position")


# ---- the test ---------------------------------------------------------------------------


def test_play_page_plays_a_game_and_explains_rejections(page):
    engine = Game.from_code(CODE)
    page.goto(page.base + "/")
    page.wait_for_selector("[data-card]")  # a first visit starts a random game at once

    # New game from the code (the menu holds the form).
    page.click("#menu-button")
    page.select_option("#draw-mode", "1")
    page.fill("#code-input", CODE.lower())
    page.click("#new-game")
    wait_until(page, f"document.querySelector('#code').textContent === {CODE!r}")
    wait_version(page, 0)
    assert_page_shows(page, engine)
    assert page.locator('[data-pile="stock"]').get_attribute("aria-label")
    # the player pages, in the page's language; no internal id anywhere on the page
    for name in ("rules", "examples", "faq"):
        assert page.locator(f"#menu a[href='/help/{name}?lang=en']").count() == 1
    assert server_game(page)["id"] not in page.inner_text("body")

    # 1. Click the stock: draw 3 fans three cards on the waste.
    page.click('[data-pile="stock"]')
    engine.apply(Action.draw())
    wait_version(page, 1)
    game = assert_page_shows(page, engine)
    assert game["waste_fan"] == 3 and len(page.evaluate(DOM_STATE)["waste"]) == 3

    # 2. Drag a group (a card with the cards on it) from one column onto another.
    moves = [a for a in engine.legal_actions() if a.kind == "move" and a.source.value.startswith("t")
             and a.target.value.startswith("t") and engine.tableau[int(a.source.value[1]) - 1][-1] != a.card]
    move = moves[0]
    drag(page, card(move.source.value, str(move.card)), column_target(engine, move.target.value))
    engine.apply(move)
    wait_version(page, 2)
    assert_page_shows(page, engine)

    # 3. A single click on a column's last card that can go up: tap to its foundation.
    taps = [Action.tap(f"t{i + 1}", str(c[-1])) for i, c in enumerate(engine.tableau) if c]
    tap = next(a for a in taps if engine.is_legal(a))
    page.click(card(tap.source.value, str(tap.card)))
    outcome = engine.apply(tap)
    assert outcome.target.is_foundation
    wait_version(page, 3)
    game = assert_page_shows(page, engine)
    assert game["score"] == 10

    # 4. A double click on a card that has no foundation move: a double tap onto a column.
    doubles = [Action.tap(f"t{i + 1}", str(c[-1]), double=True) for i, c in enumerate(engine.tableau) if c]
    double = next(a for a in doubles if engine.is_legal(a)
                  and not engine.is_legal(Action.tap(a.source, a.card)))
    page.dblclick(card(double.source.value, str(double.card)))
    engine.apply(double)
    wait_version(page, 4)
    assert_page_shows(page, engine)

    # 5. An illegal drop (same colour): the rule shows in #message, in English ...
    source, onto, name = illegal_colour_move(engine)
    english = rejection_detail(page, {"from": source, "to": onto, "card": name}, "en")
    drag(page, card(source, name), column_target(engine, onto))
    page.wait_for_selector("#message:not([hidden])")
    assert english in page.inner_text("#message")
    assert page.get_attribute("#message", "data-kind") == "rule"
    wait_version(page, 4)  # nothing changed
    assert_page_shows(page, engine)

    # ... and, after switching the picker, in German (the page's labels follow).
    page.click("#menu-button")
    page.select_option("#lang", "de")
    page.wait_for_selector("#message", state="hidden")
    assert page.locator("#menu a[href='/help/rules?lang=de']").count() == 1
    page.keyboard.press("Escape")
    page.wait_for_selector("#menu", state="hidden")
    assert page.inner_text("#quick-new") == "Neue Partie"
    assert page.get_attribute("html", "lang") == "de"
    german = rejection_detail(page, {"from": source, "to": onto, "card": name}, "de")
    assert german and german != english
    drag(page, card(source, name), column_target(engine, onto))
    page.wait_for_selector("#message:not([hidden])")
    assert german in page.inner_text("#message")
    page.click("#message-close")
    page.wait_for_selector("#message", state="hidden")

    # With "Interactive rules" off a rejection shows no message; the setting is remembered.
    page.click("#menu-button")
    page.uncheck("#show-rules")
    page.keyboard.press("Escape")
    # the local engine refuses it: no request, the board shakes, no message
    page.evaluate("document.querySelector('#board').classList.remove('shake')")
    drag(page, card(source, name), column_target(engine, onto))
    page.wait_for_selector("#board.shake", state="attached")
    assert page.is_hidden("#message")
    assert page.evaluate("() => localStorage.getItem('sr.showRules')") == "false"
    page.click("#menu-button")
    page.check("#show-rules")
    page.keyboard.press("Escape")

    # 6. Undo (the button): the double tap is reverted; moves stay, undos count.
    page.click("#undo")
    engine.apply(Action.undo())
    wait_version(page, 5)
    game = assert_page_shows(page, engine)
    assert game["moves"] == 4 and game["undos"] == 1

    # Hint and leaderboard answer something sensible (even before the solver exists).
    page.click("#hint")
    page.wait_for_selector("#message:not([hidden])")
    assert page.get_attribute("#message", "data-kind") == "info"
    page.click("#menu-button")
    page.click("#leaderboard")
    page.wait_for_selector("#leaderboard-dialog[open]")
    loaded = "(el) => el.textContent && !el.textContent.includes('…')"
    wait_until(page, f"[...document.querySelectorAll('.lb-list')].every({loaded})")
    page.keyboard.press("Escape")
    page.wait_for_selector("#leaderboard-dialog:not([open])", state="attached")

    # 7. Reload: the same game continues (id and token come back from localStorage).
    page.reload()
    page.wait_for_selector("[data-card]")
    wait_version(page, 5)
    game = assert_page_shows(page, engine)
    assert page.inner_text("#code") == CODE and page.inner_text("#moves") == "4"
    assert page.inner_text("#quick-new") == "Neue Partie"  # the language is remembered too

    # 8. Draw until the waste's top card fits a column, then drag it there (+5).
    version = 5
    for _ in range(10):
        waste_moves = [a for a in engine.legal_actions() if a.kind == "move" and a.source.value == "waste"
                       and a.target.value.startswith("t")]
        if waste_moves:
            break
        page.click('[data-pile="stock"]')
        engine.apply(Action.draw() if engine.stock else Action.recycle())
        version += 1
        wait_version(page, version)
    move = waste_moves[0]
    score = engine.score
    drag(page, card("waste", str(move.card)), column_target(engine, move.target.value))
    engine.apply(move)
    wait_version(page, version + 1)
    game = assert_page_shows(page, engine)
    assert game["score"] == score + 5

    # The picture: back in English, with a rejected drop explained.
    page.click("#menu-button")
    page.select_option("#lang", "en")
    page.keyboard.press("Escape")
    source, onto, name = illegal_colour_move(engine)
    english = rejection_detail(page, {"from": source, "to": onto, "card": name}, "en")
    drag(page, card(source, name), column_target(engine, onto))
    page.wait_for_selector("#message:not([hidden])")
    assert english in page.inner_text("#message")
    page.wait_for_timeout(250)  # let the toast's animation settle
    SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOT), full_page=True)
    assert page.errors == []

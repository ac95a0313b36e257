"""The play page's latency: from the player's input to the frame that shows it, at 0 and 150 ms round trip.

The real app (threaded, on a scratch SQLite file) and the system Chromium under Playwright,
at 390×844. The page's own clock measures: a capture listener keeps the last input's
``timeStamp`` (pointerup or keydown), a MutationObserver sees the board's ``data-version``
change, and the time is taken in the next animation frame (the frame that shows it).
The round trip is Chromium's network emulation (``latency``), the service workers off, motion
reduced (no slide: the drag grabs a card that is where it is drawn).

Per round trip, n of each: a draw (stock click), an undo (button), a double tap (from its
2nd tap), a drag (from the drop), a keyboard move (from the 2nd Enter); each move is undone
before the next so the same position repeats. Reported apart: a single tap with "Double
click" on (it waits for the double-tap window, 280 ms, by design). Target at 150 ms: median
≤ 16 ms and p95 ≤ 50 ms for every row but the single tap. Always exits 0: a report::

    python bench/web_latency            # n = 30 a row
    python bench/web_latency --quick    # n = 8
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from playwright.sync_api import Error as PlaywrightError  # noqa: E402

from harness.servers import migrate  # noqa: E402
from tests.live import serving  # noqa: E402

CODE = "TF1-D1N-AAAAAAG"  # AD goes up with one tap; 9D (t5) fits column 4 by double tap, drag or keys
MEASURE = """() => {
  window.__lat = [];
  let input = null;
  for (const type of ['pointerup', 'keydown']) {
    window.addEventListener(type, (e) => { input = e.timeStamp; }, { capture: true });
  }
  const board = document.querySelector('#board');
  new MutationObserver((mutations) => {
    // a redraw of the same version (a batch confirmed) is not the input's answer
    if (mutations.every((m) => m.oldValue === board.dataset.version)) return;
    const from = input;
    if (from === null) return;
    input = null;
    requestAnimationFrame(() => window.__lat.push(performance.now() - from));
  }).observe(board, { attributes: true, attributeOldValue: true, attributeFilter: ['data-version'] });
}"""


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def taken(page, count: int) -> float:
    for _ in range(200):
        if page.evaluate("window.__lat.length") >= count:
            return page.evaluate(f"window.__lat[{count - 1}]")
        page.wait_for_timeout(10)
    raise AssertionError("the board did not change")


def card(pile: str, name: str) -> str:
    return f'[data-pile="{pile}"] [data-card="{name}"]'


def run_setting(browser, url: str, latency: int, n: int) -> dict[str, list[float]]:
    context = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=False, service_workers="block",
                                  reduced_motion="reduce")  # cards do not slide: a drag grabs them where they are
    page = context.new_page()
    page.goto(url + "/")
    page.wait_for_selector("#board[data-version] [data-card]")
    page.click("#menu-button")
    page.fill("#code-input", CODE)
    page.click("#new-game")
    page.wait_for_selector('#board[data-sync="synced"][data-version="0"]')
    cdp = context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send("Network.emulateNetworkConditions", {"offline": False, "latency": latency, "downloadThroughput": -1,
                                                  "uploadThroughput": -1})
    page.evaluate(MEASURE)
    names = ("draw", "undo", "double tap", "drag", "keyboard move", "single tap (Double click on)")
    rows: dict[str, list[float]] = {name: [] for name in names}
    count = 0

    def record(name: str) -> None:
        nonlocal count
        count += 1
        rows[name].append(taken(page, count))

    dropped = 0
    # a dropped round is played again, so that each row has n samples; a page that keeps dropping
    # them ends the setting after 2n rounds and the table says how many each row has
    while len(rows["single tap (Double click on)"]) < n and dropped < 2 * n:
        try:
            page.click('[data-pile="stock"]')
            record("draw")
            page.click("#undo")
            record("undo")
            page.dblclick(card("t5", "9D"))
            record("double tap")
            page.click("#undo")
            count += 1
            taken(page, count)
            source = page.locator(card("t5", "9D")).bounding_box()
            goal = page.locator('[data-pile="t4"] [data-card]:last-child').bounding_box()
            page.mouse.move(source["x"] + source["width"] / 2, source["y"] + 8)
            page.mouse.down()
            page.mouse.move(goal["x"] + goal["width"] / 2, goal["y"] + goal["height"] / 2, steps=4)
            page.mouse.up()
            record("drag")
            page.click("#undo")
            count += 1
            taken(page, count)
            page.focus(card("t5", "9D"))
            page.keyboard.press("Enter")
            page.focus('[data-pile="t4"] [data-card]:last-child')
            page.keyboard.press("Enter")
            record("keyboard move")
            page.click("#undo")
            count += 1
            taken(page, count)
            page.click(card("t1", "AD"))
            record("single tap (Double click on)")
            page.click("#undo")
            count += 1
            taken(page, count)
        except (PlaywrightError, TypeError, AssertionError):
            # a gesture the page did not take (a drag that grabbed nothing): the round is dropped,
            # the page reloaded on the same game and its samples counted afresh
            dropped += 1
            for values in rows.values():
                del values[len(rows["single tap (Double click on)"]):]
            page.reload()
            page.wait_for_selector('#board[data-version] [data-card]')
            while page.get_attribute("#board", "data-version") != "0" and page.is_enabled("#undo"):
                page.click("#undo")
            page.evaluate(MEASURE)
            count = 0
    page.wait_for_selector('#board[data-sync="synced"]', timeout=60_000)
    context.close()
    rows["dropped rounds"] = [dropped]
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="n = 8 a row")
    parser.add_argument("-n", type=int, default=30, help="samples a row and round trip (default 30)")
    args = parser.parse_args()
    n = 8 if args.quick else args.n
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    from playwright.sync_api import sync_playwright

    from service import create_app

    with tempfile.TemporaryDirectory() as tmp:
        url_db = f"sqlite:///{tmp}/bench.db"
        migrate(url_db)
        app = create_app({"DATABASE_URL": url_db, "RATELIMIT_ENABLED": False})
        with serving(app) as url, sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium, headless=True,
                                        args=["--no-sandbox", "--disable-gpu", "--no-first-run"])
            results = {latency: run_setting(browser, url, latency, n) for latency in (0, 150)}
            browser.close()
    for latency in (0, 150):
        print(f"rounds dropped at {latency} ms (a gesture not taken): {results[latency].pop('dropped rounds')[0]}")
    counts = sorted({len(values) for setting in results.values() for values in setting.values()})
    taken_n = f"{counts[0]}" if len(counts) == 1 else f"{counts[0]}-{counts[-1]}"
    print(f"play page at 390x844, input -> frame that shows it, n = {taken_n} a row (ms, median / p95)")
    print(f"{'action':32} {'0 ms round trip':>18} {'150 ms round trip':>18}")
    verdicts = []
    for name in results[0]:
        cells = []
        for latency in (0, 150):
            values = results[latency][name]
            cells.append(f"{statistics.median(values):7.1f} / {percentile(values, 0.95):6.1f}")
        print(f"{name:32} {cells[0]:>18} {cells[1]:>18}")
        if not name.startswith("single tap"):
            values = results[150][name]
            verdicts.append(statistics.median(values) <= 16 and percentile(values, 0.95) <= 50)
    print("target at 150 ms (median <= 16, p95 <= 50; the single tap apart):",
          "met" if all(verdicts) else "NOT met")


if __name__ == "__main__":
    main()

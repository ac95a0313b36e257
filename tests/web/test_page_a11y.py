"""axe-core on the play page past a fresh deal: mid-game (cards on the foundations, a covered
column) and won, on a phone, every impact reported (issue #38 item 6); and what the checks
of axe cannot see: the empty columns' "K" is not read, a covered card shows a 24 px strip
on a 360 px phone, the selection ring is not the focus ring, a draw says the card drawn.
"""

from __future__ import annotations

import pytest

from service import i18n
from service.engine import Action, Game
from tests.web.test_play_product import axe_script, create_game, inject, open_page

pytestmark = pytest.mark.browser

CODE = "TF1-D1N-AAAAAAB"
#: t1>t7:7H empties column 1, KD goes there, AH and AD go up: two foundations hold a card
OPENING = ["t1>t7:7H", "dtap:t5:KD", "dtap:t5:AH"]
AXE_ALL = """async () => {
  const result = await axe.run(document, { resultTypes: ['violations'] });
  return result.violations.map((v) => `${v.impact} ${v.id}: `
    + v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | '));
}"""


def won_state(code: str) -> dict:
    state = Game.from_code(code).to_state()
    state.update(tableau=[[] for _ in range(7)], stock=[], waste=[], waste_fan=0, foundations=[13] * 4,
                 score=520, moves=0, arrived=2 ** 52 - 1, undo_stack=[])
    return state


def test_mid_game_and_won_pages_pass_axe_on_a_phone(browser, served):
    url, app = served
    record = {"id": None, "token": None, "code": CODE, "startedAt": 1, "actions": OPENING, "synced": 0}
    page = open_page(browser, url, width=360, height=740, storage={"sr.game": record}, bypass_csp=True)
    page.wait_for_selector('[data-pile="fH"] [data-card="AH"]', state="attached")
    script = axe_script()
    page.add_script_tag(content=script)
    assert page.evaluate(AXE_ALL) == []

    # a draw is said with the card drawn
    drawn = Game.from_code(CODE)
    for notation in OPENING:
        drawn.apply(Action.parse(notation))
    drawn.apply(Action.draw())
    page.click('[data-pile="stock"]')
    said = f"Drew {i18n.card_name(str(drawn.waste[-1]), 'en')}"
    page.wait_for_selector(f"#live:has-text('{said}')", state="attached")
    # the empty columns' "K" and the foundations' suit are drawn, not read
    assert page.evaluate("""() => getComputedStyle(document.querySelector('.pile.column'), '::before')
        .content.includes('/')""")
    # covered cards keep a 24 px strip at 360 px wide
    offsets = page.evaluate("""() => [...document.querySelectorAll('.pile.column')].flatMap((col) => {
      const tops = [...col.querySelectorAll('[data-card]')].map((el) => el.getBoundingClientRect().top);
      return tops.slice(1).map((t, i) => t - tops[i]);
    })""")
    assert offsets and min(offsets) >= 24
    # the selection ring is not the focus ring
    page.focus('[data-pile="t2"] [data-card]:last-child')
    focus = page.evaluate("() => getComputedStyle(document.activeElement).outlineColor")
    page.keyboard.press("Enter")
    selected = page.evaluate("() => getComputedStyle(document.querySelector('.card.selected'))")
    ring = page.evaluate("() => getComputedStyle(document.querySelector('.card.selected')).boxShadow")
    assert selected is not None and focus not in ring

    game = create_game(url, CODE)
    inject(app, game["id"], won_state(CODE))
    assert page.errors == []
    page.context.close()
    page = open_page(browser, url, width=360, height=740, bypass_csp=True,
                     storage={"sr.game": {"id": game["id"], "token": game["token"]}})
    page.wait_for_selector("#board[data-status='won']", state="attached")
    page.add_script_tag(content=script)
    assert page.evaluate(AXE_ALL) == []
    assert page.errors == []
    page.context.close()

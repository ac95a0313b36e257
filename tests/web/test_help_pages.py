"""The player help pages /help/rules, /help/examples, /help/faq in the five languages (no browser)."""

from __future__ import annotations

import re

import pytest

from service import create_app, i18n
from service.engine import Action, Game, Rejection
from service.web import boards, pages

PAGES = ("rules", "examples", "faq")


@pytest.fixture(scope="module")
def client():
    app = create_app({"DATABASE_URL": "sqlite://", "TESTING": True, "RATELIMIT_ENABLED": False})
    return app.test_client()


def page(client, name, lang=None, accept=None):
    url = f"/help/{name}" + (f"?lang={lang}" if lang else "")
    answer = client.get(url, headers={"Accept-Language": accept} if accept else {})
    assert answer.status_code == 200
    assert answer.mimetype == "text/html"
    return answer


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
@pytest.mark.parametrize("name", PAGES)
def test_every_page_in_every_language(client, name, lang):
    answer = page(client, name, lang)
    html = answer.get_data(as_text=True)
    assert answer.headers["Content-Language"] == lang
    assert f'<html lang="{lang}">' in html
    title = pages.CHROME[lang][name]
    assert f"<title>{title} — Solitaire Réfléchi</title>" in html
    assert html.count("<h1") == 1
    # the nav links the other pages and the play page in the same language, and every language
    for other in PAGES:
        assert f'href="/help/{other}?lang={lang}"' in html
    assert f'href="/?lang={lang}"' in html
    for code in i18n.LANGUAGES:
        assert f'href="/help/{name}?lang={code}"' in html
    # a CSP without inline script or style allows the page
    assert "<script" not in html and "<style" not in html and " style=" not in html
    assert not re.search(r"<[^>]+\son[a-z]+=", html)
    # every page-internal link leads to a page that exists
    for href in set(re.findall(r'href="(/[^"#]*)', html)):
        with client.get(href) as answer:
            assert answer.status_code == 200, href


def test_language_comes_from_accept_language_unless_asked(client):
    assert page(client, "rules", accept="de-CH,de;q=0.9").headers["Content-Language"] == "de"
    assert page(client, "rules", accept="ja").headers["Content-Language"] == "ja"
    assert page(client, "rules", lang="da", accept="ja").headers["Content-Language"] == "da"
    assert page(client, "rules", lang="xx", accept="ro").headers["Content-Language"] == "ro"
    assert page(client, "rules").headers["Content-Language"] == "en"
    assert "Accept-Language" in page(client, "rules").headers["Vary"]


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_rules_page_has_the_scoring_table(client, lang):
    html = page(client, "rules", lang).get_data(as_text=True)
    table = html[html.index("<table>"):html.index("</table>")]
    points = re.findall(r"<td>([^<]*)</td>\s*</tr>", table)
    assert points == ["+10", "+5", "−100", "0", "0", "0"]
    assert "520" in html and "100" in html


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_examples_are_boards_with_the_engines_verdicts(client, lang):
    html = page(client, "examples", lang).get_data(as_text=True)
    assert html.count('<figure class="help-board">') == 2
    assert html.count('class="hb-col"') == 14
    assert "HTTP/1.1" not in html and "POST" not in html
    # the first deal: the group 9♦ … is refused, with the catalog's sentence in this language
    game = Game.from_code("TF1-D1N-AAAAAAA")
    with pytest.raises(Rejection) as refused:
        game.check(Action.parse("t7>t2:9D"))
    assert refused.value.code == "GROUP_NOT_ORDERED"
    assert escape_text(i18n.message(refused.value.code, refused.value.params, lang)) in html
    assert html.count('class="hc red moving"') + html.count('class="hc black moving"') == 6 + 1
    # the empty column: the 2♠ is refused, the K♦ accepted
    game = Game.from_code("TF1-D1N-AAAAAAB")
    game.apply(Action.parse("t1>t7:7H"))
    with pytest.raises(Rejection) as refused:
        game.check(Action.parse("t4>t1"))
    assert refused.value.code == "EMPTY_COLUMN_KING_ONLY"
    assert escape_text(i18n.message(refused.value.code, refused.value.params, lang)) in html
    assert html.count('class="refused"') == 2 and html.count('class="accepted"') == 1
    assert f"K♦ → {i18n.pile_name('t1', lang)}" in html


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_faq_names_codes_and_winnable_share(client, lang):
    html = page(client, "faq", lang).get_data(as_text=True)
    assert "TF1-D1N-AAAAAAB" in html and "26⁷" in html and "93" in html and "85" in html
    assert html.count("<h2") >= 7


def test_a_board_names_what_it_shows():
    html = boards.board_html("TF1-D1N-AAAAAAB", ["t1>t7:7H"], ["t5>t1:KD"], "ja")
    assert "1列目" in html and "✓" in html and "✗" not in html
    assert '<span class="hc empty target">K</span>' in html  # the empty column, the move's target


def test_unknown_page_is_404(client):
    assert client.get("/help/nothing").status_code == 404


def escape_text(text: str) -> str:
    from html import escape

    return escape(text)

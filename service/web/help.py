"""The player help pages: /help/rules, /help/examples and /help/faq in en, de, da, ro and ja.

Each page is a Markdown file under ``help/`` (``rules.de.md`` …) in the subset that
:func:`service.docs_pages.render_markdown` renders, plus one line type of its own:

``@board CODE | SETUP | TRIED`` draws the position of game ``CODE`` after the
``SETUP`` actions (engine notation, space separated) as a board of cards, then
plays each ``TRIED`` action on it and says in the page's language what happened:
a refused action shows the rule's message from the catalogs, an accepted one a
tick. The engine decides both, so a page cannot show a rule the game does not keep.

>>> html = board_html("TF1-D1N-AAAAAAB", ["t1>t7:7H"], ["t4>t1", "t5>t1:KD"], "en")
>>> "an empty column accepts only a king" in html, html.count('class="hb-col"')
(True, 7)
"""

from __future__ import annotations

from functools import cache
from html import escape
from pathlib import Path

from flask import Response, abort, render_template, request
from markupsafe import Markup

from .. import i18n
from ..docs_pages import render_markdown
from ..engine import Action, Game, Rejection
from . import web_bp

HELP_DIR = Path(__file__).resolve().parent / "help"
PAGES = ("rules", "examples", "faq")
SYMBOL = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}

#: The page chrome in each language: link names, the language picker, the board's legend.
CHROME = {
    "en": {"play": "Play", "rules": "Rules", "examples": "Examples", "faq": "FAQ", "language": "Language",
           "stock": "Stock", "waste": "Waste", "column": "Column {n}", "accepted": "Allowed",
           "refused": "Refused", "try": "Try", "board": "The position", "foundations": "Foundations"},
    "de": {"play": "Spielen", "rules": "Regeln", "examples": "Beispiele", "faq": "FAQ", "language": "Sprache",
           "stock": "Talon", "waste": "Ablagestapel", "column": "Spalte {n}", "accepted": "Erlaubt",
           "refused": "Abgelehnt", "try": "Versuch", "board": "Die Stellung", "foundations": "Zielstapel"},
    "da": {"play": "Spil", "rules": "Regler", "examples": "Eksempler", "faq": "FAQ", "language": "Sprog",
           "stock": "Trækbunke", "waste": "Aflægningsbunke", "column": "Kolonne {n}", "accepted": "Tilladt",
           "refused": "Afvist", "try": "Forsøg", "board": "Stillingen", "foundations": "Grundbunker"},
    "ro": {"play": "Joacă", "rules": "Reguli", "examples": "Exemple", "faq": "Întrebări", "language": "Limbă",
           "stock": "Teancul de tragere", "waste": "Teancul de decartare", "column": "Coloana {n}",
           "accepted": "Permis", "refused": "Refuzat", "try": "Încercare", "board": "Poziția",
           "foundations": "Fundații"},
    "ja": {"play": "プレイ", "rules": "ルール", "examples": "実例", "faq": "よくある質問", "language": "言語",
           "stock": "山札", "waste": "捨て札", "column": "{n}列目", "accepted": "可能", "refused": "不可",
           "try": "試す手", "board": "局面", "foundations": "組札"},
}
#: In the order of i18n.LANGUAGES: the language picker lists them so.
LANGUAGE_NAMES = {"en": "English", "de": "Deutsch", "da": "Dansk", "ro": "Română", "ja": "日本語"}


def page_language() -> str:
    """``?lang=`` when it names one of the five languages, else the best match of ``Accept-Language``."""
    asked = request.args.get("lang", "")[:16].lower()
    if asked in i18n.LANGUAGES:
        return asked
    return i18n.negotiate(request.headers.get("Accept-Language"))


@web_bp.get("/help/rules")
def help_rules() -> Response:
    """The rules for players, with the scoring table (``?lang=`` or Accept-Language)."""
    return _page("rules")


@web_bp.get("/help/examples")
def help_examples() -> Response:
    """The rule sheets' two examples drawn as boards, in the player's language."""
    return _page("examples")


@web_bp.get("/help/faq")
def help_faq() -> Response:
    """Players' questions: game codes, how many deals can be won, undo, hints, settings."""
    return _page("faq")


def _page(name: str) -> Response:
    lang = page_language()
    html = render_template("help_page.html", lang=lang, page=name, pages=PAGES, words=CHROME[lang],
                           languages=LANGUAGE_NAMES, icon=ICON, body=Markup(render_page(name, lang)))
    response = Response(html, mimetype="text/html")
    response.headers["Content-Language"] = lang
    response.vary.add("Accept-Language")
    return response


@cache
def render_page(name: str, lang: str) -> str:
    """The HTML body of page ``name`` in ``lang`` (its Markdown with the boards drawn)."""
    path = HELP_DIR / f"{name}.{lang}.md"
    if name not in PAGES or lang not in i18n.LANGUAGES or not path.is_file():
        abort(404)
    out: list[str] = []
    chunk: list[str] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("@board "):
            out.append(render_markdown("\n".join(chunk)))
            chunk = []
            code, setup, tried = (part.split() for part in line[len("@board "):].split("|"))
            out.append(board_html(code[0], setup, tried, lang))
        else:
            chunk.append(line)
    out.append(render_markdown("\n".join(chunk)))
    return "\n".join(part for part in out if part)


# -- boards ------------------------------------------------------------------------


def _card(name: str, lang: str, marks: str = "") -> str:
    rank, suit = name[:-1], name[-1]
    shown = i18n.card_name(name, lang)
    colour = "red" if suit in "HD" else "black"
    classes = f"hc {colour}{marks}"
    return f'<span class="{classes}"><span class="hc-rank">{escape(shown[:-1] or rank)}</span>{SYMBOL[suit]}</span>'


def board_html(code: str, setup: list[str], tried: list[str], lang: str) -> str:
    """Game ``code`` after ``setup`` drawn as cards, then each ``tried`` action and its outcome."""
    game = Game.from_code(code)
    for text in setup:
        game.apply(Action.parse(text))
    view = game.view()
    words = CHROME[lang]
    first = Action.parse(tried[0]) if tried else None
    moving = _moving_cards(view, first)
    target = first.target.value if first is not None and first.target is not None else None

    foundations = []
    for suit in "SHDC":
        count = view["foundations"][suit]
        top = (_card(f"{'A23456789TJQK'[count - 1]}{suit}", lang) if count
               else f'<span class="hc empty">{SYMBOL[suit]}</span>')
        foundations.append(top)
    waste = _card(view["waste"][-1], lang) if view["waste"] else '<span class="hc empty"></span>'
    top_row = (f'<div class="hb-top"><span class="hb-label">{escape(words["stock"])}: {view["stock"]}</span>'
               f'<span class="hb-label">{escape(words["waste"])}</span>{waste}'
               f'<span class="hb-label">{escape(words["foundations"])}</span>{"".join(foundations)}</div>')
    columns = []
    for index, column in enumerate(view["tableau"], start=1):
        pile = f"t{index}"
        cards = []
        for position, name in enumerate(column):
            marks = " moving" if (pile, position) in moving else ""
            if pile == target and position == len(column) - 1:
                marks += " target"
            cards.append(_card(name, lang, marks))
        if not column:
            cards.append('<span class="hc empty' + (' target' if pile == target else '') + '">K</span>')
        label = escape(words["column"].format(n=index))
        columns.append(f'<div class="hb-col"><span class="hb-label">{label}</span>{"".join(cards)}</div>')
    outcomes = []
    for text in tried:
        action = Action.parse(text)
        try:
            game.check(action)
        except Rejection as rejection:
            verdict = f'<b class="refused">✗ {escape(words["refused"])}</b>'
            detail = i18n.message(rejection.code, rejection.params, lang)
        else:
            verdict = f'<b class="accepted">✓ {escape(words["accepted"])}</b>'
            detail = describe_action(action, view, lang)
            game.apply(action)
        outcomes.append(f"<li>{verdict} {escape(detail)}</li>")
    caption = escape(f'{words["board"]}: {code}')
    return (f'<figure class="help-board"><figcaption>{caption}</figcaption>{top_row}'
            f'<div class="hb-tableau">{"".join(columns)}</div>'
            f'<ol class="hb-tries">{"".join(outcomes)}</ol></figure>')


def _moving_cards(view: dict, action: Action | None) -> set[tuple[str, int]]:
    if action is None or action.source is None or not action.source.value.startswith("t"):
        return set()
    pile = action.source.value
    column = view["tableau"][int(pile[1]) - 1]
    name = str(action.card) if action.card is not None else None
    start = column.index(name) if name in column else len(column) - 1
    return {(pile, position) for position in range(start, len(column))}


def describe_action(action: Action, view: dict, lang: str) -> str:
    """An accepted move in words: "K♦ → column 1"."""
    source = action.source.value if action.source is not None else ""
    card = str(action.card) if action.card is not None else ""
    if not card and source.startswith("t"):
        card = view["tableau"][int(source[1]) - 1][-1]
    target = action.target.value if action.target is not None else ""
    return f"{i18n.card_name(card, lang)} → {i18n.pile_name(target, lang)}".strip()


#: The play page's icon, a spade.
ICON = ("data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 100 100'%3E"
        "%3Ctext y='.9em' font-size='90'%3E%E2%99%A0%3C/text%3E%3C/svg%3E")

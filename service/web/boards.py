"""The help pages' boards: a game's position drawn as cards, and what each tried action does on it.

A help page's line ``@board CODE | SETUP | TRIED`` (see :mod:`.pages`) becomes
:func:`board_html`: the position of game ``CODE`` after the ``SETUP`` actions, then
each ``TRIED`` action played on it with what happened, in the page's language: a
refused action shows the rule's message from the catalogs, an accepted one a tick.
The engine decides both, so a page cannot show a rule the game does not keep.

>>> html = board_html("TF1-D1N-AAAAAAB", ["t1>t7:7H"], ["t4>t1", "t5>t1:KD"], "en")
>>> "an empty column accepts only a king" in html, html.count('class="hb-col"')
(True, 7)
"""

from __future__ import annotations

from html import escape

from .. import i18n
from ..engine import Action, Game, Rejection

SYMBOL = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}

#: The words a board shows, in each language.
WORDS = {
    "en": {"stock": "Stock", "waste": "Waste", "column": "Column {n}", "accepted": "Allowed", "refused": "Refused",
           "board": "The position", "foundations": "Foundations"},
    "de": {"stock": "Talon", "waste": "Ablagestapel", "column": "Spalte {n}", "accepted": "Erlaubt",
           "refused": "Abgelehnt", "board": "Die Stellung", "foundations": "Zielstapel"},
    "da": {"stock": "Trækbunke", "waste": "Aflægningsbunke", "column": "Kolonne {n}", "accepted": "Tilladt",
           "refused": "Afvist", "board": "Stillingen", "foundations": "Grundbunker"},
    "ro": {"stock": "Teancul de tragere", "waste": "Teancul de decartare", "column": "Coloana {n}",
           "accepted": "Permis", "refused": "Refuzat", "board": "Poziția", "foundations": "Fundații"},
    "ja": {"stock": "山札", "waste": "捨て札", "column": "{n}列目", "accepted": "可能", "refused": "不可",
           "board": "局面", "foundations": "組札"},
}



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
    words = WORDS[lang]
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

"""The five message catalogs against the one table of codes, and Accept-Language negotiation."""

from __future__ import annotations

import json
import string
from importlib import resources

import pytest

from service import i18n
from service.engine.cards import Pile
from service.i18n import DEFAULT_LANGUAGE, LANGUAGES, catalog, message, negotiate
from service.problem_codes import PARAMS

SAMPLE = {
    "card": "7H", "onto": "8D", "top": "QS", "above": "5C", "below": "6S", "pile": "t3",
    "column": "t5", "foundation": "fH", "needs": "Q", "sent": 7, "count": 3, "stock": 12, "limit": 100,
    "game": "g-123", "player": "p-456", "current": 9, "method": "PATCH", "retry_after": 30,
    "draw": 3, "code": "XYZ-123", "param": "access_token", "index": 4, "notation": "t9>t1",
}


def fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}


def raw(lang: str) -> dict:
    return json.loads(resources.files("service.i18n").joinpath(f"{lang}.json").read_text(encoding="utf-8"))


def test_languages():
    assert LANGUAGES == ("en", "de", "da", "ro", "ja")
    assert DEFAULT_LANGUAGE == "en"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_catalog_has_exactly_the_codes(lang):
    assert set(catalog(lang)) == set(PARAMS)
    assert {key for key in raw(lang) if not key.startswith("_")} == set(PARAMS)
    assert {key for key in raw(lang) if key.startswith("_")} == {"_piles", "_cards", "_titles"}


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("code", sorted(PARAMS))
def test_placeholders_are_exactly_the_params(lang, code):
    template = catalog(lang)[code]
    assert isinstance(template, str) and template.strip()
    assert fields(template) == set(PARAMS[code])
    # Plain named fields only: no conversion, format spec, index or attribute.
    for _, name, spec, conversion in string.Formatter().parse(template):
        if name is not None:
            assert name.isidentifier() and not spec and conversion is None


@pytest.mark.parametrize("lang", LANGUAGES)
def test_messages_differ_between_codes(lang):
    templates = list(catalog(lang).values())
    assert len(set(templates)) == len(templates)


@pytest.mark.parametrize("lang", LANGUAGES[1:])
def test_catalogs_are_translated(lang):
    english = catalog("en")
    same = [code for code, text in catalog(lang).items() if text == english[code]]
    assert same == []


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_pile_has_a_display_name(lang):
    piles = raw(lang)["_piles"]
    assert set(piles) == {pile.value for pile in Pile}
    assert all(isinstance(name, str) and name.strip() for name in piles.values())
    assert len(set(piles.values())) == len(piles)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_card_has_a_display_name(lang):
    cards = raw(lang)["_cards"]
    assert set(cards["ranks"]) == set("A23456789TJQK")
    assert set(cards["suits"]) == set("SHDC")
    assert set(cards["names"]) == set("A23456789TJQK")
    # a rank on its own is named, never a bare letter ("the A of its suit")
    assert not {cards["names"][rank] for rank in "AJQK"} & set("AJQK")
    assert fields(cards["format"]) == {"rank", "suit"}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_tableau_colour_names_both_cards(lang):
    text = message("TABLEAU_COLOUR", {"card": "7H", "onto": "8D"}, lang)
    assert "7♥" in text and "8♦" in text
    assert "{" not in text


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("code", sorted(PARAMS))
def test_message_fills_every_param(lang, code):
    params = {name: SAMPLE[name] for name in PARAMS[code]}
    if code == "VERSION_MISMATCH":
        params["sent"] = 7
    text = message(code, params, lang)
    assert "{" not in text and "}" not in text and "?" not in text.replace("？", "")
    for name, value in params.items():
        if name in i18n.PILE_PARAMS:
            assert raw(lang)["_piles"][value].lower() in text.lower()
        elif name in i18n.CARD_PARAMS and isinstance(value, str):
            assert i18n.card_name(value, lang) in text
        elif name in i18n.RANK_PARAMS:
            assert i18n.rank_name(value, lang) in text
        else:
            assert str(value) in text


@pytest.mark.parametrize("lang", LANGUAGES)
def test_piles_are_rendered_readably(lang):
    text = message("SOURCE_EMPTY", {"pile": "waste"}, lang)
    assert "waste" not in text or lang == "en"
    assert raw(lang)["_piles"]["waste"][1:] in text
    assert "t4" not in message("EMPTY_COLUMN_KING_ONLY", {"card": "QS", "column": "t4"}, lang)


def test_english_wording():
    assert message("FOUNDATION_WRONG_SUIT", {"card": "7H", "foundation": "fS"}, "en") == (
        "7♥ cannot go on the spades foundation: each foundation takes a single suit."
    )
    assert message("EMPTY_COLUMN_KING_ONLY", {"card": "TC", "column": "t2"}, "en").startswith(
        "Column 2 is empty"
    )
    assert message("SOURCE_EMPTY", {"pile": "waste"}, "en").startswith("The waste pile is empty")


def test_reviewed_wording():
    """The native review against each rule sheet (issue 15)."""
    assert "opposite color (" in message("TABLEAU_COLOUR", {"card": "7H", "onto": "8D"}, "en")
    assert "colour" not in " ".join(catalog("en").values())
    assert "angetippt wurde der Ablagestapel." in message("NO_DESTINATION", {"card": "7H", "pile": "waste"}, "de")
    assert message("UNDO_LIMIT_REACHED", {"limit": 100}, "de").endswith("diese wurden alle schon rückgängig gemacht.")
    da = message("NO_DESTINATION", {"card": "7H", "pile": "waste"}, "da")
    assert "ingen tilladt plads" in da and "til dets grundbunke" in da
    assert "have den modsatte farve af det kort" in message("TABLEAU_COLOUR", {"card": "7H", "onto": "8D"}, "da")
    assert message("SAME_PILE", {"pile": "t3"}, "da") == (
        "Kortet ligger allerede i kolonne 3: flyt det til en anden bunke."
    )
    assert "cele 52 de cărți" in message("GAME_FINISHED", {}, "ro")
    assert message("UNDO_LIMIT_REACHED", {"limit": 100}, "ro") == (
        "Se pot anula doar ultimele 100 de acțiuni, iar acestea au fost deja anulate toate."
    )
    assert "「元に戻す」も含めて" in message("GAME_FINISHED", {}, "ja")
    assert message("UNDO_LIMIT_REACHED", {"limit": 100}, "ja") == (
        "元に戻せるのは直近100回の操作までで、それらはすべて元に戻しました。"
    )
    assert "カードをタップすると組札へ移り" in message("NO_DESTINATION", {"card": "7H", "pile": "waste"}, "ja")


def test_card_names():
    assert i18n.card_name("TH", "en") == "10♥"
    assert i18n.card_name("10h", "de") == "10♥"
    assert i18n.card_name("as", "ja") == "A♠"
    assert i18n.card_name("KC", "ro") == "K♣"
    assert i18n.card_name("ZZ", "en") == "ZZ"


def test_ranks_cards_and_numbers_are_each_shown_as_such():
    text = message("FOUNDATION_SEQUENCE", {"card": "5H", "foundation": "fH", "needs": "T"}, "en")
    assert "5♥" in text and "the hearts foundation" in text and "the 10 of its suit" in text
    text = message("VERSION_MISMATCH", {"sent": 4, "current": 6}, "en")
    assert "version 4" in text and "version 6" in text


@pytest.mark.parametrize(("lang", "ace", "queen"), [
    ("en", "the ace of its suit", "the queen of"),
    ("de", "braucht er das Ass dieser Kartenfarbe", "die Dame dieser"),
    ("da", "skal være et es i samme kulør", "en dame i"),
    ("ro", "este asul de același simbol", "dama de"),
    ("ja", "同じスートのエース", "クイーン"),
])
def test_a_rank_on_its_own_is_named_in_the_sentence(lang, ace, queen):
    assert ace in message("FOUNDATION_SEQUENCE", {"card": "5H", "foundation": "fH", "needs": "A"}, lang)
    assert queen in message("FOUNDATION_SEQUENCE", {"card": "KH", "foundation": "fH", "needs": "Q"}, lang)


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("code", PARAMS)
def test_missing_params_do_not_crash(code, lang):
    assert message(code, {}, lang)
    assert message(code, None, lang)


def test_a_missing_param_shows_as_a_question_mark():
    text = message("TABLEAU_RANK", {"card": "7H"}, "en")
    assert "7♥" in text and "?" in text
    assert "?" in message("SOURCE_EMPTY", {"pile": None}, "de")


def test_extra_params_are_ignored():
    assert "8♦" in message("TABLEAU_RANK", {"card": "7H", "onto": "8D", "extra": "x"}, "da")


def test_braces_in_values_are_not_formatted():
    assert "{card}" in message("INVALID_GAME_CODE", {"code": "{card}"}, "en")


def test_unknown_language_falls_back_to_english():
    english = message("NOTHING_TO_UNDO", {}, "en")
    assert message("NOTHING_TO_UNDO", {}, "fr") == english
    assert message("NOTHING_TO_UNDO", {}, "") == english
    assert catalog("xx") == catalog("en")
    assert message("NOTHING_TO_UNDO", {}, "DE-at") == message("NOTHING_TO_UNDO", {}, "de") != english


def test_unknown_code_falls_back_to_the_code():
    assert message("NO_SUCH_CODE", {}, "en") == "NO_SUCH_CODE"
    assert message("_piles", {}, "en") == "_piles"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_catalog_returns_plain_strings(lang):
    assert all(isinstance(text, str) for text in catalog(lang).values())


def test_catalog_returns_a_copy():
    catalog("en")["GAME_FINISHED"] = "changed"
    assert catalog("en")["GAME_FINISHED"] != "changed"


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("de-CH,de;q=0.9,en;q=0.8", "de"),
        ("fr", "en"),
        ("ja;q=0.5, da", "da"),
        ("", "en"),
        (None, "en"),
        ("garbage!!;;==", "en"),
        ("*", "en"),
        ("en;q=0, ro", "ro"),
        ("ja", "ja"),
        ("RO-md", "ro"),
        ("fr-CH, fr;q=0.9, de;q=0.7, *;q=0.5", "de"),
        ("fr, *;q=0.1", "en"),
        ("en;q=0, *", "de"),
        ("en;q=0", "en"),
        ("*;q=0", "en"),
        ("da;q=0.5, ja;q=0.5", "da"),
        ("ja;q=0.5, da;q=0.5", "ja"),
        ("de;q=0.3, ro;q=0.700", "ro"),
        ("de;q=0, de-AT", "en"),
        ("de-AT;q=0", "en"),
        ("ro-MD;q=0, *;q=0", "en"),
        ("de-AT;q=0, de", "de"),
        ("de ; q = 0.5 , ja;q=0.4", "de"),
        (",, ja ,", "ja"),
        ("de;q=2, ja;q=0.1", "ja"),
        ("de;q=0.5x, ro;q=0.1", "ro"),
        ("de;level=1, da;q=0.2", "da"),
        ("de;q=1.000, ro", "de"),
        ("de;q=1.001, ro;q=0.1", "ro"),
        ("toolonglanguage, ja;q=0.2", "ja"),
        ("zh-Hant-TW, ro;q=0.2", "ro"),
        (b"de", "en"),
    ],
)
def test_negotiate(header, expected):
    assert negotiate(header) == expected


@pytest.mark.parametrize("header", ["x" * 100_000, "de;q=" * 1000, "\x00\xff", "é-É", ";", "q=1", "-de"],
                         ids=lambda header: repr(header[:12]))
def test_negotiate_always_answers_a_language(header):
    assert negotiate(header) in LANGUAGES


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_every_code_has_a_title_in_every_catalog(lang):
    titles = raw(lang)["_titles"]
    assert set(titles) == set(PARAMS)
    assert all(isinstance(text, str) and text.strip() and "{" not in text for text in titles.values())
    if lang != "en":  # translated, not English copied: at most a few words every language borrows
        english = raw("en")["_titles"]
        assert sum(titles[code] == english[code] for code in PARAMS) <= 3, lang

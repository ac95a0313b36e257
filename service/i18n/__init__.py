"""Messages for every error code in five languages, and Accept-Language negotiation.

Each language is one JSON file next to this module (``en.json``, ``de.json`` …)
mapping every code of :data:`service.problem_codes.PARAMS` to a ``str.format`` template
whose placeholders are exactly that code's params. Three reserved keys, which are
not codes, say how params are shown to a player:

- ``_piles``: the display name of each pile (``t1`` → "column 1", ``fH`` → "the
  hearts foundation"), used for the params :data:`PILE_PARAMS`;
- ``_titles``: each code's short title (a problem's ``title``), in the same language as
  its ``detail``;
- ``_cards``: ``format``, ``ranks`` and ``suits`` for the params
  :data:`CARD_PARAMS` (``7H`` → "7♥", ``TS`` → "10♠"), and ``names`` for a rank on
  its own, :data:`RANK_PARAMS` (``Q`` → "queen", in German "die Dame" with the
  article the sentence needs).

A value that is not a known pile, card or rank is shown as it is. This package
does not import Flask; the HTTP layer calls :func:`negotiate` and :func:`message`.
"""

from __future__ import annotations

import json
import re
from functools import cache
from importlib import resources
from typing import Any

LANGUAGES: tuple[str, ...] = ("en", "de", "da", "ro", "ja")
DEFAULT_LANGUAGE = "en"

#: Params whose values are pile names (``t1``…``t7``, ``waste``, ``stock``, ``fS``…, ``foundation``).
PILE_PARAMS = frozenset({"pile", "column", "foundation"})
#: Params whose values are cards (``7H``).
CARD_PARAMS = frozenset({"card", "top", "above", "below", "onto"})
#: Params whose values are ranks (``A``, ``T``, ``K``).
RANK_PARAMS = frozenset({"needs"})

#: Shown in place of a param the caller did not pass (or passed as None).
MISSING = "?"

_CARD = re.compile(r"(10|[A2-9TJQK])([SHDC])", re.IGNORECASE)
# RFC 9110 §12.5.4: language-range (RFC 4647 §2.1) and weight (§12.4.2).
_RANGE = re.compile(r"\*|[A-Za-z]{1,8}(?:-[A-Za-z0-9]{1,8})*")
_QVALUE = re.compile(r"0(?:\.[0-9]{0,3})?|1(?:\.0{0,3})?")
_WEIGHT = re.compile(r"[qQ][ \t]*=[ \t]*(\S*)")
_MAX_HEADER = 4096


@cache
def _load(lang: str) -> dict[str, Any]:
    text = resources.files(__package__).joinpath(f"{lang}.json").read_text(encoding="utf-8")
    return json.loads(text)


def _lang(lang: str | None) -> str:
    """``lang`` if it is one of :data:`LANGUAGES` (any case, ``de-CH`` → ``de``), else the default."""
    if isinstance(lang, str):
        primary = lang.strip().split("-", 1)[0].split("_", 1)[0].lower()
        if primary in LANGUAGES:
            return primary
    return DEFAULT_LANGUAGE


def catalog(lang: str) -> dict[str, str]:
    """The raw templates of ``lang`` (unknown → English), code → template, reserved keys left out.

    >>> catalog("en")["TABLEAU_RANK"].startswith("{card} cannot go on {onto}")
    True
    """
    return {code: text for code, text in _load(_lang(lang)).items() if not code.startswith("_")}


def names(lang: str) -> dict[str, Any]:
    """How ``lang`` shows piles and cards: its catalog's ``_piles`` and ``_cards``, for clients that fill the templates.

    >>> names("de")["piles"]["fH"], names("de")["cards"]["format"]
    ('der Zielstapel für Herz', '{rank}{suit}')
    """
    table = _load(_lang(lang))
    return {"piles": table["_piles"], "cards": table["_cards"]}


def title(code: str, lang: str) -> str:
    """A code's short title in ``lang`` (unknown language: English; unknown code: the code in words).

    >>> title("GAME_NOT_FOUND", "de"), title("GAME_NOT_FOUND", "xx")
    ('Spiel nicht gefunden', 'Game not found')
    """
    found = _load(_lang(lang))["_titles"].get(code)
    return found if found is not None else str(code).replace("_", " ").capitalize()


def pile_name(pile: str, lang: str) -> str:
    """The display name of a pile (``t3`` → "column 3"); anything else is returned unchanged.

    >>> pile_name("fS", "de")
    'der Zielstapel für Pik'
    """
    return _load(_lang(lang))["_piles"].get(pile, pile)


def card_name(card: str, lang: str) -> str:
    """The display name of a card (``7H`` → "7♥", ``th`` → "10♥"); anything else unchanged.

    >>> card_name("TH", "ja")
    '10♥'
    """
    match = _CARD.fullmatch(card.strip()) if isinstance(card, str) else None
    if match is None:
        return card
    rank, suit = match.group(1).upper(), match.group(2).upper()
    table = _load(_lang(lang))["_cards"]
    rank = table["ranks"]["T" if rank == "10" else rank]
    return table["format"].format(rank=rank, suit=table["suits"][suit])


def rank_name(rank: str, lang: str) -> str:
    """The name of a rank on its own (``A`` → "ace", ``T`` → "10"); anything else unchanged.

    >>> rank_name("Q", "de"), rank_name("A", "ja"), rank_name("T", "en")
    ('die Dame', 'エース', '10')
    """
    key = rank.strip().upper() if isinstance(rank, str) else rank
    return _load(_lang(lang))["_cards"]["names"].get("T" if key == "10" else key, rank)


class _Params(dict):
    def __missing__(self, key: str) -> str:
        return MISSING


def _display(name: str, value: Any, lang: str) -> str:
    if value is None:
        return MISSING
    if isinstance(value, str):
        if name in PILE_PARAMS:
            return pile_name(value, lang)
        if name in CARD_PARAMS:
            return card_name(value, lang)
        if name in RANK_PARAMS:
            return rank_name(value, lang)
    return str(value)


def message(code: str, params: dict | None, lang: str) -> str:
    """The sentence for ``code`` in ``lang`` (unknown → English), its placeholders filled.

    Piles and cards are shown by their display names. A missing param shows as
    ``?``; an unknown code falls back to the code itself, so this never raises.

    >>> message("TABLEAU_RANK", {"card": "7H", "onto": "9C"}, "en")
    '7♥ cannot go on 9♣: a card goes on the last card of a column only if it is exactly one rank lower.'
    >>> message("SOURCE_EMPTY", {"pile": "waste"}, "fr")
    'The waste pile is empty: there is no card to play from it.'
    """
    lang = _lang(lang)
    template = _load(lang).get(code) if isinstance(code, str) and not code.startswith("_") else None
    if not isinstance(template, str):
        return str(code)
    values = _Params(
        {str(name): _display(str(name), value, lang) for name, value in dict(params or {}).items()}
    )
    try:
        text = template.format_map(values)
    except (ValueError, LookupError, AttributeError, TypeError):
        return template
    # A sentence may open on a pile name ("the waste pile …"): capitalise its first letter.
    return text[:1].upper() + text[1:] if text[:1].islower() else text


def _parse(header: str) -> list[tuple[str, float]]:
    """The well-formed ``(range, q)`` elements of an Accept-Language header, lower-cased."""
    ranges = []
    for element in header[:_MAX_HEADER].split(","):
        parts = [part.strip(" \t") for part in element.split(";")]
        if not parts[0] and len(parts) == 1:
            continue  # empty list element, allowed by RFC 9110 §5.6.1
        if not _RANGE.fullmatch(parts[0]) or len(parts) > 2:
            continue
        q = 1.0
        if len(parts) == 2:
            weight = _WEIGHT.fullmatch(parts[1])
            if weight is None or not _QVALUE.fullmatch(weight.group(1)):
                continue
            q = float(weight.group(1))
        ranges.append((parts[0].lower(), q))
    return ranges


def negotiate(accept_language: str | None) -> str:
    """The best of :data:`LANGUAGES` for an ``Accept-Language`` header (RFC 9110 §12.5.4).

    Ranges are matched on their primary subtag (``de-CH`` → ``de``, RFC 4647
    lookup); ``*`` stands for any language not named; ``q=0`` means "not this
    one" (an exact ``de;q=0`` excludes German even if ``de-AT`` is also listed).
    The highest q wins, ties go to the range listed first, then to the order of
    :data:`LANGUAGES`. Malformed elements are ignored; with nothing acceptable
    the answer is :data:`DEFAULT_LANGUAGE`.

    >>> negotiate("de-CH,de;q=0.9,en;q=0.8")
    'de'
    >>> negotiate("en;q=0, ro")
    'ro'
    """
    if not isinstance(accept_language, str):
        return DEFAULT_LANGUAGE
    ranges = _parse(accept_language)
    wildcard = next(((q, i) for i, (rng, q) in enumerate(ranges) if rng == "*"), None)
    best: tuple[float, int, int] | None = None  # (q, -position, -preference)
    for preference, lang in enumerate(LANGUAGES):
        exact = [(q, i) for i, (rng, q) in enumerate(ranges) if rng == lang]
        if any(q == 0 for q, _ in exact):
            continue
        named = exact + [(q, i) for i, (rng, q) in enumerate(ranges) if rng.startswith(lang + "-")]
        if named:
            q, position = max(named, key=lambda item: (item[0], -item[1]))
        elif wildcard is not None:
            q, position = wildcard
        else:
            continue
        if q > 0:
            candidate = (q, -position, -preference)
            if best is None or candidate > best:
                best = candidate
    if best is None:
        return DEFAULT_LANGUAGE
    return LANGUAGES[-best[2]]

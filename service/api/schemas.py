"""Request schemas: strict validation of every body and query, and the names and fields they share."""

from __future__ import annotations

import unicodedata

from marshmallow import Schema, ValidationError, fields, pre_load, validate

from .. import i18n
from ..engine import COLUMNS, FOUNDATIONS, Card, NotationError, Pile
from ..engine.deal import DRAW_MODES
from ..store.feed import TIMINGS
from .paging import cursor_field, limit_field

COLUMN_NAMES = [pile.value for pile in COLUMNS]
FOUNDATION_NAMES = [pile.value for pile in FOUNDATIONS]
PLAY_SOURCES = [*COLUMN_NAMES, "waste"]
TARGETS = [pile.value for pile in Pile]
CARD_PATTERN = r"^(10|[2-9AaTtJjQqKk])[SsHhDdCc]$"
#: The draw modes, as the schemas list them.
DRAW_CHOICES = list(DRAW_MODES)
#: How a game was timed: by the server, or by its client (a game born offline); a filter and every entry's field.
TIMING_CHOICES = list(TIMINGS)


class StrictBoolean(fields.Boolean):
    """Only JSON true and false; marshmallow's default also takes "yes", 1, "on"."""

    truthy = {True}
    falsy = {False}

    def _deserialize(self, value, attr, data, **kwargs):
        # 1 == True and hashes alike, so the sets above alone still let 1, 0 and 1.0 in.
        if not isinstance(value, bool):
            raise self.make_error("invalid", input=value)
        return value


class CardField(fields.String):
    """A card name in any case, ``10`` or ``T``; the engine's parser decides (the pattern documents it)."""

    def __init__(self, **kwargs) -> None:
        kwargs.setdefault("metadata", {"description": "Rank then suit, e.g. 9C, TH, 10h."})
        kwargs["metadata"].setdefault("example", "9C")
        super().__init__(validate=validate.Regexp(CARD_PATTERN, error="Not a card: {input}."), **kwargs)

    def _deserialize(self, value, attr, data, **kwargs) -> str:
        text = super()._deserialize(value, attr, data, **kwargs)
        try:  # a regex "$" also matches before a final newline: "7H\n" must not pass
            Card.parse(text)
        except NotationError:
            raise ValidationError(f"Not a card: {text}.") from None
        return text


def pile_field(names: list[str], enum: str, **kwargs) -> fields.String:
    """A required pile name among ``names``, documented as the named enum ``enum`` (see contract.ENUMS)."""
    return fields.String(required=True, validate=validate.OneOf(names), metadata={"x-ref": enum}, **kwargs)


class StrictSchema(Schema):
    """Unknown fields are rejected, so a typo in a field name never passes silently."""

    class Meta:
        ordered = True


# -- requests ---------------------------------------------------------------


class EmptyBodySchema(StrictSchema):
    """No fields: an empty body or ``{}``."""


#: Unicode categories a name may not hold: controls (C0, DEL, C1), surrogates, private use,
#: unassigned, line and paragraph separators.
NAME_REFUSED_CATEGORIES = frozenset({"Cc", "Cs", "Co", "Cn", "Zl", "Zp"})
#: Format characters that reorder or hide text (bidi embeddings, overrides and isolates).
NAME_REFUSED_FORMATS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def printable_name(name: str) -> None:
    """A display name: some visible character, and no control, surrogate or bidi override at all."""
    for index, char in enumerate(name):
        if unicodedata.category(char) in NAME_REFUSED_CATEGORIES or char in NAME_REFUSED_FORMATS:
            raise ValidationError(f"Printable characters only: U+{ord(char):04X} at character {index}.")
    if not name.strip():
        raise ValidationError("Printable characters only: the name is blank.")


class NewPlayerSchema(StrictSchema):
    name = fields.String(required=True, validate=[validate.Length(min=1, max=40), printable_name],
                         metadata={"pattern": r"^[^\x00-\x1f\x7f-\x9f]*\S[^\x00-\x1f\x7f-\x9f]*$"})


#: The most actions a batch (or a new game born offline) may carry: usecases.batch.MAX_BATCH.
MAX_BATCH = 500


class NotationList(fields.List):
    """A list of 1 to 500 actions in the engine's notation (``draw``, ``t1>fH`` …), each a string.

    Each refusal is one flat message (the problem's ``errors`` are lists of strings);
    the notations themselves are parsed by the view, which answers the first one that
    does not parse with ``INVALID_NOTATION`` and its index.
    """

    def __init__(self, **kwargs) -> None:
        metadata = kwargs.setdefault("metadata", {})
        metadata.setdefault("description", "Actions in the engine's notation, in order (see "
                                           "`GET /v1/games/{game_id}/actions`).")
        metadata.setdefault("example", ["draw", "waste>t3", "t1>fH", "undo"])
        super().__init__(fields.String(), validate=validate.Length(min=1, max=MAX_BATCH,
                                                                   error="From {min} to {max} actions."), **kwargs)

    def _deserialize(self, value, attr, data, **kwargs) -> list[str]:
        if not isinstance(value, list):
            raise ValidationError(f"A list of 1 to {MAX_BATCH} actions in the engine's notation.")
        for index, item in enumerate(value):
            if not isinstance(item, str):
                raise ValidationError(f"Action {index} is not a string.")
        return list(value)


#: Bounds of what a client reports of a game born offline (``usecases.games.CLIENT_*`` check the clock).
MAX_CLIENT_SECONDS = 7 * 24 * 3600


class ClientTimingSchema(StrictSchema):
    started_at = fields.AwareDateTime(required=True, metadata={
        "description": "When the client dealt the game (with a time zone): at most 5 minutes ahead of the "
                       "server's clock, at most 7 days ago."})
    seconds = fields.Integer(strict=True, required=True, validate=validate.Range(min=0, max=MAX_CLIENT_SECONDS),
                             metadata={"description": "Seconds the client played offline: at most the time since "
                                                      "`started_at` (plus 5 minutes)."})


class FlatNested(fields.Nested):
    """A nested object whose refusals are flat messages (the problem's ``errors`` are lists of strings)."""

    def _deserialize(self, value, attr, data, partial=None, **kwargs):
        try:
            return super()._deserialize(value, attr, data, partial=partial, **kwargs)
        except ValidationError as error:
            messages = error.messages
            if isinstance(messages, dict):
                raise ValidationError([f"{name}: {' '.join(map(str, text if isinstance(text, list) else [text]))}"
                                       for name, text in messages.items()]) from None
            raise


class NewGameSchema(StrictSchema):
    draw = fields.Integer(strict=True, validate=validate.OneOf(DRAW_CHOICES),
                          metadata={"description": "1 (Easy, default) or 3 (Hard); taken from `code` when given."})
    code = fields.String(validate=validate.Length(max=64),
                         metadata={"example": "TF1-D1N-AAAAAAB", "description": "Deal exactly this game."})
    winnable = StrictBoolean(metadata={"description": "Deal only a deal the solver has proven winnable."})
    actions = NotationList(metadata={"description": "A game born offline: the actions its client already played "
                                                  "on `code`, replayed by the server (needs `code` and `client`)."})
    client = FlatNested(ClientTimingSchema, metadata={
        "description": "A game born offline: when its client dealt it and how long it played, stored as "
                       "reported; the game is then client-timed (`timing: \"client\"`)."})


class MoveSchema(StrictSchema):
    source = pile_field(PLAY_SOURCES, "PlaySource", data_key="from")
    target = pile_field(TARGETS, "Pile", data_key="to")
    card = CardField(metadata={"description": "Bottom card of the group; default the pile's top card."})


class TakeBackSchema(StrictSchema):
    source = pile_field(FOUNDATION_NAMES, "FoundationPile", data_key="from")
    target = pile_field(TARGETS, "Pile", data_key="to")


class TapSchema(StrictSchema):
    source = pile_field(PLAY_SOURCES, "PlaySource", data_key="from")
    card = CardField()
    double = StrictBoolean(load_default=False)


class ActionBatchSchema(StrictSchema):
    actions = NotationList(required=True)


class PageQuerySchema(StrictSchema):
    """A page of a list: ``limit`` and ``cursor``; every list's query schema extends it."""

    limit = limit_field()
    cursor = cursor_field()


def _language(value: str) -> None:
    if value not in i18n.LANGUAGES:
        raise ValidationError(f"Must be one of: {', '.join(i18n.LANGUAGES)} (or a tag of one, e.g. de-CH).")


class RulesQuerySchema(StrictSchema):
    # Validated after _language_tag reduces the tag; documented as the tags the server takes.
    lang = fields.String(validate=_language,
                         metadata={"description": "en, de, da, ro or ja (any case, `de-CH` is de); "
                                                  "empty or absent: all five.",
                                   "pattern": r"^([A-Za-z]{2}(-[A-Za-z0-9]{1,8})*)?$",
                                   "maxLength": 64, "examples": ["de-CH"]})

    @pre_load
    def _language_tag(self, data, **kwargs):
        data = dict(data)
        tag = data.get("lang")
        if isinstance(tag, str) and len(tag) <= 64:  # a longer one stays as it is, and fails
            primary = tag.strip().split("-")[0].lower()
            if primary:
                data["lang"] = primary
            else:
                del data["lang"]
        return data

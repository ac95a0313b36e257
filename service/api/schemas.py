"""Marshmallow schemas: strict request validation and the documented answer shapes."""

from __future__ import annotations

import unicodedata

from marshmallow import Schema, ValidationError, fields, pre_load, validate

from ..engine import COLUMNS, FOUNDATIONS, Card, NotationError, Pile

COLUMN_NAMES = [pile.value for pile in COLUMNS]
FOUNDATION_NAMES = [pile.value for pile in FOUNDATIONS]
PLAY_SOURCES = [*COLUMN_NAMES, "waste"]
TARGETS = [pile.value for pile in Pile]
CARD_PATTERN = r"^(10|[2-9AaTtJjQqKk])[SsHhDdCc]$"
GAME_CODE_PATTERN = r"^[Tt][Ff]1-[Dd][13][A-Za-z]-[A-Za-z]{7}$"


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


def pile_field(names: list[str], **kwargs) -> fields.String:
    return fields.String(required=True, validate=validate.OneOf(names), **kwargs)


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


class NewGameSchema(StrictSchema):
    draw = fields.Integer(strict=True, validate=validate.OneOf([1, 3]),
                          metadata={"description": "1 (Easy, default) or 3 (Hard); taken from `code` when given."})
    code = fields.String(validate=validate.Length(max=64),
                         metadata={"example": "TF1-D1N-AAAAAAB", "description": "Deal exactly this game."})
    winnable = StrictBoolean(metadata={"description": "Deal only a deal the solver has proven winnable."})


class MoveSchema(StrictSchema):
    source = pile_field(PLAY_SOURCES, data_key="from")
    target = pile_field(TARGETS, data_key="to")
    card = CardField(metadata={"description": "Bottom card of the group; default the pile's top card."})


class TakeBackSchema(StrictSchema):
    source = pile_field(FOUNDATION_NAMES, data_key="from")
    target = pile_field(TARGETS, data_key="to")


class TapSchema(StrictSchema):
    source = pile_field(PLAY_SOURCES, data_key="from")
    card = CardField()
    double = StrictBoolean(load_default=False)


class PageQuerySchema(StrictSchema):
    limit = fields.Integer(strict=False, load_default=50, validate=validate.Range(min=1, max=200))
    cursor = fields.String(validate=validate.Length(max=200))


class RulesQuerySchema(StrictSchema):
    lang = fields.String(validate=validate.OneOf(["en", "de", "da", "ro", "ja"]),
                         metadata={"description": "en, de, da, ro or ja (any case, `de-CH` is de); "
                                                  "empty or absent: all five."})

    @pre_load
    def _language_tag(self, data, **kwargs):
        data = dict(data)
        tag = data.get("lang")
        if isinstance(tag, str):
            primary = tag.strip().split("-")[0].lower()
            if primary:
                data["lang"] = primary
            else:
                del data["lang"]
        return data


# -- answers (documentation; views build the dicts directly) ----------------


class FoundationsSchema(Schema):
    S = fields.Integer()
    H = fields.Integer()
    D = fields.Integer()
    C = fields.Integer()


class GameSchema(Schema):
    id = fields.String()
    code = fields.String(metadata={"example": "TF1-D1N-AAAAAAB"})
    draw = fields.Integer(metadata={"enum": [1, 3]})
    status = fields.String(metadata={"enum": ["playing", "won"]})
    score = fields.Integer()
    moves = fields.Integer()
    undos = fields.Integer()
    version = fields.Integer()
    hints = fields.Integer()
    tableau = fields.List(fields.List(fields.String()), metadata={"description": "7 columns, bottom card first."})
    foundations = fields.Nested(FoundationsSchema, metadata={"description": "Cards on each foundation."})
    stock = fields.Integer(metadata={"description": "Cards in the stock (never their order)."})
    waste = fields.List(fields.String(), metadata={"description": "Bottom first, top last."})
    waste_fan = fields.Integer()
    can_undo = fields.Boolean()
    created_at = fields.DateTime()
    finished_at = fields.DateTime(allow_none=True)
    seconds = fields.Float(allow_none=True, metadata={"description": "Seconds from creation to the win."})
    player = fields.String(allow_none=True, metadata={"description": "The owner's player id, or null."})
    winnable = fields.Boolean(allow_none=True,
                              metadata={"description": "true when the solver proved the deal winnable."})


class NewGameAnswerSchema(GameSchema):
    token = fields.String(metadata={"description": "Anonymous games only: the game's token, shown once."})


class ActionDetailSchema(Schema):
    action = fields.String(metadata={"enum": ["move", "draw", "recycle", "undo", "take-back", "tap"]})
    source = fields.String(data_key="from")
    target = fields.String(data_key="to")
    card = fields.String()
    double = fields.Boolean()
    cards = fields.List(fields.String(), metadata={"description": "The cards the action moved."})
    moved_from = fields.String(metadata={"description": "The pile the cards left."})
    moved_to = fields.String(metadata={"description": "The pile the cards went to (a tap's column, "
                                                      "the foundation behind `foundation`)."})
    points = fields.Integer()
    undone = fields.String(metadata={"description": "For an undo: the action it reverted, in notation."})


class ActionAnswerSchema(GameSchema):
    last = fields.Nested(ActionDetailSchema)


class HistoryItemSchema(ActionDetailSchema):
    seq = fields.Integer()
    notation = fields.String(metadata={"example": "t3>t5:9C"})
    score_after = fields.Integer()
    at = fields.DateTime()


class HistoryPageSchema(Schema):
    game = fields.String(metadata={"description": "The game's id."})
    code = fields.String()
    items = fields.List(fields.Nested(HistoryItemSchema))
    next = fields.String(allow_none=True)


class LegalActionSchema(Schema):
    action = fields.String()
    source = fields.String(data_key="from")
    target = fields.String(data_key="to")
    card = fields.String()
    notation = fields.String()


class LegalActionsSchema(Schema):
    version = fields.Integer()
    items = fields.List(fields.Nested(LegalActionSchema))


class PlayerAnswerSchema(Schema):
    id = fields.String()
    name = fields.String()
    token = fields.String(metadata={"description": "Shown once; send as `Authorization: Bearer <token>`."})
    created_at = fields.DateTime()


class ProblemSchema(Schema):
    type = fields.String()
    title = fields.String()
    status = fields.Integer()
    detail = fields.String()
    code = fields.String()
    params = fields.Dict()
    instance = fields.String()
    errors = fields.Dict()


class HintSchema(Schema):
    game = fields.String()
    version = fields.Integer(metadata={"description": "The version the hint was computed for."})
    verdict = fields.String(metadata={"enum": ["winnable", "unwinnable", "unknown"]})
    proven = fields.Boolean(metadata={"description": "false with `unknown`: `action` is the search's best "
                                                     "guess, not the first step of a proven win."})
    action = fields.Nested(LegalActionSchema, allow_none=True)
    notation = fields.String(allow_none=True, metadata={"example": "t3>t5:9C"})
    line_length = fields.Integer(metadata={"description": "Actions left in the winning line found (0 unless "
                                                          "`winnable`)."})
    nodes = fields.Integer()
    ms = fields.Float(metadata={"description": "CPU milliseconds the search took (when it ran)."})
    cached = fields.Boolean(metadata={"description": "true: the answer for this position was already known."})
    hints = fields.Integer(metadata={"description": "Hints asked on this game so far."})

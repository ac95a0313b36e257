"""Marshmallow schemas: strict request validation and the documented answer shapes."""

from __future__ import annotations

import unicodedata

from marshmallow import EXCLUDE, Schema, ValidationError, fields, pre_load, validate

from .. import i18n
from ..engine import COLUMNS, FOUNDATIONS, Card, NotationError, Pile
from ..engine.deal import DRAW_MODES
from .paging import cursor_field, limit_field

COLUMN_NAMES = [pile.value for pile in COLUMNS]
FOUNDATION_NAMES = [pile.value for pile in FOUNDATIONS]
PLAY_SOURCES = [*COLUMN_NAMES, "waste"]
TARGETS = [pile.value for pile in Pile]
CARD_PATTERN = r"^(10|[2-9AaTtJjQqKk])[SsHhDdCc]$"
#: The draw modes, as the schemas list them.
DRAW_CHOICES = list(DRAW_MODES)


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


def named(enum: str, field: type[fields.Field] = fields.String, **kwargs) -> fields.Field:
    """An answer field documented as the named schema ``enum``; always present unless ``required=False``."""
    kwargs.setdefault("required", True)
    metadata = {"x-ref": enum, **kwargs.pop("metadata", {})}
    return field(metadata=metadata, **kwargs)


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
    draw = fields.Integer(strict=True, validate=validate.OneOf(DRAW_CHOICES),
                          metadata={"description": "1 (Easy, default) or 3 (Hard); taken from `code` when given."})
    code = fields.String(validate=validate.Length(max=64),
                         metadata={"example": "TF1-D1N-AAAAAAB", "description": "Deal exactly this game."})
    winnable = StrictBoolean(metadata={"description": "Deal only a deal the solver has proven winnable."})


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


class PageQuerySchema(StrictSchema):
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


# -- answers (documentation; views build the dicts directly) ----------------
#
# Every field an answer always has is `required` (generated clients then type it as
# present); fields that may be null say so. Answers stay open to new fields (no
# additionalProperties: false): clients ignore what they do not know, and the
# conformance check in tests/ still fails on any field the spec does not declare.


class AnswerSchema(Schema):
    class Meta:
        unknown = EXCLUDE  # documented without additionalProperties: answers may grow


def _count(**kwargs) -> fields.Integer:
    return fields.Integer(required=True, validate=validate.Range(min=0), **kwargs)


class FoundationsSchema(StrictSchema):
    # D last: openapi-python-client parses into a local dict named `d`, which a property
    # `D` overwrites; declared last, nothing reads the dict after it. The JSON is the same.
    S = fields.Integer(required=True, validate=validate.Range(min=0, max=13))
    H = fields.Integer(required=True, validate=validate.Range(min=0, max=13))
    C = fields.Integer(required=True, validate=validate.Range(min=0, max=13))
    D = fields.Integer(required=True, validate=validate.Range(min=0, max=13))


class GameSchema(AnswerSchema):
    id = fields.String(required=True)
    code = fields.String(required=True, metadata={"example": "TF1-D1N-AAAAAAB"})
    draw = fields.Integer(required=True, metadata={"enum": DRAW_CHOICES})
    status = fields.String(required=True, metadata={"enum": ["playing", "won"]})
    score = _count()
    moves = _count()
    undos = _count()
    version = _count()
    hints = _count()
    tableau = fields.List(fields.List(named("Card")), required=True, validate=validate.Length(equal=7),
                          metadata={"description": "7 columns, bottom card first."})
    foundations = fields.Nested(FoundationsSchema, required=True,
                                metadata={"description": "Cards on each foundation."})
    stock = _count(metadata={"description": "Cards in the stock (never their order)."})
    waste = fields.List(named("Card"), required=True, metadata={"description": "Bottom first, top last."})
    waste_fan = fields.Integer(required=True, validate=validate.Range(min=0, max=3))
    can_undo = fields.Boolean(required=True)
    created_at = fields.DateTime(required=True)
    finished_at = fields.DateTime(required=True, allow_none=True)
    seconds = fields.Float(required=True, allow_none=True,
                           metadata={"description": "Seconds from creation to the win."})
    player = fields.String(required=True, allow_none=True, metadata={"description": "The owner's player id, or null."})
    winnable = fields.Boolean(required=True, allow_none=True,
                              metadata={"description": "true when the solver proved the deal winnable."})


class ActionDetailSchema(AnswerSchema):
    action = named("ActionKind")
    source = named("Pile", data_key="from", required=False)
    target = named("Pile", data_key="to", required=False)
    card = named("Card", required=False)
    double = fields.Boolean()
    cards = fields.List(named("Card"), required=True, metadata={"description": "The cards the action moved."})
    moved_from = named("Pile", required=False, metadata={"description": "The pile the cards left."})
    moved_to = named("Pile", required=False, metadata={"description": "The pile the cards went to (a tap's "
                                                                      "column, the foundation behind `foundation`)."})
    points = fields.Integer(required=True)
    undone = fields.String(metadata={"description": "For an undo: the action it reverted, in notation."})


class HistoryItemSchema(ActionDetailSchema):
    seq = fields.Integer(required=True, validate=validate.Range(min=1))
    notation = fields.String(required=True, metadata={"example": "t3>t5:9C"})
    score_after = _count()
    at = fields.DateTime(required=True)


class HistoryPageSchema(AnswerSchema):
    game = fields.String(required=True, metadata={"description": "The game's id."})
    code = fields.String(required=True)
    items = fields.List(fields.Nested(HistoryItemSchema), required=True)
    next = fields.String(required=True, allow_none=True,
                         metadata={"description": "Send as `cursor` for the next page; null on the last."})


#: What each action kind carries, as the API writes it and as its request body takes it.
ACTION_FIELDS: dict[str, dict[str, tuple[dict, bool]]] = {
    "move": {"from": ({"$ref": "#/components/schemas/PlaySource"}, True),
             "to": ({"$ref": "#/components/schemas/Pile"}, True),
             "card": ({"$ref": "#/components/schemas/Card"}, False)},
    "draw": {},
    "recycle": {},
    "undo": {},
    "take-back": {"from": ({"$ref": "#/components/schemas/FoundationPile"}, True),
                  "to": ({"$ref": "#/components/schemas/Pile"}, True)},
    "tap": {"from": ({"$ref": "#/components/schemas/PlaySource"}, True),
            "card": ({"$ref": "#/components/schemas/Card"}, False),
            "double": ({"type": "boolean"}, True)},
}


def _kind_name(kind: str) -> str:
    return "".join(part.capitalize() for part in kind.split("-"))


def action_components() -> dict[str, dict]:
    """``Action`` and ``LegalAction``: unions of one schema per kind, discriminated by ``action``.

    Their ``from``/``to`` are the request bodies' own enums, so a hint or a legal move is
    sent back as it is.
    """
    components: dict[str, dict] = {}
    for family, extra in (("Action", {}), ("LegalAction", {"notation": ({"type": "string"}, True)})):
        mapping = {}
        for kind, members in ACTION_FIELDS.items():
            members = {**members, **extra}
            name = f"{_kind_name(kind)}{family}"
            properties = {"action": {"type": "string", "const": kind},
                          **{key: schema for key, (schema, _) in members.items()}}
            components[name] = {"type": "object", "properties": properties,
                                "required": ["action", *[key for key, (_, needed) in members.items() if needed]]}
            mapping[kind] = f"#/components/schemas/{name}"
        components[family] = {"oneOf": [{"$ref": target} for target in mapping.values()],
                              "discriminator": {"propertyName": "action", "mapping": mapping}}
    components["NewGameAnswer"] = {"allOf": [
        {"$ref": "#/components/schemas/Game"},
        {"type": "object", "properties": {"token": {
            "type": "string", "description": "Anonymous games only: the game's token, shown once."}}},
    ]}
    components["ActionAnswer"] = {"allOf": [
        {"$ref": "#/components/schemas/Game"},
        {"type": "object", "required": ["last"], "properties": {"last": {"$ref": "#/components/schemas/ActionDetail"}}},
    ]}
    return components


def register_answer_components(spec) -> None:
    """Name the marshmallow answers the composed schemas build on, then add those."""
    spec.components.schema("Game", schema=GameSchema)
    spec.components.schema("ActionDetail", schema=ActionDetailSchema)
    for name, schema in action_components().items():
        spec.components.schema(name, component=schema)


class LegalActionsSchema(AnswerSchema):
    version = _count()
    items = fields.List(named("LegalAction", fields.Dict), required=True)


class PlayerAnswerSchema(AnswerSchema):
    id = fields.String(required=True)
    name = fields.String(required=True)
    token = fields.String(required=True, metadata={"description": "Shown once; send as "
                                                                  "`Authorization: Bearer <token>`."})
    created_at = fields.DateTime(required=True)


class HintSchema(AnswerSchema):
    game = fields.String(required=True)
    version = _count(metadata={"description": "The version the hint was computed for."})
    verdict = fields.String(required=True, metadata={"enum": ["winnable", "unwinnable", "unknown"]})
    reason = fields.String(required=True, allow_none=True, metadata={
        "enum": ["time", "nodes", "memory", None],
        "description": "With `unknown`, the budget that ran out: CPU `time`, `nodes` (positions) or `memory` "
                       "(the search's tables); null otherwise."})
    proven = fields.Boolean(required=True, metadata={
        "description": "false with `unknown`: `action` is the search's best guess, not the first step of a "
                       "proven win."})
    action = named("Action", fields.Dict, allow_none=True,
                   metadata={"description": "The first step of the winning line (`winnable`), or the best action "
                                            "the search found (`unknown`, `proven: false`), to send as it is; "
                                            "null when there is none."})
    notation = fields.String(required=True, allow_none=True, metadata={"example": "t3>t5:9C"})
    line_length = _count(metadata={"description": "Actions left in the winning line found (0 unless `winnable`)."})
    nodes = _count()
    ms = fields.Float(required=True, metadata={"description": "CPU milliseconds the search took (when it ran)."})
    cached = fields.Boolean(required=True, metadata={
        "description": "true: the answer for this position was already known."})
    hints = _count(metadata={"description": "Hints asked on this game so far."})


MessagesSchema = Schema.from_dict({lang: fields.String(required=True) for lang in i18n.LANGUAGES},
                                  name="Messages")


class RuleSchema(AnswerSchema):
    code = named("ProblemCode")
    status = fields.Integer(required=True, metadata={"description": "The HTTP status of its problems."})
    params = fields.List(fields.String(), required=True,
                         metadata={"description": "The names of its params (typed in its problem schema)."})
    message = fields.String(metadata={"description": "With `lang`: the template in that language."})
    messages = fields.Nested(MessagesSchema, metadata={"description": "Without `lang`: every language's template."})


class RuleCatalogSchema(AnswerSchema):
    # Not "Rules": openapi-python-client names the parsed object after the schema, and a
    # property `rules` would overwrite it.
    lang = named("Language", allow_none=True, metadata={"description": "The `lang` asked for, or null."})
    languages = fields.List(named("Language"), required=True)
    rules = fields.List(fields.Nested(RuleSchema), required=True)


class HealthSchema(AnswerSchema):
    status = fields.String(required=True, metadata={"enum": ["ok"]})


class ReadinessSchema(HealthSchema):
    database = fields.String(required=True, metadata={"enum": ["ok"]})

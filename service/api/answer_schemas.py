"""Answer schemas: the documented shapes of what the API answers (the views build the dicts directly)."""

from __future__ import annotations

from marshmallow import EXCLUDE, Schema, fields, validate

from .. import i18n
from .problem_schemas import camel, ref
from .schemas import DRAW_CHOICES, TIMING_CHOICES, StrictSchema


def named(enum: str, field: type[fields.Field] = fields.String, **kwargs) -> fields.Field:
    """An answer field documented as the named schema ``enum``; always present unless ``required=False``."""
    kwargs.setdefault("required", True)
    metadata = {"x-ref": enum, **kwargs.pop("metadata", {})}
    return field(metadata=metadata, **kwargs)


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


class ClientReportSchema(AnswerSchema):
    started_at = fields.DateTime(required=True)
    seconds = fields.Integer(required=True)


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
    timing = fields.String(required=True, metadata={"enum": TIMING_CHOICES, "description": (
        "`client`: a game born offline (created with `actions` and `client`), its `seconds` including the "
        "seconds its client reported; `server`: timed by the server from its deal.")})
    client = fields.Nested(ClientReportSchema, required=True, allow_none=True, metadata={
        "description": "What the client of a game born offline reported, as reported; null otherwise."})


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
    "move": {"from": (ref("PlaySource"), True), "to": (ref("Pile"), True), "card": (ref("Card"), False)},
    "draw": {},
    "recycle": {},
    "undo": {},
    "take-back": {"from": (ref("FoundationPile"), True), "to": (ref("Pile"), True)},
    "tap": {"from": (ref("PlaySource"), True), "card": (ref("Card"), False), "double": ({"type": "boolean"}, True)},
}


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
            name = f"{camel(kind)}{family}"
            properties = {"action": {"type": "string", "const": kind},
                          **{key: schema for key, (schema, _) in members.items()}}
            components[name] = {"type": "object", "properties": properties,
                                "required": ["action", *[key for key, (_, needed) in members.items() if needed]]}
            mapping[kind] = ref(name)["$ref"]
        components[family] = {"oneOf": [{"$ref": target} for target in mapping.values()],
                              "discriminator": {"propertyName": "action", "mapping": mapping}}
    components["NewGameAnswer"] = {"allOf": [
        ref("Game"),
        {"type": "object", "properties": {"token": {
            "type": "string", "description": "Anonymous games only: the game's token, shown once."}}},
    ]}
    components["ActionAnswer"] = {"allOf": [
        ref("Game"),
        {"type": "object", "required": ["last"], "properties": {"last": ref("ActionDetail")}},
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


def _names(description: str) -> fields.Dict:
    return fields.Dict(keys=fields.String(), values=fields.String(), required=True,
                       metadata={"description": description})


class CardNamesSchema(AnswerSchema):
    format = fields.String(required=True, metadata={"description": "A card: `{rank}` and `{suit}` as below.",
                                                    "example": "{rank}{suit}"})
    ranks = _names("Each rank (`A`, `2`…`9`, `T`, `J`, `Q`, `K`) as a card shows it.")
    suits = _names("Each suit (`S`, `H`, `D`, `C`) as a card shows it.")
    names = _names("Each rank said on its own (a `needs` param).")


class ParamNamesSchema(AnswerSchema):
    piles = _names("Each pile (`t1`…`t7`, `waste`, `stock`, `fS`…, `foundation`) as a sentence names it.")
    cards = fields.Nested(CardNamesSchema, required=True)


ParamNamesByLanguageSchema = Schema.from_dict({lang: fields.Nested(ParamNamesSchema) for lang in i18n.LANGUAGES},
                                              name="ParamNamesByLanguage")


class RuleCatalogSchema(AnswerSchema):
    # Not "Rules": openapi-python-client names the parsed object after the schema, and a
    # property `rules` would overwrite it.
    rules_version = fields.Integer(required=True, validate=validate.Range(min=1), metadata={
        "description": "The version of the rules the server judges by (also the `Rules-Version` header of "
                       "every game answer). A client engine whose own version is older must not judge "
                       "locally; the JavaScript package exports its version as `RULES_VERSION`."})
    lang = named("Language", allow_none=True, metadata={"description": "The `lang` asked for, or null."})
    languages = fields.List(named("Language"), required=True)
    rules = fields.List(fields.Nested(RuleSchema), required=True)
    names = fields.Nested(ParamNamesByLanguageSchema, required=True, metadata={
        "description": "Per language of `languages`: how its templates show the pile, card and rank params."})


class HealthSchema(AnswerSchema):
    status = fields.String(required=True, metadata={"enum": ["ok"]})


class DependencySchema(AnswerSchema):
    status = fields.String(required=True, metadata={"enum": ["ok", "down", "not_configured"]})


class SolverReadinessSchema(AnswerSchema):
    status = fields.String(required=True, metadata={"enum": ["ok", "busy"],
                                                    "description": "`busy`: every search slot of this process "
                                                                   "is taken now."})
    slots = fields.Integer(required=True, metadata={"description": "Searches this process runs at once."})
    free_slots = fields.Integer(required=True, metadata={"description": "Of those, the ones free now."})
    winnable_pool = fields.Dict(keys=fields.String(), values=fields.Integer(), required=True, metadata={
        "description": "Proven-winnable deals waiting, by draw mode."})


class ReadinessChecksSchema(AnswerSchema):
    database = fields.Nested(DependencySchema, required=True)
    redis = fields.Nested(DependencySchema, required=True)
    solver = fields.Nested(SolverReadinessSchema, required=True)


class ReadinessSchema(AnswerSchema):
    status = fields.String(required=True, metadata={"enum": ["ok", "degraded"], "description": (
        "`degraded`: a dependency the service can do without is down (see `checks`).")})
    database = fields.String(required=True, metadata={"enum": ["ok"]})
    checks = fields.Nested(ReadinessChecksSchema, required=True)

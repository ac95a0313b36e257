"""The contract's typed problems, enums and common answers follow the code's own tables."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from service.api.problem_schemas import param_schema, problem_schema_name, status_union_name
from service.problem_codes import PARAMS, STATUS

SPEC = yaml.safe_load((Path(__file__).resolve().parents[2] / "openapi.yaml").read_text(encoding="utf-8"))
SCHEMAS = SPEC["components"]["schemas"]


def test_every_param_of_every_code_is_typed():
    untyped = sorted({name for names in PARAMS.values() for name in names if param_schema(name) is None})
    assert not untyped, f"give these params a type in service/api/problem_schemas.py: {untyped}"


def test_one_problem_schema_per_code_with_its_status_and_params():
    for code, names in PARAMS.items():
        schema = SCHEMAS[problem_schema_name(code)]
        assert schema["properties"]["code"]["const"] == code
        assert schema["properties"]["status"]["const"] == STATUS[code]
        assert "additionalProperties" not in schema  # RFC 9457: problem documents may grow
        params = schema["properties"]["params"]["$ref"].rsplit("/", 1)[1]
        assert set(SCHEMAS[params]["properties"]) == set(names)
        assert SCHEMAS[params]["additionalProperties"] is False
    assert SCHEMAS["ProblemCode"]["enum"] == list(PARAMS)
    assert set(SCHEMAS["Problem"]["discriminator"]["mapping"]) == set(PARAMS)


@pytest.mark.parametrize("status", sorted(set(STATUS.values())))
def test_each_status_union_holds_exactly_the_codes_of_its_status(status):
    codes = {code for code in PARAMS if STATUS[code] == status}
    if len(codes) > 1:
        assert set(SCHEMAS[status_union_name(status)]["discriminator"]["mapping"]) == codes
    else:
        assert status_union_name(status) not in SCHEMAS


def test_hints_and_legal_moves_use_the_request_enums():
    move = SCHEMAS["MoveAction"]["properties"]
    request = SCHEMAS["Move"]["properties"]
    assert move["from"] == request["from"] == {"$ref": "#/components/schemas/PlaySource"}
    assert move["to"] == request["to"] == {"$ref": "#/components/schemas/Pile"}
    assert set(SCHEMAS["Action"]["discriminator"]["mapping"]) == set(SCHEMAS["ActionKind"]["enum"])
    hint_action = SCHEMAS["Hint"]["properties"]["action"]["anyOf"]
    assert {"$ref": "#/components/schemas/Action"} in hint_action and {"type": "null"} in hint_action


IF_MATCH_PATTERN = SPEC["components"]["parameters"]["IfMatch"]["schema"]["pattern"]


@pytest.mark.parametrize("good", ['"0"', '"5", "1"', "*", 'W/"3"'])
def test_entity_tags_match_the_if_match_pattern(good):
    assert re.match(IF_MATCH_PATTERN, good)


@pytest.mark.parametrize("bad", ["0", '"3', "3, *", ""])
def test_malformed_if_match_is_refused_not_a_mismatch(bad):
    assert not re.match(IF_MATCH_PATTERN, bad)

"""docs/RULES.md and docs/API.md: in the repository, served, and naming everything the code has."""

from __future__ import annotations

from pathlib import Path

import yaml

from service.engine import ACTION_CODES, PRECEDENCE
from service.problem_codes import PARAMS

ROOT = Path(__file__).resolve().parents[2]
RULES = (ROOT / "docs" / "RULES.md").read_text(encoding="utf-8")
API = (ROOT / "docs" / "API.md").read_text(encoding="utf-8")


def test_rules_list_the_refusals_in_precedence_order():
    positions = [RULES.index(f"| `{code}` |") for code in PRECEDENCE]
    assert positions == sorted(positions)
    for code in ACTION_CODES:
        assert f"`{code}`" in RULES, code


def test_api_guide_names_every_operation_and_code():
    spec = yaml.safe_load((ROOT / "openapi.yaml").read_text(encoding="utf-8"))
    for path, item in spec["paths"].items():
        for method, operation in item.items():
            if method in ("get", "post"):
                assert f"`{operation['operationId']}`" in API, operation["operationId"]
                assert path.split("?")[0] in API, path
    for code in PARAMS:
        assert f"`{code}`" in API or f"`{code}`" in RULES, code


def test_readme_and_spec_link_the_documents_inside_the_repository():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "(docs/RULES.md)" in readme and "(docs/API.md)" in readme
    assert "../shared" not in readme
    description = yaml.safe_load((ROOT / "openapi.yaml").read_text(encoding="utf-8"))["info"]["description"]
    assert "/docs/rules" in description and "/docs/api" in description


def test_the_documents_are_served(client):
    for path, heading in (("/docs/rules", "The rules of Solitaire"), ("/docs/api", "The HTTP API")):
        response = client.get(path)
        assert response.status_code == 200 and response.mimetype == "text/html"
        assert heading in response.get_data(as_text=True)

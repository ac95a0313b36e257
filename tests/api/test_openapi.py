"""The checked-in openapi.yaml is the spec the code generates, and the docs are served."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from service.cli import openapi_yaml

CHECKED_IN = Path(__file__).resolve().parents[2] / "openapi.yaml"


def test_openapi_yaml_is_up_to_date(app):
    with app.app_context():
        generated = yaml.safe_load(openapi_yaml())
    checked_in = yaml.safe_load(CHECKED_IN.read_text(encoding="utf-8"))
    assert checked_in == generated, "openapi.yaml is out of date with the code: run `make openapi` and commit it"


CHECKED_IN_SPEC = yaml.safe_load(CHECKED_IN.read_text(encoding="utf-8"))


def test_openapi_version():
    assert CHECKED_IN_SPEC["openapi"] == "3.1.0"


@pytest.mark.parametrize("path", [
    "/v1/games", "/v1/games/{game_id}", "/v1/games/{game_id}/moves", "/v1/games/{game_id}/draw",
    "/v1/games/{game_id}/recycle", "/v1/games/{game_id}/undo", "/v1/games/{game_id}/take-back",
    "/v1/games/{game_id}/tap", "/v1/games/{game_id}/actions", "/v1/games/{game_id}/legal-moves",
    "/v1/players", "/v1/rules", "/v1/rules/{code}",
])
def test_openapi_declares_the_contracts_paths(path):
    assert path in CHECKED_IN_SPEC["paths"]


def test_openapi_json_and_docs_are_served(client, app):
    response = client.get("/openapi.json")
    assert response.status_code == 200 and response.mimetype == "application/json"
    with app.app_context():
        assert response.get_json() == yaml.safe_load(openapi_yaml())
    docs = client.get("/docs")
    assert docs.status_code == 200 and docs.mimetype == "text/html"
    assert b"swagger" in docs.data.lower()


def test_docs_load_swagger_ui_from_the_package_not_a_cdn(client):
    html = client.get("/docs").get_data(as_text=True)
    assert "https://" not in html and "http://" not in html, "the docs page must work offline"
    assert client.get("/docs/assets/../../pyproject.toml").status_code == 404


@pytest.mark.parametrize("asset", ["swagger-ui-bundle.js", "swagger-ui.css", "swagger-ui-standalone-preset.js"])
def test_docs_serve_each_swagger_ui_asset_they_load(shared_client, asset):
    assert f"/docs/assets/{asset}" in shared_client.get("/docs").get_data(as_text=True)
    response = shared_client.get(f"/docs/assets/{asset}")
    assert response.status_code == 200 and len(response.data) > 1000
    response.close()


def test_every_operation_has_a_stable_id_and_declares_its_security():
    spec = yaml.safe_load(CHECKED_IN.read_text(encoding="utf-8"))
    ids = [operation["operationId"] for item in spec["paths"].values() for operation in item.values()
           if isinstance(operation, dict) and "responses" in operation]
    assert len(ids) == len(set(ids)) and all(ids)
    assert {"createGame", "getGame", "moveCards", "drawCards", "getHint", "listRules"} <= set(ids)
    assert spec["paths"]["/v1/games/{game_id}"]["get"]["security"] == []
    assert spec["paths"]["/v1/games/{game_id}/moves"]["post"]["security"] == [{"bearer": []}]
    assert spec["servers"] and spec["info"]["title"].isascii()

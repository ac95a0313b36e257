"""Rules catalog, probes, players."""

from __future__ import annotations

import pytest

from service import i18n
from service.engine import RULES_VERSION
from service.problem_codes import PARAMS, STATUS
from tests.api.helpers import act, problem


def test_rules_lists_every_code_in_five_languages(client):
    response = client.get("/v1/rules")
    assert response.status_code == 200
    body = response.get_json()
    assert body["languages"] == list(i18n.LANGUAGES)
    assert [rule["code"] for rule in body["rules"]] == list(PARAMS)
    for rule in body["rules"]:
        assert rule["status"] == STATUS[rule["code"]]
        assert rule["params"] == list(PARAMS[rule["code"]])
        assert set(rule["messages"]) == set(i18n.LANGUAGES)
    assert list(body["names"]) == list(i18n.LANGUAGES)


def test_rules_in_one_language_and_one_code(client):
    body = client.get("/v1/rules", query_string={"lang": "de"}).get_json()
    assert body["lang"] == "de" and body["languages"] == ["de"]
    assert all(rule["message"] == i18n.catalog("de")[rule["code"]] for rule in body["rules"])
    one = client.get("/v1/rules/TABLEAU_COLOUR", query_string={"lang": "ja"})
    assert one.status_code == 200
    assert one.get_json() == {"code": "TABLEAU_COLOUR", "status": 422, "params": ["card", "onto"],
                              "message": i18n.catalog("ja")["TABLEAU_COLOUR"]}
    assert set(client.get("/v1/rules/GAME_FINISHED").get_json()["messages"]) == set(i18n.LANGUAGES)
    problem(client.get("/v1/rules/NO_SUCH_CODE"), 404, "NOT_FOUND")
    problem(client.get("/v1/rules", query_string={"lang": "fr"}), 400, "INVALID_REQUEST")
    problem(client.get("/v1/rules/GAME_FINISHED", query_string={"lang": "xx"}), 400, "INVALID_REQUEST")


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_rules_names_word_a_rejection_as_the_server_does(client, lang):
    body = client.get("/v1/rules", query_string={"lang": lang}).get_json()
    assert list(body["names"]) == [lang]
    piles, cards = body["names"][lang]["piles"], body["names"][lang]["cards"]
    template = next(rule["message"] for rule in body["rules"] if rule["code"] == "FOUNDATION_SEQUENCE")
    ten_of_hearts = cards["format"].format(rank=cards["ranks"]["T"], suit=cards["suits"]["H"])
    worded = template.format(card=ten_of_hearts, foundation=piles["fH"], needs=cards["names"]["Q"])
    params = {"card": "TH", "foundation": "fH", "needs": "Q"}
    assert worded[:1].upper() + worded[1:] == i18n.message("FOUNDATION_SEQUENCE", params, lang)


def test_probes(client):
    health = client.get("/healthz")
    assert health.status_code == 200 and health.get_json() == {"status": "ok"}
    ready = client.get("/readyz")
    assert ready.status_code == 200 and ready.get_json() == {
        "status": "ok", "database": "ok",
        "checks": {"database": {"status": "ok"}, "redis": {"status": "not_configured"},
                   "solver": {"status": "ok", "slots": 1, "free_slots": 1,
                              "winnable_pool": {"1": 0, "3": 0}}}}


def test_readyz_names_redis_down_as_degraded_and_the_solver_slots(database_url, make_app):
    app = make_app({"DATABASE_URL": database_url, "TESTING": True, "RATELIMIT_ENABLED": False,
                      "REDIS_URL": "redis://127.0.0.1:1/0", "SOLVER_MAX_IN_FLIGHT": 2})
    client = app.test_client()
    created = client.post("/v1/games", json={"code": "TF1-D1N-AAAAAAA"}).get_json()
    client.get(f"/v1/games/{created['id']}/hint", headers={"Authorization": f"Bearer {created['token']}"})
    ready = client.get("/readyz")
    assert ready.status_code == 200
    body = ready.get_json()
    assert body["status"] == "degraded" and body["checks"]["redis"] == {"status": "down"}
    assert body["checks"]["solver"]["slots"] == 2 and body["checks"]["solver"]["free_slots"] == 2


def test_readyz_is_503_when_the_database_is_unreachable(tmp_path):
    from service import create_app

    missing = tmp_path / "no-such-dir" / "x.db"
    app = create_app({"DATABASE_URL": f"sqlite:///{missing}", "TESTING": True, "RATELIMIT_ENABLED": False})
    response = app.test_client().get("/readyz")
    problem(response, 503, "SERVICE_UNAVAILABLE")
    assert response.headers["Retry-After"]
    assert app.test_client().get("/healthz").status_code == 200


def test_players_answer_201_with_location_and_a_token_once(client):
    response = client.post("/v1/players", json={"name": "  Grace  "})
    assert response.status_code == 201
    player = response.get_json()
    assert player["name"] == "Grace"
    assert response.headers["Location"] == f"/v1/players/{player['id']}"
    assert len(player["token"]) >= 32 and player["created_at"].endswith("Z")
    other = client.post("/v1/players", json={"name": "Grace"}).get_json()
    assert other["id"] != player["id"] and other["token"] != player["token"]


def test_rules_language_tags_are_read_like_accept_language(client):
    assert client.get("/v1/rules?lang=").get_json()["languages"] == ["en", "de", "da", "ro", "ja"]
    assert client.get("/v1/rules?lang=EN").get_json()["lang"] == "en"
    assert client.get("/v1/rules?lang=de-CH").get_json()["lang"] == "de"
    assert client.get("/v1/rules?lang=fr").status_code == 400


def test_rules_state_the_rules_version_that_every_game_answer_carries(client):
    assert client.get("/v1/rules").get_json()["rules_version"] == RULES_VERSION == 1
    assert client.get("/v1/rules", query_string={"lang": "ja"}).get_json()["rules_version"] == 1
    created = client.post("/v1/games", json={"code": "TF1-D1N-AAAAAAB"})
    game = created.get_json()
    auth = {"Authorization": f"Bearer {game['token']}"}
    answers = {
        "create": created,
        "read": client.get(f"/v1/games/{game['id']}"),
        "not modified": client.get(f"/v1/games/{game['id']}", headers={"If-None-Match": '"0"'}),
        "action": act(client, game, auth, "draw"),
        "action with a key": client.post(f"/v1/games/{game['id']}/draw",
                                               headers={**auth, "Idempotency-Key": "k1"}),
        "history": client.get(f"/v1/games/{game['id']}/actions"),
        "legal moves": client.get(f"/v1/games/{game['id']}/legal-moves"),
    }
    answers["replay"] = client.post(f"/v1/games/{game['id']}/draw", headers={**auth, "Idempotency-Key": "k1"})
    for name, response in answers.items():
        assert response.status_code in (200, 201, 304), name
        assert response.headers["Rules-Version"] == "1", name
    assert answers["replay"].headers["Idempotent-Replayed"] == "true"
    assert "Rules-Version" not in client.get("/v1/rules").headers
    assert "Rules-Version" not in client.post("/v1/players", json={"name": "Ada"}).headers

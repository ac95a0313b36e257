"""The edge of the app itself: CORS, cache and security headers, proxy hops, tokens in URLs, limits' shares."""

from __future__ import annotations

import base64
import hashlib
import logging
import os
import re
import shutil
import time
import uuid
from pathlib import Path

import pytest
import sqlalchemy as sa

from service import create_app
from service.extensions import db

FRONT = "https://play.example"
REDIS_URL = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/1")


@pytest.fixture
def make_client(sqlite_template, tmp_path):
    """A test client of an app on a copy of the migrated SQLite file, with the given settings."""
    apps = []

    def build(**overrides):
        path = tmp_path / f"edge-{len(apps)}.db"
        shutil.copy(sqlite_template, path)
        config = {"DATABASE_URL": f"sqlite:///{path}", "TESTING": True, "RATELIMIT_ENABLED": False,
                  "RATELIMIT_PROCESSES": 1, **overrides}
        app = create_app(config)
        apps.append(app)
        return app.test_client()

    yield build
    for app in apps:
        with app.app_context():
            db.engine.dispose()


def _count_games(client) -> int:
    with client.application.app_context():
        return db.session.execute(sa.text("SELECT count(*) FROM games")).scalar_one()


def test_preflight_from_an_allowed_origin_allows_the_api_headers(make_client):
    client = make_client(CORS_ORIGINS=[FRONT])
    response = client.options("/v1/games", headers={
        "Origin": FRONT, "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "authorization, content-type, if-match, idempotency-key"})
    assert response.status_code == 200
    assert response.headers["Access-Control-Allow-Origin"] == FRONT
    allowed = {name.strip().lower() for name in response.headers["Access-Control-Allow-Headers"].split(",")}
    assert {"authorization", "content-type", "if-match", "idempotency-key"} <= allowed
    assert "POST" in response.headers["Access-Control-Allow-Methods"]
    assert "Access-Control-Allow-Credentials" not in response.headers
    assert int(response.headers["Access-Control-Max-Age"]) > 0


def test_answers_to_an_allowed_origin_expose_the_headers_a_client_reads(make_client):
    client = make_client(CORS_ORIGINS=[FRONT, "https://other.example"])
    response = client.post("/v1/games", json={}, headers={"Origin": FRONT})
    assert response.status_code == 201
    assert response.headers["Access-Control-Allow-Origin"] == FRONT
    exposed = {name.strip().lower() for name in response.headers["Access-Control-Expose-Headers"].split(",")}
    assert {"etag", "location", "retry-after", "content-language", "idempotent-replayed", "www-authenticate",
            "x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"} <= exposed
    assert "Origin" in response.headers.get("Vary", "")


@pytest.mark.parametrize("origins", [[], [FRONT]])
def test_other_origins_get_no_cors_headers(make_client, origins):
    client = make_client(CORS_ORIGINS=origins)
    evil = "https://evil.example"
    preflight = client.options("/v1/games", headers={"Origin": evil, "Access-Control-Request-Method": "POST"})
    assert "Access-Control-Allow-Origin" not in preflight.headers
    answer = client.get("/v1/rules", headers={"Origin": evil})
    assert "Access-Control-Allow-Origin" not in answer.headers


@pytest.mark.parametrize("query", ["access_token=abc", "token=abc", "Authorization=Bearer%20abc",
                                   "x=bearer%20abc", "api_key=k"])
def test_a_token_in_the_query_string_is_refused_and_changes_nothing(make_client, query):
    client = make_client()
    before = _count_games(client)
    response = client.post(f"/v1/games?{query}", json={})
    assert response.status_code == 400
    assert response.mimetype == "application/problem+json"
    body = response.get_json()
    assert body["code"] == "TOKEN_IN_QUERY"
    assert "abc" not in response.get_data(as_text=True)
    assert _count_games(client) == before
    assert client.get(f"/healthz?{query}").status_code == 400


def test_ordinary_query_parameters_pass(make_client):
    client = make_client()
    assert client.get("/v1/leaderboard?draw=1&limit=5").status_code == 200


def test_answers_with_a_token_or_a_hint_are_never_stored(make_client):
    client = make_client()
    created = client.post("/v1/games", json={"code": "TF1-D1N-AAAAAAB"})
    assert created.headers["Cache-Control"] == "no-store"
    game = created.get_json()
    auth = {"Authorization": f"Bearer {game['token']}"}
    assert client.post("/v1/players", json={"name": "Ann"}).headers["Cache-Control"] == "no-store"
    hint = client.get(f"/v1/games/{game['id']}/hint", headers=auth)
    assert hint.status_code == 200 and hint.headers["Cache-Control"] == "no-store"
    owner_read = client.get(f"/v1/games/{game['id']}", headers=auth)
    assert owner_read.headers["Cache-Control"] == "no-store"
    assert client.post(f"/v1/games/{game['id']}/draw", headers=auth).headers["Cache-Control"] == "no-store"
    assert client.get(f"/v1/games/{game['id']}/hint").headers["Cache-Control"] == "no-store"  # 401
    assert client.get("/healthz").headers["Cache-Control"] == "no-store"
    assert client.get("/v1/games/nope").headers["Cache-Control"] == "no-store"


def test_public_reads_carry_a_short_configurable_cache_control(make_client):
    client = make_client(PUBLIC_CACHE_SECONDS=30, GAME_CACHE_SECONDS=0)
    game = client.post("/v1/games", json={}).get_json()
    read = client.get(f"/v1/games/{game['id']}")
    assert read.headers["ETag"] == '"0"'
    assert read.headers["Cache-Control"] == "public, no-cache"
    again = client.get(f"/v1/games/{game['id']}", headers={"If-None-Match": '"0"'})
    assert again.status_code == 304 and again.headers["Cache-Control"] == "public, no-cache"
    assert client.get("/v1/rules").headers["Cache-Control"] == "public, max-age=30"
    assert client.get("/v1/leaderboard?draw=1").headers["Cache-Control"] == "public, max-age=30"
    # The history carries the game's version too: it is revalidated like the game.
    assert client.get(f"/v1/games/{game['id']}/actions").headers["Cache-Control"] == "public, no-cache"
    client = make_client(GAME_CACHE_SECONDS=2)
    game = client.post("/v1/games", json={}).get_json()
    assert client.get(f"/v1/games/{game['id']}").headers["Cache-Control"] == "public, max-age=2"


def _csp(response) -> dict[str, list[str]]:
    policy = {}
    for part in response.headers["Content-Security-Policy"].split(";"):
        name, *sources = part.split()
        policy[name] = sources
    return policy


def _sha(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


@pytest.mark.parametrize("path", ["/", "/faq", "/examples", "/docs"])
def test_html_pages_carry_a_policy_without_inline_script(make_client, path):
    client = make_client()
    response = client.get(path)
    html = response.get_data(as_text=True)
    response.close()
    assert response.status_code == 200 and response.mimetype == "text/html"
    policy = _csp(response)
    assert policy["frame-ancestors"] == ["'none'"]
    assert policy["object-src"] == ["'none'"]
    assert "'unsafe-inline'" not in policy["script-src"] and "'unsafe-eval'" not in policy["script-src"]
    assert "'unsafe-inline'" not in policy["style-src"]
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert response.headers["Referrer-Policy"] == "no-referrer"
    assert response.headers["X-Frame-Options"] == "DENY"
    # Exactly the page's own inline blocks are allowed, by hash.
    for tag, key in (("script", "script-src"), ("style", "style-src")):
        for attributes, content in re.findall(rf"<{tag}(\s[^>]*)?>(.*?)</{tag}>", html, re.S):
            if "src=" not in attributes:
                assert _sha(content) in policy[key]
        hashes = [source for source in policy[key] if source.startswith("'sha256-")]
        assert len(hashes) == len([a for a, _ in re.findall(rf"<{tag}(\s[^>]*)?>(.*?)</{tag}>", html, re.S)
                                   if "src=" not in a])


def test_json_answers_are_not_sniffed(make_client):
    response = make_client().get("/v1/rules")
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert "Content-Security-Policy" not in response.headers


def test_a_json_304_carries_no_page_headers(make_client):
    """A cache merges a 304's headers into the JSON it keeps: a page's policy must not ride along."""
    client = make_client()
    game = client.post("/v1/games", json={"draw": 1}).get_json()
    for path in (f"/v1/games/{game['id']}", "/v1/leaderboard", "/v1/games/finished"):
        tag = client.get(path).headers["ETag"]
        response = client.get(path, headers={"If-None-Match": tag})
        assert response.status_code == 304, path
        assert response.headers["ETag"] == tag
        assert response.headers["X-Content-Type-Options"] == "nosniff"
        for page_header in ("Content-Security-Policy", "X-Frame-Options", "Cross-Origin-Opener-Policy"):
            assert page_header not in response.headers, (path, page_header)


def _limited_addresses(client, headers_of, count: int) -> list[int]:
    return [client.get("/v1/rules", headers=headers_of(i)).status_code for i in range(count)]


def test_without_trusted_hops_a_forged_forwarded_for_changes_nothing(make_client):
    client = make_client(RATELIMIT_ENABLED=True, RATELIMIT_STORAGE_URI="memory://",
                         RATELIMIT_DEFAULT="3 per minute", PROXY_HOPS=0)
    statuses = _limited_addresses(client, lambda i: {"X-Forwarded-For": f"10.9.0.{i}"}, 5)
    assert statuses == [200, 200, 200, 429, 429]


def test_one_trusted_hop_limits_per_address_the_proxy_saw(make_client):
    client = make_client(RATELIMIT_ENABLED=True, RATELIMIT_STORAGE_URI="memory://",
                         RATELIMIT_DEFAULT="3 per minute", PROXY_HOPS=1)
    # The proxy appends the address it saw; anything the client put before it is ignored.
    forged = _limited_addresses(client, lambda i: {"X-Forwarded-For": f"10.9.0.{i}, 192.0.2.7"}, 5)
    assert forged == [200, 200, 200, 429, 429]
    assert client.get("/v1/rules", headers={"X-Forwarded-For": "192.0.2.8"}).status_code == 200


def test_memory_store_enforces_each_process_its_share(make_client):
    client = make_client(RATELIMIT_ENABLED=True, RATELIMIT_STORAGE_URI="memory://",
                         RATELIMIT_DEFAULT="10 per minute", RATELIMIT_PROCESSES=2)
    statuses = [client.get("/v1/rules").status_code for _ in range(7)]
    assert statuses == [200] * 5 + [429] * 2
    assert client.get("/v1/rules").headers["X-RateLimit-Limit"] == "5"


def _redis_or_skip():
    import redis

    try:
        redis.Redis.from_url(REDIS_URL, socket_connect_timeout=1).ping()
    except redis.RedisError as error:
        if os.environ.get("CI"):
            raise
        pytest.skip(f"Redis unreachable: {error}")


def test_a_shared_store_counts_every_process_against_the_whole_limit(make_client):
    _redis_or_skip()
    settings = {"RATELIMIT_ENABLED": True, "RATELIMIT_STORAGE_URI": REDIS_URL, "RATELIMIT_PROCESSES": 2,
                "RATELIMIT_DEFAULT": "10 per minute", "RATELIMIT_KEY_PREFIX": f"test-{uuid.uuid4().hex}"}
    first, second = make_client(**settings), make_client(**settings)
    statuses = [(first if i % 2 else second).get("/v1/rules").status_code for i in range(12)]
    assert statuses == [200] * 10 + [429] * 2


def test_an_unreachable_shared_store_does_not_stop_the_game(make_client, caplog):
    client = make_client(RATELIMIT_ENABLED=True, RATELIMIT_STORAGE_URI="redis://127.0.0.1:1/1",
                         RATELIMIT_DEFAULT="3 per minute")
    with caplog.at_level(logging.WARNING):
        statuses = [client.get("/v1/rules").status_code for _ in range(5)]
    # The first request, on which the store failed, is not counted again in memory; 3 more pass there.
    assert statuses == [200, 200, 200, 200, 429]


def test_a_failed_store_is_tried_again_after_a_pause_and_counts_in_memory_meanwhile(make_client, monkeypatch,
                                                                                     caplog):
    from limits.storage import MemoryStorage
    from limits.strategies import FixedWindowRateLimiter

    from service.api import rate_limits

    client = make_client(RATELIMIT_ENABLED=True, RATELIMIT_STORAGE_URI="redis://127.0.0.1:1/1",
                         RATELIMIT_DEFAULT="4 per minute", RATELIMIT_PROCESSES=2)
    limits = client.application.extensions["rate_limits"]
    now, tries = [1000.0], []
    store_hit = limits._store.hit
    monkeypatch.setattr(limits, "_clock", lambda: now[0])
    monkeypatch.setattr(limits._store, "hit", lambda *args, **kw: tries.append(now[0]) or store_hit(*args, **kw))
    with caplog.at_level(logging.WARNING, logger="service.api.rate_limits"):
        answers = [client.get("/v1/rules") for _ in range(3)]
    assert len(tries) == 1  # the store failed once; the next requests did not wait for it
    assert [record.getMessage() for record in caplog.records] == [
        "rate-limit store unreachable: counting in memory for 5 s"]
    # Meanwhile this process counts its share in memory (4 / 2 processes) and says so; the request
    # the store failed on is not counted there (counted once: the store may have applied it).
    assert [answer.status_code for answer in answers] == [200, 200, 200]
    assert "X-RateLimit-Limit" not in answers[0].headers and answers[1].headers["X-RateLimit-Limit"] == "2"
    assert client.get("/v1/rules").status_code == 429  # the share is spent
    now[0] += rate_limits.STORE_RETRY_SECONDS + 0.1
    assert client.get("/v1/rules").status_code == 200  # still down: tried again, not counted twice
    assert client.get("/v1/rules").status_code == 429  # then memory again
    assert len(tries) == 2
    # The store is back: after the next pause it counts again, the whole limit.
    back = FixedWindowRateLimiter(MemoryStorage())
    monkeypatch.setattr(limits, "_store", back)
    now[0] += rate_limits.STORE_RETRY_SECONDS + 0.1
    answer = client.get("/v1/rules")
    assert answer.status_code == 200 and answer.headers["X-RateLimit-Limit"] == "4"
    assert answer.headers["X-RateLimit-Remaining"] == "3"


def test_a_request_the_store_applied_but_failed_to_confirm_is_counted_once(make_client, monkeypatch):
    """A timeout after Redis applied the increment: the request is not counted again in memory."""
    from limits.storage import MemoryStorage
    from limits.strategies import FixedWindowRateLimiter

    client = make_client(RATELIMIT_ENABLED=True, RATELIMIT_STORAGE_URI="redis://127.0.0.1:1/1",
                         RATELIMIT_DEFAULT="5 per minute", RATELIMIT_PROCESSES=1)
    limits = client.application.extensions["rate_limits"]
    applied = FixedWindowRateLimiter(MemoryStorage())

    def applied_then_timed_out(item, *identifiers, **kw):
        applied.hit(item, *identifiers, **kw)
        raise TimeoutError("no answer in 250 ms")

    monkeypatch.setattr(limits._store, "hit", applied_then_timed_out)
    assert client.get("/v1/rules").status_code == 200
    counted = [sum(counter.storage.storage.values()) for counter in (applied, limits._memory)]
    assert counted == [1, 0], "counted in the store, not again in memory"


def test_a_refusal_counted_in_redis_says_when_a_retry_succeeds(make_client):
    # Redis rounds a key's TTL to the second: the Retry-After must not fall before the window's end.
    _redis_or_skip()
    client = make_client(RATELIMIT_ENABLED=True, RATELIMIT_STORAGE_URI=REDIS_URL, RATELIMIT_PROCESSES=1,
                         RATELIMIT_DEFAULT="1 per 2 second", RATELIMIT_KEY_PREFIX=f"test-{uuid.uuid4().hex}")
    assert client.get("/v1/rules").status_code == 200
    time.sleep(0.6)
    refused = client.get("/v1/rules")
    assert refused.status_code == 429
    time.sleep(int(refused.headers["Retry-After"]))
    assert client.get("/v1/rules").status_code == 200


def test_database_errors_are_logged_without_their_parameters(make_client):
    client = make_client()
    with client.application.app_context(), pytest.raises(sa.exc.OperationalError) as raised:
        db.session.execute(sa.text("SELECT * FROM no_such_table WHERE token_hash = :h"), {"h": "secret-hash"})
    assert "secret-hash" not in str(raised.value)
    assert "hidden due to hide_parameters" in str(raised.value)


@pytest.mark.parametrize("error_class", [sa.exc.IntegrityError, sa.exc.OperationalError])
def test_a_failed_request_logs_its_database_error_without_values(make_client, caplog, monkeypatch, error_class):
    # Running the migrations in this process (alembic's fileConfig) disables the loggers that existed.
    monkeypatch.setattr(logging.getLogger("service.api.problems"), "disabled", False)
    client = make_client()
    secret = "9f86d081884c7d659a2feaa0c55ad015"

    def boom():
        raise error_class("INSERT INTO players (token_hash) VALUES (%(h)s)", {"h": secret},
                          Exception(f"duplicate key\nDETAIL:  Key (token_hash)=({secret}) already exists."))

    client.application.add_url_rule("/boom", view_func=boom)
    with caplog.at_level(logging.INFO):
        response = client.get("/boom")
    assert response.status_code in (500, 503) and response.mimetype == "application/problem+json"
    assert secret not in response.get_data(as_text=True)
    logged = caplog.text
    assert caplog.records, "the failure is logged"
    assert secret not in logged
    assert "INSERT INTO players (token_hash) VALUES" in logged


def test_every_logger_of_the_service_carries_the_redactor():
    # A logger's filter does not see its children's records: a new module logger must be listed.
    from service import logs

    root = Path(__file__).resolve().parents[2] / "service"
    modules = {".".join(path.relative_to(root.parent).with_suffix("").parts)
               for path in root.rglob("*.py") if "logging.getLogger(__name__)" in path.read_text(encoding="utf-8")}
    assert modules and modules <= set(logs.LOGGERS)


def test_a_migration_run_in_the_process_leaves_the_services_loggers_on(tmp_path):
    # Alembic's env.py configures logging from alembic.ini; by default that disables every
    # logger that already exists, and the service's failures would then go unlogged.
    from service import logs
    from tests.conftest import _upgrade

    loggers = [logging.getLogger(name) for name in logs.LOGGERS]
    _upgrade(f"sqlite:///{tmp_path / 'migrated.db'}")
    assert [logger.name for logger in loggers if logger.disabled] == []

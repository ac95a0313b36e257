"""Abuse: rate limits (429 problem+json with Retry-After), body size (413), constant-time tokens."""

from __future__ import annotations

import hmac
import io
from contextlib import ExitStack

import pytest

from service import create_app
from service.extensions import db
from tests.contract.conformance import conforming

LIMIT_BYTES = 16 * 1024


@pytest.fixture
def limited(database_url):
    """An app with tiny limits: 5 requests per address, 2 actions per token, per minute."""

    def build(**overrides):
        config = {"DATABASE_URL": database_url, "TESTING": True, "RATELIMIT_ENABLED": True,
                  "RATELIMIT_STORAGE_URI": "memory://", "RATELIMIT_DEFAULT": "5 per minute",
                  "RATELIMIT_WRITE": "2 per minute", **overrides}
        app = create_app(config)
        apps.append(app)
        checks.enter_context(conforming(app))  # 429s and rate-limit headers are declared too
        return app.test_client()

    apps = []
    with ExitStack() as checks:
        yield build
        for app in apps:
            with app.app_context():
                db.engine.dispose()


def _game(client, address="10.0.0.1", **body):
    response = client.post("/v1/games", json=body, environ_base={"REMOTE_ADDR": address})
    assert response.status_code == 201, response.get_json()
    body = response.get_json()
    return body, {"Authorization": f"Bearer {body['token']}"}


def _assert_rate_limited(response) -> int:
    assert response.status_code == 429, response.get_data(as_text=True)
    assert response.mimetype == "application/problem+json"
    body = response.get_json()
    assert body["code"] == "RATE_LIMITED" and body["status"] == 429
    retry_after = body["params"]["retry_after"]
    assert isinstance(retry_after, int) and 1 <= retry_after <= 61
    assert response.headers["Retry-After"] == str(retry_after)
    assert response.headers["X-RateLimit-Remaining"] == "0"
    return retry_after


def test_actions_are_limited_per_token(limited):
    client = limited(RATELIMIT_DEFAULT="100 per minute")
    game, auth = _game(client)
    other, other_auth = _game(client)
    for _ in range(2):
        assert client.post(f"/v1/games/{game['id']}/draw", headers=auth).status_code == 200
    _assert_rate_limited(client.post(f"/v1/games/{game['id']}/draw", headers=auth))
    # Every action endpoint shares the token's budget; the refused action changed nothing.
    _assert_rate_limited(client.post(f"/v1/games/{game['id']}/undo", headers=auth))
    assert client.get(f"/v1/games/{game['id']}").get_json()["version"] == 2
    # Another token, from the same address, has its own budget; reads are not actions.
    assert client.post(f"/v1/games/{other['id']}/draw", headers=other_auth).status_code == 200
    assert client.get(f"/v1/games/{game['id']}/actions").status_code == 200


def test_every_request_is_limited_per_address(limited):
    client = limited(RATELIMIT_DEFAULT="3 per minute", RATELIMIT_WRITE="100 per minute")
    game, _ = _game(client, "10.0.0.1")
    for _ in range(2):
        assert client.get(f"/v1/games/{game['id']}", environ_base={"REMOTE_ADDR": "10.0.0.1"}).status_code == 200
    _assert_rate_limited(client.get(f"/v1/games/{game['id']}", environ_base={"REMOTE_ADDR": "10.0.0.1"}))
    _assert_rate_limited(client.get("/v1/rules", environ_base={"REMOTE_ADDR": "10.0.0.1"}))
    assert client.get(f"/v1/games/{game['id']}", environ_base={"REMOTE_ADDR": "10.0.0.2"}).status_code == 200
    for _ in range(5):  # the probes are never limited
        assert client.get("/healthz", environ_base={"REMOTE_ADDR": "10.0.0.1"}).status_code == 200


def test_requests_no_route_matches_are_limited_too(limited):
    """A scanner's 404s and 405s count in its address's window like any request."""
    client = limited(RATELIMIT_DEFAULT="3 per minute")
    scanner = {"REMOTE_ADDR": "10.0.0.7"}
    assert client.get("/wp-login.php", environ_base=scanner).status_code == 404
    assert client.get("/v1/nothing-here", environ_base=scanner).headers["X-RateLimit-Remaining"] == "1"
    assert client.delete("/v1/rules", environ_base=scanner).status_code == 405
    _assert_rate_limited(client.get("/wp-login.php", environ_base=scanner))
    _assert_rate_limited(client.get("/v1/rules", environ_base=scanner))
    assert client.get("/v1/rules", environ_base={"REMOTE_ADDR": "10.0.0.8"}).status_code == 200


def test_requests_refused_before_their_view_are_counted(limited):
    """A token in the query string is refused (400), but after the request has counted."""
    client = limited(RATELIMIT_DEFAULT="3 per minute")
    scanner = {"REMOTE_ADDR": "10.0.0.6"}
    for _ in range(3):
        refused = client.get("/wp-login.php?token=x", environ_base=scanner)
        assert refused.status_code == 400 and refused.get_json()["code"] == "TOKEN_IN_QUERY"
    _assert_rate_limited(client.get("/wp-login.php?token=x", environ_base=scanner))


def test_every_answer_describes_a_limit_even_when_its_views_own_limits_are_exempt(limited):
    client = limited(RATELIMIT_DEFAULT="50 per minute", SOLVER_RATELIMIT="7 per minute")
    # A create that runs no solver is exempt from the solver limit: the address limit is its.
    created = client.post("/v1/games", json={}, environ_base={"REMOTE_ADDR": "10.0.0.9"})
    assert created.status_code == 201
    assert created.headers["X-RateLimit-Limit"] == "50"
    assert created.headers["X-RateLimit-Remaining"] == "49"
    auth = {"Authorization": f"Bearer {created.get_json()['token']}"}
    drawn = client.post(f"/v1/games/{created.get_json()['id']}/draw", headers=auth,
                        environ_base={"REMOTE_ADDR": "10.0.0.9"})
    assert drawn.headers["X-RateLimit-Limit"] == "2"  # an action's own limit, the tightest


def test_every_action_view_counts_the_write_limit_and_every_solver_request_the_solver_limits(limited, monkeypatch):
    client = limited(RATELIMIT_DEFAULT="1000 per minute", RATELIMIT_WRITE="1000 per minute")
    app = client.application
    limits = app.extensions["rate_limits"]
    counted = []
    count = limits.count
    monkeypatch.setattr(limits, "count",
                        lambda name, scope, key, *rest: counted.append(scope) or count(name, scope, key, *rest))

    def scopes(method: str, path: str, **kwargs) -> set:
        counted.clear()
        client.open(path, method=method, **kwargs)
        return set(counted)

    game, auth = _game(client)
    actions = [rule.rule for rule in app.url_map.iter_rules()
               if "POST" in rule.methods and rule.rule.startswith("/v1/games/<")]
    assert len(actions) >= 6  # moves, draw, recycle, undo, take-back, tap
    for rule in actions:  # counted before the body is read: an empty one will do
        assert scopes("POST", rule.replace("<game_id>", game["id"]), headers=auth) == {"address", "write"}, rule
    solver = {"address", "solver-address", "solver-token"}
    assert scopes("GET", f"/v1/games/{game['id']}/hint", headers=auth) == solver
    assert scopes("POST", "/v1/games", json={"winnable": True}) == solver
    assert scopes("POST", "/v1/games", json={}) == {"address"}
    assert scopes("GET", "/v1/leaderboard") == {"address"}
    assert scopes("GET", "/healthz") == set()


def test_a_limit_of_several_windows_describes_the_one_with_fewest_requests_left(limited):
    client = limited(RATELIMIT_DEFAULT="100 per minute;3 per second")
    answers = [client.get("/v1/rules") for _ in range(4)]
    assert [answer.status_code for answer in answers] == [200, 200, 200, 429]
    assert [(answer.headers["X-RateLimit-Limit"], answer.headers["X-RateLimit-Remaining"])
            for answer in answers] == [("3", "2"), ("3", "1"), ("3", "0"), ("3", "0")]


def test_an_empty_limit_is_none_and_a_malformed_one_stops_the_app(limited, database_url):
    client = limited(RATELIMIT_WRITE="")
    game, auth = _game(client)
    for _ in range(3):
        assert client.post(f"/v1/games/{game['id']}/draw", headers=auth).status_code == 200
    with pytest.raises(ValueError, match="RATELIMIT_DEFAULT"):
        create_app({"DATABASE_URL": database_url, "TESTING": True, "RATELIMIT_ENABLED": True,
                    "RATELIMIT_DEFAULT": "many per minute"})


def test_limits_off_when_disabled(limited):
    client = limited(RATELIMIT_ENABLED=False)
    game, auth = _game(client)
    for _ in range(8):
        assert client.post(f"/v1/games/{game['id']}/draw", headers=auth).status_code == 200
    assert "X-RateLimit-Limit" not in client.get(f"/v1/games/{game['id']}").headers


def test_retry_after_is_only_on_refusals(limited):
    client = limited(RATELIMIT_DEFAULT="100 per minute")
    game, auth = _game(client)
    response = client.post(f"/v1/games/{game['id']}/draw", headers=auth)
    assert response.status_code == 200
    assert "Retry-After" not in response.headers
    assert response.headers["X-RateLimit-Limit"] in ("2", "100")


# -- body size -----------------------------------------------------------------


def _assert_too_large(response) -> None:
    assert response.status_code == 413, response.get_data(as_text=True)
    assert response.mimetype == "application/problem+json"
    body = response.get_json()
    assert body["code"] == "PAYLOAD_TOO_LARGE"
    assert body["params"]["limit"] == LIMIT_BYTES


def test_body_over_the_limit_is_413(client):
    game, auth = _game(client)
    padding = "x" * LIMIT_BYTES
    _assert_too_large(client.post(f"/v1/games/{game['id']}/moves", headers=auth,
                                  json={"from": "t1", "to": "t2", "pad": padding}))
    _assert_too_large(client.post("/v1/games", json={"code": padding}))
    _assert_too_large(client.post("/v1/players", json={"name": padding}))
    assert client.get(f"/v1/games/{game['id']}").get_json()["version"] == 0


def test_chunked_body_without_length_is_limited_too(client):
    # gunicorn de-chunks the body and marks the stream terminated (wsgi.input_terminated);
    # werkzeug then caps what it reads at MAX_CONTENT_LENGTH. test_faults.py checks the
    # same through a real gunicorn.
    game, auth = _game(client)
    server = {"wsgi.input_terminated": True}
    big = b'{"from": "t1", "to": "t2", "pad": "' + b"x" * (LIMIT_BYTES + 10) + b'"}'
    response = client.post(f"/v1/games/{game['id']}/moves", input_stream=io.BytesIO(big), environ_base=server,
                           headers={**auth, "Content-Type": "application/json", "Transfer-Encoding": "chunked"})
    _assert_too_large(response)
    # A small chunked body is read normally: the move it names is played (AH to its foundation).
    game, auth = _game(client, code="TF1-D1N-AAAAAAA")
    small = b'{"from": "t7", "to": "foundation"}'
    response = client.post(f"/v1/games/{game['id']}/moves", input_stream=io.BytesIO(small), environ_base=server,
                           headers={**auth, "Content-Type": "application/json", "Transfer-Encoding": "chunked"})
    assert response.status_code == 200, response.get_data(as_text=True)
    played = response.get_json()
    assert (played["version"], played["last"]["cards"], played["last"]["moved_to"]) == (1, ["AH"], "fH")


def test_a_malformed_chunked_body_is_400_and_changes_nothing(client):
    # gunicorn de-chunks as the app reads, and raises its own error for a malformed chunk.
    from gunicorn.http.errors import InvalidChunkSize

    class MalformedChunks(io.BytesIO):
        def read(self, size=-1):
            raise InvalidChunkSize(b"zz")

    game, auth = _game(client)
    response = client.post(f"/v1/games/{game['id']}/draw", input_stream=MalformedChunks(b"zz\r\n"),
                           environ_base={"wsgi.input_terminated": True},
                           headers={**auth, "Content-Type": "application/json", "Transfer-Encoding": "chunked"})
    assert response.status_code == 400, response.get_data(as_text=True)
    assert response.mimetype == "application/problem+json"
    assert response.get_json()["code"] == "INVALID_REQUEST"
    assert client.get(f"/v1/games/{game['id']}").get_json()["version"] == 0


@pytest.mark.parametrize("codings", ["gzip, chunked", "deflate,chunked", "chunked, chunked", "identity", "x-zip"])
def test_a_transfer_coding_other_than_chunked_is_400_and_changes_nothing(client, codings):
    # gunicorn de-chunks the body and passes it on as it came: a gzip body would be parsed as JSON.
    game, auth = _game(client)
    response = client.post(f"/v1/games/{game['id']}/draw", input_stream=io.BytesIO(b"{}"),
                           environ_base={"wsgi.input_terminated": True},
                           headers={**auth, "Content-Type": "application/json", "Transfer-Encoding": codings})
    assert response.status_code == 400, response.get_data(as_text=True)
    assert response.mimetype == "application/problem+json"
    assert response.get_json()["code"] == "INVALID_REQUEST"
    assert "only 'chunked'" in str(response.get_json()["errors"])
    assert client.get(f"/v1/games/{game['id']}").get_json()["version"] == 0
    # The same request with the coding gunicorn decodes is played.
    response = client.post(f"/v1/games/{game['id']}/draw", input_stream=io.BytesIO(b"{}"),
                           environ_base={"wsgi.input_terminated": True},
                           headers={**auth, "Content-Type": "application/json", "Transfer-Encoding": " Chunked"})
    assert response.status_code == 200, response.get_data(as_text=True)


def test_body_just_under_the_limit_is_read(client):
    game, auth = _game(client)
    body = b'{"from": "t1", "to": "t2", "card": "' + b"x" * (LIMIT_BYTES - 60) + b'"}'
    assert len(body) <= LIMIT_BYTES
    response = client.post(f"/v1/games/{game['id']}/moves", data=body, headers=auth,
                           content_type="application/json")
    assert response.status_code == 400  # read and refused as a malformed card, not as too large


# -- tokens ----------------------------------------------------------------------


def test_tokens_are_compared_in_constant_time(client, monkeypatch):
    import service.usecases.tokens as auth_module

    calls = []
    real = hmac.compare_digest

    def recording(a, b):
        calls.append((a, b))
        return real(a, b)

    monkeypatch.setattr(auth_module.hmac, "compare_digest", recording)
    game, auth = _game(client)
    assert client.post(f"/v1/games/{game['id']}/draw", headers=auth).status_code == 200
    assert calls, "the owner's token was not compared with hmac.compare_digest"
    digest = auth_module.hash_token(game["token"])
    assert any(digest in pair for pair in calls)
    calls.clear()
    wrong = {"Authorization": "Bearer " + "x" * 43}
    assert client.post(f"/v1/games/{game['id']}/draw", headers=wrong).status_code == 403
    assert calls, "a wrong token was refused without hmac.compare_digest"
    # Player tokens too.
    player = client.post("/v1/players", json={"name": "Ada"}).get_json()
    calls.clear()
    response = client.post("/v1/games", json={}, headers={"Authorization": f"Bearer {player['token']}"})
    assert response.status_code == 201
    assert any(auth_module.hash_token(player["token"]) in pair for pair in calls)

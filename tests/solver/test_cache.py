"""The solver's answer cache: by position, shared through Redis (database 2) across apps, never an error."""

from __future__ import annotations

import random

import pytest

from service import create_app
from service.engine import Action, Game
from service.extensions import db
from service.solver.cache import LocalCache, RedisCache, cache_for, position_key

REDIS_URL = "redis://127.0.0.1:6379/2"  # the database these tests may use


def _redis_or_skip():
    redis = pytest.importorskip("redis")
    try:
        redis.Redis.from_url(REDIS_URL, socket_connect_timeout=0.5).ping()
    except redis.RedisError:
        pytest.skip("no Redis on 127.0.0.1:6379")


def test_the_key_is_the_position_not_the_game():
    game = Game.from_code("TF1-D1N-AAAAAAA")
    other = Game.from_code("TF1-D1N-AAAAAAA")
    _ = other.apply(Action.draw())
    assert position_key(game.to_state()) != position_key(other.to_state())
    _ = other.apply(Action.undo())
    assert position_key(game.to_state()) == position_key(other.to_state())
    assert position_key(game.to_state(), "a") != position_key(game.to_state(), "b")
    assert position_key(Game.from_code("TF1-D3N-AAAAAAA").to_state()) != position_key(game.to_state())


def test_local_cache_is_bounded():
    cache = LocalCache(size=2)
    for name in "abc":
        cache.put(name, {"v": name})
    assert cache.get("a") is None and cache.get("c") == {"v": "c"}
    assert isinstance(cache_for(None), LocalCache) and isinstance(cache_for("memory://"), LocalCache)


def test_an_unreachable_redis_falls_back_to_the_process():
    cache = RedisCache("redis://127.0.0.1:1/2")  # nothing listens on port 1
    cache.put("k", {"v": 1})
    assert cache.get("k") == {"v": 1}


def test_two_apps_share_answers_through_redis(database_url):
    _redis_or_skip()
    # a node cap of this run's own: keys never meet a previous run's
    config = {"DATABASE_URL": database_url, "TESTING": True, "RATELIMIT_ENABLED": False, "REDIS_URL": REDIS_URL,
              "SOLVER_HINT_BUDGET_MS": 20, "SOLVER_HINT_MAX_NODES": 1_000_000 + random.randrange(10**6)}
    apps = [create_app(config), create_app(config)]
    try:
        first, second = (app.test_client() for app in apps)
        game = first.post("/v1/games", json={"code": "TF1-D1N-AAAAAAA"}).get_json()
        auth = {"Authorization": f"Bearer {game['token']}"}
        answer = first.get(f"/v1/games/{game['id']}/hint", headers=auth).get_json()
        assert answer["cached"] is False
        again = second.get(f"/v1/games/{game['id']}/hint", headers=auth).get_json()
        assert again["cached"] is True and again["action"] == answer["action"] and again["nodes"] == answer["nodes"]
    finally:
        for app in apps:
            with app.app_context():
                db.engine.dispose()
        import redis

        client = redis.Redis.from_url(REDIS_URL)
        for key in client.scan_iter(f"solitaire:solver:*:{config['SOLVER_HINT_MAX_NODES']}:*"):
            client.delete(key)


def test_the_klondike_variant_never_shares_a_position_key_with_ours():
    ours = Game.from_code("TF1-D3N-SFEKBMA")
    klondike = Game.from_code("TF1-D3N-SFEKBMA", "klondike")
    assert position_key(ours.to_state()) != position_key(klondike.to_state())

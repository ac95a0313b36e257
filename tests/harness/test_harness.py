"""The shared harness: ports, app servers, Redis keys (the private PostgreSQL cluster: test_postgres.py)."""

from __future__ import annotations

import socket

import pytest

from harness.ports import free_port, free_ports, port_range
from harness.redis import RedisKeys, reachable
from harness.servers import AppServer, get


def test_free_ports_are_free_and_distinct_within_their_range(monkeypatch):
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    low = taken.getsockname()[1]
    try:
        ports = free_ports(2, (low, low + 50))
        assert low not in ports and len(set(ports)) == 2 and all(low < port <= low + 50 for port in ports)
    finally:
        taken.close()
    monkeypatch.setenv("HARNESS_PORTS", "20000-20001")
    assert port_range() == (20000, 20001)
    monkeypatch.delenv("HARNESS_PORTS")
    assert port_range() is None and free_port() > 0


def test_an_app_server_starts_answers_and_stops(tmp_path):
    server = AppServer({"DATABASE_URL": f"sqlite:///{tmp_path / 's.db'}", "WEB_WORKERS": "1", "WEB_THREADS": "1"},
                       log=tmp_path / "gunicorn.log").start(workers=1)
    try:
        assert get(server.port, "/healthz") == 200 and len(server.workers()) == 1
    finally:
        server.stop()
    assert server.process.poll() is not None and server.workers() == []


def test_redis_keys_clean_their_own_and_nobody_elses():
    unreachable = reachable()
    if unreachable:
        pytest.skip(unreachable)
    import redis

    client = redis.Redis.from_url(RedisKeys("x").url)
    with RedisKeys("harness-test") as mine:
        other = RedisKeys("harness-test")
        client.set(f"LIMITER/{mine.prefix}/a", 1)
        client.set(f"LIMITER/{other.prefix}/a", 1)
        assert mine.clean() == 1
        assert client.exists(f"LIMITER/{other.prefix}/a") and not client.exists(f"LIMITER/{mine.prefix}/a")
        other.clean()
    client.close()

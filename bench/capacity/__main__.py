"""Where the CPU goes per action: the app, PostgreSQL, Redis; and what one lock per game costs.

Starts the service under ``gunicorn.conf.py`` on a scratch PostgreSQL database with its
rate limits counted in Redis (``--redis``, database 1 by default, a key prefix of its
own), drives it with ``bench/drivers/api_load.py`` and reads, around each run, the CPU time of
the gunicorn processes and of this database's PostgreSQL backends (``/proc``), Redis's
own CPU counters (``INFO cpu``; the whole server: an upper bound of our share). Prints
actions per CPU-second of each part, i.e. the actions/s one core of it sustains, and
the ratio of 8 clients on one game (one lock, serialized) to 8 clients on 8 games::

    python bench/capacity --rounds 3 --duration 6

Ratios and per-CPU-second figures, not absolute req/s: the load generator shares the
machine. Always exits 0: a report, not a test.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bench.drivers import api_load  # noqa: E402
from harness.postgres import POSTGRES_URL, reachable, scratch_database  # noqa: E402
from harness.redis import RedisKeys  # noqa: E402
from harness.servers import AppServer, cpu_seconds, migrate  # noqa: E402


def _children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found += [int(x) for x in (task / "children").read_text().split()]
        except OSError:
            continue
    return found


def app_cpu(master: int) -> float:
    return cpu_seconds(master) + sum(cpu_seconds(child) for child in _children(master))


class Probe:
    """CPU seconds of the app, of the database's backends and of Redis."""

    def __init__(self, master: int, url: str, redis_url: str) -> None:
        import redis
        import sqlalchemy as sa

        self.master = master
        self.name = url.rsplit("/", 1)[1]
        self.admin = sa.create_engine(POSTGRES_URL, isolation_level="AUTOCOMMIT")
        self.redis = redis.Redis.from_url(redis_url)
        self.sa = sa

    def read(self) -> dict:
        with self.admin.connect() as connection:
            backends = connection.execute(self.sa.text(
                "SELECT pid FROM pg_stat_activity WHERE datname = :n"), {"n": self.name}).scalars().all()
        cpu = self.redis.info("cpu")
        return {"app": app_cpu(self.master), "backends": {pid: cpu_seconds(pid) for pid in backends},
                "redis": cpu["used_cpu_sys"] + cpu["used_cpu_user"]}

    @staticmethod
    def delta(before: dict, after: dict) -> dict:
        database = sum(cpu - before["backends"].get(pid, 0.0) for pid, cpu in after["backends"].items())
        return {"app": after["app"] - before["app"], "database": database,
                "redis": after["redis"] - before["redis"]}


def measure(port: int, games: list[dict], probe: Probe, args) -> dict:
    before = probe.read()
    result = api_load.run(port, games, args.clients, duration=args.duration, reconnect=args.reconnect)
    spent = Probe.delta(before, probe.read())
    return {"rate": result.rate, "answers": result.answers, "requests": sum(result.statuses.values()),
            "p50": result.percentile(50),
            "p99": result.percentile(99), **spent}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--duration", type=float, default=6.0)
    parser.add_argument("--reconnect", type=int, default=50)
    parser.add_argument("--redis", default=os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/1"))
    args = parser.parse_args()
    unreachable = reachable()
    if unreachable:
        print(f"{unreachable}: nothing to measure")
        return
    with scratch_database("bench_capacity") as url, RedisKeys("bench-capacity", args.redis) as keys:
        migrate(url)
        server = AppServer({"DATABASE_URL": url, "RATELIMIT_STORAGE_URI": args.redis,
                            "RATELIMIT_KEY_PREFIX": keys.prefix, "RATELIMIT_DEFAULT": "1000000 per minute",
                            "RATELIMIT_WRITE": "1000000 per minute", "ACCESS_LOG": ""}).start()
        port = server.port
        try:
            probe = Probe(server.process.pid, url, args.redis)
            spread = api_load.create_games(port, args.clients)
            single = api_load.create_games(port, 1)
            api_load.run(port, spread, args.clients, duration=1.0)
            runs: dict[str, list[dict]] = {"8 games": [], "1 game": []}
            for number in range(args.rounds):
                order = [("8 games", spread), ("1 game", single)]
                for label, games in order if number % 2 else order[::-1]:
                    run = measure(port, games, probe, args)
                    runs[label].append(run)
                    print(f"  round {number + 1} {label:8}: {run['rate']:6.0f} actions/s, app {run['app']:.2f} "
                          f"CPU-s, PostgreSQL {run['database']:.2f} CPU-s, Redis {run['redis']:.2f} CPU-s, "
                          f"p50 {run['p50']:.1f} ms, p99 {run['p99']:.1f} ms", flush=True)
            probe.admin.dispose()
        finally:
            server.stop()
    print()
    spread_runs = runs["8 games"]
    answers = sum(r["answers"] for r in spread_runs)
    per = {part: answers / max(1e-9, sum(r[part] for r in spread_runs)) for part in ("app", "database", "redis")}
    print(f"8 clients on 8 games, PostgreSQL, rate limits in Redis, {args.rounds} rounds of {args.duration:.0f} s:")
    print(f"  actions per app CPU-second (gunicorn master + workers): {per['app']:7.0f}")
    print(f"  actions per PostgreSQL CPU-second (this database's backends): {per['database']:7.0f}")
    print(f"  actions per Redis CPU-second (whole server): {per['redis']:7.0f}")
    ratio = statistics.median(one["rate"] / eight["rate"] for one, eight in zip(runs["1 game"], spread_runs,
                                                                                 strict=True))
    print(f"  8 clients on one game / on 8 games (one lock per game): {ratio:.2f}")


if __name__ == "__main__":
    main()

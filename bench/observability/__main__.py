"""What seeing inside costs: actions per second through the stack with metrics, JSON logs and request ids on
against all of them off, alternating rounds; then the scrape time of one instance of 4 workers after 100,000
requests.

Two stacks (nginx + one gunicorn instance each, PostgreSQL, Redis) run side by side, one as
deployed (``observability=True``), one with ``METRICS_ENABLED=0``, ``REQUEST_IDS=0`` and text
logs; rounds alternate between them so that the machine's drift hits both. Targets
(bench/README.md): on / off ≥ 0.95; a scrape ≤ 50 ms::

    python bench/observability [--rounds 6] [--seconds 5] [--requests 100000]
"""

from __future__ import annotations

import argparse
import http.client
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench" / "drivers"))

import api_load  # noqa: E402

from harness.nginx import stack  # noqa: E402
from harness.ports import free_port  # noqa: E402
from harness.postgres import scratch_database  # noqa: E402
from harness.redis import REDIS_URL, RedisKeys  # noqa: E402
from harness.servers import AppServer, migrate  # noqa: E402

RATES = {"rate": 100_000, "burst": 100_000, "write_rate": 100_000, "write_burst": 100_000,
         "create_rate": 1_000_000, "create_burst": 100_000}


def _stack(url: str, run_dir: Path, observed: bool, prefix: str) -> stack.StackSettings:
    port = free_port()
    settings = stack.StackSettings(port=port, app_ports=[free_port()], run_dir=run_dir, database_url=url,
                                   redis_url=REDIS_URL, workers=2, threads=4, observability=observed,
                                   environment={"RATELIMIT_KEY_PREFIX": prefix,
                                                "RATELIMIT_DEFAULT": "10000000 per minute",
                                                "RATELIMIT_WRITE": "10000000 per minute",
                                                "WINNABLE_POOL_REFILL": "0"}, **RATES)
    stack.up(settings)
    return settings


def actions_per_second(rounds: int, seconds: float) -> tuple[float, list[float], list[float]]:
    with scratch_database("bench_observed") as url, RedisKeys("bench-observed") as keys, \
            tempfile.TemporaryDirectory() as on_dir, tempfile.TemporaryDirectory() as off_dir:
        stacks = {}
        try:
            stacks["on"] = _stack(url, Path(on_dir), True, keys.prefix + ":on")
            stacks["off"] = _stack(url, Path(off_dir), False, keys.prefix + ":off")
            games = {name: api_load.create_games(settings.port, 4) for name, settings in stacks.items()}
            rates = {"on": [], "off": []}
            for number in range(rounds):
                for name in (("on", "off") if number % 2 == 0 else ("off", "on")):
                    result = api_load.run(stacks[name].port, games[name], clients=4, duration=seconds)
                    rates[name].append(result.answers / result.seconds)
                    print(f"  round {number + 1} {name:>3}: {rates[name][-1]:7.0f} actions/s "
                          f"(errors {result.errors})", flush=True)
        finally:
            for settings in stacks.values():
                stack.down(settings.run_dir)
    ratio = statistics.median(on / off for on, off in zip(rates["on"], rates["off"], strict=True))
    return ratio, rates["on"], rates["off"]


def scrape_time(total: int) -> tuple[float, float, int]:
    """Median and worst of 20 scrapes of one gunicorn with 4 workers after ``total`` requests; the lines."""
    with tempfile.TemporaryDirectory() as directory:
        url = f"sqlite:///{directory}/scrape.db"
        migrate(url)
        metrics_dir = Path(directory) / "metrics"
        server = AppServer({"DATABASE_URL": url, "WEB_WORKERS": "4", "WEB_THREADS": "2", "RATELIMIT_ENABLED": "0",
                            "PROMETHEUS_MULTIPROC_DIR": str(metrics_dir)})
        server.start(workers=4)
        try:
            paths = ["/healthz", "/v1/rules/NOT_FOUND", "/v1/games/nope", "/nowhere", "/v1/rules/STOCK_EMPTY"]
            left = [total]
            lock = threading.Lock()

            def client() -> None:
                conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
                sent = 0
                while True:
                    with lock:
                        if left[0] <= 0:
                            break
                        left[0] -= 1
                    conn.request("GET", paths[sent % len(paths)])
                    conn.getresponse().read()
                    sent += 1
                    if sent % 200 == 0:  # spread over the workers
                        conn.close()
                        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
                conn.close()

            threads = [threading.Thread(target=client) for _ in range(6)]
            began = time.perf_counter()
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            print(f"  {total:,} requests in {time.perf_counter() - began:.0f} s", flush=True)
            timings, lines = [], 0
            for _ in range(20):
                conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
                started = time.perf_counter()
                conn.request("GET", "/metrics")
                body = conn.getresponse().read()
                timings.append(time.perf_counter() - started)
                conn.close()
                lines = body.count(b"\n")
        finally:
            server.stop()
    return statistics.median(timings), max(timings), lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--requests", type=int, default=100_000)
    args = parser.parse_args()
    print("actions/s through nginx, observability on vs off (alternating rounds):", flush=True)
    ratio, on, off = actions_per_second(args.rounds, args.seconds)
    print(f"on {statistics.median(on):.0f} / off {statistics.median(off):.0f} actions/s: "
          f"median ratio of rounds {ratio:.3f} (target >= 0.95)", flush=True)
    print(f"a scrape of 4 workers after {args.requests:,} requests:", flush=True)
    median, worst, lines = scrape_time(args.requests)
    print(f"scrape: median {median * 1000:.1f} ms, worst {worst * 1000:.1f} ms, {lines} lines "
          f"(target <= 50 ms)")


if __name__ == "__main__":
    main()

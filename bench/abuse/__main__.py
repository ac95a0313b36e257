"""One address floods the solver; what does it cost the machine, and a bystander on another address?

Starts the service under gunicorn (``gunicorn.conf.py``: 2 workers x 4 threads) on a
scratch database with its default limits, fills the winnable-deal pool, then runs,
for ``--seconds`` each, with ``--loops`` concurrent client loops from one address that
never back off (an attacker ignores ``Retry-After``):

* ``hint``: hints on a hard deal (``TF1-D1N-KVKIMQT``) over and over;
* ``winnable``: ``POST /v1/games {"winnable": true}`` over and over;
* ``draw-undo-hint``: draw, undo, hint on that deal (a position already seen);

each from its own address (127.0.0.11-13), while a bystander on 127.0.0.2 reads
``GET /v1/games/{id}`` every 20 ms. Before the floods the bystander runs alone: its
idle p99 and the server's idle CPU. Prints, per flood, the server's CPU-seconds per
minute beyond idle (all gunicorn processes, from /proc) as a share of one core, the
searches' part of it, the answers by status and code, and the bystander's p99
against its idle p99. Targets: the flood <= 10 % of one core; p99 <= 3 x idle.

Two modes, run one after the other and printed side by side at the end:

* ``direct``: one gunicorn (``make serve``), the app's own limits only, on each of
  ``--databases``;
* ``stack``: the production shape (``deploy/stack.py``: nginx in front of two gunicorn
  masters, limits and solver cache in Redis ``--stack-redis``) on a scratch PostgreSQL
  database. The CPU counted is every process of the stack (nginx master and workers,
  both gunicorn masters and their workers; not PostgreSQL or Redis), split into
  nginx's and the apps' parts. nginx sees each loopback source address as a client::

    python bench/abuse                           # direct on SQLite, then the stack; 30 s per flood
    python bench/abuse --databases postgresql --seconds 15
    python bench/abuse --modes direct --redis redis://127.0.0.1:6379/2   # the solver cache in Redis

Ports: ``--port`` (18107) for direct, ``--stack-port`` (18110) and the next two for the
stack. Always exits 0: a report, not a test.
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from harness.nginx import stack  # noqa: E402
from harness.postgres import reachable, scratch_database, scratch_url  # noqa: E402
from harness.redis import RedisKeys  # noqa: E402
from harness.servers import AppServer, children, cpu_seconds  # noqa: E402

HARD = "TF1-D1N-KVKIMQT"  # the complete search hits the 1.2 M-position cap on it
ATTACKERS = {"hint": "127.0.0.11", "winnable": "127.0.0.12", "draw-undo-hint": "127.0.0.13"}


class Client:
    """One keep-alive connection from a given loopback address."""

    def __init__(self, port: int, source: str) -> None:
        self.port, self.source = port, source
        self.conn = None

    def request(self, method: str, path: str, body: dict | None = None, headers: dict | None = None):
        for attempt in range(2):
            if self.conn is None:
                self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30,
                                                       source_address=(self.source, 0))
            try:
                data = json.dumps(body).encode() if body is not None else None
                self.conn.request(method, path, body=data, headers={
                    **({"Content-Type": "application/json"} if data else {}), **(headers or {})})
                response = self.conn.getresponse()
                payload = response.read()
                if response.getheader("Connection", "").lower() == "close":
                    self.close()
                return response.status, payload
            except (OSError, http.client.HTTPException):
                self.close()
                if attempt:
                    raise
        raise AssertionError("unreachable")

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None


def server_cpu(master: int) -> float:
    """CPU seconds used so far by a master process (gunicorn, nginx) and its children."""
    return sum(cpu_seconds(pid) for pid in [master, *children(master)])


def stack_cpu(run_dir: Path) -> dict[str, float]:
    """CPU seconds used so far by the stack's nginx and its app instances (masters and workers)."""
    used = {"nginx": 0.0, "apps": 0.0}
    for name, pid in stack._pids(run_dir):
        used["nginx" if name == "nginx.pid" else "apps"] += server_cpu(pid)
    return used


def new_game(client: Client, body: dict) -> tuple[str, dict]:
    status, payload = client.request("POST", "/v1/games", body)
    assert status == 201, payload
    game = json.loads(payload)
    return game["id"], {"Authorization": f"Bearer {game['token']}"}


def bystander(port: int, game: str, stop_at: float, latencies: list[float]) -> None:
    client = Client(port, "127.0.0.2")
    while time.monotonic() < stop_at:
        start = time.perf_counter()
        status, _ = client.request("GET", f"/v1/games/{game}")
        latencies.append(time.perf_counter() - start)
        assert status == 200, status
        time.sleep(max(0.0, 0.02 - (time.perf_counter() - start)))
    client.close()


def _count(statuses: Counter, answer: tuple[int, bytes]) -> int:
    status, payload = answer
    statuses[f"{status} {json.loads(payload)['code']}" if status >= 400 else str(status)] += 1
    return status


def flood(kind: str, port: int, stop_at: float, statuses: Counter, solver_ms: list, source: str) -> None:
    client = Client(port, source)
    game, auth = None, None
    while time.monotonic() < stop_at:
        if game is None:
            status, payload = client.request("POST", "/v1/games", {"code": HARD})
            if _count(statuses, (status, payload)) != 201:
                continue
            body = json.loads(payload)
            game, auth = body["id"], {"Authorization": f"Bearer {body['token']}"}
        if kind == "winnable":
            _count(statuses, client.request("POST", "/v1/games", {"winnable": True}))
            continue
        if kind == "draw-undo-hint":
            for path in ("draw", "undo"):
                _count(statuses, client.request("POST", f"/v1/games/{game}/{path}", headers=auth))
        status, payload = client.request("GET", f"/v1/games/{game}/hint", headers=auth)
        _count(statuses, (status, payload))
        if status == 200 and not json.loads(payload)["cached"]:
            solver_ms.append(json.loads(payload)["ms"])
    client.close()


def flood_process(kind: str, port: int, stop_at: float, loops: int, out) -> None:
    """The attacker: ``loops`` threads in a process of their own (the bystander keeps its GIL).

    Each flood comes from an address of its own, so one flood's used-up limits never
    make the next one look cheap.
    """
    statuses: Counter = Counter()
    solver_ms: list[float] = []
    source = ATTACKERS[kind]
    threads = [threading.Thread(target=flood, args=(kind, port, stop_at, statuses, solver_ms, source))
               for _ in range(loops)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    out.put((dict(statuses), sum(solver_ms)))


def phase(kind: str | None, port: int, cpu, watched: str, seconds: float, loops: int) -> dict:
    """One flood (or none: idle) with the bystander; ``cpu()`` gives CPU seconds by part."""
    latencies: list[float] = []
    stop_at = time.monotonic() + seconds
    cpu0, wall0 = cpu(), time.monotonic()
    out = multiprocessing.Queue()
    attacker = None
    if kind:
        attacker = multiprocessing.Process(target=flood_process, args=(kind, port, stop_at, loops, out))
        attacker.start()
    bystander(port, watched, stop_at, latencies)
    statuses, solver_ms = out.get() if attacker else ({}, 0.0)
    if attacker:
        attacker.join()
    wall = time.monotonic() - wall0
    ordered = sorted(latencies)
    cpu1 = cpu()
    parts = {part: (cpu1[part] - cpu0[part]) / wall * 60 for part in cpu1}
    return {"cpu_per_min": sum(parts.values()), "parts": parts, "statuses": dict(sorted(statuses.items())),
            "solver_per_min": solver_ms / 1000 / wall * 60,
            "p50": statistics.median(ordered) * 1000, "p99": ordered[int(0.99 * (len(ordered) - 1))] * 1000}


def fill_pool(env: dict, target: int) -> None:
    flask = [sys.executable, "-m", "flask", "--app", "service"]
    subprocess.run([*flask, "db", "upgrade"], cwd=ROOT, env=env, check=True, capture_output=True)
    subprocess.run([*flask, "pool", "fill", "--draw", "1", "--target", str(target)], cwd=ROOT, env=env,
                   check=True, capture_output=True)


def floods(label: str, port: int, cpu, args) -> dict[str, dict]:
    """The idle phase, then each flood, against the server on ``port``; prints and returns each flood's figures."""
    watched, _ = new_game(Client(port, "127.0.0.2"), {})
    idle = phase(None, port, cpu, watched, args.idle_seconds, 0)
    print(f"{label}: idle bystander p50 {idle['p50']:.1f} ms, p99 {idle['p99']:.1f} ms; "
          f"server {idle['cpu_per_min']:.2f} CPU-s/min", flush=True)
    results = {}
    for kind in args.floods.split(","):
        result = phase(kind, port, cpu, watched, args.seconds, args.loops)
        burned = max(0.0, result["cpu_per_min"] - idle["cpu_per_min"])
        share, ratio = burned / 60, result["p99"] / idle["p99"]
        split = ", ".join(f"{part} {max(0.0, used - idle['parts'][part]) / 60:.1%}"
                          for part, used in result["parts"].items()) if len(result["parts"]) > 1 else ""
        verdict = "ok" if share <= 0.10 and ratio <= 3 else "ABOVE TARGET"
        print(f"{label} {kind:15} flood {burned:5.1f} CPU-s/min = {share:6.1%} of one core "
              f"{f'({split}) ' if split else ''}(target <= 10 %), of which searches "
              f"{result['solver_per_min']:4.1f}; bystander p99 {result['p99']:6.1f} ms = {ratio:4.2f} x idle "
              f"(target <= 3); answers {result['statuses']}: {verdict}", flush=True)
        results[kind] = {"share": share, "ratio": ratio, "verdict": verdict}
    return results


def run_direct(kind_db: str, args) -> dict[str, dict]:
    """The app alone under gunicorn (``make serve``): only its own limits stand."""
    with scratch_url(kind_db, "bench_abuse") as url:
        env = {"DATABASE_URL": url, "ACCESS_LOG": "", **({"REDIS_URL": args.redis} if args.redis else {})}
        fill_pool({**os.environ, **env}, args.pool)
        with AppServer(env, port=args.port) as server:
            return floods(f"direct {kind_db}", server.port, lambda: {"server": server_cpu(server.process.pid)}, args)


def run_stack(args) -> dict[str, dict]:
    """nginx in front of two gunicorn masters (deploy/stack.py), with its rate limits, on PostgreSQL."""
    with scratch_database("bench_abuse") as url, tempfile.TemporaryDirectory(prefix="bench-abuse-") as run_dir, \
            RedisKeys("bench-abuse", args.stack_redis) as keys:
        settings = stack.StackSettings(
            port=args.stack_port, run_dir=Path(run_dir), database_url=url, redis_url=args.stack_redis,
            environment={"RATELIMIT_KEY_PREFIX": keys.prefix})
        fill_pool({**os.environ, **settings.environment, "DATABASE_URL": settings.database_url}, args.pool)
        stack.up(settings)
        try:
            return floods("stack postgresql", settings.port, lambda: stack_cpu(settings.run_dir), args)
        finally:
            stack.down(settings.run_dir)


def print_side_by_side(results: dict[str, dict[str, dict]]) -> None:
    """One row per flood, one column per mode: share of one core, p99 over idle."""
    if len(results) < 2:
        return
    modes = list(results)
    width = max(24, *(len(mode) + 2 for mode in modes))
    print("\nflood burn (% of one core) / bystander p99 (x idle); targets <= 10 %, <= 3 x")
    print(f"{'flood':16}" + "".join(f"{mode:>{width}}" for mode in modes))
    for kind in results[modes[0]]:
        cells = []
        for mode in modes:
            figures = results[mode].get(kind)
            cells.append(f"{figures['share']:6.1%} / {figures['ratio']:5.2f} x" if figures else "-")
        print(f"{kind:16}" + "".join(f"{cell:>{width}}" for cell in cells))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--databases", default="sqlite")
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--idle-seconds", type=float, default=10.0)
    parser.add_argument("--loops", type=int, default=8)
    parser.add_argument("--floods", default="hint,winnable,draw-undo-hint")
    # At WINNABLE_POOL_TARGET: a pool filled only to WINNABLE_POOL_LOW starts a refill at the first
    # deal taken, which would bill the pool's own start-up fill to the flood.
    parser.add_argument("--pool", type=int, default=200, help="winnable draw-1 deals put in the pool first")
    parser.add_argument("--redis", default=None, help="direct mode: REDIS_URL for the solver cache (database 2)")
    parser.add_argument("--modes", default="direct,stack", help="direct (gunicorn alone), stack (nginx + 2 apps)")
    parser.add_argument("--port", type=int, default=None, help="direct mode's gunicorn (default: a free port)")
    parser.add_argument("--stack-port", type=int, default=18110, help="the stack's nginx; its apps on the next two")
    parser.add_argument("--stack-redis", default="redis://127.0.0.1:6379/7",
                        help="the stack's limits and solver cache (a key prefix of its own)")
    args = parser.parse_args()
    modes = {mode.strip() for mode in args.modes.split(",")}
    results: dict[str, dict] = {}
    if "direct" in modes:
        for kind in (name.strip() for name in args.databases.split(",")):
            if kind == "postgresql" and reachable() is not None:
                print("postgresql: unreachable, skipped")
                continue
            results[f"direct {kind}"] = run_direct(kind, args)
    if "stack" in modes:
        try:
            stack.nginx_binary()
        except RuntimeError as error:
            print(f"stack: {error}, skipped")
        else:
            if reachable() is None:
                results["stack postgresql"] = run_stack(args)
            else:
                print("stack: postgresql unreachable, skipped")
    print_side_by_side(results)


if __name__ == "__main__":
    main()

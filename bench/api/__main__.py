"""The service against two floors, under the same gunicorn, on SQLite and PostgreSQL.

Starts, with the same ``gunicorn.conf.py`` on free ports, each on its own scratch
database:

* ``service``: the service;
* ``raw``: ``bench/floors/raw_floor.py``, a plain WSGI callable on sqlite3 / psycopg 3 doing
  the service's database work per action (token check, locked row, same UPDATE and
  INSERT, commit, an answer of the same size) and nothing else; the target floor;
* ``raw-bis``: the same raw floor again, on a database of its own: raw-bis/raw shows
  the bench's own noise;
* ``flask``: ``bench/floors/flask_sqlalchemy_floor.py``, the same work on Flask + SQLAlchemy (the old floor).

It drives them in alternating rounds with ``bench/drivers/api_load.py`` (8 keep-alive clients
on 8 games): actions (draw/recycle), then reads (``GET /v1/games/{id}`` of each, and
the service's ``/legal-moves`` against the raw floor's GET). Prints req/s and latency
of each and, per pair of rounds, the ratios that matter, as median (min-max).
Targets: service/raw >= 0.6 on SQLite, >= 0.8 on PostgreSQL; service p99 <= 3 x p50::

    python bench/api                 # both databases, 5 rounds of 5 s each
    python bench/api --quick         # 2 rounds of 3 s
    python bench/api --databases sqlite --rounds 7 --workloads actions
    python bench/api --proxy         # the service through nginx against direct (deploy/)
    python bench/api --versus ../before   # and the service of another checkout: a change's effect
    python bench/api --flask-floor        # and the raw floor behind a bare Flask app: Flask's own cost

``--proxy`` measures the front proxy's cost instead: one gunicorn running the service,
nginx (deploy/nginx.conf.template) in front of it, the same games driven through nginx
and directly in alternating rounds (target: through nginx >= 0.85 x direct).
``BENCH_PORTS=18080-18099`` keeps every server on ports of that range;
``BENCH_DATABASE_PREFIX=me_`` starts the scratch databases' names with ``me_``.

Rate limits are off, as the floors have none; ``--rate-limits`` turns them on, out of
reach (1,000,000 a minute), to measure their cost too (the proxy bench always does).
Needs PostgreSQL on 127.0.0.1:5432 (trust auth) for the PostgreSQL half; without
it that half is skipped. Always exits 0: a report, not a test.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bench.drivers import api_load  # noqa: E402
from harness.nginx import Proxy  # noqa: E402
from harness.ports import free_port, port_range  # noqa: E402
from harness.postgres import POSTGRES_URL, reachable, scratch_database, scratch_url  # noqa: E402
from harness.servers import AppServer, migrate  # noqa: E402

FLOORS = str(ROOT / "bench" / "floors")

#: Put before every scratch database's name: engineers sharing one server keep apart by it.
DATABASE_PREFIX = os.environ.get("BENCH_DATABASE_PREFIX", "")
POSTGRES_ADMIN = os.environ.get("BENCH_POSTGRES_URL", POSTGRES_URL)
APPS = {
    "service": ["service:create_app()"],
    "raw": ["--pythonpath", FLOORS, "raw_floor:create_app()"],
    "raw-bis": ["--pythonpath", FLOORS, "raw_floor:create_app()"],
    "flask": ["--pythonpath", FLOORS, "flask_sqlalchemy_floor:create_app()"],
}
#: Where an app other than from this checkout is served from (``--versus``).
CHECKOUTS: dict[str, Path] = {}
#: Ratios printed for each workload: (name, top side, bottom side).
RATIOS = {
    "actions": [("service/raw", "service", "raw"), ("service/flask", "service", "flask"),
                ("raw-bis/raw (noise)", "raw-bis", "raw")],
    "reads": [("service GET/raw GET", "service", "raw"), ("legal-moves/raw GET", "legal-moves", "raw"),
              ("raw-bis/raw (noise)", "raw-bis", "raw")],
}
#: What each side of the reads workload GETs: (app, path under the game).
READS = {"service": ("service", ""), "legal-moves": ("service", "/legal-moves"), "raw": ("raw", ""),
         "raw-bis": ("raw-bis", "")}


def bench_port() -> int:
    """A free port of 127.0.0.1: any, or one of ``BENCH_PORTS`` (e.g. 18080-18099)."""
    return free_port(port_range("BENCH_PORTS"))


def start(app: str, url: str, port: int, rate_limits: bool = True) -> AppServer:
    """gunicorn serving ``app`` on ``url``; ``rate_limits``: on with limits out of reach, else off."""
    env = {"DATABASE_URL": url, "RATELIMIT_DEFAULT": "1000000 per minute", "RATELIMIT_WRITE": "1000000 per minute",
           "RATELIMIT_ENABLED": "1" if rate_limits else "0", "ACCESS_LOG": ""}
    *options, target = APPS[app]
    service = app in ("service", "versus")
    return AppServer(env, port=port, app=target, options=tuple(options), cwd=CHECKOUTS.get(app, ROOT),
                     ready_path="/healthz" if service else "/v1/games/none",
                     ready_status=200 if service else None).start()


@contextlib.contextmanager
def scratch_databases(kind: str):
    """An empty database per app, migrated by migrate_all(); removed afterwards."""
    with contextlib.ExitStack() as stack:
        if kind == "postgresql":  # on BENCH_POSTGRES_URL's server
            yield {app: stack.enter_context(scratch_database(f"{DATABASE_PREFIX}bench_{app.replace('-', '_')}",
                                                             POSTGRES_ADMIN)) for app in APPS}
        else:
            yield {app: stack.enter_context(scratch_url(kind, app.replace("-", "_"))) for app in APPS}


def migrate_all(urls: dict) -> None:
    """The service's migrations on the service's and the raw floors' databases; the Flask floor's own tables."""
    for app in ("service", "versus", "raw", "raw-bis", "flask-raw"):
        if app in urls:
            migrate(urls[app])
    if "flask" in urls:
        subprocess.run([sys.executable, str(ROOT / "bench" / "floors" / "flask_sqlalchemy_floor.py"), "--init",
                        urls["flask"]], cwd=ROOT, check=True, capture_output=True)


def postgres_reachable() -> bool:
    return reachable(POSTGRES_ADMIN) is None


def answer_shapes(port: int, read_path: str = "") -> dict:
    """Sizes and keys of a new game's answers: created, after a draw, read (the raw floor must match them)."""
    game = api_load.create_games(port, 1)[0]
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    shapes = {}
    try:
        for name, method, path, headers in (
                ("draw", "POST", f"/v1/games/{game['id']}/draw", {"Authorization": f"Bearer {game['token']}"}),
                ("read", "GET", f"/v1/games/{game['id']}{read_path}", {})):
            conn.request(method, path, headers={**headers, "Content-Length": "0"})
            response = conn.getresponse()
            data = response.read()
            # The rate limiter's headers are the service's own layer; the floor has no limiter.
            shapes[name] = (response.status, len(data), list(json.loads(data)),
                            sorted(header for header, _ in response.getheaders()
                                   if header.lower() != "date" and not header.lower().startswith("x-ratelimit")))
    finally:
        conn.close()
    return shapes


def check_raw_floor(ports: dict) -> None:
    """Warn when the raw floor's answers differ in size, keys or headers from the service's."""
    service, raw = answer_shapes(ports["service"]), answer_shapes(ports["raw"])
    for name in service:
        verdict = "same size, keys and headers" if service[name] == raw[name] else \
            f"DIFFERENT: service {service[name]}, raw {raw[name]}"
        print(f"  raw floor's {name} answer: {verdict}", flush=True)


def alternate(sides: dict, args, label: str) -> dict[str, list[api_load.Result]]:
    """``args.rounds`` rounds over ``sides`` (name: a call running one round), in reversed order every other round."""
    rounds: dict[str, list[api_load.Result]] = {side: [] for side in sides}
    for number in range(args.rounds):
        order = list(sides) if number % 2 else list(sides)[::-1]
        for side in order:
            result = sides[side]()
            rounds[side].append(result)
            print(f"  {label:18} round {number + 1} {side:11}: {result.line()}", flush=True)
    return rounds


def bench_database(kind: str, args) -> dict:
    apps = list(APPS) if "actions" in args.workloads else [app for app in APPS if app != "flask"]
    with scratch_databases(kind) as urls:
        urls = {app: urls[app] for app in apps}
        migrate_all(urls)
        ports = {app: bench_port() for app in apps}
        servers: dict[str, AppServer] = {}
        results = {}
        try:
            for app in apps:
                servers[app] = start(app, urls[app], ports[app], rate_limits=args.rate_limits)
            check_raw_floor(ports)
            games = {app: api_load.create_games(ports[app], max(args.games, args.clients)) for app in apps}
            for app in apps:  # warm up: imports, pools, SQLite WAL
                api_load.run(ports[app], games[app], args.clients, duration=1.0)

            def load(app: str, read: str | None = None):
                def one_round() -> api_load.Result:
                    before = servers[app].workers_cpu()
                    result = api_load.run(ports[app], games[app], args.clients, duration=args.duration,
                                          reconnect=args.reconnect, read=read)
                    result.server_cpu = servers[app].workers_cpu() - before
                    return result

                return one_round

            if "actions" in args.workloads:
                rounds = alternate({app: load(app) for app in apps}, args, f"{kind} actions")
                results["actions"] = summarize(rounds, RATIOS["actions"])
            if "reads" in args.workloads:
                rounds = alternate({side: load(app, path) for side, (app, path) in READS.items()}, args,
                                   f"{kind} reads")
                results["reads"] = summarize(rounds, RATIOS["reads"])
        finally:
            for server in servers.values():
                server.stop()
    return results


def summarize(rounds: dict[str, list[api_load.Result]], ratios) -> dict:
    """Median rate and pooled latencies of each side; each ratio's median and range over the round pairs."""
    summary: dict = {"sides": {}, "ratios": {}, "cpu_ratios": {}}
    for side, results in rounds.items():
        merged = api_load.Result(latencies=[x for r in results for x in r.latencies])
        summary["sides"][side] = {
            "rate": statistics.median(r.rate for r in results),
            "p50": merged.percentile(50), "p90": merged.percentile(90), "p99": merged.percentile(99),
            "errors": sum(r.errors for r in results),
            "cpu": statistics.median(r.cpu_per_answer for r in results),
        }
    # Ratio per round pair, then the median: noise between rounds hits both sides alike.
    for name, top, bottom in ratios:
        if top in rounds and bottom in rounds:
            pairs = [t.rate / b.rate for t, b in zip(rounds[top], rounds[bottom], strict=True)]
            summary["ratios"][name] = (statistics.median(pairs), min(pairs), max(pairs))
            # The same ratio in CPU: bottom's CPU per answer over top's (higher is better for top, as above).
            pairs = [b.cpu_per_answer / t.cpu_per_answer for t, b in zip(rounds[top], rounds[bottom], strict=True)
                     if t.server_cpu and b.server_cpu]
            if pairs:
                summary["cpu_ratios"][name] = (statistics.median(pairs), min(pairs), max(pairs))
    return summary


def bench_proxy(kind: str, args) -> dict:
    """The service through nginx and directly, same gunicorn and games, alternating rounds."""
    with scratch_databases(kind) as urls:
        migrate(urls["service"])
        server = start("service", urls["service"], bench_port())
        # Eight clients on one address: the per-address request zones are raised out of reach, as
        # the app's own limits are, so the proxy's cost is measured, not its rate limiting.
        proxy = Proxy([server.port], port=bench_port(), access_log="off", rate=100_000, burst=100_000,
                      write_rate=100_000, write_burst=100_000)
        try:
            proxy.start()
            games = api_load.create_games(server.port, max(args.games, args.clients))
            ports = {"nginx": proxy.port, "direct": server.port}
            for port in ports.values():
                api_load.run(port, games, args.clients, duration=1.0)
            rounds: dict[str, list[api_load.Result]] = {path: [] for path in ports}
            for number in range(args.rounds):
                order = list(ports) if number % 2 else list(ports)[::-1]
                for path in order:
                    result = api_load.run(ports[path], games, args.clients, duration=args.duration,
                                          reconnect=args.reconnect)
                    rounds[path].append(result)
                    print(f"  {kind:10} round {number + 1} {path:7}: {result.line()}", flush=True)
        finally:
            proxy.stop()
            server.stop()
    return summarize(rounds, [("nginx/direct", "nginx", "direct")])


def each_database(args, bench) -> dict:
    """``bench(kind, args)`` for each of ``--databases``; PostgreSQL is skipped when unreachable."""
    results = {}
    for kind in (name.strip() for name in args.databases.split(",")):
        if kind == "postgresql" and not postgres_reachable():
            print("postgresql: unreachable, skipped")
            continue
        results[kind] = bench(kind, args)
    return results


def print_table(results: dict) -> None:
    """One line per database, workload and side: req/s and latency percentiles."""
    print()
    print(f"{'database':10} {'workload':8} {'side':11} {'req/s':>7} {'p50 ms':>7} {'p90 ms':>7} {'p99 ms':>7} "
          f"{'p99/p50':>7} {'cpu ms':>7}")
    for kind, workloads in results.items():
        for workload, summary in workloads.items():
            for side, s in summary["sides"].items():
                print(f"{kind:10} {workload:8} {side:11} {s['rate']:7.0f} {s['p50']:7.1f} {s['p90']:7.1f} "
                      f"{s['p99']:7.1f} {s['p99'] / s['p50']:7.2f} {s['cpu']:7.2f}")
    if any(side["cpu"] for workloads in results.values() for summary in workloads.values()
           for side in summary["sides"].values()):
        print("cpu ms: the workers' CPU time per answer (user + system), median of the rounds: foreign load on a "
              "shared machine moves it far less than req/s")
    print()


def ratio_text(ratio: tuple[float, float, float]) -> str:
    median, low, high = ratio
    return f"{median:.2f} ({low:.2f}-{high:.2f})"


def main_proxy(args) -> None:
    print(f"{args.clients} clients on {max(args.games, args.clients)} games, one gunicorn (gunicorn.conf.py), "
          f"through nginx vs direct, {args.rounds} alternating rounds of {args.duration:.0f} s", flush=True)
    results = each_database(args, bench_proxy)
    print_table({kind: {"actions": summary} for kind, summary in results.items()})
    for kind, summary in results.items():
        ratio = summary["ratios"]["nginx/direct"]
        verdict = "ok" if ratio[0] >= 0.85 else "BELOW TARGET"
        print(f"{kind}: nginx/direct {ratio_text(ratio)} (target >= 0.85), errors through nginx "
              f"{summary['sides']['nginx']['errors']}: {verdict}")


#: service/raw floor targets by database (the issue's: the service's layers may cost this much).
TARGETS = {"sqlite": 0.6, "postgresql": 0.8}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--databases", default="sqlite,postgresql")
    parser.add_argument("--workloads", default="actions,reads")
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--games", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--duration", type=float, default=5.0)
    parser.add_argument("--reconnect", type=int, default=50)
    parser.add_argument("--quick", action="store_true", help="2 rounds of 3 s")
    parser.add_argument("--rate-limits", action="store_true", help="the service's rate limits on, out of reach")
    parser.add_argument("--proxy", action="store_true", help="through nginx against direct to gunicorn")
    parser.add_argument("--versus", type=Path, metavar="DIR",
                        help="also the service of another checkout (e.g. the commit before a change), side by side")
    parser.add_argument("--flask-floor", action="store_true",
                        help="also the raw floor behind a bare Flask app (flask-raw): what Flask alone costs")
    args = parser.parse_args()
    if args.flask_floor:
        APPS["flask-raw"] = ["--pythonpath", FLOORS, "raw_floor:create_flask_app()"]
        READS["flask-raw"] = ("flask-raw", "")
        for workload in RATIOS.values():
            workload.append(("flask-raw/raw (Flask alone)", "flask-raw", "raw"))
    if args.versus:
        APPS["versus"], CHECKOUTS["versus"] = APPS["service"], args.versus.resolve()
        READS["versus"] = ("versus", "")
        RATIOS["actions"].insert(0, ("service/versus", "service", "versus"))
        RATIOS["reads"].insert(0, ("service GET/versus GET", "service", "versus"))
    if args.quick:
        args.rounds, args.duration = 2, 3.0
    if args.proxy:
        main_proxy(args)
        return
    print(f"{args.clients} clients on {max(args.games, args.clients)} games, gunicorn.conf.py "
          f"(2 workers x 4 threads), {args.rounds} alternating rounds of {args.duration:.0f} s, "
          f"rate limits {'on (out of reach)' if args.rate_limits else 'off'}", flush=True)
    results = each_database(args, bench_database)
    print_table(results)
    for kind, workloads in results.items():
        for workload, summary in workloads.items():
            print(f"{kind} {workload}: " + ", ".join(f"{name} {ratio_text(ratio)}"
                                                     for name, ratio in summary["ratios"].items()))
            print(f"{kind} {workload} in CPU per answer: " + ", ".join(
                f"{name} {ratio_text(ratio)}" for name, ratio in summary["cpu_ratios"].items()))
            for side, name in ((("service", "service/raw"),) if workload == "actions" else
                               (("service", "service GET/raw GET"), ("legal-moves", "legal-moves/raw GET"))):
                answers, ratio = summary["sides"][side], summary["ratios"][name]
                met = ratio[0] >= TARGETS[kind] and answers["p99"] <= 3 * answers["p50"]
                print(f"  {name} {ratio[0]:.2f} (target >= {TARGETS[kind]:.1f}), {side} p99/p50 "
                      f"{answers['p99'] / answers['p50']:.2f} (target <= 3.00), errors {answers['errors']}: "
                      f"{'ok' if met else 'BELOW TARGET'}")


if __name__ == "__main__":
    main()

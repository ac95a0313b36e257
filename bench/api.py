"""The service against the floor of its stack, under the same gunicorn, on SQLite and PostgreSQL.

Starts the service and ``bench/baseline_app.py`` (one locked update + one insert
per action, nothing else) with the same ``gunicorn.conf.py`` on free ports, each on
its own scratch database, and drives them in alternating rounds with
``bench/api_load.py`` (8 clients on 8 games by default). Prints req/s and latency of
each and the ratios that matter (targets: service/floor >= 0.7, p99 <= 4 x p50)::

    python bench/api.py                 # both databases, 3 rounds of 6 s each
    python bench/api.py --quick         # 2 rounds of 3 s
    python bench/api.py --databases sqlite --rounds 5
    python bench/api.py --proxy         # the service through nginx against direct (deploy/)

``--proxy`` measures the front proxy's cost instead: one gunicorn running the service,
nginx (deploy/nginx.conf.template) in front of it, the same games driven through nginx
and directly in alternating rounds (target: through nginx >= 0.85 x direct).
``BENCH_PORTS=18080-18099`` keeps every server on ports of that range.

Rate limits stay on with limits too high to bite, so their cost is measured too.
Needs PostgreSQL on 127.0.0.1:5432 (trust auth) for the PostgreSQL half; without
it that half is skipped. Always exits 0: a report, not a test.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

import api_load  # noqa: E402

POSTGRES_ADMIN = os.environ.get("BENCH_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/postgres")
APPS = {
    "service": ["service:create_app()"],
    "floor": ["--pythonpath", str(ROOT / "bench"), "baseline_app:create_app()"],
}


_taken: set[int] = set()


def free_port() -> int:
    """A free port of 127.0.0.1: any, or one of ``BENCH_PORTS`` (e.g. 18080-18099)."""
    low, _, high = os.environ.get("BENCH_PORTS", "0-0").partition("-")
    for port in range(int(low), int(high) + 1):
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            if port and port not in _taken:
                _taken.add(port)
                return port
            if not port:
                return sock.getsockname()[1]
    raise RuntimeError(f"no free port in BENCH_PORTS={os.environ['BENCH_PORTS']}")


def wait_ready(port: int, path: str, process: subprocess.Popen, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"gunicorn exited with {process.returncode}")
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            conn.request("GET", path)
            conn.getresponse().read()
            conn.close()
            return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"no answer on port {port}")


def start(app: str, url: str, port: int) -> subprocess.Popen:
    env = {**os.environ, "DATABASE_URL": url, "BIND": f"127.0.0.1:{port}",
           "RATELIMIT_DEFAULT": "1000000 per minute", "RATELIMIT_WRITE": "1000000 per minute"}
    env.pop("ACCESS_LOG", None)
    process = subprocess.Popen([sys.executable, "-m", "gunicorn", "-c", "gunicorn.conf.py", *APPS[app]],
                               cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               start_new_session=True)
    wait_ready(port, "/healthz" if app == "service" else "/v1/games/none", process)
    return process


def stop(process: subprocess.Popen) -> None:
    with contextlib.suppress(ProcessLookupError):
        process.send_signal(signal.SIGTERM)
    try:
        process.wait(15)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


@contextlib.contextmanager
def scratch_databases(kind: str):
    """Two empty databases (service, floor), migrated; removed afterwards."""
    if kind == "sqlite":
        with tempfile.TemporaryDirectory(prefix="bench-api-") as tmp:
            yield {"service": f"sqlite:///{tmp}/service.db", "floor": f"sqlite:///{tmp}/floor.db"}
        return
    import sqlalchemy as sa

    admin = sa.create_engine(POSTGRES_ADMIN, isolation_level="AUTOCOMMIT")
    names = {app: f"bench_{app}_{uuid.uuid4().hex[:8]}" for app in APPS}
    with admin.connect() as connection:
        for name in names.values():
            connection.exec_driver_sql(f'CREATE DATABASE "{name}"')
    base = POSTGRES_ADMIN.rsplit("/", 1)[0]
    try:
        yield {app: f"{base}/{name}" for app, name in names.items()}
    finally:
        with admin.connect() as connection:
            for name in names.values():
                connection.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.dispose()


def migrate(urls: dict) -> None:
    flask = [sys.executable, "-m", "flask", "--app", "service", "db", "upgrade"]
    subprocess.run(flask, cwd=ROOT, env={**os.environ, "DATABASE_URL": urls["service"]}, check=True,
                   capture_output=True)
    subprocess.run([sys.executable, str(ROOT / "bench" / "baseline_app.py"), "--init", urls["floor"]],
                   cwd=ROOT, check=True, capture_output=True)


def postgres_reachable() -> bool:
    try:
        import sqlalchemy as sa

        engine = sa.create_engine(POSTGRES_ADMIN)
        with engine.connect():
            pass
        engine.dispose()
        return True
    except Exception:
        return False


def bench_database(kind: str, args) -> dict:
    with scratch_databases(kind) as urls:
        migrate(urls)
        ports = {app: free_port() for app in APPS}
        processes = {}
        try:
            for app in APPS:
                processes[app] = start(app, urls[app], ports[app])
            games = {app: api_load.create_games(ports[app], max(args.games, args.clients)) for app in APPS}
            for app in APPS:  # warm up: imports, pools, SQLite WAL
                api_load.run(ports[app], games[app], args.clients, duration=1.0)
            rounds: dict[str, list[api_load.Result]] = {app: [] for app in APPS}
            for number in range(args.rounds):
                order = list(APPS) if number % 2 else list(APPS)[::-1]
                for app in order:
                    result = api_load.run(ports[app], games[app], args.clients, duration=args.duration,
                                          reconnect=args.reconnect)
                    rounds[app].append(result)
                    print(f"  {kind:10} round {number + 1} {app:7}: {result.line()}", flush=True)
        finally:
            for process in processes.values():
                stop(process)
    return summarize(rounds, "service", "floor")


def summarize(rounds: dict[str, list[api_load.Result]], top: str, bottom: str) -> dict:
    """Median rate and pooled latencies of each side; the median of the round pairs' ratios top/bottom."""
    summary: dict = {}
    for side, results in rounds.items():
        merged = api_load.Result(latencies=[x for r in results for x in r.latencies])
        summary[side] = {
            "rate": statistics.median(r.rate for r in results),
            "p50": merged.percentile(50), "p90": merged.percentile(90), "p99": merged.percentile(99),
            "errors": sum(r.errors for r in results),
        }
    # Ratio per round pair, then the median: noise between rounds hits both sides alike.
    summary["ratio"] = statistics.median(t.rate / b.rate for t, b in zip(rounds[top], rounds[bottom], strict=True))
    return summary


def bench_proxy(kind: str, args) -> dict:
    """The service through nginx and directly, same gunicorn and games, alternating rounds."""
    sys.path.insert(0, str(ROOT / "deploy"))
    import stack

    with scratch_databases(kind) as urls, tempfile.TemporaryDirectory(prefix="bench-proxy-") as run_dir:
        migrate(urls)
        app_port, proxy_port = free_port(), free_port()
        process = start("service", urls["service"], app_port)
        # Eight clients on one address: the per-address request zones are raised out of reach, as
        # the app's own limits are, so the proxy's cost is measured, not its rate limiting.
        settings = stack.StackSettings(port=proxy_port, app_ports=[app_port], run_dir=Path(run_dir),
                                       access_log="off", rate=100_000, burst=100_000, write_rate=100_000,
                                       write_burst=100_000)
        try:
            stack.start_nginx(settings)
            wait_ready(proxy_port, "/healthz", process)
            games = api_load.create_games(app_port, max(args.games, args.clients))
            ports = {"nginx": proxy_port, "direct": app_port}
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
            stack.down(Path(run_dir))
            stop(process)
    return summarize(rounds, "nginx", "direct")


def each_database(args, bench) -> dict:
    """``bench(kind, args)`` for each of ``--databases``; PostgreSQL is skipped when unreachable."""
    results = {}
    for kind in (name.strip() for name in args.databases.split(",")):
        if kind == "postgresql" and not postgres_reachable():
            print("postgresql: unreachable, skipped")
            continue
        results[kind] = bench(kind, args)
    return results


def print_table(results: dict, sides) -> None:
    print()
    print(f"{'database':10} {'app':7} {'req/s':>7} {'p50 ms':>7} {'p90 ms':>7} {'p99 ms':>7} {'p99/p50':>7}")
    for kind, summary in results.items():
        for side in sides:
            s = summary[side]
            print(f"{kind:10} {side:7} {s['rate']:7.0f} {s['p50']:7.1f} {s['p90']:7.1f} {s['p99']:7.1f} "
                  f"{s['p99'] / s['p50']:7.2f}")
    print()


def main_proxy(args) -> None:
    print(f"{args.clients} clients on {max(args.games, args.clients)} games, one gunicorn (gunicorn.conf.py), "
          f"through nginx vs direct, {args.rounds} alternating rounds of {args.duration:.0f} s", flush=True)
    results = each_database(args, bench_proxy)
    print_table(results, ("nginx", "direct"))
    for kind, summary in results.items():
        verdict = "ok" if summary["ratio"] >= 0.85 else "BELOW TARGET"
        print(f"{kind}: nginx/direct {summary['ratio']:.2f} (target >= 0.85), errors through nginx "
              f"{summary['nginx']['errors']}: {verdict}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--databases", default="sqlite,postgresql")
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--games", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--duration", type=float, default=6.0)
    parser.add_argument("--reconnect", type=int, default=50)
    parser.add_argument("--quick", action="store_true", help="2 rounds of 3 s")
    parser.add_argument("--proxy", action="store_true", help="through nginx against direct to gunicorn")
    args = parser.parse_args()
    if args.quick:
        args.rounds, args.duration = 2, 3.0
    if args.proxy:
        main_proxy(args)
        return
    print(f"{args.clients} clients on {max(args.games, args.clients)} games, gunicorn.conf.py "
          f"(2 workers x 4 threads), {args.rounds} alternating rounds of {args.duration:.0f} s", flush=True)
    results = each_database(args, bench_database)
    print_table(results, APPS)
    for kind, summary in results.items():
        service = summary["service"]
        verdict = "ok" if summary["ratio"] >= 0.7 and service["p99"] <= 4 * service["p50"] else "BELOW TARGET"
        print(f"{kind}: service/floor {summary['ratio']:.2f} (target >= 0.70), service p99/p50 "
              f"{service['p99'] / service['p50']:.2f} (target <= 4.00), errors {service['errors']}: {verdict}")


if __name__ == "__main__":
    main()

"""Where the service's CPU goes under load: py-spy on both gunicorn workers, by layer.

Starts the service (this checkout, or ``--checkout DIR``) as bench/api does, on a
scratch database, drives it with bench/drivers/api_load.py (actions, or ``--read`` GETs), records
both workers with ``py-spy record --gil`` and prints the share of the samples spent in
each layer (a sample counts for the innermost frame of a known layer) and the top
functions by own time::

    python bench/api_profile --database sqlite --seconds 15
    python bench/api_profile --database postgresql --read ""          # GET /v1/games/{id}

Needs py-spy (the bench extra) and the right to ptrace the workers.
"""

from __future__ import annotations

import argparse
import collections
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bench.drivers import api_load  # noqa: E402
from harness.postgres import scratch_url  # noqa: E402
from harness.servers import AppServer, migrate  # noqa: E402

#: Layers by the file their code is in (as py-spy names it), most specific first.
LAYERS = [
    ("engine", ("service/engine/",)), ("service store", ("service/store/",)),
    ("rate limits", ("service/api/rate_limits", "service/api/memory_counters", "limits/")),
    ("use cases", ("service/usecases/",)), ("service api", ("service/api/",)),
    ("service other", ("service/",)), ("SQLAlchemy", ("sqlalchemy/", "flask_sqlalchemy/")),
    ("psycopg", ("psycopg",)), ("sqlite3", ("sqlite3/",)), ("JSON", ("json/", "orjson")),
    ("marshmallow + webargs + flask-smorest", ("marshmallow/", "webargs/", "flask_smorest/")),
    ("Werkzeug", ("werkzeug/",)), ("Flask", ("flask/",)),
    ("gunicorn", ("gunicorn/",)),
]


def layer(frame: str) -> str | None:
    """The layer of a py-spy frame, ``function (path/to/file.py:line)``."""
    path = frame.rpartition("(")[2]
    for name, prefixes in LAYERS:
        if path.startswith(prefixes):
            return name
    return None


def summarize(collapsed: list[str], top: int) -> str:
    layers: collections.Counter = collections.Counter()
    own: collections.Counter = collections.Counter()
    total = 0
    for line in collapsed:
        stack, _, count = line.rpartition(" ")
        if not count.isdigit():
            continue  # not a sample: a message py-spy wrote into the file (a sampling error)
        frames = stack.split(";")
        if not frames or frames[0].startswith("process"):
            frames = frames[1:]
        total += int(count)
        own[frames[-1]] += int(count)
        for frame in reversed(frames):
            name = layer(frame)
            if name:
                layers[name] += int(count)
                break
        else:
            layers["other (stdlib, threads)"] += int(count)
    lines = [f"{total} samples"]
    lines += [f"  {share / total:6.1%}  {name}" for name, share in layers.most_common()]
    lines.append("top functions (own time):")
    lines += [f"  {share / total:6.1%}  {name[:110]}" for name, share in own.most_common(top)]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database", choices=["sqlite", "postgresql"], default="sqlite")
    parser.add_argument("--checkout", type=Path, help="profile another checkout's service")
    parser.add_argument("--read", default=None, help="GET this path under each game instead of playing actions")
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--rate", type=int, default=200, help="py-spy samples per second")
    parser.add_argument("--top", type=int, default=15)
    args = parser.parse_args()
    checkout = args.checkout.resolve() if args.checkout else ROOT
    with scratch_url(args.database, "bench_profile") as url:
        migrate(url, cwd=checkout)
        server = AppServer({"DATABASE_URL": url, "RATELIMIT_ENABLED": "0", "ACCESS_LOG": ""}, cwd=checkout).start()
        port, process = server.port, server.process
        try:
            games = api_load.create_games(port, 8)
            api_load.run(port, games, 8, duration=1.0)
            workers = Path(f"/proc/{process.pid}/task/{process.pid}/children").read_text().split()
            load = threading.Thread(target=api_load.run, args=(port, games, 8),
                                    kwargs={"duration": args.seconds + 2, "read": args.read})
            load.start()
            with tempfile.TemporaryDirectory() as tmp:
                spy = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
                recorders = [subprocess.Popen([spy, "record", "--gil", "--nonblocking", "-r", str(args.rate),
                                               "-d", str(int(args.seconds)), "-f", "raw", "-o", f"{tmp}/{pid}.txt",
                                               "-p", pid], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                             for pid in workers]
                for recorder in recorders:
                    recorder.wait()
                load.join()
                collapsed = [line for pid in workers for line in Path(f"{tmp}/{pid}.txt").read_text().splitlines()]
            print(summarize(collapsed, args.top))
        finally:
            server.stop()


if __name__ == "__main__":
    main()

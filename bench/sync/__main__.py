"""Server CPU per action: 100 actions as one batch (``POST /v1/games/{id}/actions``) against 100 single requests.

On SQLite and PostgreSQL, each on its own scratch database, one gunicorn worker of the
service (``gunicorn.conf.py``, rate limits on but out of reach, so that their cost is
counted on both sides). The same 100 legal actions of one deal (random legal play,
seeded; draws, moves, taps, undos) are played, in alternating rounds, on fresh games:

* ``singles``: each action its own request on its own endpoint (``/draw``, ``/moves`` …),
  one keep-alive connection, ``If-Match`` on each as a careful client sends it;
* ``batch``: the 100 actions in one request, ``If-Match: "0"``.

Measured around each side: the worker's CPU seconds from ``/proc`` (user + system), and
on PostgreSQL also its backends' (``pg_stat_activity``). Prints CPU per action of each
and, per round, singles / batch as median (min-max). Target: >= 5x less app CPU per
action in the batch::

    python bench/sync                 # both databases, 5 rounds of 10 games a side
    python bench/sync --quick         # 2 rounds of 4 games
    python bench/sync --databases sqlite --rounds 3

Needs PostgreSQL on 127.0.0.1:5432 (trust auth) for its half; without it that half is
skipped. Always exits 0: a report, not a test.
"""

from __future__ import annotations

import argparse
import http.client
import json
import random
import statistics
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from harness.postgres import POSTGRES_URL, reachable, scratch_database  # noqa: E402
from harness.servers import AppServer, cpu_seconds, migrate  # noqa: E402
from service.engine import Action, Game  # noqa: E402

CODE = "TF1-D1N-AAAAAAG"
ACTIONS = 100
ENDPOINT = {"move": "moves", "draw": "draw", "recycle": "recycle", "undo": "undo", "take-back": "take-back",
            "tap": "tap"}


def legal_line(code: str, count: int, seed: int = 38) -> list[Action]:
    """``count`` actions legal one after the other from the deal: random play, undo now and then."""
    rng = random.Random(seed)
    game, line = Game.from_code(code), []
    while len(line) < count:
        legal = game.legal_actions()
        plays = [action for action in legal if action.kind != "undo"]
        action = rng.choice(legal if rng.random() < 0.1 or not plays else plays)
        game.apply(action)
        line.append(action)
    return line


class Client:
    """One keep-alive connection to the server."""

    def __init__(self, port: int) -> None:
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)

    def post(self, path: str, body, headers: dict | None = None) -> tuple[int, dict]:
        data = b"" if body is None else json.dumps(body).encode()
        self.connection.request("POST", path, body=data, headers={"Content-Type": "application/json",
                                                                   **(headers or {})})
        response = self.connection.getresponse()
        return response.status, json.loads(response.read() or b"{}")

    def new_game(self) -> tuple[str, dict]:
        status, game = self.post("/v1/games", {"code": CODE})
        assert status == 201, game
        return game["id"], {"Authorization": f"Bearer {game['token']}"}


def play_singles(client: Client, line: list[Action]) -> None:
    game, auth = client.new_game()
    for version, action in enumerate(line):
        body = action.to_json()
        kind = body.pop("action")
        status, answer = client.post(f"/v1/games/{game}/{ENDPOINT[kind]}", body or None,
                                     {**auth, "If-Match": f'"{version}"'})
        assert status == 200, (str(action), answer)


def play_batch(client: Client, notations: list[str]) -> None:
    game, auth = client.new_game()
    status, answer = client.post(f"/v1/games/{game}/actions", {"actions": notations}, {**auth, "If-Match": '"0"'})
    assert status == 200 and answer["version"] == len(notations), answer


class Backends:
    """CPU seconds of the PostgreSQL backends serving one database (none for SQLite)."""

    def __init__(self, url: str) -> None:
        self.name = url.rsplit("/", 1)[1] if url.startswith("postgresql") else None
        if self.name:
            import sqlalchemy as sa

            self.sa, self.admin = sa, sa.create_engine(POSTGRES_URL, isolation_level="AUTOCOMMIT")

    def read(self) -> dict:
        if not self.name:
            return {}
        with self.admin.connect() as connection:
            pids = connection.execute(self.sa.text("SELECT pid FROM pg_stat_activity WHERE datname = :n"),
                                      {"n": self.name}).scalars().all()
        return {pid: cpu_seconds(pid) for pid in pids}

    @staticmethod
    def spent(before: dict, after: dict) -> float:
        return sum(cpu - before.get(pid, 0.0) for pid, cpu in after.items())

    def close(self) -> None:
        if self.name:
            self.admin.dispose()


def measure(server: AppServer, backends: Backends, work, games: int) -> dict:
    """Run ``work`` ``games`` times; the app's and the database's CPU seconds, and the wall time."""
    app_before, db_before, started = server.workers_cpu(), backends.read(), time.perf_counter()
    for _ in range(games):
        work()
    wall = time.perf_counter() - started
    return {"app": server.workers_cpu() - app_before, "db": Backends.spent(db_before, backends.read()), "wall": wall}


def bench_database(kind: str, url: str, args, line: list[Action]) -> None:
    migrate(url)
    notations = [str(action) for action in line]
    server = AppServer({"DATABASE_URL": url, "WEB_WORKERS": "1", "WEB_THREADS": "1", "ACCESS_LOG": "",
                        "RATELIMIT_DEFAULT": "1000000 per minute", "RATELIMIT_WRITE": "1000000 per minute"})
    server.start(workers=1)
    backends = Backends(url)
    try:
        client = Client(server.port)
        play_singles(client, line)  # warm-up: every endpoint's first request, the plans, the caches
        play_batch(client, notations)
        sides: dict[str, list[dict]] = {"singles": [], "batch": []}
        for number in range(args.rounds):
            order = [("singles", lambda: play_singles(client, line)), ("batch", lambda: play_batch(client, notations))]
            for name, work in order if number % 2 == 0 else reversed(order):
                sides[name].append(measure(server, backends, work, args.games))
        report(kind, sides, args.games * len(line))
    finally:
        backends.close()
        server.stop()


def report(kind: str, sides: dict, actions: int) -> None:
    print(f"\n{kind}: {actions} actions a side a round, {len(sides['batch'])} rounds")
    for name, runs in sides.items():
        app = statistics.median(run["app"] for run in runs) / actions * 1e6
        db = statistics.median(run["db"] for run in runs) / actions * 1e6
        wall = statistics.median(run["wall"] for run in runs) / actions * 1e6
        extra = f", database {db:7.0f} µs" if kind == "postgresql" else ""
        print(f"  {name:8} app CPU {app:7.0f} µs/action{extra}, wall {wall:7.0f} µs/action")
    pairs = list(zip(sides["singles"], sides["batch"], strict=True))
    ratios = [single["app"] / max(batch["app"], 1e-9) for single, batch in pairs]
    print(f"  singles / batch, app CPU per action: {statistics.median(ratios):.1f}x "
          f"({min(ratios):.1f}-{max(ratios):.1f})  target >= 5x")
    if kind == "postgresql":
        totals = [(single["app"] + single["db"]) / max(batch["app"] + batch["db"], 1e-9) for single, batch in pairs]
        print(f"  singles / batch, app + database CPU:  {statistics.median(totals):.1f}x "
              f"({min(totals):.1f}-{max(totals):.1f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--databases", default="sqlite,postgresql")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--games", type=int, default=10, help="games a side a round (100 actions each)")
    parser.add_argument("--quick", action="store_true", help="2 rounds of 4 games")
    args = parser.parse_args()
    if args.quick:
        args.rounds, args.games = 2, 4
    line = legal_line(CODE, ACTIONS)
    kinds = {action.kind for action in line}
    print(f"bench/sync: {ACTIONS} legal actions of {CODE} ({', '.join(sorted(kinds))}), one gunicorn worker")
    for kind in [name.strip() for name in args.databases.split(",") if name.strip()]:
        with ExitStack() as stack:
            if kind == "sqlite":
                url = f"sqlite:///{stack.enter_context(tempfile.TemporaryDirectory())}/sync.db"
            else:
                unreachable = reachable()
                if unreachable:
                    print(f"\npostgresql: {unreachable}: skipped")
                    continue
                url = stack.enter_context(scratch_database("bench_sync"))
            bench_database(kind, url, args, line)


if __name__ == "__main__":
    main()

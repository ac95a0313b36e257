"""A bounded load generator for the game API (the service or a floor of bench/api).

C client threads play G games on 127.0.0.1: each loops draw, draw, …, recycle on
its own game, so every action stays legal, over a keep-alive connection that it
drops every ``--reconnect`` requests so that gunicorn's workers share the load.
The run stops after ``--requests`` answers or ``--duration`` seconds, whichever
comes first, and prints req/s and p50/p90/p99 latency::

    python bench/drivers/api_load.py --port 8000 --clients 8 --games 8 --duration 10
"""

from __future__ import annotations

import argparse
import http.client
import json
import threading
import time
from dataclasses import dataclass, field


@dataclass
class Result:
    answers: int = 0
    errors: int = 0
    seconds: float = 0.0
    latencies: list[float] = field(default_factory=list)
    statuses: dict[int, int] = field(default_factory=dict)
    #: CPU seconds the server's workers spent meanwhile (set by bench/api; 0: not measured)
    server_cpu: float = 0.0

    @property
    def rate(self) -> float:
        return self.answers / self.seconds if self.seconds else 0.0

    def percentile(self, p: float) -> float:
        """Latency percentile in milliseconds (nearest rank)."""
        if not self.latencies:
            return float("nan")
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))] * 1000

    @property
    def cpu_per_answer(self) -> float:
        """The server's CPU milliseconds per answer."""
        return 1000 * self.server_cpu / self.answers if self.answers else float("nan")

    def line(self) -> str:
        cpu = f", cpu {self.cpu_per_answer:.2f} ms/answer" if self.server_cpu else ""
        return (f"{self.answers} answers in {self.seconds:.1f} s: {self.rate:.0f} req/s, "
                f"p50 {self.percentile(50):.1f} ms, p90 {self.percentile(90):.1f} ms, "
                f"p99 {self.percentile(99):.1f} ms, errors {self.errors}{cpu}")


def _request(conn: http.client.HTTPConnection, method: str, path: str, headers: dict,
             body: bytes = b"") -> tuple[int, dict]:
    conn.request(method, path, body=body, headers={**headers, "Content-Length": str(len(body))})
    response = conn.getresponse()
    data = response.read()
    try:
        return response.status, json.loads(data) if data else {}
    except ValueError:
        return response.status, {}


def create_games(port: int, count: int, draw: int = 1) -> list[dict]:
    """Deal ``count`` anonymous games; each is {"id", "token", "stock"}."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    made = []
    try:
        for _ in range(count):
            status, body = _request(conn, "POST", "/v1/games", {"Content-Type": "application/json"},
                                    json.dumps({"draw": draw}).encode())
            if status != 201:
                raise RuntimeError(f"create game: HTTP {status} {body}")
            made.append({"id": body["id"], "token": body["token"], "stock": body["stock"]})
    finally:
        conn.close()
    return made


def run(port: int, games: list[dict], clients: int = 8, requests: int = 100_000, duration: float = 10.0,
        reconnect: int = 50, read: str | None = None) -> Result:
    """Drive ``clients`` threads over ``games`` until ``requests`` answers or ``duration`` seconds.

    ``read``: GET each game's path plus this suffix ("" the game, "/legal-moves") instead of acting.
    """
    result = Result()
    lock = threading.Lock()
    budget = [requests]
    start_gate = threading.Barrier(clients + 1)
    deadline = [0.0]

    def client(index: int) -> None:
        game = games[index % len(games)]
        path = f"/v1/games/{game['id']}/"
        headers = {"Authorization": f"Bearer {game['token']}"}
        latencies, statuses, errors = [], {}, 0
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        sent = 0
        stock = game["stock"]
        start_gate.wait()
        try:
            while time.perf_counter() < deadline[0]:
                with lock:
                    if budget[0] <= 0:
                        break
                    budget[0] -= 1
                action = "draw" if stock else "recycle"
                began = time.perf_counter()
                try:
                    if read is not None:
                        status, body = _request(conn, "GET", path.rstrip("/") + read, {})
                    else:
                        status, body = _request(conn, "POST", path + action, headers)
                except (OSError, http.client.HTTPException):
                    conn.close()
                    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
                    errors += 1
                    continue
                latencies.append(time.perf_counter() - began)
                statuses[status] = statuses.get(status, 0) + 1
                if status == 200:
                    stock = body["stock"] if read is None else stock
                else:
                    errors += 1
                    stock = 0 if stock else 1  # another client moved this game on: try the other action
                sent += 1
                if sent % reconnect == 0:
                    conn.close()
                    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        finally:
            conn.close()
            game["stock"] = stock
            with lock:
                result.latencies.extend(latencies)
                result.errors += errors
                for status, n in statuses.items():
                    result.statuses[status] = result.statuses.get(status, 0) + n

    threads = [threading.Thread(target=client, args=(i,), daemon=True) for i in range(clients)]
    for thread in threads:
        thread.start()
    began = time.perf_counter()
    deadline[0] = began + duration
    start_gate.wait()
    for thread in threads:
        thread.join()
    result.seconds = time.perf_counter() - began
    result.answers = result.statuses.get(200, 0)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--games", type=int, default=0, help="default: one per client")
    parser.add_argument("--requests", type=int, default=100_000)
    parser.add_argument("--duration", type=float, default=10.0)
    parser.add_argument("--reconnect", type=int, default=50)
    parser.add_argument("--read", help='GET the game ("") or a path under it ("/legal-moves") instead of acting')
    args = parser.parse_args()
    games = create_games(args.port, args.games or args.clients)
    print(run(args.port, games, args.clients, args.requests, args.duration, args.reconnect, args.read).line())


if __name__ == "__main__":
    main()

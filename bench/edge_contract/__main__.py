"""Schemathesis through the stack as deployed: every operation, 25 examples each; the failures.

Starts ``deploy/stack.py`` (nginx with its deployed rates and tarpit, two app instances)
on a scratch PostgreSQL database and a Redis key prefix of its own, then runs
:func:`harness.edge_contract.run` with the checks of issue #40 (``not_a_server_error``,
``status_code_conformance``, ``content_type_conformance``, ``response_schema_conformance``,
``response_headers_conformance``) and prints every failure and the statuses seen.
Target: 0 failures. tests/deploy/test_stack_contract.py runs the same with a few examples::

    python bench/edge_contract                 # 25 examples per operation
    python bench/edge_contract --examples 5 --seed 7

Always exits 0: a report, not a test.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from harness import edge_contract  # noqa: E402
from harness.nginx import stack  # noqa: E402
from harness.ports import free_ports  # noqa: E402
from harness.postgres import scratch_database  # noqa: E402
from harness.redis import REDIS_URL, RedisKeys  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=25)
    parser.add_argument("--seed", type=int, default=None, help="default: derandomized (the same cases each run)")
    parser.add_argument("--redis", default=REDIS_URL)
    args = parser.parse_args()
    ports = free_ports(3)
    with scratch_database("edge_contract") as url, RedisKeys("edge-contract", args.redis) as keys, \
            tempfile.TemporaryDirectory(prefix="edge-contract-") as run_dir:
        settings = stack.StackSettings(port=ports[0], app_ports=ports[1:], run_dir=Path(run_dir), database_url=url,
                                       redis_url=args.redis, environment={"RATELIMIT_KEY_PREFIX": keys.prefix})
        stack.up(settings)
        try:
            started = time.monotonic()
            failures, statuses = edge_contract.run(f"http://127.0.0.1:{settings.port}", args.examples,
                                                   seed=args.seed)
        finally:
            stack.down(settings.run_dir)
    for failure in failures:
        print(failure, end="\n\n")
    print(f"statuses answered: {dict(sorted(statuses.items()))}")
    print(f"{args.examples} examples per operation, {sum(statuses.values())} requests in "
          f"{time.monotonic() - started:.0f} s: {len(failures)} operations with failures (target 0)")


if __name__ == "__main__":
    main()

"""The JavaScript engine's speed against the Python engine's, as a ratio measured in one run.

apply+undo pairs per second on the same action sequences: positions reached by random legal
play over several deals (both draw modes), every legal action of each applied and undone
(bench/engine's measure). Node runs clients/js on them in a child process, this process
runs service/engine; rounds alternate which side goes first, each side times its own CPU
(process.cpuUsage, time.process_time), JIT and caches warmed by a first round on each side
that is not counted, and the median of the rounds' ratios is reported (target: JS >= 5x).
Both sides must leave every position as it was, counters aside: checked after the rounds.

    python bench/engine_js [--rounds 9] [--deals 30] [--seed 20261129] [--quick]

Prints one line per round and the result; writes it to bench/results/engine_js.json.
Takes about a second a round (ROUND_SECONDS a side).
Always exits 0 unless node is missing.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bench.engine.workload import engine_positions, time_engine  # noqa: E402

TARGET = 5.0
#: CPU seconds of one side's round (the passes over the positions are calibrated to it)
ROUND_SECONDS = 0.5


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--deals", type=int, default=30)
    parser.add_argument("--seed", type=int, default=20261129)
    parser.add_argument("--quick", action="store_true", help="3 rounds on 12 deals")
    args = parser.parse_args(argv)
    if args.quick:
        args.rounds, args.deals = 3, 12
    node = shutil.which("node")
    if node is None:
        print("node is not installed: nothing to compare", file=sys.stderr)
        return 1

    positions = engine_positions(random.Random(args.seed), deals=args.deals)
    pairs = sum(len(actions) for _, actions in positions)
    with tempfile.TemporaryDirectory() as scratch:
        data = Path(scratch) / "positions.json"
        data.write_text(json.dumps([{"state": game.to_state(), "actions": [str(a) for a in actions]}
                                    for game, actions in positions]))
        child = subprocess.Popen([node, str(Path(__file__).with_name("bench.mjs")), str(data)],
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

        def ask(line: str):
            child.stdin.write(line + "\n")
            child.stdin.flush()
            return json.loads(child.stdout.readline())

        def js_rate(reps: int) -> float:
            answer = ask(f"round {reps}")
            return answer["pairs"] / answer["seconds"]

        # warm-up rounds, not counted, that also size the rounds: ROUND_SECONDS a side
        js_rate(50)
        js_reps = max(1, round(ROUND_SECONDS * js_rate(50) / pairs))
        python_reps = max(1, round(ROUND_SECONDS * time_engine(positions, 5) / pairs))
        print(f"{len(positions)} positions, {pairs} apply+undo pairs per pass; a round: "
              f"Python {python_reps} passes, JS {js_reps}")
        python_rates, js_rates = [], []
        for turn in range(args.rounds):
            if turn % 2:
                python_rates.append(time_engine(positions, python_reps))
                js_rates.append(js_rate(js_reps))
            else:
                js_rates.append(js_rate(js_reps))
                python_rates.append(time_engine(positions, python_reps))
            print(f"round {turn + 1}: Python {python_rates[-1]:,.0f} pairs/s, JS {js_rates[-1]:,.0f} pairs/s, "
                  f"ratio {js_rates[-1] / python_rates[-1]:.1f}")
        views = ask("views")
        child.stdin.close()
        child.wait(timeout=60)
    same = all(_rules_view(view) == _rules_view(game.view()) for view, (game, _) in zip(views, positions, strict=True))
    ratio = statistics.median(j / p for j, p in zip(js_rates, python_rates, strict=True))
    result = {
        "positions": len(positions), "pairs_per_pass": pairs, "rounds": args.rounds,
        "python_pairs_per_s": round(statistics.median(python_rates)),
        "js_pairs_per_s": round(statistics.median(js_rates)), "ratio": round(ratio, 2), "target": TARGET,
        "positions_restored_alike": same, "node": subprocess.run([node, "--version"], capture_output=True,
                                                                  text=True).stdout.strip(),
    }
    print(f"apply+undo: JS {result['js_pairs_per_s']:,} pairs/s, Python {result['python_pairs_per_s']:,} pairs/s; "
          f"ratio {ratio:.1f} (target >= {TARGET:.0f}; median of {args.rounds} alternating rounds); "
          f"positions after the rounds {'the same on both sides' if same else 'DIFFER'}")
    out = ROOT / "bench" / "results" / "engine_js.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(result, indent=1) + "\n")
    return 0


def _rules_view(view: dict) -> dict:
    """A position's view without the counters that the rounds raised differently."""
    return {key: value for key, value in view.items() if key not in ("moves", "undos", "version")}


if __name__ == "__main__":
    sys.exit(main())

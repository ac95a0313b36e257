"""Benchmark of the solver on random deals: how many are decided (won or proven lost) how fast.

    python bench/solver                          # 1000 deals per draw mode, 10 s cap each
    python bench/solver --deals 100 --cap 1      # quick run while developing
    python bench/solver --hint-memory 3          # a hint's memory at SOLVER_HINT_MAX_NODES, per mode
    python bench/solver --compare now core --core OTHER/service/solver/_csearch.cpython-311-x86_64-linux-gnu.so
                                                 # this C core against another checkout's build
    python bench/solver --variant klondike --draw 3 --solvitaire PATH
                                                 # the literature's variant, beside a Solvitaire binary
                                                 # (its klondike preset) on the same deals

One core, deals drawn from a fixed seed; times are CPU seconds of this process (``--wall`` for
wall time), so that a busy machine does not skew the figures.  They still depend on the machine
(the same code ran 1.4-2.3x slower on some machines here than on others), so the run first prints
the CPU time of one fixed proof (``REFERENCE_CODE``) to compare machines by.  For each draw mode
it prints the share decided within 0.1 s, 1 s and the cap, the median and 99th percentile time
(undecided deals count as the cap), and the winnable share.  Targets: >= 99 % (draw 1) and
>= 98 % (draw 3) decided within 1 s.  Published winnable shares of the stricter "thoughtful"
Klondike are 90.48 % (draw 1) and 81.95 % (draw 3); our rules only add moves, so a winnable
share clearly below those means a bug (or too small a cap).

``--variant klondike`` solves the deals under the literature's rules (the cards dealt under each
column's last card face down until uncovered). With ``--solvitaire PATH`` (a Solvitaire binary built
elsewhere from its public source: the project ships none of it), each deal is also written in
Solvitaire's JSON deal format and solved by it with its ``klondike`` preset (draw 3), one process at
a time; its CPU time is the child's (``os.wait4``). Its own ``--timeout`` is wall time, which a
busy machine eats into, so it gets an hour of that and the cap (plus a second) as its CPU time
limit (``RLIMIT_CPU``: the kernel stops it there); it counts as decided only within the cap.
"""

from __future__ import annotations

import argparse
import functools
import importlib.util
import json
import os
import random
import resource
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import service.solver.schedule  # noqa: E402
import service.solver.tuning  # noqa: E402
from service.engine import REFLECHI, Game, GameCode  # noqa: E402
from service.engine import VARIANTS as RULES  # noqa: E402
from service.engine.deal import DEAL_COUNT, deal_cards  # noqa: E402
from service.solver import solve  # noqa: E402


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def run(draw: int, deals: int, seed: int, cap_s: float, verbose: bool, clock=time.process_time,
        start: int = 0, variant: str = REFLECHI) -> dict:
    rng = random.Random(seed)
    codes = [GameCode(draw=draw, deal=rng.randrange(DEAL_COUNT)) for _ in range(start + deals)]
    times, verdicts = [], []
    for n in range(start, start + deals):
        code = codes[n]
        solution = solve(Game.from_code(code, variant), budget_ms=int(cap_s * 1000), clock=clock)
        seconds = solution.ms / 1000.0
        decided = solution.verdict != "unknown"
        times.append(seconds if decided else cap_s)
        verdicts.append(solution.verdict)
        if verbose:
            print(f"  {n:5d} {code} {solution.verdict:10s} {solution.nodes:8d} nodes {seconds:7.3f} s",
                  flush=True)

    def share(limit: float) -> float:
        return sum(1 for t, v in zip(times, verdicts, strict=True) if v != "unknown" and t <= limit) / deals

    return {
        "draw": draw,
        "deals": deals,
        "decided_0.1s": share(0.1),
        "decided_1s": share(1.0),
        f"decided_{cap_s:g}s": share(cap_s),
        "median_s": percentile(times, 0.5),
        "p99_s": percentile(times, 0.99),
        "winnable": verdicts.count("winnable") / deals,
        "unwinnable": verdicts.count("unwinnable") / deals,
        "unknown": verdicts.count("unknown") / deals,
    }


#: solve()'s late weights and memory shares before the schedule of 2026-12-01 (docs/PERFORMANCE.md:
#: restricted positions and the solver's schedule); the variants measured before it keep them, so that
#: their figures stay reproducible
SCHEDULE_BEFORE = {"COMPLETE_LATE_WEIGHT": 8.0, "COMPLETE_LATE_WEIGHT_IN_DRAW_1": 8.0, "DRAW_ONE_LATE_WEIGHT": 1.0,
                   "QUICK_BEST_LATE_WEIGHT": 2.0, "QUICK_BEST_MEMORY_SHARE": 0.25, "DRAW_ONE_MEMORY_SHARE": 0.125,
                   "QUICK_DRAW_ONE_WEIGHT": 0.0, "QUICK_PHASE_S": 0.05}
#: the schedule of 10a58ee: before the quick draw-1 search whose win stops the draw-1 proof (draw 3),
#: the complete search's own late weight in draw 1 and the 20 ms quick phase (2026-12-01,
#: docs/PERFORMANCE.md)
SCHEDULE_10A58EE = {"QUICK_DRAW_ONE_WEIGHT": 0.0, "DRAW_ONE_LATE_WEIGHT": 8.0, "COMPLETE_LATE_WEIGHT_IN_DRAW_1": 4.0,
                    "QUICK_PHASE_S": 0.05}
#: solve()'s settings compared by --compare: "before" is the previous release (the best-first search
#: stops at 50 ms, no draw-1 proof search in draw 3, the complete search auto-plays every safe card, the
#: quick search runs once); "safe-autoplay" is "once" with the safe cards auto-played
VARIANTS = {
    "before": {**SCHEDULE_BEFORE, "QUICK_BEST_LATE_WEIGHT": 0.0, "DRAW_ONE_WEIGHT": 0.0, "LOW_AUTOPLAY": False,
               "QUICK_RESTARTS": False},
    "safe-autoplay": {**SCHEDULE_BEFORE, "LOW_AUTOPLAY": False, "QUICK_RESTARTS": False},
    "once": {**SCHEDULE_BEFORE, "QUICK_RESTARTS": False},  # the quick depth-first search runs once, in order
    "schedule-before": SCHEDULE_BEFORE,
    "schedule-10a58ee": SCHEDULE_10A58EE,
    "now": {},
    "best-late-4": {**SCHEDULE_BEFORE, "QUICK_BEST_LATE_WEIGHT": 4.0},  # measured, not adopted (docs/PERFORMANCE.md)
    # measured, not adopted (docs/PERFORMANCE.md: solver restarts)
    "restart-2048": {**SCHEDULE_BEFORE, "RESTART_UNIT": 2048},
    "restart-8192": {**SCHEDULE_BEFORE, "RESTART_UNIT": 8192},
    "quick-dfs-2": {**SCHEDULE_BEFORE, "QUICK_DFS_WEIGHT": 2.0},
    # the schedule of 11ee3dc: the draw-1 proof's late weight 32 instead of 64 (docs/PERFORMANCE.md:
    # machines differ)
    "schedule-11ee3dc": {"DRAW_ONE_LATE_WEIGHT": 32.0},
    "core": {},  # "now" with the C core given by --core (e.g. another checkout's build)
    # with --core <10a58ee's build>: that release as it was (its core and its schedule)
    "core-schedule-10a58ee": SCHEDULE_10A58EE,
}


def load_core(path: str):
    """A built ``_csearch`` extension from another file (another checkout's build, say)."""
    spec = importlib.util.spec_from_file_location("service.solver._csearch", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def compare(draw: int, deals: int, seed: int, cap_s: float, names: list[str], rounds: int, core=None,
            given: list[GameCode] | None = None) -> None:
    """Each deal solved by each variant in turn, the order alternating deal by deal, ``rounds`` times.

    Prints per variant and round the share decided within 0.1 s and 1 s, the median and p99
    time, the ratio of the summed times to the first variant's in the same round (over all the
    deals, and over the slow ones: those every variant decided and the first took over 0.1 s
    for), and the most bytes of tables a solve held (the largest, and the sum's ratio to the
    first variant's).
    ``core``: the C core of the variants named "core…" (see load_core). ``given``: these deals (those
    of this draw mode) in every round instead of fresh ones.
    """
    own_core = service.solver.fast._csearch
    settings = {name: VARIANTS[name] for name in names}
    defaults = {key: getattr(service.solver.tuning, key) for variant in settings.values() for key in variant}
    for round_ in range(rounds):
        rng = random.Random(seed + round_)
        codes = ([code for code in given if code.draw == draw] if given is not None
                 else [GameCode(draw=draw, deal=rng.randrange(DEAL_COUNT)) for _ in range(deals)])
        deals = len(codes)
        if not deals:
            return
        times: dict[str, list[float]] = {name: [] for name in names}
        decided: dict[str, list[bool]] = {name: [] for name in names}
        table_bytes: dict[str, list[int]] = {name: [] for name in names}
        for n, code in enumerate(codes):
            order = names if n % 2 == 0 else list(reversed(names))
            for name in order:
                for key, value in {**defaults, **settings[name]}.items():
                    setattr(service.solver.tuning, key, value)
                service.solver.fast._csearch = core if name.startswith("core") else own_core
                solution = solve(Game.from_code(code), budget_ms=int(cap_s * 1000), clock=time.process_time)
                known = solution.verdict != "unknown"
                times[name].append(solution.ms / 1000.0 if known else cap_s)
                decided[name].append(known)
                table_bytes[name].append(solution.table_bytes)
        for key, value in defaults.items():
            setattr(service.solver.tuning, key, value)
        service.solver.fast._csearch = own_core
        first = sum(times[names[0]])
        # the deals where speed shows: every variant decided them, the first took over 0.1 s (the cap
        # and the many instant deals dilute the total)
        slow = [n for n in range(deals) if all(decided[name][n] for name in names) and times[names[0]][n] > 0.1]
        slow_first = sum(times[names[0]][n] for n in slow)
        for name in names:
            within = [ok and t <= 1.0 for ok, t in zip(decided[name], times[name], strict=True)]
            quick = [ok and t <= 0.1 for ok, t in zip(decided[name], times[name], strict=True)]
            print(f"draw {draw} round {round_ + 1} {name:>8s}: N={deals} decided <=0.1s {sum(quick) / deals:.1%}  "
                  f"<=1s {sum(within) / deals:.1%}  <={cap_s:g}s {sum(decided[name]) / deals:.1%} | "
                  f"median {percentile(times[name], 0.5) * 1000:.1f} ms  "
                  f"p99 {percentile(times[name], 0.99) * 1000:.0f} ms"
                  f" | total time x{sum(times[name]) / first:.2f},"
                  + (f" on the {len(slow)} slow deals x{sum(times[name][n] for n in slow) / slow_first:.2f}"
                     if slow else " no slow deals")
                  + f" | tables max {max(table_bytes[name]) / 2**20:.0f} MiB,"
                  f" total x{sum(table_bytes[name]) / max(1, sum(table_bytes[names[0]])):.2f}", flush=True)


#: Solvitaire's answers (its --classify output) as our verdicts
SOLVITAIRE_VERDICTS = {"solved": "winnable", "unsolvable": "unwinnable", "timed-out": "unknown",
                       "memory-limit-reached": "unknown", "terminated": "unknown"}


def solvitaire_card(card) -> str:
    """A card as Solvitaire writes it: ``10`` for a ten."""
    return str(card).replace("T", "10")


def solvitaire_deal(code: GameCode) -> dict:
    """The deal in Solvitaire's JSON deal format, as the klondike variant has it.

    Columns bottom first; a face-down card has its suit in lower case (every card but the last
    of a column); the stock's last card is drawn first (its parser puts each card on top).
    """
    tableau, stock = deal_cards(code.deal)
    return {
        "tableau piles": [[solvitaire_card(card)[:-1] + solvitaire_card(card)[-1].lower() for card in column[:-1]]
                          + [solvitaire_card(column[-1])] for column in tableau],
        "stock": [solvitaire_card(card) for card in reversed(stock)],
    }


def solvitaire(binary: str, code: GameCode, cap_s: float) -> tuple[str, float]:
    """Solvitaire's verdict on ``code`` (draw 3, its klondike preset) and the CPU seconds it took."""
    if code.draw != 3:
        raise ValueError("Solvitaire's klondike preset is draw 3")
    with tempfile.NamedTemporaryFile("w", suffix=".json") as deal:
        json.dump(solvitaire_deal(code), deal)
        deal.flush()
        child = subprocess.Popen([binary, "--type", "klondike", "--classify", "--timeout", "3600000", deal.name],
                                 stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                                 preexec_fn=functools.partial(_cpu_limit, int(cap_s) + 1))
        out = child.stdout.read()
        _, status, usage = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(status)
    seconds = usage.ru_utime + usage.ru_stime
    words = [word.strip() for word in out.replace("\n", ",").split(",")]
    verdict = next((SOLVITAIRE_VERDICTS[word] for word in reversed(words) if word in SOLVITAIRE_VERDICTS), None)
    if verdict is None and (seconds > cap_s or child.returncode == -signal.SIGXCPU):  # its CPU time limit
        return "unknown", seconds
    if verdict is None or child.returncode != 0:
        raise RuntimeError(f"Solvitaire on {code}: exit {child.returncode}, output {out!r}")
    return (verdict if seconds <= cap_s else "unknown"), seconds


def _cpu_limit(seconds: int) -> None:
    resource.setrlimit(resource.RLIMIT_CPU, (seconds, seconds + 1))


def against_solvitaire(binary: str, draw: int, deals: int, seed: int, cap_s: float, verbose: bool,
                       variant: str) -> None:
    """Each deal solved by our solver (``variant``) and by Solvitaire, one after the other, alternating the order."""
    rng = random.Random(seed)
    codes = [GameCode(draw=draw, deal=rng.randrange(DEAL_COUNT)) for _ in range(deals)]
    ours: list[tuple[str, float]] = []
    theirs: list[tuple[str, float]] = []
    for n, code in enumerate(codes):
        for turn in ((0, 1) if n % 2 == 0 else (1, 0)):
            if turn == 0:
                solution = solve(Game.from_code(code, variant), budget_ms=int(cap_s * 1000), clock=time.process_time)
                ours.append((solution.verdict, solution.ms / 1000.0))
            else:
                theirs.append(solvitaire(binary, code, cap_s))
        if verbose:
            print(f"  {n:5d} {code} ours {ours[-1][0]:10s} {ours[-1][1]:7.3f} s | Solvitaire {theirs[-1][0]:10s} "
                  f"{theirs[-1][1]:7.3f} s", flush=True)
    disagreements = [str(code) for code, (a, _), (b, _) in zip(codes, ours, theirs, strict=True)
                     if "unknown" not in (a, b) and a != b]
    for name, results in (("ours", ours), ("Solvitaire", theirs)):
        def decided(limit: float, results=results) -> float:
            return sum(1 for verdict, seconds in results if verdict != "unknown" and seconds <= limit) / deals

        won = sum(1 for verdict, _ in results if verdict == "winnable")
        print(f"draw {draw} {variant} {name:>10s}: N={deals} decided <=0.1s {decided(0.1):.1%}  <=1s {decided(1.0):.1%}"
              f"  <={cap_s:g}s {decided(cap_s):.1%} | median {percentile([s for _, s in results], 0.5) * 1000:.0f} ms"
              f" | winnable {won / deals:.1%}", flush=True)
    print(f"disagreements (both decided, verdicts differ): {len(disagreements)}"
          + (": " + ", ".join(disagreements) if disagreements else ""), flush=True)


#: the machine's speed, printed before the headline figures: the draw-1 proof of this deal (the
#: complete search as solve() runs it; it loses, so every run meets the same 4.7 M positions)
REFERENCE_CODE = "TF1-D1N-CPHQPJQ"


def reference_speed(repeats: int = 3) -> str:
    """The least CPU time of the C core's proof of REFERENCE_CODE, to compare machines by (see the module)."""
    game = Game.from_code(REFERENCE_CODE)
    best, nodes = float("inf"), 0
    for _ in range(repeats):
        searcher = service.solver.fast.CSearcher.from_game(game, whole_groups=True, pending=True,
                                                           low_autoplay=service.solver.tuning.LOW_AUTOPLAY)
        start = time.process_time()
        for _ in searcher.dfs():
            pass
        best, nodes = min(best, time.process_time() - start), searcher.nodes
    return f"machine: the proof of {REFERENCE_CODE} ({nodes} positions) takes {best:.2f} s of CPU (best of {repeats})"


def hint_memory_one(code: str, max_nodes: int) -> str:
    """One search as a hint runs it at the position cap (no memory budget): its tables and RSS growth."""
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    solution = solve(Game.from_code(code), budget_ms=600_000, max_nodes=max_nodes, memory_bytes=None,
                     clock=time.process_time)
    grown = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    return (f"{code}: {solution.verdict} ({solution.reason or 'decided'}) {solution.nodes} positions, "
            f"tables {solution.table_bytes / 2**20:.1f} MiB, max RSS +{grown:.1f} MiB")


def hint_memory(draw: int, count: int, seed: int, max_nodes: int) -> None:
    """The first ``count`` deals a 0.1 s search leaves open, each measured in a fresh process."""
    rng = random.Random(seed)
    found = 0
    while found < count:
        code = str(GameCode(draw=draw, deal=rng.randrange(DEAL_COUNT)))
        if solve(Game.from_code(code), budget_ms=100, clock=time.process_time).verdict != "unknown":
            continue
        found += 1
        out = subprocess.run([sys.executable, __file__, "--hint-memory-one", code, "--max-nodes", str(max_nodes)],
                             check=True, capture_output=True, text=True)
        print(out.stdout.strip(), flush=True)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--deals", type=int, default=1000, help="deals per draw mode (default 1000)")
    parser.add_argument("--seed", type=int, default=2024, help="seed of the deal numbers (default 2024)")
    parser.add_argument("--cap", type=float, default=10.0, help="seconds per deal (default 10)")
    parser.add_argument("--draw", type=int, choices=(1, 3), action="append", help="draw mode(s), default both")
    parser.add_argument("--verbose", action="store_true", help="one line per deal")
    parser.add_argument("--start", type=int, default=0,
                        help="skip the sequence's first N deals (to split one run between processes)")
    parser.add_argument("--wall", action="store_true",
                        help="budget and times in wall time (default: this process's CPU time, fair on a busy machine)")
    parser.add_argument("--backend", choices=("c", "python"),
                        help="depth-first search core (default: the C core when it is built)")
    parser.add_argument("--compare", nargs="+", choices=sorted(VARIANTS), metavar="VARIANT",
                        help=f"solve each deal with each variant of solve's schedule ({', '.join(VARIANTS)}), "
                             "alternating, and print them side by side")
    parser.add_argument("--core", metavar="PATH",
                        help="a built _csearch extension (e.g. of another checkout) for the --compare variant 'core'")
    parser.add_argument("--rounds", type=int, default=2, help="rounds of --compare, each on fresh deals (default 2)")
    parser.add_argument("--codes", type=argparse.FileType(), metavar="FILE",
                        help="--compare these deals (a line's first game code: a list, or lines of --verbose)")
    parser.add_argument("--hint-memory", type=int, metavar="N",
                        help="measure a hint's tables and RSS at --max-nodes on N hard deals per mode, and stop")
    parser.add_argument("--hint-memory-one", metavar="CODE", help=argparse.SUPPRESS)
    parser.add_argument("--max-nodes", type=int, default=1_200_000,
                        help="positions of --hint-memory (default 1200000, SOLVER_HINT_MAX_NODES)")
    parser.add_argument("--variant", choices=RULES, default=REFLECHI,
                        help="the rules: ours (default) or klondike, the literature's (dealt cards face down)")
    parser.add_argument("--solvitaire", metavar="PATH",
                        help="a Solvitaire binary: solve each deal with it too (its klondike preset: draw 3, "
                             "--variant klondike) and print both side by side")
    args = parser.parse_args(argv)
    if args.solvitaire:
        if args.variant != "klondike" or (args.draw and args.draw != [3]):
            parser.error("--solvitaire compares its klondike preset: --variant klondike --draw 3")
        print(reference_speed(), flush=True)
        against_solvitaire(args.solvitaire, 3, args.deals, args.seed, args.cap, args.verbose, args.variant)
        return
    if args.hint_memory_one:
        print(hint_memory_one(args.hint_memory_one, args.max_nodes))
        return
    if args.hint_memory:
        for draw in args.draw or (1, 3):
            hint_memory(draw, args.hint_memory, args.seed, args.max_nodes)
        return
    if args.codes and not args.compare:
        parser.error("--codes goes with --compare")
    if args.compare:
        if any(name.startswith("core") for name in args.compare) and not args.core:
            parser.error("the variants 'core…' need --core PATH")
        core = load_core(args.core) if args.core else None
        # A line's first game code: a list of codes, or the lines of --verbose.
        given = [GameCode.parse(next(word for word in line.split() if word.startswith("TF1-")))
                 for line in args.codes if "TF1-" in line] if args.codes else None
        for draw in args.draw or (1, 3):
            compare(draw, args.deals, args.seed, args.cap, args.compare, args.rounds, core, given)
        return
    if args.backend:
        if args.backend == "c" and service.solver.fast.BACKEND != "c":
            parser.error("the C core (service/solver/_csearch) is not built")
        service.solver.schedule.BACKEND = args.backend
    print(f"backend: {service.solver.schedule.BACKEND}", flush=True)
    if service.solver.schedule.BACKEND == "c":
        print(reference_speed(), flush=True)
    for draw in args.draw or (1, 3):
        clock = time.perf_counter if args.wall else time.process_time
        r = run(draw, args.deals, args.seed, args.cap, args.verbose, clock, args.start, args.variant)
        cap_key = f"decided_{args.cap:g}s"
        print(
            f"draw {draw} ({'wall' if args.wall else 'cpu'}{'' if args.variant == REFLECHI else ', ' + args.variant}): "
            f"N={r['deals']} decided <=0.1s {r['decided_0.1s']:.1%}  <=1s {r['decided_1s']:.1%}  "
            f"<={args.cap:g}s {r[cap_key]:.1%} | median {r['median_s'] * 1000:.0f} ms  "
            f"p99 {r['p99_s'] * 1000:.0f} ms | winnable {r['winnable']:.1%}  "
            f"unwinnable {r['unwinnable']:.1%}  unknown {r['unknown']:.1%}",
            flush=True,
        )


if __name__ == "__main__":
    main()

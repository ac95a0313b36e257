"""The winnability of Solitaire Réfléchi: N random deals per draw mode classified with a long budget.

    python bench/winnability                          # 10,000 deals per mode, 60 s CPU each
    python bench/winnability --summary                # print the table of the results so far
    nice -n 19 python bench/winnability --processes 2  # the published run (resumable)
    python bench/winnability --recheck-unresolved --budget 240 --memory-mb 6144 --processes 2
                                                      # its second pass over the unresolved deals
    nice -n 19 python bench/winnability --variant klondike   # the literature's variant, the same deals
                                                      # (into bench/data/winnability/seed17.klondike.jsonl)

Deals are the first N numbers drawn from ``random.Random(seed)``; each deal is
classified in draw 1, then in draw 3.  Every result is appended at once as one
JSON line to ``--out`` (default ``bench/data/winnability/seed17.jsonl``: the
published run, kept as data; another experiment writes under ``bench/results/``),
so the run can be stopped at any time: a restart skips the (deal, draw) pairs already
in the file and goes on.  A file holds one seed and one budget (a mismatch is
refused), so its table is one experiment.

Two verdicts come free from the other mode (draw 1 simulates draw 3 exactly:
each draw-3 draw is up to three draw-1 draws, the recycles are the same, see
docs/SOLVER.md): a draw-1 ``unwinnable`` is the deal's draw-3 ``unwinnable``,
and a draw-3 ``winnable`` is the deal's draw-1 ``winnable``.  The ``via``
field of a line says ``draw-1`` or ``draw-3`` when a verdict came that way.
The run searches draw 1 first, so it takes only the first; the table
(:func:`published`) takes both.

A second pass (``--recheck-unresolved``) searches the deals the table counts
unresolved again, with longer budgets, into a file of its own; a verdict it finds
is counted (every ``unwinnable`` is an exhaustive search, every ``winnable`` a
replayed line, whatever the budget), and ``--summary`` says how many it searched
(the free verdicts that follow from them count as free).

The budget is CPU time of this process, so a busy machine (or ``nice``) only
slows the run down; each search also stops at ``--memory-mb`` of tables.  The
table gives winnable / proven lost / unresolved with 95 % Wilson intervals.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import click  # noqa: E402

from service.engine import REFLECHI, VARIANTS, Game, GameCode  # noqa: E402
from service.engine.deal import DEAL_COUNT  # noqa: E402
from service.solver import solve  # noqa: E402

DEFAULT_OUT = Path(__file__).resolve().parents[1] / "data" / "winnability" / "seed17.jsonl"
#: --variant's results file, when --out is not given (ours: DEFAULT_OUT)
VARIANT_OUT = "seed17.{}.jsonl"
VERDICTS = ("winnable", "unwinnable", "unknown")
Z95 = 1.959964


def wilson(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion (95 % by default)."""
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def deal_numbers(seed: int, count: int) -> list[int]:
    rng = random.Random(seed)
    return [rng.randrange(DEAL_COUNT) for _ in range(count)]


def load(path: Path) -> list[dict]:
    """The results already in ``path`` (a torn last line, from a killed run, is ignored)."""
    if not path.exists():
        return []
    results = []
    for line in path.read_text().splitlines():
        try:
            results.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return results


def open_for_appending(path: Path):
    """``path`` opened to append lines, after a newline if a killed run left a torn last line."""
    out = path.open("a+")
    if out.tell():
        out.seek(out.tell() - 1)
        if out.read(1) != "\n":
            out.write("\n")
    return out


def check_same_experiment(results: list[dict], seed: int, budget_s: float, memory_mb: int,
                          variant: str = REFLECHI) -> None:
    for result in results[:1]:
        if (result["seed"], result["budget_s"], result["memory_mb"], result.get("variant", REFLECHI)) != (
                seed, budget_s, memory_mb, variant):
            raise SystemExit(
                f"the results file holds seed {result['seed']}, budget {result['budget_s']} s, "
                f"memory {result['memory_mb']} MB, variant {result.get('variant', REFLECHI)}; "
                "pass the same options or another --out")


def classify(deal: int, draw: int, other: dict | None, budget_s: float, memory_mb: int,
             variant: str = REFLECHI) -> dict:
    """One deal in one draw mode: the free verdict from the other mode when there is one, else a search."""
    if other is not None:
        if draw == 3 and other["verdict"] == "unwinnable":
            return {"verdict": "unwinnable", "via": "draw-1", "ms": 0.0, "nodes": 0, "reason": None}
        if draw == 1 and other["verdict"] == "winnable":
            return {"verdict": "winnable", "via": "draw-3", "ms": 0.0, "nodes": 0, "reason": None}
    solution = solve(Game.from_code(GameCode(draw=draw, deal=deal), variant), budget_ms=int(budget_s * 1000),
                     memory_bytes=memory_mb << 20, clock=time.process_time)
    return {"verdict": solution.verdict, "via": "search", "ms": round(solution.ms, 1), "nodes": solution.nodes,
            "reason": solution.reason}


def _classify_deal(job: tuple[int, int, dict, int, float, int, str]) -> list[dict]:
    """Both draw modes of one deal, draw 1 first so that draw 3 can take its free verdict."""
    index, deal, done, seed, budget_s, memory_mb, variant = job
    # the variant's lines say which it is; ours' lines stay as they were
    tagged = {} if variant == REFLECHI else {"variant": variant}
    lines = []
    for draw, other_draw in ((1, 3), (3, 1)):
        if (deal, draw) in done:
            continue
        result = {"index": index, "deal": deal, "code": str(GameCode(draw=draw, deal=deal)), "draw": draw,
                  "seed": seed, "budget_s": budget_s, "memory_mb": memory_mb, **tagged,
                  **classify(deal, draw, done.get((deal, other_draw)), budget_s, memory_mb, variant)}
        done[deal, draw] = result
        lines.append(result)
    return lines


def run(path: Path, seed: int, count: int, budget_s: float, memory_mb: int, processes: int = 1,
        variant: str = REFLECHI) -> None:
    results = load(path)
    check_same_experiment(results, seed, budget_s, memory_mb, variant)
    done = {(r["deal"], r["draw"]): r for r in results}
    path.parent.mkdir(parents=True, exist_ok=True)
    numbers = deal_numbers(seed, count)
    # Each job carries only its own deal's earlier results, not the whole file.
    jobs = [(index, deal, {key: done[key] for key in ((deal, 1), (deal, 3)) if key in done}, seed, budget_s,
             memory_mb, variant)
            for index, deal in enumerate(numbers) if (deal, 1) not in done or (deal, 3) not in done]
    # Results are written in the order the deals finish; a restart skips whatever is in the file.
    with open_for_appending(path) as out, multiprocessing.Pool(processes) as pool, click.progressbar(
        pool.imap_unordered(_classify_deal, jobs), length=len(jobs), file=sys.stderr, show_pos=True,
        show_eta=True, label=f"{len(numbers) - len(jobs)} of {count} deals done before; classifying",
    ) as bar:
        for lines in bar:
            for result in lines:
                out.write(json.dumps(result) + "\n")
            out.flush()


def _search_one_again(job: tuple[dict, float, int]) -> list[dict]:
    return [_search_again(job)]


def _search_again(job: tuple[dict, float, int]) -> dict:
    before, budget_s, memory_mb = job
    variant = before.get("variant", REFLECHI)
    return {"deal": before["deal"], "draw": before["draw"], "code": before["code"], "before": before["verdict"],
            "budget_s": budget_s, "memory_mb": memory_mb, **({} if variant == REFLECHI else {"variant": variant}),
            **classify(before["deal"], before["draw"], None, budget_s, memory_mb, variant)}


def _search_deal_again(job: tuple[list[dict], float, int]) -> list[dict]:
    """A deal's unresolved modes in the order given (draw 1 first): a loss in draw 1 is draw 3's too (published)."""
    befores, budget_s, memory_mb = job
    rows = []
    for before in befores:
        if rows and rows[-1]["verdict"] == "unwinnable":
            break
        rows.append(_search_again((before, budget_s, memory_mb)))
    return rows


#: the files ``--recheck`` and ``--recheck-unresolved`` write, beside the run's
RECHECKED, SECOND_PASS = ".recheck.jsonl", ".unresolved.jsonl"
#: the budgets of the rows of ``.unresolved.jsonl`` written before they were recorded (the run's)
FIRST_BUDGETS = {"budget_s": 60.0, "memory_mb": 2048}


def _budgets(row: dict) -> tuple[float, int]:
    return row.get("budget_s", FIRST_BUDGETS["budget_s"]), row.get("memory_mb", FIRST_BUDGETS["memory_mb"])


def _search_into(path: Path, search, jobs: list, processes: int, label: str) -> None:
    """Run ``search`` on each job in a pool, appending the rows it returns to ``path`` as they come."""
    with open_for_appending(path) as out, multiprocessing.Pool(processes) as pool, \
            click.progressbar(pool.imap_unordered(search, jobs), length=len(jobs), label=label, file=sys.stderr,
                              show_pos=True, show_eta=True) as bar:
        for rows in bar:
            for row in rows:
                out.write(json.dumps(row) + "\n")
            out.flush()


def recheck(path: Path, budget_s: float, memory_mb: int, processes: int) -> str:
    """Search again, with the search as it is now, every deal the run proved lost by a search.

    A proof that a deal is lost is a claim about the search that made it: when the search
    changes (as when its auto-play became provable, docs/SOLVER.md), the claims are checked
    again. Resumable like the run: one line per deal and mode in ``<out>.recheck.jsonl``.
    """
    checked_path = path.with_suffix(RECHECKED)
    checked = {(r["deal"], r["draw"]) for r in load(checked_path)}
    jobs = [(r, budget_s, memory_mb) for r in load(path)
            if r["verdict"] == "unwinnable" and r["via"] == "search" and (r["deal"], r["draw"]) not in checked]
    _search_into(checked_path, _search_one_again, jobs, processes, "searching the proofs again")
    rows = load(checked_path)
    agreed = sum(1 for r in rows if r["verdict"] == r["before"])
    differing = [f"{r['code']}: {r['verdict']}" for r in rows if r["verdict"] != r["before"]]
    return f"rechecked {len(rows)} proofs of a lost deal: {agreed} agree" + (
        "; differ: " + ", ".join(differing) if differing else "")


def second_pass(path: Path, budget_s: float, memory_mb: int, processes: int) -> str:
    """Search again, with these budgets, every deal and mode the table counts unresolved (:func:`published`).

    For longer budgets than the run's, or a faster or leaner search. A deal's modes are one
    job, draw 1 first: a loss there is draw 3's too, so draw 3 is then not searched. Resumable:
    one line per deal and mode in ``<out>.unresolved.jsonl`` (written when the deal's job
    ends, so a stopped pass loses its deals in progress); a restart skips the deals and
    modes that file holds at the same budgets.
    """
    done_path = path.with_suffix(SECOND_PASS)
    done = {(r["deal"], r["draw"]) for r in load(done_path) if _budgets(r) == (budget_s, memory_mb)}
    by_deal: dict = {}
    for row in sorted(published(path), key=lambda r: (r["index"], r["draw"])):
        if row["verdict"] == "unknown" and (row["deal"], row["draw"]) not in done:
            by_deal.setdefault(row["deal"], []).append(row)
    _search_into(done_path, _search_deal_again, [(rows, budget_s, memory_mb) for rows in by_deal.values()],
                 processes, "searching the unresolved deals again")
    rows = [r for r in load(done_path) if _budgets(r) == (budget_s, memory_mb)]
    now = {v: sum(1 for r in rows if r["verdict"] == v) for v in VERDICTS}
    left = [sum(1 for r in published(path) if r["verdict"] == "unknown" and r["draw"] == draw) for draw in (1, 3)]
    return (f"{len(rows)} searches of an unresolved deal and mode at {budget_s:g} s, {memory_mb} MiB so far: "
            f"{now['winnable']} winnable, {now['unwinnable']} proven lost, {now['unknown']} still unresolved; "
            f"unresolved now {left[0]} in draw 1, {left[1]} in draw 3")


def published(path: Path) -> list[dict]:
    """The run's results as the table counts them: each proof of a loss as the search now repeats it.

    A proof searched again (``--recheck``) takes its new verdict: one the search as it is
    now could not repeat within the budgets is unresolved, and so is the draw-3 loss that
    was taken free from it. A deal the second pass (``--recheck-unresolved``) decided takes
    that verdict (``second_pass``: its budget). Under a variant (klondike), a deal our own
    table proves lost is lost (``via`` "ours": the variant only takes moves away). Then the
    free verdicts across modes again: a draw-1 loss is the draw-3 loss, a draw-3 win the
    draw-1 win.
    """
    results = load(path)
    again = {(r["deal"], r["draw"]): r for r in load(path.with_suffix(RECHECKED))}
    decided_later = {(r["deal"], r["draw"]): r for r in load(path.with_suffix(SECOND_PASS))
                     if r["verdict"] != "unknown"}
    counted = {}
    for result in results:
        checked = again.get((result["deal"], result["draw"]))
        if checked is not None and checked["verdict"] != result["verdict"]:
            result = {**result, "verdict": checked["verdict"], "reason": checked["reason"], "rechecked": True}
        counted[result["deal"], result["draw"]] = result
    for (deal, draw), result in counted.items():
        if result["via"] == "draw-1" and counted[deal, 1]["verdict"] != "unwinnable":
            counted[deal, draw] = {**result, "verdict": "unknown", "reason": "draw-1 proof not repeated"}
    for key, later in decided_later.items():
        if key in counted and counted[key]["verdict"] == "unknown":
            counted[key] = {**counted[key], "verdict": later["verdict"], "reason": None, "via": "search",
                            "second_pass": dict(zip(FIRST_BUDGETS, _budgets(later), strict=True))}
    variant = results[0].get("variant", REFLECHI) if results else REFLECHI
    if variant != REFLECHI and path.resolve() != DEFAULT_OUT.resolve():
        # The variant only takes moves away from ours: a deal ours proved lost is lost under it.
        ours = {(r["deal"], r["draw"]): r["verdict"] for r in published(DEFAULT_OUT)}
        for key, result in counted.items():
            if result["verdict"] == "unknown" and ours.get(key) == "unwinnable":
                counted[key] = {**result, "verdict": "unwinnable", "reason": None, "via": "ours"}
    for (deal, draw), result in counted.items():
        # A deal whose draw 3 a stopped run has not classified yet has no other mode.
        other = counted.get((deal, 4 - draw), {}).get("verdict")
        if (draw, result["verdict"], other) == (1, "unwinnable", "winnable"):
            raise ValueError(f"{result['code']}: proved lost in draw 1 but won in draw 3, which draw 1 "
                             "simulates (docs/SOLVER.md section 7): a solver bug")
        if result["verdict"] == "unknown" and (draw, other) in ((3, "unwinnable"), (1, "winnable")):
            counted[deal, draw] = {**result, "verdict": other, "reason": None, "via": f"draw-{4 - draw}"}
    return list(counted.values())


def modes(results: list[dict]):
    """Per draw mode with results: the mode, its results and each verdict's count with its 95 % interval."""
    for draw in (1, 3):
        mode = [r for r in results if r["draw"] == draw]
        if mode:
            counts = [sum(1 for r in mode if r["verdict"] == verdict) for verdict in VERDICTS]
            yield draw, mode, [(k, *wilson(k, len(mode))) for k in counts]


def summary(results: list[dict]) -> str:
    """The table: per draw mode, N and each verdict's share with its 95 % Wilson interval."""
    lines = []
    for draw, mode, shares in modes(results):
        n = len(mode)
        parts = [f"{label} {k / n:.2%} [{low:.2%}, {high:.2%}]"
                 for label, (k, low, high) in zip(("winnable", "proven lost", "unresolved"), shares, strict=True)]
        free = sum(1 for r in mode if r["via"] not in ("search", "ours") and r["verdict"] != "unknown")
        from_ours = sum(1 for r in mode if r["via"] == "ours")
        later = [r["second_pass"] for r in mode if "second_pass" in r]
        second = ""
        if later:
            passes = sorted({(p["budget_s"], p["memory_mb"]) for p in later})
            budgets = ", ".join(f"{budget:g} s, {memory} MiB" for budget, memory in passes)
            second = f", {len(later)} decided in a second pass ({budgets})"
        searched = [r["ms"] for r in mode if r["via"] in ("search", "ours") and "ms" in r]
        cpu = (f" | CPU per searched deal: mean {sum(searched) / len(searched) / 1000:.2f} s, "
               f"median {sorted(searched)[len(searched) // 2]:.0f} ms ({len(searched)} searched)" if searched else "")
        ours = f", {from_ours} lost as ours proved" if from_ours else ""
        lines.append(f"draw {draw}: N={n} ({free} free from the other mode{ours}), budget {mode[0]['budget_s']:g} s CPU"
                     f"{second} | " + " | ".join(parts) + cpu)
    return "\n".join(lines) if lines else "no results yet"


def markdown_rows(results: list[dict]) -> list[str]:
    """The table's rows as docs/FAQ.md and the README publish them (a test holds them to the file)."""
    rows = []
    for draw, mode, shares in modes(results):
        cells = [f"draw {draw}", f"{len(mode):,}"]
        cells += [f"{100 * k / len(mode):.2f} % [{100 * low:.2f}, {100 * high:.2f}]" for k, low, high in shares]
        rows.append("| " + " | ".join(cells) + " |")
    return rows


#: the literature's winnable shares of "thoughtful" Klondike (the klondike variant), in %: Blake &
#: Gent's Solvitaire (draw 3, with its interval), and the draw-1 figure quoted with it
LITERATURE = {1: (90.48, None), 3: (81.945, 0.084)}


def side_by_side(ours: list[dict], variant: list[dict]) -> list[str]:
    """Markdown rows: per draw mode, the winnable share of both variants and the literature's, and CPU per deal.

    The last column says whether the literature's figure is within the variant's share (its
    unresolved deals counted either way) give or take the literature's interval widened by our own
    95 % interval's half-width.
    """
    rows = ["| mode | ours: dealt cards face up | klondike: dealt cards face down | the literature (klondike) "
            "| within it? |", "|---|---|---|---|---|"]
    by_mode = {draw: (mode, shares) for draw, mode, shares in modes(variant)}
    for draw, mode, shares in modes(ours):
        cells = [f"draw {draw}", _share_cell(mode, shares)]
        if draw in by_mode:
            theirs, their_shares = by_mode[draw]
            cells.append(_share_cell(theirs, their_shares))
            value, half = LITERATURE[draw]
            n = len(theirs)
            (won, low, high), unresolved = their_shares[0], their_shares[2][0]
            least, most = 100 * won / n, 100 * (won + unresolved) / n
            widened = (half or 0.0) + 100 * max(high - won / n, won / n - low)
            inside = least - widened <= value <= most + widened
            cells.append(f"{value} %" + (f" ± {half}" if half else ""))
            cells.append(("yes" if inside else "no") + f" (± {widened:.2f} points at N = {n:,})")
        else:
            cells += ["", "", ""]
        rows.append("| " + " | ".join(cells) + " |")
    return rows


def _share_cell(mode: list[dict], shares) -> str:
    won, low, high = shares[0]
    searched = [r["ms"] for r in mode if r["via"] in ("search", "ours") and "ms" in r]
    cpu = f"; {sum(searched) / len(searched) / 1000:.2f} s CPU a deal" if searched else ""
    unresolved = 100 * shares[2][0] / len(mode)
    return (f"{100 * won / len(mode):.2f} % [{100 * low:.2f}, {100 * high:.2f}], {unresolved:.2f} % unresolved, "
            f"N = {len(mode):,}{cpu}")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--deals", type=int, default=10_000, help="deals per draw mode (default 10000)")
    parser.add_argument("--seed", type=int, default=17, help="seed of the deal numbers (default 17)")
    parser.add_argument("--budget", type=float, default=60.0, help="CPU seconds per deal and mode (default 60)")
    parser.add_argument("--memory-mb", type=int, default=2048,
                        help="table budget of each search, in MiB (default 2048)")
    parser.add_argument("--variant", choices=VARIANTS, default=REFLECHI,
                        help="the rules: ours (default) or klondike, the literature's (dealt cards face down)")
    parser.add_argument("--out", type=Path,
                        help=f"results file (default {DEFAULT_OUT}, or {VARIANT_OUT.format('<variant>')} beside it)")
    parser.add_argument("--summary", action="store_true", help="only print the table of the results so far")
    parser.add_argument("--markdown", action="store_true", help="print the table's rows as the FAQ publishes them")
    parser.add_argument("--recheck", action="store_true",
                        help="search again every deal proved lost by a search (after the search changed)")
    parser.add_argument("--recheck-unresolved", action="store_true",
                        help="a second pass: search again every deal and mode the table counts unresolved, "
                             "with --budget and --memory-mb (e.g. longer than the run's)")
    parser.add_argument("--processes", type=int, default=1, help="searches at once (default 1)")
    args = parser.parse_args(argv)
    if args.out is None:
        args.out = DEFAULT_OUT if args.variant == REFLECHI else DEFAULT_OUT.with_name(VARIANT_OUT.format(args.variant))
    if args.recheck:
        print(recheck(args.out, args.budget, args.memory_mb, args.processes))
        return
    if args.recheck_unresolved:
        print(second_pass(args.out, args.budget, args.memory_mb, args.processes))
        return
    if args.markdown:
        print("\n".join(markdown_rows(published(args.out))))
        if args.variant != REFLECHI:  # and beside ours
            print()
            print("\n".join(side_by_side(published(DEFAULT_OUT), published(args.out))))
        return
    if not args.summary:
        run(args.out, args.seed, args.deals, args.budget, args.memory_mb, args.processes, args.variant)
    print(summary(published(args.out)))


if __name__ == "__main__":
    main()

"""The ``solve`` command, written as a plain click command; the app registers it.

    flask --app service solve TF1-D1N-AAAAAAC [--budget-ms N] [--memory-mb M] [--json] [--variant klondike]
    flask --app service solve --sample 100 --draw 3 [--seed S] [--budget-ms N] [--memory-mb M]

Registration (by the app factory): ``app.cli.add_command(solve_command)``.
"""

from __future__ import annotations

import json
import random
import statistics

import click

from service.engine import REFLECHI, VARIANTS, Game, GameCode, Rejection
from service.engine.deal import DEAL_COUNT

from .schedule import solve
from .tuning import MEMORY_BYTES

VERDICTS = ("winnable", "unwinnable", "unknown")


@click.command("solve")
@click.argument("code", required=False)
@click.option("--budget-ms", type=click.IntRange(min=1), default=1000, show_default=True,
              help="Time budget per position, in milliseconds.")
@click.option("--memory-mb", type=click.IntRange(min=1), default=MEMORY_BYTES >> 20, show_default=True,
              help="Memory budget of the search's tables per position, in MiB.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.option("--sample", type=click.IntRange(min=1), help="Classify N random deals instead of one code.")
@click.option("--draw", type=click.Choice(["1", "3"]), default="1", show_default=True,
              help="Draw mode of the sampled deals.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the sampled deal numbers.")
@click.option("--variant", type=click.Choice(VARIANTS), default=REFLECHI, show_default=True,
              help="The rules: ours, or klondike, the literature's (dealt cards face down until uncovered).")
def solve_command(code, budget_ms, memory_mb, as_json, sample, draw, seed, variant):
    """Solve the deal CODE from its start, or classify --sample N random deals."""
    memory_bytes = memory_mb << 20
    if sample is None:
        if code is None:
            raise click.UsageError("give a game CODE or --sample N")
        _solve_one(code, budget_ms, memory_bytes, as_json, variant)
    else:
        if code is not None:
            raise click.UsageError("give either a game CODE or --sample N, not both")
        _sample(sample, int(draw), seed, budget_ms, memory_bytes, as_json, variant)


def _solve_one(text: str, budget_ms: int, memory_bytes: int, as_json: bool, variant: str = REFLECHI) -> None:
    try:
        code = GameCode.parse(text)
    except Rejection:
        raise click.BadParameter(f"not a game code: {text!r}", param_hint="CODE") from None
    solution = solve(Game.from_code(code, variant), budget_ms=budget_ms, memory_bytes=memory_bytes)
    if as_json:
        # the variant is named only when it is not ours, so that our answers stay as they were
        click.echo(json.dumps({"code": str(code), **({} if variant == REFLECHI else {"variant": variant}),
                               **solution.to_json()}))
        return
    budget = f" ({solution.reason} budget spent)" if solution.reason else ""
    click.echo(f"{code}: {solution.verdict}{budget}")
    if solution.line:
        click.echo(" ".join(str(action) for action in solution.line))
    click.echo(f"{solution.nodes} nodes, {solution.ms:.1f} ms")


def _sample(count: int, draw: int, seed: int, budget_ms: int, memory_bytes: int, as_json: bool,
            variant: str = REFLECHI) -> None:
    rng = random.Random(seed)
    codes = [GameCode(draw=draw, deal=rng.randrange(DEAL_COUNT)) for _ in range(count)]
    tally = dict.fromkeys(VERDICTS, 0)
    times: list[float] = []
    with click.progressbar(codes, label=f"Solving {count} draw-{draw} deals") as bar:
        for code in bar:
            solution = solve(Game.from_code(code, variant), budget_ms=budget_ms, memory_bytes=memory_bytes)
            tally[solution.verdict] += 1
            times.append(solution.ms)
    times.sort()
    median = statistics.median(times)
    p99 = times[min(len(times) - 1, int(0.99 * len(times)))]
    if as_json:
        click.echo(json.dumps({
            **({} if variant == REFLECHI else {"variant": variant}),
            "draw": draw, "seed": seed, "deals": count, "budget_ms": budget_ms,
            "counts": tally, "shares": {v: tally[v] / count for v in VERDICTS},
            "median_ms": round(median, 3), "p99_ms": round(p99, 3),
        }))
        return
    click.echo(f"draw {draw}, {count} deals, seed {seed}, budget {budget_ms} ms"
               + ("" if variant == REFLECHI else f", variant {variant}"))
    for verdict in VERDICTS:
        click.echo(f"  {verdict:10s} {tally[verdict]:6d}  {tally[verdict] / count:7.1%}")
    click.echo(f"  median {median:.1f} ms, p99 {p99:.1f} ms")

"""``flask --app service vectors``: the vectors as JSONL, the coverage on stderr."""

from __future__ import annotations

import sys

import click

from .results import dumps
from .writer import DEFAULT_ACTIONS, VectorWriter


def generate(seed: int = 1, actions: int = DEFAULT_ACTIONS,
             minimums: dict[str, int] | None = None) -> tuple[list[dict], VectorWriter]:
    """Every line of a vector set, and the writer whose coverage counts them."""
    writer = VectorWriter(seed, actions, minimums)
    return list(writer.lines()), writer


def coverage_report(writer: VectorWriter) -> str:
    """The coverage, one entry a line with its minimum, then the other counts."""
    rows = []
    for entry, least in writer.minimums.items():
        count = writer.coverage[entry]
        rows.append(f"{'ok  ' if count >= least else 'LOW '} {count:7d}  (min {least:5d})  {entry}")
    for entry in sorted(set(writer.coverage) - set(writer.minimums)):
        rows.append(f"     {writer.coverage[entry]:7d}               {entry}")
    return "\n".join(rows)


@click.command("vectors")
@click.option("--out", "out_path", type=click.Path(dir_okay=False, writable=True), default="-", show_default=True,
              help="The JSONL file to write ('-': stdout).")
@click.option("--seed", type=int, default=1, show_default=True, help="Seed of the random play and probes.")
@click.option("--actions", type=click.IntRange(min=1, max=1_000_000), default=DEFAULT_ACTIONS, show_default=True,
              help="Least number of actions in the game lines.")
def vectors_command(out_path: str, seed: int, actions: int) -> None:
    """Write conformance vectors (JSONL) from the Python engine; coverage on stderr."""
    writer = VectorWriter(seed, actions)
    with click.open_file(out_path, "w", encoding="utf-8") as out:
        for line in writer.lines():
            out.write(dumps(line) + "\n")
    click.echo(coverage_report(writer), err=True)
    missing = writer.missing()
    if missing:
        raise click.ClickException("minimums not met: " + "; ".join(
            f"{entry} {count}/{least}" for entry, (count, least) in missing.items()))


def main() -> None:  # pragma: no cover - `python -m service.vectors`, without Flask
    vectors_command.main(sys.argv[1:], prog_name="vectors")

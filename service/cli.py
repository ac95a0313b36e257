"""Flask commands: ``verify``, ``purge``, ``pool`` (and ``solve`` from the solver, ``vectors``)."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta

import click
import yaml
from flask import current_app
from flask.cli import with_appcontext

from .engine.deal import DRAW_MODES
from .solver.commands import solve_command
from .store import GameRecord, end_read, games, winnable_deals
from .store.retention import purge_answers, purge_idle_games
from .store.verification import describe, verify
from .vectors import vectors_command


def verify_game(row: GameRecord) -> list[str]:
    """What differs between a stored game and the replay of its history from its game code."""
    return [describe(difference) for difference in verify(row)["differences"]]


@click.command("verify")
@click.argument("game_id", required=False)
@click.option("--all", "check_all", is_flag=True, help="Verify every stored game.")
def verify_command(game_id: str | None, check_all: bool) -> None:
    """Replay stored histories from their codes and report games whose state differs."""
    if bool(game_id) == check_all:
        raise click.UsageError("give a GAME_ID or --all")
    if game_id:
        if games.read_game(game_id) is None:
            raise click.ClickException(f"no game {game_id}")
        ids = [game_id]
    else:
        ids = games.all_game_ids()
    bad = 0
    with click.progressbar(ids, label="verifying") as bar:
        for current in bar:
            problems = verify_game(games.read_game(current))
            end_read()  # one game's snapshot at a time, not one over the whole run
            if problems:
                bad += 1
                click.echo(f"\n{current}: " + "; ".join(problems), err=True)
    click.echo(f"verified {len(ids)} games: {len(ids) - bad} consistent, {bad} inconsistent")
    if bad:
        raise SystemExit(1)


class _NoAliasDumper(yaml.SafeDumper):
    def ignore_aliases(self, data) -> bool:
        return True


def openapi_yaml() -> str:
    """The app's OpenAPI document as YAML, in the order the code declares it."""
    spec = current_app.extensions["problem_api"].spec.to_dict()
    return yaml.dump(spec, Dumper=_NoAliasDumper, sort_keys=False, allow_unicode=True, width=100)


@click.command("openapi-yaml")
@click.argument("path", type=click.Path(dir_okay=False), default="openapi.yaml")
def openapi_yaml_command(path: str) -> None:
    """Write the OpenAPI document generated from the code to PATH (default openapi.yaml)."""
    with open(path, "w", encoding="utf-8") as out:
        out.write(openapi_yaml())
    click.echo(f"wrote {path}")


@click.command("purge")
@click.option("--days", type=click.IntRange(min=1), default=None,
              help="Idle days after which an unfinished anonymous game goes (default RETENTION_DAYS, 30).")
@click.option("--answers-hours", type=click.IntRange(min=1), default=None,
              help="Age of stored Idempotency-Key answers to delete (default IDEMPOTENCY_RETENTION_HOURS, 24).")
@click.option("--batch", type=click.IntRange(min=1, max=10_000), default=500, help="Rows per transaction.")
@with_appcontext
def purge_command(days: int | None, answers_hours: int | None, batch: int) -> None:
    """Delete abandoned anonymous games and old stored answers; safe while serving (run it from cron)."""
    config = current_app.config
    now = datetime.now(UTC)
    games = purge_idle_games(now - timedelta(days=days or config["RETENTION_DAYS"]), batch)
    answers = purge_answers(now - timedelta(hours=answers_hours or config["IDEMPOTENCY_RETENTION_HOURS"]), batch)
    click.echo(f"purged {games} idle anonymous games and {answers} stored answers")


@click.group("pool")
def pool_group() -> None:
    """The pool of proven-winnable deals behind {"winnable": true}."""


@pool_group.command("status")
@with_appcontext
def pool_status() -> None:
    """How many deals wait per draw mode."""
    for draw in DRAW_MODES:
        click.echo(f"draw {draw}: {winnable_deals.size(draw)} deals")


@pool_group.command("fill")
@click.option("--draw", type=click.Choice(["1", "3", "both"]), default="both")
@click.option("--target", type=click.IntRange(min=0, max=100_000), default=None,
              help="Deals to have waiting per draw mode (default WINNABLE_POOL_TARGET).")
@click.option("--budget-ms", type=click.IntRange(min=1, max=60_000), default=500,
              help="CPU milliseconds per attempted deal.")
@with_appcontext
def pool_fill(draw: str, target: int | None, budget_ms: int) -> None:
    """Search winnable deals and add them (each line replayed through the engine) up to TARGET."""
    target = current_app.config["WINNABLE_POOL_TARGET"] if target is None else target
    for mode in DRAW_MODES if draw == "both" else (int(draw),):
        start = time.process_time()
        added = winnable_deals.fill(mode, target, budget_ms=budget_ms, deadline_s=24 * 3600)
        click.echo(f"draw {mode}: added {added}, {winnable_deals.size(mode)} waiting "
                   f"({time.process_time() - start:.1f} CPU-s)")


def register_commands(app) -> None:
    app.cli.add_command(purge_command)
    app.cli.add_command(pool_group)
    app.cli.add_command(verify_command)
    app.cli.add_command(openapi_yaml_command)
    app.cli.add_command(solve_command)
    app.cli.add_command(vectors_command)

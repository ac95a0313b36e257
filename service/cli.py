"""Flask commands: ``flask --app service verify`` (and ``solve`` from the solver)."""

from __future__ import annotations

import click
import yaml
from flask import current_app
from sqlalchemy import select

from .extensions import db
from .solver.commands import solve_command
from .store import Game
from .store.verification import describe, verify


def verify_game(row: Game) -> list[str]:
    """What differs between a stored game and the replay of its history from its code."""
    return [describe(difference) for difference in verify(row)["differences"]]


@click.command("verify")
@click.argument("game_id", required=False)
@click.option("--all", "check_all", is_flag=True, help="Verify every stored game.")
def verify_command(game_id: str | None, check_all: bool) -> None:
    """Replay stored histories from their codes and report games whose state differs."""
    if bool(game_id) == check_all:
        raise click.UsageError("give a GAME_ID or --all")
    if game_id:
        row = db.session.get(Game, game_id)
        if row is None:
            raise click.ClickException(f"no game {game_id}")
        ids = [game_id]
    else:
        ids = db.session.execute(select(Game.id).order_by(Game.created_at)).scalars().all()
    bad = 0
    with click.progressbar(ids, label="verifying") as bar:
        for current in bar:
            problems = verify_game(db.session.get(Game, current))
            db.session.expunge_all()
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


def register_commands(app) -> None:
    app.cli.add_command(verify_command)
    app.cli.add_command(openapi_yaml_command)
    app.cli.add_command(solve_command)

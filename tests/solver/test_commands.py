"""The ``solve`` click command, run through click's test runner (no app needed)."""

from __future__ import annotations

import json

from click.testing import CliRunner

from service.engine import Action, Game
from service.solver.commands import solve_command


def test_solve_one_code_json():
    result = CliRunner().invoke(solve_command, ["tf1-d1n-aaaaaac", "--json", "--budget-ms", "3000"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["code"] == "TF1-D1N-AAAAAAC" and data["verdict"] == "winnable"
    game = Game.from_code(data["code"])
    for text in data["line"]:
        game.apply(Action.parse(text))
    assert game.won


def test_solve_one_code_text_and_bad_code():
    result = CliRunner().invoke(solve_command, ["TF1-D3N-AAAAAAC"])
    assert result.exit_code == 0 and "TF1-D3N-AAAAAAC: unwinnable" in result.output
    assert CliRunner().invoke(solve_command, ["nope"]).exit_code == 2
    assert CliRunner().invoke(solve_command, []).exit_code == 2


def test_sample_summary_is_deterministic():
    args = ["--sample", "4", "--draw", "3", "--seed", "5", "--budget-ms", "50", "--json"]
    first = json.loads(CliRunner().invoke(solve_command, args).output.strip().splitlines()[-1])
    assert sum(first["counts"].values()) == 4 and first["draw"] == 3
    text = CliRunner().invoke(solve_command, args[:-1])
    assert text.exit_code == 0 and "winnable" in text.output and "median" in text.output


def test_solve_one_code_under_the_literature_variant():
    """TF1-D3N-SFEKBMA is won by ours (t2>t7 moves TS 9D) and lost when TS is dealt face down."""
    ours = json.loads(CliRunner().invoke(solve_command, ["TF1-D3N-SFEKBMA", "--json"]).output)
    assert ours["verdict"] == "winnable" and ours["line"][0] == "t2>t7:TS" and "variant" not in ours
    result = CliRunner().invoke(solve_command, ["TF1-D3N-SFEKBMA", "--variant", "klondike", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert (data["variant"], data["verdict"]) == ("klondike", "unwinnable")
    won = json.loads(CliRunner().invoke(solve_command, ["TF1-D1N-AAAAAAC", "--variant", "klondike", "--json"]).output)
    assert won["verdict"] == "winnable"
    game = Game.from_code(won["code"], "klondike")
    for text in won["line"]:
        game.apply(Action.parse(text))
    assert game.won

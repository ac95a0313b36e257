"""flask --app service vectors: deterministic, self-consistent, and strict about its minimums."""

from __future__ import annotations

import contextlib
import json

import pytest
from click.testing import CliRunner

from service.engine import Action, Game, NotationError, Rejection, replay
from service.vectors import WON, dumps, generate, replay_results, vectors_command
from service.vectors import writer as vector_writer

#: A small set: a few wins, a few hundred actions, every line kind.
SMALL = {WON: 2, "UNDO_LIMIT_REACHED": 1, "TABLEAU_COLOUR": 1}


def test_a_seed_gives_the_same_lines_and_another_seed_others():
    first, _ = generate(seed=5, actions=400, minimums=SMALL)
    again, _ = generate(seed=5, actions=400, minimums=SMALL)
    other, _ = generate(seed=6, actions=400, minimums=SMALL)
    assert [dumps(line) for line in first] == [dumps(line) for line in again]
    assert [dumps(line) for line in first] != [dumps(line) for line in other]


def test_every_line_says_what_the_engine_does():
    lines, writer = generate(seed=3, actions=600, minimums=SMALL)
    assert not writer.missing()
    kinds = {line["kind"] for line in lines}
    assert kinds == {"deal", "game", "legal", "state"}
    for line in lines:
        if line["kind"] == "game":
            expected = replay_results(line["code"], line["actions"])
            assert {key: line[key] for key in ("results", "error") if key in line} == expected
            if "results" in line:
                assert len(line["outcomes"]) == len(line["actions"])
                assert [o is None for o in line["outcomes"]] == [not r["ok"] for r in line["results"]]
        elif line["kind"] in ("legal", "state"):
            game = Game.from_code(line["code"])
            for notation in line["actions"]:
                with contextlib.suppress(Rejection, NotationError):  # a refused action changes nothing
                    game.apply(Action.parse(notation))
            if line["kind"] == "legal":
                assert [str(action) for action in game.legal_actions()] == line["legal"]
            else:
                assert game.to_state() == line["state"] and Game.from_state(line["state"]) == game
    won = [line for line in lines if line["kind"] == "game" and any(
        result["ok"] and result["game"]["status"] == "won" for result in line.get("results", ()))]
    assert len(won) >= 2
    for line in won:
        after = line["results"][[r.get("game", {}).get("status") for r in line["results"]].index("won") + 1:]
        assert after and all(r["code"] in ("GAME_FINISHED", "INVALID_REQUEST") for r in after)


def test_the_command_writes_jsonl_and_its_coverage(tmp_path, monkeypatch):
    monkeypatch.setattr(vector_writer, "MINIMUMS", SMALL)  # where the command's writer reads its defaults
    out = tmp_path / "v.jsonl"
    result = CliRunner().invoke(vectors_command, ["--out", str(out), "--seed", "4", "--actions", "300"])
    assert result.exit_code == 0, result.output
    assert "ok" in result.stderr and "games won (solver lines)" in result.stderr
    lines = out.read_text(encoding="utf-8").splitlines()
    assert all(line == dumps(json.loads(line)) for line in lines)
    stdout = CliRunner().invoke(vectors_command, ["--seed", "4", "--actions", "300"])
    assert stdout.stdout.splitlines() == lines


def test_the_command_fails_when_a_minimum_is_not_met(monkeypatch):
    monkeypatch.setattr(vector_writer, "MINIMUMS", {**SMALL, "a case no game reaches": 1})
    monkeypatch.setattr(vector_writer, "MAX_RANDOM_GAMES", 3)
    result = CliRunner().invoke(vectors_command, ["--out", "-", "--actions", "100"])
    assert result.exit_code == 1
    assert "LOW        0  (min     1)  a case no game reaches" in result.stderr
    assert "minimums not met: " in result.stderr and "a case no game reaches 0/1" in result.stderr


@pytest.mark.parametrize("code", ["TF1-D2N-AAAAAAB", "🂡" * 70])
def test_a_bad_code_is_one_error_with_64_code_points(code):
    assert replay_results(code, ["draw"]) == {"error": {"code": "INVALID_GAME_CODE", "params": {"code": code[:64]}}}


def test_a_malformed_notation_is_invalid_request_and_changes_nothing():
    results = replay_results("TF1-D1N-AAAAAAB", ["draw", "t9>t1", "undo"])["results"]
    assert results[1] == {"ok": False, "code": "INVALID_REQUEST", "params": {"notation": "t9>t1"}}
    assert results[2]["game"] == replay("TF1-D1N-AAAAAAB", ["draw", "undo"]).view()

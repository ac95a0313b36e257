"""The JavaScript engine (clients/js) proven equal to service/engine, in one run.

Vectors are generated fresh from the Python engine (``flask --app service vectors``, default
size), every game goes through the conformance runner (``node clients/js/bin/replay.mjs``),
and every other line (deals, legal actions, outcomes, states both ways, fromJSON) through
``clients/js/scripts/check-vectors.mjs``; then the package's own tests (``node --test``:
unit, fast-check properties, the committed types), and ``npm pack`` installed in an empty
directory where the README's example must print what the README says.
"""

from __future__ import annotations

import json
import re
import subprocess
from collections import Counter

import pytest
from click.testing import CliRunner

from service.engine import ACTION_CODES, DEAL_COUNT, PRECEDENCE, RULE_PARAMS, RULES_VERSION, UNDO_LIMIT, Game, replay
from service.engine.game import STATE_VERSION
from service.engine.notation import KINDS
from service.vectors import dumps, replay_results, vectors_command
from tests.clients.conftest import JS

RUNNER = JS / "bin" / "replay.mjs"
CHECK = JS / "scripts" / "check-vectors.mjs"


@pytest.fixture(scope="module")
def vectors(tmp_path_factory):
    """The default vector set, written by the command itself: ``(path, lines, coverage report)``."""
    path = tmp_path_factory.mktemp("vectors") / "vectors.jsonl"
    result = CliRunner().invoke(vectors_command, ["--out", str(path)])
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return path, lines, result.stderr


def test_the_vectors_meet_their_minimums(vectors, report):
    _, lines, coverage = vectors
    assert "LOW" not in coverage
    kinds = Counter(line["kind"] for line in lines)
    assert kinds["deal"] >= 1000 and kinds["legal"] and kinds["state"]
    report(f"vectors: {dict(kinds)}; coverage (count, minimum, entry):")
    for row in coverage.splitlines():
        report("  " + row.strip())


def test_the_runner_answers_every_game_as_the_python_engine(vectors, node, report):
    path, lines, _ = vectors
    games = [line for line in lines if line["kind"] == "game"]
    feed = "".join(dumps({"code": game["code"], "actions": game["actions"]}) + "\n" for game in games)
    run = subprocess.run([node, str(RUNNER)], input=feed.encode(), capture_output=True, timeout=600)
    assert run.returncode == 0, run.stderr.decode()
    answers = run.stdout.decode().splitlines()
    assert len(answers) == len(games), "one answer line per game line"
    actions = sum(len(game.get("results", ())) for game in games)
    refused = Counter(result["code"] for game in games for result in game.get("results", ()) if not result["ok"])
    refused.update(game["error"]["code"] for game in games if "error" in game)
    mismatched = [(game, answer) for game, answer in zip(games, answers, strict=True)
                  if _canonical(json.loads(answer)) != _canonical(_expected(game))]
    same_bytes = sum(answer == dumps(_expected(game)) for game, answer in zip(games, answers, strict=True))
    report(f"runner: {len(games)} games, {actions} actions, {sum(refused.values())} refused; "
           f"mismatches: {len(mismatched)} games; lines byte-equal to the vectors: {same_bytes}/{len(games)}")
    report("  refused by code: " + ", ".join(f"{code} {count}" for code, count in sorted(refused.items())))
    assert not mismatched, _first_difference(*mismatched[0])


def test_deals_legal_actions_outcomes_states_and_from_json_agree(vectors, node, tmp_path, report):
    path, lines, _ = vectors
    written = tmp_path / "js-states.jsonl"
    run = subprocess.run([node, str(CHECK), str(path), "--states-out", str(written)], capture_output=True,
                         text=True, timeout=600)
    summary = json.loads(run.stdout)
    report(f"check-vectors: {summary['checked']}; mismatches: {summary['mismatches']}")
    assert run.returncode == 0 and summary["mismatches"] == 0, summary["first"] or run.stderr
    # the other way round: the server's engine reads the JS engine's states
    states = [line for line in lines if line["kind"] == "state"]
    js_states = [json.loads(line) for line in written.read_text(encoding="utf-8").splitlines()]
    assert len(js_states) == len(states)
    for line, state in zip(states, js_states, strict=True):
        read = Game.from_state(state)
        assert read.to_state() == state == line["state"]
        assert read == replay(line["code"], _accepted(line["code"], line["actions"]))


def test_the_tables_are_the_python_engine_s(node):
    """The constants a port copies: what no vector can show wrong until a rule uses them."""
    script = ("import('./src/index.js').then((m) => console.log(JSON.stringify({precedence: m.PRECEDENCE, "
              "actionCodes: m.ACTION_CODES, params: m.RULE_PARAMS, undoLimit: m.UNDO_LIMIT, "
              "rules: m.RULES_VERSION, state: m.STATE_VERSION, kinds: m.KINDS, deals: m.DEAL_COUNT})))")
    run = subprocess.run([node, "--input-type=module", "-e", script], cwd=JS, capture_output=True, text=True,
                         timeout=60, check=True)
    assert json.loads(run.stdout) == {
        "precedence": list(PRECEDENCE), "actionCodes": list(ACTION_CODES),
        "params": {code: list(names) for code, names in RULE_PARAMS.items()}, "undoLimit": UNDO_LIMIT,
        "rules": RULES_VERSION, "state": STATE_VERSION, "kinds": list(KINDS), "deals": DEAL_COUNT,
    }


def test_the_package_tests_pass(dev_dependencies, node, report):
    # the files by name: node 18-20 take a folder, later ones glob patterns
    files = sorted(str(path.relative_to(JS)) for path in (JS / "test").glob("*.test.js"))
    run = subprocess.run([node, "--test", "--test-reporter=tap", *files], cwd=JS, capture_output=True, text=True,
                         timeout=900)
    counts = dict(re.findall(r"^# (tests|pass|fail|skipped) (\d+)$", run.stdout, re.M))
    report(f"node --test clients/js/test/: {counts.get('pass')} passed, {counts.get('fail')} failed, "
           f"{counts.get('skipped')} skipped (unit, fast-check properties, runner, committed types)")
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-2000:]
    assert counts.get("fail") == "0" and counts.get("skipped") == "0" and int(counts["pass"]) > 0


def test_the_packed_package_installs_and_its_readme_example_runs(node, npm, dev_dependencies, tmp_path, report):
    packed = subprocess.run([npm, "pack", "--json", "--pack-destination", str(tmp_path)], cwd=JS,
                            capture_output=True, text=True, timeout=300, check=True)
    [tarball] = json.loads(packed.stdout)
    files = {entry["path"] for entry in tarball["files"]}
    assert {"package.json", "README.md", "src/index.js", "types/index.d.ts", "bin/replay.mjs"} <= files
    assert not any(name.startswith(("test/", "scripts/", "node_modules/")) for name in files)
    app = tmp_path / "app"
    app.mkdir()
    (app / "package.json").write_text('{"name": "readme-example", "private": true, "type": "module"}\n')
    subprocess.run([npm, "install", "--no-audit", "--no-fund", "--offline", str(tmp_path / tarball["filename"])],
                   cwd=app, capture_output=True, text=True, timeout=300, check=True)
    readme = (JS / "README.md").read_text(encoding="utf-8")
    example = re.search(r"```js\n(.*?)```\n\nIt prints:\n\n```text\n(.*?)```", readme, re.S)
    assert example, "the README's example and its output"
    code, printed = example.groups()
    assert len([line for line in code.splitlines() if line.strip()]) <= 10, "a ten-line example"
    (app / "example.js").write_text(code, encoding="utf-8")
    run = subprocess.run([node, "example.js"], cwd=app, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert run.stdout == printed
    runner = subprocess.run([str(app / "node_modules" / ".bin" / "solitaire-reflechi-replay")],
                            input='{"code": "TF1-D1N-AAAAAAB", "actions": ["draw"]}\n', capture_output=True,
                            text=True, timeout=60)
    assert json.loads(runner.stdout)["results"][0]["game"]["stock"] == 23
    # a TypeScript user finds the types through the package's exports
    (app / "use.ts").write_text(TYPESCRIPT_USER, encoding="utf-8")
    checked = subprocess.run([node, str(dev_dependencies / "typescript" / "bin" / "tsc"), "--noEmit", "--strict",
                              "--module", "nodenext", "--moduleResolution", "nodenext", "use.ts"],
                             cwd=app, capture_output=True, text=True, timeout=300)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    report(f"npm pack: {tarball['filename']}, {len(files)} files, {tarball['size']} bytes; installed offline, "
           "the README example and the bin runner work")


TYPESCRIPT_USER = """\
import { Action, Game, Rejection, RULES_VERSION, type GameJSON, type GameState } from "solitaire-reflechi-engine";
const game: Game = Game.fromCode("TF1-D1N-AAAAAAB");
const view: GameJSON = game.toJSON();
const state: GameState = game.toState();
const legal: Action[] = game.legalActions();
try {
  game.apply("t1>t1");
} catch (error) {
  if (error instanceof Rejection) console.log(error.code.length, view.stock, state.undo_stack, legal, RULES_VERSION);
}
"""


def _expected(game: dict) -> dict:
    """The runner's line for a vector's game line."""
    return {"error": game["error"]} if "error" in game else {"results": game["results"]}


def _canonical(value) -> str:
    """JSON with sorted keys: tells true from 1, which Python's == does not."""
    return json.dumps(value, sort_keys=True)


def _accepted(code: str, notations: list[str]) -> list[str]:
    """The notations the Python engine accepts, in order (what the server's history holds)."""
    results = replay_results(code, notations)["results"]
    return [notation for notation, result in zip(notations, results, strict=True) if result["ok"]]


def _first_difference(game: dict, answer: str) -> str:
    """The first differing action of a game, with what each engine said."""
    got = json.loads(answer)
    if "results" not in got or "results" not in game:
        return f"{game['code']}: expected {_expected(game)}, the runner said {got}"
    for index, (want, have) in enumerate(zip(game["results"], got["results"], strict=False)):
        if _canonical(want) != _canonical(have):
            before = next((r["game"] for r in reversed(game["results"][:index]) if r["ok"]), "the deal")
            return (f"{game['code']} action {index} {game['actions'][index]!r}:\n  python: {dumps(want)}\n"
                    f"  js:     {dumps(have)}\n  after: {dumps(before) if isinstance(before, dict) else before}")
    return f"{game['code']}: {len(game['results'])} results expected, {len(got['results'])} given"

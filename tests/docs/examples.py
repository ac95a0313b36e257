"""Read the executable examples of ``docs/EXAMPLES.md`` and replay them against the API.

Format (explained at the top of EXAMPLES.md): each ``## `` section holding an
```` ```http ```` block is an example. ``Setup: `CODE` after `a1, a2 ×3, …` `` deals
the game and plays the actions in the engine's notation (``×N`` repeats one);
then each ```` ```http ```` request is sent in turn and compared with the
```` ```json ```` block after it: the status line, any header shown, and every
JSON field shown (objects are compared on the keys shown, anything else exactly);
an error must show its ``code``, a game answer that shows none must be the
example's game.
``{id}`` stands for the example's game. Action requests carry the game's token.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from service.engine import Action

EXAMPLES_MD = Path(__file__).resolve().parents[2] / "docs" / "EXAMPLES.md"

_SECTION = re.compile(r"^## (.+)$", re.M)
_BLOCK = re.compile(r"^```(\w*)\n(.*?)^```\s*$", re.M | re.S)
_SETUP = re.compile(r"^Setup: `([^`]+)`(?:\s+after\s+`([^`]+)`)?", re.M)
_REPEAT = re.compile(r"^(.*?)\s*×\s*(\d+)$")
_STATUS = re.compile(r"^HTTP/[\d.]+ (\d{3})\b")


@dataclass
class Exchange:
    method: str
    path: str
    headers: dict
    body: object
    status: int
    expected_headers: dict
    expected: dict


@dataclass
class Example:
    title: str
    code: str | None
    setup: list[str]
    exchanges: list[Exchange] = field(default_factory=list)


def _split_head(text: str) -> tuple[str, dict, str]:
    """First line, ``Name: value`` header lines, and the rest after a blank line."""
    lines = text.strip("\n").split("\n")
    first, headers, i = lines[0].strip(), {}, 1
    while i < len(lines) and re.match(r"^[A-Za-z-]+: ", lines[i]):
        name, value = lines[i].split(": ", 1)
        headers[name] = value.strip()
        i += 1
    return first, headers, "\n".join(lines[i:]).strip()


def expand_setup(text: str) -> list[str]:
    """``"draw ×3, t7>fH"`` → ``["draw", "draw", "draw", "t7>fH"]``."""
    actions = []
    for part in re.split(r",\s*", " ".join(text.split())):
        repeat = _REPEAT.match(part)
        actions += [repeat.group(1)] * int(repeat.group(2)) if repeat else [part]
    return actions


def parse_examples(text: str) -> list[Example]:
    heads = list(_SECTION.finditer(text))
    examples = []
    for n, head in enumerate(heads):
        section = text[head.end(): heads[n + 1].start() if n + 1 < len(heads) else len(text)]
        blocks = [(m.group(1), m.group(2)) for m in _BLOCK.finditer(section)]
        if not any(lang == "http" for lang, _ in blocks):
            continue
        setup = _SETUP.search(section)
        example = Example(head.group(1).strip(), setup.group(1) if setup else None,
                          expand_setup(setup.group(2)) if setup and setup.group(2) else [])
        pending = None
        for lang, content in blocks:
            if lang == "http":
                assert pending is None, f"{example.title}: two requests without an answer"
                request_line, headers, body = _split_head(content)
                method, path = request_line.split()
                pending = (method, path, headers, json.loads(body) if body else None)
            elif lang == "json" and pending is not None:
                status_line, expected_headers, body = _split_head(content)
                status = _STATUS.match(status_line)
                assert status, f"{example.title}: the answer must start with a status line"
                example.exchanges.append(Exchange(*pending, int(status.group(1)), expected_headers,
                                                  json.loads(body)))
                pending = None
        assert pending is None, f"{example.title}: a request without its answer"
        examples.append(example)
    return examples


def load_examples() -> list[Example]:
    return parse_examples(EXAMPLES_MD.read_text(encoding="utf-8"))


def request_for(notation: str) -> tuple[str, dict | None]:
    """The endpoint (after ``/v1/games/{id}/``) and body for one action of the notation."""
    action = Action.parse(notation)
    body = {k: v for k, v in action.to_json().items() if k != "action"}
    endpoint = {"move": "moves", "take-back": "take-back", "tap": "tap"}.get(action.kind, action.kind)
    return endpoint, body or None


def mismatches(expected, actual, where: str = "") -> list[str]:
    """Every shown field that differs: objects on the keys shown, anything else exactly."""
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return [f"{where or '.'}: expected an object, got {actual!r}"]
        out = []
        for key, value in expected.items():
            if key not in actual:
                out.append(f"{where}.{key}: missing")
            else:
                out += mismatches(value, actual[key], f"{where}.{key}")
        return out
    return [] if expected == actual else [f"{where}: documented {expected!r}, got {actual!r}"]


def substitute(value, game_id: str | None):
    """Replace ``{id}`` by the example's game id in every string of ``value``."""
    if isinstance(value, str):
        return value.replace("{id}", game_id) if game_id else value
    if isinstance(value, dict):
        return {k: substitute(v, game_id) for k, v in value.items()}
    if isinstance(value, list):
        return [substitute(v, game_id) for v in value]
    return value


def run_example(client, example: Example) -> list[str]:
    """Deal, replay the setup, send each request; every difference from the documentation."""
    game_id, auth = None, {}
    if example.code is not None:
        created = client.post("/v1/games", json={"code": example.code})
        assert created.status_code == 201, created.get_json()
        game_id = created.get_json()["id"]
        auth = {"Authorization": f"Bearer {created.get_json()['token']}"}
        for number, notation in enumerate(example.setup, 1):
            endpoint, body = request_for(notation)
            answer = client.post(f"/v1/games/{game_id}/{endpoint}", json=body, headers=auth)
            assert answer.status_code == 200, (
                f"{example.title}: setup action {number} {notation!r} refused: {answer.get_json()}")
    failures = []
    for number, exchange in enumerate(example.exchanges, 1):
        path = substitute(exchange.path, game_id)
        headers = {**auth, **exchange.headers}
        kwargs = {"json": exchange.body} if exchange.body is not None else {}
        answer = client.open(path, method=exchange.method, headers=headers, **kwargs)
        where = f"request {number} ({exchange.method} {exchange.path})"
        if answer.status_code != exchange.status:
            failures.append(f"{where}: status documented {exchange.status}, got {answer.status_code}: "
                            f"{answer.get_data(as_text=True)[:300]}")
        for name, value in exchange.expected_headers.items():
            if answer.headers.get(name) != value:
                failures.append(f"{where}: header {name} documented {value!r}, got {answer.headers.get(name)!r}")
        body = answer.get_json(silent=True)
        if "code" not in exchange.expected and example.code and exchange.status < 400:
            # a game answer not showing its code is still checked to be the example's game
            actual_code = body.get("code") if isinstance(body, dict) else None
            if actual_code != example.code.upper():
                failures.append(f"{where}: code {actual_code!r}, not the example's {example.code}")
        failures += [f"{where}: {text}" for text in
                     mismatches(substitute(exchange.expected, game_id), body)]
    return failures

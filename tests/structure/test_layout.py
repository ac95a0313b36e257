"""The shape of ``service/`` that a newcomer relies on: no import circle, layers, short modules.

One direction of dependency, inner to outer: engine ← solver ← store ← usecases ← api
(docs/ARCHITECTURE.md in the spec, the README's tour). A circle makes a reader jump
back and forth; an outer import in an inner layer makes the inner one untestable alone.
"""

from __future__ import annotations

import ast

import pytest

from tests.structure.imports import SERVICE, circles, python_graph, python_modules, script_graph

GRAPH = python_graph()

#: The modules allowed over MAX_LINES: the C core, the reference search and the rules themselves.
LONG_MODULES = {"service/solver/_csearch.c", "service/solver/search.py", "service/engine/game.py"}
MAX_LINES = 300

#: Each layer and the packages of ``service`` it may import (besides its own and the top-level helpers).
LAYERS = {
    "service.engine": set(),
    "service.solver": {"service.engine"},
    "service.store": {"service.engine", "service.solver"},
    "service.usecases": {"service.engine", "service.solver", "service.store", *{
        f"service.telemetry.{name}" for name in ("metrics", "timing", "request_ids", "spans")}},
}
#: Modules of ``service`` itself that any layer may use: the extensions' handles, the problem codes, bounded JSON.
_TOP_LEVEL_HELPERS = {"service.extensions", "service.problem_codes", "service.jsonin"}
#: Flask and its kin: the HTTP layer's, never a use case's.
WEB_FRAMEWORK = ("flask", "werkzeug", "webargs", "flask_smorest", "flask_cors", "flask_swagger_ui")


def test_the_python_modules_import_no_circle():
    assert circles(GRAPH) == []


def test_the_graph_sees_every_module_and_its_imports():
    # A check of the check: the known circle-free modules and edges are found at all.
    assert "service.usecases.actions" in GRAPH and "service.store.games" in GRAPH["service.usecases.actions"]
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_the_play_page_scripts_import_no_circle():
    # one way: engine → play.js (the game) → the view; input dispatches actions
    assert circles(script_graph(SERVICE / "web" / "static")) == []


@pytest.mark.parametrize("layer", LAYERS)
def test_an_inner_layer_imports_no_outer_one(layer):
    allowed = LAYERS[layer] | {layer}
    wrong = {(module, target) for module, targets in GRAPH.items() if module.startswith(layer)
             for target in targets
             if target.count(".") >= 1 and not any(target == name or target.startswith(name + ".")
                                                   for name in allowed | _TOP_LEVEL_HELPERS)}
    assert wrong == set()



#: The telemetry modules a use case may count with: no Flask in them either.
_PLAIN_TELEMETRY = ("service.telemetry.metrics", "service.telemetry.timing", "service.telemetry.request_ids",
                    "service.telemetry.spans", "service.telemetry")


def test_no_use_case_imports_flask_or_its_kin():
    modules = {name: path for name, path in python_modules().items()
               if name.startswith("service.usecases") or name in _PLAIN_TELEMETRY}
    assert len([name for name in modules if name.startswith("service.telemetry")]) == len(_PLAIN_TELEMETRY)
    assert modules, "service/usecases/ is missing"
    offenders = {}
    for name, path in modules.items():
        imported = _top_level_imports(path)
        found = sorted(module for module in imported if module.split(".")[0] in WEB_FRAMEWORK)
        if found:
            offenders[name] = found
    assert offenders == {}


def _top_level_imports(path) -> set[str]:
    """Every module ``path`` imports by its absolute name, at any depth of the module."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found.add(node.module)
    return found


def test_no_module_is_over_300_lines_but_the_search_cores_and_the_rules():
    long = {}
    for path in sorted([*SERVICE.rglob("*.py"), *SERVICE.rglob("*.c")]):
        name = str(path.relative_to(SERVICE.parent))
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > MAX_LINES and name not in LONG_MODULES:
            long[name] = lines
    assert long == {}

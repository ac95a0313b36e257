"""The import graph of ``service/``, drawn from the source (no module is imported to draw it).

Every ``import`` and ``from … import`` of a module counts, at any depth (a function-level
import hides a circle from Python, not from a reader). ``from package import name``
points at the submodule ``package.name`` when there is one, else at the package's
``__init__``. The modules of the play page (``web/static/*.js``) have a graph of their own.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SERVICE = ROOT / "service"


def module_name(path: Path) -> str:
    """``service/store/games.py`` → ``service.store.games``; a package's ``__init__.py`` → the package."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def python_modules(package: Path = SERVICE) -> dict[str, Path]:
    """Every Python module under ``package`` by its dotted name, C extensions (by their source) included."""
    return {module_name(path): path for path in sorted([*package.rglob("*.py"), *package.rglob("*.c")])}


def _imported(path: Path, name: str, known: dict[str, Path]) -> set[str]:
    """The modules of ``known`` that the module ``name`` (at ``path``) imports."""
    is_package = path.name == "__init__.py"
    found: set[str] = set()
    if path.suffix != ".py":
        return found
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".")
                base = base[:len(base) - node.level + (1 if is_package else 0)]
                origin = ".".join(base + ([node.module] if node.module else []))
            else:
                origin = node.module or ""
            targets = [f"{origin}.{alias.name}" if f"{origin}.{alias.name}" in known else origin
                       for alias in node.names]
        else:
            continue
        for target in targets:
            while target and target not in known:  # `import service.store.games` names the module itself
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def python_graph(package: Path = SERVICE) -> dict[str, set[str]]:
    """Each module of ``package`` → the modules of ``package`` it imports."""
    known = python_modules(package)
    return {name: _imported(path, name, known) for name, path in known.items()}


#: ``import … from "./x.js"``, ``export … from "./x.js"`` and ``import "./x.js"``: relative specifiers only.
_JS_IMPORT = re.compile(r"""^\s*(?:import|export)\b[^'"]*?\bfrom\s*['"](\.[^'"]+)['"]"""
                        r"""|^\s*import\s*['"](\.[^'"]+)['"]""", re.M)


def script_graph(folder: Path) -> dict[str, set[str]]:
    """Each ES module of ``folder`` → the modules of ``folder`` it imports (relative specifiers only)."""
    graph: dict[str, set[str]] = {}
    for path in sorted(folder.glob("*.js")):
        targets = set()
        for match in _JS_IMPORT.finditer(path.read_text(encoding="utf-8")):
            target = (path.parent / (match.group(1) or match.group(2))).resolve()
            if target.parent == folder.resolve():
                targets.add(target.name)
        graph[path.name] = targets
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node (or a node that imports itself), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:  # Tarjan's algorithm; the graphs here are a few hundred edges
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1 or node in graph.get(node, ()):
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def dot(graph: dict[str, set[str]]) -> str:
    """The graph in Graphviz's DOT language (``python -m tests.structure.imports | dot -Tsvg``)."""
    lines = ["digraph imports {", "  rankdir=LR;"]
    for node in sorted(graph):
        lines += [f'  "{node}" -> "{target}";' for target in sorted(graph[node])]
    lines.append("}")
    return "\n".join(lines)


if __name__ == "__main__":
    print(dot(python_graph()))

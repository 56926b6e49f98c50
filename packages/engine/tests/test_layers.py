"""The engine's modules import each other without a circle, and check.py stays on top.

The imports are read from the source (``ast``), lazy ones inside functions included, so a
circle hidden behind a function-level import counts too. The package's ``__init__`` (the
facade, which re-exports the check API) is left out: no module imports it.
"""

from __future__ import annotations

import ast
import pathlib

import eutaxy.engine

ENGINE = pathlib.Path(eutaxy.engine.__file__).parent

#: Modules below the check API and the scenario layer: they must import neither.
_LOWER = ("plans", "session", "outcomes", "explore", "seeded", "exhaustive", "replay")


def engine_imports() -> dict[str, set[str]]:
    """Each engine module (by its name in the package) and the engine modules it imports."""
    modules = {path.stem for path in ENGINE.glob("*.py") if path.stem != "__init__"}
    graph: dict[str, set[str]] = {}
    for name in sorted(modules):
        imported: set[str] = set()
        for node in ast.walk(ast.parse((ENGINE / f"{name}.py").read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module is not None:
                if node.module.startswith("eutaxy.engine."):
                    imported.add(node.module.split(".")[2])
                elif node.module == "eutaxy.engine":
                    imported.update(alias.name for alias in node.names)
            elif isinstance(node, ast.Import):
                imported.update(alias.name.split(".")[2] for alias in node.names if alias.name.startswith("eutaxy.engine."))
        graph[name] = (imported & modules) - {name}
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(graph[node]):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            # Bounded by the stack: every pass pops one module.
            for _ in range(len(stack)):
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_circles_finds_a_planted_circle():
    """The detector itself: a three-module circle is found, a chain is not."""
    assert [["a", "b", "c"]] == circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}})
    assert [] == circles({"a": {"b"}, "b": {"c"}, "c": set()})


def test_the_engine_modules_import_each_other_without_a_circle():
    """A circle (plans -> scenario -> check -> ... was one of twelve) makes a layer unreadable alone."""
    graph = engine_imports()
    assert {"check", "plans", "session", "explore"} <= set(graph)
    assert [] == circles(graph)


def test_only_the_check_api_is_on_top():
    """Plans, sessions, outcomes and the strategies import neither the check API nor the scenario layer."""
    graph = engine_imports()
    for name in _LOWER:
        assert set() == graph[name] & {"check", "scenario"}, name
    assert all("check" not in imported for imported in graph.values())

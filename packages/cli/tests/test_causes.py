"""Every UNSUPPORTED cause either side emits is in core's registry, and nothing else is.

``eutaxy/core/vectors/causes.json`` is the one list of causes (core.verdicts reads it). The
causes themselves are string literals at the places that end a run: Python's
``loop.unsupported(...)``, ``unsupported_result(...)``, ``Stopped(cause=...)`` and end-state
dicts, the runtime's ``markUnsupported(...)``, ``hooks.unsupported(...)``, ``refuse(...)``,
``cause: "..."`` and ``causeFor``. This test scans those call forms in every layer's Python
sources (with the ast, resolving module-level string constants) and in the Cloudflare
runtime's .mjs files (with patterns over the call forms), and compares what it finds with
the registry, emitter by emitter. It lives in the cli package because only the cli sees
every layer. A scan that found a planted cause in a scratch file proves it can fail.
"""

from __future__ import annotations

import ast
import importlib.util
import re
from pathlib import Path

from eutaxy.cloudflare.host import find_runtime
from eutaxy.core import verdicts

#: The layers whose Python sources may end a run or a check.
LAYERS = ("core", "engine", "cloudflare", "aws", "report", "cli", "prover", "prover_smt", "prover_lean", "spec")
RUNTIME_EMITTER = "javascript:cloudflare-runtime"

#: Calls whose first positional argument is a cause.
_PY_CAUSE_FIRST_ARG = {"unsupported", "unsupported_result", "RunUnsupported", "markUnsupported"}
#: Calls whose ``cause=`` (or, for Cause, ``kind=``) keyword is a cause.
_PY_CAUSE_KEYWORD = {"Stopped": "cause", "Cause": "kind"}

_JS_CALL = re.compile(r"\b(?:markUnsupported|unsupported|refuse)\(\s*[\"'`]([^\"'`]*)[\"'`]")
_JS_FIELD = re.compile(r"\bcause:\s*[\"'`]([^\"'`]*)[\"'`]")
_JS_CAUSE_FUNCTION = re.compile(r"function\s+cause\w*\s*\([^)]*\)\s*\{(.*?)\n\}", re.S)
#: In a causeFor-like function, the strings it returns: after ``return``, ``?`` or ``:``.
_JS_RETURNED = re.compile(r"(?:\breturn|[?:])\s*\"([^\"]*)\"")


def _callee(node: ast.Call) -> str | None:
    if isinstance(node.func, ast.Name):
        return node.func.id
    if isinstance(node.func, ast.Attribute):
        return node.func.attr
    return None


def python_causes(files: dict[str, list[Path]]) -> dict[str, set[str]]:
    """Cause name -> the emitters (``python:<layer>``) whose sources emit it as a literal.

    ``files`` maps a layer to its source files. A cause given as a name resolves through the
    module-level string constants of every scanned file; any other expression (``end.cause``,
    a parameter) passes a cause through and is not an emission.
    """
    trees = {path: (layer, ast.parse(path.read_text(encoding="utf-8"), str(path))) for layer, paths in files.items() for path in paths}
    constants: dict[str, str] = {}
    for _, tree in trees.values():
        for node in tree.body:
            if (
                isinstance(node, ast.Assign)
                and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
                and node.targets[0].id.isupper()
                and isinstance(node.value, ast.Constant)
                and isinstance(node.value.value, str)
            ):
                constants.setdefault(node.targets[0].id, node.value.value)

    def resolve(value: ast.expr | None) -> str | None:
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            return value.value
        if isinstance(value, ast.Name):
            return constants.get(value.id)
        return None

    found: dict[str, set[str]] = {}
    for layer, tree in trees.values():
        for node in ast.walk(tree):
            emitted: ast.expr | None = None
            if isinstance(node, ast.Call):
                name = _callee(node)
                if name in _PY_CAUSE_FIRST_ARG and node.args:
                    emitted = node.args[0]
                elif name in _PY_CAUSE_KEYWORD:
                    word = _PY_CAUSE_KEYWORD[name]
                    emitted = next((k.value for k in node.keywords if k.arg == word), node.args[0] if node.args else None)
            elif isinstance(node, ast.Dict):
                keys = [resolve(k) if k is not None else None for k in node.keys]
                if "cause" in keys and any(
                    k == "kind" and resolve(v) == "unsupported" for k, v in zip(keys, node.values)
                ):
                    emitted = node.values[keys.index("cause")]
            cause = resolve(emitted)
            if cause is not None:
                found.setdefault(cause, set()).add(f"python:{layer}")
    return found


def runtime_causes(files: list[Path]) -> dict[str, set[str]]:
    """Cause name -> {RUNTIME_EMITTER} for every cause the runtime's .mjs sources emit."""
    found: dict[str, set[str]] = {}
    for path in files:
        text = path.read_text(encoding="utf-8")
        names = _JS_CALL.findall(text) + _JS_FIELD.findall(text)
        for body in _JS_CAUSE_FUNCTION.findall(text):
            names += _JS_RETURNED.findall(body)
        for name in names:
            found.setdefault(name, set()).add(RUNTIME_EMITTER)
    return found


def _layer_files() -> dict[str, list[Path]]:
    files = {}
    for layer in LAYERS:
        spec = importlib.util.find_spec(f"eutaxy.{layer}")
        assert spec is not None and spec.submodule_search_locations, layer
        files[layer] = sorted(
            path
            for location in spec.submodule_search_locations
            for path in Path(location).rglob("*.py")
            if "__pycache__" not in path.parts
        )
        assert files[layer], f"no sources found for eutaxy.{layer}"
    return files


def _runtime_files() -> list[Path]:
    runtime = find_runtime()
    files = sorted(
        path for path in runtime.rglob("*.mjs") if not ({"test", "node_modules", "fixtures"} & set(path.relative_to(runtime).parts))
    )
    assert any(path.name == "run.mjs" for path in files), runtime
    return files


def _merge(*found: dict[str, set[str]]) -> dict[str, set[str]]:
    merged: dict[str, set[str]] = {}
    for one in found:
        for name, emitters in one.items():
            merged.setdefault(name, set()).update(emitters)
    return merged


def test_the_registry_lists_exactly_the_causes_emitted_and_who_emits_them():
    """Scanned emissions equal causes.json, name by name and emitter by emitter."""
    emitted = _merge(python_causes(_layer_files()), runtime_causes(_runtime_files()))
    registered = {name: set(entry["emitters"]) for name, entry in verdicts.CAUSES.items()}
    unlisted = sorted(set(emitted) - set(registered))
    assert [] == unlisted, f"emitted but not in core/vectors/causes.json: {unlisted}"
    unemitted = sorted(set(registered) - set(emitted))
    assert [] == unemitted, f"in core/vectors/causes.json but emitted nowhere: {unemitted}"
    assert registered == emitted


def test_every_registered_cause_has_a_meaning_and_known_emitters():
    """Each entry is a snake_case name with a sentence and emitters of the known forms."""
    assert tuple(sorted(verdicts.CAUSES)) == verdicts.UNSUPPORTED_CAUSES
    for name, entry in verdicts.CAUSES.items():
        assert re.fullmatch(r"[a-z]+(_[a-z]+)*", name), name
        assert set(entry) == {"name", "meaning", "emitters", "explanation"}, name
        assert entry["meaning"].endswith("."), name
        assert entry["explanation"].endswith("."), name
        assert "\n" not in entry["explanation"], name
        for emitter in entry["emitters"]:
            assert emitter == RUNTIME_EMITTER or emitter.removeprefix("python:") in LAYERS, (name, emitter)


def test_the_scan_finds_a_planted_cause_on_either_side(tmp_path):
    """A cause planted in scratch sources, in each call form, is found (so the scan can fail)."""
    python = tmp_path / "planted.py"
    python.write_text(
        'PLANTED = "planted_constant"\n'
        "def f(loop, end):\n"
        '    raise loop.unsupported("planted_call", "x")\n'
        "def g():\n"
        "    return Stopped(cause=PLANTED, detail='')\n"
        "def h():\n"
        '    return {"kind": "unsupported", "cause": "planted_dict", "detail": ""}\n'
        "def i(end):\n"
        "    return Stopped(cause=end.cause, detail='')\n"
    )
    assert {"planted_call": {"python:engine"}, "planted_constant": {"python:engine"}, "planted_dict": {"python:engine"}} == python_causes(
        {"engine": [python]}
    )
    runtime = tmp_path / "planted.mjs"
    runtime.write_text(
        'run.markUnsupported("planted_mark", `x`);\n'
        'hooks.unsupported("planted_hook", "x");\n'
        "const end = { kind: \"unsupported\", cause: \"planted_field\" };\n"
        "export function causeFor(kind) {\n"
        '  return kind === "a" ? "planted_ternary" : "planted_other";\n'
        "}\n"
        "run.markUnsupported(cause, detail);\n"
    )
    assert {"planted_mark", "planted_hook", "planted_field", "planted_ternary", "planted_other"} == set(runtime_causes([runtime]))
    # And the registry check itself rejects them.
    assert not {"planted_call", "planted_mark"} & set(verdicts.CAUSES)

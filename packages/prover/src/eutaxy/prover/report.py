"""``eutaxy report``'s engine: the spec ladder on every spec file under a directory.

``run_report`` finds every ``*.props.ts`` under the directory (``node_modules``
and hidden folders skipped), reads them all in one reader process, runs the
TESTED rung on each property in one evaluator process per spec file, and
returns the verdicts by module as plain data (``schemaVersion`` 1, ``kind``
``"spec_report"``). No wall-clock value appears in it, so the same files and
seed give the same data. ``render_text`` prints it for a terminal.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Mapping, Optional, Sequence

from eutaxy.core.errors import UserError
from eutaxy.core.spec_text import REPORT_LAYOUT, spec_module_lines
from eutaxy.core.verdicts import (
    FAILING_SPEC_KINDS,
    SCHEMA_VERSION,
    SPEC_KINDS,
    UNKNOWN,
    UNSUPPORTED_REASON,
    SpecVerdict,
    exit_code,
)
from eutaxy.spec import SpecModule

from .evaluator import Evaluator, LoadError
from .engine import Prover
from .node import NodeError, NodeToolchain
from .reader import ReadError, read_specs
from .spec_ladder import run_ladder
from .tested import MAX_INSIDE_DEFAULT

SPEC_SUFFIX = ".props.ts"
#: Folders never searched for spec files.
SKIPPED_DIRS = ("node_modules",)


def find_spec_files(directory: Path) -> list[Path]:
    """Every ``*.props.ts`` under ``directory``, sorted by path."""
    found = []
    for root, dirs, files in os.walk(directory):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS and not d.startswith("."))
        found.extend(Path(root) / f for f in files if f.endswith(SPEC_SUFFIX))
    return sorted(found)


def run_report(directory: str | os.PathLike, seed: str, *, toolchain: NodeToolchain,
               max_inside: int = MAX_INSIDE_DEFAULT, provers: Sequence[Prover] = (),
               min_inside: Optional[int] = None, show_inputs: int = 0,
               read: Optional[Sequence[SpecModule | ReadError]] = None) -> dict:
    """Run TESTED (then any ``provers``) on every property of every spec file under ``directory``.

    ``toolchain`` is the Node the reader and evaluator run on (the CLI finds it:
    ``eutaxy.cli.provers.node_toolchain``).

    ``min_inside``, when given, marks every ``forall`` property decided on fewer
    distinct inputs inside its claim (short of its whole domain) as failing.
    ``show_inputs`` keeps each property's first that many inputs in ``tested.inputs``.
    ``read``, when given, is what ``read_specs`` gave for ``find_spec_files(directory)``,
    so reports of one folder under several seeds share one reading.

    Raises:
        UserError: when ``directory`` is not a folder.
    """
    root = Path(directory)
    if not root.is_dir():
        raise UserError(f"eutaxy report: {directory} is not a directory")
    specs = find_spec_files(root)
    if read is None:
        read = read_specs(specs, toolchain)
    elif [Path(r.spec).resolve() for r in read] != [p.resolve() for p in specs]:
        raise ValueError("run_report: read holds other spec files than the directory's")
    modules = []
    for spec_path, spec_read in zip(specs, read, strict=True):
        modules.append(_module_report(root, spec_path, spec_read, seed, max_inside, toolchain, provers,
                                      show_inputs=show_inputs))
    if min_inside is not None:
        for module in modules:
            for prop in module["properties"]:
                if _below(prop, min_inside):
                    prop["belowMinInside"] = True
    summary = {kind: 0 for kind in SPEC_KINDS}
    for module in modules:
        for prop in module["properties"]:
            summary[prop["kind"]] = summary.get(prop["kind"], 0) + 1
    result = {"schemaVersion": SCHEMA_VERSION, "kind": "spec_report", "directory": str(directory),
              "seed": seed, "maxInside": max_inside, "modules": modules,
              "summary": {k: v for k, v in summary.items() if v}}
    if min_inside is not None:
        result["minInside"] = min_inside
    return result


def _below(prop: dict, min_inside: int) -> bool:
    """A forall property decided on fewer than ``min_inside`` inputs inside its claim (not its whole domain)."""
    if prop.get("propertyKind") != "forall" or prop["kind"] in FAILING_SPEC_KINDS:
        return False
    tested = prop.get("tested") or {}
    if tested.get("wholeDomain"):
        return False
    return prop.get("counts", {}).get("tested", 0) < min_inside


def _relative(root: Path, path: Optional[str | Path]) -> Optional[str]:
    if path is None:
        return None
    try:
        return Path(path).resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return Path(path).as_posix()


def _module_report(root: Path, spec_path: Path, read, seed: str, max_inside: int,
                   toolchain: NodeToolchain, provers: Sequence[Prover],
                   calls: Optional[Mapping[str, Sequence[dict]]] = None, show_inputs: int = 0) -> dict:
    """One spec file's verdicts; with ``calls`` (recorded ``{args, result}`` by function) CHECKED runs first."""
    entry: dict[str, Any] = {"spec": _relative(root, spec_path), "module": None, "properties": [],
                             "skipped": [], "diagnostics": []}
    if isinstance(read, ReadError):
        entry["error"] = f"the reader could not read the spec file: {read.message}"
        return entry
    assert isinstance(read, SpecModule)
    entry["module"] = _relative(root, read.module)
    entry["skipped"] = [s.to_data() for s in read.skipped if s.combinator is None]
    entry["diagnostics"] = list(read.diagnostics)
    # Built by forall or total but not readable: a property with no verdict is UNKNOWN, never dropped.
    unreadable = [SpecVerdict(kind=UNKNOWN, property=s.name, reasons=(UNSUPPORTED_REASON,), seed=seed,
                              detail=f"the reader could not read the property: {s.reason}").to_data()
                  | {"function": None, "line": s.line, "binders": []}
                  for s in read.skipped if s.combinator is not None]
    if not read.properties:
        entry["properties"] = unreadable
        return entry
    def unknown(prop, why: str) -> dict:
        verdict = SpecVerdict(kind=UNKNOWN, property=prop.name, reasons=(UNSUPPORTED_REASON,), seed=seed,
                              detail=why)
        return _property_entry(prop, verdict, None)

    try:
        with Evaluator(spec_path, toolchain) as evaluator:
            stops = disagreements(read, evaluator.imports)
            for prop in read.properties:
                try:
                    recorded = None if calls is None else list(calls.get(prop.function, ()))
                    verdict, rungs = run_ladder(read, prop, evaluator, seed, calls=recorded, provers=provers,
                                                max_inside=max_inside, show_inputs=show_inputs)
                except (NodeError, LoadError) as error:
                    # The Node process stopped answering (or could not load the spec again):
                    # this property has no verdict; the next one gets a fresh process.
                    stops.append(f"the evaluator stopped while checking {prop.name}: {error}")
                    entry["properties"].append(unknown(prop, f"the evaluator stopped: {_first_line(error)}"))
                    continue
                entry["properties"].append(_property_entry(prop, verdict, rungs["tested"], rungs.get("checked"),
                                                           None if recorded is None else len(recorded),
                                                           rungs.get("engines", ())))
            if stops:
                entry["error"] = "\n".join(stops)
    except LoadError as error:
        entry["error"] = f"the spec file did not import: {error}"
        entry["properties"] = [unknown(p, f"the spec file did not import: {_first_line(error)}") for p in read.properties]
    entry["properties"].extend(unreadable)
    entry["properties"].sort(key=lambda p: p["line"])
    return entry


def disagreements(read: SpecModule, bundled: Sequence[str]) -> list[str]:
    """Files the evaluator's bundle holds that the compiler resolved no import to (each a sentence).

    The bundle holds only what runs, so it may hold less than the compiler
    read (type-only imports), never a file the compiler did not see.
    """
    seen = {os.path.realpath(p) for p in read.sources} | {os.path.realpath(read.spec)}
    return [f"the evaluator imported {path}, which the compiler resolved no import of the spec file to"
            for path in bundled if os.path.realpath(path) not in seen]


def _first_line(error: Exception) -> str:
    text = str(error)
    return text.splitlines()[0][:300] if text else "no message"


def _property_entry(prop, verdict: SpecVerdict, tested, checked=None, calls: Optional[int] = None,
                    engines: Sequence[SpecVerdict] = ()) -> dict:
    data = verdict.to_data()
    data["function"] = prop.function
    data["line"] = prop.line
    data["binders"] = [{"name": b.name, "type": b.type.name} for b in prop.binders]
    data["propertyKind"] = prop.KIND
    if checked is not None:
        # What the CHECKED rung saw, whatever the fold kept: the calls recorded and what it found.
        data["checked"] = {"calls": calls or 0, "evaluated": checked.evaluated, "kind": checked.verdict.kind,
                           "detail": checked.verdict.detail}
    if tested is not None:
        data["tested"] = {"evaluated": tested.evaluated, "draws": tested.draws, "edges": tested.edges}
        if tested.target:
            data["tested"]["target"] = tested.target
        if tested.whole_domain:
            data["tested"]["wholeDomain"] = True
        if tested.stopped is not None:
            data["tested"]["stopped"] = tested.stopped
        if tested.inputs:
            data["tested"]["inputs"] = [list(i) for i in tested.inputs]
    if engines:
        data["engines"] = [e.to_data() for e in engines]
    return data


def input_problems(result: dict) -> list[str]:
    """Why the report checked less than it was given: each a sentence; empty when nothing is wrong.

    A spec file that did not import, read or compile, a directory with no spec
    file, and a report where no property reached a verdict: nothing checked is
    never a pass.
    """
    modules = result.get("modules", [])
    problems = []
    if not modules:
        problems.append(f"no spec file (*{SPEC_SUFFIX}) under {result.get('directory')}")
    for module in modules:
        if module.get("error"):
            problems.append(f"{module['spec']}: {module['error']}")
        if module.get("diagnostics"):
            problems.append(f"{module['spec']}: does not compile:\n" + "\n".join(module["diagnostics"]))
    properties = [p for m in modules for p in m["properties"]]
    if modules and not any(p["kind"] != UNKNOWN for p in properties):
        problems.append(f"no property reached a verdict ({len(properties)} properties, all UNKNOWN)")
    return problems


def report_exit_code(result: dict) -> int:
    """2 when the report checked less than it was given (``input_problems``); else 1 when any
    property is REFUTED or CONFLICT, or short of ``--min-inside``; else 0.

    UNKNOWN lowers a verdict, it does not fail one, unless no property reached a verdict.
    """
    properties = [p for m in result.get("modules", []) for p in m["properties"]]
    return exit_code(
        spec_kinds=[p["kind"] for p in properties],
        below_min_inside=any(p.get("belowMinInside") for p in properties),
        checked_less=bool(input_problems(result)),
    )


# --- text ---------------------------------------------------------------------------


def render_text(result: dict) -> str:
    """The report as a terminal prints it: one block per module, one line per property.

    The blocks are ``eutaxy.core.spec_text``'s, as ``eutaxy check`` draws its Specs
    section; errors are printed whole (every line of an import failure or a compiler
    message), indented under their module.
    """
    modules = result.get("modules", [])
    count = sum(len(m["properties"]) for m in modules)
    summary = ", ".join(f"{n} {kind}" for kind, n in result.get("summary", {}).items())
    lines = [f"eutaxy report {result.get('directory')} (seed {result.get('seed')!r}): "
             f"{count} properties in {len(modules)} spec files" + (f": {summary}" if summary else "")]
    for module in modules:
        lines.append("")
        lines.extend(spec_module_lines(module, REPORT_LAYOUT))
    problems = input_problems(result)
    if problems:
        lines.append("")
        lines.append("not a pass: the report checked less than it was given")
        for problem in problems:
            first, *rest = problem.splitlines() or [""]
            lines.append(f"  - {first}")
            lines.extend(f"    {line}" for line in rest)
    return "\n".join(lines) + "\n"

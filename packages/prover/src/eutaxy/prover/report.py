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
from eutaxy.core.verdicts import SCHEMA_VERSION, SPEC_KINDS, UNKNOWN, UNSUPPORTED_REASON, SpecVerdict
from eutaxy.spec import SpecModule

from .evaluator import Evaluator, LoadError
from .engine import Prover
from .node import NodeError, NodeToolchain, find_toolchain
from .reader import ReadError, read_specs
from .spec_ladder import run_ladder
from .tested import DEFAULT_MAX_INSIDE
from .values import decode, show

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


def run_report(directory: str | os.PathLike, seed: str, *, max_inside: int = DEFAULT_MAX_INSIDE,
               toolchain: Optional[NodeToolchain] = None, provers: Sequence[Prover] = ()) -> dict:
    """Run TESTED (then any ``provers``) on every property of every spec file under ``directory``.

    Raises:
        UserError: when ``directory`` is not a folder, or Node cannot be found.
    """
    root = Path(directory)
    if not root.is_dir():
        raise UserError(f"eutaxy report: {directory} is not a directory")
    toolchain = toolchain or find_toolchain()
    specs = find_spec_files(root)
    modules = []
    for spec_path, read in zip(specs, read_specs(specs, toolchain)):
        modules.append(_module_report(root, spec_path, read, seed, max_inside, toolchain, provers))
    summary = {kind: 0 for kind in SPEC_KINDS}
    for module in modules:
        for prop in module["properties"]:
            summary[prop["kind"]] = summary.get(prop["kind"], 0) + 1
    return {"schemaVersion": SCHEMA_VERSION, "kind": "spec_report", "directory": str(directory),
            "seed": seed, "maxInside": max_inside, "modules": modules,
            "summary": {k: v for k, v in summary.items() if v}}


def _relative(root: Path, path: Optional[str | Path]) -> Optional[str]:
    if path is None:
        return None
    try:
        return Path(path).resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return Path(path).as_posix()


def _module_report(root: Path, spec_path: Path, read, seed: str, max_inside: int,
                   toolchain: NodeToolchain, provers: Sequence[Prover],
                   calls: Optional[Mapping[str, Sequence[dict]]] = None) -> dict:
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
            for index, prop in enumerate(read.properties):
                try:
                    recorded = None if calls is None else list(calls.get(prop.function, ()))
                    verdict, rungs = run_ladder(read, prop, evaluator, seed, calls=recorded, provers=provers,
                                                max_inside=max_inside)
                except NodeError as error:
                    # The evaluator died (the code under test exited it, say): this
                    # property and the ones after it have no verdict.
                    entry["error"] = f"the evaluator stopped while checking {prop.name}: {error}"
                    first = str(error).splitlines()[0][:300] if str(error) else "no message"
                    entry["properties"].extend(unknown(p, f"the evaluator stopped: {first}")
                                               for p in read.properties[index:])
                    break
                entry["properties"].append(_property_entry(prop, verdict, rungs["tested"], rungs.get("checked"),
                                                           None if recorded is None else len(recorded)))
    except LoadError as error:
        entry["error"] = f"the spec file did not import: {error}"
        first = str(error).splitlines()[0][:300]
        entry["properties"] = [unknown(p, f"the spec file did not import: {first}") for p in read.properties]
    entry["properties"].extend(unreadable)
    entry["properties"].sort(key=lambda p: p["line"])
    return entry


def _property_entry(prop, verdict: SpecVerdict, tested, checked=None, calls: Optional[int] = None) -> dict:
    data = verdict.to_data()
    data["function"] = prop.function
    data["line"] = prop.line
    data["binders"] = [{"name": b.name, "type": b.type.name} for b in prop.binders]
    if checked is not None:
        # What the CHECKED rung saw, whatever the fold kept: the calls recorded and what it found.
        data["checked"] = {"calls": calls or 0, "evaluated": checked.evaluated, "kind": checked.verdict.kind,
                           "detail": checked.verdict.detail}
    if tested is not None:
        data["tested"] = {"evaluated": tested.evaluated, "draws": tested.draws, "edges": tested.edges}
    return data


#: Verdicts that fail a report: a counterexample, or engines that disagree.
FAILING_KINDS = ("refuted", "conflict")


def report_exit_code(result: dict) -> int:
    """1 when any property is REFUTED or CONFLICT, else 0 (UNKNOWN lowers a verdict, it does not fail one)."""
    failing = any(p["kind"] in FAILING_KINDS for m in result.get("modules", []) for p in m["properties"])
    return 1 if failing else 0


# --- text ---------------------------------------------------------------------------


def render_text(result: dict) -> str:
    """The report as a terminal prints it: one block per module, one line per property."""
    modules = result.get("modules", [])
    count = sum(len(m["properties"]) for m in modules)
    summary = ", ".join(f"{n} {kind}" for kind, n in result.get("summary", {}).items())
    lines = [f"eutaxy report {result.get('directory')} (seed {result.get('seed')!r}): "
             f"{count} properties in {len(modules)} spec files" + (f": {summary}" if summary else "")]
    for module in modules:
        lines.append("")
        lines.append(f"{module.get('module') or '?'}  (spec {module['spec']})")
        if module.get("error"):
            lines.append(f"  error: {module['error'].splitlines()[0]}")
        for diagnostic in module.get("diagnostics", []):
            lines.append(f"  compiler: {diagnostic.splitlines()[0]}")
        for skipped in module.get("skipped", []):
            lines.append(f"  skipped {skipped['name']} (line {skipped['line']}): {skipped['reason']}")
        width = max((len(p["property"]) for p in module["properties"]), default=0)
        for prop in module["properties"]:
            lines.append(f"  {prop['kind'].upper():<8} {prop['property']:<{width}}  {_why(prop)}")
    return "\n".join(lines) + "\n"


def _why(prop: dict) -> str:
    kind = prop["kind"]
    counts = prop.get("counts", {})
    tested = prop.get("tested", {})
    if kind == "tested":
        text = f"held on {counts.get('tested', 0)} distinct inputs ({tested.get('draws', 0)} draws, {tested.get('edges', 0)} edges)"
        return text + (f"; {prop['detail']}" if prop.get("detail") else "")
    if kind == "checked":
        return prop.get("detail", "")
    if kind in ("refuted", "conflict"):
        cx = prop.get("counterexample") or {}
        args = ", ".join(show(decode(a)) for a in cx.get("args", []))
        outcome = cx.get("outcome", {})
        what = "claim false" if outcome.get("kind") == "false" else (
            f"{outcome.get('phase', 'ensures')} threw {outcome.get('name', '')}: {outcome.get('message', '')}"
            if outcome.get("kind") == "threw" else outcome.get("kind", ""))
        return f"at {(prop.get('rung') or '?').upper()}: {prop['function']}({args}): {what}"
    if kind == "unknown":
        return f"{', '.join(prop.get('reasons', []))}: {prop.get('detail', '')}"
    return prop.get("detail", "")

"""The spec ladder after ``eutaxy check``: CHECKED on the calls the simulator recorded, then TESTED.

A scenario's ``specs`` names core modules; each has its spec file beside it
(``domain.ts`` has ``domain.props.ts``). For every property, CHECKED evaluates the
claim on the distinct recorded calls of its function (the verdict's ``coreCalls``),
TESTED on drawn inputs with the check's seed, and the ladder folds the two (see
``ladder``). A module with no spec file beside it is listed with no properties: a
scenario may name a module only so that ``refines`` sees its decisions.

The result is plain data with no wall-clock value, so the same check gives the same
verdicts. Spec verdicts never change the simulation verdict; the caller decides what
to print.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping, Optional, Sequence

from eutaxy.core.canonical import to_json
from eutaxy.core.verdicts import CHECKED, SPEC_KINDS

from .checked import exact_reading
from .engine import Prover
from .node import NodeError, NodeToolchain
from .reader import read_specs
from .report import SPEC_SUFFIX, _module_report, _relative
from .tested import MAX_INSIDE_DEFAULT

__all__ = ["calls_by_function", "run_scenario_specs", "spec_file_for", "unusable_calls"]


def spec_file_for(module: str | Path) -> Path:
    """The spec file beside a core module: ``domain.ts`` gives ``domain.props.ts``."""
    path = Path(module)
    return path.with_name(path.stem + SPEC_SUFFIX)


def calls_by_function(core_calls: Sequence[Mapping[str, Any]]) -> dict[str, list[dict]]:
    """A verdict's ``coreCalls`` as CHECKED takes them: ``{args, result}`` by function, in the verdict's order.

    Each is the call's exact reading (``argsExact``/``resultExact`` where the runtime recorded
    them beside the canonical ``args``/``result``; see ``checked.exact_reading``), so -0, NaN,
    the infinities, undefined and bigints reach CHECKED as themselves. A call with no exact
    list of arguments (``argsInexact``, or ``args`` not a list from a runtime that records no
    exact reading) is no assignment and is left out; ``unusable_calls`` counts them.
    """
    out: dict[str, list[dict]] = {}
    for call in core_calls:
        reading = exact_reading(call)
        if reading is not None:
            out.setdefault(str(call["function"]), []).append(reading)
    return out


def unusable_calls(core_calls: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """Recorded calls that give no assignment (no exact list of arguments), by function."""
    out: dict[str, int] = {}
    for call in core_calls:
        if exact_reading(call) is None:
            out[str(call.get("function"))] = out.get(str(call.get("function")), 0) + 1
    return out


def run_scenario_specs(root: str | Path, modules: Sequence[str | Path], core_calls: Sequence[Mapping[str, Any]],
                       seed: str, *, toolchain: NodeToolchain, max_inside: int = MAX_INSIDE_DEFAULT,
                       provers: Sequence[Prover] = ()) -> dict:
    """The ladder's verdicts for every property of the spec files beside ``modules``.

    Paths in the result are relative to ``root`` (the scenario's folder). ``toolchain`` is the
    Node the reader and evaluator run on (the CLI finds it: ``eutaxy.cli.provers.node_toolchain``).
    """
    root = Path(root)
    calls = calls_by_function(core_calls)
    entries: list[Optional[dict]] = []
    present: list[tuple[int, Path]] = []
    for index, module in enumerate(modules):
        spec = spec_file_for(module)
        if spec.is_file():
            entries.append(None)
            present.append((index, spec))
        else:
            entries.append({"module": _relative(root, module), "spec": None, "properties": [], "skipped": [],
                            "diagnostics": [],
                            "detail": f"no spec file {spec.name} beside the module, so nothing to check"})
    if present:
        try:
            reads = read_specs([spec for _, spec in present], toolchain)
        except NodeError as error:
            first = str(error).splitlines()[0][:300] if str(error) else "no message"
            reads = [None] * len(present)
            for index, spec in present:
                entries[index] = {"module": _relative(root, modules[index]), "spec": _relative(root, spec),
                                  "properties": [], "skipped": [], "diagnostics": [],
                                  "error": f"the reader stopped: {first}"}
        for (index, spec), read in zip(present, reads):
            if read is None:
                continue
            entry = _module_report(root, spec, read, seed, max_inside, toolchain, provers, calls=calls)
            for prop in entry["properties"]:
                _name_the_call(prop, core_calls)
            # The module the scenario names, whatever the spec file imports.
            entry["module"] = _relative(root, modules[index])
            entries[index] = entry
    summary = {kind: 0 for kind in SPEC_KINDS}
    for entry in entries:
        for prop in entry["properties"]:
            summary[prop["kind"]] = summary.get(prop["kind"], 0) + 1
    result = {"seed": seed, "maxInside": max_inside, "modules": entries,
              "calls": {function: len(items) for function, items in sorted(calls.items())},
              "summary": {k: v for k, v in summary.items() if v}}
    unusable = unusable_calls(core_calls)
    if unusable:
        result["unusableCalls"] = dict(sorted(unusable.items()))
    return result


def _name_the_call(prop: dict, core_calls: Sequence[Mapping[str, Any]]) -> None:
    """A counterexample from a recorded call says where the check first made that call."""
    call = (prop.get("counterexample") or {}).get("call")
    if prop.get("rung") != CHECKED or not isinstance(call, dict):
        return
    wanted = (prop.get("function"), to_json(call.get("args")), to_json(call.get("result")))
    for recorded in core_calls:
        reading = exact_reading(recorded)
        if reading is None:
            continue
        if (recorded.get("function"), to_json(reading["args"]), to_json(reading["result"])) == wanted:
            if recorded.get("firstSeen") is not None:
                call["firstSeen"] = dict(recorded["firstSeen"])
            return

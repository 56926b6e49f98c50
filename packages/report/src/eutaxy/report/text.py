"""The text report: a simulation verdict told as a story a person reads top to bottom.

The verdict word comes first, because it is what the reader came for; then why (the
invariant and its message, or the cause), then the evidence (the shrunk trace, grouped so
each line is one effect point of one invocation, with injected faults marked ``!!``), then
how to reproduce it (schedule and seed) and what was explored (runs, bounds, assumptions).
When the check ran the spec ladder (``specs`` beside the verdict), a Specs section comes
last: verdicts about pure functions, kept apart from the simulation verdict they never
change.

The renderer reads plain verdict data (``eutaxy.engine.check.check_scenario``'s result) and
never fails on a field it does not know or one that is missing: verdicts may grow optional
fields within a schema version, and a report that crashes hides the verdict it was for.
"""

from __future__ import annotations

import contextvars
import json
from typing import Any

from eutaxy.core.canonical import to_json

__all__ = ["render_text", "summarize_value"]

#: A rendered argument or result longer than this is cut, so one effect stays one line
#: (``wide=True`` prints it whole; the JSON report always holds the full value). A cut
#: keeps the violation's key in view when the value holds it.
VALUE_CHARS_MAX = 160
#: Characters shown on each side of a key that a cut would otherwise hide.
KEY_CONTEXT_CHARS = 40

#: How values are cut in the report being rendered: (wide, the violation's key texts).
_CUTTING: contextvars.ContextVar[tuple[bool, tuple[str, ...]]] = contextvars.ContextVar("cutting", default=(False, ()))

#: A shrunk trace is short; one that is not is cut here rather than flood the terminal.
TRACE_POINTS_MAX = 200

#: Platforms whose delivery moves virtual time on between invocations (a visibility
#: timeout before a redelivery, a delay, a batching window): their trace labels each
#: invocation with when it started, from the trace's first effect. Elsewhere time moves
#: one millisecond per effect and the labels stay as they were.
_TIMED_PLATFORMS = frozenset({"aws"})

#: What each injected fault did, in the reader's words.
FAULT_MEANINGS = {
    "crash_before": "crashed before the effect; nothing committed",
    "crash_after": "crashed after the effect committed; the caller never saw the answer",
    "ambiguous": "the effect committed but the caller got an ambiguous outcome",
    "error": "the effect failed with an error; nothing committed",
    "redelivery": "the event was delivered again",
    "cut_off": "background work was cut off",
}

_HEADLINES = {
    "violated": "VIOLATED",
    "bounded": "BOUNDED",
    "unsupported": "UNSUPPORTED",
}


def render_text(verdict: dict, *, wide: bool = False) -> str:
    """Render a simulation verdict as the text report (ends with a newline).

    ``wide`` prints arguments and results whole instead of cutting them to one line.
    """
    token = _CUTTING.set((wide, _key_texts(verdict)))
    try:
        return _render(verdict)
    finally:
        _CUTTING.reset(token)


def _key_texts(verdict: dict) -> tuple[str, ...]:
    """The violation's keys as they may appear in a rendered value: JSON, and a string unquoted."""
    texts = []
    for key in (verdict.get("violation") or {}).get("keys") or []:
        if not isinstance(key, str):
            continue
        texts.append(key)
        try:
            value = json.loads(key)
        except ValueError:
            continue
        if isinstance(value, str) and value:
            texts.append(value)
    return tuple(texts)


def _render(verdict: dict) -> str:
    kind = verdict.get("kind")
    lines = _headline(verdict)
    if kind == "violated":
        lines += _violation_section(verdict.get("violation") or {})
        lines += _also_broken_section(verdict)
        lines += _trace_section(verdict)
        lines += _fault_free_section(verdict)
        lines += _schedule_section(verdict)
    elif kind == "bounded":
        lines += _bounded_section(verdict)
    elif kind == "unsupported":
        lines += _unsupported_section(verdict.get("cause") or {})
    else:
        lines += ["", "This verdict kind is newer than this report; its data:", "  " + to_json(verdict)]
    lines += _invariants_section(verdict.get("invariants"))
    lines += _coverage_section(verdict.get("coverage"), bounded=kind == "bounded")
    lines += _audit_section(verdict.get("audit"))
    lines += _exhaustive_section(verdict)
    lines += _provenance_section(verdict.get("provenance") or {})
    lines += _specs_section(verdict.get("specs"), verdict.get("coreCalls"))
    return "\n".join(lines).rstrip("\n") + "\n"


# ---------------------------------------------------------------------------- sections


def _headline(verdict: dict) -> list[str]:
    kind = verdict.get("kind")
    word = _HEADLINES.get(kind, str(kind).upper())
    scenario = verdict.get("scenario") or "scenario"
    platform = verdict.get("platform")
    where = f"{scenario} ({platform})" if platform else scenario
    if kind == "violated":
        tail = "an invariant broke in a replayed, shrunk run"
    elif kind == "bounded":
        tail = "bounded, not verified"
    elif kind == "unsupported":
        tail = "no claim either way"
    else:
        tail = "unrecognised verdict kind"
    return [f"{word}  {where}: {tail}"]


def _violation_section(violation: dict) -> list[str]:
    name = violation.get("invariant") or "(unnamed invariant)"
    kind = violation.get("kind")
    lines = ["", f"Invariant broken: {name}" + (f" ({kind})" if kind else "")]
    message = violation.get("message")
    if message:
        lines += ["  " + line for line in str(message).splitlines()]
    keys = violation.get("keys") or []
    if keys:
        lines.append("  keys: " + ", ".join(_key_text(key) for key in keys))
    rows = violation.get("rows") or []
    if rows:
        lines.append("  rows:")
        lines += ["    " + _cut(to_json(row)) for row in rows]
    return lines


def _also_broken_section(verdict: dict) -> list[str]:
    """The other invariants the shrunk run breaks (the shrinker kept only the first breaking)."""
    named = (verdict.get("violation") or {}).get("invariant")
    others = [v for v in verdict.get("violations") or [] if isinstance(v, dict) and v.get("invariant") != named]
    if not others:
        return []
    lines = ["", "Also broken in this run:"]
    for other in others:
        lines.append(f"  {other.get('invariant') or '(unnamed invariant)'}" + (f" ({other['kind']})" if other.get("kind") else ""))
        lines += ["    " + line for line in str(other.get("message") or "").splitlines()]
    return lines


def _trace_section(verdict: dict) -> list[str]:
    trace = verdict.get("trace") or []
    named = _violation_effects(verdict.get("violation") or {})
    kept = verdict.get("keptEvents")
    heading = "Shrunk trace (replayed"
    if kept is not None:
        heading += "; events kept: " + (", ".join(str(event) for event in kept) or "none")
    heading += "):"
    lines = ["", heading]
    effects = [(index, effect) for index, effect in enumerate(trace) if isinstance(effect, dict)]
    live = [(index, effect) for index, effect in effects if effect.get("kind") != "snapshot"]
    snapshots = [effect for _, effect in effects if effect.get("kind") == "snapshot"]
    if not live:
        lines.append("  (no effects)")
    groups = _group_effects(live)
    start_ms = _start_ms(live) if verdict.get("platform") in _TIMED_PLATFORMS else None
    labels = []
    previous_invocation = None
    for group in groups[:TRACE_POINTS_MAX]:
        invocation = group[0][1].get("invocation", "?")
        started = _offset_ms(group[0][1], start_ms)
        labels.append(_invocation_label(invocation, started) if invocation != previous_invocation else "")
        previous_invocation = invocation
    width = max([_label_width(live), *(len(label) for label in labels)])
    starred = False
    for group, label in zip(groups, labels):
        marker = " *" if any(index in named for index, _ in group) else ""
        starred = starred or bool(marker)
        first, *rest = _group_lines(group)
        lines.append(f"  {label:<{width}}  {first}{marker}")
        lines += [f"  {'':<{width}}  {line}" for line in rest]
    if len(groups) > TRACE_POINTS_MAX:
        lines.append(f"  ... {len(groups) - TRACE_POINTS_MAX} more effect points (the JSON report has them all)")
    if starred:
        lines.append("  (* an effect the violation names)")
    if snapshots:
        lines += ["", "State after the last event:"]
        for snapshot in snapshots:
            rows = (snapshot.get("payload") or {}).get("rows") or []
            title = f"{snapshot.get('target', '?')} {snapshot.get('op', '?')}"
            lines.append(f"  {title}: {len(rows)} row" + ("" if len(rows) == 1 else "s"))
            lines += ["    " + _cut(to_json(row)) for row in rows]
    return lines


#: Characters in each column of the side-by-side divergence (``wide=True`` prints the left
#: column as wide as its longest line and cuts nothing).
COLUMN_CHARS = 64


def _fault_free_section(verdict: dict) -> list[str]:
    """What the fault changed: where the trace parts from the same events run without it.

    ``faultFree`` (``eutaxy.engine.explain``) holds the comparison run and the first effect
    points where the two logs differ; they are printed side by side, after the last point
    both runs share (which is where the fault, if any, struck).
    """
    fault_free = verdict.get("faultFree")
    if not isinstance(fault_free, dict):
        return []
    changed = fault_free.get("changed")
    faults = (verdict.get("schedule") or {}).get("faults") or []
    if changed == "nothing":
        return [
            "",
            "What the fault changed: nothing; the shrunk run injects no fault and takes every turn in",
            "arrival order, so the bug shows in a plain run of these events.",
        ]
    if changed == "turns":
        lines = ["", "What the interleaving changed (the same events run with every turn in arrival order):"]
        other_side = "in arrival order"
    else:
        noun, pronoun = ("fault", "it") if len(faults) == 1 else ("faults", "them")
        lines = ["", f"What the {noun} changed (the same events replayed without {pronoun}, turns as in the trace):"]
        other_side = f"without the {noun}"
    lines.append("  " + _fault_free_outcome(fault_free, verdict))
    split = fault_free.get("divergence")
    if not isinstance(split, dict):
        lines.append("  Both runs log the same effects; only the state after them differs." if fault_free.get("stateDiffers")
                     else "  Both runs log the same effects.")
        return lines
    agreed = split.get("agreedPoints")
    agreed = agreed if isinstance(agreed, int) and not isinstance(agreed, bool) and agreed > 0 else 0
    live = [(index, effect) for index, effect in enumerate(verdict.get("trace") or [])
            if isinstance(effect, dict) and effect.get("kind") != "snapshot"]
    shared = _group_effects(live)[:agreed]
    if shared:
        lines.append("  Both runs agree on the first effect point:" if agreed == 1
                     else f"  Both runs agree on the first {agreed} effect points; the last of them:")
        last = shared[-1]
        first, *rest = _group_lines(last)
        lines.append(f"    {last[0][1].get('invocation', '?')}  {first}")
        lines += ["    " + " " * len(str(last[0][1].get("invocation", "?"))) + f"  {line}" for line in rest]
        lines.append("  Then they part:")
    else:
        lines.append("  The runs part at the first effect point:")
    left = _cells(split.get("violating"))
    right = _cells(split.get("faultFree"))
    wide, _ = _CUTTING.get()
    left_title = f"with the {noun}" if changed == "faults" else "in the trace"
    width = max([len(cell) for cell in left] + [len(left_title)]) if wide else COLUMN_CHARS
    lines.append(f"    {left_title:<{width}} | {other_side}")
    for row in range(max(len(left), len(right))):
        ours = left[row] if row < len(left) else ("(run ended)" if row == len(left) else "")
        theirs = right[row] if row < len(right) else ("(run ended)" if row == len(right) else "")
        lines.append(f"    {_fit(ours, width):<{width}} | {_fit(theirs, width)}".rstrip())
    lines += _state_difference_lines(verdict, fault_free, other_side)
    return lines


def _fault_free_outcome(fault_free: dict, verdict: dict) -> str:
    end = fault_free.get("end") or {}
    if end.get("kind") == "unsupported":
        return f"That run ended unsupported ({end.get('cause', '?')}: {end.get('detail', '')}), so it may stop short."
    broken = [v.get("invariant") for v in fault_free.get("violations") or [] if isinstance(v, dict)]
    if not broken:
        return "That run breaks no invariant."
    named = (verdict.get("violation") or {}).get("invariant")
    tail = " (the same invariant, by other keys or effects)" if named in broken else ""
    return "That run breaks " + ", ".join(str(name) for name in broken) + " too" + tail + "."


def _cells(effects: Any) -> list[str]:
    """One line per effect point of a divergence window: invocation, the point, its fault."""
    records = [(index, effect) for index, effect in enumerate(effects or []) if isinstance(effect, dict)]
    cells = []
    for group in _group_effects(records):
        first, *rest = _group_lines(group)
        head = group[0][1]
        if head.get("kind") == "fault":
            # A fault with no call (a redelivery): its name only, the meaning is in the trace above.
            payload = head.get("payload") if isinstance(head.get("payload"), dict) else {}
            first = f"#{head.get('ordinal', '?')} {head.get('target', '?')} !! {payload.get('fault') or head.get('op') or 'fault'}"
        faults = " ".join(line.strip().split(" (")[0] for line in rest)
        cells.append(f"{_invocation_label(group[0][1].get('invocation', '?'))} {first}" + (f" {faults}" if faults else ""))
    return cells


def _fit(cell: str, width: int) -> str:
    """The cell cut to ``width``, keeping the result (``-> ...``) and a fault (``!! ...``) in view."""
    wide, _ = _CUTTING.get()
    if wide or len(cell) <= width:
        return cell
    cut = max(cell.rfind(" -> "), cell.rfind(" !! "))
    tail = cell[cut:] if cut > 0 and len(cell) - cut < width // 2 else ""
    return cell[: width - len(tail) - 3] + "..." + tail


#: Rows printed per side of a state difference; the JSON report holds both states whole.
STATE_ROWS_MAX = 4


def _state_difference_lines(verdict: dict, fault_free: dict, other_side: str) -> list[str]:
    differs = [d for d in fault_free.get("stateDiffers") or [] if isinstance(d, dict)]
    if not differs:
        return []
    lines = ["  State after each run, where it differs:"]
    for item in differs:
        target, op = item.get("target"), item.get("op")
        ours = _snapshot_rows(verdict.get("trace"), target, op)
        theirs = _snapshot_rows(fault_free.get("trace"), target, op)
        counts = ", ".join(f"{len(rows)} row{'' if len(rows) == 1 else 's'} {side}"
                           for rows, side in ((ours, "in the trace"), (theirs, other_side)))
        lines.append(f"    {target} {op}: {counts}")
        for rows, others, side in ((ours, theirs, "in the trace"), (theirs, ours, other_side)):
            only = list(rows)
            for row in others:
                if row in only:
                    only.remove(row)
            for row in only[:STATE_ROWS_MAX]:
                lines.append(f"      only {side}: " + _cut(row))
            if len(only) > STATE_ROWS_MAX:
                lines.append(f"      ... {len(only) - STATE_ROWS_MAX} more only {side}")
    return lines


def _snapshot_rows(trace: Any, target: Any, op: Any) -> list[str]:
    for effect in trace or []:
        if isinstance(effect, dict) and effect.get("kind") == "snapshot" and (effect.get("target"), effect.get("op")) == (target, op):
            return [to_json(row) for row in (effect.get("payload") or {}).get("rows") or []]
    return []


def _schedule_section(verdict: dict) -> list[str]:
    schedule = verdict.get("schedule") or {}
    faults = schedule.get("faults") or []
    turns = schedule.get("turns") or []
    lines = ["", "Schedule (what the regression test replays):"]
    if faults:
        for fault in faults:
            lines.append(
                f"  {fault.get('invocation', '?')} effect #{fault.get('ordinal', '?')}: {fault.get('fault', '?')}"
            )
    else:
        lines.append("  no faults injected")
    if turns:
        lines.append("  turn picks: " + " ".join(str(turn) for turn in turns))
    return lines


def _bounded_section(verdict: dict) -> list[str]:
    provenance = verdict.get("provenance") or {}
    runs = provenance.get("runs")
    explored = f"{runs} run" + ("" if runs == 1 else "s") if runs is not None else "the runs explored"
    exhaustive = verdict.get("exhaustive")
    if provenance.get("completed") or (isinstance(exhaustive, dict) and exhaustive.get("completed")):
        return [
            "",
            f"No invariant broke in {explored}: completed: every schedule within the bounds below ran.",
            "This is not a proof: nothing beyond these bounds was checked.",
        ]
    lines = [
        "",
        f"No invariant broke in {explored} within the bounds below.",
        "This is not a proof: runs beyond these bounds, and schedules the exploration did not",
        "reach, were not checked.",
    ]
    bounds = provenance.get("bounds") or {}
    if "budgetMs" in (provenance.get("boundsReached") or []) and bounds.get("maxRuns") is not None:
        lines.append(
            f"The budget of {bounds.get('budgetMs')} ms stopped exploration before the run cap of "
            f"{bounds['maxRuns']} was reached; pass --budget-ms to give the runs more time."
        )
    return lines


def _unsupported_section(cause: dict) -> list[str]:
    kind = cause.get("kind") or "unknown"
    detail = cause.get("detail")
    lines = ["", f"Cause: {kind}" + (f": {detail}" if detail else "")]
    lines.append("The run touched something Eutaxy cannot control or did not replay, so no")
    lines.append("claim is made about the scenario either way.")
    return lines


def _invariants_section(invariants: Any) -> list[str]:
    """What each invariant saw over the exploration runs: the evidence a pass is not vacuous."""
    if not isinstance(invariants, list) or not invariants:
        return []
    entries = [entry for entry in invariants if isinstance(entry, dict)]
    width = max((len(str(entry.get("name", "?"))) for entry in entries), default=0)
    lines = ["", "Invariants (what each saw over the exploration runs):"]
    for entry in entries:
        counts = ", ".join(
            f"{entry.get(field, 0)} {noun}" for field, noun in (("effects", "effects"), ("rows", "rows"), ("keys", "keys"))
        )
        note = "  (allowed to look at nothing)" if entry.get("allowVacuous") else ""
        lines.append(f"  {str(entry.get('name', '?')):<{width}}  {counts}{note}")
    return lines


#: Coverage rows printed at most; the JSON report lists every point.
COVERAGE_POINTS_MAX = 40


def _coverage_section(coverage: Any, *, bounded: bool) -> list[str]:
    """Each effect point's fault kinds, ``+`` injected at least once, ``-`` never."""
    if not isinstance(coverage, dict) or not coverage.get("points"):
        return []
    pairs, exercised = coverage.get("pairs") or 0, coverage.get("exercised") or 0
    share = f" ({100 * exercised // pairs}%)" if pairs else ""
    lines = ["", f"Fault coverage: {exercised} of {pairs} (point, kind) pairs exercised{share}; + injected, - never:"]
    points = [p for p in coverage["points"] if isinstance(p, dict)]
    labels = [f"{p.get('target', '?')} {p.get('op', '?')} #{p.get('ordinal', '?')}" for p in points]
    width = max((len(label) for label in labels), default=0)
    for label, point in list(zip(labels, points))[:COVERAGE_POINTS_MAX]:
        injected = set(point.get("injected") or [])
        kinds = " ".join(f"{kind}{'+' if kind in injected else '-'}" for kind in point.get("kinds") or [])
        lines.append(f"  {label:<{width}}  {kinds}")
    if len(points) > COVERAGE_POINTS_MAX:
        lines.append(f"  ... {len(points) - COVERAGE_POINTS_MAX} more points (the JSON report has them all)")
    missed = [m for m in coverage.get("missed") or [] if isinstance(m, dict)]
    if bounded and missed:
        named = ", ".join(f"{m.get('target')} {m.get('op')} #{m.get('ordinal')} {m.get('kind')}" for m in missed[:12])
        more = f" and {len(missed) - 12} more" if len(missed) > 12 else ""
        lines.append(f"  never exercised within the bounds: {named}{more}")
    return lines


def _audit_section(audit: Any) -> list[str]:
    if not isinstance(audit, dict):
        return []
    reran, runs = audit.get("reran"), audit.get("runs")
    if audit.get("differences"):
        return ["", f"Audit: rerun {reran} of {runs} explored runs: one log differed (see the cause above)."]
    return ["", f"Audit: reran {reran} of {runs} explored runs; every effect log repeated byte for byte."]


def _exhaustive_section(verdict: dict) -> list[str]:
    exhaustive = verdict.get("exhaustive")
    if not isinstance(exhaustive, dict):
        return []
    completed = exhaustive.get("completed")
    schedules = exhaustive.get("schedules")
    reduction = exhaustive.get("reduction")
    state = "completed" if completed else "did not complete (" + _stop_reason(verdict) + ")"
    parts = [f"enumeration {state}"]
    if schedules is not None:
        parts.append(f"{schedules} schedule" + ("" if schedules == 1 else "s") + " ran")
    if reduction is not None:
        parts.append("partial-order reduction " + ("stayed on" if reduction else "was turned off"))
    return ["", "Exhaustive: " + ", ".join(parts) + "."]


def _stop_reason(verdict: dict) -> str:
    """Why an exploration stopped before it completed, in the reader's words."""
    if verdict.get("kind") == "violated":
        return "stopped at the first violation"
    if verdict.get("kind") == "unsupported":
        return "stopped at an unsupported run"
    reached = (verdict.get("provenance") or {}).get("boundsReached") or []
    words = {"budgetMs": "the budget", "maxRuns": "the run cap"}
    named = [words.get(str(bound), str(bound)) for bound in reached]
    return "stopped by " + " and ".join(named) if named else "stopped"


def _provenance_section(provenance: dict) -> list[str]:
    lines = ["", "Provenance:"]
    seed = provenance.get("seed")
    if seed is not None:
        lines.append(f"  seed: {seed}")
    counts = []
    for field, words in (
        ("runs", "runs"),
        ("schedules", "distinct schedules"),
        ("faultsInjected", "faults injected"),
        ("schedulePoints", "schedule points"),
    ):
        if provenance.get(field) is not None:
            counts.append(f"{words} {provenance[field]}")
    if counts:
        lines.append("  " + ", ".join(counts))
    for field, words in (("replayed", "replayed"), ("notReplayed", "not replayed")):
        if provenance.get(field) is not None:
            lines.append(f"  {words}: {_plain(provenance[field])}")
    if provenance.get("shrinkReplays") is not None:
        replays = provenance["shrinkReplays"]
        capped = " (stopped by its replay cap before a fixed point)" if provenance.get("shrinkCapped") else ""
        lines.append(f"  shrinking: {replays} replay" + ("" if replays == 1 else "s") + capped)
    if provenance.get("bounds") is not None:
        lines.append("  bounds: " + _plain(provenance["bounds"]))
    if provenance.get("boundsReached") is not None:
        lines.append("  bounds reached: " + _plain(provenance["boundsReached"]))
    assumptions = provenance.get("assumptions") or []
    if assumptions:
        lines.append("  assumptions:")
        lines += ["    - " + _assumption_text(item) for item in assumptions]
    known = {
        "seed", "runs", "faultsInjected", "schedulePoints", "replayed", "notReplayed", "bounds", "boundsReached",
        "assumptions", "shrinkReplays", "shrinkCapped", "schedules", "completed",
    }
    for field in sorted(set(provenance) - known):
        lines.append(f"  {field}: {_plain(provenance[field])}")
    return lines if len(lines) > 2 else []


# ---------------------------------------------------------------------------- specs


#: How each spec verdict kind reads as a word, padded to one column.
_SPEC_WORDS = {"checked": "CHECKED", "tested": "TESTED", "proven": "PROVEN", "refuted": "REFUTED",
               "unknown": "UNKNOWN", "conflict": "CONFLICT"}


def _specs_section(specs: Any, core_calls: Any) -> list[str]:
    """The spec verdicts, kept apart from the simulation verdict above them (they never change it)."""
    if not isinstance(specs, dict):
        return []
    calls = core_calls if isinstance(core_calls, list) else []
    seed = specs.get("seed")
    counted = f"{len(calls)} distinct core call" + ("" if len(calls) == 1 else "s")
    lines = ["", f"Specs (CHECKED on the {counted} this check recorded, then TESTED"
                 + (f" with seed {seed}" if seed is not None else "") + "):"]
    lines.append("  These are verdicts about pure functions; they do not change the verdict above.")
    if specs.get("error"):
        lines.append(f"  not checked: {str(specs['error']).splitlines()[0]}")
    unusable = specs.get("unusableCalls")
    if isinstance(unusable, dict) and unusable:
        lines.append("  recorded calls whose arguments could not be recorded exactly, not checked: "
                     + ", ".join(f"{name} {count}" for name, count in sorted(unusable.items())))
    for module in specs.get("modules") or []:
        if not isinstance(module, dict):
            continue
        spec = module.get("spec")
        lines.append("")
        lines.append(f"  {module.get('module') or '?'}" + (f"  (spec {spec})" if spec else ""))
        if module.get("detail"):
            lines.append(f"    {module['detail']}")
        if module.get("error"):
            lines.append(f"    error: {str(module['error']).splitlines()[0]}")
        for diagnostic in module.get("diagnostics") or []:
            lines.append(f"    compiler: {str(diagnostic).splitlines()[0]}")
        for skipped in module.get("skipped") or []:
            if isinstance(skipped, dict):
                lines.append(f"    skipped {skipped.get('name', '?')}: {skipped.get('reason', '')}")
        properties = [p for p in module.get("properties") or [] if isinstance(p, dict)]
        width = max((len(str(p.get("property", "?"))) for p in properties), default=0)
        for prop in properties:
            word = _SPEC_WORDS.get(prop.get("kind"), str(prop.get("kind")).upper())
            lines.append(f"    {word:<8} {str(prop.get('property', '?')):<{width}}  {_spec_why(prop)}")
    return lines


def _spec_why(prop: dict) -> str:
    kind = prop.get("kind")
    detail = prop.get("detail") or ""
    if kind == "tested":
        counts = prop.get("counts") or {}
        tested = prop.get("tested") or {}
        text = f"held on {counts.get('tested', 0)} distinct drawn inputs ({tested.get('draws', 0)} draws)"
        checked = prop.get("checked") or {}
        if checked.get("kind") == "checked":
            text += f"; also held on {counts.get('checked', 0)} of the simulator's inputs"
        elif checked:
            text += f"; not CHECKED: {checked.get('detail') or 'no recorded call was inside the claim'}"
        return text
    if kind in ("refuted", "conflict"):
        cx = prop.get("counterexample") or {}
        rung = str(prop.get("rung") or "?").upper()
        call = cx.get("call")
        args = ", ".join(_spec_value(a) for a in cx.get("args") or [])
        text = f"at {rung}: {prop.get('function') or '?'}({_cut(args)}): {_outcome_text(cx.get('outcome') or {})}"
        if isinstance(call, dict):
            text += " -- a call the simulator made"
            seen = call.get("firstSeen")
            if isinstance(seen, dict):
                text += (f" (first in run {seen.get('run', '?')}, {seen.get('invocation', '?')}"
                         f" before effect #{seen.get('ordinal', '?')}; it returned {_cut(_spec_value(call.get('result')))})")
        return text + (f"; {detail}" if detail and kind == "conflict" else "")
    if kind == "unknown":
        reasons = ", ".join(str(r) for r in prop.get("reasons") or []) or "unknown"
        return f"{reasons}: {detail}" if detail else reasons
    return detail


def _outcome_text(outcome: dict) -> str:
    kind = outcome.get("kind")
    if kind == "false":
        return "claim false"
    if kind == "threw":
        return f"{outcome.get('phase', 'ensures')} threw {outcome.get('name', '')}: {outcome.get('message', '')}".rstrip(": ")
    return str(kind or "failed")


def _spec_value(value: Any) -> str:
    """A value in the spec ladder's encoding, as TypeScript would print it (12n, NaN, undefined)."""
    if isinstance(value, dict) and set(value) <= {"$", "v"} and "$" in value:
        tag, inner = value.get("$"), value.get("v")
        if tag == "bigint":
            return f"{inner}n"
        if tag == "number":
            return str(inner)
        if tag == "undefined":
            return "undefined"
        if tag == "object" and isinstance(inner, dict):
            return "{" + ", ".join(f"{k}: {_spec_value(v)}" for k, v in inner.items()) + "}"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_spec_value(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_spec_value(v) for v in value) + "]"
    return to_json(value)


# ---------------------------------------------------------------------------- the trace


def _group_effects(live: list[tuple[int, dict]]) -> list[list[tuple[int, dict]]]:
    """Group each effect point's call with the result and fault that follow it.

    A point records ``call`` then ``result`` and/or ``fault`` (see the contract's effect
    rules); they share invocation, ordinal and target. Anything else (a decision, a fault
    with no call before it such as a redelivery) stands on its own line.
    """
    groups: list[list[tuple[int, dict]]] = []
    for index, effect in live:
        kind = effect.get("kind")
        if kind in ("result", "fault") and groups:
            head = groups[-1][0][1]
            if head.get("kind") == "call" and _same_point(head, effect) and not _has_kind(groups[-1], "fault"):
                groups[-1].append((index, effect))
                continue
        groups.append([(index, effect)])
    return groups


def _same_point(a: dict, b: dict) -> bool:
    return all(a.get(field) == b.get(field) for field in ("invocation", "ordinal", "target"))


def _has_kind(group: list[tuple[int, dict]], kind: str) -> bool:
    return any(effect.get("kind") == kind for _, effect in group)


def _group_lines(group: list[tuple[int, dict]]) -> list[str]:
    effects = [effect for _, effect in group]
    head = effects[0]
    if head.get("kind") == "fault":
        return [f"#{head.get('ordinal', '?')} {head.get('target', '?')}  " + _fault_text(head)]
    payload = head.get("payload") if isinstance(head.get("payload"), dict) else {}
    words = [f"#{head.get('ordinal', '?')}", str(head.get("target", "?"))]
    if head.get("op"):
        words.append(str(head["op"]))
    text = " ".join(words)
    kind = head.get("kind")
    if kind == "decision":
        text += "  decision"
    args = payload.get("args") if "args" in payload else None
    if args not in (None, {}, []):
        text += "  " + summarize_value(args)
    result = next((effect for effect in effects if effect.get("kind") in ("result", "decision")), None)
    if result is not None:
        result_payload = result.get("payload") if isinstance(result.get("payload"), dict) else {}
        text += "  -> " + _result_text(result_payload.get("result"))
    return [text] + ["   " + _fault_text(effect) for effect in effects if effect.get("kind") == "fault"]


def _fault_text(effect: dict) -> str:
    payload = effect.get("payload") if isinstance(effect.get("payload"), dict) else {}
    fault = str(payload.get("fault") or effect.get("op") or "fault")
    meaning = FAULT_MEANINGS.get(fault)
    return f"!! {fault}" + (f" ({meaning})" if meaning else "")


def _result_text(result: Any) -> str:
    if result is None:
        return "done"
    if isinstance(result, dict):
        flat = _flatten(result)
        shown = [(key, value) for key, value in flat if value not in (None, [], {})]
        if shown and all(not isinstance(value, (dict, list)) for _, value in shown):
            return _cut(", ".join(f"{key} {_scalar(value)}" for key, value in shown))
    return summarize_value(result)


def _flatten(value: dict, prefix: str = "") -> list[tuple[str, Any]]:
    items: list[tuple[str, Any]] = []
    for key in value:
        item = value[key]
        name = f"{prefix}{key}"
        if isinstance(item, dict) and item:
            items += _flatten(item, name + ".")
        else:
            items.append((name, item))
    return items


def _invocation_label(invocation: str, started_ms: int | None = None) -> str:
    """``msg-1#2 (redelivery)``; with the start time, ``msg-1#2 (redelivery, at +30 s)``."""
    notes = []
    event, _, attempt = str(invocation).rpartition("#")
    if event and attempt.isdigit() and int(attempt) > 1:
        notes.append("redelivery")
    if started_ms is not None:
        notes.append("at +" + (f"{started_ms // 1000} s" if started_ms % 1000 == 0 else f"{started_ms / 1000:.3f} s"))
    return f"{invocation} ({', '.join(notes)})" if notes else str(invocation)


def _label_width(live: list[tuple[int, dict]]) -> int:
    return max((len(_invocation_label(effect.get("invocation", "?"))) for _, effect in live), default=0)


def _start_ms(live: list[tuple[int, dict]]) -> int | None:
    times = [effect["time"] for _, effect in live if isinstance(effect.get("time"), int)]
    return min(times) if times else None


def _offset_ms(effect: dict, start_ms: int | None) -> int | None:
    time = effect.get("time")
    if start_ms is None or not isinstance(time, int) or isinstance(time, bool):
        return None
    return time - start_ms


def _violation_effects(violation: dict) -> set[int]:
    return {index for index in violation.get("effects") or [] if isinstance(index, int)}


# ---------------------------------------------------------------------------- values


def summarize_value(value: Any) -> str:
    """One line for an argument list, a row or a result: text as it is, the rest as JSON.

    Strings come first (a SQL statement, a method and URL), then the structured values
    (parameters, bodies), which is how a reader recognises a call.
    """
    if isinstance(value, str):
        return _cut(_collapse(value))
    if isinstance(value, dict) and value:
        texts = [_collapse(item) for item in value.values() if isinstance(item, str)]
        others = [item for item in value.values() if not isinstance(item, str)]
        if texts and len(texts) + len(others) <= 4:
            return _cut(" ".join(texts + [to_json(item) for item in others]))
    if isinstance(value, list) and value and all(not isinstance(item, (dict, list)) for item in value[:1]):
        if isinstance(value[0], str):
            return _cut(" ".join(_collapse(item) if isinstance(item, str) else to_json(item) for item in value))
    return _cut(to_json(value))


def _collapse(text: str) -> str:
    return " ".join(text.split())


def _cut(text: str) -> str:
    wide, keys = _CUTTING.get()
    if wide or len(text) <= VALUE_CHARS_MAX:
        return text
    head = text[: VALUE_CHARS_MAX - 3]
    for key in keys:
        at = text.find(key)
        if at >= 0 and key not in head:
            # The key lies past the cut: show the start, then the key with some context.
            start = max(at - KEY_CONTEXT_CHARS, KEY_CONTEXT_CHARS)
            stop = at + len(key) + KEY_CONTEXT_CHARS
            return text[:KEY_CONTEXT_CHARS] + "..." + text[start:stop] + ("..." if stop < len(text) else "")
    return head + "..."


def _scalar(value: Any) -> str:
    return value if isinstance(value, str) else to_json(value)


def _key_text(key: Any) -> str:
    # Keys arrive as canonical JSON text already; show them as they are.
    return key if isinstance(key, str) else to_json(key)


def _plain(value: Any) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{key} {_plain(value[key])}" for key in sorted(value)) or "none"
    if isinstance(value, list):
        return ", ".join(_plain(item) for item in value) or "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return _scalar(value)


def _assumption_text(item: Any) -> str:
    if isinstance(item, str):
        return item
    if isinstance(item, dict):
        text = item.get("text") or item.get("detail") or item.get("message")
        if text:
            kind = item.get("kind")
            return f"{kind}: {text}" if kind else str(text)
    return to_json(item)

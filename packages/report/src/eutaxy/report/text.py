"""The text report: a simulation verdict told as a story a person reads top to bottom.

The verdict word comes first, because it is what the reader came for; then why (the
invariant and its message, or the cause), then the evidence (the shrunk trace, grouped so
each line is one effect point of one invocation, with injected faults marked ``!!``), then
how to reproduce it (schedule and seed) and what was explored (runs, bounds, assumptions).
What the Worker logged (``console``) is shown under the trace's point it followed; the
console output of the other runs a verdict carries (the fault-free comparison run, the
first run of a verdict with no trace) only when asked (``logs=True``, ``eutaxy check --logs``).
What the scenario file itself printed (``scenarioOutput``) follows the cause or the
comparison: whole when short (or with ``logs``), else a count.
When the check ran the spec ladder (``specs`` beside the verdict), a Specs section comes
last: verdicts about pure functions, kept apart from the simulation verdict they never
change.

The renderer reads the typed verdict (``eutaxy.core.verdicts``: ``Violated``, ``Bounded``,
``Unsupported``), and takes effect points, invocation labels and fault meanings from
``eutaxy.core.effect_points``. Plain verdict data (a JSON file) is structured first by
``eutaxy.core.verdict_data``; data that does not read as a verdict of this schema (a kind
newer than this report, a missing field) still renders, as its word, why it could not be
read, and its data, since a report that crashes hides the verdict it was for.
"""

from __future__ import annotations

import contextlib
import contextvars
import json
from typing import Any, Iterable, Iterator, Mapping, NamedTuple, TypeVar

import attrs

from eutaxy.core.canonical import to_json
from eutaxy.core.console_lines import CAPPED_LEVEL, ConsoleLine
from eutaxy.core.effect_points import fault_name, fault_text, group_points, invocation_label, seconds_text
from eutaxy.core.effects import CALL, DECISION, FAULT, RESULT, SNAPSHOT, VIRTUAL_EPOCH_MS, Effect, as_effects
from eutaxy.core.invocation_outcomes import CRASHED, InvocationOutcome, OutcomeCounts
from eutaxy.core.spec_text import CHECK_LAYOUT, spec_module_lines
from eutaxy.core.verdict_data import VerdictDataError, as_verdict
from eutaxy.core.verdicts import (
    Audit,
    Bounded,
    Cause,
    Coverage,
    CutCount,
    FaultFree,
    InvariantSeen,
    Provenance,
    SimulationVerdict,
    UndeterminedCount,
    Unsupported,
    Violated,
    cause_explanation,
)
from eutaxy.core.violations import Violation

__all__ = [
    "HEADLINE_CHARS_MAX", "FaultFreeHeading", "fault_free_heading", "fault_free_outcome", "render_replay", "render_text",
    "summarize_value", "violation_headline",
]

#: A rendered argument or result longer than this is cut, so one effect stays one line
#: (``wide=True`` prints it whole; the JSON report always holds the full value). A cut
#: keeps the violation's key in view when the value holds it.
VALUE_CHARS_MAX = 160
#: Characters shown on each side of a key that a cut would otherwise hide.
KEY_CONTEXT_CHARS = 40

#: Where a value is cut, this mark stands for what was left out (only there: a value's own
#: ``...`` is never a cut).
CUT_MARK = "…"


@attrs.frozen
class _Style:
    """How the report being rendered draws values: cut or whole (``wide``), the violation's key
    texts a cut keeps in view, and the drive kind of each invocation (for its label)."""

    wide: bool = False
    keys: tuple[str, ...] = ()
    #: Event id (``msg-1``) -> the drive kind that delivered it.
    drives: tuple[tuple[str, str], ...] = ()

    def drive_of(self, event: str) -> str | None:
        return dict(self.drives).get(event)


#: Values cut, no key, no drive known: how a value is drawn outside a report.
_PLAIN = _Style()
_STYLE: contextvars.ContextVar[_Style] = contextvars.ContextVar("style", default=_PLAIN)

#: A shrunk trace is short; one that is not is cut here rather than flood the terminal.
TRACE_POINTS_MAX = 200

#: Platforms whose delivery moves virtual time on between invocations (a visibility
#: timeout before a redelivery, a delay, a batching window): their trace labels each
#: invocation with when it started, from the trace's first effect. Elsewhere time moves
#: one millisecond per effect, and an invocation is labelled with its start only when
#: virtual time jumped before it (WAIT_SHOWN_MS: a retry delay, a delivery delay, an
#: alarm's backoff), so a redelivery's time shows where it differs from "at once".
_TIMED_PLATFORMS = frozenset({"aws"})
#: The scenario file's own output is printed whole up to this many lines (``--logs``: always).
SCENARIO_OUTPUT_LINES_SHOWN = 5
#: The least jump in virtual time before an invocation that its label shows.
WAIT_SHOWN_MS = 1000
#: Invariants about time between effects: a violation of one labels every invocation with
#: its start on every platform, since the times are what it is about.
_TIMED_KINDS = frozenset({"min_interval_per_key", "max_interval_per_key"})

_HEADLINES = {
    "violated": "VIOLATED",
    "bounded": "BOUNDED",
    "unsupported": "UNSUPPORTED",
}

_TAILS = {
    "violated": "an invariant broke in a replayed, shrunk run",
    "bounded": "bounded, not verified",
    "unsupported": "no claim either way",
}


def render_text(
    verdict: SimulationVerdict | Mapping[str, Any], *, wide: bool = False, logs: bool = False, verbose: bool = False
) -> str:
    """Render a simulation verdict as the text report (ends with a newline).

    ``wide`` prints arguments and results whole instead of cutting them to one line.
    ``logs`` adds the console output of the runs other than the trace's (which is always shown).
    ``verbose`` prints every assumption the verdict rests on (by default one line counts them).
    """
    try:
        typed = as_verdict(verdict)
    except VerdictDataError as error:
        return _unreadable(verdict, error)
    with _styled(typed, wide=wide):
        return _render(typed, logs=logs, verbose=verbose)


@contextlib.contextmanager
def _styled(verdict: SimulationVerdict, *, wide: bool = False) -> Iterator[None]:
    """Draw values and labels for ``verdict`` (its keys kept in view, its attempts named by
    drive) while the block runs; the HTML page draws its cells and lanes under it too."""
    token = _STYLE.set(_Style(wide, _key_texts(verdict), _drives(verdict)))
    try:
        yield
    finally:
        _STYLE.reset(token)


#: A headline longer than this is cut (``...`` marking the cut): with a test runner's word
#: before it, it stays within 80 columns.
HEADLINE_CHARS_MAX = 70


def violation_headline(violation: Violation | Mapping[str, Any]) -> str:
    """One short line naming the broken invariant and its keys: ``payment-recorded-once: "o-2" twice``.

    What a test runner's one-line summary shows, the keys before anything that may be cut. An
    at-most-once break counts the effects that share the key, an at-least-once break says the
    keys were lost, a unique break how many rows share it, a references break that the keys
    named were not found, an order or interval break that the key's effects came out of order
    or too soon; any other kind follows its keys with its message (its own name prefix dropped).
    """
    if not isinstance(violation, Violation):
        violation = Violation.from_data(dict(violation))
    name = violation.invariant or "(unnamed invariant)"
    keys = ", ".join(_collapse(str(key)) for key in violation.keys)
    kind = violation.invariant_kind
    detail = _collapse(violation.message).removeprefix(f"{name}: ")
    if kind == "at_most_once_per_key" and keys:
        count = len(violation.effects)
        line = f"{name}: {keys} " + ("twice" if count == 2 else f"{count} times")
    elif kind in ("at_least_once", "at_least_once_per_message") and keys:
        line = f"{name}: {keys} lost"
    elif kind == "unique" and keys:
        line = f"{name}: {keys} shared by " + (f"{len(violation.rows)} rows" if len(violation.rows) > 1 else "more than one row")
    elif kind in _HEADLINE_PHRASES and keys:
        line = f"{name}: {keys} {_HEADLINE_PHRASES[kind]}"
    elif keys:
        line = f"{name}: {keys}: {detail or 'broken'}"
    else:
        line = f"{name}: {detail or 'broken'}"
    return line if len(line) <= HEADLINE_CHARS_MAX else line[: HEADLINE_CHARS_MAX - 3] + "..."


#: What a break of these kinds did to its keys, in a headline after them.
_HEADLINE_PHRASES = {"references": "not found", "in_order_per_key": "out of order", "min_interval_per_key": "too soon"}


def render_replay(replayed: Mapping[str, Any], *, scenario: str, platform: str, kept_events: Any = None) -> str:
    """A failed replay (``eutaxy.engine.check.replay_scenario``'s answer) as text: each invariant
    broken, then the replayed trace drawn as the report draws a shrunk trace."""
    violations = [Violation.from_data(dict(item)) for item in replayed.get("violations") or []]
    result = replayed.get("result") or {}
    lines = [f"{len(violations)} invariant(s) broken when replaying {scenario} ({platform}):"]
    lines += [f"  {item.invariant} ({item.invariant_kind}): {item.message}" for item in violations]
    if not violations:
        return "\n".join(lines) + "\n"
    outcomes = tuple(InvocationOutcome.from_data(one) for one in result.get("invocations") or [])
    token = _STYLE.set(_Style(False, _texts_of_keys(violations[0].keys), _drives_of(outcomes)))
    try:
        lines += _trace_lines(
            violations[0],
            tuple(as_effects(result.get("effects") or [])),
            tuple(kept_events if kept_events is not None else ("all",)),
            platform,
            tuple(ConsoleLine.from_data(line) for line in result.get("console") or []),
            outcomes,
        )
    finally:
        _STYLE.reset(token)
    return "\n".join(lines) + "\n"


def _unreadable(data: Any, error: VerdictDataError) -> str:
    """Data that is not a verdict of this schema: its word, why it did not read, and the data."""
    kind = data.get("kind") if isinstance(data, Mapping) else None
    word = _HEADLINES.get(kind, str(kind).upper())
    scenario = (data.get("scenario") if isinstance(data, Mapping) else None) or "scenario"
    lines = [f"{word}  {scenario}: {_TAILS.get(kind, 'unrecognised verdict kind')}", ""]
    lines.append("This report could not read the verdict (" + str(error) + "); its data:")
    lines.append("  " + (to_json(data) if isinstance(data, Mapping) else repr(data)))
    return "\n".join(lines) + "\n"


def _drives(verdict: SimulationVerdict) -> tuple[tuple[str, str], ...]:
    return _drives_of(verdict.invocations) if isinstance(verdict, Violated) else ()


def _drives_of(invocations: tuple[InvocationOutcome, ...]) -> tuple[tuple[str, str], ...]:
    """The drive kind of each event the trace's invocations delivered, by event (``msg-1`` of
    ``msg-1#2``), so an attempt the comparison run alone made is labelled too."""
    return tuple({one.invocation.rpartition("#")[0] or one.invocation: one.drive for one in invocations}.items())


def _label(invocation: str, started_ms: int | None = None) -> str:
    """The invocation's label, its later attempts named by the drive that delivered it."""
    event = invocation.rpartition("#")[0] or invocation
    return invocation_label(invocation, started_ms, _STYLE.get().drive_of(event))


def _key_texts(verdict: SimulationVerdict) -> tuple[str, ...]:
    """The violation's keys as they may appear in a rendered value: JSON, and a string unquoted."""
    if not isinstance(verdict, Violated):
        return ()
    return _texts_of_keys(verdict.violation.keys)


def _texts_of_keys(keys: Any) -> tuple[str, ...]:
    texts = []
    for key in keys:
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


def _render(verdict: SimulationVerdict, *, logs: bool, verbose: bool) -> str:
    lines = _headline(verdict)
    if isinstance(verdict, Violated):
        lines += _violation_section(verdict.violation)
        lines += _also_broken_section(verdict)
        lines += _trace_section(verdict)
        lines += _fault_free_section(verdict)
        if verdict.fault_free is not None:
            lines += _console_section("Console output of the comparison run", verdict.fault_free.console, logs=logs)
        lines += _schedule_section(verdict)
    elif isinstance(verdict, Bounded):
        lines += _bounded_section(verdict)
        lines += _console_section("Console output of the first run", verdict.first_run_console, logs=logs)
    elif isinstance(verdict, Unsupported):
        lines += _unsupported_section(verdict.cause)
        lines += _console_section("Console output of the first run", verdict.first_run_console, logs=logs)
    lines += _scenario_output_section(verdict.scenario_output, logs=logs)
    lines += _outcomes_section(verdict.outcomes)
    lines += _invariants_section(verdict.invariants, verdict.provenance.runs)
    lines += _coverage_section(verdict.coverage, bounded=isinstance(verdict, Bounded))
    lines += _audit_section(verdict.audit)
    lines += _exhaustive_section(verdict)
    lines += _provenance_section(verdict.provenance, verbose=verbose)
    core_calls = None if verdict.core_calls is None else list(verdict.core_calls)
    lines += _specs_section(verdict.specs, core_calls)
    return "\n".join(lines).rstrip("\n") + "\n"


# ---------------------------------------------------------------------------- sections


def headline_parts(verdict: SimulationVerdict) -> tuple[str, str, str]:
    """The report's first line in its three parts: the word, the scenario (and platform) and what
    the word means (``BOUNDED``, ``q (cloudflare)``, ``bounded, not verified``); the HTML page's
    header is the same line."""
    where = f"{verdict.scenario or 'scenario'} ({verdict.platform})" if verdict.platform else (verdict.scenario or "scenario")
    return _HEADLINES[verdict.kind], where, _TAILS[verdict.kind]


def _headline(verdict: SimulationVerdict) -> list[str]:
    word, where, tail = headline_parts(verdict)
    return [f"{word}  {where}: {tail}"]


def _violation_section(violation: Violation) -> list[str]:
    name = violation.invariant or "(unnamed invariant)"
    kind = violation.invariant_kind
    lines = ["", f"Invariant broken: {name}" + (f" ({kind})" if kind else "")]
    if violation.message:
        lines += ["  " + line for line in violation.message.splitlines()]
    if violation.keys:
        lines.append("  keys: " + ", ".join(_key_text(key) for key in violation.keys))
    if violation.rows:
        lines.append("  rows:")
        lines += ["    " + _cut(to_json(row)) for row in violation.rows]
    return lines


def _also_broken_section(verdict: Violated) -> list[str]:
    """The other invariants the shrunk run breaks (the shrinker kept only the first breaking)."""
    others = [v for v in verdict.violations if v.invariant != verdict.violation.invariant]
    if not others:
        return []
    lines = ["", "Also broken in this run:"]
    for other in others:
        lines.append(f"  {other.invariant or '(unnamed invariant)'}" + (f" ({other.invariant_kind})" if other.invariant_kind else ""))
        lines += ["    " + line for line in other.message.splitlines()]
    return lines


def _live(trace: tuple[Effect, ...]) -> list[tuple[int, Effect]]:
    """The trace's records with their log indices, snapshots left out."""
    return [(index, effect) for index, effect in enumerate(trace) if effect.kind != SNAPSHOT]


def _trace_section(verdict: Violated) -> list[str]:
    return _trace_lines(verdict.violation, verdict.trace, verdict.kept_events, verdict.platform,
                        verdict.console, verdict.invocations)


def _trace_lines(
    violation: Violation,
    trace: tuple[Effect, ...],
    kept_events: tuple[str, ...],
    platform: str,
    console: tuple[ConsoleLine, ...],
    invocations: tuple[InvocationOutcome, ...],
) -> list[str]:
    named = _violation_effects(violation)
    heading = "Shrunk trace (replayed; events kept: " + (", ".join(kept_events) or "none") + "):"
    lines = ["", heading]
    live = _live(trace)
    snapshots = [effect for effect in trace if effect.kind == SNAPSHOT]
    if not live:
        lines.append("  (no effects)")
    groups = group_points(live)
    start_ms = _start_ms(live)
    timed = platform in _TIMED_PLATFORMS or violation.invariant_kind in _TIMED_KINDS
    labels = []
    previous_invocation = None
    previous_ms: int | None = None
    for group in groups[:TRACE_POINTS_MAX]:
        invocation = group[0][1].invocation
        first_ms = group[0][1].time
        waited = previous_ms is not None and first_ms - previous_ms >= WAIT_SHOWN_MS
        started = first_ms - start_ms if start_ms is not None and (timed or waited) else None
        labels.append(_label(invocation, started) if invocation != previous_invocation else "")
        previous_invocation = invocation
        previous_ms = group[-1][1].time
    width = max([_label_width(live), *(len(label) for label in labels)])
    shown = groups[:TRACE_POINTS_MAX]
    # The line of the user's code that made each point, in a column of its own after the
    # label (blank for the platform's own points; no column when no point has a line).
    wheres = [_where(group) for group in shown]
    where_width = max((len(where) for where in wheres), default=0)

    def at(where: str) -> str:
        return f"{where:<{where_width}}  " if where_width else ""

    under, before, elsewhere = _place_console(console, shown)
    failed_under, failed_before, failed_elsewhere = _place_failures(invocations, shown)
    starred = False
    done: dict[str, list[str]] = {}
    for position, (group, label) in enumerate(zip(groups, labels)):
        marker = " *" if any(index in named for index, _ in group) else ""
        starred = starred or bool(marker)
        head = group[0][1]
        passed = done.setdefault(head.invocation, [])
        first, *rest = _group_lines(group, passed)
        if head.kind in (CALL, RESULT) and any(effect.kind == RESULT for _, effect in group):
            passed.append(f"#{head.ordinal} {head.target} {head.op}".rstrip())
        console_before = [f"  {'':<{width}}  {at('')}{text}" for line in before.get(position, []) for text in _console_text(line)]
        console_before += [f"  {'':<{width}}  {at('')}{_failure_text(one)}" for one in failed_before.get(position, [])]
        if console_before and label:
            lines.append(f"  {label:<{width}}")
            label = ""
        lines += console_before
        lines.append(f"  {label:<{width}}  {at(wheres[position])}{first}{marker}")
        lines += [f"  {'':<{width}}  {at('')}{line}" for line in rest]
        lines += [f"  {'':<{width}}  {at('')}   {text}" for line in under.get(position, []) for text in _console_text(line)]
        lines += [f"  {'':<{width}}  {at('')}   {_failure_text(one)}" for one in failed_under.get(position, [])]
    if failed_elsewhere:
        lines += [f"  {_label(one.invocation):<{width}}  {at('')}{_failure_text(one)}" for one in failed_elsewhere]
    if len(groups) > TRACE_POINTS_MAX:
        lines.append(f"  ... {len(groups) - TRACE_POINTS_MAX} more effect points (the JSON report has them all)")
    if elsewhere:
        lines.append("  Console output not under a point shown:")
        lines += ["    " + text for line in elsewhere for text in _console_text(line, labelled=True)]
    if starred:
        lines.append("  (* an effect the violation names)")
    if snapshots:
        lines += ["", "State after the last event:"]
        for snapshot in snapshots:
            rows = _snapshot_payload_rows(snapshot)
            lines.append(f"  {snapshot.target} {snapshot.op}: {len(rows)} row" + ("" if len(rows) == 1 else "s"))
            lines += ["    " + _cut(to_json(row)) for row in rows]
    return lines


#: What the trace places beside its groups: a console line, an invocation's failure.
_Placed = TypeVar("_Placed")


def _place_in_trace(
    items: Iterable[tuple[str | None, int | None, _Placed]], groups: list[list[tuple[int, Effect]]]
) -> tuple[dict[int, list[_Placed]], dict[int, list[_Placed]], list[_Placed]]:
    """Where each item, ``(invocation, ordinal, item)``, goes in the trace: under the last group of
    the point it followed, before its invocation's first group when it came before any point, or
    after the trace when no group shown is its invocation's (or it came outside invocations)."""
    last_group: dict[tuple[str, int], int] = {}
    first_group: dict[str, int] = {}
    for position, group in enumerate(groups):
        head = group[0][1]
        last_group[(head.invocation, head.ordinal)] = position
        first_group.setdefault(head.invocation, position)
    under: dict[int, list[_Placed]] = {}
    before: dict[int, list[_Placed]] = {}
    elsewhere: list[_Placed] = []
    for invocation, ordinal, item in items:
        if invocation is not None and ordinal is not None and (invocation, ordinal) in last_group:
            under.setdefault(last_group[(invocation, ordinal)], []).append(item)
        elif invocation is not None and ordinal is None and invocation in first_group:
            before.setdefault(first_group[invocation], []).append(item)
        else:
            elsewhere.append(item)
    return under, before, elsewhere


def _place_console(
    console: tuple[ConsoleLine, ...], groups: list[list[tuple[int, Effect]]]
) -> tuple[dict[int, list[ConsoleLine]], dict[int, list[ConsoleLine]], list[ConsoleLine]]:
    """Where each console line goes in the trace (:func:`_place_in_trace`)."""
    return _place_in_trace(((line.invocation, line.ordinal, line) for line in console), groups)


def _place_failures(
    invocations: tuple[InvocationOutcome, ...], groups: list[list[tuple[int, Effect]]]
) -> tuple[dict[int, list[InvocationOutcome]], dict[int, list[InvocationOutcome]], list[InvocationOutcome]]:
    """Where each invocation that threw or timed out is told in the trace: under the last point it
    opened, before its first point when it opened none, or after the trace when no point shown is its."""
    return _place_in_trace(((one.invocation, one.ordinal, one) for one in invocations if one.own_failure), groups)


def _failure_text(one: InvocationOutcome) -> str:
    """``!! threw TypeError: boom (at src/index.ts:12)``: how a handler call ended, in the trace
    (``!! crashed`` for the user's own exit or out of memory)."""
    if one.error is not None:
        return f"!! {'crashed' if one.outcome == CRASHED else 'threw'} {one.error.text()}"
    return "!! timed out (the platform stopped the handler at its time limit)"


def _console_text(line: ConsoleLine, *, labelled: bool = False) -> list[str]:
    """One console line as report lines: ``console.error: text``, a multi-line text indented under it."""
    head = "(console)" if line.level == CAPPED_LEVEL else f"console.{line.level}:"
    if labelled and line.invocation is not None:
        where = line.invocation + ("" if line.ordinal is None else f" after #{line.ordinal}")
        head = f"{where}  {head}"
    first, *rest = line.text.split("\n") or [""]
    return [f"{head} {first}".rstrip()] + [" " * (len(head) + 1) + more for more in rest]


def _console_section(title: str, console: tuple[ConsoleLine, ...], *, logs: bool) -> list[str]:
    """The console output of a run the report shows no trace of: every line with ``logs``, else a count."""
    if not console:
        return []
    if not logs:
        count = len(console)
        # Errors and warnings are named in the count: a Worker that took its "not configured"
        # path says so there, and a BOUNDED verdict over that path should not hide it.
        loud = [
            f"{number} console.{level}" for level in ("error", "warn")
            for number in [sum(1 for line in console if line.level == level)] if number
        ]
        among = f", {' and '.join(loud)} among them" if loud else ""
        return ["", f"{title}: {count} line" + ("" if count == 1 else "s") + f"{among} (--logs shows them; the JSON report has them)."]
    lines = ["", f"{title}:"]
    lines += ["  " + text for line in console for text in _console_text(line, labelled=True)]
    return lines


def _scenario_output_section(output: str | None, *, logs: bool) -> list[str]:
    """What the scenario file printed: whole when short or with ``logs``, else a count."""
    if not output:
        return []
    printed = output.rstrip("\n").split("\n")
    count = len(printed)
    if count > SCENARIO_OUTPUT_LINES_SHOWN and not logs:
        return ["", f"The scenario file printed {count} lines (--logs shows them; the JSON report has them as scenarioOutput)."]
    return ["", "The scenario file printed:"] + ["  " + line for line in printed]


def _snapshot_payload_rows(snapshot: Effect) -> list[Any]:
    payload = snapshot.payload if isinstance(snapshot.payload, dict) else {}
    return list(payload.get("rows") or [])


#: Characters in each column of the side-by-side divergence (``wide=True`` prints the left
#: column as wide as its longest line and cuts nothing).
COLUMN_CHARS = 72


def _fault_free_section(verdict: Violated) -> list[str]:
    """What the fault changed: where the trace parts from the same events run without it.

    ``fault_free`` (``eutaxy.engine.explain``) holds the comparison run and the first effect
    points where the two logs differ; they are printed side by side, after the last point
    both runs share (which is where the fault, if any, struck).
    """
    fault_free = verdict.fault_free
    if fault_free is None:
        return []
    changed = fault_free.changed
    if changed == "nothing":
        return [
            "",
            "What the fault changed: nothing; the shrunk run injects no fault and takes every turn in",
            "arrival order, so the bug shows in a plain run of these events.",
        ]
    heading = fault_free_heading(verdict)
    lines = ["", f"{heading.title} ({heading.run}):", "  " + fault_free_outcome(fault_free, verdict)]
    other_side = heading.right
    split = fault_free.divergence
    if split is None:
        lines.append("  Both runs log the same effects; only the state after them differs." if fault_free.state_differs
                     else "  Both runs log the same effects.")
        return lines
    agreed = max(split.agreed_points, 0)
    shared = group_points(_live(verdict.trace))[:agreed]
    if shared:
        lines.append("  Both runs agree on the first effect point:" if agreed == 1
                     else f"  Both runs agree on the first {agreed} effect points; the last of them:")
        last = shared[-1]
        first, *rest = _group_lines(last)
        label = _label(last[0][1].invocation)
        lines.append(f"    {label}  {first}")
        lines += ["    " + " " * len(label) + f"  {line}" for line in rest]
        lines.append("  Then they part:")
    else:
        lines.append("  The runs part at the first effect point:")
    left = _cells(split.violating, COLUMN_CHARS)
    right = _cells(split.fault_free, COLUMN_CHARS)
    left_title = heading.left
    width = max([len(cell) for cell in left] + [len(left_title)]) if _STYLE.get().wide else COLUMN_CHARS
    lines.append(f"    {left_title:<{width}} | {other_side}")
    for row in range(max(len(left), len(right))):
        ours = left[row] if row < len(left) else ("(run ended)" if row == len(left) else "")
        theirs = right[row] if row < len(right) else ("(run ended)" if row == len(right) else "")
        lines.append(f"    {ours:<{width}} | {theirs}".rstrip())
    lines += _state_difference_lines(verdict, fault_free, other_side)
    return lines


class FaultFreeHeading(NamedTuple):
    """How the comparison with the fault-free run is titled: its title, what that run is, each side's label."""

    title: str
    run: str
    left: str
    right: str


def fault_free_heading(verdict: Violated) -> FaultFreeHeading:
    """The comparison's title and labels, one wording for the text report and the HTML page.

    What set the trace apart names it: the interleaving (turns out of arrival order), the
    short batch(es), or the fault(s); a run that needs none of them is titled by the fault.
    """
    changed = verdict.fault_free.changed if verdict.fault_free is not None else "faults"
    if changed == "turns":
        return FaultFreeHeading("What the interleaving changed", "the same events run with every turn in arrival order",
                                "in the trace", "in arrival order")
    if changed == "batches":
        noun = "short batch" if len(verdict.schedule.batches) == 1 else "short batches"
        return FaultFreeHeading(f"What the {noun} changed", "the same events run with every delivery taking the platform's batch",
                                "in the trace", "with the platform's batches")
    noun, pronoun = ("fault", "it") if len(verdict.schedule.faults) == 1 else ("faults", "them")
    return FaultFreeHeading(f"What the {noun} changed", f"the same events replayed without {pronoun}, turns as in the trace",
                            f"with the {noun}", f"without the {noun}")


def fault_free_outcome(fault_free: FaultFree, verdict: Violated) -> str:
    """One sentence on how the comparison run ended and what it broke."""
    end = fault_free.end
    if end.kind == "unsupported":
        return f"That run ended unsupported ({end.cause}: {end.detail or ''}), so it may stop short."
    broken = [v.invariant for v in fault_free.violations]
    if not broken:
        return "That run breaks no invariant."
    tail = " (the same invariant, by other keys or effects)" if verdict.violation.invariant in broken else ""
    return "That run breaks " + ", ".join(broken) + " too" + tail + "."


def _cells(effects: tuple[Effect, ...], width: int) -> list[str]:
    """One line per effect point of a divergence window, within ``width``: the invocation, the
    point's ordinal, target and op whole, then its result or fault, then as much of its
    arguments as fits, cut in the middle."""
    wide = _STYLE.get().wide
    cells = []
    for group in group_points(list(enumerate(effects))):
        point = _point(group)
        key = f"{_label(group[0][1].invocation)} {point.key}"
        tail = " ".join(([f"-> {point.result}"] if point.result is not None else []) + [f"!! {name}" for name in point.fault_names])
        cells.append(_fitted(key, point.value, tail, None if wide else width))
    return cells


#: The fewest characters of arguments worth showing in a cell; with less room they are one CUT_MARK.
CELL_VALUE_CHARS_MIN = 8


def _fitted(key: str, value: str, tail: str, width: int | None) -> str:
    """``key value tail`` within ``width`` (None: whole): the key never cut, the value cut in the
    middle first, then the tail; a key longer than the width is kept whole past it."""
    def joined(value_text: str, tail_text: str) -> str:
        return " ".join(part for part in (key, value_text, tail_text) if part)

    whole = joined(value, tail)
    if width is None or len(whole) <= width:
        return whole
    room = width - len(joined("", tail)) - (1 if value else 0)
    if value and room >= CELL_VALUE_CHARS_MIN:
        return joined(middle_cut(value, room), tail)
    value = CUT_MARK if value else ""
    room = max(width - len(joined(value, "")) - 1, CELL_VALUE_CHARS_MIN)
    # The tail's start says most (the status, the first field): it is cut at its end.
    return joined(value, tail if len(tail) <= room else tail[: room - len(CUT_MARK)] + CUT_MARK)


#: Rows printed per side of a state difference; the JSON report holds both states whole.
STATE_ROWS_MAX = 4


def _state_difference_lines(verdict: Violated, fault_free: FaultFree, other_side: str) -> list[str]:
    if not fault_free.state_differs:
        return []
    lines = ["  State after each run, where it differs:"]
    for item in fault_free.state_differs:
        target, op = item.target, item.op
        ours = _snapshot_rows(verdict.trace, target, op)
        theirs = _snapshot_rows(fault_free.trace, target, op)
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


def _snapshot_rows(trace: tuple[Effect, ...], target: str, op: str) -> list[str]:
    for effect in trace:
        if effect.kind == SNAPSHOT and (effect.target, effect.op) == (target, op):
            return [to_json(row) for row in _snapshot_payload_rows(effect)]
    return []


def _schedule_section(verdict: Violated) -> list[str]:
    lines = ["", "Schedule (what the regression test replays):"]
    if verdict.schedule.faults:
        for fault in verdict.schedule.faults:
            lines.append(f"  {fault.invocation} effect #{fault.ordinal}: {fault.fault}")
    else:
        lines.append("  no faults injected")
    for batch in verdict.schedule.batches:
        lines.append(f"  {batch.invocation} short batch: {batch.size} message" + ("" if batch.size == 1 else "s"))
    if verdict.schedule.turns:
        lines.append("  turn picks: " + " ".join(str(turn) for turn in verdict.schedule.turns))
    return lines


def _bounded_section(verdict: Bounded) -> list[str]:
    return [""] + [line for sentence in bounded_summary(verdict) for line in sentence.split("\n")]


def bounded_summary(verdict: Bounded) -> list[str]:
    """What a BOUNDED verdict rests on, under its headline, one item per paragraph: the runs that
    broke no invariant and whether every schedule within the bounds ran, why it is no proof, the
    handler's own errors, a budget that stopped exploration first. The text report and the HTML
    page's header both tell it so; a line break inside an item is where the text report wraps it."""
    provenance = verdict.provenance
    runs = provenance.runs
    explored = f"{runs} run" + ("" if runs == 1 else "s")
    if provenance.completed or (verdict.exhaustive is not None and verdict.exhaustive.completed):
        return [
            f"No invariant broke in {explored}: completed: every schedule within the bounds below ran.",
            "This is not a proof: nothing beyond these bounds was checked.",
            *_own_errors_lines(verdict.outcomes),
        ]
    lines = [
        f"No invariant broke in {explored} within the bounds below.",
        "This is not a proof: runs beyond these bounds, and schedules the exploration did not\n"
        "reach, were not checked.",
        *_own_errors_lines(verdict.outcomes),
    ]
    bounds = provenance.bounds
    if "budgetMs" in provenance.bounds_reached and bounds.get("maxRuns") is not None:
        lines.append(
            f"The budget of {bounds.get('budgetMs')} ms stopped exploration before the run cap of "
            f"{bounds['maxRuns']} was reached; pass --budget-ms to give the runs more time."
        )
    return lines


def _own_errors_lines(outcomes: tuple[OutcomeCounts, ...]) -> list[str]:
    """The Worker's (or handler's) own uncaught errors over the runs a pass rests on, counted up
    front: a BOUNDED over a handler that threw should not read as one that worked."""
    threw = sum(counts.threw for counts in outcomes)
    timed_out = sum(counts.timed_out for counts in outcomes)
    exited = sum(counts.exited for counts in outcomes)
    if not threw and not timed_out and not exited:
        return []
    parts = ([_count(threw, "invocation") + " threw an uncaught error"] if threw else []) + (
        [_count(timed_out, "invocation") + " timed out"] if timed_out else []) + (
        [_count(exited, "invocation") + " crashed by their own code (an exit, out of memory)"] if exited else [])
    firsts = [counts.first_error for counts in outcomes if counts.first_error is not None]
    first = f" (the first: {firsts[0].error.text()})" if firsts else ""
    return [f"The handler's own code: {' and '.join(parts)} in these runs{first}; Invocations below counts them."]


def _unsupported_section(cause: Cause) -> list[str]:
    lines = ["", f"Cause: {cause.kind or 'unknown'}" + (f": {cause.detail}" if cause.detail else "")]
    lines.append(cause_explanation(cause.kind))
    lines.append("No claim is made about the scenario either way.")
    return lines


def _outcomes_section(outcomes: tuple[OutcomeCounts, ...]) -> list[str]:
    """How each drive's handler calls ended over the exploration runs: a pass needs one that worked."""
    if not outcomes:
        return []
    width = max(len(counts.drive) for counts in outcomes)
    lines = ["", "Invocations (how each drive's handler calls ended over the exploration runs):"]
    for counts in outcomes:
        parts = [f"{counts.returned} returned"]
        if counts.retried_all:
            parts[0] += f" ({counts.retried_all} asking for every message again)"
        parts += [f"{counts.threw} threw", f"{counts.crashed - counts.exited} crashed by a fault"]
        if counts.exited:
            parts.append(f"{counts.exited} crashed by their own code (an exit, out of memory)")
        if counts.timed_out:
            parts.append(f"{counts.timed_out} timed out")
        if counts.dead_lettered:
            parts.append(f"{counts.dead_lettered} message{'' if counts.dead_lettered == 1 else 's'} dead-lettered")
        lines.append(f"  {counts.drive:<{width}}  " + ", ".join(parts))
        if counts.first_error is not None:
            first = counts.first_error
            lines.append(f"  {'':<{width}}  first error ({first.invocation}, run {first.run + 1}): {first.error.text()}")
        if counts.fault_free_invocations and not counts.succeeded_fault_free:
            lines.append(f"  {'':<{width}}  none returned normally in a fault-free run")
    return lines


def _invariants_section(invariants: tuple[InvariantSeen, ...], runs: int) -> list[str]:
    """What each invariant saw over the exploration runs (distinct effects, rows and keys, and the
    runs that saw any): the evidence a pass is not vacuous."""
    if not invariants:
        return []
    width = max(len(entry.name) for entry in invariants)
    lines = ["", "Invariants (what each saw over the exploration runs, each value counted once):"]
    for entry in invariants:
        counts = ", ".join(_count(number, noun) for number, noun in
                           ((entry.effects, "effect"), (entry.rows, "row"), (entry.keys, "key")))
        counts += f"; in {entry.runs} of {runs} run" + ("" if runs == 1 else "s")
        note = "  (allowed to look at nothing)" if entry.allow_vacuous else ""
        lines.append(f"  {entry.name:<{width}}  {counts}{note}")
    return lines


#: Coverage rows printed at most; the JSON report lists every point.
COVERAGE_POINTS_MAX = 40
#: Never-exercised (point, fault) pairs a BOUNDED report names at most.
MISSED_NAMED_MAX = 12


def _coverage_section(coverage: Coverage, *, bounded: bool) -> list[str]:
    """Each effect point's fault kinds, ``+`` injected at least once, ``-`` never."""
    if not coverage.points:
        return []
    pairs, exercised = coverage.pairs, coverage.exercised
    share = f" ({100 * exercised // pairs}%)" if pairs else ""
    lines = ["", f"Fault coverage: {exercised} of {pairs} (point, kind) pairs exercised{share}; + injected, - never:"]
    labels = [f"{p.target} {p.op} #{p.ordinal}" for p in coverage.points]
    width = max(len(label) for label in labels)
    for label, point in list(zip(labels, coverage.points))[:COVERAGE_POINTS_MAX]:
        kinds = " ".join(f"{kind}{'+' if kind in point.injected else '-'}" for kind in point.kinds)
        lines.append(f"  {label:<{width}}  {kinds}")
    if len(coverage.points) > COVERAGE_POINTS_MAX:
        lines.append(f"  ... {len(coverage.points) - COVERAGE_POINTS_MAX} more points (the JSON report has them all)")
    missed = coverage.missed
    if bounded and missed:
        named = ", ".join(f"{m.target} {m.op} #{m.ordinal} {m.fault}" for m in missed[:MISSED_NAMED_MAX])
        more = f" and {len(missed) - MISSED_NAMED_MAX} more" if len(missed) > MISSED_NAMED_MAX else ""
        lines.append(f"  never exercised within the bounds: {named}{more}")
    return lines


def _audit_section(audit: Audit | None) -> list[str]:
    if audit is None:
        return []
    if audit.differences:
        return ["", f"Audit: rerun {audit.reran} of {audit.runs} explored runs: one log differed (see the cause above)."]
    return ["", f"Audit: reran {audit.reran} of {audit.runs} explored runs; every effect log repeated byte for byte."]


def _exhaustive_section(verdict: SimulationVerdict) -> list[str]:
    exhaustive = verdict.exhaustive
    if exhaustive is None:
        return []
    state = "completed" if exhaustive.completed else "did not complete (" + _stop_reason(verdict) + ")"
    parts = [
        f"enumeration {state}",
        f"{exhaustive.schedules} schedule" + ("" if exhaustive.schedules == 1 else "s") + " ran",
        "partial-order reduction " + ("stayed on" if exhaustive.reduction else "was turned off"),
    ]
    return ["", "Exhaustive: " + ", ".join(parts) + "."]


def _stop_reason(verdict: SimulationVerdict) -> str:
    """Why an exploration stopped before it completed, in the reader's words."""
    if isinstance(verdict, Violated):
        return "stopped at the first violation"
    if isinstance(verdict, Unsupported):
        return "stopped at an unsupported run"
    words = {"budgetMs": "the budget", "maxRuns": "the run cap"}
    # A bound that cut runs did not stop the exploration (provenance.cuts names those).
    cutting = {count.bound for count in verdict.provenance.cuts}
    named = [words.get(bound, bound) for bound in verdict.provenance.bounds_reached if bound not in cutting]
    return "stopped by " + " and ".join(named) if named else "stopped"


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" + ("" if number == 1 else "s")


def _provenance_section(provenance: Provenance, *, verbose: bool) -> list[str]:
    lines = ["", "Provenance:", f"  seed: {provenance.seed}"]
    if provenance.config is not None:
        source = provenance.config
        lines.append(f"  settings from {source.file}: " + ", ".join(source.settings))
    lines.append(
        f"  runs {provenance.runs}, distinct schedules {provenance.schedules}, "
        f"faults injected {provenance.faults_injected}, schedule points {provenance.schedule_points}"
    )
    lines.append(f"  replayed: {_plain(provenance.replayed)}")
    lines.append(f"  not replayed: {_plain(provenance.not_replayed)}")
    if provenance.shrink_replays is not None:
        replays = provenance.shrink_replays
        capped = " (stopped by its replay cap, or the check's grace past its budget, before a fixed point)" if provenance.shrink_capped else ""
        lines.append(f"  shrinking: {replays} replay" + ("" if replays == 1 else "s") + capped)
    lines.append("  bounds: " + _plain(provenance.bounds))
    lines.append("  bounds reached: " + _plain(list(provenance.bounds_reached)))
    lines += _cuts_lines(provenance)
    if provenance.assumptions and verbose:
        lines.append("  assumptions:")
        lines += ["    - " + _assumption_text(item) for item in provenance.assumptions]
    elif provenance.assumptions:
        count = len(provenance.assumptions)
        lines.append(f"  assumptions: {count} (where the model departs from the platform; "
                     "--verbose prints them, the JSON report has them)")
    if provenance.restarts:
        lines.append("  restarts: " + _plain(list(provenance.restarts)))
    return lines


#: What a cut is, said once above the cuts (the HTML report's Cuts section says it too).
CUTS_MEANING = "a bound stopped what the platform would have continued; what it left is neither met nor lost"


def cut_text(count: CutCount, runs: int) -> str:
    """``maxRedeliveries cut 12 of 40 runs: explored up to 2 redeliveries of 3 (Queue:orders; left undone: msg-1)``."""
    head = f"{count.bound} cut {count.runs} of {runs} run" + ("" if runs == 1 else "s")
    if count.bound == "maxRedeliveries":
        noun = "redelivery" if count.limit == 1 else "redeliveries"
        explored = f"explored up to {count.limit} {noun}" + (
            f" of {count.platform_limit}" if count.platform_limit is not None else ""
        )
    elif count.bound == "alarmsPerObject":
        noun = "alarm" if count.limit == 1 else "alarms"
        explored = f"explored up to {count.limit} {noun} per object, the next left pending"
    elif count.bound == "afterWorkTimerLimit":
        noun = "timer firing" if count.limit == 1 else "timer firings"
        explored = f"explored up to {count.limit} {noun} of work after an object's answer, the rest left pending"
    else:
        explored = f"explored up to {count.limit}" + (
            f" of the platform's {count.platform_limit}" if count.platform_limit is not None else ""
        )
    places = ", ".join(count.where)
    left = ", ".join(count.left)
    return f"{head}: {explored} ({places}; left undone: {left})"


def undetermined_text(count: UndeterminedCount) -> str:
    """``undetermined: invariant 'x' broke in 5 runs cut by maxRedeliveries; not a violation, ...``."""
    return (
        f"undetermined: invariant {count.invariant!r} broke in {count.runs} run"
        + ("" if count.runs == 1 else "s")
        + f" cut by {', '.join(count.bounds)}; not a violation, since the platform would have gone on"
    )


def _cuts_lines(provenance: Provenance) -> list[str]:
    """Each bound that cut a run before the platform was done, and each break a cut left open."""
    lines = []
    if provenance.cuts:
        lines.append(f"  cuts ({CUTS_MEANING}):")
        lines += ["    - " + cut_text(count, provenance.runs) for count in provenance.cuts]
    lines += ["  " + undetermined_text(count) for count in provenance.undetermined]
    return lines


# ---------------------------------------------------------------------------- specs


def _specs_section(specs: Any, core_calls: Any) -> list[str]:
    """The spec verdicts, kept apart from the simulation verdict above them (they never change it).

    Each module's block is ``eutaxy.core.spec_text``'s, as ``eutaxy report`` draws it.
    """
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
        if isinstance(module, dict):
            lines.append("")
            lines.extend(spec_module_lines(module, CHECK_LAYOUT, cut=_cut))
    return lines


# ---------------------------------------------------------------------------- the trace


def _group_lines(group: list[tuple[int, Effect]], before: list[str] | None = None) -> list[str]:
    """One effect point as text: ``#0 D1:DB run  <args>  -> <result>``, then a line per fault.

    Each effect has one ordinal in its invocation: a Core decision (which carries the ordinal
    of the point after it) and a record the platform made outside any point are drawn without
    one, and a call whose result came after points nested in it (an alarm's end) closes as
    ``end of #0``. ``before`` names the points of the
    invocation that happened before this one, for what a crash before it left standing.
    """
    point = _point(group, before)
    text = point.key
    if point.value:
        text += "  " + _cut(point.value)
    if point.result is not None:
        text += "  -> " + _cut(point.result)
    return [text] + ["   " + line for line in point.faults]


@attrs.frozen
class _Point:
    """An effect point's parts: who and what (never cut), its arguments, its result, its faults."""

    key: str
    value: str = ""
    result: str | None = None
    faults: tuple[str, ...] = ()
    #: The injected faults' names (``crash_after``), for a one-line cell.
    fault_names: tuple[str, ...] = ()


def _point(group: list[tuple[int, Effect]], before: list[str] | None = None) -> _Point:
    effects = [effect for _, effect in group]
    head = effects[0]
    if head.kind == FAULT:
        return _Point(key=f"#{head.ordinal} {head.target}", faults=(fault_text(head, before),), fault_names=(fault_name(head),))
    payload = head.payload if isinstance(head.payload, dict) else {}
    # A decision, and a record the platform made outside any effect point (a WebSocket frame a
    # connection received), has no ordinal of its own.
    words = [f"#{head.ordinal}", head.target] if head.kind in (CALL, RESULT) else [head.target]
    if head.kind == RESULT:
        # The result of a call drawn earlier, after the points nested in it.
        words.insert(0, "end of")
    if head.op:
        words.append(head.op)
    if head.kind == DECISION:
        words.append("decision")
    args = payload.get("args") if "args" in payload else None
    value = _value_text(args) if args not in (None, {}, []) and head.kind != RESULT else ""
    result = next((effect for effect in effects if effect.kind in (RESULT, DECISION)), None)
    shown = None
    if result is not None:
        result_payload = result.payload if isinstance(result.payload, dict) else {}
        shown = _result_text(result_payload.get("result"))
    faults = [effect for effect in effects if effect.kind == FAULT]
    return _Point(
        key=" ".join(words), value=value, result=shown,
        faults=tuple(fault_text(effect, before) for effect in faults), fault_names=tuple(fault_name(effect) for effect in faults),
    )


#: Characters of a response body's one-line preview.
BODY_PREVIEW_CHARS = 60


def _result_text(result: Any) -> str:
    """A result in one uncut line: ``done``; a response as its status and a body preview
    (``500 {"error":"no such order"}``); a flat object as ``key value`` pairs; else JSON."""
    if result is None or result == {}:
        return "done"
    if isinstance(result, dict) and isinstance(result.get("status"), int) and not isinstance(result.get("status"), bool):
        return _response_text(result)
    if isinstance(result, dict):
        flat = _flatten(result)
        shown = [(key, value) for key, value in flat if value not in (None, [], {})]
        if shown and all(not isinstance(value, (dict, list)) for _, value in shown):
            return ", ".join(f"{key} {_field_value(key, value)}" for key, value in shown)
    return _value_text(result)


def _response_text(result: dict[str, Any]) -> str:
    """``200 {"accepted":5}``, then the result's other fields (``ok`` and the headers left out)."""
    text = str(result["status"])
    body = result.get("body")
    if body not in (None, "", {}, []):
        text += " " + body_preview(body)
    others = [(key, value) for key, value in _flatten({k: v for k, v in result.items() if k not in ("status", "body", "ok", "headers")})
              if value not in (None, [], {})]
    if others:
        text += ", " + ", ".join(f"{key} {_field_value(key, value)}" for key, value in others)
    return text


def body_preview(body: Any) -> str:
    """A body on one line of at most BODY_PREVIEW_CHARS characters: JSON text compacted, any
    other text with its line breaks and runs of spaces made one space, the middle cut."""
    if isinstance(body, str):
        try:
            parsed = json.loads(body)
        except ValueError:
            parsed = None
        text = to_json(parsed) if isinstance(parsed, (dict, list)) else _collapse(body)
    else:
        text = to_json(body)
    return middle_cut(text, BODY_PREVIEW_CHARS)


def _field_value(key: str, value: Any) -> str:
    """A result field's value on one line; a virtual time as ``+30 s`` from the run's start: a
    ``...At`` field in milliseconds since the epoch (``visibleAt``), an ``expiration`` in
    seconds (KV's)."""
    name = key.rpartition(".")[2]
    if isinstance(value, int) and not isinstance(value, bool):
        if (name.endswith("At") or name.endswith("_at")) and value >= VIRTUAL_EPOCH_MS:
            return seconds_text(value - VIRTUAL_EPOCH_MS)
        if name == "expiration" and VIRTUAL_EPOCH_MS // 1000 <= value < VIRTUAL_EPOCH_MS:
            return seconds_text(value * 1000 - VIRTUAL_EPOCH_MS)
    return _collapse(value) if isinstance(value, str) else _scalar(value)


def _flatten(value: dict[str, Any], prefix: str = "") -> list[tuple[str, Any]]:
    items: list[tuple[str, Any]] = []
    for key in sorted(value):
        item = value[key]
        name = f"{prefix}{key}"
        if isinstance(item, dict) and item:
            items += _flatten(item, name + ".")
        else:
            items.append((name, item))
    return items


def _where(group: list[tuple[int, Effect]]) -> str:
    """``src/index.ts:42``: the line of the user's code that made the point (blank: the platform's own)."""
    source = next((effect.source for _, effect in group if effect.source is not None), None)
    return source.text() if source is not None else ""


def _label_width(live: list[tuple[int, Effect]]) -> int:
    return max((len(_label(effect.invocation)) for _, effect in live), default=0)


def _start_ms(live: list[tuple[int, Effect]]) -> int | None:
    """Where the trace's ``+<seconds>`` count from: the run's start (virtual time's epoch), as a
    result's times (``visibleAt``) do; a log of times before it, from its first effect."""
    first = min((effect.time for _, effect in live), default=None)
    return None if first is None else min(first, VIRTUAL_EPOCH_MS)


def _violation_effects(violation: Violation) -> set[int]:
    return {index for index in violation.effects if isinstance(index, int)}


# ---------------------------------------------------------------------------- values


def summarize_value(value: Any) -> str:
    """One line for an argument list, a row or a result: text as it is, the rest as JSON, cut
    in the middle when long (the violation's key kept in view)."""
    return _cut(_value_text(value))


def _value_text(value: Any) -> str:
    """A value on one uncut line. Strings come first (a SQL statement, a method and URL), then
    the structured values (parameters, bodies), which is how a reader recognises a call."""
    if isinstance(value, str):
        return _collapse(value)
    if isinstance(value, dict) and value:
        # Fields in canonical (sorted) order, as the JSON report holds them: the same verdict
        # reads the same whether it comes from the check or from its JSON.
        items = [value[key] for key in sorted(value)]
        texts = [_collapse(item) for item in items if isinstance(item, str)]
        others = [item for item in items if not isinstance(item, str)]
        if texts and len(texts) + len(others) <= 4:
            return " ".join(texts + [to_json(item) for item in others])
    if isinstance(value, list) and value and all(not isinstance(item, (dict, list)) for item in value[:1]):
        if isinstance(value[0], str):
            return " ".join(_collapse(item) if isinstance(item, str) else to_json(item) for item in value)
    return to_json(value)


def _collapse(text: str) -> str:
    return " ".join(text.split())


def _cut(text: str) -> str:
    """``text`` within VALUE_CHARS_MAX characters (unless the report is wide): its start and end
    kept, the middle cut, and a violation's key that would fall in the cut kept with some
    context around it. Each cut is marked CUT_MARK, and nothing else is."""
    style = _STYLE.get()
    if style.wide or len(text) <= VALUE_CHARS_MAX:
        return text
    tail = KEY_CONTEXT_CHARS
    head = VALUE_CHARS_MAX - tail - len(CUT_MARK)
    kept = [(0, head), (len(text) - tail, len(text))]
    for key in style.keys:
        at = text.find(key)
        if at >= 0 and not any(start <= at and at + len(key) <= stop for start, stop in kept):
            # The key lies in the cut: keep it with some context, and less of the start.
            kept = [(0, KEY_CONTEXT_CHARS), (at - KEY_CONTEXT_CHARS, at + len(key) + KEY_CONTEXT_CHARS), kept[1]]
            break
    return _kept(text, kept)


def middle_cut(text: str, width: int) -> str:
    """``text`` within ``width`` characters: its start and end kept, CUT_MARK where the middle was."""
    if len(text) <= width:
        return text
    room = max(width - len(CUT_MARK), 2)
    head = (room + 1) // 2 + room // 6
    return _kept(text, [(0, head), (len(text) - (room - head), len(text))])


def _kept(text: str, ranges: list[tuple[int, int]]) -> str:
    """The parts of ``text`` in ``ranges`` (merged where they touch), CUT_MARK for each gap between them."""
    merged: list[list[int]] = []
    for start, stop in sorted((max(start, 0), min(stop, len(text))) for start, stop in ranges):
        if start >= stop:
            continue
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], stop)
        else:
            merged.append([start, stop])
    if not merged:
        return CUT_MARK if text else ""
    pieces = [CUT_MARK] if merged[0][0] > 0 else []
    for position, (start, stop) in enumerate(merged):
        if position:
            pieces.append(CUT_MARK)
        pieces.append(text[start:stop])
    if merged[-1][1] < len(text):
        pieces.append(CUT_MARK)
    return "".join(pieces)


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

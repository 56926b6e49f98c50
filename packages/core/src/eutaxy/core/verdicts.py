"""Verdicts: what a check may claim, and the provenance every claim carries.

Two kinds, kept apart in every report: simulation verdicts about a scenario (VIOLATED,
BOUNDED, UNSUPPORTED) and spec verdicts about a pure function (CHECKED, TESTED, PROVEN,
REFUTED, UNKNOWN, CONFLICT). BOUNDED is never "verified"; anything Eutaxy cannot control
is UNSUPPORTED with a cause, never a quiet pass.
"""

from __future__ import annotations

import importlib.resources
import json
from typing import Any, Iterable

import attrs

from eutaxy.core.console_lines import ConsoleLine
from eutaxy.core.cuts import Cut
from eutaxy.core.effects import Effect
from eutaxy.core.errors import UserError
from eutaxy.core.invocation_outcomes import InvocationOutcome, OutcomeCounts
from eutaxy.core.plain_data import str_tuple
from eutaxy.core.protocol import EndState
from eutaxy.core.schedule import Schedule
from eutaxy.core.violations import Violation

__all__ = [
    "BOUNDED",
    "CAUSES",
    "CHECKED",
    "CONFLICT",
    "CPU_BOUND",
    "FAILING_SPEC_KINDS",
    "GAVE_UP",
    "HANDLER_NEVER_SUCCEEDED",
    "MODULE_STATE_LEAK",
    "NONDETERMINISTIC",
    "NOT_REPLAYABLE",
    "PROVEN",
    "REFUTED",
    "RUNGS",
    "SCHEMA_VERSION",
    "SIMULATION_KINDS",
    "SPEC_KINDS",
    "TESTED",
    "UNAVAILABLE",
    "UNKNOWN",
    "UNKNOWN_REASONS",
    "UNSUPPORTED",
    "UNSUPPORTED_CAUSES",
    "UNSUPPORTED_REASON",
    "VACUOUS_INVARIANT",
    "VIOLATED",
    "UNLISTED_CAUSE_EXPLANATION",
    "Audit",
    "Bounded",
    "Cause",
    "Coverage",
    "CoverageMiss",
    "CoveragePoint",
    "CutCount",
    "Divergence",
    "Exhaustive",
    "FaultFree",
    "InvariantSeen",
    "Provenance",
    "ShrinkPassCount",
    "ConfigSource",
    "SimulationVerdict",
    "SnapshotName",
    "SpecVerdict",
    "UndeterminedCount",
    "Unsupported",
    "Violated",
    "cause_explanation",
    "exit_code",
    "simulation_verdict",
]

#: The report schema version every verdict's JSON carries.
SCHEMA_VERSION = 1

# --- simulation verdicts -------------------------------------------------------------

#: A replayed, shrunk trace breaks an invariant.
VIOLATED = "violated"
#: No violation in any explored run within the stated bounds (never "verified").
BOUNDED = "bounded"
#: The run touched something Eutaxy cannot control, or did not replay.
UNSUPPORTED = "unsupported"
SIMULATION_KINDS = (VIOLATED, BOUNDED, UNSUPPORTED)

# The causes of UNSUPPORTED (``cause.kind``). vectors/causes.json is the one registry: every
# cause either side (Python platforms and engine, the JavaScript runtime) emits, what it
# means and who emits it; packages/core/tests/test_causes.py scans the sources against it.
# The names Python code uses directly are constants here, each checked against the registry.


def _load_causes() -> dict[str, dict[str, Any]]:
    text = (importlib.resources.files("eutaxy.core") / "vectors" / "causes.json").read_text(encoding="utf-8")
    entries = json.loads(text)["causes"]
    causes = {entry["name"]: entry for entry in entries}
    assert len(causes) == len(entries), "causes.json names a cause twice"
    return causes


#: Every UNSUPPORTED cause, by name: ``{"name", "meaning", "emitters", "explanation"}`` (vectors/causes.json).
CAUSES: dict[str, dict[str, Any]] = _load_causes()
UNSUPPORTED_CAUSES = tuple(sorted(CAUSES))

#: What a report says for a cause the registry does not list (a verdict from a newer Eutaxy).
UNLISTED_CAUSE_EXPLANATION = "The run touched something Eutaxy cannot control or did not replay."


def cause_explanation(kind: str) -> str:
    """The registry's one line on why ``kind`` leaves no claim (what every report prints)."""
    entry = CAUSES.get(kind)
    return UNLISTED_CAUSE_EXPLANATION if entry is None else str(entry["explanation"])


#: Replaying the first runs in another order changed their logs.
MODULE_STATE_LEAK = "module_state_leak"
#: The same plan made different choices (or a violation did not replay).
NOT_REPLAYABLE = "not_replayable"
#: Handler code ran longer than the per-effect threshold without yielding (a loop that never ends).
CPU_BOUND = "cpu_bound"
#: An invariant selected no effect and read no row in any run, so it held trivially.
VACUOUS_INVARIANT = "vacuous_invariant"
#: A rerun of an explored schedule (``--audit``) recorded a different effect log.
NONDETERMINISTIC = "nondeterministic"
#: No invocation of the drive's handler returned normally in any fault-free run.
HANDLER_NEVER_SUCCEEDED = "handler_never_succeeded"
for _name in (MODULE_STATE_LEAK, NOT_REPLAYABLE, CPU_BOUND, VACUOUS_INVARIANT, NONDETERMINISTIC, HANDLER_NEVER_SUCCEEDED):
    assert _name in CAUSES, f"{_name} is not in vectors/causes.json"
del _name

_EXIT_CODES = {BOUNDED: 0, VIOLATED: 1, UNSUPPORTED: 2}
#: The exit status of a refuted or conflicting spec (or one short of ``--min-inside``): VIOLATED's.
_EXIT_SPEC_FAILED = _EXIT_CODES[VIOLATED]
#: The exit status of a report that checked less than it was given: UNSUPPORTED's.
_EXIT_CHECKED_LESS = _EXIT_CODES[UNSUPPORTED]


def exit_code(
    kind: str | None = None,
    *,
    spec_kinds: Iterable[str] = (),
    below_min_inside: bool = False,
    checked_less: bool = False,
) -> int:
    """The one exit status of ``eutaxy check`` and ``eutaxy report``: the worst of what they found.

    Args:
        kind: the simulation verdict (0 BOUNDED, 1 VIOLATED, 2 UNSUPPORTED), or None for a
            spec report alone.
        spec_kinds: the spec verdicts beside it; a REFUTED or CONFLICT one is 1, as a
            refutation fails a check (UNKNOWN lowers a verdict, it never fails one).
        below_min_inside: a property was decided on fewer inputs inside its claim than
            ``--min-inside`` asks (1).
        checked_less: the report checked less than it was given (a spec file that did not
            import or compile, none found, no property decided): 2, never a pass.

    Spec failures never lower a simulation verdict's status: UNSUPPORTED stays 2.
    """
    codes = [_EXIT_CODES[BOUNDED]]
    if kind is not None:
        codes.append(_EXIT_CODES[kind])
    if below_min_inside or any(spec in FAILING_SPEC_KINDS for spec in spec_kinds):
        codes.append(_EXIT_SPEC_FAILED)
    if checked_less:
        codes.append(_EXIT_CHECKED_LESS)
    return max(codes)


@attrs.frozen
class Cause:
    """Why a run is UNSUPPORTED: a cause kind and a sentence naming what was touched."""

    kind: str
    detail: str = ""



#: Field metadata: the field is left out of the verdict's data while it holds its default
#: (an optional field a newer check added; older verdicts are byte for byte as they were).
OMIT_IF_DEFAULT = {"omit_if_default": True}


@attrs.frozen(kw_only=True)
class ShrinkPassCount:
    """What one named shrink pass spent and kept (an entry of ``provenance.shrinkPasses``)."""

    #: The pass's name in ``eutaxy.engine.shrink.SHRINK_PASSES`` (``remove_one_fault``).
    name: str
    #: Replays its candidates cost, the fault-free guard runs included.
    runs: int
    #: Candidates the replay cache answered (met before, never run again).
    cached: int
    #: Candidates kept, each strictly smaller than the one before.
    shrinks: int

    def __attrs_post_init__(self) -> None:
        assert min(self.runs, self.cached, self.shrinks) >= 0, self
        assert self.shrinks <= self.runs + self.cached, "a kept candidate was run or cached"


#: The places a cut count names (``where``): enough to find them, few enough for a report line.
CUT_PLACES_MAX = 5


@attrs.frozen(kw_only=True)
class CutCount:
    """One bound's cuts over a check's exploration runs (an entry of ``provenance.cuts``)."""

    #: The bound (``maxRedeliveries``, ``alarmsPerObject``).
    bound: str
    #: Exploration runs it cut at least once.
    runs: int = 0
    #: Cuts over those runs (one per message, request or alarm left undone).
    cuts: int = 0
    #: The bound's value where it cut (the largest, should a platform resolve it per place).
    limit: int = 0
    #: The platform's own limit where it cut (the largest); None: the platform has none.
    platform_limit: int | None = attrs.field(default=None, metadata=OMIT_IF_DEFAULT)
    #: The first places it cut (queues, callers, objects), sorted, at most CUT_PLACES_MAX.
    where: tuple[str, ...] = attrs.field(default=(), converter=str_tuple)
    #: The first things it left undone (message ids, alarms), in the order met, at most CUT_PLACES_MAX.
    left: tuple[str, ...] = attrs.field(default=(), converter=str_tuple)

    def add(self, cuts: Iterable[Cut]) -> "CutCount":
        """These counts with one run's cuts of this bound added."""
        mine = [cut for cut in cuts if cut.bound == self.bound]
        if not mine:
            return self
        platform = [cut.platform_limit for cut in mine if cut.platform_limit is not None]
        if self.platform_limit is not None:
            platform.append(self.platform_limit)
        left: list[str] = list(dict.fromkeys([*self.left, *(one for cut in mine for one in (*cut.left, *cut.behind))]))
        where: list[str] = sorted({*self.where, *(cut.where for cut in mine)})
        return attrs.evolve(
            self,
            runs=self.runs + 1,
            cuts=self.cuts + len(mine),
            limit=max([self.limit, *(cut.limit for cut in mine)]),
            platform_limit=max(platform) if platform else None,
            where=where[:CUT_PLACES_MAX],
            left=left[:CUT_PLACES_MAX],
        )


@attrs.frozen(kw_only=True)
class UndeterminedCount:
    """An invariant broken only in runs a cut left open (an entry of ``provenance.undetermined``).

    Such a break is never VIOLATED: the platform would have gone on, and might have repaired it.
    """

    invariant: str
    #: Exploration runs in which it broke with a cut in the run.
    runs: int = 0
    #: The bounds that cut those runs.
    bounds: tuple[str, ...] = attrs.field(default=(), converter=str_tuple)

    def add(self, bounds: Iterable[str]) -> "UndeterminedCount":
        named: list[str] = list(dict.fromkeys([*self.bounds, *bounds]))
        return attrs.evolve(self, runs=self.runs + 1, bounds=named)


def _cut_counts(counts: Iterable[CutCount]) -> tuple[CutCount, ...]:
    return tuple(counts)


def _undetermined_counts(counts: Iterable[UndeterminedCount]) -> tuple[UndeterminedCount, ...]:
    return tuple(counts)


@attrs.frozen(kw_only=True)
class ConfigSource:
    """The project config file that supplied some of a check's settings (``provenance.config``)."""

    #: Its path relative to the scenario's folder (``eutaxy.toml``, ``../pyproject.toml``).
    file: str
    #: The settings it supplied, as the file names them (``seed``, ``max-runs``), the command
    #: line having given none of them.
    settings: tuple[str, ...] = attrs.field(default=(), converter=str_tuple)


@attrs.frozen(kw_only=True)
class Provenance:
    """What a simulation verdict rests on; no wall-clock value, so equal seeds give equal JSON."""

    seed: str
    runs: int
    faults_injected: int
    bounds: dict = attrs.field(factory=dict)
    bounds_reached: tuple[str, ...] = attrs.field(default=(), converter=str_tuple)
    schedule_points: int = 0
    replayed: int = 0
    not_replayed: int = 0
    assumptions: tuple[str, ...] = attrs.field(default=(), converter=str_tuple)
    #: Each restart of a runtime that died during the check (what died, in which run); the
    #: interrupted run was performed again, so the verdict is the one it would have been.
    restarts: tuple[str, ...] = attrs.field(default=(), converter=str_tuple, metadata=OMIT_IF_DEFAULT)
    #: Distinct schedules (fault choices and turn picks) the exploration runs took.
    schedules: int = 0
    #: Every schedule within the bounds ran (no bound stopped exploration).
    completed: bool = False
    #: The shrinker's replays and whether its cap stopped it (VIOLATED only; both or neither).
    shrink_replays: int | None = attrs.field(default=None, metadata=OMIT_IF_DEFAULT)
    shrink_capped: bool | None = attrs.field(default=None, metadata=OMIT_IF_DEFAULT)
    #: Each shrink pass in the order it ran, with its replays, cache hits and kept candidates
    #: (VIOLATED only; their runs sum to at most ``shrink_replays``).
    shrink_passes: tuple[ShrinkPassCount, ...] = attrs.field(default=(), converter=tuple, metadata=OMIT_IF_DEFAULT)
    #: Each bound that cut an exploration run (``eutaxy.core.cuts``), with its counts; every
    #: one is also named in ``bounds_reached``.
    cuts: tuple[CutCount, ...] = attrs.field(default=(), converter=_cut_counts, metadata=OMIT_IF_DEFAULT)
    #: Each invariant broken in runs where a cut left the break undetermined (never VIOLATED).
    undetermined: tuple[UndeterminedCount, ...] = attrs.field(default=(), converter=_undetermined_counts, metadata=OMIT_IF_DEFAULT)
    #: The config file that supplied settings (the CLI's; None when none did).
    config: ConfigSource | None = attrs.field(default=None, metadata=OMIT_IF_DEFAULT)

    def __attrs_post_init__(self) -> None:
        assert {count.bound for count in self.cuts} <= set(self.bounds_reached), "every cutting bound is a bound reached"
        assert (self.shrink_replays is None) == (self.shrink_capped is None), "shrink replays and cap go together"
        assert self.shrink_replays is not None or not self.shrink_passes, "pass counts come with shrink replays"
        assert sum(count.runs for count in self.shrink_passes) <= (self.shrink_replays or 0), self.shrink_passes


# --- the parts of a simulation verdict ------------------------------------------------


@attrs.frozen(kw_only=True)
class InvariantSeen:
    """What one invariant saw over the exploration runs (an entry of ``invariants``)."""

    name: str
    #: The invariant's kind (``at_most_once_per_key``), as the scenario names it.
    kind: str
    #: Distinct values over the check's exploration runs: effects (invocation, ordinal, target,
    #: op), rows and keys (canonical JSON).
    effects: int = 0
    rows: int = 0
    keys: int = 0
    #: The exploration runs in which it saw any effect or row.
    runs: int = 0
    allow_vacuous: bool = attrs.field(default=False, metadata=OMIT_IF_DEFAULT)


@attrs.frozen(kw_only=True)
class CoveragePoint:
    """One effect point's fault kinds and those the exploration injected there."""

    target: str
    op: str
    ordinal: int
    kinds: tuple[str, ...] = ()
    injected: tuple[str, ...] = ()


@attrs.frozen(kw_only=True)
class CoverageMiss:
    """A (point, fault) pair the exploration never injected."""

    target: str
    op: str
    ordinal: int
    fault: str


@attrs.frozen(kw_only=True)
class Coverage:
    """The fault kinds each effect point allowed, and which the exploration injected."""

    points: tuple[CoveragePoint, ...] = ()
    pairs: int = 0
    exercised: int = 0
    missed: tuple[CoverageMiss, ...] = ()


@attrs.frozen(kw_only=True)
class Audit:
    """``--audit``: how many explored runs were rerun, of how many, and how many logs differed."""

    reran: int
    runs: int
    differences: int


@attrs.frozen(kw_only=True)
class Exhaustive:
    """An exhaustive exploration: whether it completed, how many schedules ran, the reduction."""

    completed: bool
    schedules: int
    reduction: bool


@attrs.frozen(kw_only=True)
class Divergence:
    """Where two logs part: the points both share first, then up to six points of each side."""

    agreed_points: int
    violating: tuple[Effect, ...] = ()
    fault_free: tuple[Effect, ...] = ()


@attrs.frozen(kw_only=True)
class SnapshotName:
    """A state snapshot named by its binding target and table (``D1:DB``, ``payments``)."""

    target: str
    op: str


#: What the comparison run of ``faultFree`` changed against the trace.
FAULT_FREE_CHANGES = ("faults", "turns", "batches", "nothing")


@attrs.frozen(kw_only=True)
class FaultFree:
    """What the fault changed: the kept events run without it (``eutaxy.engine.explain``)."""

    changed: str = attrs.field(validator=attrs.validators.in_(FAULT_FREE_CHANGES))
    schedule: Schedule
    end: EndState
    violations: tuple[Violation, ...] = ()
    trace: tuple[Effect, ...] = ()
    #: What the comparison run's code logged (``eutaxy.core.console_lines``).
    console: tuple[ConsoleLine, ...] = attrs.field(default=(), converter=tuple, metadata=OMIT_IF_DEFAULT)
    #: None when both logs hold the same effect points.
    divergence: Divergence | None = None
    state_differs: tuple[SnapshotName, ...] = ()


# --- simulation verdicts, one class per kind -------------------------------------------


@attrs.frozen(kw_only=True)
class SimulationVerdict:
    """The fields every simulation verdict carries; ``Violated``, ``Bounded`` and
    ``Unsupported`` add their own. ``eutaxy.core.verdict_data`` turns one into the
    contract's JSON data and back (cattrs, camelCase names).
    """

    kind: str
    scenario: str
    platform: str
    provenance: Provenance
    schema_version: int = attrs.field(default=SCHEMA_VERSION, validator=attrs.validators.in_((SCHEMA_VERSION,)))
    #: Per invariant, in the scenario's order, what it saw over the exploration runs.
    invariants: tuple[InvariantSeen, ...] = ()
    coverage: Coverage = attrs.field(factory=Coverage)
    exhaustive: Exhaustive | None = attrs.field(default=None, metadata=OMIT_IF_DEFAULT)
    audit: Audit | None = attrs.field(default=None, metadata=OMIT_IF_DEFAULT)
    #: The distinct Core decision calls (only when the scenario lists specs).
    core_calls: tuple[dict, ...] | None = attrs.field(default=None, metadata=OMIT_IF_DEFAULT)
    #: The spec ladder's verdicts over ``core_calls`` (the CLI adds them; they never change this verdict).
    specs: dict | None = attrs.field(default=None, metadata=OMIT_IF_DEFAULT)
    #: Where the CLI wrote the regression test (VIOLATED only).
    regression_test: str | None = attrs.field(default=None, metadata=OMIT_IF_DEFAULT)
    #: What the scenario file itself printed to stdout, as it was imported and while the check ran
    #: its code (an invariant's function); the CLI adds it, so stdout stays the report alone.
    scenario_output: str | None = attrs.field(default=None, metadata=OMIT_IF_DEFAULT)
    #: Per drive kind the runs delivered, how its invocations ended over the exploration runs
    #: (``eutaxy.core.invocation_outcomes``): the evidence a pass rests on a handler that worked.
    outcomes: tuple[OutcomeCounts, ...] = attrs.field(default=(), converter=tuple, metadata=OMIT_IF_DEFAULT)

    @property
    def exit_code(self) -> int:
        return exit_code(self.kind)

    def with_fields(self, **changes: Any) -> "SimulationVerdict":
        """A copy with ``changes`` (``regression_test=``, ``specs=``, ``scenario_output=``): what the CLI adds after the check."""
        return attrs.evolve(self, **changes)


@attrs.frozen(kw_only=True)
class Violated(SimulationVerdict):
    """A replayed, shrunk run breaks an invariant; the trace is that run."""

    kind: str = attrs.field(default=VIOLATED, validator=attrs.validators.in_((VIOLATED,)))
    violation: Violation
    trace: tuple[Effect, ...]
    schedule: Schedule
    kept_events: tuple[str, ...]
    #: Every invariant the shrunk run breaks, ``violation`` first.
    violations: tuple[Violation, ...] = ()
    fault_free: FaultFree | None = attrs.field(default=None, metadata=OMIT_IF_DEFAULT)
    #: What the trace's code logged, each line under the point it followed (``eutaxy.core.console_lines``).
    console: tuple[ConsoleLine, ...] = attrs.field(default=(), converter=tuple, metadata=OMIT_IF_DEFAULT)
    #: How each invocation of the trace ended, its uncaught error included (part of the trace).
    invocations: tuple[InvocationOutcome, ...] = attrs.field(default=(), converter=tuple, metadata=OMIT_IF_DEFAULT)

    def __attrs_post_init__(self) -> None:
        assert not self.violations or self.violations[0] == self.violation, "violations lists the violation first"


@attrs.frozen(kw_only=True)
class Bounded(SimulationVerdict):
    """No invariant broke in any explored run within the stated bounds (never "verified")."""

    kind: str = attrs.field(default=BOUNDED, validator=attrs.validators.in_((BOUNDED,)))
    #: What the first exploration run's code logged (no trace to put it under).
    first_run_console: tuple[ConsoleLine, ...] = attrs.field(default=(), converter=tuple, metadata=OMIT_IF_DEFAULT)


@attrs.frozen(kw_only=True)
class Unsupported(SimulationVerdict):
    """The check touched something Eutaxy cannot control, or did not replay: no claim."""

    kind: str = attrs.field(default=UNSUPPORTED, validator=attrs.validators.in_((UNSUPPORTED,)))
    cause: Cause
    #: What the first exploration run's code logged (no trace to put it under).
    first_run_console: tuple[ConsoleLine, ...] = attrs.field(default=(), converter=tuple, metadata=OMIT_IF_DEFAULT)


#: The verdict class for each simulation verdict kind.
VERDICT_CLASSES: dict[str, type[SimulationVerdict]] = {VIOLATED: Violated, BOUNDED: Bounded, UNSUPPORTED: Unsupported}


def simulation_verdict(
    kind: str,
    *,
    scenario: str,
    platform: str,
    provenance: Provenance,
    violation: Violation | None = None,
    trace: Iterable[Effect] | None = None,
    schedule: Schedule | None = None,
    kept_events: Iterable[str] | None = None,
    cause: Cause | None = None,
    **common: Any,
) -> SimulationVerdict:
    """The typed verdict of ``kind``, with the fields its kind requires.

    ``violation``, ``trace``, ``schedule`` and ``keptEvents`` appear exactly on VIOLATED (the
    trace is the replayed shrunk run), ``cause`` exactly on UNSUPPORTED; ``common`` are the
    fields every kind may carry (``exhaustive``, ``invariants``, ``coverage``, ...).
    """
    if kind not in SIMULATION_KINDS:
        raise ValueError(f"unknown simulation verdict {kind!r}")
    violated_fields = (violation, trace, schedule, kept_events)
    if kind == VIOLATED:
        assert all(field is not None for field in violated_fields), "VIOLATED carries its replayed trace"
    else:
        assert all(field is None for field in violated_fields), f"{kind} carries no violation"
        assert "violations" not in common and "fault_free" not in common, f"{kind} carries no violation"
    assert (cause is not None) == (kind == UNSUPPORTED), "a cause exactly on UNSUPPORTED"
    fields: dict[str, Any] = dict(scenario=scenario, platform=platform, provenance=provenance, **common)
    if kind == VIOLATED:
        fields.update(violation=violation, trace=tuple(trace), schedule=schedule, kept_events=tuple(kept_events))
        return Violated(**fields)
    if kind == UNSUPPORTED:
        return Unsupported(cause=cause, **fields)
    return Bounded(**fields)


# --- spec verdicts -------------------------------------------------------------------

#: Held on every input the simulator actually passed to the function.
CHECKED = "checked"
#: Held on generated inputs.
TESTED = "tested"
#: Proved for all inputs by a named engine.
PROVEN = "proven"
#: A counterexample was found at some rung.
REFUTED = "refuted"
#: No rung could decide; carries reasons.
UNKNOWN = "unknown"
#: Two engines disagree (or an engine proves against the simulator's counterexample).
CONFLICT = "conflict"
SPEC_KINDS = (CHECKED, TESTED, PROVEN, REFUTED, UNKNOWN, CONFLICT)
#: Spec verdicts that fail a check or a report: a counterexample, or engines that disagree.
FAILING_SPEC_KINDS = (REFUTED, CONFLICT)

#: The ladder's rungs, in the order they run.
RUNGS = (CHECKED, TESTED, PROVEN)

#: A rung ran but could not decide (no input inside the claim, a solver limit).
GAVE_UP = "gave_up"
#: The rung does not take the function or property (total at a sampling rung, a malformed property).
UNSUPPORTED_REASON = "unsupported"
#: The engine is not installed or could not run.
UNAVAILABLE = "unavailable"
UNKNOWN_REASONS = (GAVE_UP, UNSUPPORTED_REASON, UNAVAILABLE)


@attrs.frozen(kw_only=True)
class SpecVerdict:
    """A spec verdict about one property of one pure function.

    ``rung`` is where the verdict was reached (for REFUTED, where the counterexample was
    found); ``counts`` the distinct inputs each sampling rung held on (``{"checked": 3,
    "tested": 100}``); ``engine`` names the prover (``{"name", "version"}``) for PROVEN and
    engine refutations; ``reasons`` the UNKNOWN reasons (one per rung that could not decide).
    """

    kind: str
    property: str
    rung: str | None = None
    counts: dict = attrs.field(factory=dict)
    engine: dict | None = None
    assumptions: tuple[str, ...] = attrs.field(default=(), converter=str_tuple)
    reasons: tuple[str, ...] = attrs.field(default=(), converter=str_tuple)
    counterexample: Any = None
    seed: str | None = None
    detail: str = ""
    #: For UNKNOWN (unsupported) from an engine: the construct it refused and where
    #: (``{construct, line, file: "module" | "spec", function, text}``).
    unsupported: dict | None = None

    def __attrs_post_init__(self) -> None:
        if self.kind not in SPEC_KINDS:
            raise UserError(f"unknown spec verdict {self.kind!r}; kinds are {', '.join(SPEC_KINDS)}")
        if self.rung is not None and self.rung not in RUNGS:
            raise UserError(f"unknown rung {self.rung!r}; rungs are {', '.join(RUNGS)}")
        for reason in self.reasons:
            if reason not in UNKNOWN_REASONS:
                raise UserError(f"unknown reason {reason!r}; reasons are {', '.join(UNKNOWN_REASONS)}")
        assert self.kind != UNKNOWN or self.reasons, "an UNKNOWN verdict names why"
        assert self.kind != PROVEN or self.engine, "a PROVEN verdict names its engine"

    def to_data(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "kind": self.kind,
            "property": self.property,
            "rung": self.rung,
            "counts": dict(self.counts),
            "assumptions": list(self.assumptions),
        }
        if self.engine is not None:
            data["engine"] = dict(self.engine)
        if self.reasons:
            data["reasons"] = list(self.reasons)
        if self.counterexample is not None:
            data["counterexample"] = self.counterexample
        if self.seed is not None:
            data["seed"] = self.seed
        if self.detail:
            data["detail"] = self.detail
        if self.unsupported is not None:
            data["unsupported"] = dict(self.unsupported)
        return data

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> "SpecVerdict":
        return cls(
            kind=data["kind"],
            property=data["property"],
            rung=data.get("rung"),
            counts=dict(data.get("counts") or {}),
            engine=data.get("engine"),
            assumptions=data.get("assumptions") or (),
            reasons=data.get("reasons") or (),
            counterexample=data.get("counterexample"),
            seed=data.get("seed"),
            detail=data.get("detail", ""),
            unsupported=data.get("unsupported"),
        )

"""The search state of one check: every run goes through ``Session``.

The session owns the platform, the bounds and the wall clock (which only decides when
exploration stops), counts runs and injected faults, keeps the first runs for the
module-state check, checks invariants on every log and, when the scenario lists specs,
collects the exploration runs' distinct Core decisions for the spec ladder. Explorers
decide which plans to run; the session runs them; ``replay`` confirms what they find.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

import attrs

from eutaxy.core.console_lines import ConsoleLine
from eutaxy.core.cuts import judge, remaining_events
from eutaxy.core.effects import as_effects
from eutaxy.core.invariant_counts import InvariantCounts, InvariantSight, effect_point, observe_invariant
from eutaxy.core.invariants import check_invariants
from eutaxy.core.invocation_outcomes import OutcomeCounts
from eutaxy.core.protocol import Platform, RunPlan, RunResult
from eutaxy.core.run_fit import check_run_fit
from eutaxy.core.schedule import Schedule
from eutaxy.core.verdicts import CutCount, UndeterminedCount
from eutaxy.core.violations import Violation

from eutaxy.engine.bounds import MODULE_STATE_RUNS_DEFAULT, Bounds
from eutaxy.engine.core_calls import CoreCalls, lists_specs
from eutaxy.engine.coverage import FaultCoverage
from eutaxy.engine.jobs import PlanRunner
from eutaxy.engine.plans import events_of, faults_injected, schedule_of, short_batches_withheld
from eutaxy.engine.schedule_tree import ScheduleTree

__all__ = ["RunRecord", "Session", "same_violation", "violation_key"]

#: Progress is reported at most this often (in wall milliseconds) while exploring.
PROGRESS_INTERVAL_MS = 100


def violation_key(violation: Violation) -> tuple[str, tuple[str, ...]]:
    """What "the same violation" means: the same invariant broken for the same keys."""
    return (violation.invariant, tuple(violation.keys))


def same_violation(violations: Sequence[Violation], target: tuple[str, tuple[str, ...]]) -> Violation | None:
    for violation in violations:
        if violation_key(violation) == target:
            return violation
    return None


@attrs.frozen(kw_only=True)
class RunRecord:
    """One run: the plan sent, the result received and the violations of its log.

    In a run with cuts (``result.cuts``), ``violations`` are the breaks no continuation could
    repair and ``undetermined`` the rest (``eutaxy.core.cuts.judge``): never reported as VIOLATED.
    """

    plan: RunPlan
    result: RunResult
    violations: tuple[Violation, ...] = ()
    undetermined: tuple[Violation, ...] = ()

    @property
    def unsupported(self) -> bool:
        return self.result.end.kind == "unsupported"

    @property
    def schedule(self) -> Schedule:
        return schedule_of(self.result)


@attrs.define(eq=False)
class Session:
    platform: Platform
    scenario: Mapping[str, Any]
    seed: str
    bounds: Bounds
    clock_ms: Callable[[], float]
    on_progress: Callable[[dict], None] | None = None
    #: How many of the first exploration runs to keep for the module-state check.
    keep_first: int = MODULE_STATE_RUNS_DEFAULT
    #: Keep every exploration run for the determinism audit (``--audit``).
    audit: bool = False
    #: What runs exploration plans instead of the platform alone: other platform instances that
    #: run plans ahead (``jobs.Jobs``), or a Bazel merge's shard runs (``shards.Recorded``); None: one job.
    jobs: PlanRunner | None = None

    #: Exploration runs so far (replays, shrinking and the module-state check not counted).
    runs: int = attrs.field(init=False, default=0)
    faults: int = attrs.field(init=False, default=0)
    #: The most eligible points any exploration run has had.
    most_eligible: int = attrs.field(init=False, default=0)
    replayed: int = attrs.field(init=False, default=0)
    not_replayed: int = attrs.field(init=False, default=0)
    first_records: list[RunRecord] = attrs.field(init=False, factory=list)
    #: Seeded exploration's tree of the schedules it ran (the enumerator keeps its own path).
    schedule_tree: ScheduleTree | None = attrs.field(init=False, default=None)
    #: Distinct schedules the exploration ran, as the explorer counts them.
    schedules: int = attrs.field(init=False, default=0)
    #: Which fault kinds each effect point allowed and which the exploration injected.
    coverage: FaultCoverage = attrs.field(init=False, factory=FaultCoverage)
    #: Every exploration run, kept only for the determinism audit.
    audit_records: list[RunRecord] | None = attrs.field(init=False, default=None)
    #: Seeded draws not run because they would have repeated a schedule.
    skipped: int = attrs.field(init=False, default=0)
    #: Seeded exploration went on to enumerate the branches no run had taken.
    enumerating: bool = attrs.field(init=False, default=False)
    #: The distinct Core decisions of the exploration runs, kept only when the scenario lists specs.
    core_calls: CoreCalls | None = attrs.field(init=False, default=None)
    #: What each invariant saw over the exploration runs that completed (distinct values, and
    #: the runs that saw any), by name in the scenario's order: the evidence that BOUNDED is
    #: not a vacuous pass.
    invariant_sights: dict[str, InvariantSight] = attrs.field(init=False, factory=dict)
    #: (target, op, kind) of every effect the exploration runs recorded, to name the
    #: effects nearest to a selector that matched nothing.
    effect_points: set[tuple[str, str, str]] = attrs.field(init=False, factory=set)
    #: What the first exploration run's code logged: a verdict with no trace shows it.
    first_console: tuple[ConsoleLine, ...] = attrs.field(init=False, default=())
    #: How the exploration runs' invocations ended, per drive kind, the scenario's drive
    #: first: the evidence that a pass rests on a handler that worked.
    outcomes: dict[str, OutcomeCounts] = attrs.field(init=False, factory=dict)
    #: Exploration runs with no injected fault (the runs a handler must succeed in once).
    fault_free_runs: int = attrs.field(init=False, default=0)
    #: Per bound, the exploration runs it cut (``eutaxy.core.cuts``), in the order first met.
    cut_counts: dict[str, CutCount] = attrs.field(init=False, factory=dict)
    #: An exploration run had a delivery of several messages that ``maxShortBatches`` (above 0)
    #: kept from taking a short batch: the bound stopped exploration there, and the verdict
    #: names it among the bounds reached (``eutaxy.engine.plans.short_batches_withheld``).
    short_batches_reached: bool = attrs.field(init=False, default=False)
    #: Per invariant, the exploration runs that broke it where a cut leaves the break undetermined.
    undetermined_counts: dict[str, UndeterminedCount] = attrs.field(init=False, factory=dict)
    _started_ms: float = attrs.field(init=False, default=0.0)
    _progress_ms: float = attrs.field(init=False, default=float("-inf"))

    def __attrs_post_init__(self) -> None:
        self._started_ms = self.clock_ms()
        if lists_specs(self.scenario):
            self.core_calls = CoreCalls()
        if self.audit:
            self.audit_records = []
        for invariant in self.scenario.get("invariants") or []:
            self.invariant_sights[invariant["name"]] = InvariantSight()
        drive = (self.scenario.get("drive") or {}).get("kind")
        if isinstance(drive, str):
            self.outcomes[drive] = OutcomeCounts(drive=drive)

    # -- running ------------------------------------------------------------------------

    @property
    def invariant_counts(self) -> dict[str, InvariantCounts]:
        """Each invariant's sight over the exploration runs, counted."""
        return {name: sight.counts() for name, sight in self.invariant_sights.items()}

    def elapsed_ms(self) -> int:
        return int(self.clock_ms() - self._started_ms)

    def stop_reason(self) -> str | None:
        """The bound that stops exploration now, if any (checked between runs only)."""
        if self.bounds.max_runs is not None and self.runs >= self.bounds.max_runs:
            return "maxRuns"
        if self.runs > 0 and self.elapsed_ms() >= self.bounds.budget_ms:
            return "budgetMs"
        return None

    def perform(self, plan: RunPlan, platform: Platform | None = None, *, shared: bool = False) -> RunRecord:
        """Run a plan (on ``platform``, else the session's) and check its log; nothing is counted
        (replays and checks use this, and every job's thread: it touches no state of the session).

        ``shared``: the platform may start the run from a checkpoint of an earlier one when it
        can (``checkpoints.SharesPrefixes``); exploration runs only, so every other run (a
        replay, the module-state check, the audit) starts from the reset.
        """
        platform = platform or self.platform
        run_shared: Callable[[RunPlan], RunResult] | None = getattr(platform, "run_shared", None) if shared else None
        return self.record_of(plan, platform.run(plan) if run_shared is None else run_shared(plan))

    def record_of(self, plan: RunPlan, result: RunResult) -> RunRecord:
        """A run's record: its result with the violations of its log (a result some other check
        recorded, a Bazel shard's, is judged here as a run made now would be)."""
        violations: tuple[Violation, ...] = ()
        undetermined: tuple[Violation, ...] = ()
        invariants = plan.scenario.get("invariants") or []
        if result.end.kind == "completed" and invariants:
            # The events a cut left undone hold no obligation; breaks a continuation could repair are undetermined.
            events = remaining_events(events_of(plan.scenario), result.cuts)
            found = check_invariants(invariants, as_effects(result.effects), events)
            violations, undetermined = judge(found, result.cuts)
        return RunRecord(plan=plan, result=result, violations=violations, undetermined=undetermined)

    def explore(self, plan: RunPlan, ahead: Sequence[RunPlan] = ()) -> RunRecord:
        """One exploration run: counted, kept if among the first, and reported as progress.

        With ``jobs``, ``ahead`` are the plans the strategy expects next, which they run meanwhile.
        """
        if self.jobs is None:
            record = self.perform(plan, shared=True)
        else:
            performed, job = self.jobs.run(plan, ahead)
            assert isinstance(performed, RunRecord), performed
            record = performed
            note_run = getattr(self.platform, "note_run", None)
            if job != 0 and note_run is not None:
                # What the platform learns from its own runs (a Worker's run assumptions) it learns from this one.
                note_run(record.result)
        if self.runs == 0 and not record.unsupported:
            # The first run injects no faults: the names only a run can tell are checked on it.
            check_run_fit(plan.scenario.get("invariants") or [], as_effects(record.result.effects))
        if self.runs == 0:
            self.first_console = record.result.console
        if self.core_calls is not None:
            self.core_calls.observe(self.runs, record.result.effects)
        self._count_invariants(record)
        self._count_outcomes(record)
        self._count_cuts(record)
        # At maxShortBatches 0 every delivery of several messages is one the bound kept from a
        # short batch: the verdict names the bound rather than let BOUNDED hide it.
        if not self.short_batches_reached:
            self.short_batches_reached = short_batches_withheld(record.result)
        self.runs += 1
        if self.schedule_tree is not None:
            self.schedule_tree.add(record.result.decisions)
            self.schedules = self.schedule_tree.schedules
        self.coverage.observe(record.result)
        if self.audit_records is not None:
            self.audit_records.append(record)
        self.faults += faults_injected(record.result)
        self.most_eligible = max(self.most_eligible, record.result.eligible)
        if len(self.first_records) < self.keep_first:
            self.first_records.append(record)
        self._progress(final=False)
        return record

    def _count_cuts(self, record: RunRecord) -> None:
        cuts = record.result.cuts
        bounds = list(dict.fromkeys(cut.bound for cut in cuts))
        for bound in bounds:
            cut_count = self.cut_counts.get(bound) or CutCount(bound=bound)
            self.cut_counts[bound] = cut_count.add(cuts)
        for violation in record.undetermined:
            name = violation.invariant
            undetermined = self.undetermined_counts.get(name) or UndeterminedCount(invariant=name)
            self.undetermined_counts[name] = undetermined.add(bounds)

    def _count_outcomes(self, record: RunRecord) -> None:
        fault_free = faults_injected(record.result) == 0
        self.fault_free_runs += fault_free
        invocations = record.result.invocations
        for drive in sorted({one.drive for one in invocations} - set(self.outcomes)):
            self.outcomes[drive] = OutcomeCounts(drive=drive)
        for drive, counts in self.outcomes.items():
            self.outcomes[drive] = counts.add(self.runs, invocations, fault_free=fault_free)

    def _count_invariants(self, record: RunRecord) -> None:
        if record.unsupported or not self.invariant_sights:
            return
        effects = as_effects(record.result.effects)
        self.effect_points.update(effect_point(effect) for effect in effects)
        events = events_of(record.plan.scenario)
        for invariant in record.plan.scenario.get("invariants") or []:
            name = invariant["name"]
            self.invariant_sights[name] = self.invariant_sights[name] | observe_invariant(invariant, effects, events)

    # -- progress -----------------------------------------------------------------------

    def _progress(self, *, final: bool) -> None:
        if self.on_progress is None:
            return
        now = self.clock_ms()
        if not final and now - self._progress_ms < PROGRESS_INTERVAL_MS:
            return
        self._progress_ms = now
        self.on_progress(
            {
                "runs": self.runs,
                "faults": self.faults,
                "elapsedMs": int(now - self._started_ms),
                "budgetMs": self.bounds.budget_ms,
            }
        )

    def finish(self) -> None:
        """The last progress report of the check."""
        self._progress(final=True)

"""The check API: explore a scenario on a platform and return its verdict as plain data.

``check_scenario`` runs seeded (or exhaustive) exploration, replays what it finds,
shrinks it, runs the module-state check before BOUNDED, and builds the verdict. The
verdict holds no wall-clock value (elapsed time goes to ``on_progress`` only), so the
same scenario, seed and bounds give byte-identical JSON; the budget decides only when
exploration stops, and a test that asserts a verdict sets ``max_runs``. A scenario that
lists specs also gets ``coreCalls``: the distinct Core decisions its exploration runs made
(see ``core_calls``), the inputs the spec ladder's CHECKED rung evaluates.

This is the engine's one entry point: it picks the exploration strategy, and it holds what
a platform's ``check`` and a regression test's ``expect_holds`` call (``check_file``,
``expect_holds``). Nothing below it (plans, sessions, outcomes, the strategies, the
scenario layer) imports it.
"""

from __future__ import annotations

import os
import time
from typing import Any, Callable, Mapping, Sequence

from eutaxy.core.cuts import judge, remaining_events
from eutaxy.core.effects import as_effects
from eutaxy.core.errors import UserError
from eutaxy.core.invariant_counts import nearest_effects, vacuous_reason
from eutaxy.core.invocation_outcomes import FirstError
from eutaxy.core.invariants import check_invariants
from eutaxy.core.protocol import Platform
from eutaxy.core.scenario_stem import scenario_stem
from eutaxy.core.schedule import Schedule
from eutaxy.core.verdict_data import verdict_data
from eutaxy.core.violations import Violation
from eutaxy.core.verdicts import (
    HANDLER_NEVER_SUCCEEDED,
    VACUOUS_INVARIANT,
    Audit,
    Cause,
    Exhaustive,
    InvariantSeen,
    Provenance,
    ShrinkPassCount,
    SimulationVerdict,
    simulation_verdict,
)

from eutaxy.engine.audit import run_audit
from eutaxy.engine.bounds import BOUND_NAMES, resolve_bounds, with_bounds
from eutaxy.engine.exhaustive import Enumeration
from eutaxy.engine.explain import explain
from eutaxy.engine.explore import Strategy, explore
from eutaxy.engine.jobs import Jobs, usable_jobs
from eutaxy.engine.shards import Recorded
from eutaxy.engine.module_state import MODULE_STATE_RUNS_DEFAULT, check_module_state
from eutaxy.engine.outcomes import Exhausted, Found, Outcome, Stopped
from eutaxy.engine.plans import events_of, replay_plan, restrict_events
from eutaxy.engine.scenario import default_seed
from eutaxy.engine.seeded import SeededStrategy
from eutaxy.engine.session import Session
from eutaxy.engine.shrink import Shrunk, shrink

__all__ = ["ReplayFailure", "check_file", "check_scenario", "check_verdict", "default_seed", "expect_holds", "replay_scenario"]

#: Stated on every verdict whose enumeration kept the partial-order reduction on.
REDUCTION_ASSUMPTION = (
    "partial-order reduction: code between an invocation's effects shares no state with other "
    "invocations except through effects and the virtual globals"
)



def short_batches_assumption(max_short_batches: int) -> str:
    """What a check that explores short batches assumes about them (``maxShortBatches`` above 0)."""
    deliveries = "one delivery" if max_short_batches == 1 else f"{max_short_batches} deliveries"
    return (
        f"Batch compositions: in each run up to {deliveries} of a queue may take only the first k of the "
        "n messages it would deliver together (1 <= k < n), as a batch whose timeout ends before it fills "
        "does; every other delivery takes every message waiting up to the batch size (maxShortBatches)."
    )


#: The nearest effects a vacuous invariant's message names: enough to spot a wrong op.
_NEAREST_MAX = 6


def _monotonic_ms() -> float:
    return time.monotonic() * 1000.0


def check_scenario(scenario: dict, platform: Platform, **options: Any) -> dict:
    """Check ``scenario`` on ``platform``; the verdict as plain data (see docs/contract.md).

    The same as ``verdict_data(check_verdict(scenario, platform, **options))``.
    """
    return verdict_data(check_verdict(scenario, platform, **options))


def check_verdict(
    scenario: dict,
    platform: Platform,
    *,
    seed: str | None = None,
    max_runs: int | None = None,
    budget_ms: int | None = None,
    exhaustive: bool = False,
    module_state_runs: int = MODULE_STATE_RUNS_DEFAULT,
    audit: bool = False,
    on_progress: Callable[[dict], None] | None = None,
    clock_ms: Callable[[], float] | None = None,
    jobs: int = 1,
    create_platform: Callable[[], Platform] | None = None,
    recorded: Sequence[Mapping[str, Any]] | None = None,
) -> SimulationVerdict:
    """Check ``scenario`` on ``platform``; the typed verdict (``eutaxy.core.verdicts``).

    ``clock_ms`` is the wall clock in milliseconds that decides when the budget is spent
    (``time.monotonic`` unless a test passes its own). ``audit`` reruns a sample of the
    explored runs and compares their logs byte for byte (``eutaxy.engine.audit``).
    ``jobs`` above 1 explores on that many platform instances, ``platform`` and ``jobs - 1``
    more that ``create_platform`` makes (``eutaxy.engine.jobs``), capped by what the check can
    use (``usable_jobs``: one when exhaustive, at most ``max_runs - 1``); the verdict is the
    same bytes as one job's. ``recorded`` are the results of every Bazel shard of this check
    (``eutaxy.engine.shards.check_shard``): a plan a shard ran is not run again, and the verdict
    is the same bytes as one job's.
    """
    if jobs < 1:
        raise UserError(f"jobs must be 1 or more, got {jobs}")
    if jobs > 1 and create_platform is None:
        raise UserError(f"jobs={jobs} needs create_platform, which makes the other platform instances")
    if module_state_runs < 0:
        raise UserError(f"module_state_runs must be 0 or more, got {module_state_runs}")
    if not scenario.get("invariants"):
        raise UserError(
            f"scenario {scenario.get('name') or scenario.get('source')!r} has no invariants, so no run could break "
            "anything; add one (at_most_once_per_key, at_least_once_per_message, every_row, ...)"
        )
    seed = default_seed(scenario) if seed is None else seed
    bounds = resolve_bounds(scenario, max_runs=max_runs, budget_ms=budget_ms)
    scenario = with_bounds(scenario, bounds)
    session = Session(
        platform=platform,
        scenario=scenario,
        seed=seed,
        bounds=bounds,
        clock_ms=clock_ms or _monotonic_ms,
        on_progress=on_progress,
        keep_first=module_state_runs,
        audit=audit,
    )
    # One exploration loop; the strategy decides which runs it makes (explore.py).
    strategy: Strategy = Enumeration(session=session) if exhaustive else SeededStrategy(session=session)
    jobs = usable_jobs(jobs, max_runs=bounds.max_runs, exhaustive=exhaustive)
    pool = None
    if recorded is not None:
        if exhaustive:
            raise UserError("shards split seeded exploration; an exhaustive check is not merged from shards")
        session.jobs = Recorded.from_shards(recorded, session)
    elif jobs > 1:
        assert create_platform is not None
        session.jobs = pool = Jobs(
            main=platform, create=create_platform, extra=jobs - 1,
            perform=lambda plan, instance: session.perform(plan, instance, shared=True),
        )
    try:
        outcome: Outcome = explore(session, strategy)
    finally:
        if pool is not None:
            pool.close()
    session.finish()
    if isinstance(outcome, Exhausted):
        outcome = _refuse_never_succeeded(session, outcome)
    if isinstance(outcome, Exhausted):
        outcome = _refuse_vacuous(session, outcome)
    if isinstance(outcome, Exhausted) and module_state_runs > 0:
        leak = check_module_state(session, module_state_runs)
        if leak is not None:
            outcome = Stopped(cause=leak.cause, detail=leak.detail, exhaustive=outcome.exhaustive)
    audited = None
    if audit and isinstance(outcome, (Exhausted, Found)):
        audited, nondeterministic = run_audit(session)
        if nondeterministic is not None:
            outcome = Stopped(cause=nondeterministic.cause, detail=nondeterministic.detail, exhaustive=outcome.exhaustive)
    return _verdict(scenario, platform, session, outcome, audited)


def _refuse_never_succeeded(session: Session, outcome: Exhausted) -> Outcome:
    """UNSUPPORTED ``handler_never_succeeded`` when no invocation of the drive worked in a fault-free run.

    Invariants over state nothing changed hold whatever the handler does, so a pass over a
    handler that threw on every call (a variable it reads is missing) would claim nothing.
    A scenario whose handler is meant to fail says ``expect_failures=True``.
    """
    if session.scenario.get("expectFailures"):
        return outcome
    drive = (session.scenario.get("drive") or {}).get("kind")
    counts = session.outcomes.get(drive) if isinstance(drive, str) else None
    if counts is None or counts.fault_free_invocations == 0 or counts.succeeded_fault_free:
        return outcome
    runs = session.fault_free_runs
    ended = [
        f"{number} {words}"
        for number, words in (
            (counts.threw, "threw"),
            (counts.timed_out, "timed out"),
            (counts.crashed - counts.exited, "crashed by an injected fault"),
            (counts.exited, "crashed by their own code (an exit, out of memory)"),
            (counts.retried_all, "returned but asked for all their messages again"),
            (counts.returned - counts.retried_all, "returned, in runs with a fault"),
            (counts.dead_lettered, "message dead-lettered" if counts.dead_lettered == 1 else "messages dead-lettered"),
        )
        if number
    ]
    detail = (
        f"no invocation of the {drive} drive returned normally in the {runs} fault-free run"
        + ("" if runs == 1 else "s")
        + f" ({counts.invocations} invocations over all runs: {', '.join(ended) or 'none returned'})"
    )
    # The user's error is the answer's subject: it leads, and what it led to follows.
    lead = _first_error_lead(counts.first_error)
    if lead:
        detail = f"{lead}; {detail}"
    detail += (
        ". Fix what makes the handler fail (a missing variable, setup or table), or pass "
        "expect_failures=True to define_scenario if failing is what the scenario checks"
    )
    return Stopped(cause=HANDLER_NEVER_SUCCEEDED, detail=detail, exhaustive=outcome.exhaustive)


def _first_error_lead(first: FirstError | None) -> str:
    """``the handler failed: TypeError: boom (at src/index.ts:12), first in msg-1#1``, or "" when none failed."""
    if first is None:
        return ""
    return f"the handler failed: {first.error.text()}, first in {first.invocation}"


def _refuse_vacuous(session: Session, outcome: Exhausted) -> Outcome:
    """UNSUPPORTED ``vacuous_invariant`` when an invariant looked at nothing in every run."""
    reasons = []
    for invariant in session.scenario.get("invariants") or []:
        if invariant.get("allowVacuous"):
            continue
        reason = vacuous_reason(invariant, session.invariant_counts[invariant["name"]])
        if reason is None:
            continue
        text = f"invariant {invariant['name']!r} ({invariant['kind']}) checked nothing in {session.runs} runs: {reason}"
        if "selector" in invariant:
            nearest = nearest_effects(invariant["selector"], session.effect_points)
            text += "; the runs had " + (", ".join(nearest[:_NEAREST_MAX]) if nearest else "no effect of that kind")
        reasons.append(text)
    if not reasons:
        return outcome
    detail = "; ".join(reasons) + (
        ". Fix the selector or query, or mark the invariant allow_vacuous=True if it may look at nothing"
    )
    # An invariant that saw nothing over a handler that threw is most often the error's doing: it leads.
    firsts = [counts.first_error for counts in session.outcomes.values() if counts.first_error is not None]
    lead = _first_error_lead(min(firsts, key=lambda first: first.run) if firsts else None)
    if lead:
        detail = f"{lead}; {detail}"
    return Stopped(cause=VACUOUS_INVARIANT, detail=detail, exhaustive=outcome.exhaustive)


def _invariant_counts(session: Session) -> tuple[InvariantSeen, ...]:
    """Per invariant, what it saw over the exploration runs (the verdict's ``invariants``)."""
    counted = []
    totals = session.invariant_counts
    for invariant in session.scenario.get("invariants") or []:
        counts = totals[invariant["name"]]
        counted.append(InvariantSeen(
            name=invariant["name"],
            kind=invariant["kind"],
            effects=counts.effects,
            rows=counts.rows,
            keys=counts.keys,
            runs=counts.runs,
            allow_vacuous=bool(invariant.get("allowVacuous")),
        ))
    return tuple(counted)


def _stated_bounds(session: Session, unused: Sequence[str] = ()) -> dict[str, Any]:
    """The bounds a verdict states: the engine's, resolved, and the platform's own as its plans
    carry them, except those the platform says cannot apply to the scenario."""
    carried = session.scenario.get("bounds") or {}
    own = {name: value for name, value in carried.items() if name not in BOUND_NAMES and name not in unused}
    return {**own, **session.bounds.to_data()}


def _provenance(
    session: Session,
    platform: Platform,
    bounds_reached: Sequence[str],
    assumptions: list[str],
    shrunk: Shrunk | None = None,
    completed: bool = False,
) -> Provenance:
    described = platform.describe() or {}
    # The bounds that stopped exploration, then every bound that cut an explored run, then
    # maxShortBatches when it kept a delivery of some run from taking a short batch.
    short = ("maxShortBatches",) if session.short_batches_reached else ()
    reached = tuple(dict.fromkeys((*bounds_reached, *session.cut_counts, *short)))
    return Provenance(
        seed=session.seed,
        runs=session.runs,
        faults_injected=session.faults,
        bounds=_stated_bounds(session, described.get("unusedBounds") or ()),
        bounds_reached=reached,
        schedule_points=session.most_eligible,
        replayed=session.replayed,
        not_replayed=session.not_replayed,
        assumptions=tuple(described.get("assumptions") or ()) + tuple(assumptions),
        restarts=tuple(described.get("restarts") or ()),
        schedules=session.schedules,
        completed=completed,
        shrink_replays=None if shrunk is None else shrunk.replays,
        shrink_capped=None if shrunk is None else shrunk.capped,
        shrink_passes=() if shrunk is None else tuple(
            ShrinkPassCount(name=one.name, runs=one.runs, cached=one.cached, shrinks=one.shrinks) for one in shrunk.passes
        ),
        cuts=tuple(session.cut_counts.values()),
        undetermined=tuple(session.undetermined_counts.values()),
    )


def _platform_name(scenario: Mapping[str, Any], platform: Platform) -> str:
    return str(scenario.get("platform") or (platform.describe() or {}).get("platform") or "")


def _verdict(
    scenario: dict, platform: Platform, session: Session, outcome: Outcome, audited: dict[str, Any] | None
) -> SimulationVerdict:
    exhaustive = outcome.exhaustive
    assumptions = [REDUCTION_ASSUMPTION] if exhaustive is not None and exhaustive["reduction"] else []
    if session.bounds.max_short_batches:
        assumptions.append(short_batches_assumption(session.bounds.max_short_batches))
    common: dict[str, Any] = {
        "scenario": str(scenario.get("name") or session.seed),
        "platform": _platform_name(scenario, platform),
        "exhaustive": None if exhaustive is None else Exhaustive(**exhaustive),
        "audit": None if audited is None else Audit(**audited),
        "invariants": _invariant_counts(session),
        "coverage": session.coverage.verdict_part(),
        # Only a scenario that lists specs carries them, so every other verdict is as before.
        "core_calls": None if session.core_calls is None else tuple(session.core_calls.to_data()),
        # A platform that reports no invocations (a test double) leaves the verdict as before.
        "outcomes": tuple(counts for counts in session.outcomes.values() if counts.invocations),
    }
    if isinstance(outcome, Found):
        shrunk = shrink(session, outcome.record, outcome.violation)
        # Every invariant the shrunk run breaks, the one the shrinker kept breaking first.
        others = tuple(v for v in shrunk.record.violations if v.invariant != shrunk.violation.invariant)
        return simulation_verdict(
            "violated",
            provenance=_provenance(session, platform, (), assumptions, shrunk),
            violation=shrunk.violation,
            trace=as_effects(shrunk.record.result.effects),
            schedule=shrunk.schedule,
            kept_events=list(shrunk.kept_events),
            violations=(shrunk.violation,) + others,
            # What the fault changed: the kept events run without it, and where the two logs part.
            fault_free=explain(session, shrunk),
            console=shrunk.record.result.console,
            invocations=shrunk.record.result.invocations,
            **common,
        )
    if isinstance(outcome, Stopped):
        return simulation_verdict(
            "unsupported",
            provenance=_provenance(session, platform, (), assumptions),
            cause=Cause(kind=outcome.cause, detail=outcome.detail),
            first_run_console=session.first_console,
            **common,
        )
    return simulation_verdict(
        "bounded",
        provenance=_provenance(session, platform, outcome.bounds_reached, assumptions, completed=outcome.completed),
        first_run_console=session.first_console,
        **common,
    )


def replay_scenario(
    scenario: dict,
    platform: Platform,
    schedule: Schedule | Mapping[str, Any],
    *,
    seed: str,
    events: Sequence[str] | None = None,
) -> dict:
    """Replay one schedule (on the events kept, if given): ``{"result", "violations"}``.

    The invariants are checked against the events replayed, as the shrinker checked them.
    """
    if not isinstance(schedule, Schedule):
        schedule = Schedule.from_data(dict(schedule))
    bounds = resolve_bounds(scenario)
    scenario = with_bounds(scenario, bounds)
    restricted = scenario if events is None else restrict_events(scenario, events)
    result = platform.run(replay_plan(restricted, seed, schedule, bounds.max_faults_per_run, max_short_batches=bounds.max_short_batches))
    violations: Sequence[Violation] = ()
    undetermined: Sequence[Violation] = ()
    if result.end.kind == "completed":
        # Judged as exploration judges a run: a break a cut leaves open is no violation.
        found = check_invariants(
            restricted.get("invariants") or [], as_effects(result.effects), remaining_events(events_of(restricted), result.cuts)
        )
        violations, undetermined = judge(found, result.cuts)
    replayed: dict[str, Any] = {"result": result.to_data(), "violations": [v.to_data() for v in violations]}
    if undetermined:
        replayed["undetermined"] = [v.to_data() for v in undetermined]
    return replayed



# --- checking and replaying a scenario file (a platform's check and expect_holds) ---------


def expect_holds(
    scenario_path: str | os.PathLike[str],
    *,
    load_scenario: Callable[[str], dict[str, Any]],
    create_platform: Callable[[dict[str, Any]], Platform],
    schedule: Mapping[str, Any],
    events: Sequence[str] | None = None,
    seed: str | None = None,
) -> dict[str, Any]:
    """Replay ``schedule`` on the kept ``events`` and raise AssertionError unless every invariant holds.

    What a regression test written by ``eutaxy check`` calls, through its platform's
    ``expect_holds(scenario_path, *, schedule, events, seed)``: it fails while the bug
    exists and passes once it is fixed. A replay that does not complete (UNSUPPORTED)
    fails too, since it proves nothing either way. ``seed`` defaults to the file's stem,
    as on the command line. Returns the replay (``{"result", "violations"}``) when every
    invariant held; raises :class:`ReplayFailure` (an AssertionError carrying the replay)
    when one broke. Its frames are hidden from pytest's tracebacks (``__tracebackhide__``):
    the failure is the replay, not this function's source.
    """
    __tracebackhide__ = True
    scenario = load_scenario(os.fspath(scenario_path))
    platform = create_platform(scenario)
    try:
        replayed = replay_scenario(
            scenario, platform, dict(schedule), seed=scenario_stem(scenario_path) if seed is None else seed, events=events
        )
    finally:
        platform.close()
    violations = [item.to_data() if hasattr(item, "to_data") else item for item in replayed.get("violations") or []]
    if violations:
        lines = [f"{len(violations)} invariant(s) broken when replaying {scenario.get('name')}:"]
        lines += [f"- {item.get('invariant')} ({item.get('invariantKind')}): {item.get('message')}" for item in violations]
        raise ReplayFailure("\n".join(lines), scenario=scenario, replayed=replayed, events=events)
    end = (replayed.get("result") or {}).get("end") or {}
    if end.get("kind") != "completed":
        raise ReplayFailure(
            f"the replay of {scenario.get('name')} ended {end.get('kind')} ({end.get('cause')}): {end.get('detail')}",
            scenario=scenario, replayed=replayed, events=events,
        )
    return replayed


class ReplayFailure(AssertionError):
    """``expect_holds``'s failure: the message, plus the replay for a report to draw.

    ``scenario`` and ``platform`` are the scenario's name and platform; ``replayed`` is
    ``replay_scenario``'s answer (``violations`` empty when the replay did not complete);
    ``events`` the events replayed (None: all).
    """

    def __init__(self, message: str, *, scenario: Mapping[str, Any], replayed: dict[str, Any], events: Sequence[str] | None) -> None:
        super().__init__(message)
        self.scenario = str(scenario.get("name") or "scenario")
        self.platform = str(scenario.get("platform") or "")
        self.replayed = replayed
        self.events = None if events is None else list(events)


def check_file(
    scenario_path: str | os.PathLike[str],
    *,
    load_scenario: Callable[[str], dict[str, Any]],
    create_platform: Callable[[dict[str, Any]], Platform],
    seed: str | None = None,
    **options: Any,
) -> dict[str, Any]:
    """Check the scenario file as ``eutaxy check`` does and return the verdict's plain data.

    A platform's ``check(scenario_path, ...)``: the seed defaults to the file's stem, as on
    the command line; ``options`` go to ``check_scenario`` (``max_runs``, ``budget_ms``,
    ``exhaustive``, ``audit``). Nothing is written.
    """
    scenario = load_scenario(os.fspath(scenario_path))
    platform = create_platform(scenario)
    try:
        return check_scenario(scenario, platform, seed=scenario_stem(scenario_path) if seed is None else seed, **options)
    finally:
        platform.close()

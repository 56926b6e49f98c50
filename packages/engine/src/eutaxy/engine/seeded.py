"""Seeded exploration: fault positions and kinds drawn from the seed, by position.

The first run injects nothing and counts the eligible points. Every later run draws
from the seed's ``plan`` stream, in this order:

1. ``random()``: the run injects faults when the draw is below ``faultProbability``;
   otherwise it injects none and keeps measuring the path without faults.
2. ``below(maxFaultsPerRun)``: the run injects one more than this many faults.
3. ``below(F)``: the first fault's position, uniform over ``F``, the most eligible points
   a run without faults has had (a run reaches them before its first fault).
4. For each further fault, ``below(len(rest))``: a position drawn without replacement
   from ``rest``, the positions after the first up to the most any run has had (an
   earlier fault, a redelivery, can make a run longer); fewer faults when ``rest`` runs out.
5. For each position in increasing order, ``next_u32()``: the kind draw; the runtime
   injects ``allowed[draw % len(allowed)]``, a kind the point allows whatever it is.

A position is an eligible-point ordinal of the run; one the run does not reach is not
injected. Every point is thus as likely to be faulted as any other, whether it comes
first or last. The plans depend only on the seed and on the eligible counts earlier
runs reported, so the same seed and the same platform give the same plans.

No wasted runs: every run's decisions go into a ``ScheduleTree``. A drawn plan the tree
shows would repeat a schedule already run is skipped, not run. After
``SKIPS_BEFORE_ENUMERATING`` skips in a row the space left is small, and exploration
enumerates it: each run forces the prefix of the first branch no run has taken (the
policy ``first`` after it). Once every option of every decision has been taken (at once
for a run with no eligible point and no turn choice) exploration ends: every schedule
within the bounds ran, and BOUNDED says so.
"""

from __future__ import annotations

import copy
from typing import Any

import attrs

from eutaxy.core.prng import Xoshiro128, seed_words
from eutaxy.core.protocol import RunPlan, RunResult

from eutaxy.engine.explore import explore
from eutaxy.engine.outcomes import Outcome, Stopped
from eutaxy.engine.plans import faults_injected, first_plan, seeded_plan
from eutaxy.engine.schedule_tree import ScheduleTree
from eutaxy.engine.session import RunRecord, Session

__all__ = ["SKIPS_BEFORE_ENUMERATING", "SeededPlanner", "SeededStrategy", "explore_seeded", "new_draw"]

#: Drawn plans in a row that would repeat a known schedule before the rest is enumerated:
#: with nine draws in ten injecting a fault, a space with many branches left rarely gives
#: this many repeats in a row, and skipping a draw costs no run.
SKIPS_BEFORE_ENUMERATING = 32


@attrs.define(eq=False)
class SeededPlanner:
    """Draws each run's plan from the seed and learns the eligible counts runs report."""

    seed: str
    max_faults_per_run: int
    fault_probability: float
    #: Deliveries per run that may take a short batch (the plan's ``maxShortBatches``).
    max_short_batches: int = 0
    #: The most eligible points a run that injected no fault has had.
    most_fault_free: int = attrs.field(init=False, default=0)
    #: The most eligible points any run has had (never below ``most_fault_free``).
    most_any: int = attrs.field(init=False, default=0)
    runs_planned: int = attrs.field(init=False, default=0)
    _stream: Xoshiro128 = attrs.field(init=False)

    def __attrs_post_init__(self) -> None:
        self._stream = Xoshiro128(seed_words(self.seed, "plan"))

    def draw_faults(self) -> dict[int, int]:
        """The next later run's faults: eligible ordinal -> kind draw (empty: no fault)."""
        stream = self._stream
        inject = stream.random() < self.fault_probability
        if not inject or self.max_faults_per_run == 0 or self.most_fault_free == 0:
            return {}
        count = 1 + stream.below(self.max_faults_per_run)
        first = stream.below(self.most_fault_free)
        positions = [first]
        rest = list(range(first + 1, self.most_any))
        for _ in range(min(count - 1, len(rest))):
            index = stream.below(len(rest))
            positions.append(rest[index])
            rest[index] = rest[-1]
            rest.pop()
        positions.sort()
        return {position: stream.next_u32() for position in positions}

    def next_plan(self, scenario: dict) -> RunPlan:
        faults = {} if self.runs_planned == 0 else self.draw_faults()
        plan = seeded_plan(
            scenario, self.seed, self.runs_planned, faults, self.max_faults_per_run, max_short_batches=self.max_short_batches
        )
        self.runs_planned += 1
        return plan

    def observe(self, result: RunResult) -> None:
        if faults_injected(result) == 0:
            self.most_fault_free = max(self.most_fault_free, result.eligible)
        self.most_any = max(self.most_any, result.eligible, self.most_fault_free)


def new_draw(scenario: dict[str, Any], planner: SeededPlanner, tree: ScheduleTree) -> tuple[RunPlan | None, int]:
    """The planner's next draw that runs a schedule the tree does not hold, and the draws skipped
    before it; None when ``SKIPS_BEFORE_ENUMERATING`` draws in a row would repeat one."""
    for skipped in range(SKIPS_BEFORE_ENUMERATING):
        plan = planner.next_plan(scenario)
        assert plan.policy.kind == "seeded", plan.policy
        if not tree.repeats(plan.policy.faults, plan.streams["turns"]):
            return plan, skipped
    return None, SKIPS_BEFORE_ENUMERATING


def _next_plan(session: Session, planner: SeededPlanner, tree: ScheduleTree) -> RunPlan:
    """The next seeded plan that runs a new schedule, or the first open branch once draws keep repeating."""
    scenario = dict(session.scenario)
    if not session.enumerating:
        plan, skipped = new_draw(scenario, planner, tree)
        session.skipped += skipped
        if plan is not None:
            return plan
    prefix = tree.next_open()
    assert prefix is not None, "a complete tree ends exploration before a plan is asked for"
    session.enumerating = True
    return first_plan(
        scenario, session.seed, prefix, session.bounds.max_faults_per_run, max_short_batches=session.bounds.max_short_batches
    )


@attrs.define(eq=False)
class SeededStrategy:
    """Seeded exploration as a strategy of the exploration loop (``explore.Strategy``).

    What to run next: the first run without faults, then the planner's draws, skipping any
    the tree shows would repeat a schedule, and once draws keep repeating, the first branch
    no run has taken. What a run teaches: the eligible counts (the planner) and the
    decisions (the tree; ``Session.explore`` adds them). Done: the tree is complete, which
    covers every schedule within the bounds.
    """

    session: Session
    covers: bool = attrs.field(init=False, default=True)
    planner: SeededPlanner = attrs.field(init=False)
    tree: ScheduleTree = attrs.field(init=False)

    def __attrs_post_init__(self) -> None:
        bounds = self.session.bounds
        self.planner = SeededPlanner(
            seed=self.session.seed,
            max_faults_per_run=bounds.max_faults_per_run,
            fault_probability=bounds.fault_probability,
            max_short_batches=bounds.max_short_batches,
        )
        self.tree = self.session.schedule_tree = ScheduleTree(fault_choices=bounds.fault_probability > 0)

    def finished(self) -> bool:
        return self.tree.complete

    def next_plan(self) -> RunPlan:
        session = self.session
        if session.runs == 0:
            return self.planner.next_plan(dict(session.scenario))
        return _next_plan(session, self.planner, self.tree)

    def observe(self, record: RunRecord) -> Stopped | None:
        self.planner.observe(record.result)
        return None

    def lookahead(self, count: int) -> list[RunPlan]:
        """The next ``count`` plans if the runs not yet observed taught nothing: the planner's
        next new draws from a copy of it. None before the first run is observed (it measures
        the points the draws range over) nor once exploration enumerates (each open branch
        depends on the run before it), nor past a draw that would start enumerating."""
        session = self.session
        if session.runs == 0 or session.enumerating:
            return []
        planner = copy.deepcopy(self.planner)
        scenario = dict(session.scenario)
        plans: list[RunPlan] = []
        for _ in range(count):
            plan, _skipped = new_draw(scenario, planner, self.tree)
            if plan is None:
                break
            plans.append(plan)
        return plans

    def report(self) -> dict[str, Any] | None:
        return None


def explore_seeded(session: Session) -> Outcome:
    """Run seeded plans until a violation replays, a run is unsupported, a bound stops it,
    or every schedule within the bounds has run."""
    return explore(session, SeededStrategy(session=session))

"""Replay, and the rule that every violation is replayed before it is reported.

A schedule names its faults by invocation and ordinal and records every turn pick, so
replaying it on the same scenario, seed and platform performs the same run. A violation
is reported only from its replay, and only when the replay breaks the same invariant
for the same keys; one that does not replay is never shown (it is counted as
``notReplayed`` in the verdict's provenance and exploration goes on).

``ReplayStrategy`` is replay as a strategy of the exploration loop (``explore.Strategy``):
given schedules, each run once, in order (Shuttle's replay scheduler; Hypothesis's reuse
phase, which runs the saved examples before generating new ones). A violation one of them
breaks is confirmed and shrunk like any other; running them all covers nothing more than
them, so BOUNDED after them never says ``completed``.
"""

from __future__ import annotations

from typing import Any, Sequence

import attrs

from eutaxy.core.protocol import RunPlan
from eutaxy.core.schedule import Schedule
from eutaxy.core.violations import Violation

from eutaxy.engine.plans import replay_plan, restrict_events
from eutaxy.engine.outcomes import Stopped
from eutaxy.engine.session import RunRecord, Session, same_violation, violation_key

__all__ = ["ReplayStrategy", "confirm", "replay"]


def replay(session: Session, schedule: Schedule, kept_events: Sequence[str] | None = None) -> RunRecord:
    """Replay ``schedule`` on the session's scenario (restricted to ``kept_events`` when given)."""
    scenario = session.scenario if kept_events is None else restrict_events(session.scenario, kept_events)
    return session.perform(replay_plan(scenario, session.seed, schedule, session.bounds.max_faults_per_run, max_short_batches=session.bounds.max_short_batches))


def confirm(session: Session, record: RunRecord) -> tuple[RunRecord, Violation] | None:
    """The replay of a violating run and its violation, when it breaks the same invariant.

    Only the first violation of the run is the target: it is what the verdict reports,
    and what the shrinker must keep breaking.
    """
    assert record.violations, record
    target = violation_key(record.violations[0])
    again = session.perform(
        replay_plan(record.plan.scenario, session.seed, record.schedule, session.bounds.max_faults_per_run, max_short_batches=session.bounds.max_short_batches)
    )
    violation = None if again.unsupported else same_violation(again.violations, target)
    if violation is None:
        session.not_replayed += 1
        return None
    session.replayed += 1
    return again, violation


@attrs.define(eq=False)
class ReplayStrategy:
    """Run each of ``schedules`` once, in order, on the events kept (all when None).

    What to run next: the next schedule's replay plan. What a run teaches: nothing (the
    schedules are fixed). Done: every schedule ran; that covers only them.
    """

    session: Session
    schedules: Sequence[Schedule]
    kept_events: Sequence[str] | None = None
    covers: bool = attrs.field(init=False, default=False)
    #: How many of ``schedules`` have been planned.
    planned: int = attrs.field(init=False, default=0)

    def finished(self) -> bool:
        return self.planned >= len(self.schedules)

    def next_plan(self) -> RunPlan:
        assert self.planned < len(self.schedules), "a finished strategy is never asked for a plan"
        self.planned += 1
        return self._plan(self.planned - 1)

    def lookahead(self, count: int) -> list[RunPlan]:
        """The next ``count`` schedules' plans (runs teach this strategy nothing)."""
        return [self._plan(index) for index in range(self.planned, min(self.planned + count, len(self.schedules)))]

    def _plan(self, index: int) -> RunPlan:
        session = self.session
        scenario = session.scenario if self.kept_events is None else restrict_events(session.scenario, self.kept_events)
        return replay_plan(
            scenario, session.seed, self.schedules[index], session.bounds.max_faults_per_run,
            max_short_batches=session.bounds.max_short_batches,
        )

    def observe(self, record: RunRecord) -> Stopped | None:
        return None

    def report(self) -> dict[str, Any] | None:
        return None

"""Replay, and the rule that every violation is replayed before it is reported.

A schedule names its faults by invocation and ordinal and records every turn pick, so
replaying it on the same scenario, seed and platform performs the same run. A violation
is reported only from its replay, and only when the replay breaks the same invariant
for the same keys; one that does not replay is never shown (it is counted as
``notReplayed`` in the verdict's provenance and exploration goes on).
"""

from __future__ import annotations

from typing import Sequence

from eutaxy.core.schedule import Schedule
from eutaxy.core.violations import Violation

from eutaxy.engine.plans import replay_plan, restrict_events
from eutaxy.engine.session import RunRecord, Session, same_violation, violation_key

__all__ = ["confirm", "replay"]


def replay(session: Session, schedule: Schedule, kept_events: Sequence[str] | None = None) -> RunRecord:
    """Replay ``schedule`` on the session's scenario (restricted to ``kept_events`` when given)."""
    scenario = session.scenario if kept_events is None else restrict_events(session.scenario, kept_events)
    return session.perform(replay_plan(scenario, session.seed, schedule, session.bounds.max_faults_per_run))


def confirm(session: Session, record: RunRecord) -> tuple[RunRecord, Violation] | None:
    """The replay of a violating run and its violation, when it breaks the same invariant.

    Only the first violation of the run is the target: it is what the verdict reports,
    and what the shrinker must keep breaking.
    """
    assert record.violations, record
    target = violation_key(record.violations[0])
    again = session.perform(
        replay_plan(record.plan.scenario, session.seed, record.schedule, session.bounds.max_faults_per_run)
    )
    violation = None if again.unsupported else same_violation(again.violations, target)
    if violation is None:
        session.not_replayed += 1
        return None
    session.replayed += 1
    return again, violation

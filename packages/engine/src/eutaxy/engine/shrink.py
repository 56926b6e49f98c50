"""The shrinker: the smallest schedule and event set that still break the same invariant.

It starts from a replayed violation and runs named passes to a fixed point, smallest
change first: remove one fault, then remove one input event (with the faults of its
invocations). A candidate is kept only when its replay breaks the same invariant for the
same keys; the invariants are checked against the remaining events, so expectations
derived from the input (per-message at-least-once) are re-derived and cannot break merely
because they went stale. A kept candidate's schedule is the one its replay took (the
faults injected, every turn pick); a last replay shows it gives the final trace again.

Candidates are accepted only when strictly smaller under ``schedule_sort_key`` (fewer
events, then fewer choices), which bounds the passes; ``MAX_SHRINK_RUNS`` bounds the
replays. Wall time never stops shrinking, so the verdict stays deterministic.
"""

from __future__ import annotations

from typing import Callable, Iterator

import attrs

from eutaxy.core.schedule import Schedule, schedule_sort_key
from eutaxy.core.violations import Violation

from eutaxy.engine.plans import event_ids, event_of_invocation
from eutaxy.engine.replay import replay
from eutaxy.engine.session import RunRecord, Session, same_violation, violation_key

__all__ = ["MAX_SHRINK_RUNS", "Shrunk", "shrink"]

#: Replays the shrinker may spend: enough for a few dozen faults and events, with each
#: removal tried once per improvement, and small next to an exploration budget.
MAX_SHRINK_RUNS = 500


@attrs.frozen(kw_only=True)
class Shrunk:
    record: RunRecord
    violation: Violation
    schedule: Schedule
    kept_events: tuple[str, ...]
    replays: int


@attrs.frozen(kw_only=True)
class _Candidate:
    schedule: Schedule
    kept_events: tuple[str, ...]


def _remove_one_fault(schedule: Schedule, kept: tuple[str, ...]) -> Iterator[_Candidate]:
    for index in range(len(schedule.faults)):
        faults = schedule.faults[:index] + schedule.faults[index + 1 :]
        yield _Candidate(schedule=Schedule(faults=faults, turns=schedule.turns), kept_events=kept)


def _remove_one_event(schedule: Schedule, kept: tuple[str, ...]) -> Iterator[_Candidate]:
    if len(kept) <= 1:
        return
    for event_id in kept:
        faults = tuple(f for f in schedule.faults if event_of_invocation(f.invocation) != event_id)
        yield _Candidate(
            schedule=Schedule(faults=faults, turns=schedule.turns),
            kept_events=tuple(e for e in kept if e != event_id),
        )


#: The passes, smallest change first.
SHRINK_PASSES: tuple[tuple[str, Callable[[Schedule, tuple[str, ...]], Iterator[_Candidate]]], ...] = (
    ("remove_one_fault", _remove_one_fault),
    ("remove_one_event", _remove_one_event),
)


def _size(kept: tuple[str, ...], schedule: Schedule) -> tuple:
    return schedule_sort_key(len(kept), Schedule(faults=schedule.faults))


def shrink(session: Session, record: RunRecord, violation: Violation) -> Shrunk:
    """Shrink a confirmed violation (``record`` is its replay on the whole scenario)."""
    target = violation_key(violation)
    schedule = record.schedule
    kept = tuple(event_ids(record.plan.scenario))
    best = (record, violation)
    replayed_schedule = schedule
    replays = 0
    improved = True
    while improved and replays < MAX_SHRINK_RUNS:
        improved = False
        for _name, candidates in SHRINK_PASSES:
            for candidate in candidates(schedule, kept):
                if replays >= MAX_SHRINK_RUNS:
                    break
                again = replay(session, candidate.schedule, candidate.kept_events)
                replays += 1
                found = None if again.unsupported else same_violation(again.violations, target)
                if found is None:
                    continue
                taken = again.schedule
                # Only strictly smaller candidates: fewer events, or as many and fewer faults.
                assert _size(candidate.kept_events, taken) < _size(kept, schedule), (candidate, schedule)
                replayed_schedule = candidate.schedule
                schedule, kept, best = taken, candidate.kept_events, (again, found)
                improved = True
                break
            if improved:
                break
    if best[0] is not record:
        # Report the schedule the last replay took, once it is shown to replay the trace;
        # otherwise the schedule that was replayed.
        final = replay(session, schedule, kept)
        replays += 1
        found = None if final.unsupported else same_violation(final.violations, target)
        if found is not None and final.result.effects == best[0].result.effects:
            best = (final, found)
        else:
            schedule = replayed_schedule
    return Shrunk(record=best[0], violation=best[1], schedule=schedule, kept_events=kept, replays=replays)
